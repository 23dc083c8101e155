import {
  CUSTOM_EVENTS_TABLE, ERROR_EVENTS_TABLE, ERROR_TRACES_TABLE, LOG_EVENTS_TABLE, METRIC_NAMES_TABLE, METRIC_PRESENCE_TABLE,
  SPAN_EVENTS_TABLE, SQL_TRACES_TABLE, TIMESLICES_TABLE, TRANSACTION_EVENTS_TABLE, TRANSACTION_TRACES_TABLE, type TableDescription,
} from './tables.js';

export type { ColumnType } from './tables.js';
/** A cell: plain data, so rows can be built in a worker thread and sent to the writer. */
export type Cell = number | string | boolean | null;

/**
 * A table ingest appends to, with its columns in table order (its description in `tables.ts`).
 * The writer builds DuckDB data chunks from these.
 */
export type AppendTable = TableDescription;

export const METRIC_NAMES = METRIC_NAMES_TABLE;
export const METRIC_PRESENCE = METRIC_PRESENCE_TABLE;
export const TIMESLICES = TIMESLICES_TABLE;
export const TRANSACTION_EVENTS = TRANSACTION_EVENTS_TABLE;
export const ERROR_EVENTS = ERROR_EVENTS_TABLE;
export const SPAN_EVENTS = SPAN_EVENTS_TABLE;
export const CUSTOM_EVENTS = CUSTOM_EVENTS_TABLE;
export const LOG_EVENTS = LOG_EVENTS_TABLE;
export const ERROR_TRACES = ERROR_TRACES_TABLE;
export const TRANSACTION_TRACES = TRANSACTION_TRACES_TABLE;
export const SQL_TRACES = SQL_TRACES_TABLE;

export const APPEND_TABLES: readonly AppendTable[] = [
  METRIC_NAMES, METRIC_PRESENCE, TIMESLICES, TRANSACTION_EVENTS, ERROR_EVENTS, SPAN_EVENTS, CUSTOM_EVENTS, LOG_EVENTS,
  ERROR_TRACES, TRANSACTION_TRACES, SQL_TRACES,
];

/**
 * Rows for one table, column-major: `columns[i][r]` is column i of row r. Column-major is what
 * DuckDB's data chunks take, so the writer hands whole columns over without reshaping. Plain
 * data throughout (timestamps as epoch ms), so a batch can cross a worker-thread boundary.
 */
export class Rows {
  readonly columns: Cell[][];
  constructor(readonly table: AppendTable, columns?: Cell[][]) {
    this.columns = columns ?? table.columns.map(() => []);
  }
  get length(): number {
    return this.columns[0]?.length ?? 0;
  }
  push(...values: Cell[]): void {
    if (values.length !== this.columns.length) {
      throw new Error(`${this.table.name}: ${values.length} values for ${this.columns.length} columns`);
    }
    for (let i = 0; i < values.length; i++) this.columns[i]!.push(values[i]!);
  }
}

/** Tables by name, to rebuild `Rows` that crossed a thread boundary as plain columns. */
export const APPEND_TABLES_BY_NAME: ReadonlyMap<string, AppendTable> = new Map(APPEND_TABLES.map((t) => [t.name, t]));
