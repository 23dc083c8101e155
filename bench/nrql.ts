/**
 * NRQL benchmark: three queries through `NrqlEngine.run`, each against hand-written DuckDB SQL
 * for the same answer, on the cached store of `fixtures/nrql-store.ts` (10 M Transaction
 * events, ≈ 20 M timeslices in the compactor's layout).
 *
 * - `facet`: `SELECT average(duration) FROM Transaction FACET name TIMESERIES AUTO` over the
 *   last day (48 buckets of 30 minutes, the top 10 names with totalResult and otherResult).
 * - `uniques-day`, `uniques-30m`: `SELECT uniques(metricTimesliceName) FROM Metric WHERE appId = 7
 *   … LIMIT MAX`, the metric-names listing, over the last day and the last 30 minutes.
 * - `filter`: `filter(average(newrelic.timeslice.value) * 1000, WHERE metricTimesliceName =
 *   'HttpDispatcher')` and `filter(count(…), WHERE metricTimesliceName = 'Errors/all')` for one
 *   application over the last day, TIMESERIES (48 buckets) with its totalResult.
 *
 * The service runs in this process (`startServer` on the store's directory, compaction off, its
 * clock fixed at the store's "now", so relative windows are fixed); the engine is built as the
 * API builds it, over a `DuckDbPlanExecutor` of the service's database and the service's catalog
 * and metric index. The raw SQL runs on another connection of the same DuckDB instance, written as a person
 * would for this schema: ids resolved, the window as literals, every value of the answer
 * computed in SQL (ranking, totals, the rest), read from the materialized chunks.
 *
 * Before timing, each NRQL answer's `results`, `totalResult` and `otherResult` are compared with
 * the raw SQL's rows shaped the same way (numbers within 1e-9 relative, everything else equal);
 * a difference fails the benchmark. Diagnostics timed in the same rounds:
 * - `generated SQL`: the engine's one statement (each of these queries runs one) through
 *   `DuckDbPlanExecutor.run`, DuckDB and reading the columns; `generated SQL, literals` the same
 *   text with the parameters written in, run as the raw SQL is;
 * - `parse + analyze`: `NrqlEngine.explain`; `engine without DuckDB`: `NrqlEngine.run` over an
 *   executor that answers with the plan's columns read beforehand (parse, analyze, shape);
 * - per case, other hand-written forms of the raw SQL, and the engine's plan changed as the
 *   engine could change it (without the ranking `count(*)` a query without FACET never reads;
 *   with the `filter()` conditions also in WHERE), rendered by `renderAggregatePlan` and run by
 *   the executor, or the engine's columns computed by SQL the renderer does not write. Each must
 *   find the same rows as the generated SQL before it is timed.
 */
import type { DuckDBConnection, DuckDBMaterializedResult } from '@duckdb/node-api';
import { resolveServeConfig } from '../src/config.js';
import { storeDictionaries } from '../src/nrql/dictionaries.js';
import { mainPlan, type ResultRow } from '../src/nrql/execute.js';
import { NrqlEngine, type NrqlAnswer } from '../src/nrql/nrql-engine.js';
import { startServer, type RunningServer } from '../src/server.js';
import type { RenderedSql } from '../src/sql/dialect.js';
import type { AggregatePlan } from '../src/plan/aggregate-plan.js';
import { and, type Predicate } from '../src/plan/expressions.js';
import { duckdbDialect } from '../src/store/duckdb/duckdb-dialect.js';
import { duckdbSchema } from '../src/store/duckdb/sources.js';
import { renderAggregatePlan } from '../src/sql/render-plan.js';
import { DuckDbPlanExecutor } from '../src/store/duckdb/duckdb-plan-executor.js';
import type { PlanExecutor } from '../src/store/plan-executor.js';
import { DEFAULT_NRQL_STORE_SHAPE, ensureNrqlStore, type NrqlStore, type NrqlStoreShape } from './fixtures/nrql-store.js';
import { ALL_TIMESLICES } from './fixtures/timeslice-store.js';
import { machineFacts, type MachineFacts } from './machine.js';

// ── options ─────────────────────────────────────────────────────────────────────────────────

export type CaseLabel = 'facet' | 'uniques-day' | 'uniques-30m' | 'filter';
export const CASE_LABELS: readonly CaseLabel[] = ['facet', 'uniques-day', 'uniques-30m', 'filter'];

export interface NrqlBenchOptions {
  /** Timed rounds after the warm-up; each round runs every variant of a case once. */
  readonly rounds: number;
  readonly warmup: number;
  readonly shape: NrqlStoreShape;
  readonly appId: number;
  readonly cases: readonly CaseLabel[];
  readonly rebuild: boolean;
  /** Print DuckDB's EXPLAIN ANALYZE of the raw and the generated SQL for each case. */
  readonly explain: boolean;
}

export const DEFAULT_NRQL_OPTIONS: NrqlBenchOptions = {
  rounds: 30, warmup: 3, shape: DEFAULT_NRQL_STORE_SHAPE, appId: 7, cases: CASE_LABELS, rebuild: false, explain: false,
};

const ACCOUNT_ID = 1;
const API_KEY = 'NRAK-BENCHNRQL00000000000000000';
const RELATIVE_TOLERANCE = 1e-9;
const DAY_MS = 86_400_000;
const BUCKET_MS = 30 * 60_000;
const FACET_LIMIT = 10;

// ── the cases ───────────────────────────────────────────────────────────────────────────────

/** A result column of the raw SQL by name. */
interface RawAnswer {
  readonly names: readonly string[];
  readonly columns: readonly (readonly unknown[])[];
}

/** What the NRQL answer must equal: NerdGraph's result fields, built from the raw SQL's rows. */
interface Expected {
  readonly results: ResultRow[];
  readonly totalResult: ResultRow | ResultRow[] | null;
  readonly otherResult: ResultRow | ResultRow[] | null;
}

interface BenchCase {
  readonly label: CaseLabel;
  readonly title: string;
  readonly nrql: string;
  readonly raw: string;
  /** Other hand-written forms of the same answer, timed as diagnostics. */
  readonly rawVariants: Readonly<Record<string, string>>;
  /** The engine's plan changed as the engine could change it, rendered and run by the executor (diagnostics). */
  readonly planVariants: Readonly<Record<string, (plan: AggregatePlan) => AggregatePlan>>;
  /**
   * The engine's result columns computed by SQL the renderer does not write (yet), run as the raw
   * SQL is (diagnostics); they must equal the generated SQL's leading columns.
   */
  readonly sqlVariants: Readonly<Record<string, string>>;
  expected(raw: RawAnswer): Expected;
  /** Rows of the store the query has to look at (for the report). */
  readonly inputSql: string;
}

const sqlTimestamp = (ms: number) => `TIMESTAMP '${new Date(ms).toISOString().replace('T', ' ').replace('Z', '')}'`;

function column(raw: RawAnswer, name: string): readonly unknown[] {
  const i = raw.names.indexOf(name);
  if (i < 0) throw new Error(`the raw SQL has no column ${name}`);
  return raw.columns[i]!;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** The buckets of a window as NRQL lists them. */
function bucketTimes(beginMs: number, count: number): { beginTimeSeconds: number; endTimeSeconds: number }[] {
  return Array.from({ length: count }, (_, b) => ({
    beginTimeSeconds: (beginMs + b * BUCKET_MS) / 1000,
    endTimeSeconds: (beginMs + (b + 1) * BUCKET_MS) / 1000,
  }));
}

/**
 * `average(duration) FACET name TIMESERIES` over the day: one aggregation to (name, bucket), then
 * from it the top names (by the day's average, then name), their series, the total series and
 * the series of every other name (a null name included).
 */
function facetCase(nowMs: number): BenchCase {
  const beginMs = nowMs - DAY_MS;
  const buckets = DAY_MS / BUCKET_MS;
  const window = `"timestamp" >= ${sqlTimestamp(beginMs)} AND "timestamp" < ${sqlTimestamp(nowMs)}`;
  const perBucket = `
  SELECT name, (epoch_ms("timestamp") - ${beginMs}) // ${BUCKET_MS} AS bucket, sum(duration) AS total, count(duration) AS n
  FROM transaction_events
  WHERE account_id = ${ACCOUNT_ID} AND ${window}
  GROUP BY name, bucket`;
  const raw = (materialized: boolean) => `
WITH per_bucket AS ${materialized ? 'MATERIALIZED ' : ''}(${perBucket}
),
top AS (
  SELECT name, row_number() OVER (ORDER BY sum(total) / sum(n) DESC NULLS LAST, name) AS rank
  FROM per_bucket WHERE name IS NOT NULL GROUP BY name
  QUALIFY rank <= ${FACET_LIMIT}
)
SELECT top.rank, name, bucket, total / n AS average FROM per_bucket JOIN top USING (name)
UNION ALL
SELECT 0, NULL, bucket, sum(total) / sum(n) FROM per_bucket GROUP BY bucket
UNION ALL
SELECT -1, NULL, bucket, sum(total) / sum(n) FROM per_bucket WHERE name IS NULL OR name NOT IN (SELECT name FROM top) GROUP BY bucket`;
  return {
    label: 'facet',
    title: 'average(duration) FACET name TIMESERIES, 1 day',
    nrql: `SELECT average(duration) FROM Transaction FACET name TIMESERIES AUTO SINCE ${beginMs} UNTIL ${nowMs}`,
    raw: raw(true),
    rawVariants: { 'raw, CTE not materialized': raw(false) },
    planVariants: {},
    sqlVariants: {},
    inputSql: `SELECT count(*) AS n FROM transaction_events WHERE account_id = ${ACCOUNT_ID} AND ${window}`,
    expected(answer) {
      const rank = column(answer, 'rank').map(Number);
      const name = column(answer, 'name');
      const bucket = column(answer, 'bucket').map(Number);
      const average = column(answer, 'average');
      const series = new Map<number, { name: unknown; values: Map<number, number | null> }>();
      rank.forEach((r, i) => {
        let s = series.get(r);
        if (!s) series.set(r, (s = { name: name[i], values: new Map() }));
        s.values.set(bucket[i]!, num(average[i]));
      });
      const times = bucketTimes(beginMs, buckets);
      const rowsOf = (r: number) => times.map((t, b) => ({ ...t, 'average.duration': series.get(r)?.values.get(b) ?? null }));
      const facets = [...series.keys()].filter((r) => r > 0).sort((a, b) => a - b);
      return {
        results: facets.flatMap((r) => rowsOf(r).map((row) => ({ facet: series.get(r)!.name, name: series.get(r)!.name, ...row }))),
        totalResult: rowsOf(0),
        otherResult: rowsOf(-1),
      };
    },
  };
}

/** `uniques(metricTimesliceName)` of one application: the distinct metric ids, then their names in order. */
function uniquesCase(label: 'uniques-day' | 'uniques-30m', nowMs: number, appId: number): BenchCase {
  const rangeMs = label === 'uniques-day' ? DAY_MS : 30 * 60_000;
  const since = label === 'uniques-day' ? '1 day ago' : '30 minutes ago';
  const window = (ts: string) => `${ts} >= ${sqlTimestamp(nowMs - rangeMs)} AND ${ts} < ${sqlTimestamp(nowMs)}`;
  return {
    label,
    title: `uniques(metricTimesliceName) WHERE appId, ${label === 'uniques-day' ? '1 day' : '30 minutes'}`,
    nrql: `SELECT uniques(metricTimesliceName) FROM Metric WHERE appId = ${appId} SINCE ${since} LIMIT MAX`,
    raw: `
SELECT name FROM metric_names
WHERE id IN (SELECT DISTINCT metric_id FROM ${ALL_TIMESLICES} WHERE account_id = ${ACCOUNT_ID} AND ${window('ts')} AND app_id = ${appId})
ORDER BY name`,
    rawVariants: {
      'raw, join then DISTINCT': `
SELECT DISTINCT m.name FROM ${ALL_TIMESLICES} t JOIN metric_names m ON m.id = t.metric_id
WHERE t.account_id = ${ACCOUNT_ID} AND ${window('t.ts')} AND t.app_id = ${appId}
ORDER BY m.name`,
    },
    planVariants: { 'generated SQL, no count(*)': withoutRankCount },
    sqlVariants: {
      'engine columns, list over a DISTINCT subquery': `
SELECT list(metric_id) AS a0
FROM (SELECT DISTINCT metric_id FROM ${ALL_TIMESLICES} WHERE account_id = ${ACCOUNT_ID} AND ${window('ts')} AND app_id = ${appId} AND metric_id IS NOT NULL)`,
    },
    inputSql: `SELECT count(*) AS n FROM ${ALL_TIMESLICES} WHERE account_id = ${ACCOUNT_ID} AND ${window('ts')} AND app_id = ${appId}`,
    expected(answer) {
      return { results: [{ 'uniques.metricTimesliceName': [...column(answer, 'name')] }], totalResult: null, otherResult: null };
    },
  };
}

/**
 * Two filtered timeslice aggregates of one application per 30 minutes and over the day. A
 * person names the two metrics in WHERE as well as in the FILTER clauses; the variant without
 * that shows what it is worth.
 */
function filterCase(nowMs: number, appId: number, ids: { http: number; errors: number }): BenchCase {
  const beginMs = nowMs - DAY_MS;
  const buckets = DAY_MS / BUCKET_MS;
  const raw = (metricsInWhere: boolean) => `
SELECT (epoch_ms(ts) - ${beginMs}) // ${BUCKET_MS} AS bucket,
       sum(total) FILTER (WHERE metric_id = ${ids.http}) / sum(call_count) FILTER (WHERE metric_id = ${ids.http}) * 1000 AS rt,
       coalesce(sum(call_count) FILTER (WHERE metric_id = ${ids.errors}), 0) AS errors
FROM ${ALL_TIMESLICES}
WHERE account_id = ${ACCOUNT_ID} AND ts >= ${sqlTimestamp(beginMs)} AND ts < ${sqlTimestamp(nowMs)} AND app_id = ${appId}${
  metricsInWhere ? ` AND metric_id IN (${ids.http}, ${ids.errors})` : ''}
GROUP BY ROLLUP (bucket)
ORDER BY bucket NULLS LAST`;
  return {
    label: 'filter',
    title: 'filter(average(value) * 1000), filter(count(value)) TIMESERIES, 1 day',
    nrql: `SELECT filter(average(newrelic.timeslice.value) * 1000, WHERE metricTimesliceName = 'HttpDispatcher') AS rt, `
      + `filter(count(newrelic.timeslice.value), WHERE metricTimesliceName = 'Errors/all') AS errors FROM Metric WHERE appId = ${appId} SINCE 1 day ago TIMESERIES`,
    raw: raw(true),
    rawVariants: { 'raw, metrics only in FILTER': raw(false) },
    planVariants: {
      'generated SQL, no count(*)': withoutRankCount,
      'generated SQL, filters OR-ed into WHERE': (plan) => withFiltersInWhere(plan, false),
      'generated SQL, filters as one IN in WHERE': (plan) => withFiltersInWhere(plan, true),
    },
    sqlVariants: {},
    inputSql: `SELECT count(*) AS n FROM ${ALL_TIMESLICES} WHERE account_id = ${ACCOUNT_ID} AND ts >= ${sqlTimestamp(beginMs)} AND ts < ${sqlTimestamp(nowMs)} AND app_id = ${appId}`,
    expected(answer) {
      const bucket = column(answer, 'bucket');
      const rt = column(answer, 'rt');
      const errors = column(answer, 'errors');
      const byBucket = new Map<number, { rt: number | null; errors: number | null }>();
      let total: { rt: number | null; errors: number | null } | undefined;
      bucket.forEach((b, i) => {
        const values = { rt: num(rt[i]), errors: num(errors[i]) };
        if (b === null) total = values;
        else byBucket.set(Number(b), values);
      });
      if (!total) throw new Error('the raw SQL has no ROLLUP total row');
      return {
        results: bucketTimes(beginMs, buckets).map((t, b) => ({ ...t, ...(byBucket.get(b) ?? { rt: null, errors: 0 }) })),
        totalResult: total,
        otherResult: null,
      };
    },
  };
}

// ── what the engine could generate instead ──────────────────────────────────────────────────

/**
 * The plan without the `count(*)` the analyzer adds to rank facets (`rankBy`) when the first
 * aggregate does not rank; a query without FACET never reads it.
 */
function withoutRankCount(plan: AggregatePlan): AggregatePlan {
  if (plan.groupBy.length > 0) throw new Error('a FACET query ranks by its count(*)');
  return { ...plan, aggregates: plan.aggregates.filter((a) => a.fn !== 'countRows' || a.where !== undefined) };
}

/**
 * When every aggregate is a `filter()`, rows no filter keeps cannot change the answer of a query
 * without FACET (a bucket left without rows shapes as counts 0 and nulls, as its filtered
 * aggregates over other rows do): the plan's WHERE can name them too, as the OR of the filters
 * or, when they are all `IN` lists on one field, as one `IN` list.
 */
function withFiltersInWhere(plan: AggregatePlan, oneIn: boolean): AggregatePlan {
  const p = withoutRankCount(plan);
  const filters = [...new Map(p.aggregates.map((a) => [JSON.stringify(a.where), a.where])).values()];
  if (filters.some((f) => f === undefined)) throw new Error('not every aggregate is filtered');
  const items = filters as Predicate[];
  const first = items[0]!;
  const sameField = items.every((f) => f.kind === 'in' && !f.negated && first.kind === 'in' && JSON.stringify(f.expr) === JSON.stringify(first.expr));
  if (oneIn && !sameField) throw new Error('the filters are not IN lists on one field');
  const pushed: Predicate = oneIn && first.kind === 'in'
    ? { kind: 'in', expr: first.expr, values: [...new Set(items.flatMap((f) => (f.kind === 'in' ? f.values : [])))], negated: false }
    : { kind: 'or', items };
  return { ...p, where: and(p.where, pushed) };
}

/**
 * A result's rows in a canonical order (by their group keys, which come first), lists sorted
 * (a `list(DISTINCT …)` has no order), 64-bit integers as numbers: for `compareJson`, which
 * allows parallel sums their last bits.
 */
function canonicalRows(columns: readonly (readonly unknown[])[]): unknown[][] {
  const cell = (v: unknown): unknown => {
    if (typeof v === 'bigint') return Number(v);
    if (v !== null && typeof v === 'object' && 'items' in v) return (v.items as unknown[]).map(cell).sort();
    return v;
  };
  const rows = Array.from({ length: columns[0]?.length ?? 0 }, (_, r) => columns.map((c) => cell(c[r])));
  const order = (row: unknown[]) => JSON.stringify(row.map((v) => (typeof v === 'number' ? Number(v.toPrecision(6)) : v)));
  return rows.map((row) => [order(row), row] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

// ── running and reading ─────────────────────────────────────────────────────────────────────

/** One query, then the materialized result's chunks read synchronously (the cheapest read node-api offers). */
async function runRaw(connection: DuckDBConnection, sql: string): Promise<RawAnswer> {
  const result = await connection.run(sql);
  return { names: result.columnNames(), columns: readColumns(result) };
}

function readColumns(result: DuckDBMaterializedResult): unknown[][] {
  const columns: unknown[][] = Array.from({ length: result.columnCount }, () => []);
  for (let i = 0; i < result.chunkCount; i++) {
    result.getChunk(i).getColumns().forEach((values, c) => { for (const v of values) columns[c]!.push(v); });
  }
  return columns;
}

/**
 * Compares `got` with `expected` as JSON values: numbers within the tolerance, everything else
 * equal, objects with the same keys. Returns the number of leaf values compared.
 */
function compareJson(path: string, got: unknown, expected: unknown): number {
  if (typeof expected === 'number' && typeof got === 'number') {
    const ok = got === expected || Math.abs(got - expected) <= RELATIVE_TOLERANCE * Math.max(Math.abs(got), Math.abs(expected));
    if (!ok) throw new Error(`${path}: NRQL ${got}, raw SQL ${expected}`);
    return 1;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(got) || got.length !== expected.length) throw new Error(`${path}: NRQL ${short(got)}, raw SQL ${short(expected)}`);
    return expected.reduce((n: number, e, i) => n + compareJson(`${path}[${i}]`, got[i], e), 0);
  }
  if (expected !== null && typeof expected === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) throw new Error(`${path}: NRQL ${short(got)}, raw SQL an object`);
    const keys = Object.keys(expected).sort();
    if (keys.join() !== Object.keys(got).sort().join()) throw new Error(`${path}: NRQL keys ${Object.keys(got).sort().join(', ')}, raw SQL ${keys.join(', ')}`);
    return keys.reduce((n, k) => n + compareJson(`${path}.${k}`, (got as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k]), 0);
  }
  if (got !== expected) throw new Error(`${path}: NRQL ${short(got)}, raw SQL ${short(expected)}`);
  return 1;
}

const short = (v: unknown) => JSON.stringify(v)?.slice(0, 200) ?? String(v);

function checkAnswer(label: string, answer: NrqlAnswer, expected: Expected): number {
  return compareJson(`${label} results`, answer.results, expected.results)
    + compareJson(`${label} totalResult`, answer.totalResult, expected.totalResult)
    + compareJson(`${label} otherResult`, answer.otherResult, expected.otherResult);
}

// ── statistics ──────────────────────────────────────────────────────────────────────────────

export interface Timing { readonly median: number; readonly p90: number; readonly min: number; readonly max: number; readonly n: number }

function timing(samples: readonly number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length % 2 === 1 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const p90 = sorted[Math.min(sorted.length - 1, Math.ceil(0.9 * sorted.length) - 1)]!;
  return { median, p90, min: sorted[0]!, max: sorted[sorted.length - 1]!, n: sorted.length };
}

// ── the benchmark ───────────────────────────────────────────────────────────────────────────

export interface CaseResult {
  readonly label: CaseLabel;
  readonly title: string;
  readonly nrql: string;
  readonly rawSql: string;
  readonly generatedSql: RenderedSql;
  /** Rows of the store in the query's window and filter. */
  readonly inputRows: number;
  readonly resultRows: number;
  readonly valuesChecked: number;
  /** Wall time by variant: `nrql`, `raw`, `generated SQL` (also with literals), `parse + analyze`, and the case's diagnostic variants. */
  readonly timings: Readonly<Record<string, Timing>>;
  /** CPU time of the process (all threads) by variant. */
  readonly cpuTimings: Readonly<Record<string, Timing>>;
  /** nrql median / raw median (wall): the figure the target is about. */
  readonly ratio: number;
  /** Median over rounds of nrql / raw within the round (wall): less sensitive to load that changes between rounds. */
  readonly pairedRatio: number;
  /** nrql median / raw median of CPU time. */
  readonly cpuRatio: number;
  readonly meetsTarget: boolean;
  readonly explain?: { readonly raw: string; readonly generated: string };
}

export interface NrqlBenchResult {
  readonly date: string;
  readonly machine: MachineFacts;
  readonly options: NrqlBenchOptions;
  readonly store: NrqlStore;
  readonly memoryLimit: string;
  readonly cases: readonly CaseResult[];
}

/** The target of the issue: the NRQL answer within 1.2 × the raw SQL's time. */
const TARGET_RATIO = 1.2;

function log(message: string): void {
  process.stderr.write(`[nrql] ${message}\n`);
}

export async function runNrqlBench(options: NrqlBenchOptions = DEFAULT_NRQL_OPTIONS): Promise<NrqlBenchResult> {
  if (options.appId < 1 || options.appId > options.shape.apps) throw new Error(`--app must be an application of the store (1…${options.shape.apps})`);
  if (options.shape.hours < 24) throw new Error('--hours must be at least 24: the queries read the last day');
  const store = await ensureNrqlStore(options.shape, { rebuild: options.rebuild, log });
  const clock = { now: () => store.nowMs };
  log('starting the service on the store…');
  const t0 = performance.now();
  const config = resolveServeConfig({ host: '127.0.0.1', port: '0', 'collector-port': '0', data: store.dataDir }, {
    ...process.env, TIMESLICE_API_KEY: API_KEY, TIMESLICE_COMPACT_EVERY_MS: '0', TIMESLICE_LOG_LEVEL: process.env.TIMESLICE_LOG_LEVEL ?? 'warn',
  });
  const server: RunningServer = await startServer(config, { clock });
  log(`service up in ${((performance.now() - t0) / 1000).toFixed(1)} s (DuckDB memory limit ${config.memoryLimit})`);
  const executor = new DuckDbPlanExecutor(server.db);
  const engine = new NrqlEngine({ executor, dictionaries: storeDictionaries(server.catalog, server.metrics), clock });
  const rawConnection = await server.db.instance.connect();
  const runOptions = { accountIds: [ACCOUNT_ID] };
  try {
    const idOf = (name: string) => {
      const id = server.metrics.metricId(name);
      if (id === undefined) throw new Error(`the store has no metric ${name}`);
      return id;
    };
    const all: BenchCase[] = [
      facetCase(store.nowMs),
      uniquesCase('uniques-day', store.nowMs, options.appId),
      uniquesCase('uniques-30m', store.nowMs, options.appId),
      filterCase(store.nowMs, options.appId, { http: idOf('HttpDispatcher'), errors: idOf('Errors/all') }),
    ];
    const results: CaseResult[] = [];
    for (const c of all.filter((k) => options.cases.includes(k.label))) {
      const analyzed = engine.explain(c.nrql, runOptions).analyzed;
      if (analyzed.kind !== 'aggregate') throw new Error(`${c.label}: expected an aggregate query`);
      const plan = mainPlan(analyzed) as AggregatePlan;
      const generatedSql = renderAggregatePlan(plan, duckdbDialect, duckdbSchema);
      const planVariants = Object.entries(c.planVariants).map(([name, change]) => [name, renderAggregatePlan(change(plan), duckdbDialect, duckdbSchema)] as const);
      const literalSql = inlineParams(generatedSql);

      // ── correctness first ──
      const raw = await runRaw(rawConnection, c.raw);
      const expected = c.expected(raw);
      const valuesChecked = checkAnswer(c.label, await engine.run(c.nrql, runOptions), expected);
      for (const [variant, sql] of Object.entries(c.rawVariants)) checkAnswer(`${c.label} (${variant} as the expectation)`, await engine.run(c.nrql, runOptions), c.expected(await runRaw(rawConnection, sql)));
      const [input] = (await rawConnection.runAndReadAll(c.inputSql)).getRowObjectsJS() as { n: bigint }[];
      const generated = await executor.run(generatedSql);
      compareJson(`${c.label} generated SQL with literals`, canonicalRows((await runRaw(rawConnection, literalSql)).columns), canonicalRows(generated));
      // The variants drop the trailing count(*); the columns before it must be the same.
      for (const [name, rendered] of planVariants) {
        const columns = await executor.run(rendered);
        compareJson(`${c.label} ${name}`, canonicalRows(columns), canonicalRows(generated.slice(0, columns.length)));
      }
      for (const [name, sql] of Object.entries(c.sqlVariants)) {
        const { columns } = await runRaw(rawConnection, sql);
        compareJson(`${c.label} ${name}`, canonicalRows(columns), canonicalRows(generated.slice(0, columns.length)));
      }
      // The engine's own work without DuckDB: the same engine over an executor that answers the
      // plan with its columns, read beforehand.
      const readBefore = await executor.aggregate(plan);
      const planKey = JSON.stringify(plan);
      const canned: PlanExecutor = {
        aggregate: async (asked) => {
          if (JSON.stringify(asked) !== planKey) throw new Error(`${c.label}: the engine ran another plan than its main one`);
          return readBefore;
        },
        rows: () => { throw new Error(`${c.label}: the engine asked for rows`); },
        regexError: () => { throw new Error(`${c.label}: the engine checked a pattern`); },
      };
      const shapingEngine = new NrqlEngine({ executor: canned, dictionaries: storeDictionaries(server.catalog, server.metrics), clock });
      checkAnswer(`${c.label} (columns read beforehand)`, await shapingEngine.run(c.nrql, runOptions), expected);

      // ── timing: rounds of every variant, the order rotated each round ──
      const run: Record<string, () => Promise<unknown>> = {
        nrql: () => engine.run(c.nrql, runOptions),
        raw: () => runRaw(rawConnection, c.raw),
        'generated SQL': () => executor.run(generatedSql),
        'generated SQL, literals': () => runRaw(rawConnection, literalSql),
        'parse + analyze': async () => engine.explain(c.nrql, runOptions),
        'engine without DuckDB (columns read beforehand)': () => shapingEngine.run(c.nrql, runOptions),
        ...Object.fromEntries(planVariants.map(([name, rendered]) => [name, () => executor.run(rendered)])),
        ...Object.fromEntries(Object.entries(c.sqlVariants).map(([name, sql]) => [name, () => runRaw(rawConnection, sql)])),
        ...Object.fromEntries(Object.entries(c.rawVariants).map(([name, sql]) => [name, () => runRaw(rawConnection, sql)])),
      };
      const variants = Object.keys(run);
      log(`${c.label}: ${valuesChecked} values equal to the raw SQL's; timing ${variants.length} variants × ${options.rounds} rounds (+${options.warmup} warm-up)…`);
      // Wall time, and the CPU time of this process (DuckDB's threads included): on a machine
      // shared with other work the CPU time is far steadier than the wall time.
      const samples = new Map<string, { wall: number[]; cpu: number[] }>(variants.map((v) => [v, { wall: [], cpu: [] }]));
      for (let round = 0; round < options.warmup + options.rounds; round++) {
        for (let k = 0; k < variants.length; k++) {
          const variant = variants[(round + k) % variants.length]!;
          const cpu = process.cpuUsage();
          const t = performance.now();
          await run[variant]!();
          const wall = performance.now() - t;
          const used = process.cpuUsage(cpu);
          if (round >= options.warmup) {
            samples.get(variant)!.wall.push(wall);
            samples.get(variant)!.cpu.push((used.user + used.system) / 1000);
          }
        }
      }
      const timings = Object.fromEntries([...samples].map(([v, s]) => [v, timing(s.wall)]));
      const cpuTimings = Object.fromEntries([...samples].map(([v, s]) => [v, timing(s.cpu)]));
      const nrqlWall = samples.get('nrql')!.wall;
      const rawWall = samples.get('raw')!.wall;
      const pairedRatio = timing(nrqlWall.map((t, i) => t / rawWall[i]!)).median;
      let explain: CaseResult['explain'];
      if (options.explain) {
        const text = async (sql: string) => (await rawConnection.runAndReadAll(`EXPLAIN ANALYZE ${sql}`)).getRowsJS().map((row) => String(row[1])).join('\n');
        explain = { raw: await text(c.raw), generated: await text(literalSql) };
        process.stderr.write(`\n── ${c.label} raw SQL ──\n${c.raw}\n${explain.raw}\n── ${c.label} generated SQL ──\n${generatedSql.sql}\n${JSON.stringify(generatedSql.params)}\n${explain.generated}\n`);
      }
      const ratio = timings.nrql!.median / timings.raw!.median;
      results.push({
        label: c.label, title: c.title, nrql: c.nrql, rawSql: c.raw, generatedSql,
        inputRows: Number(input!.n), resultRows: generated[0]?.length ?? 0, valuesChecked, timings, cpuTimings,
        ratio, pairedRatio, cpuRatio: cpuTimings.nrql!.median / cpuTimings.raw!.median, meetsTarget: ratio <= TARGET_RATIO,
        ...(explain ? { explain } : {}),
      });
      log(`${c.label}: ${formatCaseLine(results.at(-1)!)}`);
    }
    return { date: new Date().toISOString().slice(0, 10), machine: machineFacts(), options, store, memoryLimit: config.memoryLimit, cases: results };
  } finally {
    executor.close();
    rawConnection.closeSync();
    await server.close();
  }
}

/** The rendered SQL with its parameters written in, for EXPLAIN ANALYZE on the raw connection. */
function inlineParams(rendered: RenderedSql): string {
  return rendered.sql.replace(/\$(\d+)/g, (_m, n: string) => {
    const p = rendered.params[Number(n) - 1]!;
    if (typeof p === 'object') return 'timestampMs' in p ? sqlTimestamp(p.timestampMs) : `[${p.doubles.join(', ')}]::DOUBLE[]`;
    if (typeof p === 'string') return `'${p.replaceAll("'", "''")}'`;
    return Number.isSafeInteger(p) ? `${p}::BIGINT` : String(p);
  });
}

// ── flags and reporting ─────────────────────────────────────────────────────────────────────

function positiveInteger(values: ReadonlyMap<string, string>, name: string, fallback: number): number {
  const v = values.get(name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number above 0, got '${v}'`);
  return n;
}

/**
 * `npm run bench -- nrql [--rounds=N] [--warmup=N] [--cases=facet,uniques-day,uniques-30m,filter]
 * [--app=N] [--apps=N] [--hosts=N] [--hours=N] [--events=N] [--rebuild] [--explain]`.
 */
export async function nrqlBench(values: ReadonlyMap<string, string>): Promise<NrqlBenchResult> {
  const cases = values.get('cases')?.split(',').filter(Boolean) as CaseLabel[] | undefined;
  const unknown = cases?.filter((c) => !CASE_LABELS.includes(c)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown case ${unknown.join(', ')}; known: ${CASE_LABELS.join(', ')}`);
  const d = DEFAULT_NRQL_OPTIONS;
  const warmup = values.has('warmup') ? Number(values.get('warmup')) : d.warmup;
  if (!Number.isInteger(warmup) || warmup < 0) throw new Error(`--warmup must be a whole number, got '${values.get('warmup')}'`);
  const result = await runNrqlBench({
    rounds: positiveInteger(values, 'rounds', d.rounds),
    warmup,
    appId: positiveInteger(values, 'app', d.appId),
    shape: {
      apps: positiveInteger(values, 'apps', d.shape.apps),
      hostsPerApp: positiveInteger(values, 'hosts', d.shape.hostsPerApp),
      hours: positiveInteger(values, 'hours', d.shape.hours),
      events: positiveInteger(values, 'events', d.shape.events),
    },
    cases: cases ?? d.cases,
    rebuild: values.has('rebuild'),
    explain: values.has('explain'),
  });
  console.log(formatNrqlResult(result));
  return result;
}

const ms = (n: number | undefined) => (n === undefined ? '–' : n < 1 ? n.toFixed(3) : n < 10 ? n.toFixed(2) : n.toFixed(1));
const int = (n: number) => Math.round(n).toLocaleString('en-US');

function formatCaseLine(c: CaseResult): string {
  const n = c.timings.nrql!;
  const r = c.timings.raw!;
  const rest = Object.entries(c.timings).filter(([v]) => v !== 'nrql' && v !== 'raw').map(([v, t]) => `${v} ${ms(t.median)}`).join(', ');
  return `NRQL ${ms(n.median)} ms (p90 ${ms(n.p90)}) vs raw ${ms(r.median)} ms (p90 ${ms(r.p90)}): ratio ${c.ratio.toFixed(2)}, `
    + `target ≤ ${TARGET_RATIO} ${c.meetsTarget ? 'met' : 'MISSED'} (paired ${c.pairedRatio.toFixed(2)}, CPU ${c.cpuRatio.toFixed(2)}); ${rest}`;
}

export function formatNrqlResult(r: NrqlBenchResult): string {
  const s = r.store;
  const m = r.machine;
  const lines = [
    `NRQL (${r.date}): ${r.options.rounds} rounds after ${r.options.warmup} warm-up, variants interleaved, application ${r.options.appId}`,
    `  machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, DuckDB ${m.duckdb} (@duckdb/node-api ${m.duckdbNodeApi}), load ${m.loadAverage.join(' ')}; service memory limit ${r.memoryLimit}`,
    `  store: ${int(s.events)} Transaction events (${s.transactionNames} names), ${int(s.timeslices)} timeslices (${Object.entries(s.layout).map(([t, n]) => `${t} ${int(n)}`).join(', ')}), `
      + `${s.shape.apps} apps × ${s.shape.hostsPerApp} hosts × ${s.shape.hours} h, ${(s.fileBytes / 2 ** 30).toFixed(2)} GiB, ${s.dataDir}${s.buildSeconds === undefined ? '' : `, built in ${s.buildSeconds.toFixed(0)} s`}`,
    '',
  ];
  for (const c of r.cases) {
    lines.push(`  ${c.title}: ${int(c.inputRows)} rows in, ${int(c.resultRows)} rows from the engine's SQL, ${int(c.valuesChecked)} values checked`);
    lines.push(`    ${c.nrql}`);
    for (const [variant, t] of Object.entries(c.timings)) {
      const cpu = c.cpuTimings[variant]!;
      lines.push(`    ${variant.padEnd(42)} ${ms(t.median).padStart(8)} / ${ms(t.p90).padStart(8)}  (min ${ms(t.min)}, max ${ms(t.max)})  CPU ${ms(cpu.median).padStart(8)} / ${ms(cpu.p90).padStart(8)}`);
    }
    lines.push(`    ratio ${c.ratio.toFixed(2)}: ${c.meetsTarget ? 'met' : 'MISSED'} (target ≤ ${TARGET_RATIO}); paired ${c.pairedRatio.toFixed(2)}, CPU ${c.cpuRatio.toFixed(2)}`);
  }
  lines.push('  (ms, median / p90 of wall time, then of the process\'s CPU time)');
  return lines.join('\n');
}
