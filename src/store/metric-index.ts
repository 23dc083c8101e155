import type { WriteTicket } from './batch-writer.js';
import type { Rows } from './append-tables.js';

/**
 * Distinct metric names an application may report (its metric names list). New Relic applies its
 * metric grouping limits once an application passes 5000 unique metric names.
 */
export const MAX_METRIC_NAMES_PER_APP = 5000;

export interface MetricIndexOptions {
  /** Distinct unscoped metric names per application; names past it are dropped. */
  readonly maxMetricNamesPerApp?: number;
}

/** An application, optionally narrowed to one of its hosts and/or instances. */
export interface MetricScope {
  readonly appId: number;
  readonly hostId?: number;
  readonly instanceId?: number;
}

/** One metric_data harvest as the index needs it, beside the rows it becomes. */
export interface MetricWrite {
  /** Every metric and scope name the rows refer to. */
  readonly names: readonly string[];
  /** The names the harvest reports as unscoped metrics: each is present for every target from now on. */
  readonly unscoped: readonly string[];
  readonly accountId: number;
  /** Where the rows are written: the run's applications, each with its host and instance. */
  readonly targets: readonly { readonly appId: number; readonly hostId: number; readonly instanceId: number }[];
}

/**
 * Metric and scope names as small integers, and which unscoped metrics each application, host
 * and instance has ever reported, and when it last did. REST lists an application's metric names
 * and tells a metric with no data in a window from one never reported from it, without a scan.
 *
 * A new name and a new presence commit with the first data that uses them, and no later data
 * using them is acknowledged before that. Queries see only what committed. An application reports
 * at most `maxMetricNamesPerApp` distinct unscoped names; a harvest's names past it are dropped for
 * that application and reported as an `NrIntegrationError` event.
 */
export interface MetricIndex {
  /**
   * Writes the rows `build` makes with ids for `write.names`, introducing new names and presence
   * in the same commit. If the write fails, what it introduced is forgotten (the agent resends).
   */
  write(write: MetricWrite, build: (ids: ReadonlyMap<string, number>) => Rows[], ticket?: WriteTicket): Promise<void>;
  /** The dictionary id of a committed name (for filters on metric and scope ids). */
  metricId(name: string): number | undefined;
  /** The committed name of a dictionary id (metric or scope), for showing ids as names. */
  nameOf(id: number): string | undefined;
  /** Every committed dictionary entry (metric and scope names alike), for matching names by pattern. */
  entries(): Iterable<readonly [id: number, name: string]>;
  /** Every unscoped metric name ever stored for the scope, regardless of time, sorted. */
  metricNames(scope: MetricScope): string[];
  /** Whether the scope ever stored `name` as an unscoped metric. */
  knows(scope: MetricScope, name: string): boolean;
  /** Epoch ms (server clock) when the scope's last metric_data was stored; undefined if never. */
  lastReportedAt(scope: MetricScope): number | undefined;
  /** Drops an application's presence and reporting times (its rows are deleted by the catalog). */
  forgetApplication(appId: number): void;
  /**
   * Instances (and hosts) not in `live` left the catalog: what they reported is kept for their host
   * and application, not per instance, so names and reporting times of both are unchanged.
   */
  retireInstances(live: { readonly instances: ReadonlySet<number>; readonly hosts: ReadonlySet<number> }): void;
  /** Distinct names known, committed or not. */
  readonly size: number;
}
