import type { DuckDBTimestampValue, DuckDBValue } from '@duckdb/node-api';
import type { Clock } from '../../../clock.js';
import type { Mutex } from '../../mutex.js';
import type { Database } from '../database.js';
import { paramTypes, timestampValue } from '../duckdb-values.js';

/**
 * What the parts of the DuckDB catalog share: the catalog connection and one lock. An application's
 * deletion holds a multi-statement transaction on that connection, which any statement sent there
 * meanwhile would join, so every catalog write runs under the one lock.
 */
export class CatalogWrites {
  constructor(readonly db: Database, readonly clock: Clock, readonly mutex: Mutex) {}

  now(): DuckDBTimestampValue {
    return timestampValue(this.clock.now());
  }

  async exec(sql: string, params: DuckDBValue[]): Promise<void> {
    await this.db.catalogConnection.run(sql, params, paramTypes(params));
  }

  /** Runs `work` in one transaction on the catalog connection; the caller holds the lock. */
  async transaction(work: () => Promise<void>): Promise<void> {
    const conn = this.db.catalogConnection;
    await conn.run('BEGIN TRANSACTION');
    try {
      await work();
      await conn.run('COMMIT');
    } catch (error) {
      await conn.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }
}
