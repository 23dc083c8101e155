import { assertNever, type AggregateFn, type ValueType } from '../plan/expressions.js';
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
  /** The fractions themselves, for an engine that takes each as a literal of its own (ClickHouse). */
  readonly fractions?: readonly number[];
}

/** What an engine's SQL can say, where the generic path has another way to say it. */
export interface DialectCapabilities {
  /** `agg(x) FILTER (WHERE …)`; without it the generic path writes `agg(CASE WHEN … THEN x END)`. */
  readonly filterClause: boolean;
  /** `x IS [NOT] TRUE`; without it the generic path compares with a literal and handles NULL itself. */
  readonly booleanTests: boolean;
}

/** The logical types the renderer casts to. */
export type SqlType = 'string' | 'double' | 'boolean';

/**
 * How SQL is written for one engine. The generic SQL is written once, here and in the renderer
 * (`render-plan.ts`); an engine's dialect extends this class and overrides only what its SQL
 * says differently, or what has no portable form (JSON, regular expressions, time arithmetic,
 * lists), which fails loudly here. Only a dialect quotes identifiers; values never appear in
 * SQL text, only as placeholders, each rendered knowing its value (ClickHouse's are typed:
 * `{p1:Float64}`).
 */
export abstract class SqlDialect {
  abstract readonly name: string;
  readonly capabilities: DialectCapabilities = { filterClause: true, booleanTests: true };

  quoteIdentifier(name: string): string {
    return `"${name.replaceAll('"', '""')}"`;
  }

  /** Placeholder for the 1-based parameter `index`, which binds `value`. */
  placeholder(index: number, _value: SqlParam): string {
    return `$${index}`;
  }

  /** The name of a logical type in CAST. */
  typeName(type: SqlType): string {
    switch (type) {
      case 'string': return 'VARCHAR';
      case 'double': return 'DOUBLE PRECISION';
      case 'boolean': return 'BOOLEAN';
    }
  }

  /** A typed NULL, for a CASE or COALESCE whose branches must agree on their type. */
  nullOf(type: SqlType): string {
    return `CAST(NULL AS ${this.typeName(type)})`;
  }

  booleanLiteral(value: boolean): string {
    return value ? 'TRUE' : 'FALSE';
  }

  /** `expr IS [NOT] TRUE|FALSE`: never NULL, a NULL is neither. */
  isBoolean(exprSql: string, value: boolean, negated: boolean): string {
    if (this.capabilities.booleanTests) return `${exprSql} IS ${negated ? 'NOT ' : ''}${this.booleanLiteral(value)}`;
    const test = `COALESCE(${exprSql} = ${this.booleanLiteral(value)}, ${this.booleanLiteral(false)})`;
    return negated ? `NOT ${test}` : test;
  }

  /** A primitive aggregate, restricted to rows matching `whereSql` when given. */
  aggregate(fn: AggregateFn, argSql: string | undefined, whereSql: string | undefined, _context: AggregateContext): string {
    if (fn === 'countRows') {
      if (!whereSql) return 'count(*)';
      return this.capabilities.filterClause ? `count(*) FILTER (WHERE ${whereSql})` : `count(CASE WHEN ${whereSql} THEN 1 END)`;
    }
    switch (fn) {
      case 'count': case 'sum': case 'min': case 'max': case 'countDistinct': {
        const name = fn === 'countDistinct' ? 'count(DISTINCT ' : `${fn}(`;
        if (!whereSql) return `${name}${argSql})`;
        return this.capabilities.filterClause ? `${name}${argSql}) FILTER (WHERE ${whereSql})` : `${name}CASE WHEN ${whereSql} THEN ${argSql} END)`;
      }
      case 'distinct': case 'latest': case 'earliest': case 'quantiles':
        return this.missing(`the aggregate ${fn}`);
      default: return assertNever(fn);
    }
  }

  /** Index of the equal-width bucket holding `timeSql`, counted from `beginMsSql`, as an integer. */
  bucketIndex(timeSql: string, beginMsSql: string, widthMsSql: string): string {
    return `CAST(FLOOR((${this.epochMs(timeSql)} - ${beginMsSql}) / ${widthMsSql}) AS INTEGER)`;
  }

  /** Division that yields NULL instead of failing or giving infinity when the divisor is 0. */
  divide(leftSql: string, rightSql: string): string {
    return `(${leftSql} / NULLIF(${rightSql}, 0))`;
  }

  /** Epoch milliseconds of a timestamp column, as an integer. */
  epochMs(_timeSql: string): string {
    return this.missing('epoch milliseconds of a timestamp');
  }

  /** A number as floating point. */
  asDouble(sql: string): string {
    return `CAST(${sql} AS ${this.typeName('double')})`;
  }

  /** Any value as text, or as its JSON text. */
  castText(sql: string, to: 'string' | 'json'): string {
    return to === 'json' ? this.missing('values as JSON text') : `CAST(${sql} AS ${this.typeName('string')})`;
  }

  /** A typed column's value as `type` wants it (NULL where it does not convert). */
  convert(_columnSql: string, _kind: ColumnKind, _type: ValueType): string {
    return this.missing('typed column conversions');
  }

  /**
   * An attribute from JSON-text attribute maps, the first map that has it, as `type` wants it.
   * `pathSql` is a bound JSON path naming the attribute (`jsonPath`).
   */
  jsonAttribute(_mapSqls: readonly string[], _pathSql: string, _type: ValueType): string {
    return this.missing('attributes in JSON maps');
  }

  /** The JSON path parameter for an attribute name (bound, never spliced). */
  jsonPath(_attribute: string): string {
    return this.missing('JSON paths');
  }

  /** Case-insensitive match with `%` as the only wildcard; `patternSql` is bound, already escaped by `escapeLike`. */
  like(exprSql: string, patternSql: string): string {
    return `(LOWER(${exprSql}) LIKE LOWER(${patternSql}) ESCAPE '\\')`;
  }

  /** NRQL LIKE text → the engine's pattern: `%` stays a wildcard, everything else is literal. */
  escapeLike(pattern: string): string {
    return pattern.replaceAll('\\', '\\\\').replaceAll('_', '\\_');
  }

  /** Whole-string regular-expression match. */
  regexFullMatch(_exprSql: string, _patternSql: string): string {
    return this.missing('regular expressions');
  }

  /** Whether the values of `exprSqls` are one of the tuples (each a list of bound values), compared as text. */
  tupleIn(exprSqls: readonly string[], tupleSqls: readonly (readonly string[])[]): string {
    const text = (sql: string) => `CAST(${sql} AS ${this.typeName('string')})`;
    return `(${exprSqls.map(text).join(', ')}) IN (${tupleSqls.map((t) => `(${t.map(text).join(', ')})`).join(', ')})`;
  }

  /** `expr [NOT] IN (values…)`, NULL where `expr` is NULL; `valueSqls` are bound values (at least one). */
  inList(exprSql: string, valueSqls: readonly string[], negated: boolean): string {
    return `${exprSql} ${negated ? 'NOT IN' : 'IN'} (${valueSqls.join(', ')})`;
  }

  /** `CASE key WHEN v THEN r … END`: the value of the first entry whose bound value equals the key, else NULL. */
  caseOf(keySql: string, entries: readonly (readonly [valueSql: string, resultSql: string])[]): string {
    return `CASE ${keySql} ${entries.map(([v, r]) => `WHEN ${v} THEN ${r}`).join(' ')} END`;
  }

  /** A JSON object text from key/value SQL pairs (row listings). Keys are bound. */
  jsonObject(_pairs: readonly (readonly [keySql: string, valueSql: string])[]): string {
    return this.missing('JSON objects');
  }

  /** A capability this engine's dialect has not written: an error naming both, never wrong SQL. */
  protected missing(what: string): never {
    throw new Error(`the ${this.name} SQL dialect cannot render ${what}`);
  }
}

export type Dialect = SqlDialect;
