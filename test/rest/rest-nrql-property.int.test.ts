/**
 * Issue 3's property: for random timeslices, every value the REST metric-data path computes
 * equals what its NRQL function (spec §4.5) gives when evaluated independently over the same
 * summaries; and the `X-Timeslice-NRQL` header of each metric states those functions, for that
 * application (host, instance) and metric, over the window of the slices in the body.
 *
 * The data goes in through the real collector (HTTPS metric_data from connected runs, with
 * roll-up applications, several hosts and instances, repeated harvests of a minute and scoped
 * rows REST must ignore). The expectations come from `timeslice-oracle.ts` and the tables
 * below, hand-transcribed from the spec and the references; nothing is imported from the
 * project's value table or plan code.
 *
 * Reproduce a run: TIMESLICE_PROPERTY_SEED=<seed> (and TIMESLICE_PROPERTY_CASES=<n>).
 */
import { APDEX_VALUE_FUNCTIONS, SPEC_VALUE_FUNCTIONS } from '../helpers/spec-value-functions.js';
import { seededRandom } from '../helpers/seeded-random.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectAgent } from '../helpers/collector-client.js';
import { ManualClock, rest, sendMetrics, startTestServer, type MetricRow } from '../helpers/rest-fixture.js';
import { sample } from '../helpers/samples.js';
import { TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';
import { evaluateFunction, type Point } from './timeslice-oracle.js';
import { clickhouseMissing, startClickHouse, type ClickHouseServer } from '../helpers/clickhouse.js';

const SEED = Number(process.env.TIMESLICE_PROPERTY_SEED ?? 20_240_305);
const CASES = Number(process.env.TIMESLICE_PROPERTY_CASES ?? 600);
const REL = 1e-9;
const NRQL_V = 'newrelic.timeslice.value';

// ── The value tables, hand-transcribed ─────────────────────────────────────────────────────

/** service-interface.md §4.5 (V = the timeslice value). */
const SPEC_FUNCTIONS = SPEC_VALUE_FUNCTIONS;

/**
 * Values §4.5 does not list, written as NRQL from the references: nrql.md §5.2/§5.3 and
 * rest-v2.md §5.1–§5.2 (Apdex slots s = count, t = total, f = totalExclusive, threshold = max,
 * threshold_min = min; `value` = score; times in ms; utilization = 100·T/W; percent = 100·T/C,
 * but 100·T/W for `CPU/User Time`). For these the header's function is checked by evaluating it.
 */
const REFERENCE_FUNCTIONS: Readonly<Record<string, string>> = {
  ...APDEX_VALUE_FUNCTIONS,
  average_call_time: 'average(V) * 1000',
  value: 'apdex(V)',
  min_call_time: 'min(V) * 1000',
  max_call_time: 'max(V) * 1000',
  total_call_time: 'sum(V) * 1000',
  average_time: 'average(V) * 1000',
  total_time: 'sum(V) * 1000',
  max_value: 'max(V)',
  utilization: 'rate(sum(V), 1 second) * 100',
  percent: 'average(V) * 100',
  used_mb_by_host: 'average(V)',
  used_bytes_by_host: 'average(V) * 1048576',
  total_used_mb: 'sum(V)',
};

const GENERIC = [
  'average_response_time', 'calls_per_minute', 'call_count', 'min_response_time', 'max_response_time',
  'average_exclusive_time', 'average_value', 'total_call_time_per_minute', 'requests_per_minute', 'standard_deviation',
];

/** rest-v2.md §3.1: the values each metric offers; `optional` where the reference says "at least". */
interface Family {
  readonly values: readonly string[];
  readonly optional?: readonly string[];
  readonly functions?: Readonly<Record<string, string>>;
}

function familyOf(name: string): Family {
  if (name === 'Apdex' || name.startsWith('Apdex/')) return { values: ['s', 't', 'f', 'count', 'score', 'value', 'threshold', 'threshold_min'] };
  if (name.startsWith('Errors/')) return { values: ['errors_per_minute', 'error_count'] };
  if (name === 'HttpDispatcher') return { values: [...GENERIC, 'average_call_time'] };
  if (name === 'WebTransaction') {
    return { values: ['average_call_time', 'average_response_time', 'requests_per_minute', 'call_count', 'min_call_time', 'max_call_time', 'total_call_time', 'throughput', 'standard_deviation'] };
  }
  if (name.startsWith('GC/')) return { values: ['as_percentage', 'average_time', 'calls_per_minute', 'max_value', 'total_call_time_per_minute', 'utilization'] };
  if (name === 'CPU/User Time') {
    return { values: ['percent', 'average_time', 'total_time'], optional: ['utilization'], functions: { percent: 'rate(sum(V), 1 second) * 100' } };
  }
  if (name.startsWith('Memory/')) return { values: ['used_mb_by_host', 'used_bytes_by_host', 'total_used_mb'] };
  return { values: GENERIC };
}

/** The function of a value for a metric, and whether the spec's table gives its text. */
function functionOf(metric: string, value: string): { text: string; fromSpec: boolean } {
  const own = familyOf(metric).functions?.[value];
  if (own) return { text: own, fromSpec: false };
  const spec = SPEC_FUNCTIONS[value];
  if (spec) return { text: spec, fromSpec: true };
  const ref = REFERENCE_FUNCTIONS[value];
  if (!ref) throw new Error(`no function transcribed for ${metric}:${value}`);
  return { text: ref, fromSpec: false };
}

const ALL_VALUE_NAMES = [...new Set([...Object.keys(SPEC_FUNCTIONS), ...Object.keys(REFERENCE_FUNCTIONS)])];

// ── Random numbers ─────────────────────────────────────────────────────────────────────────


class Rand {
  readonly next: () => number;
  constructor(seed: number) { this.next = seededRandom(seed); }
  int(lo: number, hi: number): number { return lo + Math.floor(this.next() * (hi - lo + 1)); }
  chance(p: number): boolean { return this.next() < p; }
  pick<T>(xs: readonly T[]): T { return xs[Math.floor(this.next() * xs.length)]!; }
  real(lo: number, hi: number): number { return lo + this.next() * (hi - lo); }
  subset<T>(xs: readonly T[], min: number, max: number): T[] {
    const pool = [...xs];
    const n = Math.min(pool.length, this.int(min, max));
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0]!);
    return out;
  }
}

// ── The data ───────────────────────────────────────────────────────────────────────────────

const MINUTE = 60_000;
/** 2024-03-05T14:00:00Z. */
const T0 = Date.UTC(2024, 2, 5, 14, 0, 0);
const FIRST_MINUTE = T0 - 5 * MINUTE;
const END_MINUTE = T0 + 45 * MINUTE;
const NOW = T0 + 50 * MINUTE + 17_000;

const SCOPES = ['WebTransaction/Expressjs/GET//users', 'OtherTransaction/Nodejs/job'];
const SCOPED_ONLY = 'Datastore/statement/MySQL/users/select';
const NEVER = 'Nope/NeverReported';
const METRICS = [
  'HttpDispatcher', 'WebFrontend/QueueTime', 'Apdex', 'Errors/all', 'Datastore/all', 'GC/Scavenge', 'CPU/User Time',
  'WebTransaction', 'Memory/Physical', "Custom/O'Brien/latency",
];

interface RunSpec {
  readonly appNames: readonly string[];
  readonly host: string;
  readonly pid: number;
  readonly metrics: readonly string[];
  readonly harvestChance: number;
}

const COMMON = ['HttpDispatcher', 'Apdex', 'Errors/all', 'Datastore/all', 'CPU/User Time', 'WebTransaction'];
const RUNS: readonly RunSpec[] = [
  { appNames: ['prop-alpha'], host: 'web-1', pid: 101, metrics: [...COMMON, 'WebFrontend/QueueTime', 'GC/Scavenge', 'Memory/Physical'], harvestChance: 0.75 },
  { appNames: ['prop-alpha'], host: 'web-1', pid: 102, metrics: [...COMMON, "Custom/O'Brien/latency", 'Memory/Physical'], harvestChance: 0.6 },
  { appNames: ['prop-alpha', 'prop-rollup'], host: 'web-2', pid: 103, metrics: [...COMMON, 'GC/Scavenge'], harvestChance: 0.7 },
  { appNames: ['prop-beta'], host: 'web-1', pid: 201, metrics: [...COMMON, 'Memory/Physical'], harvestChance: 0.7 },
  { appNames: ['prop-beta', 'prop-rollup'], host: 'db-7', pid: 202, metrics: [...COMMON, 'GC/Scavenge', 'WebFrontend/QueueTime'], harvestChance: 0.65 },
  { appNames: ['prop-gamma'], host: 'solo', pid: 301, metrics: ['Errors/all', 'HttpDispatcher'], harvestChance: 0.25 },
];

/** One stored row as the test believes it was filed. */
interface StoredRow {
  readonly appId: number;
  readonly hostId: number;
  readonly instanceId: number;
  readonly name: string;
  readonly scoped: boolean;
  readonly minute: number;
  readonly point: Point;
}

function timing(r: Rand, scale: number): Point {
  const roll = r.next();
  if (roll < 0.1) {
    // No calls; now and then a (malformed but accepted) total anyway.
    const total = r.chance(0.3) ? r.real(0, scale) : 0;
    return { count: 0, total, totalExclusive: total * r.next(), min: 0, max: total, sumOfSquares: 0 };
  }
  const count = roll < 0.3 ? Math.round(r.real(0.01, 40) * 1000) / 1000 : r.int(1, 500);
  const mean = r.chance(0.1) ? 0 : r.real(0.0005, scale);
  const total = count * mean;
  const min = mean * r.next();
  const max = mean * (1 + 5 * r.next());
  return { count, total, totalExclusive: total * r.next(), min, max, sumOfSquares: count * mean * mean * (1 + r.real(0.01, 3)) };
}

function statsFor(r: Rand, name: string, apdexT: number): Point {
  switch (name) {
    case 'Apdex': {
      const zero = r.chance(0.1);
      return { count: zero ? 0 : r.int(0, 200), total: zero ? 0 : r.int(0, 40), totalExclusive: zero ? 0 : r.int(0, 20), min: apdexT, max: apdexT, sumOfSquares: 0 };
    }
    case 'Errors/all':
      return { count: r.int(0, 20), total: 0, totalExclusive: 0, min: 0, max: 0, sumOfSquares: 0 };
    case 'CPU/User Time': {
      const cpu = r.real(0, 30);
      return r.chance(0.8)
        ? { count: 1, total: cpu, totalExclusive: cpu, min: cpu, max: cpu, sumOfSquares: cpu * cpu }
        : timing(r, 2);
    }
    case 'Memory/Physical': {
      const mb = r.real(50, 500);
      return { count: 1, total: mb, totalExclusive: mb, min: mb, max: mb, sumOfSquares: mb * mb };
    }
    case 'WebFrontend/QueueTime': {
      const p = timing(r, 0.05);
      return r.chance(0.3) ? { ...p, total: 0, totalExclusive: 0, min: 0, max: 0, sumOfSquares: 0 } : p;
    }
    case 'GC/Scavenge':
      return timing(r, 0.01);
    default:
      return timing(r, 2);
  }
}

const six = (p: Point) => [p.count, p.total, p.totalExclusive, p.min, p.max, p.sumOfSquares] as const;

// ── Requests and expectations ──────────────────────────────────────────────────────────────

interface Scope {
  readonly kind: 'app' | 'host' | 'instance';
  readonly appId: number;
  readonly hostId?: number;
  readonly hostName?: string;
  readonly instanceId?: number;
}

interface Slice { readonly begin: number; readonly end: number }

function restTime(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}+00:00`;
}

/** An ISO 8601 time with the given UTC offset in minutes, e.g. `2024-03-05T16:00:00+02:00`. */
function isoWithOffset(ms: number, offsetMinutes: number): string {
  const local = new Date(ms + offsetMinutes * MINUTE).toISOString().slice(0, 19);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const a = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/** An NRQL string literal (nrql.md §1: single quotes, `\'` inside; backslash escaped too). */
function nrqlString(s: string): string {
  return `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

const floorMinute = (ms: number) => Math.floor(ms / MINUTE) * MINUTE;

function durationSeconds(text: string): number {
  const m = /^(\d+) (second|minute|hour|day)s?$/.exec(text);
  if (!m) return NaN;
  return Number(m[1]) * ({ second: 1, minute: 60, hour: 3600, day: 86_400 } as Record<string, number>)[m[2]!]!;
}

/** Splits on commas outside parentheses and quotes. */
function splitTopLevel(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === "'") quoted = false;
      continue;
    }
    if (c === "'") quoted = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && text.startsWith(sep, i)) {
      parts.push(text.slice(start, i));
      start = i + sep.length;
      i += sep.length - 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim());
}

interface Problem {
  readonly kind: string;
  readonly caseNo: number;
  readonly url: string;
  readonly detail: Record<string, unknown>;
}

/** Equal within REL; `null` (NRQL) must print as exactly 0 (REST). Standard deviations are compared squared. */
function agrees(actual: unknown, expected: number | null, points: readonly Point[], value: string): boolean {
  if (typeof actual !== 'number') return false;
  if (expected === null) return actual === 0;
  if (actual === expected) return true;
  if (Math.abs(actual - expected) <= REL * Math.max(Math.abs(actual), Math.abs(expected))) return true;
  if (value === 'standard_deviation') {
    // √ near a cancelled difference: compare the variances against the size of their terms.
    const c = points.reduce((s, p) => s + p.count, 0);
    const t = points.reduce((s, p) => s + p.total, 0);
    const ss = points.reduce((s, p) => s + p.sumOfSquares, 0);
    const scale = 1e6 * (Math.abs(ss / c) + (t / c) ** 2);
    return Math.abs(actual * actual - expected * expected) <= REL * scale;
  }
  return false;
}

// ── The test ───────────────────────────────────────────────────────────────────────────────

// The property holds on every engine: the embedded DuckDB store, and ClickHouse (a server of its own, when installed).
for (const engine of ['duckdb', 'clickhouse'] as const) {
describe(`REST metric data = spec §4.5 NRQL functions over random timeslices (seed ${SEED}, ${engine})`, { skip: engine === 'clickhouse' && clickhouseMissing() }, () => {
  let ts: TestServer;
  let clickhouse: ClickHouseServer | undefined;
  const clock = new ManualClock(NOW);
  const rows: StoredRow[] = [];
  const scopes: Scope[] = [];
  let harvests = 0;

  before(async () => {
    if (engine === 'clickhouse') clickhouse = await startClickHouse();
    ts = await startTestServer(clickhouse ? { TIMESLICE_STORE: `clickhouse://127.0.0.1:${clickhouse.httpPort}/property` } : {}, { clock });
    assert.equal(ts.server.store.engine, engine);
    const appIds = new Map<string, number>();
    await Promise.all(RUNS.map(async (spec, runIndex) => {
      const body = structuredClone(sample('connect-request').body) as [Record<string, unknown>];
      body[0] = { ...body[0], app_name: [...spec.appNames], host: spec.host, display_host: spec.host, pid: spec.pid };
      const { runId } = await connectAgent(ts.server, TEST_LICENSE_KEY, body);
      const run = ts.server.catalog.run(runId);
      assert.ok(run, `run ${runId} is known`);
      run.targets.forEach((t, i) => appIds.set(spec.appNames[i]!, t.appId));
      const rr = new Rand(SEED * 31 + runIndex);
      const apdexTs = [0.1, 0.5, 0.5, 1, 2];
      for (let minute = FIRST_MINUTE; minute < END_MINUTE; minute += MINUTE) {
        if (!rr.chance(spec.harvestChance)) continue;
        const times = rr.chance(0.2) ? 2 : 1;
        for (let h = 0; h < times; h++) {
          // The harvest is filed under the minute holding the middle of [begin, end).
          const middle = minute + rr.int(1, MINUTE - 2);
          const half = rr.chance(0.2) ? rr.int(1, 90_000) : rr.int(25_000, 35_000);
          const begin = middle - half;
          const end = middle + half;
          const apdexT = rr.pick(apdexTs);
          const payload: MetricRow[] = [];
          for (const name of spec.metrics) {
            if (!rr.chance(0.85)) continue;
            const point = statsFor(rr, name, apdexT);
            payload.push([name, '', six(point)]);
            for (const t of run.targets) rows.push({ ...t, name, scoped: false, minute, point });
            if (rr.chance(0.3)) {
              // The same name scoped to a transaction: stored, but not part of REST's answer.
              const scopedPoint = statsFor(rr, name, apdexT);
              payload.push([name, rr.pick(SCOPES), six(scopedPoint)]);
              for (const t of run.targets) rows.push({ ...t, name, scoped: true, minute, point: scopedPoint });
            }
          }
          if (rr.chance(0.4)) {
            const point = statsFor(rr, SCOPED_ONLY, apdexT);
            payload.push([SCOPED_ONLY, rr.pick(SCOPES), six(point)]);
            for (const t of run.targets) rows.push({ ...t, name: SCOPED_ONLY, scoped: true, minute, point });
          }
          if (payload.length === 0) continue;
          // Shuffle, so names arrive in no fixed order.
          payload.sort(() => rr.next() - 0.5);
          await sendMetrics(ts, runId, begin, end, payload);
          harvests++;
        }
      }
    }));
    for (const appId of new Set(appIds.values())) {
      scopes.push({ kind: 'app', appId });
      for (const host of ts.server.catalog.hostsOf(appId)) scopes.push({ kind: 'host', appId, hostId: host.id, hostName: host.name });
      for (const instance of ts.server.catalog.instancesOf(appId)) scopes.push({ kind: 'instance', appId, instanceId: instance.id });
    }
  });

  after(async () => {
    await ts?.stop();
    await clickhouse?.stop();
  });

  it('the oracle agrees with the references\' worked numbers', () => {
    // rest-v2 §5.4: 170 S, 20 T, 10 F → 0.90.
    const apdex: Point = { count: 170, total: 20, totalExclusive: 10, min: 0.5, max: 0.5, sumOfSquares: 0 };
    assert.equal(evaluateFunction('apdex(V)', 'V', [apdex], 60), 0.9);
    // rest-v2 §5.2: C = 99 770, T ≈ 36 316 s in a minute → 364 ms, 0.364, 99 770/min, 36 316 s/min.
    const web: Point = { count: 99_770, total: 36_316, totalExclusive: 0, min: 0.0021, max: 4.31, sumOfSquares: 0 };
    assert.equal(Math.round(evaluateFunction(SPEC_FUNCTIONS.average_response_time!, 'V', [web], 60)!), 364);
    assert.equal(evaluateFunction(SPEC_FUNCTIONS.calls_per_minute!, 'V', [web], 60), 99_770);
    assert.equal(evaluateFunction(SPEC_FUNCTIONS.throughput!, 'V', [web], 60), 99_770 / 60);
    // Per-point ratios, a point without calls contributing nothing; empty input is null.
    const pts: Point[] = [
      { ...web, count: 2, totalExclusive: 1 },
      { ...web, count: 4, totalExclusive: 1 },
      { ...web, count: 0, totalExclusive: 5 },
    ];
    assert.equal(evaluateFunction(SPEC_FUNCTIONS.average_exclusive_time!, 'V', pts, 60), 375);
    assert.equal(evaluateFunction(SPEC_FUNCTIONS.average_value!, 'V', [], 60), null);
    assert.equal(evaluateFunction(SPEC_FUNCTIONS.call_count!, 'V', [], 60), 0);
  });

  it(`${CASES} random requests: values, zero-fill, slices and X-Timeslice-NRQL`, async () => {
    const started = Date.now();
    const r = new Rand(SEED ^ 0x5eed);
    const problems: Problem[] = [];
    const counters = { long: 0, requests: 0, values: 0, nullAsZero: 0, headerLines: 0, notFound: 0, summarize: 0, coarse: 0, nrqlQueries: 0, nrqlValues: 0 };
    const appNamePool = [...METRICS, SCOPED_ONLY, NEVER];

    for (let caseNo = 0; caseNo < CASES; caseNo++) {
      if (caseNo > 0 && caseNo % 800 === 0) clock.ms += MINUTE; // stay under the per-key minute limit
      const now = clock.ms;
      const scope = r.pick(scopes);
      const names = r.subset(appNamePool, 1, 3);
      const valuesGiven = r.chance(0.75);
      const requested = valuesGiven
        ? r.subset([...new Set([...names.flatMap((n) => familyOf(n).values), ...r.subset(ALL_VALUE_NAMES, 0, 2)])], 1, 6)
        : [];
      if (valuesGiven && r.chance(0.1)) requested.push(requested[0]!); // a repeated value name
      const summarize = r.chance(0.4);

      // The request window.
      const query = new URLSearchParams();
      for (const n of names) query.append('names[]', n);
      for (const v of requested) query.append('values[]', v);
      let fromMs: number;
      let toMs: number;
      const shape = r.next();
      if (shape < 0.08) {
        toMs = now;
        fromMs = now - 30 * MINUTE;
      } else if (shape < 0.12) {
        toMs = Math.floor(r.int(T0, now) / 1000) * 1000;
        fromMs = toMs - 30 * MINUTE;
        query.set('to', isoWithOffset(toMs, 0));
      } else {
        // Mostly within the data; now and then over 3 hours, where the default period is 2 minutes.
        const long = r.chance(0.06);
        fromMs = long
          ? Math.floor(r.int(now - 6 * 60 * MINUTE, now - 181 * MINUTE) / 1000) * 1000
          : Math.floor(r.int(T0 - 10 * MINUTE, now - 61_000) / 1000) * 1000;
        const length = long ? now + r.int(0, 600_000) - fromMs : r.chance(0.1) ? 60_000 : r.int(61, 70 * 60) * 1000;
        const givenTo = fromMs + length;
        toMs = Math.min(givenTo, now);
        const offset = r.pick([0, 0, 0, 120, -300, 330]);
        query.set('from', isoWithOffset(fromMs, offset));
        query.set('to', isoWithOffset(givenTo, offset));
      }
      // rest-v2 §4.4: 60 s up to 3 h, 120 s up to 6 h; a given period may only coarsen it.
      let period = toMs - fromMs <= 3 * 60 * MINUTE ? 60 : 120;
      if (!summarize && r.chance(0.45)) {
        period = r.pick([60, 120, 180, 300, 600, 900, 3600].filter((p) => p >= period));
        query.set('period', String(period));
      }
      if (summarize) query.set('summarize', 'true');
      query.set('raw', 'true');

      // The slices the reference lays out for it (rest-v2 §4.2–§4.5; series laid back from the end).
      const firstMinute = floorMinute(fromMs);
      const endMinute = floorMinute(toMs);
      let slices: Slice[];
      if (summarize) slices = [{ begin: firstMinute, end: endMinute }];
      else {
        const n = Math.ceil((endMinute - firstMinute) / (period * 1000));
        const begin = endMinute - n * period * 1000;
        slices = Array.from({ length: n }, (_, k) => ({ begin: begin + k * period * 1000, end: begin + (k + 1) * period * 1000 }));
      }
      if (toMs - fromMs > 3 * 60 * MINUTE) counters.long++;
      if (summarize) counters.summarize++;
      else if (period > 60) counters.coarse++;

      const base = scope.kind === 'app' ? `/v2/applications/${scope.appId}`
        : scope.kind === 'host' ? `/v2/applications/${scope.appId}/hosts/${scope.hostId}`
        : `/v2/applications/${scope.appId}/instances/${scope.instanceId}`;
      const url = `${base}/metrics/data.json?${query.toString()}`;
      const reply = await rest(ts, 'GET', url);
      counters.requests++;
      const report = (kind: string, detail: Record<string, unknown>) => problems.push({ kind, caseNo, url, detail });
      if (reply.status !== 200) {
        report('status', { status: reply.status, body: reply.text });
        continue;
      }
      const body = reply.json().metric_data as {
        from: string; to: string; metrics_found: string[]; metrics_not_found: string[];
        metrics: { name: string; timeslices: { from: string; to: string; values: Record<string, number> }[] }[];
      };

      const inScope = (row: StoredRow) => row.appId === scope.appId
        && (scope.hostId === undefined || row.hostId === scope.hostId)
        && (scope.instanceId === undefined || row.instanceId === scope.instanceId);
      const known = (name: string) => rows.some((row) => !row.scoped && row.name === name && inScope(row));
      const found = names.filter(known);
      const notFound = names.filter((n) => !known(n));
      counters.notFound += notFound.length;
      if (JSON.stringify(body.metrics_found) !== JSON.stringify(found) || JSON.stringify(body.metrics_not_found) !== JSON.stringify(notFound)) {
        report('found', { expectedFound: found, actualFound: body.metrics_found, expectedNotFound: notFound, actualNotFound: body.metrics_not_found });
        continue;
      }
      if (body.from !== restTime(fromMs) || body.to !== restTime(toMs)) {
        report('window echo', { expected: [restTime(fromMs), restTime(toMs)], actual: [body.from, body.to] });
      }

      // The NRQL header lines, by metric name.
      const rawHeader = reply.headers['x-timeslice-nrql'];
      const lines = rawHeader === undefined ? [] : Array.isArray(rawHeader) ? rawHeader : [String(rawHeader)];
      if (reply.headers['x-timeslice-nrql-omitted'] !== undefined || reply.headers['x-timeslice-nrql-encoding'] !== undefined) {
        report('header encoding', { omitted: reply.headers['x-timeslice-nrql-omitted'], encoding: reply.headers['x-timeslice-nrql-encoding'] });
      }
      let linesUsed = 0;

      for (const [mi, name] of found.entries()) {
        const metric = body.metrics[mi];
        if (!metric || metric.name !== name) {
          report('metric order', { expected: name, actual: metric?.name });
          continue;
        }
        const family = familyOf(name);
        const offered = new Set([...family.values, ...(family.optional ?? [])]);
        const wanted = valuesGiven ? [...new Set(requested)] : family.values;
        const mustHave = wanted.filter((v) => family.values.includes(v));
        const mayHave = new Set(valuesGiven ? wanted.filter((v) => offered.has(v)) : [...offered]);

        const expectedSlices = slices.map((s) => [restTime(s.begin), restTime(summarize ? s.end - 1000 : s.end)]);
        const actualSlices = metric.timeslices.map((s) => [s.from, s.to]);
        if (JSON.stringify(expectedSlices) !== JSON.stringify(actualSlices)) {
          report('slices', { metric: name, expected: expectedSlices, actual: actualSlices });
          continue;
        }

        // The header line for this metric.
        const line = lines.find((l) => l.includes(`metricTimesliceName = ${nrqlString(name)}`));
        const parsed = line === undefined ? undefined : /^SELECT (.+?) FROM Metric WHERE (.+) SINCE (\d+) UNTIL (\d+)(?: TIMESERIES (.+))?$/.exec(line);
        const selectItems = new Map<string, string>();
        const presentKeys = Object.keys(metric.timeslices[0]?.values ?? {});
        if (presentKeys.length > 0) {
          linesUsed++;
          counters.headerLines++;
          if (!parsed) {
            report('header missing or unparsed', { metric: name, line, lines });
          } else {
            for (const item of splitTopLevel(parsed[1]!, ',')) {
              const m = /^(.+) AS (\w+)$/.exec(item);
              if (!m) report('header select item', { metric: name, item });
              else selectItems.set(m[2]!, m[1]!);
            }
            const where = splitTopLevel(parsed[2]!, ' AND ');
            const needs = [`metricTimesliceName = ${nrqlString(name)}`, 'scope IS NULL'];
            if (!where.includes(`appId = ${scope.appId}`) && !where.includes(`appId = '${scope.appId}'`)) report('header where', { metric: name, missing: `appId = ${scope.appId}`, where });
            if (scope.kind === 'host') needs.push(`host = ${nrqlString(scope.hostName!)}`);
            for (const clause of needs) if (!where.includes(clause)) report('header where', { metric: name, missing: clause, where });
            if (scope.kind === 'instance' && !where.some((c) => new RegExp(`^(?!appId )[\\w.]+ = '?${scope.instanceId}'?$`).test(c))) {
              report('header where', { metric: name, missing: `a clause naming instance ${scope.instanceId}`, where });
            }
            if (Number(parsed[3]) !== slices[0]!.begin || Number(parsed[4]) !== slices.at(-1)!.end) {
              report('header window', { metric: name, expected: [slices[0]!.begin, slices.at(-1)!.end], actual: [parsed[3], parsed[4]] });
            }
            const timeseries = parsed[5];
            if (summarize ? timeseries !== undefined : durationSeconds(timeseries ?? '') !== period) {
              report('header timeseries', { metric: name, summarize, period, actual: timeseries });
            }
            if (JSON.stringify([...selectItems.keys()].sort()) !== JSON.stringify([...presentKeys].sort())) {
              report('header values', { metric: name, header: [...selectItems.keys()], body: presentKeys });
            }
            for (const [value, fn] of selectItems) {
              const expected = functionOf(name, value);
              if (expected.fromSpec && fn !== expected.text.replaceAll('V', NRQL_V)) {
                report('header function', { metric: name, value, expected: expected.text.replaceAll('V', NRQL_V), actual: fn });
              }
            }
          }
        } else if (line !== undefined) {
          report('header for a metric without values', { metric: name, line });
        }

        // The header's query, run by the NRQL engine over the same store, gives the same numbers.
        let nrqlRows: Record<string, unknown>[] | undefined;
        if (line !== undefined && parsed && selectItems.size > 0) {
          const res = await ts.server.api.inject({ method: 'POST', url: '/timeslice/v1/nrql', headers: { 'api-key': TEST_API_KEY }, payload: { query: line } });
          if (res.statusCode !== 200) report('header query refused', { metric: name, line, status: res.statusCode, body: res.body });
          else {
            nrqlRows = (JSON.parse(res.body) as { results: Record<string, unknown>[] }).results;
            counters.nrqlQueries++;
            if (nrqlRows.length !== slices.length) report('header query rows', { metric: name, line, expected: slices.length, actual: nrqlRows.length });
          }
        }

        const metricRows = rows.filter((row) => !row.scoped && row.name === name && inScope(row));
        for (const [k, slice] of slices.entries()) {
          const values = metric.timeslices[k]!.values;
          const nrqlRow = nrqlRows?.[k];
          if (nrqlRow && !summarize && nrqlRow.beginTimeSeconds !== slice.begin / 1000) {
            report('header query bucket', { metric: name, line, expected: slice.begin / 1000, actual: nrqlRow.beginTimeSeconds });
          }
          const keys = Object.keys(values);
          const missing = mustHave.filter((v) => !(v in values));
          const extra = keys.filter((v) => !mayHave.has(v));
          if (missing.length > 0 || extra.length > 0) {
            report('value names', { metric: name, requested: valuesGiven ? requested : '(all)', missing, extra });
          }
          const points = metricRows.filter((row) => row.minute >= slice.begin && row.minute < slice.end).map((row) => row.point);
          const seconds = (slice.end - slice.begin) / 1000;
          for (const value of keys) {
            if (!mayHave.has(value)) continue;
            counters.values++;
            const fn = functionOf(name, value);
            const expected = evaluateFunction(fn.text, 'V', points, seconds);
            if (expected === null) counters.nullAsZero++;
            const actual = values[value];
            if (!agrees(actual, expected, points, value)) {
              report('value', { metric: name, value, function: fn.text, slice: [restTime(slice.begin), restTime(slice.end)], seconds, expected, actual, points });
            }
            if (nrqlRow && value in nrqlRow) {
              const raw = nrqlRow[value];
              // apdex() answers {score, s, t, f, count}; REST prints 0 where NRQL has null.
              const viaEngine = raw !== null && typeof raw === 'object' ? (raw as { score: number | null }).score : (raw as number | null);
              counters.nrqlValues++;
              if (!agrees(actual, viaEngine ?? 0, points, value)) {
                report('header query value', { metric: name, value, line, slice: [restTime(slice.begin), restTime(slice.end)], viaEngine, actual });
              }
            }
            // The header's own function, evaluated independently, gives the same number.
            const headerFn = selectItems.get(value);
            if (headerFn !== undefined && !fn.fromSpec) {
              let viaHeader: number | null | undefined;
              try {
                viaHeader = evaluateFunction(headerFn, NRQL_V, points, seconds);
              } catch (error) {
                report('header function unparsed', { metric: name, value, headerFn, error: String(error) });
              }
              if (viaHeader !== undefined && !agrees(actual, viaHeader, points, value)) {
                report('header function meaning', { metric: name, value, headerFn, slice: [restTime(slice.begin), restTime(slice.end)], viaHeader, actual });
              }
            }
          }
        }
      }
      if (linesUsed !== lines.length) report('header lines', { expected: linesUsed, actual: lines.length, lines });
    }

    const elapsed = Date.now() - started;
    const summary = `seed ${SEED}: ${harvests} harvests, ${rows.length} stored rows; ${counters.requests} requests `
      + `(${counters.summarize} summarized, ${counters.coarse} coarse series, ${counters.long} over 3 h), ${counters.values} values checked `
      + `(${counters.nullAsZero} null→0), ${counters.headerLines} NRQL header lines (${counters.nrqlQueries} run by the NRQL engine, `
      + `${counters.nrqlValues} values compared with REST's), ${counters.notFound} names not found; ${elapsed} ms`;
    console.log(summary);
    if (problems.length > 0) {
      const byKind = new Map<string, number>();
      for (const p of problems) {
        const key = 'value' in p.detail ? `${p.kind}:${String(p.detail.metric)}:${String(p.detail.value)}` : p.kind;
        byKind.set(key, (byKind.get(key) ?? 0) + 1);
      }
      const shown = problems.slice(0, 8).map((p) => JSON.stringify(p, null, 1)).join('\n');
      assert.fail(`${problems.length} disagreements (reproduce with TIMESLICE_PROPERTY_SEED=${SEED}); ${summary}\n`
        + `by kind: ${JSON.stringify(Object.fromEntries(byKind))}\nfirst:\n${shown}`);
    }
    assert.ok(counters.values > CASES, `${summary}: too few values were checked`);
    assert.ok(counters.nrqlValues > CASES, `${summary}: too few values were checked through the NRQL engine`);
  });
});
}
