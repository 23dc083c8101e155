import { StoreSetupError } from '../store.js';
import { redact, type ClickHouseConfig } from './clickhouse-config.js';
import { ClickHouseConnection, ClickHouseUnavailableError, OLDEST_VERSION } from './clickhouse-connection.js';
import {
  HOURLY_COLUMNS_STORED, HOURLY_TABLE, MAINTENANCE_COLUMNS, MAINTENANCE_TABLE, mergeTreeClause, STORED_TABLES, type StoredColumn,
} from './clickhouse-schema.js';

/** ClickHouse cannot be used as configured (unreachable, too old, a missing cluster…); the message says what. */
export class ClickHouseSetupError extends StoreSetupError {}

/**
 * The ClickHouse side of a store: a connection to the first host (reads and inserts) and one per
 * host (schema, retention, taking back a failed batch: mutations and partition drops run on the
 * MergeTree tables themselves, which on a cluster are each shard's `<table>_local`).
 */
export class ClickHouseDatabase {
  private constructor(
    readonly config: ClickHouseConfig,
    readonly main: ClickHouseConnection,
    readonly hosts: readonly ClickHouseConnection[],
  ) {}

  /** The MergeTree table holding `table`'s rows on each host. */
  localName(table: string): string {
    return this.config.cluster ? `${table}_local` : table;
  }

  /**
   * Connects, checks the version (and the cluster), creates the database and tables that are
   * missing. Every failure names what is wrong: the URL's host, the version found, the cluster.
   */
  static async open(config: ClickHouseConfig, url: string): Promise<ClickHouseDatabase> {
    const hosts = config.hosts.map((_, i) => new ClickHouseConnection(config, i, null));
    const closeAll = () => Promise.all(hosts.map((h) => h.close().catch(() => undefined)));
    try {
      for (const host of hosts) {
        let version: number[];
        try {
          version = await host.version();
        } catch (error) {
          if (error instanceof ClickHouseUnavailableError) {
            const reason = error.message.replace(/^ClickHouse at \S+ is unavailable \([^)]*\): /, '');
            throw new ClickHouseSetupError(`TIMESLICE_STORE ${redact(url)}: cannot reach ClickHouse at ${host.url}: ${reason}`);
          }
          throw new ClickHouseSetupError(`TIMESLICE_STORE ${redact(url)}: ClickHouse at ${host.url} refused the connection: ${(error as Error).message}`);
        }
        const [major = 0, minor = 0] = version;
        if (major < OLDEST_VERSION[0] || (major === OLDEST_VERSION[0] && minor < OLDEST_VERSION[1])) {
          throw new ClickHouseSetupError(`ClickHouse at ${host.url} is version ${version.join('.')}; Timeslice needs ${OLDEST_VERSION.join('.')} or later`);
        }
        if (config.cluster) {
          const shards = await host.rows(`SELECT count() FROM system.clusters WHERE cluster = '${config.cluster}'`);
          if (Number(shards[0]?.[0] ?? 0) === 0) throw new ClickHouseSetupError(`ClickHouse at ${host.url} has no cluster '${config.cluster}' in its remote_servers`);
        }
        await host.command(`CREATE DATABASE IF NOT EXISTS "${config.database}"`);
      }
    } catch (error) {
      await closeAll();
      throw error;
    }
    await closeAll();
    const db = new ClickHouseDatabase(config, new ClickHouseConnection(config, 0), config.hosts.map((_, i) => new ClickHouseConnection(config, i)));
    try {
      await db.createTables();
    } catch (error) {
      await db.close();
      throw error;
    }
    return db;
  }

  private async createTables(): Promise<void> {
    const columns = (list: readonly StoredColumn[]) => list.map((c) => `"${c.name}" ${c.type}`).join(', ');
    const tables = [
      ...STORED_TABLES.map((t) => ({ name: t.name, columns: t.columns, engine: mergeTreeClause(t.timeColumn, t.orderBy), key: 'cityHash64(account_id, app_id)' })),
      { name: HOURLY_TABLE, columns: HOURLY_COLUMNS_STORED, engine: mergeTreeClause('ts', ['account_id', 'app_id', 'metric_id', 'ts']), key: 'cityHash64(account_id, app_id)' },
      { name: MAINTENANCE_TABLE, columns: MAINTENANCE_COLUMNS, engine: 'ENGINE = MergeTree() PARTITION BY tuple() ORDER BY ("task", "at")', key: 'rand()' },
    ];
    for (const host of this.hosts) {
      for (const t of tables) await host.command(`CREATE TABLE IF NOT EXISTS "${this.localName(t.name)}" (${columns(t.columns)}) ${t.engine}`);
      if (!this.config.cluster) continue;
      for (const t of tables) {
        await host.command(`CREATE TABLE IF NOT EXISTS "${t.name}" (${columns(t.columns)}) ENGINE = Distributed(${this.config.cluster}, ${this.config.database}, ${this.localName(t.name)}, ${t.key})`);
      }
    }
  }

  /** Runs `sql(local table name)` on every host (mutations, partition drops). */
  async onEveryHost(table: string, sql: (local: string) => string): Promise<void> {
    for (const host of this.hosts) await host.command(sql(`"${this.localName(table)}"`));
  }

  async close(): Promise<void> {
    await Promise.all([this.main, ...this.hosts].map((c) => c.close().catch(() => undefined)));
  }
}
