import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from '../../../test/helpers/seeded-random.js';
import type { AggregatePlan, Buckets, TimeWindow } from '../../plan/aggregate-plan.js';
import { eq, field, rowArith } from '../../plan/expressions.js';
import { DEFAULT_RETENTION, DEFAULT_UPKEEP, type UpkeepOptions } from '../store.js';
import { Database } from './database.js';
import { DuckDbPlanExecutor } from './duckdb-plan-executor.js';
import { MIGRATIONS } from './migrations.js';
import { DuckDbStore } from './duckdb-store.js';
import { TIMESLICE_TABLES } from './timeslice-tables.js';

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

async function insert(store: Pick<DuckDbStore, 'db'>, rows: readonly Row[], seed: number): Promise<void> {
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
  // REST's average_exclusive_time: the average over minutes of exclusive time per call.
  { fn: 'sum', arg: rowArith('/', field('totalExclusive'), field('count')) },
  { fn: 'count', arg: rowArith('/', field('totalExclusive'), field('count')) },
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
    const point = r.v[0] === 0 ? [] : [r.v[2] / r.v[0]];
    const acc = out.get(key);
    if (!acc) { out.set(key, [...r.v, point.length ? point[0]! : NaN, point.length]); continue; }
    acc[0]! += r.v[0]; acc[1]! += r.v[1]; acc[2]! += r.v[2]; acc[5]! += r.v[5];
    acc[3] = Math.min(acc[3]!, r.v[3]); acc[4] = Math.max(acc[4]!, r.v[4]);
    if (point.length) { acc[6] = Number.isNaN(acc[6]!) ? point[0]! : acc[6]! + point[0]!; acc[7]! += 1; }
  }
  // In the order of AGGREGATES; a sum of no points is null.
  for (const [key, [count, total, exclusive, min, max, sumsq, points, n]] of out) {
    out.set(key, [count!, total!, exclusive!, sumsq!, min!, max!, Number.isNaN(points!) ? null as unknown as number : points!, n!]);
  }
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

/**
 * The entries in key order, each sum of per-minute points (not multiples of 1/8, so summed in
 * another order it may differ in its last bits) rounded to 9 significant figures.
 */
const sorted = (m: Map<string, number[]>) => [...m.entries()]
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([k, v]) => [k, v.map((x, i) => (i === 6 && x !== null ? Number(x.toPrecision(9)) : x))]);

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
      assert.equal(store.upkeep.coverage.hourlyUntilMs, H0 + 4 * HOUR);
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

test('retention deletes exactly what expired, to the minute, per data kind, in bounded steps', async () => {
  const DAY = 24 * HOUR;
  // Now: 10 days after H0, 30 s into a minute; rollups keep up to the hour before.
  const now = H0 + 10 * DAY + 7 * MINUTE + 30_000;
  const clock = new Clock(now);
  const retention = {
    ...DEFAULT_RETENTION, minuteMs: 2 * DAY, hourlyMs: 5 * DAY, keyMetricsMs: null,
    eventsMs: { ...DEFAULT_RETENTION.eventsMs, Transaction: 3 * DAY, PageView: 1 * DAY }, otherEventsMs: 4 * DAY,
  };
  const { store } = await openStore(clock, { rollupDelayMs: HOUR, deleteStepRows: 7, retention });
  try {
    await store.db.all(`INSERT INTO metric_names VALUES (1, 'Datastore/all'), (2, 'HttpDispatcher'), (3, 'Custom/x')`);
    // Timeslices at the first and last minute of every hour for 10 days, for a plain and a key metric.
    const rows: Row[] = [];
    for (let h = 0; h < 10 * 24; h++) {
      for (const m of [0, 59]) for (const metric of [1, 2]) rows.push({ app: 1, host: 1, metric, scope: 0, ts: H0 + h * HOUR + m * MINUTE, v: [1, 1, 1, 1, 1, 1] });
    }
    // The minute boundary itself: the minute before the cutoff expires, the cutoff's own minute stays.
    const minuteCut = Math.floor(now / MINUTE) * MINUTE - 2 * DAY;
    rows.push({ app: 1, host: 1, metric: 3, scope: 0, ts: minuteCut - MINUTE, v: [1, 1, 1, 1, 1, 1] });
    rows.push({ app: 1, host: 1, metric: 3, scope: 0, ts: minuteCut, v: [1, 1, 1, 1, 1, 1] });
    await insert(store, rows, 11);
    const event = (table: string, ts: number, extra: string) => `INSERT INTO ${table} BY NAME SELECT 1 AS account_id, 1 AS app_id, 1 AS host_id, 1 AS instance_id, epoch_ms(${ts}) AS timestamp, ${extra}`;
    const agentMaps = `'{}' AS intrinsics, '{}' AS user_attributes, '{}' AS agent_attributes`;
    const cut = (days: number) => Math.floor(now / MINUTE) * MINUTE - days * DAY;
    for (const ts of [cut(3) - 1, cut(3), cut(3) + 1]) await store.db.all(event('transaction_events', ts, agentMaps));
    for (const ts of [cut(1) - 1, cut(1)]) await store.db.all(event('custom_events', ts, `'PageView' AS event_type, '{}' AS attributes`));
    for (const ts of [cut(4) - 1, cut(4)]) await store.db.all(event('custom_events', ts, `'Purchase' AS event_type, '{}' AS attributes`));
    await store.db.all(event('custom_events', H0, `'ChangeTrackingEvent' AS event_type, '{}' AS attributes`));

    const report = await store.maintain();
    // The last hour ended 7.5 minutes ago, less than the hour's delay: it stays open.
    const closed = H0 + 10 * DAY - HOUR;
    assert.equal(report.hoursRolledUp, 10 * 24 - 1);
    assert.equal(store.upkeep.coverage.hourlyUntilMs, closed);
    const minuteLeft = rows.filter((r) => r.ts >= minuteCut).length;
    const minuteCount = (await store.db.all<{ n: bigint }>(`SELECT count(*) AS n FROM (${TIMESLICE_TABLES.map((t) => `SELECT ts FROM ${t}`).join(' UNION ALL ')})`))[0]!.n;
    assert.equal(Number(minuteCount), minuteLeft);
    const oldestMinute = (await store.db.all<{ t: bigint }>(`SELECT epoch_ms(min(ts)) AS t FROM (${TIMESLICE_TABLES.map((t) => `SELECT ts FROM ${t}`).join(' UNION ALL ')})`))[0]!.t;
    assert.equal(Number(oldestMinute), minuteCut);
    // Hourly: an hour goes once all of it is older than now − 5 days; the key metric (HttpDispatcher) stays.
    const hourlyCut = Math.floor(now / MINUTE) * MINUTE - 5 * DAY;
    const hourly = await store.db.all<{ metric_id: number; n: bigint; oldest: bigint }>(
      'SELECT metric_id, count(*) AS n, epoch_ms(min(ts)) AS oldest FROM timeslices_hourly GROUP BY metric_id ORDER BY metric_id',
    );
    const plainHours = Array.from({ length: 239 }, (_, h) => H0 + h * HOUR).filter((t) => t + HOUR > hourlyCut);
    // Both Custom/x minutes (H0 + 8 d + 6 min and + 7 min) fall in one hour.
    assert.deepEqual(hourly.map((r) => [r.metric_id, Number(r.n), Number(r.oldest)]), [
      [1, plainHours.length, plainHours[0]!],
      [2, 239, H0],
      [3, 1, H0 + 8 * DAY],
    ]);
    const times = async (table: string, where = 'true') => (await store.db.all<{ t: bigint }>(`SELECT epoch_ms(timestamp) AS t FROM ${table} WHERE ${where} ORDER BY t`)).map((r) => Number(r.t));
    assert.deepEqual(await times('transaction_events'), [cut(3), cut(3) + 1]);
    assert.deepEqual(await times('custom_events', `event_type = 'PageView'`), [cut(1)]);
    assert.deepEqual(await times('custom_events', `event_type = 'Purchase'`), [cut(4)]);
    assert.deepEqual(await times('custom_events', `event_type = 'ChangeTrackingEvent'`), [H0], 'deployments are kept');
    assert.equal(report.deleted.transaction_events, 1);
    assert.equal(report.deleted.timeslices_hourly, 239 - plainHours.length);

    const status = await store.status();
    assert.ok(status.sizeBytes > 0);
    assert.equal(status.rolledUpUntilMs, closed);
    assert.equal(status.lastRetentionMs, now);
    assert.deepEqual(status.tables.find((t) => t.table === 'timeslices_hourly'), { table: 'timeslices_hourly', resolution: 'hour', rows: plainHours.length + 239 + 1, oldestMs: H0 });
    const again = await store.maintain();
    assert.deepEqual(again, { hoursRolledUp: 0, rollupRows: 0, deleted: {} }, 'nothing more to do');
  } finally {
    await store.close();
  }
});

/** Runs test/helpers/upkeep-child and kills it with SIGKILL once it has printed `lines` lines. */
async function killAfter(dir: string, fromMs: number, toMs: number, minuteRetentionMs: number, lines: number): Promise<string[]> {
  const script = fileURLToPath(new URL('../../../test/helpers/upkeep-child.js', import.meta.url));
  const child = spawn(process.execPath, [script, dir, String(fromMs), String(toMs), String(minuteRetentionMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const seen: string[] = [];
  let buffered = '';
  await new Promise<void>((resolve) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      seen.push(...parts);
      if (seen.length >= lines) child.kill('SIGKILL');
    });
    child.on('exit', () => resolve());
  });
  return seen;
}

test('kill -9 during rollups and during deletion loses and doubles nothing', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'timeslice-upkeep-kill-'));
  dirs.push(dir);
  const hours = 24;
  const rows = randomRows(21, hours);
  const clock = new Clock(H0);
  {
    const { store } = await openStore(clock, {}, dir);
    await insert(store, rows, 21);
    await store.close();
  }
  const rolledUpRows = async (store: DuckDbStore) => store.db.all<{ k: string; v: number[] }>(
    `SELECT concat_ws('/', app_id, host_id, metric_id, scope_id, epoch_ms(ts)) AS k,
            [call_count, total, exclusive, min, max, sum_of_squares] AS v FROM timeslices_hourly ORDER BY k`,
  );
  const expectedRollups = (untilMs: number) => {
    const out = new Map<string, number[]>();
    for (const r of rows) {
      if (r.ts >= untilMs) continue;
      const k = `${r.app}/${r.host}/${r.metric}/${r.scope}/${Math.floor(r.ts / HOUR) * HOUR}`;
      const acc = out.get(k);
      if (!acc) { out.set(k, [...r.v]); continue; }
      acc[0]! += r.v[0]; acc[1]! += r.v[1]; acc[2]! += r.v[2]; acc[5]! += r.v[5];
      acc[3] = Math.min(acc[3]!, r.v[3]); acc[4] = Math.max(acc[4]!, r.v[4]);
    }
    return [...out.entries()].map(([k, v]) => ({ k, v })).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  };

  // Rollups: one hour per run; killed right after the third run reported, in the fourth.
  const printed = await killAfter(dir, H0 + HOUR, H0 + hours * HOUR, 0, 3);
  assert.deepEqual(printed.slice(0, 3).map((l) => Number(l.split(' ')[0])), [H0 + HOUR, H0 + 2 * HOUR, H0 + 3 * HOUR]);
  assert.ok(!printed.includes('done'), 'killed before the end');
  {
    const { store } = await openStore(clock, {}, dir);
    const watermark = store.upkeep.coverage.hourlyUntilMs!;
    assert.ok(watermark >= H0 + 3 * HOUR && watermark < H0 + hours * HOUR, `watermark ${watermark}`);
    assert.deepEqual(await rolledUpRows(store), expectedRollups(watermark), 'every hour below the watermark rolled up once, none above');
    await store.close();
  }

  // Deletion: 1-minute data kept 6 hours; each run rolls an hour up and deletes an hour, 300 rows a step.
  const keepMs = 6 * HOUR;
  const printedDeleting = await killAfter(dir, H0 + 12 * HOUR, H0 + hours * HOUR, keepMs, 2);
  assert.ok(Number(printedDeleting[1]!.split(' ')[1]) > 0, 'the second run deleted rows');
  {
    const { store } = await openStore(clock, {}, dir);
    const watermark = store.upkeep.coverage.hourlyUntilMs!;
    assert.deepEqual(await rolledUpRows(store), expectedRollups(watermark));
    // What expired may be partly deleted; every row that had not expired is there, once.
    const minute = await store.db.all<{ ts: bigint; n: bigint }>(
      `SELECT epoch_ms(ts) AS ts, count(*) AS n FROM (${TIMESLICE_TABLES.map((t) => `SELECT ts FROM ${t}`).join(' UNION ALL ')}) GROUP BY ts`,
    );
    const stored = new Map(minute.map((r) => [Number(r.ts), Number(r.n)]));
    const sent = new Map<number, number>();
    for (const r of rows) sent.set(r.ts, (sent.get(r.ts) ?? 0) + 1);
    const lastRun = H0 + 13 * HOUR;
    for (const [ts, n] of sent) {
      if (ts >= lastRun + HOUR - keepMs) assert.equal(stored.get(ts), n, `minute ${new Date(ts).toISOString()} kept whole`);
      else assert.ok((stored.get(ts) ?? 0) <= n);
    }
    await store.close();
  }
  // A run to the end finishes both: rollups of every hour, 1-minute data of the last 6 hours only.
  const finished = await killAfter(dir, H0 + hours * HOUR, H0 + hours * HOUR, keepMs, 99);
  assert.equal(finished.at(-1), 'done');
  {
    const { store } = await openStore(clock, {}, dir);
    assert.deepEqual(await rolledUpRows(store), expectedRollups(H0 + hours * HOUR));
    const left = await store.db.all<{ n: bigint }>(`SELECT count(*) AS n FROM (${TIMESLICE_TABLES.map((t) => `SELECT ts FROM ${t}`).join(' UNION ALL ')})`);
    assert.equal(Number(left[0]!.n), rows.filter((r) => r.ts >= H0 + (hours - 6) * HOUR).length);
    await store.close();
  }
});

test('a store from before rollups upgrades in place and answers as before, then from rollups', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'timeslice-upkeep-upgrade-'));
  dirs.push(dir);
  const rows = randomRows(31, 5);
  const p = plan({ beginMs: H0, endMs: H0 + 5 * HOUR }, { beginMs: H0, widthMs: HOUR, count: 5 });
  const want = sorted(expected(rows, p));
  {
    // Migrations 1–7: the schema as released before this one.
    const db = await Database.open({ path: join(dir, 'timeslice.duckdb'), memoryLimit: '256MB' }, MIGRATIONS.filter((m) => m.version < 8));
    const old = new DuckDbPlanExecutor(db);
    await insert({ db }, rows, 31);
    assert.deepEqual(sorted((await answer(old, p)).values), want);
    old.close();
    await db.close();
  }
  const clock = new Clock(H0 + 8 * HOUR);
  const { store } = await openStore(clock, {}, dir);
  try {
    assert.equal(store.upkeep.coverage.hourlyUntilMs, null, 'nothing rolled up yet');
    const upgraded = await answer(store.executor as DuckDbPlanExecutor, p);
    assert.deepEqual([upgraded.resolution, sorted(upgraded.values)], ['minute', want]);
    const report = await store.maintain();
    assert.equal(report.hoursRolledUp, 5, 'from the oldest timeslice on');
    const rolled = await answer(store.executor as DuckDbPlanExecutor, p);
    assert.deepEqual([rolled.resolution, sorted(rolled.values)], ['hour', want]);
  } finally {
    await store.close();
  }
});
