/**
 * REST metric-data benchmark: `GET /v2/applications/7/metrics/data.json` for two metrics over
 * 30 minutes, 24 hours and 7 days, against hand-written DuckDB SQL for the same answer.
 *
 * The store is the cached fixture of `fixtures/timeslice-store.ts` (≈ 280 M timeslices in
 * arrival order by default). The real service runs in this process (`startServer` on that data
 * directory, a user key from `TIMESLICE_API_KEY`, its clock at the fixture's "now"), and the
 * endpoint is called with `server.api.inject`, so no socket is involved.
 *
 * Raw: one SQL statement per case written as a person would for this schema (ids resolved, the
 * window, app and metrics as literals, group by metric and time bucket, every value computed in
 * SQL), run with one `runAndReadAll` on another connection of the same DuckDB instance and read
 * as columns. Its WHERE names the time range first: on this store that order is faster for
 * short windows than app and metric first (see docs/benchmarks.md), so the baseline is the
 * faster of the two.
 *
 * Diagnostics, measured in the same interleaved rounds, split the endpoint's time:
 * - `plan path`: planMetricData → DuckDbPlanExecutor.aggregate → shapeMetricData → JSON.stringify,
 *   the route's work without HTTP, authentication and parameter parsing;
 * - `generated SQL`: the plan's rendered SQL run through `DuckDbPlanExecutor.run` (DuckDB's
 *   time plus reading the columns), with the parameters bound as the executor binds them;
 * - `shape + JSON`: shapeMetricData and JSON.stringify alone, over a result read beforehand;
 * - `REST names route`: `inject` of `GET …/7/metrics.json?name=HttpDispatcher`, a REST route
 *   answered from memory: what HTTP, authentication and parameters cost on their own;
 * - opt-in (`--variants=all`): the generated SQL with its parameters bound as INTEGER/BIGINT
 *   (`typed params`), written into the text (`literals`; `literals + sync read` also reads the
 *   result as the raw side does), or prepared once per case and then only bound, run and read
 *   synchronously (`prepared once + sync read`, what a statement cache would do), to find what
 *   the executor's way of running costs; and the raw SQL with app and metrics before the time
 *   range in its WHERE (`raw, app and metric first`).
 *
 * Before timing, every value of the endpoint (`raw=true`) and of the plan path is checked
 * against the raw SQL within 1e-9 relative, and the default (3 significant figures) answer
 * against the same numbers rounded; any difference fails the benchmark.
 */
import { machineFacts, type MachineFacts } from './machine.js';
import type { DuckDBConnection, DuckDBMaterializedResult, DuckDBValue } from '@duckdb/node-api';
import { listValue } from '@duckdb/node-api';
import { resolveServeConfig } from '../src/config.js';
import { formatRestTime } from '../src/domain/time/iso8601.js';
import { resolveMetricWindow, type MetricWindow } from '../src/domain/time/rest-window.js';
import { planMetricData, type MetricDataPlan } from '../src/api/rest/metric-data/metric-data-plan.js';
import { shapeMetricData } from '../src/api/rest/metric-data/metric-data-shape.js';
import { threeSignificant } from '../src/api/rest/number-format.js';
import { startServer, type RunningServer } from '../src/server.js';
import { duckdbDialect } from '../src/store/duckdb/duckdb-dialect.js';
import { duckdbSchema } from '../src/store/duckdb/sources.js';
import { renderAggregatePlan } from '../src/sql/render-plan.js';
import type { RenderedSql, SqlParam } from '../src/sql/dialect.js';
import { timestampValue } from '../src/store/duckdb/duckdb-values.js';
import { DuckDbPlanExecutor } from '../src/store/duckdb/duckdb-plan-executor.js';
import { ALL_TIMESLICES, DEFAULT_STORE_SHAPE, ensureTimesliceStore, type StoreShape, type TimesliceStore } from './fixtures/timeslice-store.js';

// ── options ─────────────────────────────────────────────────────────────────────────────────

export interface RestBenchOptions {
  /** Timed runs of each variant per case, after the warm-up. */
  readonly iterations: number;
  readonly warmup: number;
  readonly shape: StoreShape;
  /** Build the fixture afresh even when a cached one matches. */
  readonly rebuild: boolean;
  /** Print DuckDB's EXPLAIN ANALYZE of the raw and the generated SQL for each case. */
  readonly explain: boolean;
  /** Cases to run, by label (default all). */
  readonly cases: readonly CaseLabel[];
  /** Variants to time; `endpoint` and `raw` always are. */
  readonly variants: readonly Variant[];
}

export const DEFAULT_REST_OPTIONS: RestBenchOptions = {
  iterations: 30,
  warmup: 3,
  shape: DEFAULT_STORE_SHAPE,
  rebuild: false,
  explain: false,
  cases: ['30m', '24h', '7d'],
  variants: ['endpoint', 'raw', 'plan path', 'generated SQL', 'shape + JSON', 'REST names route'],
};

const APP_ID = 7;
const ACCOUNT_ID = 1;
const METRICS = ['HttpDispatcher', 'WebFrontend/QueueTime'] as const;
const API_KEY = 'NRAK-BENCHREST00000000000000000';
const RELATIVE_TOLERANCE = 1e-9;

export type CaseLabel = '30m' | '24h' | '7d';
interface Case { readonly label: CaseLabel; readonly title: string; readonly rangeMs: number; readonly periodSeconds: number }
export const CASES: readonly Case[] = [
  { label: '30m', title: '30 minutes, 60 s slices', rangeMs: 30 * 60_000, periodSeconds: 60 },
  { label: '24h', title: '24 hours, 600 s slices', rangeMs: 24 * 3_600_000, periodSeconds: 600 },
  { label: '7d', title: '7 days, 3600 s slices', rangeMs: 7 * 86_400_000, periodSeconds: 3600 },
];

/** The variants that can be timed per case, in the order of the first round (later rounds rotate it). */
export const VARIANTS = [
  'endpoint', 'raw', 'plan path', 'generated SQL', 'shape + JSON', 'REST names route',
  'raw, app and metric first', 'generated SQL, typed params', 'generated SQL, literals', 'generated SQL, literals + sync read',
  'generated SQL, prepared once + sync read',
] as const;
export type Variant = (typeof VARIANTS)[number];

// ── the raw SQL ─────────────────────────────────────────────────────────────────────────────

/**
 * The values both metrics offer (HttpDispatcher adds `average_call_time`), as a person would
 * compute them from the summed parts. Value names that are the same number share a column.
 */
const RAW_COLUMNS: Readonly<Record<string, string>> = {
  average_response_time: 'average_response_time',
  calls_per_minute: 'calls_per_minute',
  call_count: 'call_count',
  min_response_time: 'min_response_time',
  max_response_time: 'max_response_time',
  average_exclusive_time: 'average_exclusive_time',
  average_value: 'average_value',
  total_call_time_per_minute: 'total_call_time_per_minute',
  requests_per_minute: 'calls_per_minute',
  standard_deviation: 'standard_deviation',
  average_call_time: 'average_response_time',
};

const sqlTimestamp = (ms: number) => `TIMESTAMP '${new Date(ms).toISOString().replace('T', ' ').replace('Z', '')}'`;

function rawSql(window: MetricWindow, metricIds: readonly number[], order: 'time first' | 'app first' = 'time first'): string {
  const width = window.periodSeconds;
  const time = `ts >= ${sqlTimestamp(window.beginMs)} AND ts < ${sqlTimestamp(window.endMs)}`;
  const which = `app_id = ${APP_ID} AND metric_id IN (${metricIds.join(', ')}) AND scope_id = 0`;
  return `
SELECT metric_id,
       (epoch_ms(ts) - ${window.beginMs}) // ${width * 1000} AS slice,
       sum(call_count) AS call_count,
       sum(call_count) * 60 / ${width} AS calls_per_minute,
       sum(total) / sum(call_count) * 1000 AS average_response_time,
       sum(total) / sum(call_count) AS average_value,
       min(min) * 1000 AS min_response_time,
       max(max) * 1000 AS max_response_time,
       avg(exclusive / nullif(call_count, 0)) * 1000 AS average_exclusive_time,
       sum(total) * 60 / ${width} AS total_call_time_per_minute,
       sqrt(greatest(0, sum(sum_of_squares) / sum(call_count) - (sum(total) / sum(call_count)) * (sum(total) / sum(call_count)))) * 1000
         AS standard_deviation
FROM ${ALL_TIMESLICES}
WHERE account_id = ${ACCOUNT_ID} AND ${order === 'time first' ? `${time}\n  AND ${which}` : `${which}\n  AND ${time}`}
GROUP BY metric_id, slice
ORDER BY metric_id, slice`;
}

interface RawAnswer {
  readonly names: readonly string[];
  readonly columns: readonly (readonly unknown[])[];
}

/**
 * One query, then the materialized result's chunks read synchronously: `runAndReadAll` would
 * fetch them in further round trips to DuckDB's threads (two for a one-chunk result).
 */
async function runRaw(connection: DuckDBConnection, sql: string, params?: DuckDBValue[]): Promise<RawAnswer> {
  const result = await connection.run(sql, params);
  return { names: result.columnNames(), columns: readColumns(result) };
}

function readColumns(result: DuckDBMaterializedResult): unknown[][] {
  const columns: unknown[][] = Array.from({ length: result.columnCount }, () => []);
  for (let i = 0; i < result.chunkCount; i++) {
    result.getChunk(i).getColumns().forEach((values, c) => { for (const v of values) columns[c]!.push(v); });
  }
  return columns;
}

// ── the generated SQL, bound and run other ways ─────────────────────────────────────────────

/** As `DuckDbPlanExecutor` does not export its binder: whole numbers as JS bigint (HUGEINT). */
function bindLikeExecutor(p: SqlParam): DuckDBValue {
  if (typeof p === 'object') return 'timestampMs' in p ? timestampValue(p.timestampMs) : listValue([...p.doubles]);
  if (typeof p === 'number' && Number.isSafeInteger(p)) return BigInt(p);
  return p;
}

/** Whole numbers as JS numbers: node-api binds INTEGER within 32 bits, BIGINT beyond. */
function bindTyped(p: SqlParam): DuckDBValue {
  if (typeof p !== 'object') return p;
  return 'timestampMs' in p ? timestampValue(p.timestampMs) : listValue([...p.doubles]);
}

function inlineParams(rendered: RenderedSql): string {
  return rendered.sql.replace(/\$(\d+)/g, (_m, n: string) => {
    const p = rendered.params[Number(n) - 1]!;
    if (typeof p === 'object') return 'timestampMs' in p ? sqlTimestamp(p.timestampMs) : `[${p.doubles.join(', ')}]`;
    if (typeof p === 'string') return `'${p.replaceAll("'", "''")}'`;
    return String(p);
  });
}

// ── statistics ──────────────────────────────────────────────────────────────────────────────

export interface Timing { readonly median: number; readonly p95: number; readonly min: number; readonly max: number; readonly n: number }

function timing(samples: readonly number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  const mid = sorted.length / 2;
  const median = sorted.length % 2 === 1 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, p95: rank(0.95), min: sorted[0]!, max: sorted[sorted.length - 1]!, n: sorted.length };
}

// ── checking answers ────────────────────────────────────────────────────────────────────────

interface RestTimeslice { from: string; to: string; values: Record<string, number> }
interface RestMetricData { metric_data: { metrics: { name: string; timeslices: RestTimeslice[] }[]; metrics_found: string[]; metrics_not_found: string[] } }

function close(a: number, b: number): boolean {
  if (a === b) return true;
  return Math.abs(a - b) <= RELATIVE_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
}

/**
 * Compares a REST answer with the raw SQL's rows: every slice of the window for every metric,
 * a slice without rows being all zeros (the REST rule). `rounded`: the answer holds New Relic's
 * 3 significant figures (counts exact), so it must equal the raw value so rounded.
 */
function compareWithRaw(label: string, body: RestMetricData, raw: RawAnswer, window: MetricWindow, ids: ReadonlyMap<string, number>, rounded: boolean): number {
  const col = (name: string) => {
    const i = raw.names.indexOf(name);
    if (i < 0) throw new Error(`raw SQL has no column ${name}`);
    return raw.columns[i]!;
  };
  const metricCol = col('metric_id');
  const sliceCol = col('slice');
  const rowOf = new Map<string, number>();
  for (let r = 0; r < metricCol.length; r++) rowOf.set(`${Number(metricCol[r])}:${Number(sliceCol[r])}`, r);
  const metrics = body.metric_data.metrics;
  if (metrics.map((m) => m.name).join(',') !== METRICS.join(',')) throw new Error(`${label}: metrics ${metrics.map((m) => m.name).join(', ')}`);
  let compared = 0;
  for (const metric of metrics) {
    const id = ids.get(metric.name)!;
    if (metric.timeslices.length !== window.slices.length) {
      throw new Error(`${label}: ${metric.name} has ${metric.timeslices.length} timeslices, the window ${window.slices.length}`);
    }
    metric.timeslices.forEach((slice, k) => {
      const expectedFrom = formatRestTime(window.slices[k]!.beginMs);
      if (slice.from !== expectedFrom) throw new Error(`${label}: ${metric.name} slice ${k} from ${slice.from}, expected ${expectedFrom}`);
      const row = rowOf.get(`${id}:${k}`);
      for (const [value, got] of Object.entries(slice.values)) {
        const column = RAW_COLUMNS[value];
        if (column === undefined) throw new Error(`${label}: ${metric.name} has value ${value}, which the raw SQL does not compute`);
        const cell = row === undefined ? 0 : col(column)[row];
        const exact = cell === null || cell === undefined ? 0 : Number(cell);
        const isCount = value === 'call_count';
        const expected = rounded && !isCount ? threeSignificant(exact) : exact;
        const ok = rounded && !isCount ? got === expected || close(got, expected) : close(got, expected);
        if (!ok) throw new Error(`${label}: ${metric.name} slice ${k} (${slice.from}) ${value} = ${got}, raw SQL ${expected}`);
        compared++;
      }
      const missing = Object.keys(RAW_COLUMNS).filter((v) => !(v in slice.values) && (v !== 'average_call_time' || metric.name === 'HttpDispatcher'));
      if (missing.length > 0) throw new Error(`${label}: ${metric.name} slice ${k} lacks ${missing.join(', ')}`);
    });
  }
  return compared;
}

// ── the benchmark ───────────────────────────────────────────────────────────────────────────

export interface CaseResult {
  readonly label: CaseLabel;
  readonly title: string;
  readonly from: string;
  readonly to: string;
  readonly slices: number;
  readonly rawRows: number;
  /** Timeslices the window holds for the app and metrics (what the GROUP BY reads). */
  readonly matchingTimeslices: number;
  /** Timeslices of every app and metric in the window (what a time-ordered scan touches). */
  readonly windowTimeslices: number;
  readonly valuesChecked: number;
  readonly responseBytes: number | undefined;
  readonly timings: Partial<Record<Variant, Timing>>;
  /** endpoint median / raw median; undefined until the route exists. */
  readonly ratio: number | undefined;
  /** endpoint median ≤ 1.2 × raw median + 1 ms. */
  readonly meetsTarget: boolean | undefined;
  readonly explain?: { readonly raw: string; readonly generated: string };
}

export interface RestBenchResult {
  readonly date: string;
  readonly machine: MachineFacts;
  readonly options: RestBenchOptions;
  readonly store: Omit<TimesliceStore, 'metricIds' | 'appNames'>;
  readonly endpointAvailable: boolean;
  readonly generatedSql: Partial<Record<CaseLabel, RenderedSql>>;
  readonly cases: readonly CaseResult[];
}

function log(message: string): void {
  process.stderr.write(`[rest-metric-data] ${message}\n`);
}

function metricDataUrl(fromMs: number, toMs: number, raw: boolean): string {
  const names = METRICS.map((n) => `names[]=${encodeURIComponent(n).replaceAll('%2F', '/')}`).join('&');
  return `/v2/applications/${APP_ID}/metrics/data.json?${names}&from=${encodeURIComponent(formatRestTime(fromMs))}&to=${encodeURIComponent(formatRestTime(toMs))}${raw ? '&raw=true' : ''}`;
}

export async function runRestMetricData(options: RestBenchOptions = DEFAULT_REST_OPTIONS): Promise<RestBenchResult> {
  if (options.shape.apps < APP_ID) throw new Error(`the benchmark reads application ${APP_ID}: the store needs at least ${APP_ID} applications`);
  const store = await ensureTimesliceStore(options.shape, { rebuild: options.rebuild, log });
  const ids = new Map(METRICS.map((n) => [n, store.metricIds.get(n)!]));
  // The service's clock runs from the fixture's "now", so `to` = now is not clamped and the
  // rate limiter's minutes still turn.
  const started = Date.now();
  const clock = { now: () => store.nowMs + (Date.now() - started) };
  log('starting the service on the store…');
  const t0 = performance.now();
  const server: RunningServer = await startServer(
    resolveServeConfig({ host: '127.0.0.1', port: '0', 'collector-port': '0', data: store.dataDir }, {
      ...process.env, TIMESLICE_API_KEY: API_KEY, TIMESLICE_LOG_LEVEL: process.env.TIMESLICE_LOG_LEVEL ?? 'warn',
    }),
    { clock },
  );
  log(`service up in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  // What the service's compactor does on its timer: timeslices older than 2 hours move into
  // (account, app, metric, time) order. The first run on a fresh fixture moves nearly all of it.
  const t1 = performance.now();
  const moved = await server.compactor.compactOnce();
  log(`compaction ran in ${((performance.now() - t1) / 1000).toFixed(1)} s: ${moved.toLocaleString('en-US')} timeslices moved into hour blocks, complete days merged`);
  const executor = new DuckDbPlanExecutor(server.db);
  const rawConnection = await server.db.instance.connect();
  const diagConnection = await server.db.instance.connect();
  try {
    for (const name of METRICS) {
      if (server.metrics.metricId(name) !== ids.get(name)) throw new Error(`the service's id for ${name} is ${server.metrics.metricId(name)}, the fixture's ${ids.get(name)}`);
      if (!server.metrics.knows({ appId: APP_ID }, name)) throw new Error(`the service does not know ${name} for application ${APP_ID} (metric presence)`);
    }
    const probe = await server.api.inject({ method: 'GET', url: metricDataUrl(store.nowMs - 30 * 60_000, store.nowMs, true), headers: { 'X-Api-Key': API_KEY } });
    const endpointAvailable = probe.statusCode !== 404;
    if (!endpointAvailable) log('the metric-data route is not registered yet: timing the plan path instead of the endpoint');
    else if (probe.statusCode !== 200) throw new Error(`the endpoint answered ${probe.statusCode}: ${probe.body}`);

    const results: CaseResult[] = [];
    const generatedSql: Partial<Record<CaseLabel, RenderedSql>> = {};
    for (const c of CASES.filter((k) => options.cases.includes(k.label))) {
      const fromMs = store.nowMs - c.rangeMs;
      const toMs = store.nowMs;
      const window = resolveMetricWindow({ from: formatRestTime(fromMs), to: formatRestTime(toMs), summarize: false }, clock.now());
      if (window.periodSeconds !== c.periodSeconds) throw new Error(`${c.label}: the REST window has ${window.periodSeconds} s slices, expected ${c.periodSeconds}`);
      const metricIds = METRICS.map((n) => ids.get(n)!);
      const sql = rawSql(window, metricIds);
      const appFirstSql = rawSql(window, metricIds, 'app first');
      const planned: MetricDataPlan = planMetricData({
        accountId: ACCOUNT_ID,
        scope: { appId: APP_ID },
        metrics: METRICS.map((name) => ({ name, id: ids.get(name)! })),
        values: undefined,
        window: { beginMs: window.beginMs, endMs: window.endMs, periodSeconds: window.periodSeconds, summarize: false },
      });
      const rendered = renderAggregatePlan(planned.plan, duckdbDialect, duckdbSchema);
      generatedSql[c.label] = rendered;
      const executorParams = rendered.params.map(bindLikeExecutor);
      const typedParams = rendered.params.map(bindTyped);
      const literalSql = inlineParams(rendered);

      const planPath = async (raw: boolean): Promise<string> => {
        const result = await executor.aggregate(planned.plan);
        return JSON.stringify(shapeMetricData({
          planned, result, requestFromMs: window.requestFromMs, requestToMs: window.requestToMs, slices: window.slices,
          summarize: false, notFound: [], raw,
        }));
      };
      const url = metricDataUrl(fromMs, toMs, false);
      let responseBytes: number | undefined;
      const endpoint = async (u: string): Promise<string> => {
        const response = await server.api.inject({ method: 'GET', url: u, headers: { 'X-Api-Key': API_KEY } });
        if (response.statusCode !== 200) throw new Error(`${c.label}: the endpoint answered ${response.statusCode}: ${response.body.slice(0, 500)}`);
        return response.body;
      };
      const readBefore = await executor.aggregate(planned.plan);
      const prepared = await diagConnection.prepare(rendered.sql);
      const namesUrl = `/v2/applications/${APP_ID}/metrics.json?name=HttpDispatcher`;
      const run: Record<Variant, () => Promise<unknown>> = {
        endpoint: async () => { responseBytes = (await endpoint(url)).length; },
        raw: () => runRaw(rawConnection, sql),
        'plan path': () => planPath(false),
        'generated SQL': () => executor.run(rendered),
        'shape + JSON': async () => JSON.stringify(shapeMetricData({
          planned, result: readBefore, requestFromMs: window.requestFromMs, requestToMs: window.requestToMs, slices: window.slices,
          summarize: false, notFound: [], raw: false,
        })),
        'REST names route': () => endpoint(namesUrl),
        'generated SQL, typed params': async () => (await diagConnection.runAndReadAll(rendered.sql, typedParams)).getColumnsJS(),
        'generated SQL, literals': async () => (await diagConnection.runAndReadAll(literalSql)).getColumnsJS(),
        'generated SQL, literals + sync read': async () => readColumns(await diagConnection.run(literalSql)),
        'generated SQL, prepared once + sync read': async () => {
          prepared.bind(executorParams);
          return readColumns(await prepared.run());
        },
        'raw, app and metric first': () => runRaw(rawConnection, appFirstSql),
      };
      const variants = VARIANTS.filter((v) => (v === 'endpoint' ? endpointAvailable : v === 'raw' || options.variants.includes(v)));

      // ── correctness first ──
      const raw = await runRaw(rawConnection, sql);
      let valuesChecked = compareWithRaw(`${c.label} plan path`, JSON.parse(await planPath(true)) as RestMetricData, raw, window, ids, false);
      compareWithRaw(`${c.label} plan path (rounded)`, JSON.parse(await planPath(false)) as RestMetricData, raw, window, ids, true);
      if (endpointAvailable) {
        valuesChecked += compareWithRaw(`${c.label} endpoint`, JSON.parse(await endpoint(metricDataUrl(fromMs, toMs, true))) as RestMetricData, raw, window, ids, false);
        compareWithRaw(`${c.label} endpoint (rounded)`, JSON.parse(await endpoint(url)) as RestMetricData, raw, window, ids, true);
      }
      // The diagnostic bindings must find the same groups as the executor's.
      const groupsOf = (columns: readonly (readonly unknown[])[]) => JSON.stringify(columns.slice(0, 2), (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
      const groups = groupsOf(await executor.run(rendered));
      if (groupsOf(raw.columns) !== groupsOf((await runRaw(rawConnection, appFirstSql)).columns)) {
        throw new Error(`${c.label}: the raw SQL with app and metric first finds other groups`);
      }
      prepared.bind(executorParams);
      for (const [label, columns] of [
        ['typed params', (await diagConnection.runAndReadAll(rendered.sql, typedParams)).getColumnsJS()],
        ['literals', (await diagConnection.runAndReadAll(literalSql)).getColumnsJS()],
        ['a statement prepared once', readColumns(await prepared.run())],
        ['literals, read synchronously', readColumns(await diagConnection.run(literalSql))],
      ] as const) {
        if (groupsOf(columns) !== groups) throw new Error(`${c.label}: the generated SQL with ${label} finds other groups than with the executor's parameters`);
      }
      const [counts] = (await diagConnection.runAndReadAll(`
        SELECT count(*) FILTER (WHERE app_id = ${APP_ID} AND scope_id = 0 AND metric_id IN (${metricIds.join(', ')})) AS matching, count(*) AS window_rows
        FROM ${ALL_TIMESLICES} WHERE ts >= ${sqlTimestamp(window.beginMs)} AND ts < ${sqlTimestamp(window.endMs)}`)).getRowObjectsJS() as { matching: bigint; window_rows: bigint }[];
      log(`${c.label}: ${valuesChecked} values equal to the raw SQL's; timing ${variants.length} variants × ${options.iterations} (+${options.warmup} warm-up)…`);

      // ── timing: rounds of every variant, the order rotated each round ──
      const samples = new Map<Variant, number[]>(variants.map((v) => [v, []]));
      for (let round = 0; round < options.warmup + options.iterations; round++) {
        for (let k = 0; k < variants.length; k++) {
          const variant = variants[(round + k) % variants.length]!;
          const t = performance.now();
          await run[variant]();
          const ms = performance.now() - t;
          if (round >= options.warmup) samples.get(variant)!.push(ms);
        }
      }
      const timings: Partial<Record<Variant, Timing>> = {};
      for (const [variant, s] of samples) timings[variant] = timing(s);
      const endpointT = timings.endpoint;
      const rawT = timings.raw!;

      let explain: CaseResult['explain'];
      if (options.explain) {
        const text = async (r: Promise<{ getRowsJS(): unknown[][] }>) => (await r).getRowsJS().map((row) => String(row[1])).join('\n');
        explain = {
          raw: await text(diagConnection.runAndReadAll(`EXPLAIN ANALYZE ${sql}`)),
          generated: await text(diagConnection.runAndReadAll(`EXPLAIN ANALYZE ${rendered.sql}`, executorParams)),
        };
        process.stderr.write(`\n── ${c.label} raw SQL ──\n${sql}\n${explain.raw}\n── ${c.label} generated SQL ──\n${rendered.sql}\n${JSON.stringify(rendered.params)}\n${explain.generated}\n`);
      }
      results.push({
        label: c.label, title: c.title, from: formatRestTime(fromMs), to: formatRestTime(toMs), slices: window.slices.length,
        rawRows: raw.columns[0]?.length ?? 0,
        matchingTimeslices: Number(counts!.matching), windowTimeslices: Number(counts!.window_rows),
        valuesChecked, responseBytes, timings,
        ratio: endpointT ? endpointT.median / rawT.median : undefined,
        meetsTarget: endpointT ? endpointT.median <= 1.2 * rawT.median + 1 : undefined,
        ...(explain ? { explain } : {}),
      });
      prepared.destroySync();
      log(`${c.label}: ${formatCaseLine(results.at(-1)!)}`);
    }

    const { metricIds: _ids, appNames: _names, ...storeFacts } = store;
    return {
      date: new Date().toISOString().slice(0, 10),
      machine: machineFacts(),
      options,
      store: storeFacts,
      endpointAvailable,
      generatedSql,
      cases: results,
    };
  } finally {
    executor.close();
    rawConnection.closeSync();
    diagConnection.closeSync();
    await server.close();
  }
}

// ── reporting ───────────────────────────────────────────────────────────────────────────────

const ms = (n: number | undefined) => (n === undefined ? '–' : n < 10 ? n.toFixed(2) : n.toFixed(1));
const int = (n: number) => Math.round(n).toLocaleString('en-US');

function formatCaseLine(c: CaseResult): string {
  const e = c.timings.endpoint;
  const r = c.timings.raw!;
  const head = e
    ? `endpoint ${ms(e.median)} ms (p95 ${ms(e.p95)}) vs raw ${ms(r.median)} ms (p95 ${ms(r.p95)}): ratio ${c.ratio!.toFixed(2)}, target ${ms(1.2 * r.median + 1)} ms ${c.meetsTarget ? 'met' : 'MISSED'}`
    : `raw ${ms(r.median)} ms (p95 ${ms(r.p95)})`;
  const rest = VARIANTS.filter((v) => v !== 'endpoint' && v !== 'raw' && c.timings[v]).map((v) => `${v} ${ms(c.timings[v]!.median)}`).join(', ');
  return `${head}; ${rest}`;
}

export function formatRestResult(r: RestBenchResult): string {
  const s = r.store;
  const shown = VARIANTS.filter((v) => r.cases.some((c) => c.timings[v]));
  const lines = [
    `REST metric data (${r.date}): application ${APP_ID}, ${METRICS.join(' + ')}, all values; ${r.options.iterations} timed runs per variant after ${r.options.warmup} warm-up, interleaved`,
    `  machine: ${r.machine.cpus} CPUs (${r.machine.cpuModel}), ${r.machine.memoryGiB} GiB, Node ${r.machine.node}, DuckDB ${r.machine.duckdb} (@duckdb/node-api ${r.machine.duckdbNodeApi}), load ${r.machine.loadAverage.join(' ')}`,
    `  store: ${int(s.rows)} timeslices (${s.shape.apps} apps × ${s.shape.hostsPerApp} hosts × ${s.shape.days} days, ${s.unscopedPerHarvest} unscoped + ${s.scopedPerHarvest} scoped metrics per harvest, arrival order), ${int(s.metricNames)} names, ${int(s.presenceRows)} presence rows, ${(s.fileBytes / 2 ** 30).toFixed(1)} GiB, ${s.dataDir}${s.buildSeconds === undefined ? '' : `, built in ${s.buildSeconds.toFixed(0)} s`}`,
    ...(r.endpointAvailable ? [] : ['  the metric-data route is not registered: "plan path" is the intermediate figure (the route minus HTTP, auth and parameters)']),
    '',
    `  ${'case'.padEnd(26)} ${'matching'.padStart(11)} ${'in window'.padStart(12)}  ${shown.map((v) => v.padStart(v.length > 15 ? v.length : 15)).join(' ')}  ratio  target`,
  ];
  for (const c of r.cases) {
    const cells = shown.map((v) => {
      const t = c.timings[v];
      return `${ms(t?.median)} / ${ms(t?.p95)}`.padStart(v.length > 15 ? v.length : 15);
    });
    const target = c.meetsTarget === undefined ? '–' : `${c.meetsTarget ? 'met' : 'MISSED'} (≤ ${ms(1.2 * c.timings.raw!.median + 1)})`;
    lines.push(`  ${c.title.padEnd(26)} ${int(c.matchingTimeslices).padStart(11)} ${int(c.windowTimeslices).padStart(12)}  ${cells.join(' ')}  ${c.ratio === undefined ? '  –  ' : c.ratio.toFixed(2).padStart(5)}  ${target}`);
  }
  lines.push('  (ms, median / p95; matching: timeslices of the app and metrics in the window; in window: all timeslices in it)');
  return lines.join('\n');
}
