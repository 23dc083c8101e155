/** The column types ingest appends. Timestamps travel as epoch milliseconds. */
export type ColumnType = 'INTEGER' | 'DOUBLE' | 'VARCHAR' | 'BOOLEAN' | 'TIMESTAMP';
/** A cell: plain data, so rows can be built in a worker thread and sent to the writer. */
export type Cell = number | string | boolean | null;
const INTEGER: ColumnType = 'INTEGER';
const DOUBLE: ColumnType = 'DOUBLE';
const VARCHAR: ColumnType = 'VARCHAR';
const BOOLEAN: ColumnType = 'BOOLEAN';
const TIMESTAMP: ColumnType = 'TIMESTAMP';

/**
 * The tables ingest appends to, with their columns in table order. The writer builds DuckDB
 * data chunks from these; `verifyAppendTables` checks them against the migrated schema at start,
 * so a migration that changes a table without changing this list fails loudly, not silently.
 */
export interface AppendTable {
  readonly name: string;
  readonly columns: readonly { readonly name: string; readonly type: ColumnType }[];
}

function table(name: string, columns: Record<string, ColumnType>): AppendTable {
  return { name, columns: Object.entries(columns).map(([column, type]) => ({ name: column, type })) };
}

const eventCommon = { account_id: INTEGER, app_id: INTEGER, host_id: INTEGER, instance_id: INTEGER, timestamp: TIMESTAMP };
const attributeMaps = { intrinsics: VARCHAR, user_attributes: VARCHAR, agent_attributes: VARCHAR };

export const METRIC_NAMES = table('metric_names', { id: INTEGER, name: VARCHAR });
export const METRIC_PRESENCE = table('metric_presence', {
  account_id: INTEGER, app_id: INTEGER, host_id: INTEGER, instance_id: INTEGER, metric_id: INTEGER,
});
export const TIMESLICES = table('timeslices', {
  account_id: INTEGER, app_id: INTEGER, host_id: INTEGER, instance_id: INTEGER, metric_id: INTEGER, scope_id: INTEGER,
  ts: TIMESTAMP, call_count: DOUBLE, total: DOUBLE, exclusive: DOUBLE, min: DOUBLE, max: DOUBLE, sum_of_squares: DOUBLE,
});
export const TRANSACTION_EVENTS = table('transaction_events', {
  ...eventCommon, name: VARCHAR, duration: DOUBLE, total_time: DOUBLE, queue_duration: DOUBLE, error: BOOLEAN,
  http_status_code: INTEGER, trace_id: VARCHAR, guid: VARCHAR, ...attributeMaps,
});
export const ERROR_EVENTS = table('error_events', {
  ...eventCommon, error_class: VARCHAR, error_message: VARCHAR, transaction_name: VARCHAR, duration: DOUBLE, trace_id: VARCHAR, ...attributeMaps,
});
export const SPAN_EVENTS = table('span_events', {
  ...eventCommon, name: VARCHAR, category: VARCHAR, duration: DOUBLE, trace_id: VARCHAR, guid: VARCHAR, parent_id: VARCHAR,
  transaction_id: VARCHAR, ...attributeMaps,
});
export const CUSTOM_EVENTS = table('custom_events', { ...eventCommon, event_type: VARCHAR, attributes: VARCHAR });
export const LOG_EVENTS = table('log_events', {
  ...eventCommon, level: VARCHAR, message: VARCHAR, trace_id: VARCHAR, span_id: VARCHAR, attributes: VARCHAR,
});
export const ERROR_TRACES = table('error_traces', {
  ...eventCommon, transaction_name: VARCHAR, message: VARCHAR, error_class: VARCHAR, transaction_guid: VARCHAR, params: VARCHAR,
});
export const TRANSACTION_TRACES = table('transaction_traces', {
  ...eventCommon, duration_ms: DOUBLE, transaction_name: VARCHAR, uri: VARCHAR, transaction_guid: VARCHAR, trace: VARCHAR,
});
export const SQL_TRACES = table('sql_traces', {
  ...eventCommon, transaction_name: VARCHAR, url: VARCHAR, sql_id: VARCHAR, sql: VARCHAR, metric_name: VARCHAR,
  call_count: DOUBLE, total: DOUBLE, min: DOUBLE, max: DOUBLE, params: VARCHAR,
});

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
