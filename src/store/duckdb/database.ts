import { DuckDBConnection, DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import { APPEND_TABLES } from '../append-tables.js';
import { MIGRATIONS, type Migration } from './migrations.js';
import { StoreLockedError } from '../store.js';
import { readColumns } from './sources.js';
import { schemaMismatches } from '../tables.js';

export { StoreLockedError };

export interface DatabaseOptions {
  /** DuckDB file, or ':memory:'. */
  readonly path: string;
  /** DuckDB's memory_limit; without one a large sorted load can take most of the machine. */
  readonly memoryLimit?: string;
  readonly threads?: number;
}

/**
 * The embedded DuckDB store. Only one process may open the file, so every tool goes through
 * the service. Three connections: one for the batch writer's appends, one for catalog writes,
 * one for reads; DuckDB runs their transactions side by side (appends never conflict).
 */
export class Database {
  private constructor(
    readonly instance: DuckDBInstance,
    readonly appendConnection: DuckDBConnection,
    readonly catalogConnection: DuckDBConnection,
    readonly readConnection: DuckDBConnection,
  ) {}

  static async open(options: DatabaseOptions, migrations: readonly Migration[] = MIGRATIONS): Promise<Database> {
    const config: Record<string, string> = { memory_limit: options.memoryLimit ?? '2GB' };
    if (options.threads) config.threads = String(options.threads);
    const instance = await DuckDBInstance.create(options.path, config).catch((error: Error) => {
      const lock = /Could not set lock on file .*PID (\d+)/.exec(error.message);
      if (lock) throw new StoreLockedError(`${options.path} is open in another process (pid ${lock[1]}): only one Timeslice may use a data directory; stop it or choose another --data`);
      throw error;
    });
    const db = new Database(instance, await instance.connect(), await instance.connect(), await instance.connect());
    try {
      await db.migrate(migrations);
      // A partial list (tests of a later migration) builds an older schema the writer does not expect.
      if (migrations.length === MIGRATIONS.length) await db.verifyAppendTables();
    } catch (error) {
      for (const conn of [db.appendConnection, db.catalogConnection, db.readConnection]) conn.closeSync();
      instance.closeSync();
      throw error;
    }
    return db;
  }

  /** Rows as objects; for small results (catalog reads, tests). Aggregate in SQL, return few rows. */
  async all<T = Record<string, unknown>>(sql: string, params: DuckDBValue[] = []): Promise<T[]> {
    const reader = await this.readConnection.runAndReadAll(sql, params);
    return reader.getRowObjectsJS() as T[];
  }

  private async migrate(migrations: readonly Migration[]): Promise<void> {
    const conn = this.catalogConnection;
    await conn.run('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER NOT NULL, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)');
    const done = new Set(
      (await conn.runAndReadAll('SELECT version FROM schema_migrations')).getRowObjectsJS().map((r) => Number(r.version)),
    );
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(migration.version)) continue;
      await conn.run('BEGIN TRANSACTION');
      try {
        await conn.run(migration.sql);
        await conn.run('INSERT INTO schema_migrations VALUES ($1, $2, now())', [migration.version, migration.name]);
        await conn.run('COMMIT');
      } catch (error) {
        // A failed COMMIT has already ended the transaction; its error is the one to report.
        await conn.run('ROLLBACK').catch(() => undefined);
        throw new Error(`migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`, { cause: error });
      }
    }
  }

  /** The writer's tables and the query mapping, both against the migrated schema (`store/tables.ts`). */
  private async verifyAppendTables(): Promise<void> {
    const rows = await this.all<{ table_name: string; column_name: string; data_type: string }>(
      'SELECT table_name, column_name, data_type FROM information_schema.columns ORDER BY table_name, ordinal_position',
    );
    const byTable = new Map<string, { name: string; type: string }[]>();
    for (const r of rows) byTable.set(r.table_name, [...(byTable.get(r.table_name) ?? []), { name: r.column_name, type: r.data_type }]);
    const problems = schemaMismatches((table) => byTable.get(table) ?? [], APPEND_TABLES, readColumns());
    if (problems.length > 0) throw new Error(problems.join('; '));
  }

  async close(): Promise<void> {
    await this.catalogConnection.run('CHECKPOINT');
    for (const conn of [this.appendConnection, this.catalogConnection, this.readConnection]) conn.closeSync();
    this.instance.closeSync();
  }
}
