/**
 * The DuckDB SQL pinned in test/golden/sql/*.duckdb.sql (REST metric data's plans, pinned by
 * src/api/rest/metric-data/metric-data-plan.test.ts) run as written, with their pinned parameters,
 * on a real embedded store holding rows chosen around each statement's filters; each answer must be
 * the one computed here from those rows (the ClickHouse side: test/nrql/clickhouse-sql-golden).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { SqlParam } from '../../src/sql/dialect.js';
import { Rows, TIMESLICES } from '../../src/store/append-tables.js';
import type { DuckDbPlanExecutor } from '../../src/store/duckdb/duckdb-plan-executor.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const B = Date.parse('2026-11-22T10:00:00Z');
const MIN = 60_000;

/** [app, host, instance, metric, scope, ts, count, total, exclusive, min, max, sumOfSquares] */
type Row = [number, number, number, number, number, number, number, number, number, number, number, number];
const ROWS: Row[] = [];
// What the statements select: application 7 (host 2, instance 9), metrics 3, 5 and 11, unscoped.
for (const [i, minute] of [0, 1, 1, 7, 29, 45, 119].entries()) {
  for (const metric of [3, 5, 11]) {
    const count = 1 + ((i + metric) % 4);
    const total = 0.125 * (i + 1) * metric;
    ROWS.push([7, 2, 9, metric, 0, B + minute * MIN + 1000 * i, count, total, total / 2, 0.01 * metric, 0.5 + i, total * total]);
  }
}
ROWS.push([7, 2, 9, 3, 0, B + 2 * MIN, 0, 0, 0, 0, 0, 0]); // a zero call count: no exclusive ratio
// What they must not: another application, host, instance, metric or scope, and outside the window.
ROWS.push([8, 2, 9, 3, 0, B + MIN, 5, 5, 5, 1, 1, 5], [7, 3, 9, 11, 0, B + MIN, 5, 5, 5, 1, 1, 5], [7, 2, 10, 11, 0, B + MIN, 5, 5, 5, 1, 1, 5]);
ROWS.push([7, 2, 9, 6, 0, B + MIN, 5, 5, 5, 1, 1, 5], [7, 2, 9, 3, 4, B + MIN, 5, 5, 5, 1, 1, 5], [7, 2, 9, 3, 0, B - 1, 5, 5, 5, 1, 1, 5], [7, 2, 9, 11, 0, B + 120 * MIN, 5, 5, 5, 1, 1, 5]);

function pinned(name: string): { sql: string; params: SqlParam[] } {
  const text = readFileSync(join(process.cwd(), 'test', 'golden', 'sql', `${name}.duckdb.sql`), 'utf8');
  const sql = /-- SQL\n([\s\S]*?)\n\n-- params/.exec(text)![1]!;
  const params = JSON.parse(/-- params\n(.*)\n/.exec(text)![1]!) as SqlParam[];
  return { sql, params };
}

/** Groups rows by key and folds each group, sorted by key: what GROUP BY … ORDER BY does. */
function group(rows: Row[], key: (r: Row) => number[], fold: (rs: Row[]) => (number | null)[]): unknown[][] {
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    const k = JSON.stringify(key(r));
    groups.set(k, [...groups.get(k) ?? [], r]);
  }
  return [...groups.entries()].sort(([x], [y]) => {
    const [a, b] = [JSON.parse(x) as number[], JSON.parse(y) as number[]];
    return a[0]! - b[0]! || (a[1] ?? 0) - (b[1] ?? 0);
  }).map(([k, rs]) => [...(JSON.parse(k) as number[]), ...fold(rs)]);
}

const sum = (rs: Row[], i: number) => rs.reduce((s, r) => s + r[i]!, 0);
const close = (got: unknown[][], want: unknown[][]) => {
  assert.equal(got.length, want.length, JSON.stringify(got, (_, v) => (typeof v === 'bigint' ? Number(v) : v)));
  got.forEach((row, i) => row.forEach((v, j) => {
    const w = want[i]![j];
    if (typeof w === 'number' && !Number.isInteger(w)) assert.ok(Math.abs(Number(v) - w) <= 1e-12 * Math.max(1, Math.abs(w)), `row ${i} column ${j}: ${String(v)} ≠ ${w}`);
    else assert.equal(v === null ? null : Number(v), w, `row ${i} column ${j}`);
  }));
};

describe('DuckDB SQL, pinned and run', () => {
  let ts: TestServer;
  let executor: DuckDbPlanExecutor;
  before(async () => {
    ts = await startTestServer();
    const rows = new Rows(TIMESLICES);
    for (const r of ROWS) rows.push(1, ...r);
    await ts.server.writer.write([rows]);
    executor = ts.server.store.executor as unknown as DuckDbPlanExecutor;
  });
  after(async () => { await ts?.stop(); });

  const run = async (name: string) => {
    const columns = await executor.run(pinned(name));
    return columns[0]!.map((_, r) => columns.map((c) => c[r]));
  };
  const inWindow = (r: Row, metrics: number[], endMs: number) => r[0] === 7 && metrics.includes(r[3]) && r[4] === 0 && r[5] >= B && r[5] < endMs;

  it('metric-data-summarize: sums per metric over 30 minutes', async () => {
    const want = group(ROWS.filter((r) => inWindow(r, [3, 5], B + 30 * MIN)), (r) => [r[3]], (rs) => [sum(rs, 6), sum(rs, 7), sum(rs, 8)]);
    assert.equal(want.length, 2);
    close(await run('metric-data-summarize'), want);
  });

  it('metric-data-series: every value\'s parts per metric and minute', async () => {
    const want = group(ROWS.filter((r) => inWindow(r, [3, 5], B + 30 * MIN)), (r) => [r[3], Math.floor((r[5] - B) / MIN)], (rs) => {
      const ratios = rs.filter((r) => r[6] !== 0).map((r) => r[8] / r[6]);
      return [sum(rs, 7), sum(rs, 6), Math.min(...rs.map((r) => r[9])), Math.max(...rs.map((r) => r[10])),
        ratios.length === 0 ? null : ratios.reduce((s, x) => s + x, 0), ratios.length, sum(rs, 11), sum(rs, 8)];
    });
    assert.ok(want.some((w) => w[1] === 2 && w[6] === null && w[7] === 0), 'a minute whose only row has no call count');
    close(await run('metric-data-series'), want);
  });

  it('metric-data-instance: one instance\'s metric in 10-minute buckets over 2 hours', async () => {
    const want = group(ROWS.filter((r) => inWindow(r, [11], B + 120 * MIN) && r[1] === 2 && r[2] === 9), (r) => [r[3], Math.floor((r[5] - B) / (10 * MIN))], (rs) => [sum(rs, 6), sum(rs, 7)]);
    assert.equal(want.length, 4);
    close(await run('metric-data-instance'), want);
  });
});
