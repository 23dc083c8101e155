import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AggregateSet } from '../plan/aggregate-plan.js';
import { evaluateOutput, mergeAggregates, type AggregateCall, type RowExpr } from '../plan/expressions.js';
import { formatExpr } from './format.js';
import { stripSpans } from './ast.js';
import { ALL_CUSTOM_EVENTS } from './analyze.js';
import { formula, formulaQuery, formulaQueryText, intervalOf, nrql, printFormula } from './formula.js';
import { parse } from './parser.js';

// Formulas over the timeslice value, written as the spec writes them (V = the value).
const f = (text: string) => formula(text.replaceAll('V', 'newrelic.timeslice.value'));

// Fixture B of the NRQL reference (§7.2): HttpDispatcher points m1, m2 over a 2-minute window.
type Point = Record<string, number>;
const m1: Point = { count: 10, total: 2.0, totalExclusive: 0.5, min: 0.05, max: 0.6, sumOfSquares: 0.7 };
const m2: Point = { count: 30, total: 3.0, totalExclusive: 1.0, min: 0.02, max: 0.4, sumOfSquares: 0.5 };
const apdexPoint: Point = { count: 90, total: 8, totalExclusive: 2, min: 0.5, max: 0.5, sumOfSquares: 0 };

// A deliberately naive evaluator of primitive aggregates over points, for the test only.
function row(expr: RowExpr, p: Point): number | null {
  switch (expr.kind) {
    case 'field': return p[expr.name] ?? null;
    case 'literal': return typeof expr.value === 'number' ? expr.value : null;
    case 'arith': {
      const l = row(expr.left, p); const r = row(expr.right, p);
      if (l === null || r === null) return null;
      return expr.op === '+' ? l + r : expr.op === '-' ? l - r : expr.op === '*' ? l * r : r === 0 ? null : l / r;
    }
    default: throw new Error(`not a timeslice row expression: ${expr.kind}`);
  }
}
function aggregate(call: AggregateCall, points: Point[]): number | null {
  const xs = points.map((p) => (call.arg ? row(call.arg, p) : 1)).filter((x): x is number => x !== null);
  if (call.fn === 'count' || call.fn === 'countRows') return xs.length;
  if (xs.length === 0) return null;
  if (call.fn === 'sum') return xs.reduce((a, b) => a + b, 0);
  return call.fn === 'min' ? Math.min(...xs) : Math.max(...xs);
}
function evaluate(text: string, points: Point[], seconds: number): number | null {
  const set = new AggregateSet();
  const expr = f(text).lower(set);
  return evaluateOutput(expr, set.all.map((c) => aggregate(c, points)), seconds);
}
const close = (actual: number | null, expected: number, digits = 3) =>
  assert.ok(actual !== null && Math.abs(actual - expected) < 10 ** -digits, `${actual} ≉ ${expected}`);

test('timeslice aggregates follow the reference worked examples E29–E33', () => {
  assert.equal(evaluate('count(V)', [m1, m2], 120), 40); // E29 call_count
  close(evaluate('average(V) * 1000', [m1, m2], 120), 125); // E29 average_call_time
  close(evaluate('average(V) * 1000', [m1], 60), 200); // E30 first minute
  close(evaluate('average(V) * 1000', [m2], 60), 100); // E30 second minute
  close(evaluate('rate(count(V), 1 minute)', [m1, m2], 120), 20); // E31 cpm
  close(evaluate('min(V) * 1000', [m1, m2], 120), 20); // E31 min_ms
  close(evaluate('max(V) * 1000', [m1, m2], 120), 600); // E31 max_ms
  close(evaluate('stddev(V) * 1000', [m1, m2], 120), 119.896); // E31 sd_ms
  close(evaluate("average(V['totalExclusive'] / V['count']) * 1000", [m1, m2], 120), 41.6667); // E32 per point
  close(evaluate('apdex(V)', [apdexPoint], 120), 0.94, 9); // E33
});

test('over no points, count and sum are 0 and every other aggregate is null', () => {
  assert.equal(evaluate('count(V)', [], 60), 0);
  assert.equal(evaluate('sum(V)', [], 60), 0);
  for (const text of ['average(V)', 'min(V)', 'max(V)', 'stddev(V)', 'apdex(V)']) assert.equal(evaluate(text, [], 60), null);
});

test('equal aggregates are computed once across functions', () => {
  const set = new AggregateSet();
  f('average(V) * 1000').lower(set);
  f('rate(count(V), 1 minute)').lower(set);
  f('apdex(V)').lower(set);
  // sum(count), sum(total), sum(totalExclusive)
  assert.equal(set.all.length, 3);
});

test('a formula is parsed and lowered once: the same text is the same formula', () => {
  assert.equal(f('count(V)'), f('count(V)'));
  const one = new AggregateSet();
  const two = new AggregateSet();
  two.add({ fn: 'max', arg: { kind: 'field', name: 'max' } });
  // Lowered into another set, its aggregates take that set's indexes.
  assert.deepEqual(f('average(V)').lower(one), { kind: 'arith', op: '/', left: { kind: 'aggregate', index: 0 }, right: { kind: 'aggregate', index: 1 } });
  assert.deepEqual(f('average(V)').lower(two), { kind: 'arith', op: '/', left: { kind: 'aggregate', index: 1 }, right: { kind: 'aggregate', index: 2 } });
});

test('merging per-slice aggregates gives the aggregates of the union', () => {
  const set = new AggregateSet();
  const expr = f('stddev(V) * 1000').lower(set);
  f('min(V)').lower(set);
  const merged = mergeAggregates(set.all, set.all.map((c) => aggregate(c, [m1])), set.all.map((c) => aggregate(c, [m2])));
  assert.deepEqual(merged, set.all.map((c) => aggregate(c, [m1, m2])));
  close(evaluateOutput(expr, merged, 120), 119.896);
});

test('functions print as the NRQL of the spec table (§4.5)', () => {
  const cases: [string, string][] = [
    ['average(V) * 1000', 'average(V) * 1000'],
    ['rate(count(V), 1 minute)', 'rate(count(V), 1 minute)'],
    ['count(V)', 'count(V)'],
    ['min(V) * 1000', 'min(V) * 1000'],
    ["average(V['totalExclusive'] / V['count']) * 1000", "average(V['totalExclusive'] / V['count']) * 1000"],
    ['rate(sum(V), 1 minute)', 'rate(sum(V), 1 minute)'],
    ['stddev(V) * 1000', 'stddev(V) * 1000'],
    ['rate(count(V), 1 second)', 'rate(count(V), 1 second)'],
    ['average(V) * 100', 'average(V) * 100'],
    ["count(V) + sum(V) + sum(V['totalExclusive'])", "count(V) + sum(V) + sum(V['totalExclusive'])"],
    // Written with parentheses it does not need, it prints without them.
    ['(rate(count(V), 60 seconds)) * (1000)', 'rate(count(V), 60 seconds) * 1000'],
  ];
  for (const [written, text] of cases) assert.equal(printFormula(f(written), 'V'), text);
  assert.equal(printFormula(f('count(V)')), 'count(newrelic.timeslice.value)');
});

test('durations print in the largest whole unit', () => {
  const print = (seconds: number) => formatExpr({ kind: 'interval', interval: intervalOf(seconds), span: { start: 0, end: 0 } }, 'readable');
  assert.deepEqual([60, 120, 1, 3600, 10800, 259200, 90].map(print),
    ['1 minute', '2 minutes', '1 second', '1 hour', '3 hours', '3 days', '90 seconds']);
});

test('a printed query reads back as the tree it was printed from', () => {
  const q = {
    select: [{ formula: f('count(V)'), alias: 'call_count' }, { formula: f('apdex(V)'), alias: 'a b' }],
    from: 'Metric',
    where: [nrql.eq('appId', 7), nrql.eq('host', "o'brien"), nrql.isNull('scope')],
    beginMs: 1_000_000,
    endMs: 4_600_000,
    timeseriesSeconds: 600,
  };
  const text = formulaQueryText(q);
  assert.equal(text, "SELECT count(newrelic.timeslice.value) AS call_count, apdex(newrelic.timeslice.value) AS 'a b' FROM Metric "
    + "WHERE appId = 7 AND host = 'o\\'brien' AND scope IS NULL SINCE 1000000 UNTIL 4600000 TIMESERIES 10 minutes");
  assert.deepEqual(stripSpans(parse(text)), stripSpans(formulaQuery(q)));
});

test("eventType() of a formula over every custom event reads the row's type column", () => {
  const crashes = (over: string) => {
    const set = new AggregateSet();
    formula("filter(count(*), WHERE eventType() = 'Mobile')", over).lower(set);
    return set.all;
  };
  const compare = (left: RowExpr) => ({ kind: 'compare', op: '=', left, right: { kind: 'literal', value: 'Mobile' } });
  assert.deepEqual(crashes(ALL_CUSTOM_EVENTS), [{ fn: 'countRows', where: compare({ kind: 'field', name: 'eventType', type: 'string' }) }]);
  assert.deepEqual(crashes('Mobile'), [{ fn: 'countRows', where: compare({ kind: 'eventType' }) }]);
});

test('a percentage of two filtered counts is null without a whole, and exact otherwise', () => {
  const set = new AggregateSet();
  const output = formula("filter(count(*), WHERE category = 'Crash') / filter(count(*), WHERE category = 'Session') * 100", 'Mobile').lower(set);
  assert.equal(set.all.length, 2);
  // Aggregates as the engine returns them: [crashes, launches].
  assert.equal(evaluateOutput(output, [1, 8], 1800), 12.5);
  assert.equal(evaluateOutput(output, [0, 0], 1800), null);
});
