import type { PlanSource, TimesliceField } from '../../plan/aggregate-plan.js';
import { EVENT_ID_FIELDS, isAgentEventType, type AgentEventType } from '../../plan/data-model.js';
import type { PhysicalSchema, PhysicalSource, SourceBranch, TypedColumn } from '../../sql/physical-schema.js';
import { TIMESLICE_TABLES } from './timeslice-compactor.js';

const TIMESLICE_COLUMNS: Readonly<Record<TimesliceField, TypedColumn>> = {
  appId: { column: 'app_id', kind: 'integer' },
  hostId: { column: 'host_id', kind: 'integer' },
  instanceId: { column: 'instance_id', kind: 'integer' },
  metricId: { column: 'metric_id', kind: 'integer' },
  scopeId: { column: 'scope_id', kind: 'integer' },
  count: { column: 'call_count', kind: 'double' },
  total: { column: 'total', kind: 'double' },
  totalExclusive: { column: 'exclusive', kind: 'double' },
  min: { column: 'min', kind: 'double' },
  max: { column: 'max', kind: 'double' },
  sumOfSquares: { column: 'sum_of_squares', kind: 'double' },
};

const AGENT_IDS: Readonly<Record<string, TypedColumn>> = {
  [EVENT_ID_FIELDS.appId]: { column: 'app_id', kind: 'integer' },
  [EVENT_ID_FIELDS.hostId]: { column: 'host_id', kind: 'integer' },
  [EVENT_ID_FIELDS.instanceId]: { column: 'instance_id', kind: 'integer' },
};

const AGENT_MAPS = ['intrinsics', 'agent_attributes', 'user_attributes'] as const;

/** The event types agents report into tables of their own; every other type is a custom event. */
const AGENT_EVENT_BRANCHES: Readonly<Record<AgentEventType, Omit<SourceBranch, 'eventType' | 'accountColumn' | 'timeColumn'>>> = {
  Transaction: {
    table: 'transaction_events',
    typed: {
      ...AGENT_IDS,
      name: { column: 'name', kind: 'string' },
      duration: { column: 'duration', kind: 'double' },
      totalTime: { column: 'total_time', kind: 'double' },
      queueDuration: { column: 'queue_duration', kind: 'double' },
      error: { column: 'error', kind: 'boolean' },
      traceId: { column: 'trace_id', kind: 'string' },
      guid: { column: 'guid', kind: 'string' },
    },
    attributeMaps: AGENT_MAPS,
  },
  TransactionError: {
    table: 'error_events',
    typed: {
      ...AGENT_IDS,
      'error.class': { column: 'error_class', kind: 'string' },
      'error.message': { column: 'error_message', kind: 'string' },
      transactionName: { column: 'transaction_name', kind: 'string' },
      duration: { column: 'duration', kind: 'double' },
      traceId: { column: 'trace_id', kind: 'string' },
    },
    attributeMaps: AGENT_MAPS,
  },
  Span: {
    table: 'span_events',
    typed: {
      ...AGENT_IDS,
      name: { column: 'name', kind: 'string' },
      category: { column: 'category', kind: 'string' },
      duration: { column: 'duration', kind: 'double' },
      traceId: { column: 'trace_id', kind: 'string' },
      guid: { column: 'guid', kind: 'string' },
      parentId: { column: 'parent_id', kind: 'string' },
      transactionId: { column: 'transaction_id', kind: 'string' },
    },
    attributeMaps: AGENT_MAPS,
  },
  Log: {
    table: 'log_events',
    typed: {
      ...AGENT_IDS,
      level: { column: 'level', kind: 'string' },
      message: { column: 'message', kind: 'string' },
      'trace.id': { column: 'trace_id', kind: 'string' },
      'span.id': { column: 'span_id', kind: 'string' },
    },
    attributeMaps: ['attributes'],
  },
};

/** Event type names are case-sensitive, as in New Relic. */
function eventBranch(eventType: string): SourceBranch {
  if (isAgentEventType(eventType)) return { ...AGENT_EVENT_BRANCHES[eventType], eventType, accountColumn: 'account_id', timeColumn: 'timestamp' };
  return {
    table: 'custom_events',
    eventType,
    accountColumn: 'account_id',
    timeColumn: 'timestamp',
    typeColumn: { column: 'event_type', value: eventType },
    typed: AGENT_IDS,
    attributeMaps: ['attributes'],
  };
}

function physicalSource(source: PlanSource): PhysicalSource {
  switch (source.kind) {
    case 'timeslices':
      // Recent rows in arrival order, older ones compacted (store/timeslice-compactor.ts).
      return {
        uniform: true,
        branches: TIMESLICE_TABLES.map((table) => ({
          table, eventType: 'Metric', accountColumn: 'account_id', timeColumn: 'ts', typed: TIMESLICE_COLUMNS, attributeMaps: [],
        })),
      };
    case 'events':
      return { uniform: source.eventTypes.length === 1, branches: source.eventTypes.map(eventBranch) };
    case 'allCustomEvents':
      return {
        uniform: true,
        branches: [{
          table: 'custom_events', eventType: '', accountColumn: 'account_id', timeColumn: 'timestamp',
          typed: { ...AGENT_IDS, eventType: { column: 'event_type', kind: 'string' } }, attributeMaps: ['attributes'],
        }],
      };
  }
}

/** The DuckDB store's tables, as the renderer reads them (`migrations.ts` creates them). */
export const duckdbSchema: PhysicalSchema = { source: physicalSource };
