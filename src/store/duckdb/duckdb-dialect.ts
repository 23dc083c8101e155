import { assertNever } from '../../plan/expressions.js';
import { registerDialect, type Dialect } from '../../sql/dialect.js';

/** `true`/`false` in any case (a JSON boolean reads as that text too); anything else is no boolean. */
const booleanText = (text: string) => `CASE lower(${text}) WHEN 'true' THEN TRUE WHEN 'false' THEN FALSE END`;

export const duckdbDialect: Dialect = {
  name: 'duckdb',
  quoteIdentifier: (name) => `"${name.replaceAll('"', '""')}"`,
  placeholder: (index) => `$${index}`,
  aggregate(fn, argSql, whereSql, context) {
    const filter = whereSql ? ` FILTER (WHERE ${whereSql})` : '';
    switch (fn) {
      case 'countRows': return `count(*)${filter}`;
      case 'count': return `count(${argSql})${filter}`;
      case 'sum': return `sum(${argSql})${filter}`;
      case 'min': return `min(${argSql})${filter}`;
      case 'max': return `max(${argSql})${filter}`;
      case 'countDistinct': return `count(DISTINCT ${argSql})${filter}`;
      // A NULL is one more item of the list, which the shape stage drops: a FILTER for it costs a third more.
      case 'distinct': return `list(DISTINCT ${argSql})${filter}`;
      case 'latest': return `arg_max(${argSql}, ${context.timeSql}) FILTER (WHERE ${argSql} IS NOT NULL${whereSql ? ` AND (${whereSql})` : ''})`;
      case 'earliest': return `arg_min(${argSql}, ${context.timeSql}) FILTER (WHERE ${argSql} IS NOT NULL${whereSql ? ` AND (${whereSql})` : ''})`;
      case 'quantiles': return `quantile_disc(${argSql}, ${context.fractionsSql}::DOUBLE[])${filter}`;
      default: return assertNever(fn);
    }
  },
  // epoch_ms of a TIMESTAMP is a BIGINT; the executor binds whole-number parameters as BIGINT, so `//` stays integral.
  bucketIndex: (timeSql, beginMsSql, widthMsSql) => `CAST((epoch_ms(${timeSql}) - ${beginMsSql}) // ${widthMsSql} AS INTEGER)`,
  divide: (left, right) => `(${left} / NULLIF(${right}, 0))`,
  epochMs: (timeSql) => `epoch_ms(${timeSql})`,
  asDouble: (sql) => `CAST(${sql} AS DOUBLE)`,
  castText: (sql, to) => (to === 'json' ? `CAST(to_json(${sql}) AS VARCHAR)` : `CAST(${sql} AS VARCHAR)`),
  convert(column, kind, type) {
    switch (type) {
      case 'any': return column;
      case 'number': return kind === 'double' || kind === 'integer' ? column : kind === 'timestamp' ? `epoch_ms(${column})` : `TRY_CAST(${column} AS DOUBLE)`;
      case 'string': return kind === 'string' ? column : `CAST(${column} AS VARCHAR)`;
      // Booleans are booleans, or the text true/false; a number is not a boolean.
      case 'boolean': return kind === 'boolean' ? column : kind === 'string' ? booleanText(column) : 'CAST(NULL AS BOOLEAN)';
      case 'json': return `CAST(to_json(${column}) AS VARCHAR)`;
      default: return assertNever(type);
    }
  },
  jsonAttribute(maps, path, type) {
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
  },
  // A JSON pointer (RFC 6901): unlike `$."…"` paths it has no wildcard (`*`) and names the empty key.
  jsonPath: (attribute) => `/${attribute.replaceAll('~', '~0').replaceAll('/', '~1')}`,
  like: (expr, pattern) => `(${expr} ILIKE ${pattern} ESCAPE '\\')`,
  escapeLike: (pattern) => pattern.replaceAll('\\', '\\\\').replaceAll('_', '\\_'),
  regexFullMatch: (expr, pattern) => `regexp_full_match(${expr}, ${pattern})`,
  // Lists of text: each side cast by DuckDB, so a bound number compares as the column's number does.
  tupleIn: (exprs, tuples) => `[${exprs.map((e) => `CAST(${e} AS VARCHAR)`).join(', ')}] IN (${tuples.map((t) => `[${t.map((v) => `CAST(${v} AS VARCHAR)`).join(', ')}]`).join(', ')})`,
  jsonObject: (pairs) => `CAST(json_object(${pairs.map(([k, v]) => `${k}, ${v}`).join(', ')}) AS VARCHAR)`,
};

registerDialect(duckdbDialect);
