import type { AggregateFn } from '../plan/expressions.js';

/** A bound value. Timestamps are typed so each engine binds its own timestamp type. */
export type SqlParam = number | string | boolean | { readonly timestampMs: number };

export interface RenderedSql {
  readonly sql: string;
  readonly params: readonly SqlParam[];
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
  aggregate(fn: AggregateFn, argSql: string | undefined, whereSql: string | undefined): string;
  /** Index of the equal-width bucket holding `timeSql`, counted from `beginSql`, as an integer. */
  bucketIndex(timeSql: string, beginMsSql: string, widthMsSql: string): string;
  /** Division that yields NULL instead of failing or giving infinity when the divisor is 0. */
  divide(leftSql: string, rightSql: string): string;
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
