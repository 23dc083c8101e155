import { join } from 'node:path';
import type { Clock } from '../../clock.js';
import type { AlertRecords } from '../alert-records.js';
import { AlwaysHeldLease, type BackgroundLease } from '../background-lease.js';
import type { ExpiredEntries, IdleExpiry } from '../catalog/agent-runs.js';
import type { Catalog } from '../catalog.js';
import { withDeploymentState } from '../deployment-state.js';
import { Deployments } from '../deployments.js';
import type { EntityStores } from '../entity-stores.js';
import { Mutex } from '../mutex.js';
import { DuckDbPlanExecutor } from './duckdb-plan-executor.js';
import type { Store, StoreStatus, UpkeepOptions, UpkeepReport } from '../store.js';
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
import type { OpenSharedCatalog, SharedCatalog } from '../shared-catalog.js';
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
   * The catalog, entity stores, deployment state, alert state and lease kept elsewhere, shared with
   * other nodes (TIMESLICE_CATALOG); the DuckDB file then holds the data and the metric index only.
   */
  readonly sharedCatalog?: OpenSharedCatalog;
}

/** DuckDB read connections: fewer than libuv's 4 pool threads (see `open`). */
const READ_CONNECTIONS = 3;

/** The embedded store: one DuckDB file under the data directory. */
export class DuckDbStore implements Store {
  readonly engine = 'duckdb' as const;
  private expiryTimer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;

  private constructor(
    /** The database, for tests and tools that look at its tables. */
    readonly db: Database,
    readonly writer: DuckDbBatchWriter,
    readonly executor: DuckDbPlanExecutor,
    readonly catalog: Catalog,
    readonly metrics: DuckDbMetricIndex,
    readonly entities: EntityStores,
    readonly deployments: Deployments,
    readonly traces: DuckDbTraceStore,
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
  ) {}

  static async open(options: DuckDbStoreOptions): Promise<DuckDbStore> {
    const path = join(options.dataDir, 'timeslice.duckdb');
    const db = await Database.open({ path, memoryLimit: options.memoryLimit, ...(options.threads ? { threads: options.threads } : {}) });
    const writer = new DuckDbBatchWriter(db.appendConnection, options.maxQueuedRows);
    // Every DuckDB call holds one of libuv's 4 pool threads while it runs: with 4 long reads the
    // batch writer's BEGIN and COMMIT waited for one to end (ingest acks of minutes in
    // bench/starvation.ts). Three read connections leave one thread to ingest.
    let upkeep: TimesliceUpkeep | undefined;
    const executor = new DuckDbPlanExecutor(db, READ_CONNECTIONS, () => upkeep?.coverage ?? { hourlyUntilMs: null, minuteFromMs: null });
    let shared: SharedCatalog | undefined;
    try {
      const clock = options.clock;
      const metrics = await DuckDbMetricIndex.load(db, writer, clock, {
        ...(options.maxMetricNamesPerApp !== undefined ? { maxMetricNamesPerApp: options.maxMetricNamesPerApp } : {}),
      });
      const storeMaintenance = new Mutex();
      let catalog: Catalog;
      let entities: EntityStores;
      let deployments: Deployments;
      let alerts: AlertRecords;
      let lease: BackgroundLease;
      const events = new DuckDbChangeTrackingRecords(db, writer);
      if (options.sharedCatalog) {
        shared = await options.sharedCatalog({
          metrics,
          deleteApplicationData: (appId) => storeMaintenance.run(() => deleteApplicationData(db, appId)),
          ...(options.expiry ? { expiry: options.expiry } : {}),
        });
        ({ catalog, entities, alerts, lease } = shared);
        deployments = new Deployments(withDeploymentState(events, shared.deployments), clock);
      } else {
        entities = await loadDuckDbEntityStores(db, clock);
        // Deleting an application deletes its key transactions and browser side from these stores too.
        const dependents = [entities.keyTransactions, entities.browserApplications];
        const local = await DuckDbCatalog.load(db, clock, {
          metrics, storeMaintenance, dependents, ...(options.expiry ? { expiry: options.expiry } : {}),
        });
        // Instances expired before a restart come back from metric_presence: fold them again.
        local.retireForgottenInstances();
        catalog = local;
        deployments = new Deployments(events, clock);
        alerts = new DuckDbAlertRecords(db);
        lease = new AlwaysHeldLease();
      }
      const compactor = new TimesliceCompactor(db, clock, options.compaction, storeMaintenance);
      upkeep = await TimesliceUpkeep.load(db, clock, options.upkeep, storeMaintenance);
      return new DuckDbStore(
        db, writer, executor, catalog, metrics, entities, deployments, new DuckDbTraceStore(db), alerts, lease, shared, compactor, upkeep, options.expireEveryMs, path,
      );
    } catch (error) {
      await shared?.close().catch(() => undefined);
      executor.close();
      await writer.close().catch(() => undefined);
      await db.close().catch(() => undefined);
      throw error;
    }
  }

  start(): void {
    // Compaction, rollups and retention of this node's own file need no lease; expiring the catalog's
    // idle runs and instances does when the catalog is shared.
    this.compactor.start();
    this.upkeep.start();
    this.lease.start();
    if (this.expireEveryMs > 0 && !this.expiryTimer) {
      this.expiryTimer = setInterval(() => {
        if (this.lease.held()) void this.catalog.expireIdle().catch(() => undefined);
      }, this.expireEveryMs);
      this.expiryTimer.unref();
    }
  }

  compactOnce(): Promise<number> {
    return this.compactor.compactOnce();
  }

  maintain(): Promise<UpkeepReport> {
    return this.upkeep.runOnce();
  }

  async status(): Promise<StoreStatus> {
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
      this.executor.close();
      await this.writer.close();
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
