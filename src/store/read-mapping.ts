import { TIMESLICE_FIELDS } from '../plan/aggregate-plan.js';
import type { AgentEventType } from '../plan/data-model.js';
import type { RowExpr } from '../plan/expressions.js';
import { ROLLED_UP_POINTS } from '../plan/resolution.js';
import type { ColumnKind, TypedColumn } from '../sql/physical-schema.js';
import {
  CUSTOM_EVENTS_TABLE, ERROR_EVENTS_TABLE, LOG_EVENTS_TABLE, SPAN_EVENTS_TABLE, TIMESLICES_TABLE, TRANSACTION_EVENTS_TABLE,
  type ColumnType, type TableDescription,
} from './tables.js';

/**
 * What every engine's read mapping (its `PhysicalSchema`) shares: which described column holds
 * which attribute, the rolled-up point a 1-minute timeslice computes and the rollup columns that
 * keep it, and which event types have tables of their own. An engine adds its table names,
 * attribute maps and time columns.
 */

const KIND: Readonly<Record<ColumnType, ColumnKind>> = { INTEGER: 'integer', DOUBLE: 'double', VARCHAR: 'string', BOOLEAN: 'boolean', TIMESTAMP: 'timestamp' };

/** The typed columns of a table by the attribute each holds (its description's `attribute`s). */
export function typedColumns(table: TableDescription): Record<string, TypedColumn> {
  return Object.fromEntries(table.columns.filter((c) => c.attribute !== undefined).map((c) => [c.attribute!, { column: c.name, kind: KIND[c.type] }]));
}

export const TIMESLICE_COLUMNS = typedColumns(TIMESLICES_TABLE);
for (const name of TIMESLICE_FIELDS) if (!TIMESLICE_COLUMNS[name]) throw new Error(`the timeslice table describes no column for ${name}`);

const EXCLUSIVE_PER_CALL: RowExpr = { kind: 'arith', op: '/', left: { kind: 'field', name: 'totalExclusive' }, right: { kind: 'field', name: 'count' } };
const [POINT] = ROLLED_UP_POINTS;
/** A minute's exclusive time per call, and whether it has one (a minute without calls has none). */
export const MINUTE_POINTS: Readonly<Record<string, RowExpr>> = {
  [POINT.sum]: EXCLUSIVE_PER_CALL,
  [POINT.count]: { kind: 'cases', cases: [{ when: { kind: 'isNull', expr: EXCLUSIVE_PER_CALL, negated: false }, then: { kind: 'literal', value: 0 } }], otherwise: { kind: 'literal', value: 1 } },
};
if (!POINT.matches(EXCLUSIVE_PER_CALL)) throw new Error('the minute point is not the one rollups keep');

/** The hourly rollups' typed columns: the timeslice's, plus the kept points. */
export const HOURLY_COLUMNS: Readonly<Record<string, TypedColumn>> = {
  ...TIMESLICE_COLUMNS,
  [POINT.sum]: { column: 'exclusive_per_call', kind: 'double' },
  [POINT.count]: { column: 'exclusive_per_call_points', kind: 'double' },
};

/** The event types agents report into tables of their own; every other type is a custom event. */
export const AGENT_EVENT_TABLES: Readonly<Record<AgentEventType, TableDescription>> = {
  Transaction: TRANSACTION_EVENTS_TABLE,
  TransactionError: ERROR_EVENTS_TABLE,
  Span: SPAN_EVENTS_TABLE,
  Log: LOG_EVENTS_TABLE,
};

export const CUSTOM_TYPED = typedColumns(CUSTOM_EVENTS_TABLE);
