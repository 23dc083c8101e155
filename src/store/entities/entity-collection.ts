import { Mutex } from '../mutex.js';
import { entityName, entityNameRule } from '../../domain/entity-name.js';

/** An entity made through the APIs (key transaction, mobile or browser application). */
export interface StoredEntity {
  readonly id: number;
  readonly accountId: number;
}

/**
 * The engine's side of an entity store: where its rows are kept. Ids come from `nextId()`, one
 * above the highest ever handed out (deleted ones included), so an id, and the entity GUID made of
 * it, never names two entities.
 */
export interface EntityRows<T extends StoredEntity> {
  /** Every stored entity, read once when the store opens. */
  loadAll(): Promise<T[]>;
  /** The id the next `insert` will use. */
  nextId(): number;
  /** Stores a new entity (its id from `nextId()`) and records the id as handed out, together. */
  insert(entity: T): Promise<void>;
  /** Writes every field of an existing entity. */
  update(entity: T): Promise<void>;
  delete(id: number): Promise<void>;
  /**
   * Where another process shares the rows (a shared catalog), calls `changed` whenever they changed
   * there: the collection reads them all again.
   */
  watch?(changed: () => Promise<void>): void;
}

/**
 * Thrown by `EntityRows.insert` when the id `nextId()` gave was taken meanwhile by another process
 * sharing the rows; the collection builds the entity again with the next id.
 */
export class EntityIdTakenError extends Error {}

/** How many times a create is built again after its id was taken. */
const ID_RETRIES = 5;

/** Entity names: 1 to 255 characters once trimmed (domain/entity-name.ts). `kind` names the entity in the RangeError. */
export function checkedEntityName(input: string, kind: string): string {
  const name = entityName(input);
  if (name === undefined) throw new RangeError(entityNameRule(`a ${kind}`));
  return name;
}

/**
 * What the entity stores share: their entities in memory by id, written through to `EntityRows`
 * one change at a time under one lock, so the checks a change makes (a name free in its account)
 * and the write cannot interleave with another change.
 */
export class EntityCollection<T extends StoredEntity> {
  private readonly mutex = new Mutex();
  private readonly byId = new Map<number, T>();

  private constructor(private readonly rows: EntityRows<T>) {}

  static async open<T extends StoredEntity>(rows: EntityRows<T>): Promise<EntityCollection<T>> {
    const collection = new EntityCollection(rows);
    for (const entity of await rows.loadAll()) collection.byId.set(entity.id, entity);
    rows.watch?.(() => collection.reload());
    return collection;
  }

  /** Reads every entity again (another node changed them), under the lock so no change of this node interleaves. */
  private reload(): Promise<void> {
    return this.mutex.run(async () => {
      const all = await this.rows.loadAll();
      this.byId.clear();
      for (const entity of all) this.byId.set(entity.id, entity);
    });
  }

  get(id: number): T | undefined {
    return this.byId.get(id);
  }

  list(accountId: number): T[] {
    return [...this.byId.values()].filter((e) => e.accountId === accountId);
  }

  values(): T[] {
    return [...this.byId.values()];
  }

  /** Creates the entity `build` makes with the next id; `build` runs under the lock and may refuse (throw). */
  create(build: (id: number) => T): Promise<T> {
    return this.mutex.run(async () => {
      for (let attempt = 1; ; attempt++) {
        const entity = build(this.rows.nextId());
        try {
          await this.rows.insert(entity);
        } catch (error) {
          if (error instanceof EntityIdTakenError && attempt < ID_RETRIES) continue;
          throw error;
        }
        this.byId.set(entity.id, entity);
        return entity;
      }
    });
  }

  /** Replaces entity `id` by what `change` makes of it, under the lock; undefined when there is none. */
  update(id: number, change: (current: T) => T): Promise<T | undefined> {
    return this.mutex.run(async () => {
      const current = this.byId.get(id);
      if (!current) return undefined;
      const updated = change(current);
      await this.rows.update(updated);
      this.byId.set(id, updated);
      return updated;
    });
  }

  /** Deletes entity `id`; whether there was one. Its id is never handed out again. */
  delete(id: number): Promise<boolean> {
    return this.mutex.run(async () => {
      if (!this.byId.has(id)) return false;
      await this.rows.delete(id);
      this.byId.delete(id);
      return true;
    });
  }

  /** Drops entities whose rows another store's change deleted (an application's deletion). */
  forget(gone: (entity: T) => boolean): void {
    for (const [id, entity] of this.byId) if (gone(entity)) this.byId.delete(id);
  }

  /** Refuses (RangeError) a name another entity of the account has; `kind` names the entity. */
  checkNameFree(accountId: number, name: string, kind: string): void {
    for (const entity of this.byId.values()) {
      if (entity.accountId === accountId && (entity as T & { readonly name?: string }).name === name) {
        throw new RangeError(`a ${kind} named '${name}' already exists`);
      }
    }
  }
}
