import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, TEST_API_KEY } from '../helpers/rest-fixture.js';
import type { TestServer } from '../helpers/test-server.js';
import { httpRequest } from './graph-scenario.js';

/*
 * Variables nested deeper than a document may nest (64 levels) are the caller's input error,
 * INVALID_INPUT in NerdGraph's envelope, whether the operation uses them or not, and however deep
 * they go: 50 000 levels once overflowed the stack of a recursive check and answered 500, which
 * client-go retries three times. Sent over real HTTP, as JSON text (JSON.stringify itself recurses).
 */

let ts: TestServer;
before(async () => {
  ts = await startTestServer();
});
after(() => ts?.stop());

/** `{"a":{"a":…{"a":1}…}}` nested `depth` levels (the outermost object is level 1), or arrays likewise. */
function nested(depth: number, kind: 'object' | 'array'): string {
  return kind === 'object' ? `${'{"a":'.repeat(depth - 1)}{"a":1}${'}'.repeat(depth - 1)}` : `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

async function post(variablesJson: string, query = 'query($v: String) { actor { entitySearch(query: $v) { count } } }') {
  const body = `{"query":${JSON.stringify(query)},"variables":{"v":${variablesJson}}}`;
  return httpRequest(ts, { headers: { 'content-type': 'application/json', 'api-key': TEST_API_KEY }, body });
}

describe('variables nesting', () => {
  for (const kind of ['object', 'array'] as const) {
    it(`50 000 levels of ${kind}s, unused by the operation: 200 with INVALID_INPUT, not 500`, async () => {
      const reply = await post(nested(50_000, kind), '{ actor { user { id } } }');
      assert.equal(reply.status, 200, reply.text.slice(0, 300));
      assert.deepEqual(reply.json(), {
        errors: [{ message: 'Variables nest objects and lists more than 64 deep: send flatter variables', extensions: { errorClass: 'INVALID_INPUT' } }],
      });
    });
  }

  it('65 levels (the variable object is level 1) are refused, 64 reach GraphQL', async () => {
    const refused = await post(nested(64, 'object'));
    assert.equal(refused.status, 200);
    assert.equal(refused.json().errors[0].message, 'Variables nest objects and lists more than 64 deep: send flatter variables');
    // 63 levels inside $v: the variables object makes 64; GraphQL then refuses the object for a String.
    const reached = await post(nested(63, 'object'));
    assert.equal(reached.status, 200);
    assert.match(reached.json().errors[0].message, /^Variable "\$v" got invalid value/);
  });

  it('the same over GET (100 levels: a URL holds no more than 16 KiB)', async () => {
    const variables = encodeURIComponent(`{"v":${nested(100, 'array')}}`);
    const query = encodeURIComponent('{ actor { user { id } } }');
    const reply = await httpRequest(ts, { method: 'GET', path: `/graphql?query=${query}&variables=${variables}`, headers: { 'api-key': TEST_API_KEY } });
    assert.equal(reply.status, 200, reply.text.slice(0, 300));
    assert.equal(reply.json().errors[0].extensions.errorClass, 'INVALID_INPUT');
  });
});
