import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectApp, ManualClock, rest, sendMetrics, startTestServer, type MetricRow } from '../../../test/helpers/rest-fixture.js';
import type { TestServer } from '../../../test/helpers/test-server.js';
import { DuckDbPlanExecutor } from '../../store/duckdb/duckdb-plan-executor.js';
import { apmSummaries, type ApmApplicationSummaryData } from './apm-summary.js';

/*
 * APM summaries from metric data sent through the real collector. The clock stands at 14:30:20,
 * so the summary window is the 10 minutes 14:21–14:31. Each number is worked out beside its
 * assertion; floating-point sums are compared to 12 significant digits.
 *
 *   web-shop      web only, with queue time: web-1 pid 100 (14:25, 14:26), web-2 pid 101 (14:26)
 *   batch-worker  background only, no Apdex: worker-1 pid 200 (14:22–14:24)
 *   mixed-api     web and background, no queue time: api-1 pids 300 (14:28, 14:29) and 301 (14:30);
 *                 api-2 pid 302 sent 14:18 at 14:18:20 and is no longer live
 *   idle-app      reporting, but only a memory metric: no transactions
 *   stale-app     last sent 15 minutes ago: not reporting
 *   silent-app    connected, never sent metric data
 */

const NOW = Date.UTC(2024, 2, 5, 14, 30, 20);
const minute = (m: number) => Date.UTC(2024, 2, 5, 14, m);
const row = (name: string, stats: MetricRow[2]): MetricRow => [name, '', stats];

let ts: TestServer;
let executor: DuckDbPlanExecutor;
const ids: Record<string, number> = {};

before(async () => {
  const clock = new ManualClock(NOW);
  ts = await startTestServer({}, { clock });
  executor = new DuckDbPlanExecutor(ts.server.db);
  const send = async (name: string, host: string, pid: number, minutes: readonly number[], rows: readonly MetricRow[]) => {
    const agent = await connectApp(ts, name, host, pid);
    ids[name] = agent.appId;
    for (const m of minutes) await sendMetrics(ts, agent.runId, minute(m), minute(m + 1), rows);
  };
  await send('web-shop', 'web-1', 100, [25, 26], [
    row('HttpDispatcher', [10, 2.0, 2.0, 0.1, 0.4, 0.5]),
    row('WebFrontend/QueueTime', [10, 0.3, 0.3, 0.01, 0.05, 0.01]),
    row('Apdex', [7, 2, 1, 0.5, 0.5, 0]),
    row('Errors/all', [1, 0, 0, 0, 0, 0]),
  ]);
  await send('web-shop', 'web-2', 101, [26], [
    row('HttpDispatcher', [20, 3.1, 3.1, 0.05, 0.5, 0.6]),
    row('WebFrontend/QueueTime', [5, 0.1, 0.1, 0.01, 0.03, 0.003]),
    row('Apdex', [15, 3, 2, 0.5, 0.5, 0]),
    row('Errors/all', [2, 0, 0, 0, 0, 0]),
  ]);
  await send('batch-worker', 'worker-1', 200, [22, 23, 24], [
    row('OtherTransaction/all', [6, 3.0, 3.0, 0.2, 1.0, 2.0]),
    row('Errors/all', [1, 0, 0, 0, 0, 0]),
  ]);
  await send('mixed-api', 'api-1', 300, [28, 29], [
    row('HttpDispatcher', [5, 1.5, 1.5, 0.1, 0.6, 0.5]),
    row('OtherTransaction/all', [2, 0.8, 0.8, 0.3, 0.5, 0.34]),
    row('Apdex', [4, 1, 0, 0.5, 0.5, 0]),
    row('Errors/all', [1, 0, 0, 0, 0, 0]),
  ]);
  await send('mixed-api', 'api-1', 301, [30], [
    row('HttpDispatcher', [10, 1.0, 1.0, 0.05, 0.2, 0.12]),
    row('Apdex', [10, 0, 0, 0.5, 0.5, 0]),
  ]);
  await send('idle-app', 'idle-1', 500, [29], [row('Memory/Physical', [1, 120, 120, 120, 120, 14400])]);
  await send('silent-app', 'silent-1', 600, [], []);
  // Sent while the clock stood earlier: these hosts and applications have been quiet since.
  clock.ms = NOW - 12 * 60_000;
  await send('mixed-api', 'api-2', 302, [18], [row('HttpDispatcher', [100, 50.0, 50.0, 0.1, 1.0, 30.0])]);
  clock.ms = NOW - 15 * 60_000;
  await send('stale-app', 'stale-1', 400, [15], [row('HttpDispatcher', [10, 1.0, 1.0, 0.1, 0.1, 0.1])]);
  clock.ms = NOW;
});
after(async () => {
  executor?.close();
  await ts?.stop();
});

/** Every field, numbers to 12 significant digits (the sums are floating point), nulls exactly. */
function assertSummary(actual: ApmApplicationSummaryData | undefined, expected: ApmApplicationSummaryData): void {
  assert.ok(actual, 'a summary');
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort());
  for (const [key, want] of Object.entries(expected) as [keyof ApmApplicationSummaryData, number | null][]) {
    const got: number | null = actual[key];
    if (want === null || got === null) assert.equal(got, want, key);
    else assert.ok(Math.abs(got - want) <= 1e-12 * Math.max(1, Math.abs(want)), `${key}: ${got} ≠ ${want}`);
  }
}

async function summaries(): Promise<Map<number, ApmApplicationSummaryData>> {
  const apps = ts.server.catalog.applications(1);
  return apmSummaries({ catalog: ts.server.catalog, metrics: ts.server.metrics, executor }, 1, apps, NOW);
}

describe('apmSummaries', () => {
  it('web only, with queue time', async () => {
    // HttpDispatcher: 10 + 10 + 20 = 40 calls, 2.0 + 2.0 + 3.1 = 7.1 s; queue time 0.3 + 0.3 + 0.1 = 0.7 s
    // spread over the 40 requests: (7.1 + 0.7) / 40 = 0.195 s. 40 requests / 10 min = 4 a minute.
    // Errors 1 + 1 + 2 = 4 of 40. Apdex S 7+7+15 = 29, T 2+2+3 = 7, F 1+1+2 = 4: (29 + 3.5) / 40.
    assertSummary((await summaries()).get(ids['web-shop']!), {
      apdexScore: 32.5 / 40,
      errorRate: 0.1,
      hostCount: 2,
      instanceCount: 2,
      nonWebResponseTimeAverage: null,
      nonWebThroughput: null,
      responseTimeAverage: 0.195,
      throughput: 4,
      webResponseTimeAverage: 0.195,
      webThroughput: 4,
    });
  });

  it('background only: response time and throughput are the background ones, no Apdex', async () => {
    // OtherTransaction/all: 3 × 6 = 18 calls, 3 × 3.0 = 9 s → 0.5 s; 1.8 a minute; 3 errors of 18.
    assertSummary((await summaries()).get(ids['batch-worker']!), {
      apdexScore: null,
      errorRate: 3 / 18,
      hostCount: 1,
      instanceCount: 1,
      nonWebResponseTimeAverage: 0.5,
      nonWebThroughput: 1.8,
      responseTimeAverage: 0.5,
      throughput: 1.8,
      webResponseTimeAverage: null,
      webThroughput: null,
    });
  });

  it('web and background apart; a host whose only instance went quiet is not counted', async () => {
    // Web: 5 + 5 + 10 = 20 calls, 1.5 + 1.5 + 1.0 = 4.0 s → 0.2 s, 2 a minute (pid 302's 14:18 is
    // outside the window). Background: 4 calls, 1.6 s → 0.4 s, 0.4 a minute. Errors 2 of 24.
    // Apdex S 4+4+10 = 18, T 2, F 0: (18 + 1) / 20. Live: api-1 with pids 300 and 301.
    assertSummary((await summaries()).get(ids['mixed-api']!), {
      apdexScore: 0.95,
      errorRate: 2 / 24,
      hostCount: 1,
      instanceCount: 2,
      nonWebResponseTimeAverage: 0.4,
      nonWebThroughput: 0.4,
      responseTimeAverage: 0.2,
      throughput: 2,
      webResponseTimeAverage: 0.2,
      webThroughput: 2,
    });
  });

  it('a reporting application without transactions: zeros as REST shows them, nulls for the kinds it has none of', async () => {
    assertSummary((await summaries()).get(ids['idle-app']!), {
      apdexScore: null,
      errorRate: 0,
      hostCount: 1,
      instanceCount: 1,
      nonWebResponseTimeAverage: null,
      nonWebThroughput: null,
      responseTimeAverage: 0,
      throughput: 0,
      webResponseTimeAverage: null,
      webThroughput: null,
    });
  });

  it('an application not reporting, or that never sent data, has no summary', async () => {
    const map = await summaries();
    assert.equal(map.has(ids['stale-app']!), false);
    assert.equal(map.has(ids['silent-app']!), false);
    assert.deepEqual([...map.keys()].sort((a, b) => a - b), [ids['web-shop'], ids['batch-worker'], ids['mixed-api'], ids['idle-app']].sort((a, b) => a! - b!));
    assert.deepEqual(await apmSummaries({ catalog: ts.server.catalog, metrics: ts.server.metrics, executor }, 1, [], NOW), new Map());
  });

  it('REST v2 application_summary shows the same numbers, rounded and in its units', async () => {
    const apps = (await rest(ts, 'GET', '/v2/applications.json')).json().applications as Record<string, any>[];
    const byName = new Map(apps.map((a) => [a.name as string, a]));
    const summary = (name: string) => byName.get(name)!.application_summary;
    // ms, per minute, percent, Apdex to two decimals.
    assert.deepEqual(summary('web-shop'), {
      response_time: 195, throughput: 4, error_rate: 10, apdex_target: 0.5, apdex_score: 0.81, host_count: 2, instance_count: 2, concurrent_instance_count: 2,
    });
    assert.deepEqual(summary('batch-worker'), {
      response_time: 500, throughput: 1.8, error_rate: 16.7, apdex_target: 0.5, apdex_score: 0, host_count: 1, instance_count: 1, concurrent_instance_count: 1,
    });
    assert.deepEqual(summary('mixed-api'), {
      response_time: 200, throughput: 2, error_rate: 8.33, apdex_target: 0.5, apdex_score: 0.95, host_count: 1, instance_count: 2, concurrent_instance_count: 2,
    });
    assert.deepEqual(byName.get('mixed-api')!.links.application_hosts.length, 1);
    assert.equal(byName.get('stale-app')!.reporting, false);
    assert.equal(byName.get('stale-app')!.application_summary, undefined);
  });
});
