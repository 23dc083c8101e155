import type { AggregateAdder } from '../../plan/aggregate-plan.js';
import { assertNever, field, out, rowArith, type ArithOp, type OutputExpr, type RowExpr } from '../../plan/expressions.js';

/** The NRQL name of the timeslice value attribute (the spec's `service.timeslice.value` is an alias). */
export const TIMESLICE_VALUE = 'newrelic.timeslice.value';

/** The parts of a timeslice value, as NRQL names them (`V['totalExclusive']`). */
export const TIMESLICE_VALUE_FIELDS = ['count', 'total', 'totalExclusive', 'min', 'max', 'sumOfSquares'] as const;
export type TimesliceValueField = (typeof TIMESLICE_VALUE_FIELDS)[number];

/** A number computed per data point from its value's parts, e.g. `V['totalExclusive'] / V['count']`. */
export type PointExpr =
  | { readonly kind: 'part'; readonly part: TimesliceValueField }
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'arith'; readonly op: ArithOp; readonly left: PointExpr; readonly right: PointExpr };

export type AggregateName = 'count' | 'sum' | 'average' | 'min' | 'max' | 'stddev' | 'apdex';

/**
 * An NRQL aggregate expression over the timeslice value: the subset REST v2 values map to
 * (spec §4.5), and the vocabulary NRQL's analyzer lowers `FROM Metric` aggregates into.
 * An aggregate's argument is the value itself (summary semantics: `count(V)` = Σ count) or a
 * per-point number (row semantics: `average(V['a'] / V['b'])` averages the points' ratios).
 */
export type TimesliceFunction =
  | { readonly kind: 'aggregate'; readonly name: AggregateName; readonly arg: 'value' | PointExpr }
  | { readonly kind: 'rate'; readonly of: TimesliceFunction; readonly perSeconds: number }
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'arith'; readonly op: ArithOp; readonly left: TimesliceFunction; readonly right: TimesliceFunction };

export const ts = {
  count: (arg: 'value' | PointExpr = 'value'): TimesliceFunction => ({ kind: 'aggregate', name: 'count', arg }),
  sum: (arg: 'value' | PointExpr = 'value'): TimesliceFunction => ({ kind: 'aggregate', name: 'sum', arg }),
  average: (arg: 'value' | PointExpr = 'value'): TimesliceFunction => ({ kind: 'aggregate', name: 'average', arg }),
  min: (arg: 'value' | PointExpr = 'value'): TimesliceFunction => ({ kind: 'aggregate', name: 'min', arg }),
  max: (arg: 'value' | PointExpr = 'value'): TimesliceFunction => ({ kind: 'aggregate', name: 'max', arg }),
  stddev: (arg: 'value' | PointExpr = 'value'): TimesliceFunction => ({ kind: 'aggregate', name: 'stddev', arg }),
  apdex: (): TimesliceFunction => ({ kind: 'aggregate', name: 'apdex', arg: 'value' }),
  rate: (of: TimesliceFunction, perSeconds: number): TimesliceFunction => ({ kind: 'rate', of, perSeconds }),
  times: (left: TimesliceFunction, value: number): TimesliceFunction => ({ kind: 'arith', op: '*', left, right: { kind: 'number', value } }),
  plus: (left: TimesliceFunction, right: TimesliceFunction): TimesliceFunction => ({ kind: 'arith', op: '+', left, right }),
  part: (part: TimesliceValueField): PointExpr => ({ kind: 'part', part }),
  ratio: (left: PointExpr, right: PointExpr): PointExpr => ({ kind: 'arith', op: '/', left, right }),
};

// ── Lowering to plan primitives ────────────────────────────────────────────────────────────

/**
 * Lowers a timeslice function to primitive aggregates (added to `set`) and the output
 * expression that derives its value from them. This table is the whole meaning of each
 * aggregate over timeslices; REST values and NRQL both go through it.
 */
export function lowerTimesliceFunction(fn: TimesliceFunction, set: AggregateAdder): OutputExpr {
  switch (fn.kind) {
    case 'number':
      return out.number(fn.value);
    case 'arith':
      return out.arith(fn.op, lowerTimesliceFunction(fn.left, set), lowerTimesliceFunction(fn.right, set));
    case 'rate':
      // Per `perSeconds` over the group's length: a slice, or the whole window when summarized.
      return out.arith('/', out.arith('*', lowerTimesliceFunction(fn.of, set), out.number(fn.perSeconds)), out.groupSeconds);
    case 'aggregate':
      return fn.arg === 'value' ? lowerOverValue(fn.name, set) : lowerOverPoints(fn.name, pointToRow(fn.arg), set);
    default:
      return assertNever(fn);
  }
}

const sumOf = (set: AggregateAdder, part: TimesliceValueField) => out.aggregate(set.add({ fn: 'sum', arg: field(part) }));

/** Summary semantics: the value's parts are summed across points, then combined. */
function lowerOverValue(name: AggregateName, set: AggregateAdder): OutputExpr {
  const count = () => sumOf(set, 'count');
  const total = () => sumOf(set, 'total');
  switch (name) {
    case 'count':
      return out.zeroIfNull(count());
    case 'sum':
      return out.zeroIfNull(total());
    case 'average':
      return out.arith('/', total(), count());
    case 'min':
      return out.aggregate(set.add({ fn: 'min', arg: field('min') }));
    case 'max':
      return out.aggregate(set.add({ fn: 'max', arg: field('max') }));
    case 'stddev': {
      // Population standard deviation of the calls: √(Σx²/n − (Σx/n)²).
      const mean = out.arith('/', total(), count());
      return out.sqrt(out.clampMin0(out.arith('-', out.arith('/', sumOf(set, 'sumOfSquares'), count()), out.arith('*', mean, mean))));
    }
    case 'apdex': {
      // Apdex timeslices reuse the slots: count = satisfied, total = tolerating, totalExclusive = frustrated.
      const s = count();
      const t = total();
      const f = sumOf(set, 'totalExclusive');
      return out.arith('/', out.arith('+', s, out.arith('/', t, out.number(2))), out.arith('+', out.arith('+', s, t), f));
    }
    default:
      return assertNever(name);
  }
}

/** Row semantics: each point contributes one number. */
function lowerOverPoints(name: AggregateName, arg: RowExpr, set: AggregateAdder): OutputExpr {
  const sum = () => out.aggregate(set.add({ fn: 'sum', arg }));
  const n = () => out.aggregate(set.add({ fn: 'count', arg }));
  switch (name) {
    case 'count':
      return out.zeroIfNull(n());
    case 'sum':
      return out.zeroIfNull(sum());
    case 'average':
      return out.arith('/', sum(), n());
    case 'min':
      return out.aggregate(set.add({ fn: 'min', arg }));
    case 'max':
      return out.aggregate(set.add({ fn: 'max', arg }));
    case 'stddev': {
      const mean = out.arith('/', sum(), n());
      const squares = out.aggregate(set.add({ fn: 'sum', arg: rowArith('*', arg, arg) }));
      return out.sqrt(out.clampMin0(out.arith('-', out.arith('/', squares, n()), out.arith('*', mean, mean))));
    }
    case 'apdex':
      throw new Error('apdex() applies to the timeslice value itself, not to a number computed from its parts');
    default:
      return assertNever(name);
  }
}

function pointToRow(expr: PointExpr): RowExpr {
  switch (expr.kind) {
    case 'part': return field(expr.part);
    case 'number': return { kind: 'literal', value: expr.value };
    case 'arith': return rowArith(expr.op, pointToRow(expr.left), pointToRow(expr.right));
    default: return assertNever(expr);
  }
}

// ── Printing as NRQL ───────────────────────────────────────────────────────────────────────

const PRECEDENCE: Record<ArithOp, number> = { '+': 1, '-': 1, '*': 2, '/': 2 };

/** The NRQL text of a timeslice function; `valueName` is how the value attribute is written. */
export function formatTimesliceFunction(fn: TimesliceFunction, valueName: string = TIMESLICE_VALUE): string {
  const print = (f: TimesliceFunction): { text: string; precedence: number } => {
    switch (f.kind) {
      case 'number':
        return { text: String(f.value), precedence: 3 };
      case 'aggregate':
        return { text: `${f.name}(${f.arg === 'value' ? valueName : formatPoint(f.arg, valueName)})`, precedence: 3 };
      case 'rate':
        return { text: `rate(${print(f.of).text}, ${formatDuration(f.perSeconds)})`, precedence: 3 };
      case 'arith': {
        const p = PRECEDENCE[f.op];
        const left = print(f.left);
        const right = print(f.right);
        const l = left.precedence < p ? `(${left.text})` : left.text;
        const r = right.precedence <= p ? `(${right.text})` : right.text;
        return { text: `${l} ${f.op} ${r}`, precedence: p };
      }
      default:
        return assertNever(f);
    }
  };
  return print(fn).text;
}

function formatPoint(expr: PointExpr, valueName: string): string {
  const print = (e: PointExpr): { text: string; precedence: number } => {
    switch (e.kind) {
      case 'part': return { text: `${valueName}['${e.part}']`, precedence: 3 };
      case 'number': return { text: String(e.value), precedence: 3 };
      case 'arith': {
        const p = PRECEDENCE[e.op];
        const left = print(e.left);
        const right = print(e.right);
        return { text: `${left.precedence < p ? `(${left.text})` : left.text} ${e.op} ${right.precedence <= p ? `(${right.text})` : right.text}`, precedence: p };
      }
      default: return assertNever(e);
    }
  };
  return print(expr).text;
}

const UNITS: readonly [number, string][] = [[86_400, 'day'], [3_600, 'hour'], [60, 'minute'], [1, 'second']];

/** `60` → `1 minute`, `120` → `2 minutes`, `1` → `1 second`. */
export function formatDuration(seconds: number): string {
  for (const [size, unit] of UNITS) {
    if (seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${unit}${n === 1 ? '' : 's'}`;
    }
  }
  return `${seconds * 1000} milliseconds`;
}
