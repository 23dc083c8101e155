import type { AlertRecords } from './alert-records.js';
import type { BackgroundLease } from './background-lease.js';
import type { IdleExpiry } from './catalog/agent-runs.js';
import type { Catalog } from './catalog.js';
import type { DeploymentState } from './deployment-state.js';
import type { EntityStores } from './entity-stores.js';
import type { BatchWriter } from './batch-writer.js';
import type { MetricIndex, MetricIndexOptions, MetricScope } from './metric-index.js';

/** What a shared catalog needs from the data engine it is composed with. */
export interface SharedCatalogDeps {
  /** The metric index: a deleted application's presence goes; an instance reporting is not idle. */
  readonly metrics: {
    forgetApplication(appId: number): void;
    lastReportedAt?(scope: MetricScope): number | undefined;
  };
  /** Deletes an application's timeslices, events and traces in the data engine. */
  readonly deleteApplicationData: (appId: number) => Promise<void>;
  readonly expiry?: IdleExpiry;
}

/**
 * The catalog, entity stores, deployment state, alert state and background lease kept outside the
 * data engine, shared by every node (TIMESLICE_CATALOG): the store's parts that are not timeslices,
 * events or traces.
 */
export interface SharedCatalog {
  readonly catalog: Catalog;
  readonly entities: EntityStores;
  readonly deployments: DeploymentState;
  readonly alerts: AlertRecords;
  readonly lease: BackgroundLease;
  /** A metric index shared by every node, for a data engine they all write (ids the same everywhere). */
  openMetricIndex?(writer: BatchWriter, options?: MetricIndexOptions): Promise<MetricIndex>;
  close(): Promise<void>;
}

/** Opens the shared catalog once the data engine's parts it depends on exist. */
export type OpenSharedCatalog = (deps: SharedCatalogDeps) => Promise<SharedCatalog>;
