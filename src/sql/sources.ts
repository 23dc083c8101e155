import { TIMESLICE_TABLES } from '../store/timeslice-compactor.js';
import type { PlanSource, TimesliceField } from '../plan/aggregate-plan.js';

/** Where a plan source lives in the store, and its logical fields' physical columns. */
export interface PhysicalSource {
  /** One table, or several with the same columns whose rows together are the source. */
  readonly tables: readonly string[];
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
      // Recent rows in arrival order, older ones compacted (store/timeslice-compactor.ts).
      return { tables: TIMESLICE_TABLES, accountColumn: 'account_id', timeColumn: 'ts', columns: TIMESLICE_COLUMNS };
  }
}
