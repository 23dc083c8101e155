import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../../../test/helpers/seeded-random.js';
import type { AggregatePlan, Buckets, TimeWindow } from '../../plan/aggregate-plan.js';
import { eq, field } from '../../plan/expressions.js';
import { DEFAULT_RETENTION, DEFAULT_UPKEEP, type UpkeepOptions } from '../store.js';
import { DuckDbPlanExecutor } from './duckdb-plan-executor.js';
import { DuckDbStore } from './duckdb-store.js';
import { TIMESLICE_TABLES } from './timeslice-compactor.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const H0 = Date.parse('2026-11-20T00:00:00Z');

class Clock {
  constructor(public ms: number) {}
  now(): number { return this.ms; }
}

const dirs: string[] = [];
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

async function openStore(clock: Clock, upkeep: Partial<UpkeepOptions> = {}, dir?: string): Promise<{ store: DuckDbStore; dir: string }> {
  const d = dir ?? await mkdtemp(join(tmpdir(), 'timeslice-upkeep-'));
  if (!dir) dirs.push(d);
  const store = await DuckDbStore.open({
    dataDir: d, memoryLimit: '256MB', clock, expireEveryMs: 0,
    compaction: { intervalMs: 0, minAgeMs: 2 * HOUR },
    upkeep: { ...DEFAULT_UPKEEP, intervalMs: 0, ...upkeep },
  });
  return { store, dir: d };
}

/** A stored timeslice: identity, minute, the six numbers. */
interface Row {
  app: number; host: number; metric: number; scope: number; ts: number;
  v: [count: number, total: number, exclusive: number, min: number, max: number, sumsq: number];
}

const APDEX_METRIC = 4;

/**
 * Random timeslices over `hours` hours from H0: two apps, two hosts, four metrics (the fourth an
 * Apdex metric: S, T, F with min = max = apdex_t), scoped and unscoped, about a third of the
 * minutes empty, sometimes two harvests of one minute. Numbers are multiples of 1/8 so that sums
 * are exact in any order.
 */
function randomRows(seed: number, hours: number): Row[] {
  const random = seededRandom(seed);
  const eighths = (max: number) => Math.floor(random() * max * 8) / 8;
  const rows: Row[] = [];
  for (let m = 0; m < hours * 60; m++) {
    if (random() < 0.35) continue;
    for (const app of [1, 2]) for (const host of [1, 2]) for (let metric = 1; metric <= 4; metric++) {
      if (random() < 0.3) continue;
      const harvests = random() < 0.15 ? 2 : 1;
      for (let h = 0; h < harvests; h++) {
        const scope = random() < 0.3 ? 9 : 0;
        const ts = H0 + m * MINUTE;
        if (metric === APDEX_METRIC) {
          rows.push({ app, host, metric, scope, ts, v: [Math.floor(random() * 5), Math.floor(random() * 3), Math.floor(random() * 2), 0.5, 0.5, 0] });
        } else {
          const a = eighths(4);
          const b = eighths(4);
          rows.push({ app, host, metric, scope, ts, v: [1 + Math.floor(random() * 9), eighths(40), eighths(20), Math.min(a, b), Math.max(a, b), eighths(100)] });
        }
      }
    }
  }
  return rows;
}

async function insert(store: DuckDbStore, rows: readonly Row[], seed: number): Promise<void> {
  // Spread over the three 1-minute tables, as compaction leaves them.
  const random = seededRandom(seed);
  const byTable = new Map<string, string[]>();
  for (const r of rows) {
    const table = TIMESLICE_TABLES[Math.floor(random() * 3)]!;
    const list = byTable.get(table) ?? [];
    list.push(`(1, ${r.app}, ${r.host}, ${r.host}, ${r.metric}, ${r.scope}, epoch_ms(${r.ts}), ${r.v.join(', ')})`);
    byTable.set(table, list);
  }
  for (const [table, values] of byTable) {
    for (let i = 0; i < values.length; i += 5000) await store.db.all(`INSERT INTO ${table} VALUES ${values.slice(i, i + 5000).join(', ')}`);
  }
}

const AGGREGATES = [
  { fn: 'sum', arg: field('count') }, { fn: 'sum', arg: field('total') }, { fn: 'sum', arg: field('totalExclusive') },
  { fn: 'sum', arg: field('sumOfSquares') }, { fn: 'min', arg: field('min') }, { fn: 'max', arg: field('max') },
] as const;

function plan(window: TimeWindow, buckets?: Buckets, app = 1): AggregatePlan {
  return {
    kind: 'aggregate', source: { kind: 'timeslices' }, accountId: 1, window, where: eq('appId', app),
    groupBy: [field('metricId'), field('scopeId')], ...(buckets ? { buckets } : {}), aggregates: AGGREGATES, outputs: [],
  };
}

/** The summary algebra over `rows`, per (metric, scope[, bucket]), written out independently of SQL. */
function expected(rows: readonly Row[], p: AggregatePlan): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const r of rows) {
    if (r.app !== 1 || r.ts < p.window.beginMs || r.ts >= p.window.endMs) continue;
    const bucket = p.buckets ? Math.floor((r.ts - p.buckets.beginMs) / p.buckets.widthMs) : -1;
    const key = `${r.metric}/${r.scope}/${bucket}`;
    const acc = out.get(key);
    if (!acc) { out.set(key, [...r.v]); continue; }
    acc[0]! += r.v[0]; acc[1]! += r.v[1]; acc[2]! += r.v[2]; acc[5]! += r.v[5];
    acc[3] = Math.min(acc[3]!, r.v[3]); acc[4] = Math.max(acc[4]!, r.v[4]);
  }
  // In the order of AGGREGATES.
  for (const [key, [count, total, exclusive, min, max, sumsq]] of out) out.set(key, [count!, total!, exclusive!, sumsq!, min!, max!]);
  return out;
}

async function answer(executor: DuckDbPlanExecutor, p: AggregatePlan): Promise<{ values: Map<string, number[]>; resolution: string | undefined }> {
  const columns = await executor.aggregate(p);
  const values = new Map<string, number[]>();
  for (let i = 0; i < columns.rowCount; i++) {
    const key = `${String(columns.groups[0]![i])}/${String(columns.groups[1]![i])}/${columns.buckets ? columns.buckets[i] : -1}`;
    values.set(key, columns.aggregates.map((a) => a[i]!));
  }
  return { values, resolution: columns.resolution };
}

const sorted = (m: Map<string, number[]>) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b));

test('rollups answer exactly as 1-minute timeslices for aligned windows, and a read spanning both resolutions is exact', async () => {
  // Now is 6 h after H0; hours closed 2 h ago are rolled up: [H0, H0 + 4 h).
  const clock = new Clock(H0 + 6 * HOUR);
  for (const seed of [1, 2, 3]) {
    const { store } = await openStore(clock, { rollupDelayMs: 2 * HOUR });
    try {
      const rows = randomRows(seed, 6);
      await insert(store, rows, seed);
      const minute = new DuckDbPlanExecutor(store.db);
      const cases: { p: AggregatePlan; resolution: string }[] = [
        { p: plan({ beginMs: H0, endMs: H0 + 4 * HOUR }), resolution: 'hour' },
        { p: plan({ beginMs: H0, endMs: H0 + 4 * HOUR }, { beginMs: H0, widthMs: HOUR, count: 4 }), resolution: 'hour' },
        { p: plan({ beginMs: H0, endMs: H0 + 4 * HOUR }, { beginMs: H0, widthMs: 2 * HOUR, count: 2 }), resolution: 'hour' },
        // Minutes at both ends, whole hours between; then past the watermark into hours not rolled up.
        { p: plan({ beginMs: H0 + 17 * MINUTE, endMs: H0 + 3 * HOUR + 41 * MINUTE }), resolution: 'mixed' },
        { p: plan({ beginMs: H0, endMs: H0 + 6 * HOUR }, { beginMs: H0, widthMs: HOUR, count: 6 }), resolution: 'mixed' },
        { p: plan({ beginMs: H0 + HOUR, endMs: H0 + 6 * HOUR }), resolution: 'mixed' },
        // Buckets that would split an hour: 1-minute data only.
        { p: plan({ beginMs: H0, endMs: H0 + 4 * HOUR }, { beginMs: H0, widthMs: 30 * MINUTE, count: 8 }), resolution: 'minute' },
      ];
      const before = await Promise.all(cases.map((c) => answer(minute, c.p)));
      const report = await store.maintain();
      assert.equal(report.hoursRolledUp, 4, `seed ${seed}`);
      const n = (await store.db.all<{ n: bigint }>('SELECT count(*) AS n FROM timeslices_hourly'))[0]!.n;
      const keys = new Set(rows.filter((r) => r.ts < H0 + 4 * HOUR).map((r) => `${r.app}/${r.host}/${r.metric}/${r.scope}/${Math.floor(r.ts / HOUR)}`));
      assert.equal(Number(n), keys.size, 'one rollup row per key and hour');
      assert.equal(report.rollupRows, keys.size);
      assert.deepEqual(store.upkeep.coverage, { hourlyUntilMs: H0 + 4 * HOUR });
      for (const [i, c] of cases.entries()) {
        const want = sorted(expected(rows, c.p));
        assert.deepEqual(sorted(before[i]!.values), want, `seed ${seed} case ${i}: 1-minute answer`);
        const got = await answer(store.executor as DuckDbPlanExecutor, c.p);
        assert.equal(got.resolution, c.resolution, `seed ${seed} case ${i}`);
        assert.deepEqual(sorted(got.values), want, `seed ${seed} case ${i}: answer with rollups`);
      }
      assert.deepEqual((await store.maintain()).hoursRolledUp, 0, 'an hour is rolled up once');
      minute.close();
    } finally {
      await store.close();
    }
  }
});

test('plans the rollups cannot answer exactly read 1-minute timeslices', async () => {
  const clock = new Clock(H0 + 6 * HOUR);
  const { store } = await openStore(clock, { rollupDelayMs: 2 * HOUR });
  try {
    const rows = randomRows(7, 3);
    await insert(store, rows, 7);
    await store.maintain();
    const window = { beginMs: H0, endMs: H0 + 3 * HOUR };
    const perRow: AggregatePlan = { ...plan(window), aggregates: [{ fn: 'count', arg: field('count') }] };
    const byValue: AggregatePlan = { ...plan(window), where: { kind: 'compare', op: '>', left: field('count'), right: { kind: 'literal', value: 3 } } };
    const byMinute: AggregatePlan = { ...plan(window), groupBy: [field('timestamp')] };
    for (const p of [perRow, byValue, byMinute]) assert.equal((await store.executor.aggregate(p)).resolution, 'minute');
    const rowsOfApp1 = rows.filter((r) => r.app === 1).length;
    const counted = await store.executor.aggregate({ ...perRow, groupBy: [] });
    assert.equal(counted.aggregates[0]![0], rowsOfApp1, 'count() counts stored rows, which rollups do not keep');
  } finally {
    await store.close();
  }
});
