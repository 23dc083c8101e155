import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { graph, graphData } from '../helpers/graph-client.js';
import { ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/*
 * `async: true` through the graph API. A query that finishes within its timeout answers as a
 * synchronous one does, with complete progress and no id; polling an id that names nothing this
 * key ran is NOT_FOUND. (The running → done life of a slow query is in src/api/graphql/async-nrql.test.ts:
 * the shortest wait NerdGraph allows is 5 s, too slow to reach with data here.)
 */

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

describe('async NRQL through the graph API', () => {
  const clock = new ManualClock(NOW);
  let ts: TestServer;

  before(async () => {
    ts = await startTestServer({}, { clock });
    await ts.server.db.catalogConnection.run(
      `INSERT INTO custom_events SELECT 1, 0, 0, 0, make_timestamp(((${NOW - 600_000} + i * 1000) * 1000)::BIGINT), 'Job', json_object('n', i)::VARCHAR FROM range(120) AS t(i)`,
    );
  });
  after(() => ts?.stop());

  it('a query that finishes within its timeout answers at once, complete, without an id', async () => {
    const data = await graphData(ts, `{ actor { account(id: 1) { nrql(query: "SELECT count(*), max(n) FROM Job SINCE 1 hour ago", async: true) {
      results queryProgress { queryId completed retryAfter retryDeadline resultExpiration } } } } }`);
    assert.deepEqual(data.actor.account.nrql, {
      results: [{ count: 120, 'max.n': 119 }],
      queryProgress: { queryId: null, completed: true, retryAfter: null, retryDeadline: null, resultExpiration: null },
    });
  });

  it('a bad query with async: true is refused at once, as without it', async () => {
    const reply = await graph(ts, '{ actor { nrql(accounts: [1], query: "SELECT count(* FROM Job", async: true) { results } } }');
    assert.equal(reply.body.errors?.[0]?.extensions?.errorClass, 'INVALID_INPUT');
    assert.equal(reply.body.errors?.[0]?.extensions?.nrqlErrorCode, 'NRQL_SYNTAX');
    assert.deepEqual(reply.body.data, { actor: { nrql: null } });
  });

  it('polling an unknown query id is NOT_FOUND, on account and on actor', async () => {
    const onAccount = await graph(ts, '{ actor { account(id: 1) { nrqlQueryProgress(queryId: "0d6f0c52-4a55-4f3e-9a55-1b2b3c4d5e6f") { results } } } }');
    assert.deepEqual(onAccount.body.errors?.map((e) => [e.extensions?.errorClass, e.path]), [['NOT_FOUND', ['actor', 'account', 'nrqlQueryProgress']]]);
    const onActor = await graph(ts, '{ actor { nrqlQueryProgress(accounts: [1], queryId: "nope") { results } } }');
    assert.deepEqual(onActor.body.errors?.map((e) => [e.extensions?.errorClass, e.path]), [['NOT_FOUND', ['actor', 'nrqlQueryProgress']]]);
    const otherAccount = await graph(ts, '{ actor { nrqlQueryProgress(accounts: [2], queryId: "nope") { results } } }');
    assert.equal(otherAccount.body.errors?.[0]?.extensions?.errorClass, 'FORBIDDEN');
  });
});
