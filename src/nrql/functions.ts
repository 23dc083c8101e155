import type { AggregateAdder } from '../plan/aggregate-plan.js';
import { assertNever, field, out, rowArith, type OutputExpr, type Predicate, type RowExpr, type ValueType } from '../plan/expressions.js';
import type { Arg, Condition, Expr, Span } from './ast.js';
import type { DictionaryName } from './dictionaries.js';
import { NrqlError } from './nrql-error.js';
import { intervalMs } from './time-window.js';

/** A row-level expression resolved against the source, with the dictionary its ids decode by. */
export interface ResolvedRow {
  readonly expr: RowExpr;
  readonly decode?: DictionaryName;
}

/** What lowering a function needs from the analyzer. */
export interface LowerContext {
  readonly source: 'timeslices' | 'events';
  /** Resolve a row-level expression (an aggregate's argument) wanted as `type`. */
  row(expr: Expr, type: ValueType): ResolvedRow;
  condition(condition: Condition): Predicate;
  /** Whether `expr` names the timeslice value (`newrelic.timeslice.value`, or the spec's alias). */
  isTimesliceValue(expr: Expr): boolean;
  /** Lower a nested aggregate expression (the first argument of rate/filter/percentage). */
  aggregate(expr: Expr, set: AggregateAdder): LoweredAggregate;
  /** Text of an expression as written canonically (for result keys). */
  text(expr: Expr): string;
  /**
   * Timeslices of Apdex metrics only: `apdex(value)` reads their re-purposed slots and nothing else.
   * Absent where the rows are already one Apdex metric's (a REST value's formula).
   */
  readonly apdexMetrics?: () => Predicate;
}

export interface LoweredAggregate {
  readonly output: OutputExpr;
  /** The result key when the select item has no alias (`count`, `average.duration`). */
  readonly key: string;
  /** Values (or list items) are dictionary ids to show as text. */
  readonly decode?: DictionaryName;
  /** A list output's length limit (`uniques(x, 50)`). */
  readonly listLimit?: number;
  /** Which function ranks facets when this is the first aggregate (§3 FACET). */
  readonly rank: 'value' | 'frequency';
}

interface FunctionEntry {
  /** Canonical spelling, used in result keys. */
  readonly name: string;
  readonly minArgs: number;
  readonly maxArgs: number;
  readonly lower: (args: readonly Arg[], call: CallInfo, ctx: LowerContext, set: AggregateAdder) => LoweredAggregate;
}

interface CallInfo {
  readonly name: string;
  readonly span: Span;
}

/** Default and largest list length of `uniques()`. */
export const UNIQUES_DEFAULT_LIMIT = 1000;
export const UNIQUES_MAX_LIMIT = 10_000;
/** `apdex(duration)` without `t:`: New Relic's default of half a second. */
const DEFAULT_APDEX_T = 0.5;

const badArgs = (call: CallInfo, message: string, span: Span = call.span) =>
  new NrqlError('NRQL_BAD_ARGUMENTS', `${call.name}(): ${message}`, span);

function exprArg(args: readonly Arg[], i: number, call: CallInfo): Expr {
  const arg = args[i];
  if (!arg || arg.kind === 'whereArg' || arg.kind === 'namedArg') {
    throw badArgs(call, `argument ${i + 1} must be an expression`, arg?.span);
  }
  return arg;
}

function whereArg(args: readonly Arg[], call: CallInfo): Condition {
  const arg = args[1];
  if (!arg || arg.kind !== 'whereArg') throw badArgs(call, 'the second argument must be WHERE <condition>', arg?.span);
  return arg.condition;
}

function attributeKey(name: string, arg: Expr, ctx: LowerContext): string {
  return arg.kind === 'star' ? name : `${name}.${arg.kind === 'attribute' ? arg.name : ctx.text(arg)}`;
}

/**
 * The arithmetic of the derived aggregates, written once: every average, standard deviation,
 * rate, Apdex score and percentage Timeslice computes (NRQL, REST values, summaries) is one of these
 * over primitive aggregates.
 */
export const derived = {
  /** Σx ÷ n. */
  average: (sum: OutputExpr, n: OutputExpr): OutputExpr => out.arith('/', sum, n),
  /** Population standard deviation from Σx, Σx² and n: √(Σx²/n − (Σx/n)²), never below 0. */
  stddev(sum: OutputExpr, squares: OutputExpr, n: OutputExpr): OutputExpr {
    const mean = derived.average(sum, n);
    return out.sqrt(out.clampMin0(out.arith('-', out.arith('/', squares, n), out.arith('*', mean, mean))));
  },
  /** Per `perSeconds` over the result group's own length: a bucket, or the whole window. */
  rate: (inner: OutputExpr, perSeconds: number): OutputExpr => out.arith('/', out.arith('*', inner, out.number(perSeconds)), out.groupSeconds),
  /** (S + T/2) ÷ (S + T + F). */
  apdexScore: (s: OutputExpr, t: OutputExpr, f: OutputExpr): OutputExpr =>
    out.arith('/', out.arith('+', s, out.arith('/', t, out.number(2))), out.arith('+', out.arith('+', s, t), f)),
  /** `part` as a percentage of `whole`; null when `whole` is 0. */
  percent: (part: OutputExpr, whole: OutputExpr): OutputExpr => out.arith('*', out.number(100), out.arith('/', part, whole)),
};

type SummaryName = 'count' | 'sum' | 'average' | 'min' | 'max' | 'stddev';

/**
 * Summary semantics over the timeslice value: its parts are summed across points, then combined
 * (`count(V)` = Σ count, `average(V)` = Σ total ÷ Σ count).
 */
function overTimesliceValue(name: SummaryName, set: AggregateAdder): OutputExpr {
  const sumOf = (part: string) => out.aggregate(set.add({ fn: 'sum', arg: field(part) }));
  switch (name) {
    case 'count':
      return out.zeroIfNull(sumOf('count'));
    case 'sum':
      return out.zeroIfNull(sumOf('total'));
    case 'average':
      return derived.average(sumOf('total'), sumOf('count'));
    case 'min':
    case 'max':
      return out.aggregate(set.add({ fn: name, arg: field(name) }));
    case 'stddev': {
      // The calls' standard deviation: their sum is Σ total, their sum of squares Σ sumOfSquares.
      const total = sumOf('total');
      const count = sumOf('count');
      return derived.stddev(total, sumOf('sumOfSquares'), count);
    }
    default:
      return assertNever(name);
  }
}

/** One of the summary functions: count, sum, average, min, max, stddev. */
function summary(name: SummaryName, canonical: string): FunctionEntry {
  return {
    name: canonical,
    minArgs: 1,
    maxArgs: 2,
    lower(args, call, ctx, set) {
      const arg = exprArg(args, 0, call);
      const key = attributeKey(canonical, arg, ctx);
      const rank = name === 'count' || name === 'average' || name === 'min' || name === 'max' ? 'value' : 'frequency';
      const named = args[1];
      if (ctx.source === 'timeslices' && ctx.isTimesliceValue(arg)) {
        if (named) {
          // average(V, exclusiveTime: true): Σ exclusive ÷ Σ count, pooled over points.
          if (name !== 'average' || named.kind !== 'namedArg' || named.name !== 'exclusiveTime') {
            throw badArgs(call, 'the only option is average(value, exclusiveTime: true)', named.span);
          }
          if (named.value.kind !== 'boolean') throw badArgs(call, 'exclusiveTime takes true or false', named.value.span);
          if (named.value.value) {
            const exclusive = out.aggregate(set.add({ fn: 'sum', arg: field('totalExclusive') }));
            const count = out.aggregate(set.add({ fn: 'sum', arg: field('count') }));
            return { output: derived.average(exclusive, count), key, rank };
          }
        }
        return { output: overTimesliceValue(name, set), key, rank };
      }
      if (named) throw badArgs(call, 'takes one argument', named.span);
      // Anything else, a number computed per data point (`V['totalExclusive'] / V['count']`)
      // as well as an event attribute, has row semantics: each row contributes one number.
      if (name === 'count') {
        if (arg.kind === 'star') return { output: out.zeroIfNull(out.aggregate(set.add({ fn: 'countRows' }))), key: 'count', rank };
        return { output: out.zeroIfNull(out.aggregate(set.add({ fn: 'count', arg: ctx.row(arg, 'any').expr }))), key, rank };
      }
      if (arg.kind === 'star') throw badArgs(call, '* is only an argument of count()', arg.span);
      const x = ctx.row(arg, 'number').expr;
      const sum = () => out.aggregate(set.add({ fn: 'sum', arg: x }));
      const n = () => out.aggregate(set.add({ fn: 'count', arg: x }));
      switch (name) {
        case 'sum':
          return { output: out.zeroIfNull(sum()), key, rank };
        case 'average':
          return { output: derived.average(sum(), n()), key, rank };
        case 'min':
        case 'max':
          return { output: out.aggregate(set.add({ fn: name, arg: x })), key, rank };
        case 'stddev': {
          const total = sum();
          const count = n();
          return { output: derived.stddev(total, out.aggregate(set.add({ fn: 'sum', arg: rowArith('*', x, x) })), count), key, rank };
        }
        default:
          throw badArgs(call, 'is not a summary function');
      }
    },
  };
}

function listOrLatest(fn: 'distinct' | 'latest' | 'earliest', canonical: string): FunctionEntry {
  return {
    name: canonical,
    minArgs: 1,
    maxArgs: fn === 'distinct' ? 2 : 1,
    lower(args, call, ctx, set) {
      const arg = exprArg(args, 0, call);
      if (arg.kind === 'star' || ctx.isTimesliceValue(arg)) throw badArgs(call, 'takes an attribute', arg.span);
      // As JSON text, so a number sent as a number comes back as one (parsed when shaping).
      const row = ctx.row(arg, 'json');
      let listLimit: number | undefined;
      if (fn === 'distinct') {
        listLimit = UNIQUES_DEFAULT_LIMIT;
        if (args[1]) {
          const limit = exprArg(args, 1, call);
          if (limit.kind !== 'number' || !Number.isInteger(limit.value) || limit.value < 1) throw badArgs(call, 'the limit must be a positive whole number', limit.span);
          if (limit.value > UNIQUES_MAX_LIMIT) {
            throw new NrqlError('NRQL_LIMIT_EXCEEDED', `uniques() lists at most ${UNIQUES_MAX_LIMIT} values; ${limit.value} was asked`, limit.span);
          }
          listLimit = limit.value;
        }
      }
      const index = set.add({ fn, arg: row.expr });
      return {
        output: out.value(index),
        key: attributeKey(canonical, arg, ctx),
        ...(row.decode ? { decode: row.decode } : {}),
        ...(listLimit !== undefined ? { listLimit } : {}),
        rank: 'frequency',
      };
    },
  };
}

function percentiles(canonical: 'percentile' | 'median'): FunctionEntry {
  return {
    name: canonical,
    minArgs: 1,
    maxArgs: canonical === 'median' ? 1 : 11,
    lower(args, call, ctx, set) {
      const arg = exprArg(args, 0, call);
      if (arg.kind === 'star' || ctx.isTimesliceValue(arg)) throw badArgs(call, 'takes a numeric attribute of events', arg.span);
      let levels: number[] = canonical === 'median' ? [50] : [];
      for (let i = 1; i < args.length; i++) {
        const level = exprArg(args, i, call);
        if (level.kind !== 'number' || level.value < 0 || level.value > 100) throw badArgs(call, 'percentiles are numbers from 0 to 100', level.span);
        levels.push(level.value);
      }
      if (levels.length === 0) levels = [95];
      const index = set.add({ fn: 'quantiles', arg: ctx.row(arg, 'number').expr, fractions: levels.map((p) => p / 100) });
      return {
        output: out.object(levels.map((p, i) => [String(p), out.item(index, i)] as const)),
        key: attributeKey(canonical, arg, ctx),
        rank: 'value',
      };
    },
  };
}

const uniqueCount: FunctionEntry = {
  name: 'uniqueCount',
  minArgs: 1,
  maxArgs: 1,
  lower(args, call, ctx, set) {
    const arg = exprArg(args, 0, call);
    if (arg.kind === 'star' || ctx.isTimesliceValue(arg)) throw badArgs(call, 'takes an attribute', arg.span);
    return { output: out.zeroIfNull(out.aggregate(set.add({ fn: 'countDistinct', arg: ctx.row(arg, 'any').expr }))), key: attributeKey('uniqueCount', arg, ctx), rank: 'frequency' };
  },
};

const rate: FunctionEntry = {
  name: 'rate',
  minArgs: 2,
  maxArgs: 2,
  lower(args, call, ctx, set) {
    const inner = ctx.aggregate(exprArg(args, 0, call), set);
    const interval = exprArg(args, 1, call);
    if (interval.kind !== 'interval') throw badArgs(call, 'the second argument is a time interval such as 1 minute', interval.span);
    const seconds = intervalMs(interval.interval) / 1000;
    if (seconds <= 0) throw badArgs(call, 'the interval must be longer than zero', interval.span);
    return { output: derived.rate(inner.output, seconds), key: 'rate', rank: 'frequency' };
  },
};

const filter: FunctionEntry = {
  name: 'filter',
  minArgs: 2,
  maxArgs: 2,
  lower(args, call, ctx, set) {
    const inner = ctx.aggregate(exprArg(args, 0, call), set.filtered(ctx.condition(whereArg(args, call))));
    return { ...inner, key: `filter.${inner.key}`, rank: 'frequency' };
  },
};

const percentage: FunctionEntry = {
  name: 'percentage',
  minArgs: 2,
  maxArgs: 2,
  lower(args, call, ctx, set) {
    const expr = exprArg(args, 0, call);
    const part = ctx.aggregate(expr, set.filtered(ctx.condition(whereArg(args, call))));
    const whole = ctx.aggregate(expr, set);
    return { output: derived.percent(part.output, whole.output), key: 'percentage', rank: 'frequency' };
  },
};

const apdex: FunctionEntry = {
  name: 'apdex',
  minArgs: 1,
  maxArgs: 2,
  lower(args, call, ctx, set) {
    const arg = exprArg(args, 0, call);
    const key = attributeKey('apdex', arg, ctx);
    if (ctx.isTimesliceValue(arg)) {
      if (args[1]) throw badArgs(call, 'an Apdex metric carries its own T; apdex(value) takes no t:', args[1].span);
      // Apdex timeslices reuse the slots: count = satisfied, total = tolerating, totalExclusive = frustrated.
      // Other metrics' slots hold times, not counts: they take no part.
      const apdexSet = ctx.apdexMetrics ? set.filtered(ctx.apdexMetrics()) : set;
      const s = out.zeroIfNull(out.aggregate(apdexSet.add({ fn: 'sum', arg: field('count') })));
      const t = out.zeroIfNull(out.aggregate(apdexSet.add({ fn: 'sum', arg: field('total') })));
      const f = out.zeroIfNull(out.aggregate(apdexSet.add({ fn: 'sum', arg: field('totalExclusive') })));
      // Over no rows all three are 0 and the score 0 ÷ 0, null.
      return { output: apdexObject(derived.apdexScore(s, t, f), s, t, f), key, rank: 'frequency' };
    }
    if (arg.kind === 'star') throw badArgs(call, 'takes a duration attribute', arg.span);
    let threshold = DEFAULT_APDEX_T;
    const named = args[1];
    if (named) {
      if (named.kind !== 'namedArg' || named.name !== 't' || named.value.kind !== 'number' || !(named.value.value > 0)) {
        throw badArgs(call, 'the second argument is t: <seconds>, a number above zero', named.span);
      }
      threshold = named.value.value;
    }
    const x = ctx.row(arg, 'number').expr;
    const lit = (v: number): RowExpr => ({ kind: 'literal', value: v });
    const countWhere = (where: Predicate) => out.zeroIfNull(out.aggregate(set.add({ fn: 'count', arg: x, where })));
    const s = countWhere({ kind: 'compare', op: '<=', left: x, right: lit(threshold) });
    const t = countWhere({ kind: 'and', items: [{ kind: 'compare', op: '>', left: x, right: lit(threshold) }, { kind: 'compare', op: '<=', left: x, right: lit(4 * threshold) }] });
    const f = countWhere({ kind: 'compare', op: '>', left: x, right: lit(4 * threshold) });
    return { output: apdexObject(derived.apdexScore(s, t, f), s, t, f), key, rank: 'frequency' };
  },
};

function apdexObject(score: OutputExpr, s: OutputExpr, t: OutputExpr, f: OutputExpr): OutputExpr {
  return out.object([['score', score], ['s', s], ['t', t], ['f', f], ['count', out.arith('+', out.arith('+', s, t), f)]]);
}

/**
 * The aggregate functions, by lower-cased name. Adding a function is one entry here plus a
 * golden case in `test/golden/nrql/`.
 */
export const AGGREGATE_FUNCTIONS: ReadonlyMap<string, FunctionEntry> = new Map(
  [
    summary('count', 'count'),
    summary('sum', 'sum'),
    summary('average', 'average'),
    summary('min', 'min'),
    summary('max', 'max'),
    summary('stddev', 'stddev'),
    uniqueCount,
    listOrLatest('distinct', 'uniques'),
    listOrLatest('latest', 'latest'),
    listOrLatest('earliest', 'earliest'),
    percentiles('percentile'),
    percentiles('median'),
    rate,
    filter,
    percentage,
    apdex,
  ].map((entry) => [entry.name.toLowerCase(), entry]),
);

/** Row-level functions (usable in WHERE, FACET and inside aggregates). */
export const ROW_FUNCTIONS = ['eventType', 'getField'] as const;

/** Functions New Relic has that this subset refuses by name rather than calling them unknown. */
export const UNSUPPORTED_FUNCTIONS = [
  'funnel', 'histogram', 'lookup', 'keyset', 'bucketPercentile', 'cdfPercentage', 'derivative', 'predictLinear',
  'latestrate', 'cardinality', 'dimensions', 'aparse', 'capture', 'jparse', 'stdvar', 'buckets', 'accountId',
  'abs', 'ceil', 'floor', 'round', 'sqrt', 'pow', 'exp', 'ln', 'log', 'log2', 'log10', 'clamp_min', 'clamp_max',
  'hourOf', 'dateOf', 'weekdayOf', 'minuteOf', 'monthOf', 'yearOf', 'if', 'concat', 'substring', 'lower', 'upper',
] as const;

/** Every function name the analyzer knows, for "did you mean". */
export const KNOWN_FUNCTION_NAMES: readonly string[] = [...[...AGGREGATE_FUNCTIONS.values()].map((f) => f.name), ...ROW_FUNCTIONS];

export function aggregateFunction(name: string): FunctionEntry | undefined {
  return AGGREGATE_FUNCTIONS.get(name.toLowerCase());
}
