import { join } from 'node:path';
import type { Clock } from '../../clock.js';
import type { AlertRecords } from '../alert-records.js';
import { AlwaysHeldLease, type BackgroundLease } from '../background-lease.js';
import type { ExpiredEntries, IdleExpiry } from '../catalog/agent-runs.js';
import type { Catalog } from '../catalog.js';
import { withDeploymentState } from '../deployment-state.js';
import { Deployments } from '../deployments.js';
import type { MetricIndex } from '../metric-index.js';
import type { OpenSharedCatalog, SharedCatalog } from '../shared-catalog.js';
import type { EntityStores } from '../entity-stores.js';
import { Mutex } from '../mutex.js';
import { DuckDbPlanExecutor } from './duckdb-plan-executor.js';
import type { Store, StoreEngine, StoreStatus, UpkeepOptions, UpkeepReport } from '../store.js';
import type { BatchWriter } from '../batch-writer.js';
import type { DataEngine } from '../data-engine.js';
import type { PlanExecutor } from '../plan-executor.js';
import { SplitWriter } from '../split-writer.js';
import type { TraceStore } from '../traces.js';
import { stat } from 'node:fs/promises';
import { Database } from './database.js';
import { DuckDbAlertRecords } from './duckdb-alert-records.js';
import { DuckDbBatchWriter } from './duckdb-batch-writer.js';
import { DuckDbCatalog } from './duckdb-catalog.js';
import { DuckDbChangeTrackingRecords } from './duckdb-change-tracking.js';
import { DuckDbTraceStore } from './duckdb-traces.js';
import { loadDuckDbEntityStores } from './duckdb-entity-stores.js';
import { DuckDbMetricIndex } from './duckdb-metric-index.js';
import { TimesliceCompactor, type CompactorOptions } from './timeslice-compactor.js';
import { TimesliceUpkeep } from './timeslice-upkeep.js';
import { APPLICATION_DATA_TABLES } from './catalog/duckdb-applications.js';

export interface DuckDbStoreOptions {
  /** The data directory: the store is `timeslice.duckdb` in it. */
  readonly dataDir: string;
  readonly memoryLimit: string;
  /** DuckDB's worker threads; undefined: DuckDB's default (one per core). */
  readonly threads?: number;
  readonly clock: Clock;
  readonly compaction?: CompactorOptions;
  /** Rollups and retention (default `DEFAULT_UPKEEP`). */
  readonly upkeep?: UpkeepOptions;
  readonly expiry?: IdleExpiry;
  /** Rows the batch writer queues at most (default `MAX_QUEUED_ROWS`). */
  readonly maxQueuedRows?: number;
  /** Distinct unscoped metric names per application (default `MAX_METRIC_NAMES_PER_APP`). */
  readonly maxMetricNamesPerApp?: number;
  /** How often idle runs and instances are looked for; 0 = never (then only `expireIdle()`). */
  readonly expireEveryMs: number;
  /**
   * Another engine for timeslices, events and traces (ClickHouse): then this file keeps the
   * catalog, metric index, entity stores, deployments' deletions and alert state, and plans,
   * traces, rollups and retention are the data engine's.
   */
  readonly data?: DataEngine;
  /**
   * The catalog, entity stores, deployment state, alert state and lease kept elsewhere, shared with
   * other nodes (TIMESLICE_CATALOG); with a data engine, the metric index too. This file then holds
   * what is left: the data, unless a data engine holds it, and the metric index of its own data.
   */
  readonly sharedCatalog?: OpenSharedCatalog;
}

/** DuckDB read connections: fewer than libuv's 4 pool threads (see `open`). */
const READ_CONNECTIONS = 3;

/** The embedded store: one DuckDB file under the data directory. */
export class DuckDbStore implements Store {
  readonly engine: StoreEngine;
  /** Plans are read here: DuckDB's executor, or the data engine's. */
  readonly executor: PlanExecutor;
  /** Ingest writes here: DuckDB's writer, or one that hands the data engine its tables' rows. */
  readonly writer: BatchWriter;
  readonly traces: TraceStore;
  private expiryTimer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;

  private constructor(
    /** The database, for tests and tools that look at its tables. */
    readonly db: Database,
    /** The DuckDB file's own writer (metric names and presence always go through it). */
    readonly duckdbWriter: DuckDbBatchWriter,
    /** The DuckDB file's own executor (idle with a data engine). */
    readonly duckdbExecutor: DuckDbPlanExecutor,
    readonly catalog: Catalog,
    readonly metrics: MetricIndex,
    readonly entities: EntityStores,
    readonly deployments: Deployments,
    duckdbTraces: DuckDbTraceStore,
    readonly alerts: AlertRecords,
    /** Held always, unless the catalog is shared: then by one node at a time. */
    readonly lease: BackgroundLease,
    /** The shared catalog it was opened with, closed with it. */
    private readonly shared: SharedCatalog | undefined,
    private readonly compactor: TimesliceCompactor,
    /** Rollups and retention; for tests and tools that look at its state. */
    readonly upkeep: TimesliceUpkeep,
    private readonly expireEveryMs: number,
    private readonly path: string,
    writer: BatchWriter,
    /** The data engine, when timeslices, events and traces are not in this file. */
    readonly data: DataEngine | undefined,
  ) {
    this.engine = data?.engine ?? 'duckdb';
    this.executor = data?.executor ?? duckdbExecutor;
    this.writer = writer;
    this.traces = data?.traces ?? duckdbTraces;
  }

  static async open(options: DuckDbStoreOptions): Promise<DuckDbStore> {
    const path = join(options.dataDir, 'timeslice.duckdb');
    const db = await Database.open({ path, memoryLimit: options.memoryLimit, ...(options.threads ? { threads: options.threads } : {}) });
    const duckdbWriter = new DuckDbBatchWriter(db.appendConnection, options.maxQueuedRows);
    const data = options.data;
    const writer: BatchWriter = data ? new SplitWriter(duckdbWriter, data.writer, (table) => data.holds(table)) : duckdbWriter;
    // Every DuckDB call holds one of libuv's 4 pool threads while it runs: with 4 long reads the
    // batch writer's BEGIN and COMMIT waited for one to end (ingest acks of minutes in
    // bench/starvation.ts). Three read connections leave one thread to ingest.
    let upkeep: TimesliceUpkeep | undefined;
    const executor = new DuckDbPlanExecutor(db, READ_CONNECTIONS, () => upkeep?.coverage ?? { hourlyUntilMs: null, minuteFromMs: null });
    let shared: SharedCatalog | undefined;
    try {
      const clock = options.clock;
      const indexOptions = options.maxMetricNamesPerApp !== undefined ? { maxMetricNamesPerApp: options.maxMetricNamesPerApp } : {};
      const storeMaintenance = new Mutex();
      let metrics: MetricIndex;
      let catalog: Catalog;
      let entities: EntityStores;
      let deployments: Deployments;
      let alerts: AlertRecords;
      let lease: BackgroundLease;
      const events = new DuckDbChangeTrackingRecords(db, writer, data);
      if (options.sharedCatalog) {
        let index: MetricIndex | undefined;
        shared = await options.sharedCatalog({
          // The index is opened below (a shared data engine's comes from the shared catalog).
          metrics: { forgetApplication: (appId) => index?.forgetApplication(appId), lastReportedAt: (scope) => index?.lastReportedAt(scope) },
          deleteApplicationData: (appId) => storeMaintenance.run(async () => {
            await deleteApplicationData(db, appId);
            data?.forgetApplication(appId);
          }),
          ...(options.expiry ? { expiry: options.expiry } : {}),
        });
        // With a data engine several nodes write, names need the same ids everywhere: the shared index.
        index = data && shared.openMetricIndex ? await shared.openMetricIndex(writer, indexOptions) : await DuckDbMetricIndex.load(db, writer, clock, indexOptions);
        metrics = index;
        ({ catalog, entities, alerts, lease } = shared);
        deployments = new Deployments(withDeploymentState(events, shared.deployments), clock);
      } else {
        const local = await DuckDbMetricIndex.load(db, writer, clock, indexOptions);
        metrics = local;
        entities = await loadDuckDbEntityStores(db, clock);
        // Deleting an application deletes its key transactions and browser side from these stores too.
        const dependents = [entities.keyTransactions, entities.browserApplications, ...(data ? [data] : [])];
        const localCatalog = await DuckDbCatalog.load(db, clock, {
          metrics: local, storeMaintenance, dependents, ...(options.expiry ? { expiry: options.expiry } : {}),
        });
        // Instances expired before a restart come back from metric_presence: fold them again.
        localCatalog.retireForgottenInstances();
        catalog = localCatalog;
        deployments = new Deployments(events, clock);
        alerts = new DuckDbAlertRecords(db);
        lease = new AlwaysHeldLease();
      }
      data?.useMetricIndex(metrics);
      const compactor = new TimesliceCompactor(db, clock, options.compaction, storeMaintenance);
      upkeep = await TimesliceUpkeep.load(db, clock, options.upkeep, storeMaintenance);
      return new DuckDbStore(
        db, duckdbWriter, executor, catalog, metrics, entities, deployments, new DuckDbTraceStore(db), alerts, lease, shared, compactor, upkeep,
        options.expireEveryMs, path, writer, data,
      );
    } catch (error) {
      await shared?.close().catch(() => undefined);
      executor.close();
      await writer.close().catch(() => undefined);
      await data?.close().catch(() => undefined);
      await db.close().catch(() => undefined);
      throw error;
    }
  }

  start(): void {
    // Compaction, rollups and retention of this node's own file need no lease. A data engine's upkeep
    // is shared work when the catalog is shared: it runs on the node holding the lease.
    this.lease.start();
    if (this.data) {
      if (!this.lease.shared) this.data.start();
      else this.lease.watch((held) => { if (held) this.data!.start(); });
    } else {
      this.compactor.start();
      this.upkeep.start();
    }
    if (this.expireEveryMs > 0 && !this.expiryTimer) {
      this.expiryTimer = setInterval(() => {
        if (this.lease.held()) void this.catalog.expireIdle().catch(() => undefined);
      }, this.expireEveryMs);
      this.expiryTimer.unref();
    }
  }

  compactOnce(): Promise<number> {
    // ClickHouse keeps its parts sorted by application, metric and time itself.
    return this.data ? Promise.resolve(0) : this.compactor.compactOnce();
  }

  maintain(): Promise<UpkeepReport> {
    return this.data ? this.data.maintain() : this.upkeep.runOnce();
  }

  async status(): Promise<StoreStatus> {
    if (this.data) return { engine: this.engine, ...(await this.data.status()) };
    let sizeBytes = 0;
    for (const file of [this.path, `${this.path}.wal`]) sizeBytes += await stat(file).then((s) => s.size, () => 0);
    const runs = this.upkeep.lastRuns;
    return {
      engine: this.engine,
      sizeBytes,
      tables: await this.upkeep.tables(),
      retention: this.upkeep.options.retention,
      rolledUpUntilMs: runs.watermarkMs,
      lastRollupMs: runs.lastRollupMs,
      lastRetentionMs: runs.lastRetentionMs,
    };
  }

  expireIdle(): Promise<ExpiredEntries> {
    return this.catalog.expireIdle();
  }

  close(): Promise<void> {
    return (this.closing ??= (async () => {
      clearInterval(this.expiryTimer);
      await this.compactor.stop();
      await this.upkeep.stop();
      this.duckdbExecutor.close();
      await this.writer.close();
      await this.data?.close();
      await this.db.close();
      await this.shared?.close();
    })());
  }
}

/** An application's rows in the data tables, in one transaction (a shared catalog deletes the rest). */
async function deleteApplicationData(db: Database, appId: number): Promise<void> {
  const conn = db.catalogConnection;
  await conn.run('BEGIN TRANSACTION');
  try {
    for (const table of APPLICATION_DATA_TABLES) await conn.run(`DELETE FROM ${table} WHERE app_id = $1`, [appId]);
    await conn.run('COMMIT');
  } catch (error) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
