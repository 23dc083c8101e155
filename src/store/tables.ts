import { EVENT_ID_FIELDS } from '../plan/data-model.js';

/**
 * One description per stored table: each column in table order, its type and, where queries
 * read it as a typed column, the NRQL attribute it holds. Ingest builds its rows from these
 * (`append-tables.ts`, engine-neutral, so nothing above the seam imports an engine), a table
 * store's read mapping derives from them (`duckdb/sources.ts`), and `schemaMismatches` checks
 * both against the migrated schema at start: a migration that changes a table without changing
 * its description fails loudly, not silently.
 */

/** The column types ingest appends. Timestamps travel as epoch milliseconds. */
export type ColumnType = 'INTEGER' | 'DOUBLE' | 'VARCHAR' | 'BOOLEAN' | 'TIMESTAMP';

export interface ColumnDescription {
  readonly name: string;
  readonly type: ColumnType;
  /** The NRQL attribute (a logical field of the plan) this column holds, when queries read it. */
  readonly attribute?: string;
}

export interface TableDescription {
  readonly name: string;
  readonly columns: readonly ColumnDescription[];
  /** Columns of JSON-text attribute maps, in the order reads search them (the first that has an attribute wins). */
  readonly attributeMaps?: readonly string[];
}

type Columns = Record<string, ColumnType | readonly [ColumnType, string]>;

function table(name: string, columns: Columns, attributeMaps?: readonly string[]): TableDescription {
  return {
    name,
    columns: Object.entries(columns).map(([column, spec]) => (typeof spec === 'string' ? { name: column, type: spec } : { name: column, type: spec[0], attribute: spec[1] })),
    ...(attributeMaps ? { attributeMaps } : {}),
  };
}

const eventCommon: Columns = {
  account_id: 'INTEGER',
  app_id: ['INTEGER', EVENT_ID_FIELDS.appId],
  host_id: ['INTEGER', EVENT_ID_FIELDS.hostId],
  instance_id: ['INTEGER', EVENT_ID_FIELDS.instanceId],
  timestamp: 'TIMESTAMP',
};
const agentMaps: Columns = { intrinsics: 'VARCHAR', user_attributes: 'VARCHAR', agent_attributes: 'VARCHAR' };
/** Intrinsics win over agent attributes, which win over custom ones (as New Relic merges them). */
const AGENT_MAP_ORDER = ['intrinsics', 'agent_attributes', 'user_attributes'] as const;
const traceCommon: Columns = { account_id: 'INTEGER', app_id: 'INTEGER', host_id: 'INTEGER', instance_id: 'INTEGER', timestamp: 'TIMESTAMP' };

export const METRIC_NAMES_TABLE = table('metric_names', { id: 'INTEGER', name: 'VARCHAR' });
export const METRIC_PRESENCE_TABLE = table('metric_presence', {
  account_id: 'INTEGER', app_id: 'INTEGER', host_id: 'INTEGER', instance_id: 'INTEGER', metric_id: 'INTEGER',
});
/** Also the columns of `timeslices_compacted` and `timeslices_daily` (`TIMESLICE_TABLES`). */
export const TIMESLICES_TABLE = table('timeslices', {
  account_id: 'INTEGER', app_id: ['INTEGER', 'appId'], host_id: ['INTEGER', 'hostId'], instance_id: ['INTEGER', 'instanceId'],
  metric_id: ['INTEGER', 'metricId'], scope_id: ['INTEGER', 'scopeId'], ts: 'TIMESTAMP',
  call_count: ['DOUBLE', 'count'], total: ['DOUBLE', 'total'], exclusive: ['DOUBLE', 'totalExclusive'],
  min: ['DOUBLE', 'min'], max: ['DOUBLE', 'max'], sum_of_squares: ['DOUBLE', 'sumOfSquares'],
});
export const TRANSACTION_EVENTS_TABLE = table('transaction_events', {
  ...eventCommon, name: ['VARCHAR', 'name'], duration: ['DOUBLE', 'duration'], total_time: ['DOUBLE', 'totalTime'],
  queue_duration: ['DOUBLE', 'queueDuration'], error: ['BOOLEAN', 'error'], http_status_code: 'INTEGER',
  trace_id: ['VARCHAR', 'traceId'], guid: ['VARCHAR', 'guid'], ...agentMaps,
}, AGENT_MAP_ORDER);
export const ERROR_EVENTS_TABLE = table('error_events', {
  ...eventCommon, error_class: ['VARCHAR', 'error.class'], error_message: ['VARCHAR', 'error.message'],
  transaction_name: ['VARCHAR', 'transactionName'], duration: ['DOUBLE', 'duration'], trace_id: ['VARCHAR', 'traceId'], ...agentMaps,
}, AGENT_MAP_ORDER);
export const SPAN_EVENTS_TABLE = table('span_events', {
  ...eventCommon, name: ['VARCHAR', 'name'], category: ['VARCHAR', 'category'], duration: ['DOUBLE', 'duration'],
  trace_id: ['VARCHAR', 'traceId'], guid: ['VARCHAR', 'guid'], parent_id: ['VARCHAR', 'parentId'],
  transaction_id: ['VARCHAR', 'transactionId'], ...agentMaps,
}, AGENT_MAP_ORDER);
/** Every event of another type; `event_type` names it (NRQL's `eventType()` across types). */
export const CUSTOM_EVENTS_TABLE = table('custom_events', { ...eventCommon, event_type: ['VARCHAR', 'eventType'], attributes: 'VARCHAR' }, ['attributes']);
export const LOG_EVENTS_TABLE = table('log_events', {
  ...eventCommon, level: ['VARCHAR', 'level'], message: ['VARCHAR', 'message'], trace_id: ['VARCHAR', 'trace.id'],
  span_id: ['VARCHAR', 'span.id'], attributes: 'VARCHAR',
}, ['attributes']);
export const ERROR_TRACES_TABLE = table('error_traces', {
  ...traceCommon, transaction_name: 'VARCHAR', message: 'VARCHAR', error_class: 'VARCHAR', transaction_guid: 'VARCHAR', params: 'VARCHAR',
});
export const TRANSACTION_TRACES_TABLE = table('transaction_traces', {
  ...traceCommon, duration_ms: 'DOUBLE', transaction_name: 'VARCHAR', uri: 'VARCHAR', transaction_guid: 'VARCHAR', trace: 'VARCHAR',
});
export const SQL_TRACES_TABLE = table('sql_traces', {
  ...traceCommon, transaction_name: 'VARCHAR', url: 'VARCHAR', sql_id: 'VARCHAR', sql: 'VARCHAR', metric_name: 'VARCHAR',
  call_count: 'DOUBLE', total: 'DOUBLE', min: 'DOUBLE', max: 'DOUBLE', params: 'VARCHAR',
});

/** A migrated table's columns as the engine reports them, in table order. */
export type ActualColumns = readonly { readonly name: string; readonly type: string }[];

/**
 * Where the described tables and the migrated schema disagree, one message each (none: they
 * agree). `described` are the tables whose every column is checked in order (what the writer
 * appends); `read` are the columns reads use, each checked for presence and type (the read
 * mapping may use tables the writer does not append to, such as the compacted timeslices).
 */
export function schemaMismatches(
  actual: (table: string) => ActualColumns,
  described: readonly TableDescription[],
  read: readonly { readonly table: string; readonly column: string; readonly type: ColumnType }[],
): string[] {
  const problems: string[] = [];
  for (const t of described) {
    const columns = actual(t.name).map((c) => `${c.name} ${c.type}`);
    const expected = t.columns.map((c) => `${c.name} ${c.type}`);
    if (columns.join(', ') !== expected.join(', ')) problems.push(`table ${t.name} has columns [${columns.join(', ')}], the writer expects [${expected.join(', ')}]`);
  }
  for (const r of read) {
    const column = actual(r.table).find((c) => c.name === r.column);
    if (!column) problems.push(`queries read ${r.table}.${r.column}, which the schema does not have`);
    else if (column.type !== r.type) problems.push(`queries read ${r.table}.${r.column} as ${r.type}, the schema has ${column.type}`);
  }
  return problems;
}
