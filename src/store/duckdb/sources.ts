import type { PlanSource } from '../../plan/aggregate-plan.js';
import { isAgentEventType } from '../../plan/data-model.js';
import type { ColumnKind, PhysicalSchema, PhysicalSource, SourceBranch } from '../../sql/physical-schema.js';
import { AGENT_EVENT_TABLES, CUSTOM_TYPED, HOURLY_COLUMNS, MINUTE_POINTS, TIMESLICE_COLUMNS, typedColumns } from '../read-mapping.js';
import { CUSTOM_EVENTS_TABLE, type ColumnType } from '../tables.js';
import { HOURLY_TIMESLICES, TIMESLICE_TABLES } from './timeslice-tables.js';

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
