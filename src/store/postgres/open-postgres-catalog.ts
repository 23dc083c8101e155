import type { Clock } from '../../clock.js';
import type { AlertRecords } from '../alert-records.js';
import { PgAccounts } from './catalog/pg-accounts.js';
import { PgApplications, type PgApplicationDeps } from './catalog/pg-applications.js';
import { PgCatalog } from './pg-catalog.js';
import { PgAlertRecords } from './pg-alert-records.js';
import type { BatchWriter } from '../batch-writer.js';
import type { EntityStores } from '../entity-stores.js';
import type { MetricIndexOptions } from '../metric-index.js';
import { PgMetricIndex } from './pg-metric-index.js';
import { PgChangeFeed } from './pg-change-feed.js';
import { PgDeploymentState } from './pg-deployment-state.js';
import { loadPgEntityStores } from './pg-entity-stores.js';
import { openPostgresDatabase, type PostgresDatabase } from './pg-database.js';
import { PgLease, type PgLeaseOptions } from './pg-lease.js';

export interface PostgresCatalogOptions {
  readonly clock: Clock;
  /** Pool size per node (default 10). */
  readonly maxConnections?: number;
  readonly lease?: PgLeaseOptions;
  /** What else holds applications' data (the metric index, entity stores, the data engine). */
  readonly applications?: PgApplicationDeps;
}

/** What a node keeps in the shared PostgreSQL database. */
export interface PostgresCatalog {
  readonly db: PostgresDatabase;
  /** Accounts, users and hashed keys, applications, hosts, instances and agent runs, coherent across nodes. */
  readonly catalog: PgCatalog;
  /** Key transactions, mobile and browser applications. */
  readonly entities: EntityStores;
  /** Deployment ids and the deployments REST deleted. */
  readonly deployments: PgDeploymentState;
  /** Alert configuration and state, the notification outbox. */
  readonly alerts: AlertRecords;
  /** Who runs background work (not started: the composition starts it). */
  readonly lease: PgLease;
  /** The LISTEN connection that keeps this node's memory coherent with the others. */
  readonly feed: PgChangeFeed;
  /** The metric index of a data store shared by several nodes (closed with the catalog). */
  openMetricIndex(writer: BatchWriter, options?: MetricIndexOptions): Promise<PgMetricIndex>;
  close(): Promise<void>;
}

/**
 * Opens the catalog database named by TIMESLICE_CATALOG (postgres://user@host:5432/database):
 * checks the server (a PostgresConfigError naming what is wrong), migrates its schema, loads what
 * nodes hold in memory and starts listening for the other nodes' changes. The one entry point
 * the store composition calls.
 */
export async function openPostgresCatalog(url: string, options: PostgresCatalogOptions): Promise<PostgresCatalog> {
  const db = await openPostgresDatabase(url, options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {});
  const feed = new PgChangeFeed(db);
  try {
    // Listening first: a change committed between a load and the LISTEN would otherwise be missed.
    await feed.start();
    const accounts = new PgAccounts(db, options.clock, feed);
    await accounts.load();
    const entities = await loadPgEntityStores(db, options.clock, feed);
    // Deleting an application deletes its key transactions and browser side from these stores too.
    const dependents = [entities.keyTransactions, entities.browserApplications, ...(options.applications?.dependents ?? [])];
    const apps = new PgApplications(db, options.clock, feed, { ...options.applications, dependents });
    await apps.load();
    const lease = new PgLease(db, options.lease);
    const indexes: PgMetricIndex[] = [];
    return {
      db, catalog: new PgCatalog(accounts, apps), entities, deployments: new PgDeploymentState(db), alerts: new PgAlertRecords(db, feed), lease, feed,
      async openMetricIndex(writer: BatchWriter, indexOptions: MetricIndexOptions = {}) {
        const index = await PgMetricIndex.load(db, writer, options.clock, feed, indexOptions);
        indexes.push(index);
        return index;
      },
      async close() {
        for (const index of indexes) await index.close();
        await lease.close();
        await apps.close();
        await feed.close();
        await db.close();
      },
    };
  } catch (error) {
    await feed.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    throw error;
  }
}
