import type { PlanSource } from '../../plan/aggregate-plan.js';
import { isAgentEventType } from '../../plan/data-model.js';
import type { PhysicalSchema, PhysicalSource, SourceBranch, TypedColumn } from '../../sql/physical-schema.js';
import { AGENT_EVENT_TABLES, CUSTOM_TYPED, HOURLY_COLUMNS, MINUTE_POINTS, TIMESLICE_COLUMNS, typedColumns } from '../read-mapping.js';
import {
  CUSTOM_EVENTS_TABLE, ERROR_EVENTS_TABLE, ERROR_TRACES_TABLE, LOG_EVENTS_TABLE, SPAN_EVENTS_TABLE, SQL_TRACES_TABLE, TIMESLICES_TABLE,
  TRANSACTION_EVENTS_TABLE, TRANSACTION_TRACES_TABLE, type ColumnType, type TableDescription,
} from '../tables.js';

/**
 * The ClickHouse store's tables. Each described table (`store/tables.ts`) that holds data —
 * timeslices, events, traces — is one MergeTree table here, ordered by account, application and
 * (for timeslices) metric, then time, partitioned by day (retention drops whole days). Times are
 * Int64 epoch milliseconds. An event table's JSON attribute maps become one merged map `attrs`
 * (the JSON object a `SELECT *` lists) and its parallel arrays `attrs_keys`, `attrs_text` and
 * `attrs_json` that attribute reads use (`ClickHouseDialect.jsonAttribute`).
 */

export const MERGED_MAP = 'attrs';
/** The column every data table carries: the write (batch) that stored the row, so a failed batch can be taken back. */
export const BATCH_COLUMN = 'batch';
/** Hourly rollups of `timeslices` (`clickhouse-upkeep.ts`). */
export const HOURLY_TABLE = 'timeslices_hourly';
/** Rollup watermark and last runs, a row per run (the newest by `at` counts). */
export const MAINTENANCE_TABLE = 'store_maintenance';
export const MAINTENANCE_COLUMNS: readonly StoredColumn[] = [
  { name: 'task', type: 'String' }, { name: 'watermark', type: 'Nullable(Int64)' }, { name: 'at', type: 'Int64' },
];

/** The tables ingest writes to on ClickHouse; everything else (metric names, presence) stays with the catalog. */
export const DATA_TABLES: readonly TableDescription[] = [
  TIMESLICES_TABLE, TRANSACTION_EVENTS_TABLE, ERROR_EVENTS_TABLE, SPAN_EVENTS_TABLE, CUSTOM_EVENTS_TABLE, LOG_EVENTS_TABLE,
  ERROR_TRACES_TABLE, TRANSACTION_TRACES_TABLE, SQL_TRACES_TABLE,
];
export const DATA_TABLE_NAMES: ReadonlySet<string> = new Set(DATA_TABLES.map((t) => t.name));

/** Columns that can never be NULL: the sort key and the numbers every timeslice has. */
const NOT_NULL = new Set([
  'account_id', 'app_id', 'host_id', 'instance_id', 'metric_id', 'scope_id', 'ts', 'timestamp', 'event_type',
  'call_count', 'total', 'exclusive', 'min', 'max', 'sum_of_squares',
]);

const CH_TYPE: Readonly<Record<ColumnType, string>> = { INTEGER: 'Int32', DOUBLE: 'Float64', VARCHAR: 'String', BOOLEAN: 'UInt8', TIMESTAMP: 'Int64' };

/** One stored column: name and ClickHouse type. */
export interface StoredColumn { readonly name: string; readonly type: string }

/** A data table as ClickHouse stores it. */
export interface StoredTable {
  readonly name: string;
  readonly description: TableDescription;
  readonly columns: readonly StoredColumn[];
  readonly timeColumn: string;
  readonly orderBy: readonly string[];
}

function timeColumnOf(t: TableDescription): string {
  return t.columns.some((c) => c.name === 'ts') ? 'ts' : 'timestamp';
}

function storedTable(t: TableDescription): StoredTable {
  const maps = new Set(t.attributeMaps ?? []);
  const columns: StoredColumn[] = [];
  for (const c of t.columns) {
    if (maps.has(c.name)) continue;
    const type = CH_TYPE[c.type];
    columns.push({ name: c.name, type: NOT_NULL.has(c.name) ? type : `Nullable(${type})` });
  }
  if (maps.size > 0) {
    columns.push({ name: MERGED_MAP, type: 'String' });
    for (const suffix of ['keys', 'text', 'json']) columns.push({ name: `${MERGED_MAP}_${suffix}`, type: 'Array(String)' });
  }
  columns.push({ name: BATCH_COLUMN, type: 'UInt64' });
  const time = timeColumnOf(t);
  const orderBy = t === TIMESLICES_TABLE
    ? ['account_id', 'app_id', 'metric_id', time]
    : t === CUSTOM_EVENTS_TABLE ? ['account_id', 'event_type', time] : ['account_id', 'app_id', time];
  return { name: t.name, description: t, columns, timeColumn: time, orderBy };
}

export const STORED_TABLES: readonly StoredTable[] = DATA_TABLES.map(storedTable);
export const STORED_BY_NAME: ReadonlyMap<string, StoredTable> = new Map(STORED_TABLES.map((t) => [t.name, t]));

/** Hourly rollups: the timeslice key and numbers, plus the minutes' exclusive time per call (`plan/resolution.ts`). */
export const HOURLY_COLUMNS_STORED: readonly StoredColumn[] = [
  ...STORED_BY_NAME.get(TIMESLICES_TABLE.name)!.columns.filter((c) => c.name !== BATCH_COLUMN),
  { name: 'exclusive_per_call', type: 'Float64' },
  { name: 'exclusive_per_call_points', type: 'Float64' },
];

/** `PARTITION BY` a day of an Int64 epoch-ms column. */
export const dayOf = (column: string) => `toYYYYMMDD(toDateTime(intDiv(${column}, 1000), 'UTC'))`;

/** A MergeTree table's engine clause (the 18.16 form works on current releases too). */
export function mergeTreeClause(timeColumn: string, orderBy: readonly string[]): string {
  return `ENGINE = MergeTree() PARTITION BY ${dayOf(`"${timeColumn}"`)} ORDER BY (${orderBy.map((c) => `"${c}"`).join(', ')})`;
}

// ── the read mapping ─────────────────────────────────────────────────────────────────────────

const { eventType: customTypeColumn, ...CUSTOM_TYPED_WITHIN_A_TYPE } = CUSTOM_TYPED;

function eventBranch(eventType: string): SourceBranch {
  const common = { eventType, accountColumn: 'account_id', timeColumn: 'timestamp', attributeMaps: [MERGED_MAP] };
  if (isAgentEventType(eventType)) {
    const table = AGENT_EVENT_TABLES[eventType];
    return { ...common, table: table.name, typed: typedColumns(table) };
  }
  return { ...common, table: CUSTOM_EVENTS_TABLE.name, typeColumn: { column: customTypeColumn!.column, value: eventType }, typed: CUSTOM_TYPED_WITHIN_A_TYPE };
}

function physicalSource(source: PlanSource): PhysicalSource {
  switch (source.kind) {
    case 'timeslices': {
      const branch: SourceBranch = { table: TIMESLICES_TABLE.name, eventType: 'Metric', accountColumn: 'account_id', timeColumn: 'ts', typed: TIMESLICE_COLUMNS, attributeMaps: [] };
      const hourly = source.hourly;
      if (!hourly) return { uniform: true, branches: [branch] };
      return {
        uniform: false,
        branches: [
          { ...branch, computed: MINUTE_POINTS, timeRange: { ...hourly, inside: false } },
          { ...branch, table: HOURLY_TABLE, typed: HOURLY_COLUMNS, timeRange: { ...hourly, inside: true } },
        ],
      };
    }
    case 'events':
      return { uniform: source.eventTypes.length === 1, branches: source.eventTypes.map(eventBranch) };
    case 'allCustomEvents':
      return {
        uniform: true,
        branches: [{ table: CUSTOM_EVENTS_TABLE.name, eventType: '', accountColumn: 'account_id', timeColumn: 'timestamp', typed: CUSTOM_TYPED, attributeMaps: [MERGED_MAP] }],
      };
  }
}

/** The ClickHouse store's tables as the renderer reads them. */
export const clickhouseSchema: PhysicalSchema = { source: physicalSource };

/** The typed columns of the branch listing rows of `eventType` (for turning UInt8 back into booleans). */
export function typedColumnsOf(eventType: string): Readonly<Record<string, TypedColumn>> {
  return eventType === 'Metric' ? TIMESLICE_COLUMNS : eventBranch(eventType).typed;
}
