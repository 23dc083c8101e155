import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { connectAgent } from '../helpers/collector-client.js';
import { sendMetrics, startTestServer, TEST_API_KEY, type MetricRow } from '../helpers/rest-fixture.js';
import { TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * An application reports at most so many distinct metric names; names past the limit are dropped at
 * ingest (as metrics and as scopes), the rest of the harvest is stored and acknowledged, and each
 * drop is an NrIntegrationError event. Over real HTTP: agents post to the collector, REST and the
 * NRQL route read back. A limit of 3 (TIMESLICE_METRIC_NAMES_PER_APP) keeps the first test small;
 * the second runs at the default, 5000.
 */

const STATS = [1, 0.5, 0.5, 0.5, 0.5, 0.25] as const;
const unscoped = (name: string): MetricRow => [name, '', STATS];
const scoped = (name: string, scope: string): MetricRow => [name, scope, STATS];

const servers: TestServer[] = [];
after(async () => {
  for (const ts of servers) await ts.stop();
});

async function connect(ts: TestServer, appName: string | string[], pid: number) {
  const names = typeof appName === 'string' ? [appName] : appName;
  const facts = [{ pid, host: 'web-1', app_name: names, language: 'nodejs', agent_version: '12.0.0', identifier: names.join(';') }];
  const { runId, connectReply } = await connectAgent(ts.server, TEST_LICENSE_KEY, facts);
  return { runId, appId: Number(connectReply.application_id) };
}

async function harvest(ts: TestServer, runId: string, rows: readonly MetricRow[]): Promise<void> {
  const end = Math.floor(Date.now() / 60_000) * 60_000;
  await sendMetrics(ts, runId, end - 60_000, end, rows);
}

async function restNames(ts: TestServer, appId: number): Promise<string[]> {
  const res = await fetch(`${ts.server.apiUrl}/v2/applications/${appId}/metrics.json`, { headers: { 'x-api-key': TEST_API_KEY } });
  assert.equal(res.status, 200);
  return ((await res.json()) as { metrics: { name: string }[] }).metrics.map((m) => m.name);
}

async function nrql(ts: TestServer, query: string): Promise<any[]> {
  const res = await fetch(`${ts.server.apiUrl}/timeslice/v1/nrql`, {
    method: 'POST', headers: { 'api-key': TEST_API_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ query }),
  });
  const body = await res.json() as { results: any[] };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.results;
}

describe('a limit of 3 metric names per application', () => {
  let ts: TestServer;

  it('stores the names that fit and drops the rest, as metrics and as scopes, recording the drop', async () => {
    ts = await startTestServer({ TIMESLICE_METRIC_NAMES_PER_APP: '3' });
    servers.push(ts);
    const web = await connect(ts, 'web', 100);
    await harvest(ts, web.runId, [unscoped('A'), unscoped('B')]);
    // B is known; C is the third name; D and E are past the limit. A under scope C is kept;
    // D under scope B (a dropped metric) and A under scope E (a dropped scope) are not.
    await harvest(ts, web.runId, [unscoped('B'), unscoped('C'), unscoped('D'), unscoped('E'), scoped('A', 'C'), scoped('D', 'B'), scoped('A', 'E')]);

    assert.deepEqual(await restNames(ts, web.appId), ['A', 'B', 'C']);
    const rows = await ts.server.db.all<{ metric: string; scope: string | null }>(
      `SELECT m.name AS metric, s.name AS scope FROM timeslices t JOIN metric_names m ON m.id = t.metric_id
       LEFT JOIN metric_names s ON s.id = t.scope_id ORDER BY metric, scope NULLS FIRST`);
    assert.deepEqual(rows.map((r) => `${r.metric}${r.scope ? ` @ ${r.scope}` : ''}`), ['A', 'A @ C', 'B', 'B', 'C']);
    assert.deepEqual((await ts.server.db.all<{ name: string }>('SELECT name FROM metric_names ORDER BY name')).map((r) => r.name), ['A', 'B', 'C']);

    const errors = await nrql(ts, 'SELECT newRelicFeature, category, rateLimitType, message, droppedCount, limitValue, metricNameSample, appId FROM NrIntegrationError SINCE 1 hour ago');
    assert.equal(errors.length, 1);
    const { timestamp: _t, ...error } = errors[0];
    assert.deepEqual(error, {
      newRelicFeature: 'Metrics', category: 'RateLimit', rateLimitType: 'MetricNamesPerApplication',
      message: `2 metric name(s) dropped because application ${web.appId} reached its limit of 3 metric names`,
      droppedCount: 2, limitValue: 3, metricNameSample: 'D', appId: web.appId,
    });
  });

  it('another application has its own limit', async () => {
    const worker = await connect(ts, 'worker', 200);
    await harvest(ts, worker.runId, [unscoped('D'), unscoped('E'), unscoped('F')]);
    assert.deepEqual(await restNames(ts, worker.appId), ['D', 'E', 'F']);
  });

  it('harvests in flight together share the room left', async () => {
    const burst = await connect(ts, 'burst', 300);
    await Promise.all([
      harvest(ts, burst.runId, [unscoped('X1'), unscoped('X2')]),
      harvest(ts, burst.runId, [unscoped('Y1'), unscoped('Y2')]),
    ]);
    assert.equal((await restNames(ts, burst.appId)).length, 3);
  });

  it('a roll-up application at its limit drops names for itself only, not for its primary', async () => {
    const rollup = await connect(ts, 'rollup', 400);
    await harvest(ts, rollup.runId, [unscoped('X'), unscoped('Y'), unscoped('Z')]);
    const primary = await connect(ts, ['primary', 'rollup'], 401);
    await harvest(ts, primary.runId, [unscoped('P'), unscoped('Q'), scoped('P', 'Q')]);
    assert.deepEqual(await restNames(ts, primary.appId), ['P', 'Q']);
    assert.deepEqual(await restNames(ts, rollup.appId), ['X', 'Y', 'Z']);
    const rows = await ts.server.db.all<{ n: bigint }>('SELECT count(*) AS n FROM timeslices WHERE app_id = $1', [rollup.appId]);
    assert.equal(Number(rows[0]!.n), 3);
    const errors = await nrql(ts, `SELECT appId, droppedCount, metricNameSample FROM NrIntegrationError WHERE appId IN (${primary.appId}, ${rollup.appId}) SINCE 1 hour ago`);
    assert.deepEqual(errors.map(({ timestamp: _t, ...e }) => e), [{ appId: rollup.appId, droppedCount: 2, metricNameSample: 'P' }]);
  });

  it('the limit holds across a restart: what the application reported is counted again at start', async () => {
    await ts.restart();
    const web = await connect(ts, 'web', 101);
    await harvest(ts, web.runId, [unscoped('A'), unscoped('G')]);
    assert.deepEqual(await restNames(ts, web.appId), ['A', 'B', 'C']);
    const [count] = await nrql(ts, "SELECT count(*) AS drops FROM NrIntegrationError WHERE metricNameSample = 'G' SINCE 1 hour ago");
    assert.equal(count.drops, 1);
  });
});

describe('the default limit, 5000', () => {
  it('one harvest of 5001 new names stores 5000 and drops the last', async () => {
    const ts = await startTestServer();
    servers.push(ts);
    const app = await connect(ts, 'many', 300);
    const names = Array.from({ length: 5001 }, (_, i) => `Custom/Name/${String(i).padStart(4, '0')}`);
    await harvest(ts, app.runId, names.map(unscoped));
    const stored = await ts.server.db.all<{ n: bigint }>('SELECT count(DISTINCT metric_id) AS n FROM timeslices');
    assert.equal(Number(stored[0]!.n), 5000);
    const [error] = await nrql(ts, 'SELECT droppedCount, metricNameSample FROM NrIntegrationError SINCE 1 hour ago');
    assert.equal(error.droppedCount, 1);
    assert.equal(error.metricNameSample, 'Custom/Name/5000');
  });
});
