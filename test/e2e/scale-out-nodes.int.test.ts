/**
 * Two stateless nodes: data on one ClickHouse, catalog on one PostgreSQL. An agent reports to node 1;
 * node 2 answers REST with the same application, metric names and values, and metric ids are the
 * same on both; one node holds the background lease.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { clickhouseMissing, startClickHouse, type ClickHouseServer } from '../helpers/clickhouse.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { connectApp, ManualClock, rest, sendMetrics } from '../helpers/rest-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const skip = clickhouseMissing();
const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;

let pgServer: TestPostgres | undefined;
let clickhouse: ClickHouseServer | undefined;
before(async () => {
  if (skip) return;
  [pgServer, clickhouse] = await Promise.all([startPostgres(), startClickHouse()]);
});
after(async () => {
  await pgServer?.stop();
  await clickhouse?.stop();
});

async function until(what: () => boolean, withinMs: number): Promise<void> {
  const started = performance.now();
  while (!what()) {
    if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('an agent on node 1, REST on node 2: the same application, metric names and values', { skip, timeout: 90_000 }, async () => {
  const env = { TIMESLICE_STORE: `clickhouse://127.0.0.1:${clickhouse!.httpPort}/nodes`, TIMESLICE_CATALOG: await pgServer!.createDatabase('nodes') };
  const clock = new ManualClock(T0 + 5 * MIN);
  const nodes: TestServer[] = [];
  try {
    nodes.push(await startTestServer(env, { clock, alertIntervalMs: 0 }), await startTestServer(env, { clock, alertIntervalMs: 0 }));
    const [one, two] = nodes as [TestServer, TestServer];
    const app = await connectApp(one, 'checkout');
    await sendMetrics(one, app.runId, T0, T0 + MIN, [
      ['HttpDispatcher', '', [4, 2, 2, 0.25, 1, 1.5]],
      ['WebTransaction/Expressjs/GET//a', '', [3, 1.5, 1.2, 0.25, 1, 1]],
      ['Datastore/all', 'WebTransaction/Expressjs/GET//a', [6, 0.6, 0.6, 0.1, 0.1, 0.06]],
    ]);
    await until(() => two.server.catalog.application(app.appId) !== undefined && two.server.metrics.knows({ appId: app.appId }, 'HttpDispatcher'), 2000);
    // The same name has the same id on both nodes: the data node 1 wrote is found by node 2's filters.
    for (const name of ['HttpDispatcher', 'WebTransaction/Expressjs/GET//a', 'Datastore/all']) {
      assert.equal(two.server.metrics.metricId(name), one.server.metrics.metricId(name), name);
    }
    const names = await rest(two, 'GET', `/v2/applications/${app.appId}/metrics.json`);
    assert.equal(names.status, 200, names.text);
    assert.deepEqual(names.json().metrics.map((m: { name: string }) => m.name).sort(), ['HttpDispatcher', 'WebTransaction/Expressjs/GET//a']);
    const url = `/v2/applications/${app.appId}/metrics/data.json?names[]=HttpDispatcher&values[]=call_count&values[]=average_response_time&from=${new Date(T0).toISOString()}&to=${new Date(T0 + 5 * MIN).toISOString()}&summarize=true`;
    const [a, b] = [await rest(one, 'GET', url), await rest(two, 'GET', url)];
    assert.equal(b.status, 200, b.text);
    // 4 calls, 2 s in all: 500 ms average.
    assert.deepEqual(b.json().metric_data.metrics[0].timeslices[0].values, { call_count: 4, average_response_time: 500 });
    assert.deepEqual(b.json(), a.json(), 'node 2 answers as node 1');
    await until(() => one.server.store.lease.held() !== two.server.store.lease.held(), 5000);
  } finally {
    for (const node of nodes) await node.stop();
  }
});
