import type { Rows } from '../../src/store/append-tables.js';

export type RowObject = Record<string, unknown>;

/** The rows of a `Rows` batch as objects keyed by column name (timestamps are epoch ms). */
export function rowObjects(rows: Rows): RowObject[] {
  const names = rows.table.columns.map((c) => c.name);
  const out: RowObject[] = [];
  for (let r = 0; r < rows.length; r++) {
    const row: RowObject = {};
    names.forEach((name, c) => {
      row[name] = rows.columns[c]![r];
    });
    out.push(row);
  }
  return out;
}
