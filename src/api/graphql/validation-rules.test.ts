import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse, specifiedRules, validate } from 'graphql';
import { buildGraphSchema } from './graph-schema.js';
import { GRAPH_VALIDATION_RULES } from './validation-rules.js';

const schema = buildGraphSchema();
const errorsOf = (text: string, rules = GRAPH_VALIDATION_RULES) => validate(schema, parse(text), rules).map((e) => e.message);

describe('validation rules: NerdGraph is laxer than GraphQL in two places clients rely on', () => {
  it('a variable of a list’s item type fills the list’s position (the entities tutorial)', () => {
    const text = 'query($guids: EntityGuid!, $a: Int!) { actor { entities(guids: $guids) { name } nrql(accounts: $a, query: "SELECT 1") { results } } }';
    assert.deepEqual(errorsOf(text), []);
    assert.equal(errorsOf(text, specifiedRules).length, 2, 'graphql-js alone refuses both');
  });

  it('still refuses a variable that fits neither the list nor its item', () => {
    assert.deepEqual(errorsOf('query($g: String) { actor { entity(guid: $g) { name } } }'), [
      'Variable "$g" of type "String" used in position expecting type "EntityGuid!".',
    ]);
    assert.deepEqual(errorsOf('query($a: Int) { actor { nrql(accounts: $a, query: "SELECT 1") { results } } }'), [
      'Variable "$a" of type "Int" used in position expecting type "[Int!]!".',
    ]);
    assert.deepEqual(errorsOf('query($a: [String]) { actor { nrql(accounts: $a, query: "SELECT 1") { results } } }'), [
      'Variable "$a" of type "[String]" used in position expecting type "[Int!]!".',
    ]);
    // A default stands in for null, as GraphQL allows.
    assert.deepEqual(errorsOf('query($a: Int = 1) { actor { nrql(accounts: $a, query: "SELECT 1") { results } } }'), []);
  });

  it('the same name with another type in fragments that never meet (client-go’s runningAgentVersions)', () => {
    const text = `{ actor { entity(guid: "x") {
      ... on ApmApplicationEntity { runningAgentVersions { maxVersion } }
      ... on BrowserApplicationEntity { runningAgentVersions { maxVersion } } } } }`;
    assert.deepEqual(errorsOf(text), []);
    assert.equal(errorsOf(text, specifiedRules).length, 1, 'graphql-js alone refuses it');
  });

  it('still refuses two fields under one alias in one type', () => {
    assert.deepEqual(errorsOf('{ actor { entity(guid: "x") { name: guid name } } }'), [
      'Fields "name" conflict because "guid" and "name" are different fields. Use different aliases on the fields to fetch both if this was intentional.',
    ]);
  });
});

