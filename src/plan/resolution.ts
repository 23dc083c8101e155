import type { AggregatePlan, TimeWindow } from './aggregate-plan.js';
import type { AggregateCall, Predicate, RowExpr } from './expressions.js';

export const HOUR_MS = 3_600_000;

/** Which timeslices a store holds at which resolution, as of now. */
export interface TimesliceCoverage {
  /** Hours before this are rolled up (each exactly once); null: none yet. */
  readonly hourlyUntilMs: number | null;
  /** 1-minute timeslices from this time on are all kept; earlier ones may have expired. Null: none expire. */
  readonly minuteFromMs: number | null;
}

/** The resolution that answered a timeslice plan. */
export type TimesliceResolution = 'minute' | 'hour' | 'mixed';

/** Fields an hourly rollup keeps as they are: the row's identity. */
const KEY_FIELDS: ReadonlySet<string> = new Set(['appId', 'hostId', 'instanceId', 'metricId', 'scopeId']);

/** The aggregates whose value over rollups equals their value over the minutes rolled up. */
const ROLLED_UP: Readonly<Record<string, ReadonlySet<string>>> = {
  sum: new Set(['count', 'total', 'totalExclusive', 'sumOfSquares']),
  min: new Set(['min']),
  max: new Set(['max']),
};

function rowKeysOnly(expr: RowExpr): boolean {
  switch (expr.kind) {
    case 'field': return KEY_FIELDS.has(expr.name);
    case 'literal': case 'eventType': return true;
    case 'arith': return rowKeysOnly(expr.left) && rowKeysOnly(expr.right);
    case 'cast': return rowKeysOnly(expr.expr);
    case 'coalesce': return expr.items.every(rowKeysOnly);
    case 'lookup': return rowKeysOnly(expr.expr);
    case 'cases': return expr.cases.every((c) => predicateKeysOnly(c.when) && rowKeysOnly(c.then)) && (!expr.otherwise || rowKeysOnly(expr.otherwise));
    default: {
      const never: never = expr;
      return never;
    }
  }
}

function predicateKeysOnly(p: Predicate): boolean {
  switch (p.kind) {
    case 'true': return true;
    case 'compare': return rowKeysOnly(p.left) && rowKeysOnly(p.right);
    case 'in': case 'isNull': case 'isBoolean': case 'like': case 'regex': return rowKeysOnly(p.expr);
    case 'tupleIn': return p.exprs.every(rowKeysOnly);
    case 'and': case 'or': return p.items.every(predicateKeysOnly);
    case 'not': return predicateKeysOnly(p.item);
    default: {
      const never: never = p;
      return never;
    }
  }
}

const isField = (expr: RowExpr | undefined, name: string) => expr?.kind === 'field' && expr.name === name && (expr.type ?? 'number') === 'number';

/**
 * A per-point number the rollups keep the sum and the count of, as two fields of the rollup rows:
 * each minute's exclusive time per call (REST's `average_exclusive_time`, `average(V['totalExclusive'] /
 * V['count'])`), which no sum of the six numbers gives.
 */
export const ROLLED_UP_POINTS = [
  {
    matches: (e: RowExpr | undefined) => e?.kind === 'arith' && e.op === '/' && isField(e.left, 'totalExclusive') && isField(e.right, 'count'),
    sum: 'exclusivePerCall',
    count: 'exclusivePerCallPoints',
  },
] as const;

/** The call as it reads rollup rows; undefined when they cannot answer it. */
function overRollups(call: AggregateCall): AggregateCall | undefined {
  if (call.where && !predicateKeysOnly(call.where)) return undefined;
  const parts = ROLLED_UP[call.fn];
  if (parts !== undefined && call.arg?.kind === 'field' && parts.has(call.arg.name) && (call.arg.type ?? 'number') === 'number') return call;
  const point = ROLLED_UP_POINTS.find((p) => p.matches(call.arg));
  if (!point) return undefined;
  // Sum of the points' sums; the number of points is the sum of the points' counts.
  if (call.fn === 'sum') return { ...call, arg: { kind: 'field', name: point.sum } };
  if (call.fn === 'count') return { ...call, fn: 'sum', arg: { kind: 'field', name: point.count } };
  return undefined;
}

/** Aggregates, filters and groups that rollups answer as the minutes they summarize. */
function rowsRollUp(plan: AggregatePlan): boolean {
  return plan.source.kind === 'timeslices'
    && plan.aggregates.length > 0
    && plan.aggregates.every((call) => overRollups(call) !== undefined)
    && predicateKeysOnly(plan.where)
    && plan.groupBy.every(rowKeysOnly);
}

const hourAligned = (plan: AggregatePlan) => !plan.buckets || (plan.buckets.beginMs % HOUR_MS === 0 && plan.buckets.widthMs % HOUR_MS === 0);

/**
 * Whether hourly rollups answer `plan` exactly as the 1-minute timeslices they summarize: every
 * aggregate is one the summary algebra merges (sums of counts, totals, exclusives and squares; min
 * of mins; max of maxes) or the sum or count of a point the rollups keep (`ROLLED_UP_POINTS`), rows
 * are filtered and grouped by their identity only (not by a value or the minute), and time buckets
 * are whole hours on hour boundaries, so no rollup straddles two.
 */
export function rollupAnswers(plan: AggregatePlan): boolean {
  return rowsRollUp(plan) && hourAligned(plan);
}

/** The whole hours of `window` before `untilMs`: [ceil(begin), min(floor(end), until)). */
function hoursOf(window: TimeWindow, untilMs: number): TimeWindow | undefined {
  const beginMs = Math.ceil(window.beginMs / HOUR_MS) * HOUR_MS;
  const endMs = Math.min(Math.floor(window.endMs / HOUR_MS) * HOUR_MS, untilMs);
  return beginMs < endMs ? { beginMs, endMs } : undefined;
}

/**
 * The plan with its timeslice source reading rollups for the whole hours they cover and 1-minute
 * timeslices for the rest of the window, when rollups answer it exactly (`rollupAnswers`), its
 * aggregates of kept points reading their fields (which 1-minute rows compute); else the plan as
 * it is. The answer is the same either way for the data both hold; once 1-minute data has
 * expired, only the rollups still have it. Every surface's plan passes through here in the store,
 * so REST, NRQL and the graph API keep agreeing.
 *
 * Buckets of an hour or more that are not on hour boundaries (NRQL lays TIMESERIES buckets back
 * from now) cannot be answered exactly from rollups; the 1-minute timeslices answer them while
 * they are kept, and the rollups only for the hours whose minutes may have expired (before
 * `minuteFromMs`, to the next whole hour), each rollup counted in the bucket its hour begins in.
 */
export function chooseResolution(plan: AggregatePlan, coverage: TimesliceCoverage): { plan: AggregatePlan; resolution: TimesliceResolution } {
  if (!rowsRollUp(plan) || coverage.hourlyUntilMs === null) return { plan, resolution: 'minute' };
  let until = coverage.hourlyUntilMs;
  if (!hourAligned(plan)) {
    if (plan.buckets!.widthMs < HOUR_MS || coverage.minuteFromMs === null) return { plan, resolution: 'minute' };
    until = Math.min(until, Math.ceil(coverage.minuteFromMs / HOUR_MS) * HOUR_MS);
  }
  const hourly = hoursOf(plan.window, until);
  if (!hourly) return { plan, resolution: 'minute' };
  const whole = hourly.beginMs === plan.window.beginMs && hourly.endMs === plan.window.endMs;
  return {
    plan: { ...plan, source: { kind: 'timeslices', hourly }, aggregates: plan.aggregates.map((call) => overRollups(call)!) },
    resolution: whole ? 'hour' : 'mixed',
  };
}
