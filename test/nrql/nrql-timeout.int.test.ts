import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DuckDbPlanExecutor } from '../../src/store/duckdb/duckdb-plan-executor.js';
import { QueryTimeoutError, QueryTooDeepError } from '../../src/store/plan-executor.js';
import { ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * NRQL_TIMEOUT, the one error code no golden file can reach: a statement that runs past the
 * timeout the request names is cancelled in DuckDB and answered as an NRQL error (408 with the
 * code), not a hang or a 500, and the read connection it ran on answers the next query.
 */

const NOW = 1754900200000;
const ROWS = 2_000_000;
const KEYS = 200_000;

describe('NRQL statement timeout', () => {
  const clock = new ManualClock(NOW);
  let ts: TestServer;

  before(async () => {
    ts = await startTestServer({}, { clock });
    // Custom events `Big` over the last 50 minutes, written straight into the store: ingest is not what is tested.
    await ts.server.db.catalogConnection.run(
      `INSERT INTO custom_events SELECT 1, 0, 0, 0, make_timestamp(((${NOW - 3_000_000} + i % 3000000) * 1000)::BIGINT), 'Big',
         json_object('k', i % ${KEYS}, 'v', i)::VARCHAR FROM range(${ROWS}) AS t(i)`,
    );
  });
  after(() => ts?.stop());

  async function nrql(query: string, timeout?: number) {
    const res = await ts.server.api.inject({
      method: 'POST', url: '/timeslice/v1/nrql', headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' },
      payload: JSON.stringify({ query, ...(timeout !== undefined ? { timeout } : {}) }),
    });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  }

  it('a query past its timeout is cancelled with NRQL_TIMEOUT (408)', async () => {
    const started = Date.now();
    const { status, body } = await nrql('SELECT uniqueCount(v), percentile(v, 50) FROM Big FACET k LIMIT MAX SINCE 1 hour ago', 0.01);
    assert.equal(status, 408, JSON.stringify(body));
    assert.deepEqual(body, {
      error: { title: 'The query ran longer than its 0.01 s timeout and was cancelled; narrow its time window or its facets', code: 'NRQL_TIMEOUT' },
    });
    // Cancelled promptly (about 0.1 s here), not after running to its end.
    assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
  });

  it('the connection answers afterwards, and the work completes with room to run', async () => {
    assert.deepEqual((await nrql('SELECT count(*) FROM Big SINCE 1 hour ago')).body.results, [{ count: ROWS }]);
    const { status, body } = await nrql('SELECT uniqueCount(k), max(v) FROM Big SINCE 1 hour ago', 60);
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body.results, [{ 'uniqueCount.k': KEYS, 'max.v': ROWS - 1 }]);
  });
});

describe('one timeout budget per query', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({}, { clock: new ManualClock(NOW) });
  });
  after(() => ts?.stop());

  it('a statement whose deadline has passed is not run: a query of several statements shares its budget', async () => {
    const executor = new DuckDbPlanExecutor(ts.server.db);
    after(() => executor.close());
    await assert.rejects(executor.run({ sql: 'SELECT 1', params: [] }, { timeoutMs: 5_000, deadline: performance.now() - 1 }), QueryTimeoutError);
    assert.deepEqual(await executor.run({ sql: 'SELECT 41 + 1', params: [] }, { timeoutMs: 5_000, deadline: performance.now() + 5_000 }), [[42]]);
  });

  it('SQL nested past DuckDB\'s expression depth is a QueryTooDeepError the engine can name, not a bare engine error', async () => {
    const executor = new DuckDbPlanExecutor(ts.server.db);
    after(() => executor.close());
    await assert.rejects(executor.run({ sql: `SELECT ${Array(1200).fill('1').join(' + ')}`, params: [] }), QueryTooDeepError);
  });
});

describe('the NRQL route’s refusals outside the engine', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({}, { clock: new ManualClock(NOW) });
  });
  after(() => ts?.stop());

  it('a body that is not JSON is a 400 in REST’s error shape, not Fastify’s', async () => {
    const res = await ts.server.api.inject({
      method: 'POST', url: '/timeslice/v1/nrql', headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' }, payload: '{bad',
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(JSON.parse(res.body), { error: { title: "Body is not valid JSON but content-type is set to 'application/json'" } });
  });
});
