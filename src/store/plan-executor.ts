import type { AggregatePlan, RowsPlan } from '../plan/aggregate-plan.js';
import type { TimesliceResolution } from '../plan/resolution.js';

/**
 * The storage seam of the query path: what the query stages (NRQL, REST, the graph API) need
 * from a store, its engine-neutral results and its errors. Each engine implements
 * `PlanExecutor` in a folder of its own (`store/duckdb/`, `store/memory/`); nothing above this
 * module imports one.
 */

/** A result cell as plain JavaScript: numbers (64-bit integers as numbers), strings, booleans, lists. */
export type PlainValue = number | string | boolean | null | readonly PlainValue[];

/**
 * An aggregate plan's result as columns: one array per group key, the bucket index, each
 * aggregate. Mergeable aggregates are numbers (or null); `distinct` and `quantiles` are arrays;
 * `latest`/`earliest` whatever their argument is. Group keys are plain values too.
 */
export interface AggregateColumns {
  readonly rowCount: number;
  readonly groups: readonly (readonly PlainValue[])[];
  readonly buckets: readonly number[] | undefined;
  readonly aggregates: readonly (readonly (number | null)[])[];
  /** For a timeslice plan: whether 1-minute timeslices, hourly rollups or both answered it (`plan/resolution.ts`). */
  readonly resolution?: TimesliceResolution;
}

/**
 * One row of a rows plan: its time, the values of the plan's `columns` in order and, when the
 * plan asks for `all`, the row's event type and every attribute it has by its NRQL name (typed
 * columns over the attribute maps, the first map that has an attribute winning; the internal
 * id fields of `plan/data-model.ts` included). Attribute values are JSON values as stored.
 */
export interface StoredRow {
  readonly timeMs: number;
  readonly values: readonly PlainValue[];
  readonly eventType?: string;
  readonly attributes?: Readonly<Record<string, unknown>>;
}

/** A rows plan's result: its rows in the plan's order. */
export interface RowsResult {
  readonly rows: readonly StoredRow[];
}

/** Limits one query runs under. */
export interface QueryOptions {
  /** Cancel the statement after this many milliseconds (`QueryTimeoutError`). */
  readonly timeoutMs?: number;
  /**
   * A `performance.now()` time by which the statement must have ended, waiting for a connection
   * included: a query made of several statements shares one budget instead of each getting the
   * whole timeout. Wins over `timeoutMs`.
   */
  readonly deadline?: number;
}

/**
 * The engine holding the data cannot be reached now (a ClickHouse server or shard is down):
 * nothing was read. Surfaces answer 503 with this message; the same request works once it is back.
 */
export class StoreUnavailableError extends Error {}

/** The engine refused the statement for nesting past its expression depth (DuckDB's `max_expression_depth`). */
export class QueryTooDeepError extends Error {}

export class QueryTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the query ran longer than ${timeoutMs} ms and was cancelled`);
  }
}

/** What the query stages need from a store: run a plan, get engine-neutral results. */
export interface PlanExecutor {
  aggregate(plan: AggregatePlan, options?: QueryOptions): Promise<AggregateColumns>;
  rows(plan: RowsPlan, options?: QueryOptions): Promise<RowsResult>;
  /** Why the engine's regex library refuses `pattern`, or undefined when it takes it. */
  regexError(pattern: string): Promise<string | undefined>;
}
