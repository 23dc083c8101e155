import { TIMESLICE_FIELDS, type PlanSource } from '../../plan/aggregate-plan.js';
import { isAgentEventType, type AgentEventType } from '../../plan/data-model.js';
import type { RowExpr } from '../../plan/expressions.js';
import { ROLLED_UP_POINTS } from '../../plan/resolution.js';
import type { ColumnKind, PhysicalSchema, PhysicalSource, SourceBranch, TypedColumn } from '../../sql/physical-schema.js';
import {
  CUSTOM_EVENTS_TABLE, ERROR_EVENTS_TABLE, LOG_EVENTS_TABLE, SPAN_EVENTS_TABLE, TIMESLICES_TABLE, TRANSACTION_EVENTS_TABLE,
  type ColumnType, type TableDescription,
} from '../tables.js';
import { HOURLY_TIMESLICES, TIMESLICE_TABLES } from './timeslice-tables.js';

const KIND: Readonly<Record<ColumnType, ColumnKind>> = { INTEGER: 'integer', DOUBLE: 'double', VARCHAR: 'string', BOOLEAN: 'boolean', TIMESTAMP: 'timestamp' };

/** The typed columns of a table by the attribute each holds (its description's `attribute`s). */
function typedColumns(table: TableDescription): Record<string, TypedColumn> {
  return Object.fromEntries(table.columns.filter((c) => c.attribute !== undefined).map((c) => [c.attribute!, { column: c.name, kind: KIND[c.type] }]));
}

const TIMESLICE_COLUMNS = typedColumns(TIMESLICES_TABLE);
for (const name of TIMESLICE_FIELDS) if (!TIMESLICE_COLUMNS[name]) throw new Error(`the timeslice table describes no column for ${name}`);

const EXCLUSIVE_PER_CALL: RowExpr = { kind: 'arith', op: '/', left: { kind: 'field', name: 'totalExclusive' }, right: { kind: 'field', name: 'count' } };
const [POINT] = ROLLED_UP_POINTS;
/** A minute's exclusive time per call, and whether it has one (a minute without calls has none). */
const MINUTE_POINTS: Readonly<Record<string, RowExpr>> = {
  [POINT.sum]: EXCLUSIVE_PER_CALL,
  [POINT.count]: { kind: 'cases', cases: [{ when: { kind: 'isNull', expr: EXCLUSIVE_PER_CALL, negated: false }, then: { kind: 'literal', value: 0 } }], otherwise: { kind: 'literal', value: 1 } },
};
if (!POINT.matches(EXCLUSIVE_PER_CALL)) throw new Error('the minute point is not the one rollups keep');
const HOURLY_COLUMNS: Readonly<Record<string, TypedColumn>> = {
  ...TIMESLICE_COLUMNS,
  [POINT.sum]: { column: 'exclusive_per_call', kind: 'double' },
  [POINT.count]: { column: 'exclusive_per_call_points', kind: 'double' },
};

/** The event types agents report into tables of their own; every other type is a custom event. */
const AGENT_EVENT_TABLES: Readonly<Record<AgentEventType, TableDescription>> = {
  Transaction: TRANSACTION_EVENTS_TABLE,
  TransactionError: ERROR_EVENTS_TABLE,
  Span: SPAN_EVENTS_TABLE,
  Log: LOG_EVENTS_TABLE,
};

const CUSTOM_TYPED = typedColumns(CUSTOM_EVENTS_TABLE);
const { eventType: customTypeColumn, ...CUSTOM_TYPED_WITHIN_A_TYPE } = CUSTOM_TYPED;

function eventBranch(eventType: string): SourceBranch {
  const common = { eventType, accountColumn: 'account_id', timeColumn: 'timestamp' };
  if (isAgentEventType(eventType)) {
    const table = AGENT_EVENT_TABLES[eventType];
    return { ...common, table: table.name, typed: typedColumns(table), attributeMaps: table.attributeMaps ?? [] };
  }
  return {
    ...common,
    table: CUSTOM_EVENTS_TABLE.name,
    typeColumn: { column: customTypeColumn!.column, value: eventType },
    typed: CUSTOM_TYPED_WITHIN_A_TYPE,
    attributeMaps: CUSTOM_EVENTS_TABLE.attributeMaps ?? [],
  };
}

function physicalSource(source: PlanSource): PhysicalSource {
  switch (source.kind) {
    case 'timeslices': {
      // Recent rows in arrival order, older ones compacted (store/duckdb/timeslice-compactor.ts);
      // the hours `hourly` names from the rollups (store/duckdb/timeslice-upkeep.ts), the rest from those.
      const branch = (table: string): SourceBranch => ({
        table, eventType: 'Metric', accountColumn: 'account_id', timeColumn: 'ts', typed: TIMESLICE_COLUMNS, attributeMaps: [],
      });
      const hourly = source.hourly;
      if (!hourly) return { uniform: true, branches: TIMESLICE_TABLES.map(branch) };
      // The rollups' kept points are columns of theirs; 1-minute rows compute them (plan/resolution.ts).
      return {
        uniform: false,
        branches: [
          ...TIMESLICE_TABLES.map((table) => ({ ...branch(table), computed: MINUTE_POINTS, timeRange: { ...hourly, inside: false } })),
          { ...branch(HOURLY_TIMESLICES), typed: HOURLY_COLUMNS, timeRange: { ...hourly, inside: true } },
        ],
      };
    }
    case 'events':
      return { uniform: source.eventTypes.length === 1, branches: source.eventTypes.map(eventBranch) };
    case 'allCustomEvents':
      return {
        uniform: true,
        branches: [{
          table: CUSTOM_EVENTS_TABLE.name, eventType: '', accountColumn: 'account_id', timeColumn: 'timestamp',
          typed: CUSTOM_TYPED, attributeMaps: CUSTOM_EVENTS_TABLE.attributeMaps ?? [],
        }],
      };
  }
}

/** The DuckDB store's tables, as the renderer reads them (`migrations.ts` creates them). */
export const duckdbSchema: PhysicalSchema = { source: physicalSource };

const COLUMN_TYPE: Readonly<Record<ColumnKind, ColumnType>> = { integer: 'INTEGER', double: 'DOUBLE', string: 'VARCHAR', boolean: 'BOOLEAN', timestamp: 'TIMESTAMP' };

/**
 * Every column the read mapping uses, with the type it reads it as: each branch of the timeslice
 * source, of every agent event type, of a custom type and of all custom events. Checked against
 * the migrated schema at start (`schemaMismatches`).
 */
export function readColumns(): { table: string; column: string; type: ColumnType }[] {
  const sources: PlanSource[] = [
    { kind: 'timeslices', hourly: { beginMs: 0, endMs: 3_600_000 } },
    { kind: 'events', eventTypes: [...Object.keys(AGENT_EVENT_TABLES), 'AnyCustomType'] },
    { kind: 'allCustomEvents' },
  ];
  const out = new Map<string, { table: string; column: string; type: ColumnType }>();
  const add = (table: string, column: string, type: ColumnType) => out.set(`${table}.${column}`, { table, column, type });
  for (const source of sources) {
    for (const b of physicalSource(source).branches) {
      add(b.table, b.accountColumn, 'INTEGER');
      add(b.table, b.timeColumn, 'TIMESTAMP');
      if (b.typeColumn) add(b.table, b.typeColumn.column, 'VARCHAR');
      for (const typed of Object.values(b.typed)) add(b.table, typed.column, COLUMN_TYPE[typed.kind]);
      for (const map of b.attributeMaps) add(b.table, map, 'VARCHAR');
    }
  }
  return [...out.values()];
}
