import type { PlanSource, TimesliceField } from '../plan/aggregate-plan.js';

/** Where a plan source lives in the store, and its logical fields' physical columns. */
export interface PhysicalSource {
  readonly table: string;
  readonly accountColumn: string;
  readonly timeColumn: string;
  readonly columns: Readonly<Record<string, string>>;
}

const TIMESLICE_COLUMNS: Readonly<Record<TimesliceField, string>> = {
  appId: 'app_id',
  hostId: 'host_id',
  instanceId: 'instance_id',
  metricId: 'metric_id',
  scopeId: 'scope_id',
  count: 'call_count',
  total: 'total',
  totalExclusive: 'exclusive',
  min: 'min',
  max: 'max',
  sumOfSquares: 'sum_of_squares',
};

export function physicalSource(source: PlanSource): PhysicalSource {
  switch (source.kind) {
    case 'timeslices':
      return { table: 'timeslices', accountColumn: 'account_id', timeColumn: 'ts', columns: TIMESLICE_COLUMNS };
  }
}
