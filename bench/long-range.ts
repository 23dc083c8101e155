/**
 * Long ranges from hourly rollups: REST metric data and NRQL for one application over 30 and 90
 * days, summarized and as a series, on a store holding 90 days of 1-minute history, answered by the
 * service (rollups for the whole hours they hold) against the same requests answered from 1-minute
 * timeslices only.
 *
 * The store: `--apps` applications (default 5) connected through the collector, one host each,
 * reporting `--metrics` unscoped metrics (default 20: HttpDispatcher, Apdex, WebTransaction, … and
 * Custom/…) every minute for `--days` days (default 90) up to a whole hour "now". One harvest per
 * application goes through the collector (so the catalog and the metric index know the names); the
 * history is written by set-based INSERTs into `timeslices_daily`, a day per statement, each day
 * sorted by (app, metric, time) as the compactor leaves it. Then `Store.maintain()` rolls every
 * closed hour up (timed: what a first start on an upgraded store costs). 1-minute data is kept
 * (`TIMESLICE_RETENTION=minute=forever`) so both resolutions can answer.
 *
 * Rollups: `server.api.inject` of the request (HTTP without a socket), the service as configured.
 * 1-minute: the same request through a second API app built on the same store with an executor
 * that knows no rollups. Before timing, the two answers are compared (numbers within 1e-9
 * relative; REST answers `raw=true`); then rounds interleave the two.
 *
 * Run: `npx tsc -p tsconfig.json && node dist/bench/long-range.js [--days=90] [--apps=5]
 * [--metrics=20] [--rounds=15]`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApiApp } from '../src/app/api-app.js';
import { resolveServeConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { DuckDbPlanExecutor } from '../src/store/duckdb/duckdb-plan-executor.js';
import { connectApp, sendMetrics } from '../test/helpers/rest-fixture.js';
import { TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../test/helpers/test-server.js';
import { machineFacts } from './machine.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const COMMON = ['HttpDispatcher', 'Apdex', 'WebTransaction', 'Errors/all', 'WebFrontend/QueueTime', 'Datastore/all', 'External/all', 'CPU/User Time', 'Memory/Physical'];

function flag(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.split('=')[1]) : fallback;
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

function sameNumbers(a: unknown, b: unknown, path: string): void {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Math.abs(a - b) > 1e-9 * Math.max(1, Math.abs(b))) throw new Error(`${path}: ${a} (rollups) ≠ ${b} (1-minute)`);
  } else if (a !== null && typeof a === 'object' && b !== null && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) sameNumbers((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
  } else if (a !== b) {
    throw new Error(`${path}: ${String(a)} (rollups) ≠ ${String(b)} (1-minute)`);
  }
}

async function main(): Promise<void> {
  const days = flag('days', 90);
  const appCount = flag('apps', 5);
  const metricCount = flag('metrics', 20);
  const rounds = flag('rounds', 15);
  const dir = await mkdtemp(join(tmpdir(), 'timeslice-bench-long-range-'));
  const clock = { ms: NOW - 2 * 60_000, now() { return this.ms; } };
  const config = resolveServeConfig({ host: '127.0.0.1', port: '0', 'collector-port': '0', data: dir }, {
    TIMESLICE_API_KEY: TEST_API_KEY, TIMESLICE_LICENSE_KEY: TEST_LICENSE_KEY, TIMESLICE_MEMORY_LIMIT: '1GB', TIMESLICE_LOG_LEVEL: 'error',
    TIMESLICE_UPKEEP_EVERY_MS: '0', TIMESLICE_COMPACT_EVERY_MS: '0', TIMESLICE_RETENTION: 'minute=forever,hourly=forever',
    TIMESLICE_REST_RATE_LIMIT: '100000000', TIMESLICE_NRQL_RATE_LIMIT: '100000000', TIMESLICE_INGEST_WORKERS: '0',
  });
  const server = await startServer(config, { clock });
  try {
    const ts = { server } as unknown as TestServer;
    const names = [...COMMON, ...Array.from({ length: Math.max(0, metricCount - COMMON.length) }, (_, i) => `Custom/bench/${i}`)].slice(0, metricCount);
    const appIds: number[] = [];
    for (let a = 0; a < appCount; a++) {
      const app = await connectApp(ts, `long-range-${a}`, `host-${a}`, 7000 + a);
      appIds.push(app.appId);
      await sendMetrics(ts, app.runId, NOW - 2 * 60_000, NOW - 60_000, names.map((n) => [n, '', [1, 0.1, 0.1, 0.1, 0.1, 0.01]] as const));
    }
    await server.writer.flush();
    const targets = await server.db.all<{ app_id: number; host_id: number; instance_id: number }>('SELECT DISTINCT app_id, host_id, instance_id FROM timeslices ORDER BY app_id');
    const ids = names.map((n) => server.metrics.metricId(n)!);
    const apdexId = server.metrics.metricId('Apdex')!;
    await server.db.all('DELETE FROM timeslices');
    await server.db.all(`CREATE TEMP TABLE bench_series AS SELECT * FROM (VALUES ${targets.flatMap((t) => ids.map((m) => `(${t.app_id}, ${t.host_id}, ${t.instance_id}, ${m})`)).join(', ')}) AS s(app_id, host_id, instance_id, metric_id)`);

    let started = performance.now();
    const firstDay = NOW - days * DAY;
    for (let d = 0; d < days; d++) {
      const dayMs = firstDay + d * DAY;
      // Values from hash(series, minute): calls 1..40, 20–220 ms each; Apdex rows S, T, F with apdex_t 0.5.
      await server.db.all(`
        INSERT INTO timeslices_daily
        SELECT 1, app_id, host_id, instance_id, metric_id, 0, make_timestamp((${dayMs} + m * 60000)::BIGINT * 1000),
          CASE WHEN metric_id = ${apdexId} THEN h % 30 ELSE 1 + h % 40 END,
          CASE WHEN metric_id = ${apdexId} THEN h % 7 ELSE (1 + h % 40) * (0.02 + (h % 200) / 1000.0) END,
          CASE WHEN metric_id = ${apdexId} THEN h % 3 ELSE (1 + h % 40) * (0.01 + (h % 100) / 1000.0) END,
          CASE WHEN metric_id = ${apdexId} THEN 0.5 ELSE 0.02 END,
          CASE WHEN metric_id = ${apdexId} THEN 0.5 ELSE 0.02 + (h % 200) / 1000.0 END,
          CASE WHEN metric_id = ${apdexId} THEN 0 ELSE (1 + h % 40) * 0.01 END
        FROM (SELECT *, hash(app_id * 1000003 + metric_id * 7919 + (${dayMs / 60_000} + m)) % 1000003 AS h FROM bench_series, range(1440) AS r(m))
        ORDER BY app_id, metric_id, m`);
    }
    const rows = Number((await server.db.all<{ n: bigint }>('SELECT count(*) AS n FROM timeslices_daily'))[0]!.n);
    const loadSeconds = (performance.now() - started) / 1000;
    clock.ms = NOW + 90 * 60_000;
    started = performance.now();
    const report = await server.store.maintain();
    const rollupSeconds = (performance.now() - started) / 1000;
    const hourlyRows = Number((await server.db.all<{ n: bigint }>('SELECT count(*) AS n FROM timeslices_hourly'))[0]!.n);
    await server.db.all('CHECKPOINT');

    const minuteExecutor = new DuckDbPlanExecutor(server.db);
    const minuteApi = await buildApiApp({
      catalog: server.catalog, metrics: server.metrics, executor: minuteExecutor, clock, entities: server.entities, ready: () => true,
      deployments: server.store.deployments, traces: server.store.traces, writer: server.writer, restSunset: 'never', apiUsage: server.apiUsage,
    });
    const app = appIds[0]!;
    const cases: { label: string; method: 'GET' | 'POST'; url: string; payload?: object }[] = [];
    for (const span of [30, 90].filter((s) => s <= days)) {
      const from = new Date(NOW - span * DAY).toISOString();
      const to = new Date(NOW).toISOString();
      const rest = `/v2/applications/${app}/metrics/data.json?names[]=HttpDispatcher&names[]=Apdex&raw=true&from=${from}&to=${to}`;
      cases.push({ label: `REST ${span} d summarized`, method: 'GET', url: `${rest}&summarize=true` });
      cases.push({ label: `REST ${span} d series`, method: 'GET', url: rest });
      const where = `FROM Metric WHERE appId = ${app} AND metricTimesliceName = 'HttpDispatcher' SINCE ${NOW - span * DAY} UNTIL ${NOW}`;
      const select = 'SELECT average(newrelic.timeslice.value) * 1000 AS ms, rate(count(newrelic.timeslice.value), 1 minute) AS rpm, max(newrelic.timeslice.value)';
      cases.push({ label: `NRQL ${span} d summarized`, method: 'POST', url: '/timeslice/v1/nrql', payload: { query: `${select} ${where}` } });
      cases.push({ label: `NRQL ${span} d series`, method: 'POST', url: '/timeslice/v1/nrql', payload: { query: `${select} ${where} TIMESERIES ${span === 30 ? '6 hours' : '3 days'}` } });
    }
    const call = async (api: typeof server.api, c: (typeof cases)[number]) => {
      const res = await api.inject({ method: c.method, url: c.url, headers: { 'api-key': TEST_API_KEY, 'x-api-key': TEST_API_KEY }, ...(c.payload ? { payload: c.payload } : {}) });
      if (res.statusCode !== 200) throw new Error(`${c.label}: ${res.statusCode} ${res.body}`);
      return res;
    };
    const results: { label: string; resolution: string; rollupP50: number; rollupP90: number; minuteP50: number; speedUp: number }[] = [];
    for (const c of cases) {
      const rolled = await call(server.api, c);
      const minute = await call(minuteApi, c);
      const strip = (body: string) => {
        const json = JSON.parse(body) as Record<string, unknown>;
        if (json.metadata) (json.metadata as Record<string, unknown>).messages = [];
        return json;
      };
      sameNumbers(strip(rolled.body), strip(minute.body), c.label);
      const resolution = String(rolled.headers['x-timeslice-resolution'] ?? (JSON.parse(rolled.body).metadata.messages.length > 0 ? 'rollups' : 'minute'));
      const times: { rollup: number[]; minute: number[] } = { rollup: [], minute: [] };
      for (let r = 0; r < rounds + 2; r++) {
        for (const [which, api] of [['rollup', server.api], ['minute', minuteApi]] as const) {
          const t0 = performance.now();
          await call(api, c);
          if (r >= 2) times[which].push(performance.now() - t0);
        }
      }
      const rollupP50 = quantile(times.rollup, 0.5);
      const minuteP50 = quantile(times.minute, 0.5);
      results.push({ label: c.label, resolution, rollupP50, rollupP90: quantile(times.rollup, 0.9), minuteP50, speedUp: minuteP50 / rollupP50 });
    }
    await minuteApi.close();
    minuteExecutor.close();
    const summary = {
      machine: machineFacts(), days, apps: appCount, metrics: metricCount, minuteRows: rows, hourlyRows,
      loadSeconds: Math.round(loadSeconds * 10) / 10, rollup: { hours: report.hoursRolledUp, seconds: Math.round(rollupSeconds * 10) / 10 }, rounds,
    };
    console.log(JSON.stringify(summary, null, 2));
    console.log('| case | answered from | p50 rollups (ms) | p90 rollups (ms) | p50 1-minute (ms) | speed-up |');
    console.log('|---|---|---|---|---|---|');
    for (const r of results) console.log(`| ${r.label} | ${r.resolution} | ${r.rollupP50.toFixed(1)} | ${r.rollupP90.toFixed(1)} | ${r.minuteP50.toFixed(1)} | ${r.speedUp.toFixed(1)}× |`);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
