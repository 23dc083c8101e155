/**
 * The expression vocabulary of a logical plan. Three levels, each plain immutable data:
 *
 * - `RowExpr`: evaluated per stored row (a timeslice field, a literal, arithmetic).
 * - `AggregateCall`: a primitive, mergeable aggregate over rows (sum, min, max, count), the
 *   only thing the SQL engine computes. Averages, rates, Apdex and standard deviation are not
 *   primitives: they are `OutputExpr`s over primitives, so per-slice results can be merged
 *   exactly and every surface derives a value with the same arithmetic.
 * - `OutputExpr`: evaluated per result group (per slice) over the primitive aggregates and the
 *   group's length in seconds, by `evaluateOutput` below.
 */

export type ArithOp = '+' | '-' | '*' | '/';

/**
 * How a row expression's value is wanted. Typed columns have one type; attributes kept in an
 * event's attribute maps have whatever the sender gave, so the use decides: `number` for
 * arithmetic and numeric aggregates, `string` for LIKE and string comparison, `boolean` for
 * `IS TRUE`, `any` when only presence or identity matters (count, uniqueCount, IS NULL,
 * FACET), `json` for values shown as they are (row listings: the JSON text of the value).
 */
export type ValueType = 'number' | 'string' | 'boolean' | 'any' | 'json';

export type RowExpr =
  /** A field of the source by its logical name; `type` defaults to `number`. */
  | { readonly kind: 'field'; readonly name: string; readonly type?: ValueType }
  | { readonly kind: 'literal'; readonly value: number | string | boolean | null }
  | { readonly kind: 'arith'; readonly op: ArithOp; readonly left: RowExpr; readonly right: RowExpr }
  /** The row's event type name (NRQL `eventType()`): constant within each source branch. */
  | { readonly kind: 'eventType' }
  /** A value as text (`string`), or as the JSON text of the value (`json`). */
  | { readonly kind: 'cast'; readonly expr: RowExpr; readonly to: 'string' | 'json' }
  /** The first non-null item (NRQL `a OR b` outside WHERE). */
  | { readonly kind: 'coalesce'; readonly items: readonly RowExpr[] }
  /** The text of an id from a small dictionary, looked up in the query (null for an unknown id). */
  | { readonly kind: 'lookup'; readonly expr: RowExpr; readonly entries: readonly (readonly [number, string])[]; readonly json?: boolean }
  /** The `then` of the first matching `when`, else `otherwise` (NRQL `FACET CASES`). */
  | { readonly kind: 'cases'; readonly cases: readonly { readonly when: Predicate; readonly then: RowExpr }[]; readonly otherwise?: RowExpr };

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';
export type Literal = number | string | boolean;

export type Predicate =
  | { readonly kind: 'true' }
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly left: RowExpr; readonly right: RowExpr }
  | { readonly kind: 'in'; readonly expr: RowExpr; readonly values: readonly Literal[]; readonly negated: boolean }
  | { readonly kind: 'isNull'; readonly expr: RowExpr; readonly negated: boolean }
  /** `IS [NOT] TRUE|FALSE`. */
  | { readonly kind: 'isBoolean'; readonly expr: RowExpr; readonly value: boolean; readonly negated: boolean }
  /** Case-insensitive match where `%` is the only wildcard (NRQL LIKE); `_` and `\\` are literal. */
  | { readonly kind: 'like'; readonly expr: RowExpr; readonly pattern: string; readonly negated: boolean }
  /** Whole-string RE2 match (NRQL RLIKE). */
  | { readonly kind: 'regex'; readonly expr: RowExpr; readonly pattern: string; readonly negated: boolean }
  /** The values of `exprs` together are one of `tuples` (compared as text; several facets at once). */
  | { readonly kind: 'tupleIn'; readonly exprs: readonly RowExpr[]; readonly tuples: readonly (readonly Literal[])[] }
  | { readonly kind: 'and' | 'or'; readonly items: readonly Predicate[] }
  | { readonly kind: 'not'; readonly item: Predicate };

/**
 * `count` counts rows whose argument is not null; `countRows` counts rows. The first five merge
 * across groups (`mergeAggregates`); the others are computed over the group they answer for:
 * `countDistinct` (a number), `distinct` (a list of values), `latest`/`earliest` (the argument
 * of the newest/oldest row), `quantiles` (a list, one value per fraction of `fractions`).
 */
export type AggregateFn = 'sum' | 'min' | 'max' | 'count' | 'countRows' | 'countDistinct' | 'distinct' | 'latest' | 'earliest' | 'quantiles';

export const MERGEABLE_AGGREGATES: ReadonlySet<AggregateFn> = new Set(['sum', 'min', 'max', 'count', 'countRows']);

export interface AggregateCall {
  readonly fn: AggregateFn;
  readonly arg?: RowExpr;
  /** Only rows matching this take part (NRQL `filter()`). */
  readonly where?: Predicate;
  /** For `quantiles`: the fractions (0..1) wanted. */
  readonly fractions?: readonly number[];
}

export type OutputExpr =
  | { readonly kind: 'aggregate'; readonly index: number }
  | { readonly kind: 'number'; readonly value: number }
  /** The length of the result group's time range in seconds (a slice, or the whole window). */
  | { readonly kind: 'groupSeconds' }
  | { readonly kind: 'arith'; readonly op: ArithOp; readonly left: OutputExpr; readonly right: OutputExpr }
  | { readonly kind: 'sqrt'; readonly arg: OutputExpr }
  /** max(0, arg): variance computed from sums can come out a hair below zero. */
  | { readonly kind: 'clampMin0'; readonly arg: OutputExpr }
  /** NRQL's count and sum of nothing are 0, where SQL's sum of no rows is NULL. */
  | { readonly kind: 'zeroIfNull'; readonly arg: OutputExpr }
  /** A non-numeric aggregate as it came (a list of values, a value of any type). */
  | { readonly kind: 'value'; readonly index: number }
  /** Named outputs as one object (`apdex` → `{score, s, t, f, count}`, `percentile` → `{"50": …}`). */
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, OutputExpr])[] }
  /** Item `item` of a list-valued aggregate (one quantile of several). */
  | { readonly kind: 'item'; readonly index: number; readonly item: number }
  /** Outputs as one list (`histogram` → its bins' counts). */
  | { readonly kind: 'list'; readonly items: readonly OutputExpr[] };

export const field = (name: string): RowExpr => ({ kind: 'field', name });
export const literal = (value: number | string | boolean | null): RowExpr => ({ kind: 'literal', value });
export const rowArith = (op: ArithOp, left: RowExpr, right: RowExpr): RowExpr => ({ kind: 'arith', op, left, right });

export const eq = (name: string, value: Literal): Predicate => ({ kind: 'compare', op: '=', left: field(name), right: literal(value) });
export const isIn = (name: string, values: readonly Literal[]): Predicate => ({ kind: 'in', expr: field(name), values, negated: false });
export function and(...items: Predicate[]): Predicate {
  const flat = items.flatMap((p) => (p.kind === 'and' ? p.items : p.kind === 'true' ? [] : [p]));
  if (flat.length === 0) return { kind: 'true' };
  return flat.length === 1 ? flat[0]! : { kind: 'and', items: flat };
}

export const out = {
  aggregate: (index: number): OutputExpr => ({ kind: 'aggregate', index }),
  number: (value: number): OutputExpr => ({ kind: 'number', value }),
  groupSeconds: { kind: 'groupSeconds' } as OutputExpr,
  arith: (op: ArithOp, left: OutputExpr, right: OutputExpr): OutputExpr => ({ kind: 'arith', op, left, right }),
  sqrt: (arg: OutputExpr): OutputExpr => ({ kind: 'sqrt', arg }),
  clampMin0: (arg: OutputExpr): OutputExpr => ({ kind: 'clampMin0', arg }),
  zeroIfNull: (arg: OutputExpr): OutputExpr => ({ kind: 'zeroIfNull', arg }),
  value: (index: number): OutputExpr => ({ kind: 'value', index }),
  object: (entries: readonly (readonly [string, OutputExpr])[]): OutputExpr => ({ kind: 'object', entries }),
  item: (index: number, item: number): OutputExpr => ({ kind: 'item', index, item }),
  list: (items: readonly OutputExpr[]): OutputExpr => ({ kind: 'list', items }),
};

/** A stable identity for an aggregate, so equal aggregates are computed once. */
export function aggregateKey(call: AggregateCall): string {
  return JSON.stringify([call.fn, call.arg ?? null, call.where ?? null, call.fractions ?? null]);
}

/**
 * Merges the primitive aggregates of two groups into those of their union: the summary
 * algebra (counts and sums add, min and max take the extreme; null is the empty group).
 */
export function mergeAggregates(calls: readonly AggregateCall[], a: readonly (number | null)[], b: readonly (number | null)[]): (number | null)[] {
  return calls.map((call, i) => {
    const x = a[i] ?? null;
    const y = b[i] ?? null;
    if (x === null) return y;
    if (y === null) return x;
    switch (call.fn) {
      case 'sum': case 'count': case 'countRows': return x + y;
      case 'min': return Math.min(x, y);
      case 'max': return Math.max(x, y);
      case 'countDistinct': case 'distinct': case 'latest': case 'earliest': case 'quantiles':
        throw new Error(`${call.fn} does not merge across groups; compute it over the union instead`);
      default: return assertNever(call.fn);
    }
  });
}

/**
 * Evaluates an output expression for one group from its primitive aggregates (null where the
 * group had no rows for one) and its length in seconds. Arithmetic with a null is null and
 * division by zero is null, as in NRQL.
 */
export function evaluateOutput(expr: OutputExpr, aggregates: readonly unknown[], groupSeconds: number): number | null {
  switch (expr.kind) {
    case 'aggregate':
    case 'value': {
      const v = aggregates[expr.index];
      return typeof v === 'number' ? v : null;
    }
    case 'item': {
      const list = aggregates[expr.index];
      const v = Array.isArray(list) ? list[expr.item] : null;
      return typeof v === 'number' ? v : null;
    }
    case 'object':
    case 'list':
      return null;
    case 'number':
      return expr.value;
    case 'groupSeconds':
      return groupSeconds;
    case 'arith': {
      const left = evaluateOutput(expr.left, aggregates, groupSeconds);
      const right = evaluateOutput(expr.right, aggregates, groupSeconds);
      if (left === null || right === null) return null;
      switch (expr.op) {
        case '+': return left + right;
        case '-': return left - right;
        case '*': return left * right;
        case '/': return right === 0 ? null : left / right;
        default: return assertNever(expr.op);
      }
    }
    case 'sqrt': {
      const v = evaluateOutput(expr.arg, aggregates, groupSeconds);
      return v === null || v < 0 ? null : Math.sqrt(v);
    }
    case 'clampMin0': {
      const v = evaluateOutput(expr.arg, aggregates, groupSeconds);
      return v === null ? null : Math.max(0, v);
    }
    case 'zeroIfNull':
      return evaluateOutput(expr.arg, aggregates, groupSeconds) ?? 0;
    default:
      return assertNever(expr);
  }
}

/**
 * Like `evaluateOutput`, for outputs whose value need not be a number: lists (`uniques`),
 * strings (`latest(name)`), objects (`apdex`, `percentile`).
 */
export function evaluateValue(expr: OutputExpr, aggregates: readonly unknown[], groupSeconds: number): unknown {
  switch (expr.kind) {
    case 'value':
      return aggregates[expr.index] ?? null;
    case 'item': {
      const list = aggregates[expr.index];
      return Array.isArray(list) ? (list[expr.item] ?? null) : null;
    }
    case 'object':
      return Object.fromEntries(expr.entries.map(([name, e]) => [name, evaluateValue(e, aggregates, groupSeconds)]));
    case 'list':
      return expr.items.map((e) => evaluateValue(e, aggregates, groupSeconds));
    default:
      return evaluateOutput(expr, aggregates, groupSeconds);
  }
}

export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
