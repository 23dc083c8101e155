/**
 * The NRQL syntax tree: immutable plain data with a `kind`, produced by `parse` and printed by
 * `format`. Every node carries the span of source text it came from, so later stages can
 * point at the exact text an error is about. Names are kept as written (function names,
 * attribute names, event types); resolving them is the analyzer's job, not the parser's.
 *
 * Round-trip contract: `parse(format(parse(q)))` equals `parse(q)` once spans are removed
 * (`stripSpans`).
 */

/** Offsets into the query text: `start` inclusive, `end` exclusive, 0-based UTF-16 units. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

export const TIME_UNITS = ['millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

/** `5 minutes`: `amount` is a non-negative integer. */
export interface Interval {
  readonly amount: number;
  readonly unit: TimeUnit;
}

export type ArithmeticOp = '+' | '-' | '*' | '/';

export type Expr =
  | { readonly kind: 'number'; readonly value: number; readonly span: Span }
  | { readonly kind: 'string'; readonly value: string; readonly span: Span }
  | { readonly kind: 'boolean'; readonly value: boolean; readonly span: Span }
  | { readonly kind: 'null'; readonly span: Span }
  /** An attribute or event-type-independent name such as `duration`, `entity.guid`, `` `Logged-in user` ``. */
  | { readonly kind: 'attribute'; readonly name: string; readonly span: Span }
  /** `*`: only as a SELECT item or as a function argument (`count(*)`). */
  | { readonly kind: 'star'; readonly span: Span }
  /** `name(args)`; `name` as written (functions are matched case-insensitively later). */
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Arg[]; readonly span: Span }
  /** `target['field']`: one part of a compound value, e.g. `newrelic.timeslice.value['count']`. */
  | { readonly kind: 'fieldAccess'; readonly target: Expr; readonly field: string; readonly span: Span }
  | { readonly kind: 'negate'; readonly operand: Expr; readonly span: Span }
  | { readonly kind: 'arithmetic'; readonly op: ArithmeticOp; readonly left: Expr; readonly right: Expr; readonly span: Span }
  /** `a OR b` outside WHERE: `b` when `a` is null. */
  | { readonly kind: 'coalesce'; readonly left: Expr; readonly right: Expr; readonly span: Span }
  /** `1 minute` as a function argument (`rate(count(*), 1 minute)`). */
  | { readonly kind: 'interval'; readonly interval: Interval; readonly span: Span };

/** A function argument: an expression, `WHERE <condition>`, or `name: value`. */
export type Arg =
  | Expr
  /** `WHERE <condition>`, labelled in funnel() steps: `WHERE <condition> AS 'label'`. */
  | { readonly kind: 'whereArg'; readonly condition: Condition; readonly label?: string; readonly span: Span }
  | { readonly kind: 'namedArg'; readonly name: string; readonly value: Expr; readonly span: Span };

/** `<>` is read as `!=`. */
export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

export type Condition =
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly left: Expr; readonly right: Expr; readonly span: Span }
  /** `values` are literals (number, string, boolean, null) as written. */
  | { readonly kind: 'in'; readonly expr: Expr; readonly values: readonly Expr[]; readonly negated: boolean; readonly span: Span }
  | { readonly kind: 'like'; readonly expr: Expr; readonly pattern: string; readonly negated: boolean; readonly span: Span }
  /** `pattern` is the regex text (from `r'…'` or `'…'`); matched against the whole string. */
  | { readonly kind: 'rlike'; readonly expr: Expr; readonly pattern: string; readonly negated: boolean; readonly span: Span }
  | { readonly kind: 'is'; readonly expr: Expr; readonly test: 'null' | 'true' | 'false'; readonly negated: boolean; readonly span: Span }
  /** Binary and left-associative as parsed: `a AND b AND c` is `and(and(a, b), c)`. */
  | { readonly kind: 'and' | 'or'; readonly left: Condition; readonly right: Condition; readonly span: Span }
  | { readonly kind: 'not'; readonly operand: Condition; readonly span: Span };

export interface SelectItem {
  readonly expr: Expr;
  readonly alias?: string;
  readonly span: Span;
}

export interface EventTypeRef {
  readonly name: string;
  readonly span: Span;
}

export interface FacetCase {
  readonly condition: Condition;
  readonly label?: string;
  readonly span: Span;
}

export type FacetItem =
  | { readonly kind: 'facetExpr'; readonly expr: Expr; readonly alias?: string; readonly span: Span }
  /** `CASES (WHERE … AS 'x', …) [OR attr]`. */
  | { readonly kind: 'facetCases'; readonly cases: readonly FacetCase[]; readonly otherwise?: Expr; readonly span: Span };

export interface Facet {
  readonly items: readonly FacetItem[];
  /** `FACET … ORDER BY <expr>`: which facets survive the limit. */
  readonly orderBy?: Expr;
  readonly span: Span;
}

/** Bucket size of TIMESERIES: bare `TIMESERIES` is `auto`. */
export type BucketSize = 'auto' | 'max' | Interval;

export interface Timeseries {
  readonly size: BucketSize;
  readonly slideBy?: BucketSize;
  /** True when written as bare `TIMESERIES` (kept so the formatter prints what was written). */
  readonly bare: boolean;
  readonly span: Span;
}

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type DayRef = 'today' | 'yesterday' | (typeof WEEKDAYS)[number];

export type TimePoint =
  | { readonly kind: 'ago'; readonly interval: Interval; readonly span: Span }
  | { readonly kind: 'now'; readonly span: Span }
  | { readonly kind: 'epochMs'; readonly ms: number; readonly span: Span }
  /** A quoted date-time text such as `'2023-12-18 10:00 CST'`, resolved by the analyzer. */
  | { readonly kind: 'dateTime'; readonly text: string; readonly span: Span }
  | { readonly kind: 'day'; readonly day: DayRef; readonly at?: string; readonly span: Span }
  | { readonly kind: 'calendar'; readonly which: 'this' | 'last'; readonly unit: 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year'; readonly span: Span };

export interface OrderItem {
  readonly expr: Expr;
  readonly descending: boolean;
  /** Whether ASC/DESC was written (ASC is the default). */
  readonly explicit: boolean;
  readonly span: Span;
}

/** Where single-value clauses were written, from keyword to value, for errors about them. */
export interface ClauseSpans {
  readonly limit?: Span;
  readonly offset?: Span;
  readonly compareWith?: Span;
  readonly timezone?: Span;
  readonly metricFormat?: Span;
}

/** A SELECT query. Clauses may be written in any order, each at most once. */
export interface SelectQuery {
  readonly kind: 'select';
  readonly select: readonly SelectItem[];
  readonly from: readonly EventTypeRef[];
  readonly where?: Condition;
  readonly facet?: Facet;
  readonly timeseries?: Timeseries;
  readonly since?: TimePoint;
  readonly until?: TimePoint;
  readonly compareWith?: Interval;
  readonly limit?: number | 'max';
  readonly offset?: number;
  readonly orderBy?: readonly OrderItem[];
  readonly timezone?: string;
  readonly metricFormat?: string;
  readonly extrapolate: boolean;
  /** Positions of clauses whose value is a plain number or string (set by the parser). */
  readonly clauseSpans?: ClauseSpans;
  readonly span: Span;
}

export interface ShowEventTypesQuery {
  readonly kind: 'showEventTypes';
  readonly since?: TimePoint;
  readonly until?: TimePoint;
  readonly span: Span;
}

export type Query = SelectQuery | ShowEventTypesQuery;

/** A deep copy without positions (`span`, `clauseSpans`): what the round-trip contract compares. */
export function stripSpans<T>(node: T): T {
  return JSON.parse(JSON.stringify(node, (key, value) => (key === 'span' || key === 'clauseSpans' ? undefined : value))) as T;
}
