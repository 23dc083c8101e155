import type pg from 'pg';
import type { Clock } from '../../clock.js';
import { DEFAULT_BROWSER_MONITORING_SETTINGS, DEFAULT_MOBILE_AGENT_SETTINGS, type BrowserMonitoringSettings, type MobileAgentSettings } from '../../domain/agent-settings/model.js';
import { applySettingsPatch, type SettingsPatch } from '../../domain/agent-settings/validation.js';
import { BrowserApplications, browserSettingsOf, type BrowserApplication } from '../browser-applications.js';
import { EntityIdTakenError, type EntityRows, type StoredEntity } from '../entities/entity-collection.js';
import type { EntityStores } from '../entity-stores.js';
import { KeyTransactions, type KeyTransaction } from '../key-transactions.js';
import { MobileApplications, type MobileApplication } from '../mobile-applications.js';
import { notifyChange, type PgChangeFeed } from './pg-change-feed.js';
import type { PostgresDatabase } from './pg-database.js';
import { refuseNul } from './pg-text.js';

/** What differs between the three kinds: the application a row belongs to, and settings laid over today's defaults. */
interface EntityKind<T extends StoredEntity> {
  readonly name: 'key_transactions' | 'mobile_applications' | 'browser_applications';
  /** As the stores name the kind in their messages. */
  readonly display: string;
  appIdOf(entity: T): number | null;
  revive(stored: T): T;
}

const KEY_TRANSACTIONS: EntityKind<KeyTransaction> = { name: 'key_transactions', display: 'key transaction', appIdOf: (kt) => kt.appId, revive: (kt) => kt };
const MOBILE_APPLICATIONS: EntityKind<MobileApplication> = {
  name: 'mobile_applications',
  display: 'mobile application',
  appIdOf: () => null,
  revive: (m) => ({ ...m, settings: applySettingsPatch(DEFAULT_MOBILE_AGENT_SETTINGS, m.settings as SettingsPatch<MobileAgentSettings>) }),
};
const BROWSER_APPLICATIONS: EntityKind<BrowserApplication> = {
  name: 'browser_applications',
  display: 'browser application',
  appIdOf: (b) => b.apmApplicationId,
  revive: (b) => {
    const monitoring = applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, b.monitoring as SettingsPatch<BrowserMonitoringSettings>);
    return { ...b, monitoring, settings: browserSettingsOf(monitoring) };
  },
};

function nameOf(entity: StoredEntity): string {
  return (entity as StoredEntity & { readonly name: string }).name;
}

/** The kinds whose rows go with a deleted application (in the transaction that deletes it). */
export const APPLICATION_ENTITY_KINDS = [KEY_TRANSACTIONS.name, BROWSER_APPLICATIONS.name] as const;

const TOPIC = 'entities';

/**
 * An entity store's rows in PostgreSQL, shared by every node. `nextId()` is synchronous: it is one
 * above the highest id handed out as this node last saw it (`entity_high`, written with each
 * insert), so ids are as dense as the embedded store's and never reused; when another node took
 * that id meanwhile, the insert conflicts, the node reads the highest again and the collection
 * builds the entity with the next one. A write notifies the other nodes, whose collections read
 * the kind again.
 */
export class PgEntityRows<T extends StoredEntity> implements EntityRows<T> {
  private reserved = 0;
  private changed: (() => Promise<void>) | undefined;

  private constructor(private readonly db: PostgresDatabase, private readonly kind: EntityKind<T>, feed: PgChangeFeed) {
    feed.on(`${TOPIC}.${kind.name}`, async () => {
      await this.readHighest();
      await this.changed?.();
    });
  }

  static async open<T extends StoredEntity>(db: PostgresDatabase, kind: EntityKind<T>, feed: PgChangeFeed): Promise<PgEntityRows<T>> {
    const rows = new PgEntityRows(db, kind, feed);
    await rows.readHighest();
    return rows;
  }

  /** The next id is above the highest any node handed out. */
  private async readHighest(): Promise<void> {
    const highest = (await this.db.pool.query<{ highest: number }>('SELECT highest FROM entity_high WHERE kind = $1', [this.kind.name])).rows[0]?.highest ?? 0;
    this.reserved = Math.max(this.reserved, highest + 1);
  }

  watch(changed: () => Promise<void>): void {
    this.changed = changed;
  }

  async loadAll(): Promise<T[]> {
    const { rows } = await this.db.pool.query<{ body: string }>('SELECT body FROM entities WHERE kind = $1 ORDER BY id', [this.kind.name]);
    return rows.map((r) => this.kind.revive(JSON.parse(r.body) as T));
  }

  nextId(): number {
    return this.reserved;
  }

  async insert(entity: T): Promise<void> {
    refuseNul(nameOf(entity), `a ${this.kind.display} name`);
    await this.db.transaction(async (c) => {
      await c.query('INSERT INTO entities (kind, id, account_id, app_id, body, name) VALUES ($1, $2, $3, $4, $5, $6)', [
        this.kind.name, entity.id, entity.accountId, this.kind.appIdOf(entity), JSON.stringify(entity), nameOf(entity),
      ]);
      // Taken by another node since this one read the highest (even if that entity is deleted): conflict.
      const recorded = await c.query(
        `INSERT INTO entity_high VALUES ($1, $2) ON CONFLICT (kind) DO UPDATE SET highest = EXCLUDED.highest
         WHERE entity_high.highest < EXCLUDED.highest RETURNING highest`,
        [this.kind.name, entity.id],
      );
      if (recorded.rowCount === 0) throw new EntityIdTakenError(`${this.kind.display} id ${entity.id} was taken by another node`);
      await notifyChange(c, `${TOPIC}.${this.kind.name}`);
    }).catch(async (error: unknown) => {
      if (error instanceof EntityIdTakenError || (error as { constraint?: string }).constraint === 'entities_pkey') {
        await this.readHighest();
        throw error instanceof EntityIdTakenError ? error : new EntityIdTakenError(`${this.kind.display} id ${entity.id} was taken by another node`);
      }
      return this.refusal(error, entity);
    });
    this.reserved = Math.max(this.reserved, entity.id + 1);
  }

  async update(entity: T): Promise<void> {
    refuseNul(nameOf(entity), `a ${this.kind.display} name`);
    await this.db.transaction(async (c) => {
      await c.query('UPDATE entities SET body = $3, name = $4 WHERE kind = $1 AND id = $2', [this.kind.name, entity.id, JSON.stringify(entity), nameOf(entity)]);
      await notifyChange(c, `${TOPIC}.${this.kind.name}`);
    }).catch((error: unknown) => this.refusal(error, entity));
  }

  /**
   * Another node made the same name (or browser side) a moment ago, past this node's check in
   * memory: the same RangeError the check gives. Anything else is rethrown.
   */
  private async refusal(error: unknown, entity: T): Promise<never> {
    const e = error as { code?: string; constraint?: string };
    if (e.code === '23505' && e.constraint === 'entities_name') {
      throw new RangeError(`a ${this.kind.display} named '${nameOf(entity)}' already exists`);
    }
    if (e.code === '23505' && e.constraint === 'entities_browser_side') {
      const appId = this.kind.appIdOf(entity);
      const side = (await this.db.pool.query<{ id: number }>("SELECT id FROM entities WHERE kind = 'browser_applications' AND app_id = $1", [appId])).rows[0];
      throw new RangeError(`application ${appId} already has browser monitoring (browser application ${side?.id ?? '?'})`);
    }
    throw error;
  }

  async delete(id: number): Promise<void> {
    await this.db.transaction(async (c) => {
      await c.query('DELETE FROM entities WHERE kind = $1 AND id = $2', [this.kind.name, id]);
      await notifyChange(c, `${TOPIC}.${this.kind.name}`);
    });
  }
}

/** Tells every node that an application's entities went (its deletion deleted their rows). */
export async function notifyApplicationEntitiesGone(c: pg.ClientBase): Promise<void> {
  for (const kind of APPLICATION_ENTITY_KINDS) await notifyChange(c, `${TOPIC}.${kind}`);
}

/** The entity stores over the shared catalog database. */
export async function loadPgEntityStores(db: PostgresDatabase, clock: Clock, feed: PgChangeFeed): Promise<EntityStores> {
  return {
    keyTransactions: await KeyTransactions.open(await PgEntityRows.open(db, KEY_TRANSACTIONS, feed), clock),
    mobileApplications: await MobileApplications.open(await PgEntityRows.open(db, MOBILE_APPLICATIONS, feed), clock),
    browserApplications: await BrowserApplications.open(await PgEntityRows.open(db, BROWSER_APPLICATIONS, feed), clock),
  };
}
