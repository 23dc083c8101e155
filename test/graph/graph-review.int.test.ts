import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { graph, graphData } from '../helpers/graph-client.js';
import { ManualClock, rest, startTestServer, TEST_API_KEY } from '../helpers/rest-fixture.js';
import type { TestServer } from '../helpers/test-server.js';
import { handGuid, httpGraph, loadApmScenario, NOW, type ScenarioIds } from './graph-scenario.js';

/*
 * Defects found reviewing src/graph, each checked against a real server (the scenario of
 * graph-scenario.ts): what a request used to get, and what it gets now.
 */

let ts: TestServer;
let ids: ScenarioIds;
let webShop: string;

before(async () => {
  const clock = new ManualClock(NOW);
  ts = await startTestServer({}, { clock });
  ids = await loadApmScenario(ts, clock);
  webShop = handGuid(1, 'APM|APPLICATION', ids.webShop);
});
after(() => ts?.stop());

describe('a document nested thousands of levels deep', () => {
  it('is refused as INVALID_INPUT with its location (HTTP 200), where parsing it overflowed the stack (500, INTERNAL_SERVER_ERROR)', async () => {
    // 5,000 levels take 10,003 tokens: within the token limit.
    const reply = await httpGraph(ts, TEST_API_KEY, `{${' a {'.repeat(5000)} b${' }'.repeat(5000)} }`);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json(), {
      errors: [{
        message: 'The document nests braces, brackets and parentheses more than 64 deep',
        // Level 65 opens at column 1 + 4 × 64: the document's brace, then 64 of ' a {'.
        locations: [{ line: 1, column: 257 }],
        extensions: { errorClass: 'INVALID_INPUT' },
      }],
    });
    const lists = await httpGraph(ts, TEST_API_KEY, `{ actor { entities(guids: ${'['.repeat(3000)}"x"${']'.repeat(3000)}) { guid } } }`);
    assert.equal(lists.status, 200);
    assert.equal(lists.json().errors[0].extensions.errorClass, 'INVALID_INPUT');
  });
});

describe('a variable of an item type standing for a list inside an input object', () => {
  it('dataHandlingRules: {validationFlags: $flag} applies the flag (it was read as a set of letters and ignored: a 5,000-character version was stored cut)', async () => {
    const version = 'v'.repeat(5000);
    const reply = await graph(ts, `mutation($flag: ChangeTrackingValidationFlag!, $guid: EntityGuid!, $version: String!) {
      changeTrackingCreateDeployment(deployment: {entityGuid: $guid, version: $version}, dataHandlingRules: {validationFlags: $flag}) { version } }`,
    { flag: 'FAIL_ON_FIELD_LENGTH', guid: webShop, version });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body.data, { changeTrackingCreateDeployment: null });
    assert.deepEqual(reply.body.errors?.map((e) => [e.message, e.extensions?.errorClass]), [
      ['deployment.version is 5000 characters long; at most 4096 are allowed (FAIL_ON_FIELD_LENGTH)', 'INVALID_INPUT'],
    ]);
    const deployments = await rest(ts, 'GET', `/v2/applications/${ids.webShop}/deployments.json`);
    assert.deepEqual(deployments.json().deployments, [], 'nothing stored');
  });

  it('options: {tagFilter: $key} shows that tag only (it narrowed to the tags named by single letters: none)', async () => {
    const search = await graphData(ts, `query($key: String!) { actor { entitySearch(query: "name = 'web-shop'", options: {tagFilter: $key}) {
      results { entities { name tags { key values } } } } } }`, { key: 'language' });
    assert.deepEqual(search.actor.entitySearch.results.entities, [{ name: 'web-shop', tags: [{ key: 'language', values: ['nodejs'] }] }]);
  });

  it('queryBuilder: {tags: $tag} is a builder of one tag (it was an INTERNAL_SERVER_ERROR: a tag object is not iterable)', async () => {
    const search = await graphData(ts, `query($tag: EntitySearchQueryBuilderTag!) { actor { entitySearch(queryBuilder: {domain: APM, tags: $tag}) { query count } } }`,
      { tag: { key: 'language', value: 'nodejs' } });
    assert.deepEqual(search.actor.entitySearch, { query: "domain = 'APM' AND tags.language = 'nodejs'", count: 3 });
  });

  it('settings: {errorCollector: {ignoredErrorCodes: $code}} sets one code (it was refused: "must be a list")', async () => {
    const update = await graphData(ts, `mutation($guid: EntityGuid!, $code: AgentApplicationSettingsErrorCollectorHttpStatus!) {
      agentApplicationSettingsUpdate(guid: $guid, settings: {errorCollector: {ignoredErrorCodes: $code}}) { errors { field description } apmSettings { errorCollector { ignoredErrorCodes } } } }`,
    { guid: webShop, code: '404' });
    assert.deepEqual(update.agentApplicationSettingsUpdate, { errors: [], apmSettings: { errorCollector: { ignoredErrorCodes: ['404'] } } });
  });
});
