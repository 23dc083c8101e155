import { aggregateKey, and, type AggregateCall, type OutputExpr, type Predicate, type RowExpr } from './expressions.js';

/**
 * Stored timeslices: one summary per metric per minute (and host, instance, scope). With `hourly`,
 * rows of that part of the window are read from hourly rollups instead (whole hours, chosen by
 * `plan/resolution.ts`), the rest of the window from 1-minute timeslices.
 */
export interface TimesliceSource { readonly kind: 'timeslices'; readonly hourly?: TimeWindow }
/**
 * Stored events of these types (NRQL `FROM Transaction, PageView`), as one stream of rows.
 * Field names are NRQL attribute names (`duration`, `request.uri`); which column or attribute
 * map holds each is the store's business (`store/duckdb/sources.ts`).
 */
export interface EventSource { readonly kind: 'events'; readonly eventTypes: readonly string[] }
/** Every custom event, whatever its type; its type is the field `eventType` (for SHOW EVENT TYPES). */
export interface AllCustomEventsSource { readonly kind: 'allCustomEvents' }
export type PlanSource = TimesliceSource | EventSource | AllCustomEventsSource;

/**
 * Fields of the timeslice source, by their logical names. The value fields carry NRQL's names
 * for the parts of `newrelic.timeslice.value`, so `V['totalExclusive']` lowers to a field as is.
 */
export const TIMESLICE_FIELDS = [
  'appId', 'hostId', 'instanceId', 'metricId', 'scopeId',
  'count', 'total', 'totalExclusive', 'min', 'max', 'sumOfSquares',
] as const;
export type TimesliceField = (typeof TIMESLICE_FIELDS)[number];

/** Begin inclusive, end exclusive, epoch milliseconds. */
export interface TimeWindow { readonly beginMs: number; readonly endMs: number }

/** Equal-width time buckets covering the window exactly: `beginMs + count × widthMs = endMs`. */
export interface Buckets { readonly beginMs: number; readonly widthMs: number; readonly count: number }

export interface PlanOutput { readonly name: string; readonly expr: OutputExpr }

/**
 * "Aggregate these rows of this account over this window, grouped by these keys (and time
 * buckets), and derive these outputs." The one plan every surface compiles to: REST metric
 * data builds it from the value table, NRQL from its analyzed query. The account is a field of
 * its own, not a predicate, so no plan can leave it out.
 */
export interface AggregatePlan {
  readonly kind: 'aggregate';
  readonly source: PlanSource;
  /** One account, or several (NerdGraph's `nrql(accounts: [...])`). */
  readonly accountId: number | readonly number[];
  readonly window: TimeWindow;
  readonly where: Predicate;
  readonly groupBy: readonly RowExpr[];
  readonly buckets?: Buckets;
  readonly aggregates: readonly AggregateCall[];
  readonly outputs: readonly PlanOutput[];
  /** Return only the groups that can rank among the first few (a FACET's LIMIT), not every group. */
  readonly top?: TopGroups;
}

/**
 * The groups ranked within the first `limit` by `by`, descending with nulls last, ties at the
 * boundary all kept; a group with a null key, or a value of 0 or null in aggregate `presence`,
 * ranks after every other. The caller still ranks what comes back (its own tie-break included):
 * this only spares reading groups that cannot be among the first (a FACET on a unique attribute
 * has as many groups as rows), and an executor that returns every group is still right.
 */
export interface TopGroups {
  readonly by: RankExpr;
  readonly limit: number;
  readonly presence?: number;
}

/** A number per group the SQL can order by: an aggregate, one item of a list aggregate, or either with null as 0. */
export type RankExpr =
  | { readonly kind: 'aggregate'; readonly index: number }
  | { readonly kind: 'item'; readonly index: number; readonly item: number }
  | { readonly kind: 'zeroIfNull'; readonly arg: RankExpr };

/** Row ordering for a rows plan. */
export interface RowOrder { readonly expr: RowExpr; readonly descending: boolean }

/**
 * "List these rows of this account over this window": NRQL `SELECT *` and attribute lists.
 * `columns` are the expressions wanted per row; `all` also asks for every attribute each row has
 * (the executor answers it as one attribute object per row, `StoredRow` in `store/plan-executor.ts`).
 */
export interface RowsPlan {
  readonly kind: 'rows';
  readonly source: PlanSource;
  readonly accountId: number | readonly number[];
  readonly window: TimeWindow;
  readonly where: Predicate;
  readonly columns: readonly RowExpr[];
  readonly all: boolean;
  readonly orderBy: readonly RowOrder[];
  readonly limit: number;
  readonly offset: number;
}

/** Collects aggregates for a plan, computing each distinct aggregate once. */
export class AggregateSet {
  private readonly calls: AggregateCall[] = [];
  private readonly indexByKey = new Map<string, number>();

  /** `key`: the call's `aggregateKey`, when the caller has it already (a formula lowered once). */
  add(call: AggregateCall, key: string = aggregateKey(call)): number {
    let index = this.indexByKey.get(key);
    if (index === undefined) {
      index = this.calls.length;
      this.calls.push(call);
      this.indexByKey.set(key, index);
    }
    return index;
  }

  get all(): readonly AggregateCall[] {
    return this.calls;
  }

  /**
   * The same set, seen through a filter: every aggregate added through the view counts only
   * rows matching `where` (NRQL `filter(agg, WHERE …)`, nested filters combine with AND).
   */
  filtered(where: Predicate): AggregateAdder {
    return {
      add: (call) => this.add({ ...call, where: call.where ? and(where, call.where) : where }),
      filtered: (inner) => this.filtered(and(where, inner)),
    };
  }
}

/** What lowering needs of an `AggregateSet`: add an aggregate, or narrow to a filter. */
export interface AggregateAdder {
  /** `key` is the call's `aggregateKey` if known; an adder that changes the call computes its own. */
  add(call: AggregateCall, key?: string): number;
  filtered(where: Predicate): AggregateAdder;
}

/** Buckets of `widthMs` covering a window whose length is a whole number of widths. */
export function bucketsFor(window: TimeWindow, widthMs: number): Buckets {
  const span = window.endMs - window.beginMs;
  if (widthMs <= 0 || span <= 0 || span % widthMs !== 0) {
    throw new Error(`window of ${span} ms is not a whole number of ${widthMs} ms buckets`);
  }
  return { beginMs: window.beginMs, widthMs, count: span / widthMs };
}
