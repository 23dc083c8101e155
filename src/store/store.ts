import type { BatchWriter } from './batch-writer.js';
import type { Catalog } from './catalog.js';
import type { ExpiredEntries } from './catalog/agent-runs.js';
import type { Deployments } from './deployments.js';
import type { EntityStores } from './entity-stores.js';
import type { MetricIndex } from './metric-index.js';
import type { PlanExecutor } from './plan-executor.js';
import type { TraceStore } from './traces.js';

/** The storage engines Timeslice can run on (configuration `TIMESLICE_STORE`). */
export const STORE_ENGINES = ['duckdb'] as const;
export type StoreEngine = (typeof STORE_ENGINES)[number];

/** Moving old timeslices into the order long reads want (clustered by application, metric, time). */
export interface CompactorOptions {
  /** How often to look for old timeslices; 0 turns compaction off. */
  readonly intervalMs: number;
  /** Timeslices at least this old (by their minute) move; newer ones stay in arrival order. */
  readonly minAgeMs: number;
}

export const DEFAULT_COMPACTION: CompactorOptions = { intervalMs: 10 * 60_000, minAgeMs: 2 * 3_600_000 };

/** The store's files are held by another process (DuckDB allows one process per file). */
export class StoreLockedError extends Error {}

/**
 * Everything the surfaces get from storage, whichever engine holds it: plans are read through
 * `executor`, ingest appends through `writer`, and the catalog, metric index, entity stores and
 * change tracking hold what is not a timeslice or an event. One is opened by `openStore`, chosen
 * by configuration; nothing above the store knows which engine it is.
 */
export interface Store {
  readonly engine: StoreEngine;
  /** Reads: runs rendered plans. */
  readonly executor: PlanExecutor;
  /** Appends: group-committed rows, acknowledged after commit. */
  readonly writer: BatchWriter;
  readonly catalog: Catalog;
  /** Metric names ↔ ids, the unscoped metrics each application/host/instance reported, and when it last did. */
  readonly metrics: MetricIndex;
  /** Key transactions, mobile and browser applications. */
  readonly entities: EntityStores;
  /** Change tracking events, deployments among them. */
  readonly deployments: Deployments;
  /** Error traces, transaction traces and slow SQL as agents sent them. */
  readonly traces: TraceStore;
  /** Starts background upkeep (compaction, idle expiry) on timers. */
  start(): void;
  /** Runs one compaction now (moving old timeslices into clustered order); the timeslices moved. */
  compactOnce(): Promise<number>;
  /** Removes idle agent runs and instances now (`Catalog.expireIdle`). */
  expireIdle(): Promise<ExpiredEntries>;
  /** Stops background upkeep, commits pending writes and closes the engine. */
  close(): Promise<void>;
}
