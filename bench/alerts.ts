/**
 * Alert evaluation benchmark: 1,000 enabled NRQL conditions (FACET and plain, over timeslices and
 * over events) on 100 reporting applications, evaluated by the service's own cycle
 * (`AlertService.evaluateOnce`, the one the minute timer runs) on the real store. Reports per cycle
 * the wall time, the process CPU time (DuckDB's threads included) as a share of one core over the
 * minute, and the delay from the start of the cycle that sees a window close to the commit that
 * opens its incidents (p50, p99 over incidents). Options: `--apps=N`, `--conditions=N`, `--minutes=N`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveServeConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { CUSTOM_EVENTS, Rows } from '../src/store/append-tables.js';
import { connectApp, sendMetrics } from '../test/helpers/rest-fixture.js';
import { TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../test/helpers/test-server.js';

const T0 = Date.UTC(2026, 10, 20, 12, 0);
const MIN = 60_000;

export interface AlertBenchResult {
  readonly apps: number;
  readonly conditions: number;
  readonly cycles: ReadonlyArray<{ minute: number; wallMs: number; cpuMs: number; queryMs: number; commitMs: number; incidentsOpened: number; queries: number; failures: number }>;
  readonly cpuShareOfOneCore: number;
  readonly delayP50Ms: number;
  readonly delayP99Ms: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function alertsBench(values: ReadonlyMap<string, string>): Promise<AlertBenchResult> {
  const apps = Number(values.get('apps') ?? 100);
  const conditionCount = Number(values.get('conditions') ?? 1000);
  const minutes = Number(values.get('minutes') ?? 8);
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-bench-alerts-'));
  const clock = { ms: T0, now() { return this.ms; } };
  const config = resolveServeConfig(
    { host: '127.0.0.1', port: '0', 'collector-port': '0', data: dataDir },
    { TIMESLICE_LICENSE_KEY: TEST_LICENSE_KEY, TIMESLICE_API_KEY: TEST_API_KEY, TIMESLICE_MEMORY_LIMIT: '1GB', TIMESLICE_LOG_LEVEL: 'error' },
  );
  const server = await startServer(config, { clock, alertIntervalMs: 0 });
  try {
    const ts = { server } as TestServer;
    const runs: { runId: string; appId: number }[] = [];
    for (let i = 0; i < apps; i++) runs.push(await connectApp(ts, `app-${i}`, `host-${i}`, 5000 + i));
    // Every tenth application turns slow from minute 3: 3 s instead of 0.2 s.
    const slow = (i: number, minute: number) => i % 10 === 0 && minute >= 3;
    const writeMinute = async (minute: number) => {
      const rows = new Rows(CUSTOM_EVENTS);
      for (let i = 0; i < apps; i++) {
        const seconds = slow(i, minute) ? 3 : 0.2;
        await sendMetrics(ts, runs[i]!.runId, T0 + minute * MIN, T0 + (minute + 1) * MIN, [['HttpDispatcher', '', [10, 10 * seconds, 10 * seconds, seconds, seconds, 10 * seconds * seconds]]]);
        for (let e = 0; e < 3; e++) rows.push(1, runs[i]!.appId, 0, 0, T0 + minute * MIN + e * 15_000, 'Probe', JSON.stringify({ value: seconds }));
      }
      await server.writer.write([rows]);
    };
    const alerts = server.alerts;
    const { policy } = await alerts.createPolicy(1, 'bench', 'PER_CONDITION_AND_TARGET');
    const signal = { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW' as const, aggregationDelay: 0 };
    const term = (threshold: number) => [{ priority: 'CRITICAL' as const, operator: 'ABOVE' as const, threshold, thresholdDuration: 120, thresholdOccurrences: 'ALL' as const }];
    for (let k = 0; k < conditionCount; k++) {
      const app = `app-${k % apps}`;
      const query = [
        `SELECT average(value) FROM Probe WHERE value >= ${(k % 4) / 100} FACET appName`,
        `SELECT average(value) FROM Probe WHERE appName = '${app}'`,
        `SELECT average(newrelic.timeslice.value) FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' FACET appName`,
        `SELECT average(newrelic.timeslice.value) FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' AND appName = '${app}'`,
      ][k % 4]!;
      await alerts.createCondition(1, policy.id, { name: `c${k}`, enabled: true, query, signal, terms: term(1 + (k % 3) / 10) });
    }
    const cycles: Array<AlertBenchResult['cycles'][number]> = [];
    const delays: number[] = [];
    for (let minute = 0; minute < minutes; minute++) {
      await writeMinute(minute);
      clock.ms = T0 + (minute + 1) * MIN + 5_000;
      const before = (await server.store.alerts.incidents(1, T0, T0 + 24 * 60 * MIN)).length;
      const cpu = process.cpuUsage();
      const started = performance.now();
      const cycle = await alerts.evaluateOnce();
      const wallMs = performance.now() - started;
      const used = process.cpuUsage(cpu);
      const opened = (await server.store.alerts.incidents(1, T0, T0 + 24 * 60 * MIN)).length - before;
      for (let i = 0; i < opened; i++) delays.push(wallMs);
      cycles.push({ minute, wallMs, cpuMs: (used.user + used.system) / 1000, queryMs: cycle.queryMs, commitMs: cycle.commitMs, incidentsOpened: opened, queries: cycle.queries, failures: cycle.failures });
    }
    const steady = cycles.slice(1);
    const cpuShareOfOneCore = steady.reduce((s, c) => s + c.cpuMs, 0) / steady.length / MIN;
    delays.sort((a, b) => a - b);
    const result = { apps, conditions: conditionCount, cycles, cpuShareOfOneCore, delayP50Ms: percentile(delays, 50), delayP99Ms: percentile(delays, 99) };
    console.log(`alerts: ${conditionCount} conditions over ${apps} applications, ${minutes} one-minute cycles`);
    for (const c of cycles) console.log(`  minute ${c.minute}: ${c.queries} queries (${c.failures} failed) in ${c.wallMs.toFixed(0)} ms wall (queries ${c.queryMs.toFixed(0)}, commit ${c.commitMs.toFixed(0)}), ${c.cpuMs.toFixed(0)} ms CPU, ${c.incidentsOpened} incidents opened`);
    console.log(`  CPU per minute of evaluation: ${(cpuShareOfOneCore * 100).toFixed(1)} % of one core (cycles after the first)`);
    console.log(`  cycle start → incident committed: p50 ${result.delayP50Ms.toFixed(0)} ms, p99 ${result.delayP99Ms.toFixed(0)} ms over ${delays.length} incidents`);
    return result;
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
