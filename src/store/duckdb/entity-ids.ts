import type { DuckDBValue } from '@duckdb/node-api';
import type { Database } from './database.js';
import { paramTypes } from './duckdb-values.js';
import { withOwnConnection } from './own-connection.js';

/** The entity stores whose ids `entity_ids` keeps the high-water mark of: their tables. */
export type EntityKind = 'key_transactions' | 'mobile_applications' | 'browser_applications';

/**
 * Ids of the entities made through the APIs: the next is one above the highest ever handed out,
 * deleted ones included, so an id (and the entity GUID made of it) never names two entities.
 */
export class EntityIds {
  private constructor(private readonly db: Database, private readonly kind: EntityKind, private highest: number) {}

  /** The high-water mark as stored, or the highest id in the table if that is higher. */
  static async load(db: Database, kind: EntityKind): Promise<EntityIds> {
    const [row] = await db.all<{ highest: number | null }>(
      `SELECT greatest((SELECT max(highest) FROM entity_ids WHERE kind = $1), (SELECT max(id) FROM ${kind})) AS highest`, [kind],
    );
    return new EntityIds(db, kind, row?.highest ?? 0);
  }

  /** The id the next insert will use. */
  next(): number {
    return this.highest + 1;
  }

  /** Inserts the row of entity `id` (from `next()`) and records the id as handed out, in one transaction. */
  async insert(id: number, sql: string, params: DuckDBValue[]): Promise<void> {
    await withOwnConnection(this.db, async (connection) => {
      await connection.run('BEGIN TRANSACTION');
      try {
        await connection.run(sql, params, paramTypes(params));
        await connection.run('UPDATE entity_ids SET highest = $1 WHERE kind = $2', [id, this.kind]);
        await connection.run('COMMIT');
      } catch (error) {
        await connection.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
    this.highest = id;
  }
}
