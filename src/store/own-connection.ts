import type { DuckDBValue } from '@duckdb/node-api';
import type { Database } from './database.js';

/**
 * Runs one write on a connection of its own. The catalog holds multi-statement transactions on
 * its connection (an application's deletion), which a statement sent there meanwhile would join;
 * DuckDB connections are cheap, and these writes are rare (an entity created by an API call).
 */
export async function runOnOwnConnection(db: Database, sql: string, params: DuckDBValue[]): Promise<void> {
  const connection = await db.instance.connect();
  try {
    await connection.run(sql, params);
  } finally {
    connection.closeSync();
  }
}
