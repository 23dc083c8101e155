import type { AggregateFn, ValueType } from '../plan/expressions.js';
import type { ColumnKind } from './physical-schema.js';

/** A bound value. Timestamps are typed so each engine binds its own timestamp type. */
export type SqlParam = number | string | boolean | { readonly timestampMs: number } | { readonly doubles: readonly number[] };

export interface RenderedSql {
  readonly sql: string;
  readonly params: readonly SqlParam[];
}

/** What a primitive aggregate may need besides its argument. */
export interface AggregateContext {
  /** The row's time, for `latest`/`earliest`. */
  readonly timeSql: string;
  /** A bound list of fractions, for `quantiles`. */
  readonly fractionsSql?: string;
}

/**
 * What differs between SQL engines, and nothing else: the generic renderer (`render-plan.ts`)
 * writes everything else once. Only a dialect quotes identifiers; values never appear in SQL
 * text, only as placeholders.
 */
export interface Dialect {
  readonly name: string;
  quoteIdentifier(name: string): string;
  /** Placeholder for the 1-based parameter `index`. */
  placeholder(index: number): string;
  /** A primitive aggregate, restricted to rows matching `whereSql` when given. */
  aggregate(fn: AggregateFn, argSql: string | undefined, whereSql: string | undefined, context: AggregateContext): string;
  /** Index of the equal-width bucket holding `timeSql`, counted from `beginSql`, as an integer. */
  bucketIndex(timeSql: string, beginMsSql: string, widthMsSql: string): string;
  /** Division that yields NULL instead of failing or giving infinity when the divisor is 0. */
  divide(leftSql: string, rightSql: string): string;
  /** Epoch milliseconds of a timestamp column, as an integer. */
  epochMs(timeSql: string): string;
  /** A number as floating point. */
  asDouble(sql: string): string;
  /** Any value as text, or as its JSON text. */
  castText(sql: string, to: 'string' | 'json'): string;
  /** A typed column's value as `type` wants it (NULL where it does not convert). */
  convert(columnSql: string, kind: ColumnKind, type: ValueType): string;
  /**
   * An attribute from JSON-text attribute maps, the first map that has it, as `type` wants it.
   * `pathSql` is a bound JSON path naming the attribute (`jsonPath`).
   */
  jsonAttribute(mapSqls: readonly string[], pathSql: string, type: ValueType): string;
  /** The JSON path parameter for an attribute name (bound, never spliced). */
  jsonPath(attribute: string): string;
  /** Case-insensitive match with `%` as the only wildcard; `patternSql` is bound, already escaped by `escapeLike`. */
  like(exprSql: string, patternSql: string): string;
  /** NRQL LIKE text → the engine's pattern: `%` stays a wildcard, everything else is literal. */
  escapeLike(pattern: string): string;
  /** Whole-string regular-expression match. */
  regexFullMatch(exprSql: string, patternSql: string): string;
  /** Whether the values of `exprSqls` are one of the tuples (each a list of bound values), compared as text. */
  tupleIn(exprSqls: readonly string[], tupleSqls: readonly (readonly string[])[]): string;
  /** A JSON object text from key/value SQL pairs (row listings). Keys are bound. */
  jsonObject(pairs: readonly (readonly [keySql: string, valueSql: string])[]): string;
}

const registry = new Map<string, Dialect>();

export function registerDialect(dialect: Dialect): void {
  registry.set(dialect.name, dialect);
}

export function dialectNamed(name: string): Dialect {
  const dialect = registry.get(name);
  if (!dialect) throw new Error(`no SQL dialect named '${name}' (known: ${[...registry.keys()].join(', ')})`);
  return dialect;
}
