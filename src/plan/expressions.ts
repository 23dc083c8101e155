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

export type RowExpr =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'literal'; readonly value: number | string | boolean | null }
  | { readonly kind: 'arith'; readonly op: ArithOp; readonly left: RowExpr; readonly right: RowExpr };

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';
export type Literal = number | string | boolean;

export type Predicate =
  | { readonly kind: 'true' }
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly left: RowExpr; readonly right: RowExpr }
  | { readonly kind: 'in'; readonly expr: RowExpr; readonly values: readonly Literal[]; readonly negated: boolean }
  | { readonly kind: 'isNull'; readonly expr: RowExpr; readonly negated: boolean }
  | { readonly kind: 'and' | 'or'; readonly items: readonly Predicate[] }
  | { readonly kind: 'not'; readonly item: Predicate };

/** `count` counts rows whose argument is not null; `countRows` counts rows. */
export type AggregateFn = 'sum' | 'min' | 'max' | 'count' | 'countRows';

export interface AggregateCall {
  readonly fn: AggregateFn;
  readonly arg?: RowExpr;
  /** Only rows matching this take part (NRQL `filter()`). */
  readonly where?: Predicate;
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
  | { readonly kind: 'zeroIfNull'; readonly arg: OutputExpr };

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
};

/** A stable identity for an aggregate, so equal aggregates are computed once. */
export function aggregateKey(call: AggregateCall): string {
  return JSON.stringify([call.fn, call.arg ?? null, call.where ?? null]);
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
      default: return assertNever(call.fn);
    }
  });
}

/**
 * Evaluates an output expression for one group from its primitive aggregates (null where the
 * group had no rows for one) and its length in seconds. Arithmetic with a null is null and
 * division by zero is null, as in NRQL.
 */
export function evaluateOutput(expr: OutputExpr, aggregates: readonly (number | null)[], groupSeconds: number): number | null {
  switch (expr.kind) {
    case 'aggregate':
      return aggregates[expr.index] ?? null;
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

export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
