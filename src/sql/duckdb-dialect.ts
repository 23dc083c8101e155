import { assertNever } from '../plan/expressions.js';
import { registerDialect, type Dialect } from './dialect.js';

export const duckdbDialect: Dialect = {
  name: 'duckdb',
  quoteIdentifier: (name) => `"${name.replaceAll('"', '""')}"`,
  placeholder: (index) => `$${index}`,
  aggregate(fn, argSql, whereSql) {
    const filter = whereSql ? ` FILTER (WHERE ${whereSql})` : '';
    switch (fn) {
      case 'countRows': return `count(*)${filter}`;
      case 'count': return `count(${argSql})${filter}`;
      case 'sum': return `sum(${argSql})${filter}`;
      case 'min': return `min(${argSql})${filter}`;
      case 'max': return `max(${argSql})${filter}`;
      default: return assertNever(fn);
    }
  },
  // epoch_ms of a TIMESTAMP is a BIGINT; the executor binds whole-number parameters as BIGINT, so `//` stays integral.
  bucketIndex: (timeSql, beginMsSql, widthMsSql) => `CAST((epoch_ms(${timeSql}) - ${beginMsSql}) // ${widthMsSql} AS INTEGER)`,
  divide: (left, right) => `(${left} / NULLIF(${right}, 0))`,
};

registerDialect(duckdbDialect);
