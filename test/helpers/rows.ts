import { DuckDBTimestampValue } from '@duckdb/node-api';
import type { Rows } from '../../src/store/append-tables.js';

export type RowObject = Record<string, unknown>;

/**
 * The rows of a `Rows` batch as objects keyed by column name. Timestamps become epoch
 * milliseconds (a number), checked to be whole milliseconds on the way.
 */
export function rowObjects(rows: Rows): RowObject[] {
  const names = rows.table.columns.map((c) => c.name);
  const out: RowObject[] = [];
  for (let r = 0; r < rows.length; r++) {
    const row: RowObject = {};
    names.forEach((name, c) => {
      const v = rows.columns[c]![r];
      row[name] = v instanceof DuckDBTimestampValue ? micros(v.micros) : v;
    });
    out.push(row);
  }
  return out;
}

function micros(value: bigint): number {
  if (value % 1000n !== 0n) throw new Error(`timestamp ${value} µs is not a whole millisecond`);
  return Number(value / 1000n);
}
