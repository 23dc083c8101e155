import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { entityName, entityNameRule } from './entity-name.js';

test('an entity name is 1 to 255 characters after trimming', () => {
  assert.equal(entityName('  billing-api '), 'billing-api');
  assert.equal(entityName('x'.repeat(255)), 'x'.repeat(255));
  assert.equal(entityName(` ${'x'.repeat(255)} `), 'x'.repeat(255));
  assert.equal(entityName('x'.repeat(256)), undefined);
  assert.equal(entityName(''), undefined);
  assert.equal(entityName(' \t '), undefined);
});

test('the refusal names what is named', () => {
  assert.equal(entityNameRule('a key transaction'), 'a key transaction name is 1 to 255 characters');
});
