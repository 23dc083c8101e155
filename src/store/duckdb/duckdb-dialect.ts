import { assertNever, type AggregateFn, type ValueType } from '../../plan/expressions.js';
import { SqlDialect, type AggregateContext, type SqlType } from '../../sql/dialect.js';
import type { ColumnKind } from '../../sql/physical-schema.js';

/** `true`/`false` in any case (a JSON boolean reads as that text too); anything else is no boolean. */
const booleanText = (text: string) => `CASE lower(${text}) WHEN 'true' THEN TRUE WHEN 'false' THEN FALSE END`;

/** DuckDB's SQL where it differs from the generic dialect, and what has no portable form. */
export class DuckDbDialect extends SqlDialect {
  readonly name = 'duckdb';

  override typeName(type: SqlType): string {
    return type === 'double' ? 'DOUBLE' : super.typeName(type);
  }

  override aggregate(fn: AggregateFn, argSql: string | undefined, whereSql: string | undefined, context: AggregateContext): string {
    const filter = whereSql ? ` FILTER (WHERE ${whereSql})` : '';
    switch (fn) {
      // A NULL is one more item of the list, which the shape stage drops: a FILTER for it costs a third more.
      case 'distinct': return `list(DISTINCT ${argSql})${filter}`;
      case 'latest': return `arg_max(${argSql}, ${context.timeSql}) FILTER (WHERE ${argSql} IS NOT NULL${whereSql ? ` AND (${whereSql})` : ''})`;
      case 'earliest': return `arg_min(${argSql}, ${context.timeSql}) FILTER (WHERE ${argSql} IS NOT NULL${whereSql ? ` AND (${whereSql})` : ''})`;
      case 'quantiles': return `quantile_disc(${argSql}, ${context.fractionsSql}::DOUBLE[])${filter}`;
      default: return super.aggregate(fn, argSql, whereSql, context);
    }
  }

  // epoch_ms of a TIMESTAMP is a BIGINT; the executor binds whole-number parameters as BIGINT, so `//` stays integral.
  override bucketIndex(timeSql: string, beginMsSql: string, widthMsSql: string): string {
    return `CAST((epoch_ms(${timeSql}) - ${beginMsSql}) // ${widthMsSql} AS INTEGER)`;
  }

  override epochMs(timeSql: string): string {
    return `epoch_ms(${timeSql})`;
  }

  override castText(sql: string, to: 'string' | 'json'): string {
    return to === 'json' ? `CAST(to_json(${sql}) AS VARCHAR)` : super.castText(sql, to);
  }

  override convert(column: string, kind: ColumnKind, type: ValueType): string {
    switch (type) {
      case 'any': return column;
      case 'number': return kind === 'double' || kind === 'integer' ? column : kind === 'timestamp' ? `epoch_ms(${column})` : `TRY_CAST(${column} AS DOUBLE)`;
      case 'string': return kind === 'string' ? column : `CAST(${column} AS VARCHAR)`;
      // Booleans are booleans, or the text true/false; a number is not a boolean.
      case 'boolean': return kind === 'boolean' ? column : kind === 'string' ? booleanText(column) : this.nullOf('boolean');
      case 'json': return `CAST(to_json(${column}) AS VARCHAR)`;
      default: return assertNever(type);
    }
  }

  override jsonAttribute(maps: readonly string[], path: string, type: ValueType): string {
    // A JSON null is an absent attribute, as in New Relic.
    const text = (m: string) => `json_extract_string(${m}, ${path})`;
    const first = (each: (m: string) => string) => (maps.length === 1 ? each(maps[0]!) : `COALESCE(${maps.map(each).join(', ')})`);
    switch (type) {
      case 'any': case 'string': return first(text);
      case 'number': return `TRY_CAST(${first(text)} AS DOUBLE)`;
      case 'boolean': return booleanText(first(text));
      case 'json': return first((m) => `NULLIF(CAST(json_extract(${m}, ${path}) AS VARCHAR), 'null')`);
      default: return assertNever(type);
    }
  }

  // A JSON pointer (RFC 6901): unlike `$."…"` paths it has no wildcard (`*`) and names the empty key.
  override jsonPath(attribute: string): string {
    return `/${attribute.replaceAll('~', '~0').replaceAll('/', '~1')}`;
  }

  override like(expr: string, pattern: string): string {
    return `(${expr} ILIKE ${pattern} ESCAPE '\\')`;
  }

  override regexFullMatch(expr: string, pattern: string): string {
    return `regexp_full_match(${expr}, ${pattern})`;
  }

  // Lists of text: each side cast by DuckDB, so a bound number compares as the column's number does.
  override tupleIn(exprs: readonly string[], tuples: readonly (readonly string[])[]): string {
    return `[${exprs.map((e) => `CAST(${e} AS VARCHAR)`).join(', ')}] IN (${tuples.map((t) => `[${t.map((v) => `CAST(${v} AS VARCHAR)`).join(', ')}]`).join(', ')})`;
  }

  override jsonObject(pairs: readonly (readonly [keySql: string, valueSql: string])[]): string {
    return `CAST(json_object(${pairs.map(([k, v]) => `${k}, ${v}`).join(', ')}) AS VARCHAR)`;
  }
}

export const duckdbDialect = new DuckDbDialect();
