import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { Database } from './database.js';
import { paramTypes } from './duckdb-values.js';

/**
 * Runs writes on a connection of their own. The catalog holds multi-statement transactions on
 * its connection (an application's deletion), which a statement sent there meanwhile would join;
 * DuckDB connections are cheap, and these writes are rare (an entity created by an API call).
 */
export async function withOwnConnection<T>(db: Database, work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const connection = await db.instance.connect();
  try {
    return await work(connection);
  } finally {
    connection.closeSync();
  }
}

export async function runOnOwnConnection(db: Database, sql: string, params: DuckDBValue[]): Promise<void> {
  await withOwnConnection(db, (connection) => connection.run(sql, params, paramTypes(params)));
}

/** Runs `work` between BEGIN and COMMIT on `connection`, rolling back when it throws. */
export async function inTransaction<T>(connection: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const result = await work();
    await connection.run('COMMIT');
    return result;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
