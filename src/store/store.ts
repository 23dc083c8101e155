import type { AlertRecords } from './alert-records.js';
import type { BackgroundLease } from './background-lease.js';
import type { BatchWriter } from './batch-writer.js';
import type { Catalog } from './catalog.js';
import type { ExpiredEntries } from './catalog/agent-runs.js';
import type { Deployments } from './deployments.js';
import type { EntityStores } from './entity-stores.js';
import type { MetricIndex } from './metric-index.js';
import type { PlanExecutor } from './plan-executor.js';
import type { TraceStore } from './traces.js';

/**
 * The storage engines Timeslice can run on (configuration `TIMESLICE_STORE`): `duckdb`, the
 * embedded file, or `clickhouse` for timeslices, events and traces (`clickhouse://host:8123/db`),
 * the catalog staying in the DuckDB file.
 */
export const STORE_ENGINES = ['duckdb', 'clickhouse'] as const;
export type StoreEngine = (typeof STORE_ENGINES)[number];

/** Moving old timeslices into the order long reads want (clustered by application, metric, time). */
export interface CompactorOptions {
  /** How often to look for old timeslices; 0 turns compaction off. */
  readonly intervalMs: number;
  /** Timeslices at least this old (by their minute) move; newer ones stay in arrival order. */
  readonly minAgeMs: number;
}

export const DEFAULT_COMPACTION: CompactorOptions = { intervalMs: 10 * 60_000, minAgeMs: 2 * 3_600_000 };

const DAY_MS = 86_400_000;

/**
 * How long each kind of data is kept (New Relic's documented defaults). A period of `null` keeps
 * that kind forever. 1-minute timeslices are deleted only once rolled up into hours.
 */
export interface RetentionOptions {
  /** 1-minute timeslices. */
  readonly minuteMs: number | null;
  /** Hourly rollups of every metric but the key ones. */
  readonly hourlyMs: number | null;
  /** Hourly rollups of key metrics (`KEY_METRIC_PATTERNS`). */
  readonly keyMetricsMs: number | null;
  /** Events by NRQL event type; a type not named keeps `otherEventsMs`. */
  readonly eventsMs: Readonly<Record<string, number | null>>;
  readonly otherEventsMs: number | null;
  /** Error, transaction and SQL traces. */
  readonly tracesMs: number | null;
}

/** Metric names kept at hourly resolution indefinitely by default; `%` matches any text. */
export const KEY_METRIC_PATTERNS: readonly string[] = [
  'Apdex', 'Apdex/%', 'HttpDispatcher', 'WebFrontend/QueueTime', 'Errors/all', 'OtherTransaction/all',
  'EndUser', 'EndUser/%', 'CPU/%', 'Memory/%',
];

export const DEFAULT_RETENTION: RetentionOptions = {
  minuteMs: 8 * DAY_MS,
  hourlyMs: 90 * DAY_MS,
  keyMetricsMs: null,
  eventsMs: {
    Transaction: 8 * DAY_MS, TransactionError: 8 * DAY_MS, Span: 8 * DAY_MS, Log: 30 * DAY_MS,
    // Deployments and other change tracking: REST lists them for the application's lifetime.
    ChangeTrackingEvent: null,
  },
  otherEventsMs: 8 * DAY_MS,
  tracesMs: 8 * DAY_MS,
};

/** Rolling up closed hours and deleting what has expired, on a timer. */
export interface UpkeepOptions {
  /** How often; 0 = only when asked (`Store.maintain`). */
  readonly intervalMs: number;
  /** An hour is rolled up once it ended this long ago (agents report a minute late, retried a few more). */
  readonly rollupDelayMs: number;
  /** Rows one deletion step removes at most, so ingest keeps its latency while retention runs. */
  readonly deleteStepRows: number;
  readonly retention: RetentionOptions;
}

export const DEFAULT_UPKEEP: UpkeepOptions = {
  intervalMs: 10 * 60_000, rollupDelayMs: 3_600_000, deleteStepRows: 200_000, retention: DEFAULT_RETENTION,
};

/** What one run of upkeep did. */
export interface UpkeepReport {
  /** Hours rolled up and the rollup rows they made. */
  readonly hoursRolledUp: number;
  readonly rollupRows: number;
  /** Rows deleted, by table. */
  readonly deleted: Readonly<Record<string, number>>;
}

/** One table's share of the store. */
export interface TableStatus {
  readonly table: string;
  /** `minute`, `hour` or `events`. */
  readonly resolution: string;
  readonly rows: number;
  /** Epoch ms of its oldest row, null when empty. */
  readonly oldestMs: number | null;
}

/** What `timeslice status` shows. */
export interface StoreStatus {
  readonly engine: StoreEngine;
  /** Bytes the store's files take on disk. */
  readonly sizeBytes: number;
  readonly tables: readonly TableStatus[];
  readonly retention: RetentionOptions;
  /** Hours before this are rolled up (epoch ms), null before the first. */
  readonly rolledUpUntilMs: number | null;
  readonly lastRollupMs: number | null;
  readonly lastRetentionMs: number | null;
}

/** The store's files are held by another process (DuckDB allows one process per file). */
export class StoreLockedError extends Error {}

/** The configured store cannot be used: unreachable, too old, misconfigured. The message names what is wrong. */
export class StoreSetupError extends Error {}

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
  /** Alert policies, conditions, evaluator state, incidents and issues. */
  readonly alerts: AlertRecords;
  /** Error traces, transaction traces and slow SQL as agents sent them. */
  readonly traces: TraceStore;
  /**
   * Whether this node runs the work shared by every node (alert evaluation and notification, the
   * catalog's idle expiry, upkeep of shared data): always, unless the catalog is shared.
   */
  readonly lease: BackgroundLease;
  /** Starts background upkeep (compaction, rollups and retention, idle expiry) on timers. */
  start(): void;
  /** Runs one compaction now (moving old timeslices into clustered order); the timeslices moved. */
  compactOnce(): Promise<number>;
  /** Rolls up closed hours and deletes expired data now. */
  maintain(): Promise<UpkeepReport>;
  /** Sizes, rows, oldest data, retention in force and the last upkeep runs. */
  status(): Promise<StoreStatus>;
  /** Removes idle agent runs and instances now (`Catalog.expireIdle`). */
  expireIdle(): Promise<ExpiredEntries>;
  /** Stops background upkeep, commits pending writes and closes the engine. */
  close(): Promise<void>;
}
