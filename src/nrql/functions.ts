import type { AggregateAdder } from '../plan/aggregate-plan.js';
import { assertNever, field, out, rowArith, type OutputExpr, type Predicate, type RowExpr, type ValueType } from '../plan/expressions.js';
import type { Arg, Condition, Expr, Span } from './ast.js';
import type { DictionaryName } from './dictionaries.js';
import { formatCondition } from './format.js';
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
  /** The query's now (epoch ms): times in a regression are seconds from it, small enough to square exactly enough. */
  readonly nowMs: number;
  /** The end of the query's window when its results have that one window (no TIMESERIES, no COMPARE WITH). */
  readonly windowEndMs?: number;
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
  if (arg.label !== undefined) throw badArgs(call, "a WHERE argument takes no label (AS 'label' names funnel() steps)", arg.span);
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

const STDDEV = summary('stddev', 'stddev');

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

/** `stdvar(x)`: the variance, the square of `stddev(x)` (population, as stddev). */
const stdvar: FunctionEntry = {
  name: 'stdvar',
  minArgs: 1,
  maxArgs: 1,
  lower(args, call, ctx, set) {
    const arg = exprArg(args, 0, call);
    if (arg.kind === 'star') throw badArgs(call, 'takes a numeric attribute', arg.span);
    const sd = STDDEV.lower(args, { ...call, name: 'stddev' }, ctx, set);
    return { output: out.arith('*', sd.output, sd.output), key: attributeKey('stdvar', arg, ctx), rank: 'frequency' };
  },
};

/** A numeric attribute of events: the functions that bin or regress values take no timeslice value or `*`. */
function eventNumber(args: readonly Arg[], call: CallInfo, ctx: LowerContext): { arg: Expr; x: RowExpr } {
  const arg = exprArg(args, 0, call);
  if (arg.kind === 'star' || ctx.isTimesliceValue(arg)) throw badArgs(call, 'takes a numeric attribute of events', arg.span);
  return { arg, x: ctx.row(arg, 'number').expr };
}

/** The most bins of a histogram (New Relic's limit). */
export const HISTOGRAM_MAX_BUCKETS = 500;

/**
 * `histogram(x, width, buckets, start)` (positional or `width:`, `buckets:`, `start:`): `buckets`
 * equal bins over [start, start + width), defaults 10, 40 and 0; a value below the range counts in
 * the first bin, one at or above it in the last. The result is the list of the bins' counts.
 */
const histogram: FunctionEntry = {
  name: 'histogram',
  minArgs: 1,
  maxArgs: 4,
  lower(args, call, ctx, set) {
    const { arg, x } = eventNumber(args, call, ctx);
    const options: Record<'width' | 'buckets' | 'start', number> = { width: 10, buckets: 40, start: 0 };
    const names = ['width', 'buckets', 'start'] as const;
    const given = new Set<string>();
    args.slice(1).forEach((a, i) => {
      const name = a.kind === 'namedArg' ? a.name : names[i]!;
      const value = a.kind === 'namedArg' ? a.value : a;
      if (!(names as readonly string[]).includes(name)) throw badArgs(call, `unknown option ${name}: (it takes width, buckets and start)`, a.span);
      if (given.has(name)) throw badArgs(call, `${name} is given twice`, a.span);
      given.add(name);
      const number = value.kind === 'number' ? value.value : value.kind === 'negate' && value.operand.kind === 'number' ? -value.operand.value : undefined;
      if (value.kind === 'whereArg' || number === undefined) throw badArgs(call, `${name} must be a number`, a.span);
      options[name as keyof typeof options] = number;
    });
    if (!(options.width > 0)) throw badArgs(call, `width must be above zero, not ${options.width}`);
    if (!Number.isInteger(options.buckets) || options.buckets < 1 || options.buckets > HISTOGRAM_MAX_BUCKETS) {
      throw new NrqlError('NRQL_LIMIT_EXCEEDED', `histogram(): buckets must be a whole number from 1 to ${HISTOGRAM_MAX_BUCKETS}, not ${options.buckets}`, call.span);
    }
    const lit = (v: number): RowExpr => ({ kind: 'literal', value: v });
    const step = options.width / options.buckets;
    const bins: OutputExpr[] = [];
    for (let i = 0; i < options.buckets; i++) {
      const bounds: Predicate[] = [];
      if (i > 0) bounds.push({ kind: 'compare', op: '>=', left: x, right: lit(options.start + i * step) });
      if (i < options.buckets - 1) bounds.push({ kind: 'compare', op: '<', left: x, right: lit(options.start + (i + 1) * step) });
      const where: Predicate = bounds.length === 0 ? { kind: 'true' } : bounds.length === 1 ? bounds[0]! : { kind: 'and', items: bounds };
      bins.push(out.zeroIfNull(out.aggregate(set.add({ fn: 'count', arg: x, ...(where.kind === 'true' ? {} : { where }) }))));
    }
    return { output: out.list(bins), key: attributeKey('histogram', arg, ctx), rank: 'frequency' };
  },
};

/** `cdfPercentage(x, t1, t2…)`: for each threshold, the percentage of values at or below it, keyed by the threshold. */
const cdfPercentage: FunctionEntry = {
  name: 'cdfPercentage',
  minArgs: 2,
  maxArgs: 11,
  lower(args, call, ctx, set) {
    const { arg, x } = eventNumber(args, call, ctx);
    const all = out.aggregate(set.add({ fn: 'count', arg: x }));
    const entries = args.slice(1).map((a, i) => {
      const threshold = exprArg(args, i + 1, call);
      const value = threshold.kind === 'number' ? threshold.value : threshold.kind === 'negate' && threshold.operand.kind === 'number' ? -threshold.operand.value : undefined;
      if (value === undefined) throw badArgs(call, 'thresholds are numbers', a.span);
      const atOrBelow = out.zeroIfNull(out.aggregate(set.add({ fn: 'count', arg: x, where: { kind: 'compare', op: '<=', left: x, right: { kind: 'literal', value } } })));
      return [String(value), out.arith('*', out.number(100), out.arith('/', atOrBelow, all))] as const;
    });
    return { output: out.object(entries), key: attributeKey('cdfPercentage', arg, ctx), rank: 'frequency' };
  },
};

/**
 * `derivative(x, interval)`: the rate of change of `x` per `interval`, the slope of the least-squares
 * line through (time, x) over the group's events: (nΣtx − ΣtΣx) ÷ (nΣt² − (Σt)²) per second, times the
 * interval. Null with fewer than two distinct times. Times are seconds from the query's now.
 */
const derivative: FunctionEntry = {
  name: 'derivative',
  minArgs: 2,
  maxArgs: 2,
  lower(args, call, ctx, set) {
    const { arg, x } = eventNumber(args, call, ctx);
    const seconds = intervalSeconds(args, call);
    const line = leastSquares(x, call, ctx, set);
    return { output: out.arith('*', line.slope, out.number(seconds)), key: attributeKey('derivative', arg, ctx), rank: 'frequency' };
  },
};

/**
 * `predictLinear(x, interval)`: the value the least-squares line through (time, x) reaches
 * `interval` after the end of the query's window: mean x + slope × (target − mean t). New Relic
 * advises against it with TIMESERIES, where each bucket predicts from its own end; Timeslice
 * refuses it there and with COMPARE WITH.
 */
const predictLinear: FunctionEntry = {
  name: 'predictLinear',
  minArgs: 2,
  maxArgs: 2,
  lower(args, call, ctx, set) {
    const { arg, x } = eventNumber(args, call, ctx);
    const seconds = intervalSeconds(args, call);
    if (ctx.windowEndMs === undefined) {
      throw new NrqlError('NRQL_UNSUPPORTED', 'predictLinear() predicts from the end of the query\'s window: it is not supported with TIMESERIES or COMPARE WITH', call.span);
    }
    const line = leastSquares(x, call, ctx, set);
    const target = (ctx.windowEndMs - ctx.nowMs) / 1000 + seconds;
    const meanT = out.arith('/', line.st, line.n);
    const meanX = out.arith('/', line.sx, line.n);
    return { output: out.arith('+', meanX, out.arith('*', line.slope, out.arith('-', out.number(target), meanT))), key: attributeKey('predictLinear', arg, ctx), rank: 'frequency' };
  },
};

function intervalSeconds(args: readonly Arg[], call: CallInfo): number {
  const interval = exprArg(args, 1, call);
  if (interval.kind !== 'interval') throw badArgs(call, 'the second argument is a time interval such as 1 minute', interval.span);
  const seconds = intervalMs(interval.interval) / 1000;
  if (seconds <= 0) throw badArgs(call, 'the interval must be longer than zero', interval.span);
  return seconds;
}

/**
 * The least-squares line through (t, x) over the group's events, t in seconds from the query's
 * now: slope (nΣtx − ΣtΣx) ÷ (nΣt² − (Σt)²) per second (null with fewer than two distinct times),
 * and the sums it is made of.
 */
function leastSquares(x: RowExpr, call: CallInfo, ctx: LowerContext, set: AggregateAdder): { slope: OutputExpr; n: OutputExpr; st: OutputExpr; sx: OutputExpr } {
  const time = ctx.row({ kind: 'attribute', name: 'timestamp', span: call.span }, 'number').expr;
  // x·0 makes t null where x is, so every sum runs over the same events.
  const t = rowArith('+', rowArith('/', rowArith('-', time, { kind: 'literal', value: ctx.nowMs }), { kind: 'literal', value: 1000 }), rowArith('*', x, { kind: 'literal', value: 0 }));
  const sum = (e: RowExpr) => out.aggregate(set.add({ fn: 'sum', arg: e }));
  const n = out.aggregate(set.add({ fn: 'count', arg: x }));
  const st = sum(t);
  const sx = sum(x);
  const slope = out.arith('/',
    out.arith('-', out.arith('*', n, sum(rowArith('*', t, x))), out.arith('*', st, sx)),
    out.arith('-', out.arith('*', n, sum(rowArith('*', t, t))), out.arith('*', st, st)));
  return { slope, n, st, sx };
}

/** The most steps of a funnel: each step's count takes 2^(step − 1) distinct counts. */
export const FUNNEL_MAX_STEPS = 8;

/**
 * `funnel(attr, WHERE step1 [AS 'label'], WHERE step2…)`: for each step, how many distinct values of
 * `attr` have events matching that step and every step before it (in any order in time). A value
 * in all of A₁…Aⱼ is counted by inclusion–exclusion over distinct counts of unions, each an
 * ordinary filtered count of distinct values: |A₁ ∩ … ∩ Aⱼ| = Σ over non-empty S ⊆ {1…j} of
 * (−1)^(|S|+1) · |∪ᵢ∈S Aᵢ|. The result is an object keyed by the steps' labels (a step without one
 * is named by its condition), in step order.
 */
const funnel: FunctionEntry = {
  name: 'funnel',
  minArgs: 2,
  maxArgs: 1 + FUNNEL_MAX_STEPS,
  lower(args, call, ctx, set) {
    const arg = exprArg(args, 0, call);
    if (arg.kind === 'star' || ctx.isTimesliceValue(arg)) throw badArgs(call, 'the first argument is an attribute of events', arg.span);
    const value = ctx.row(arg, 'any').expr;
    const steps = args.slice(1).map((a) => {
      if (a.kind !== 'whereArg') throw badArgs(call, "steps are WHERE <condition> AS 'label'", a.span);
      return { label: a.label ?? formatCondition(a.condition), where: ctx.condition(a.condition) };
    });
    const labels = new Set<string>();
    for (const [i, step] of steps.entries()) {
      if (labels.has(step.label)) throw badArgs(call, `two steps are labelled '${step.label}'`, args[i + 1]!.span);
      labels.add(step.label);
    }
    const union = (members: number[]) => out.zeroIfNull(out.aggregate(set.add({
      fn: 'countDistinct', arg: value,
      where: members.length === 1 ? steps[members[0]!]!.where : { kind: 'or', items: members.map((m) => steps[m]!.where) },
    })));
    const entries = steps.map((step, j) => {
      let total: OutputExpr | undefined;
      for (let mask = 1; mask < 1 << (j + 1); mask++) {
        const members = [...Array(j + 1).keys()].filter((i) => (mask & (1 << i)) !== 0);
        const term = union(members);
        if (total === undefined) total = term;
        else total = out.arith(members.length % 2 === 1 ? '+' : '-', total, term);
      }
      return [step.label, total!] as const;
    });
    return { output: out.object(entries), key: attributeKey('funnel', arg, ctx), rank: 'frequency' };
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
    STDDEV,
    stdvar,
    histogram,
    cdfPercentage,
    derivative,
    funnel,
    predictLinear,
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
  'lookup', 'keyset', 'bucketPercentile',
  'latestrate', 'cardinality', 'dimensions', 'aparse', 'capture', 'jparse', 'buckets', 'accountId',
  'abs', 'ceil', 'floor', 'round', 'sqrt', 'pow', 'exp', 'ln', 'log', 'log2', 'log10', 'clamp_min', 'clamp_max',
  'hourOf', 'dateOf', 'weekdayOf', 'minuteOf', 'monthOf', 'yearOf', 'if', 'concat', 'substring', 'lower', 'upper',
  'dayOfMonthOf', 'weekOf', 'quarterOf', 'toDatetime', 'toTimestamp', 'length', 'position', 'string', 'numeric', 'boolean',
  'mod', 'blob', 'bytecountestimate', 'convert', 'decode', 'encode', 'getCdfCount', 'mapKeys', 'mapValues',
] as const;

/** Every function name the analyzer knows, for "did you mean". */
export const KNOWN_FUNCTION_NAMES: readonly string[] = [...[...AGGREGATE_FUNCTIONS.values()].map((f) => f.name), ...ROW_FUNCTIONS];

export function aggregateFunction(name: string): FunctionEntry | undefined {
  return AGGREGATE_FUNCTIONS.get(name.toLowerCase());
}
