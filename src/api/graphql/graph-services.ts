import type { AlertService } from '../../alerts/alert-service.js';
import type { Clock } from '../../clock.js';
import type { NrqlEngine } from '../../nrql/nrql-engine.js';
import type { Catalog } from '../../store/catalog.js';
import type { Deployments } from '../../store/deployments.js';
import type { EntityStores } from '../../store/entity-stores.js';
import type { MetricIndex } from '../../store/metric-index.js';
import type { PlanExecutor } from '../../store/plan-executor.js';
import type { AsyncNrqlQueries } from './async-nrql.js';

/** What the graph API reads and changes: the same stores and engine REST and NRQL use. */
export interface GraphServices {
  readonly catalog: Catalog;
  readonly metrics: MetricIndex;
  readonly executor: PlanExecutor;
  readonly clock: Clock;
  readonly entities: EntityStores;
  readonly deployments: Deployments;
  readonly nrql: NrqlEngine;
  /** Alerting: policies, conditions, issues; absent where no alert engine runs. */
  readonly alerts?: AlertService;
  /** NRQL queries run with `async: true` that outlived their timeout. */
  readonly asyncQueries: AsyncNrqlQueries;
}
