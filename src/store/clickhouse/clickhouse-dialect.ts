import { assertNever, type AggregateFn, type ValueType } from '../../plan/expressions.js';
import { SqlDialect, type AggregateContext, type SqlParam, type SqlType } from '../../sql/dialect.js';
import type { ColumnKind } from '../../sql/physical-schema.js';

/**
 * ClickHouse's SQL, written for the oldest release Timeslice supports (Debian's 18.16) and the
 * current ones alike (docs/scale-out.md lists what it relies on):
 *
 * - Values are rendered as typed, escaped literals, not parameters: 18.16 has no query parameters
 *   (`{p:UInt32}` came in 19.x). `placeholder` sees each value and writes it; the SQL is whole.
 * - No boolean type: booleans are UInt8 0/1 (`booleanTests` off; the executor turns the columns a
 *   plan reads as booleans back into booleans).
 * - Times are Int64 epoch milliseconds (18.16 has no DateTime64), so a timestamp is a number.
 * - No FILTER clause, no window functions, no `CASE x WHEN` (18.16 answers NULL for it), no
 *   JSON functions beyond visitParam*: attribute maps are also stored as parallel arrays of keys,
 *   texts and JSON texts (`<map>_keys`, `<map>_text`, `<map>_json`), each attribute once (the first
 *   map that has it wins, as reads of several maps do), and read by `indexOf`.
 */
export class ClickHouseDialect extends SqlDialect {
  readonly name = 'clickhouse';
  override readonly capabilities = { filterClause: false, booleanTests: false };

  override quoteIdentifier(name: string): string {
    return `"${name.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
  }

  /** The value itself, as a literal of its type. */
  override placeholder(_index: number, value: SqlParam): string {
    return literal(value);
  }

  override typeName(type: SqlType): string {
    switch (type) {
      case 'string': return 'String';
      case 'double': return 'Float64';
      case 'boolean': return 'UInt8';
    }
  }

  override nullOf(type: SqlType): string {
    return `CAST(NULL AS Nullable(${this.typeName(type)}))`;
  }

  override booleanLiteral(value: boolean): string {
    return value ? '1' : '0';
  }

  override aggregate(fn: AggregateFn, argSql: string | undefined, whereSql: string | undefined, context: AggregateContext): string {
    const arg = whereSql && argSql !== undefined ? `CASE WHEN ${whereSql} THEN ${argSql} END` : argSql;
    switch (fn) {
      case 'countRows': return whereSql ? `count(CASE WHEN ${whereSql} THEN 1 END)` : 'count()';
      case 'count': return `count(${arg})`;
      // Over no rows, sum/min/max of a column that cannot be NULL answer 0 in ClickHouse: NULL as elsewhere.
      case 'sum': case 'min': case 'max': return `${fn}(toNullable(${arg}))`;
      case 'countDistinct': return `uniqExact(${arg})`;
      // groupUniqArray skips NULLs; an empty list reads as none (the shape stage drops NULL items anyway).
      case 'distinct': return `groupUniqArray(${arg})`;
      case 'latest': case 'earliest': {
        const fnName = fn === 'latest' ? 'argMax' : 'argMin';
        const present = `${arg} IS NOT NULL`;
        return `if(count(${arg}) = 0, NULL, ${fnName}If(${arg}, ${context.timeSql}, ${present}))`;
      }
      // The discrete quantile (the smallest value with at least a fraction q of the values at or
      // below it), as the reference executor defines it; quantileExact picks another position.
      // One element per fraction (18.16 reads no column a lambda names); none without values.
      case 'quantiles': {
        const fractions = context.fractions ?? [];
        const item = (q: number) => `arrayElement(arraySort(groupArray(${arg})), toUInt64(greatest(1, ceil(count(${arg}) * ${literal({ doubles: [q] }).slice(1, -1)}))))`;
        return `arraySlice([${fractions.map(item).join(', ')}], 1, if(count(${arg}) = 0, 0, ${fractions.length}))`;
      }
      default: return assertNever(fn);
    }
  }

  override bucketIndex(timeSql: string, beginMsSql: string, widthMsSql: string): string {
    return `toInt32(floor((${timeSql} - ${beginMsSql}) / ${widthMsSql}))`;
  }

  /** Time columns hold epoch milliseconds already. */
  override epochMs(timeSql: string): string {
    return timeSql;
  }

  override asDouble(sql: string): string {
    return `toFloat64(${sql})`;
  }

  override castText(sql: string, to: 'string' | 'json'): string {
    return to === 'json' ? this.jsonOfAny(sql) : `toString(${sql})`;
  }

  override convert(column: string, kind: ColumnKind, type: ValueType): string {
    switch (type) {
      case 'any': return column;
      case 'number':
        return kind === 'double' || kind === 'integer' || kind === 'timestamp' ? column : kind === 'boolean' ? `toFloat64(${column})` : `toFloat64OrNull(${column})`;
      case 'string':
        return kind === 'string' ? column : kind === 'boolean' ? booleanText(column) : `toString(${column})`;
      case 'boolean': return kind === 'boolean' ? column : kind === 'string' ? textBoolean(column) : this.nullOf('boolean');
      case 'json':
        return kind === 'string' ? jsonString(column) : kind === 'boolean' ? booleanText(column) : `toString(${column})`;
      default: return assertNever(type);
    }
  }

  /** The attribute from the arrays beside the (one) merged map: `<map>_keys`, `<map>_text`, `<map>_json`. */
  override jsonAttribute(maps: readonly string[], path: string, type: ValueType): string {
    const each = (m: string) => {
      const column = (suffix: string) => `${m.slice(0, -1)}_${suffix}"`;
      const at = (suffix: 'text' | 'json') => `if(indexOf(${column('keys')}, ${path}) = 0, NULL, arrayElement(${column(suffix)}, indexOf(${column('keys')}, ${path})))`;
      switch (type) {
        case 'any': case 'string': return at('text');
        case 'number': return `toFloat64OrNull(${at('text')})`;
        case 'boolean': return textBoolean(at('text'));
        case 'json': return at('json');
        default: return assertNever(type);
      }
    };
    return maps.length === 1 ? each(maps[0]!) : `COALESCE(${maps.map(each).join(', ')})`;
  }

  /** The attribute's key itself: the arrays hold top-level names. */
  override jsonPath(attribute: string): string {
    return attribute;
  }

  override like(expr: string, pattern: string): string {
    return `(lowerUTF8(${expr}) LIKE lowerUTF8(${pattern}))`;
  }

  override regexFullMatch(expr: string, pattern: string): string {
    return `match(${expr}, concat('^(?:', ${pattern}, ')$'))`;
  }

  override tupleIn(exprs: readonly string[], tuples: readonly (readonly string[])[]): string {
    const text = (sql: string) => `toString(${sql})`;
    return `(${exprs.map(text).join(', ')}) IN (${tuples.map((t) => `(${t.map(text).join(', ')})`).join(', ')})`;
  }

  /**
   * ClickHouse's IN is 0 (not NULL) for a NULL, and wants one type in its list: NULL is kept NULL,
   * and a list mixing text and numbers compares as text.
   */
  override inList(expr: string, values: readonly string[], negated: boolean): string {
    // A NULL literal has no type IN could compare (Nothing).
    if (expr === 'NULL') return 'NULL';
    const text = values.some((v) => v.startsWith("'")) && values.some((v) => !v.startsWith("'"));
    const left = text ? `toString(${expr})` : expr;
    const list = text ? values.map((v) => (v.startsWith("'") ? v : `toString(${v})`)) : values;
    return `multiIf(${expr} IS NULL, NULL, ${left} ${negated ? 'NOT IN' : 'IN'} (${list.join(', ')}))`;
  }

  override caseOf(key: string, entries: readonly (readonly [string, string])[]): string {
    return `CASE ${entries.map(([v, r]) => `WHEN ${key} = ${v} THEN ${r}`).join(' ')} END`;
  }

  /**
   * The typed columns as `tuple([keys], [JSON texts])` (18.16 has no function that writes a JSON
   * object; texts, so branches of different columns share one type): the executor zips and parses it.
   */
  override jsonObject(pairs: readonly (readonly [keySql: string, valueSql: string])[]): string {
    return `tuple([${pairs.map(([k]) => k).join(', ')}], [${pairs.map(([, v]) => this.jsonOfAny(v)).join(', ')}])`;
  }

  /** Any value's JSON text, by its SQL type (strings quoted and escaped, numbers as written). */
  private jsonOfAny(sql: string): string {
    return `multiIf(toTypeName(${sql}) IN ('String', 'Nullable(String)'), ${jsonString(`toString(${sql})`)}, toString(${sql}))`;
  }
}

/** `'true'`/`'false'` for a UInt8 boolean, NULL for NULL. */
const booleanText = (sql: string) => `multiIf(${sql} IS NULL, NULL, ${sql} = 1, 'true', 'false')`;
/** Text `true`/`false` in any case as 1/0; anything else is no boolean (NULL). */
const textBoolean = (sql: string) => `multiIf(lowerUTF8(${sql}) = 'true', 1, lowerUTF8(${sql}) = 'false', 0, NULL)`;

/** JSON's escapes for the characters a JSON string may not hold as they are. */
const JSON_ESCAPES: readonly (readonly [string, string])[] = [
  ['\\', '\\\\'], ['"', '\\"'], ['\n', '\\n'], ['\r', '\\r'], ['\t', '\\t'], ['\b', '\\b'], ['\f', '\\f'],
  ...Array.from({ length: 32 }, (_, c) => c)
    .filter((c) => ![8, 9, 10, 12, 13].includes(c))
    .map((c) => [String.fromCharCode(c), `\\u${c.toString(16).padStart(4, '0')}`] as const),
];

/** A string column as a JSON string (NULL stays NULL). */
function jsonString(sql: string): string {
  let out = sql;
  for (const [from, to] of JSON_ESCAPES) out = `replaceAll(${out}, ${stringLiteral(from)}, ${stringLiteral(to)})`;
  return `concat('"', ${out}, '"')`;
}

/** A ClickHouse string literal: backslash escapes, control characters as \xHH. */
export function stringLiteral(text: string): string {
  // eslint-disable-next-line no-control-regex
  return `'${text.replace(/[\\'\u0000-\u001f]/g, (c) => (c === '\\' || c === "'" ? `\\${c}` : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`))}'`;
}

/** 2^-537: a denormal is its integer multiple of 2^-1074 times this twice (each product exact). */
const HALF_DENORMAL_SCALE = 2 ** -537;

/** A number as ClickHouse reads it back exactly: whole numbers as integers, others in JavaScript's shortest form. */
export function numberLiteral(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  // ClickHouse's parser refuses denormal literals (5e-324 is a syntax error): built from normal ones.
  if (value !== 0 && Math.abs(value) < 2.2250738585072014e-308) {
    return `(${value / 2 ** -1074} * ${HALF_DENORMAL_SCALE} * ${HALF_DENORMAL_SCALE})`;
  }
  const text = Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? BigInt(value).toString() : String(value);
  return value < 0 || Object.is(value, -0) ? `(${text.startsWith('-') ? text : `-${text}`})` : text;
}

/** A bound value as a literal: numbers, strings, booleans (1/0), timestamps (epoch ms), lists of doubles. */
export function literal(value: SqlParam): string {
  if (typeof value === 'number') return numberLiteral(value);
  if (typeof value === 'string') return stringLiteral(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  if ('timestampMs' in value) return numberLiteral(Math.round(value.timestampMs));
  return `[${value.doubles.map((d) => `toFloat64(${numberLiteral(d)})`).join(', ')}]`;
}

export const clickhouseDialect = new ClickHouseDialect();
