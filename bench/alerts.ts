/**
 * Alert evaluation benchmark: 1,000 enabled NRQL conditions (FACET and plain, over timeslices and
 * over events) on 100 reporting applications, in real time under the service's own scheduling (a
 * cycle shortly after ingest commits data, the minute timer otherwise) on the real store. The
 * applications harvest through the collector as agents do: each once a minute, at its own offset
 * in the minute. Reports per minute the cycles run, their CPU and the process's CPU (DuckDB's threads
 * included), and the delay from a window closing to the commit of the incidents it opens (p50, p99).
 * A window closes when the data that closes it is committed (EVENT_FLOW, delay 0: the first data of
 * the next window the condition reads, acknowledged to the agent), so the delay is all Timeslice's.
 * Options: `--apps=N`, `--conditions=N`, `--minutes=N`, `--minute-ms=N` (wall length of a minute;
 * below 60000 the service's clock runs faster, for trial runs only).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { resolveServeConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import type { EvaluationCycle } from '../src/alerts/alert-service.js';
import { agentQuery, invoke } from '../test/helpers/collector-client.js';
import { connectApp, sendMetrics } from '../test/helpers/rest-fixture.js';
import { TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../test/helpers/test-server.js';

const T0 = Date.UTC(2026, 10, 20, 12, 0);
const MIN = 60_000;

type Source = 'events' | 'timeslices';

export interface AlertBenchMinute {
  readonly minute: number;
  readonly cycles: number;
  readonly queries: number;
  readonly failures: number;
  /** CPU of the process while cycles ran (an upper bound of theirs: ingest interleaves). */
  readonly cycleCpuMs: number;
  /** CPU of the whole process over the minute: cycles, ingest, and this benchmark's agents. */
  readonly processCpuMs: number;
  readonly incidentsOpened: number;
  readonly longestCycleMs: number;
}

export interface AlertBenchResult {
  readonly apps: number;
  readonly conditions: number;
  readonly minuteMs: number;
  readonly minutes: readonly AlertBenchMinute[];
  /** Cycles' CPU over minutes 1 … minutes − 1 as a share of one core. */
  readonly cycleCpuShare: number;
  readonly processCpuShare: number;
  readonly delayP50Ms: number;
  readonly delayP99Ms: number;
  readonly delayMaxMs: number;
  readonly incidents: number;
  readonly loadAverage: readonly number[];
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export async function alertsBench(values: ReadonlyMap<string, string>): Promise<AlertBenchResult> {
  const apps = Number(values.get('apps') ?? 100);
  const conditionCount = Number(values.get('conditions') ?? 1000);
  const minutes = Number(values.get('minutes') ?? 7);
  const minuteMs = Number(values.get('minute-ms') ?? MIN);
  const scale = MIN / minuteMs;
  const loadAtStart = os.loadavg().map((l) => Math.round(l * 100) / 100);
  const dataDir = await mkdtemp(join(os.tmpdir(), 'timeslice-bench-alerts-'));
  let wallStart: number | undefined;
  // Data time runs with the wall clock from the first harvest on: minute m's data arrives in minute m + 1.
  const clock = { now: () => (wallStart === undefined ? T0 : T0 + MIN + Math.floor((performance.now() - wallStart) * scale)) };
  const config = resolveServeConfig(
    { host: '127.0.0.1', port: '0', 'collector-port': '0', data: dataDir },
    { TIMESLICE_LICENSE_KEY: TEST_LICENSE_KEY, TIMESLICE_API_KEY: TEST_API_KEY, TIMESLICE_MEMORY_LIMIT: '1GB', TIMESLICE_LOG_LEVEL: 'error' },
  );
  const server = await startServer(config, { clock, alertIntervalMs: minuteMs });
  try {
    const ts = { server } as TestServer;
    const runs: { runId: string }[] = [];
    for (let i = 0; i < apps; i++) runs.push(await connectApp(ts, `app-${i}`, `host-${i}`, 5000 + i));
    // Every tenth application turns slow from minute 3: 3 s instead of 0.2 s.
    const slow = (i: number, minute: number) => i % 10 === 0 && minute >= 3;
    const alerts = server.alerts;
    const { policy } = await alerts.createPolicy(1, 'bench', 'PER_CONDITION_AND_TARGET');
    const signal = { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW' as const, aggregationDelay: 0 };
    const term = (threshold: number) => [{ priority: 'CRITICAL' as const, operator: 'ABOVE' as const, threshold, thresholdDuration: 120, thresholdOccurrences: 'ALL' as const }];
    // What each condition reads: its source, and the application it pins (null: FACET appName).
    const shapes = new Map<string, { source: Source; app: number | null }>();
    for (let k = 0; k < conditionCount; k++) {
      const a = k % apps;
      const app = `app-${a}`;
      const query = [
        `SELECT average(value) FROM Probe WHERE value >= ${(k % 4) / 100} FACET appName`,
        `SELECT average(value) FROM Probe WHERE appName = '${app}'`,
        `SELECT average(newrelic.timeslice.value) FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' FACET appName`,
        `SELECT average(newrelic.timeslice.value) FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' AND appName = '${app}'`,
      ][k % 4]!;
      const { condition } = await alerts.createCondition(1, policy.id, { name: `c${k}`, enabled: true, query, signal, terms: term(1 + (k % 3) / 10) });
      shapes.set(condition.id, { source: k % 4 < 2 ? 'events' : 'timeslices', app: k % 2 === 0 ? null : a });
    }
    // Wall time each (source, app, data minute) was acknowledged, i.e. committed.
    const acked = new Map<string, number>();
    const firstAcked = new Map<string, number>();
    const ack = (source: Source, app: number, minute: number, at: number) => {
      acked.set(`${source}/${app}/${minute}`, at);
      const key = `${source}/${minute}`;
      if (!(firstAcked.get(key)! <= at)) firstAcked.set(key, at);
    };
    const cycles: Array<EvaluationCycle & { wallMinute: number }> = [];
    const delays: number[] = [];
    alerts.onCycle((cycle) => {
      cycles.push({ ...cycle, wallMinute: Math.floor((cycle.committedAt - wallStart!) / minuteMs) });
      for (const incident of cycle.opened) {
        const shape = shapes.get(incident.conditionId)!;
        // The window [openedAt − 60 s, openedAt) closes with the first data of the window starting at openedAt.
        const minute = Math.round((incident.openedAt - T0) / MIN);
        const closedAt = shape.app === null ? firstAcked.get(`${shape.source}/${minute}`) : acked.get(`${shape.source}/${shape.app}/${minute}`);
        if (closedAt === undefined) throw new Error(`incident ${incident.id} opened before the data that closes its window was acknowledged`);
        delays.push(cycle.committedAt - closedAt);
      }
    });
    const harvest = async (i: number, minute: number) => {
      const seconds = slow(i, minute) ? 3 : 0.2;
      const begin = T0 + minute * MIN;
      await sendMetrics(ts, runs[i]!.runId, begin, begin + MIN, [['HttpDispatcher', '', [10, 10 * seconds, 10 * seconds, seconds, seconds, 10 * seconds * seconds]]]);
      ack('timeslices', i, minute, performance.now());
      const events = [0, 1, 2].map((e) => [{ type: 'Probe', timestamp: begin + e * 15_000 }, { value: seconds }]);
      const reply = await invoke(server, { query: agentQuery('custom_event_data', TEST_LICENSE_KEY, runs[i]!.runId), body: [runs[i]!.runId, events] });
      if (reply.status !== 200) throw new Error(`custom_event_data answered ${reply.status}: ${reply.text}`);
      ack('events', i, minute, performance.now());
    };
    // Application i harvests at its own offset in every minute, spread over the minute as agents connect.
    const offset = (i: number) => ((i + 0.5) / apps) * minuteMs * 0.95;
    const marks: Array<{ cpu: number; at: number }> = [];
    wallStart = performance.now();
    const harvests: Promise<void>[] = [];
    for (let minute = 0; minute < minutes; minute++) {
      marks.push({ cpu: cpuNow(), at: performance.now() });
      for (let i = 0; i < apps; i++) {
        harvests.push((async () => {
          await sleep(wallStart! + minute * minuteMs + offset(i) - performance.now());
          await harvest(i, minute);
        })());
      }
      await sleep(wallStart + (minute + 1) * minuteMs - performance.now());
    }
    await Promise.all(harvests);
    // One more minute: the last windows close and are evaluated.
    marks.push({ cpu: cpuNow(), at: performance.now() });
    await sleep(wallStart + (minutes + 1) * minuteMs - performance.now());
    marks.push({ cpu: cpuNow(), at: performance.now() });
    const perMinute: AlertBenchMinute[] = [];
    for (let m = 0; m + 1 < marks.length; m++) {
      const inMinute = cycles.filter((c) => c.wallMinute === m);
      perMinute.push({
        minute: m,
        cycles: inMinute.length,
        queries: inMinute.reduce((s, c) => s + c.queries, 0),
        failures: inMinute.reduce((s, c) => s + c.failures, 0),
        cycleCpuMs: inMinute.reduce((s, c) => s + c.cpuMs, 0),
        processCpuMs: marks[m + 1]!.cpu - marks[m]!.cpu,
        incidentsOpened: inMinute.reduce((s, c) => s + c.opened.length, 0),
        longestCycleMs: Math.max(0, ...inMinute.map((c) => c.elapsedMs)),
      });
    }
    // Minute 0 creates every signal (and warms caches), and the extra minute has no harvests: the
    // shares are over the minutes between.
    const steady = perMinute.slice(1, minutes);
    const share = (ms: number) => ms / steady.length / minuteMs;
    delays.sort((a, b) => a - b);
    const result: AlertBenchResult = {
      apps, conditions: conditionCount, minuteMs, minutes: perMinute,
      cycleCpuShare: share(steady.reduce((s, m) => s + m.cycleCpuMs, 0)),
      processCpuShare: share(steady.reduce((s, m) => s + m.processCpuMs, 0)),
      delayP50Ms: percentile(delays, 50), delayP99Ms: percentile(delays, 99), delayMaxMs: delays.at(-1) ?? Number.NaN,
      incidents: delays.length, loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
    };
    console.log(`alerts: ${conditionCount} conditions over ${apps} applications, ${minutes} minutes of data (+1), minute = ${minuteMs} ms wall`);
    for (const m of perMinute) {
      console.log(`  minute ${m.minute}: ${m.cycles} cycles, ${m.queries} queries (${m.failures} failed), cycles' CPU ${m.cycleCpuMs.toFixed(0)} ms, process CPU ${m.processCpuMs.toFixed(0)} ms, longest cycle ${m.longestCycleMs.toFixed(0)} ms, ${m.incidentsOpened} incidents opened`);
    }
    console.log(`  CPU per minute (minutes 1–${minutes - 1}): cycles ${(result.cycleCpuShare * 100).toFixed(1)} % of one core, whole process ${(result.processCpuShare * 100).toFixed(1)} % (with ingest and the agents' side)`);
    console.log(`  window closed (closing data committed) → incident committed: p50 ${result.delayP50Ms.toFixed(0)} ms, p99 ${result.delayP99Ms.toFixed(0)} ms, max ${result.delayMaxMs.toFixed(0)} ms over ${delays.length} incidents`);
    console.log(`  load average at the end: ${result.loadAverage.join(' ')} (at the start: ${loadAtStart.join(' ')})`);
    return result;
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
