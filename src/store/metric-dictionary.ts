import type { BatchWriter, WriteTicket } from './batch-writer.js';
import { METRIC_NAMES, Rows } from './append-tables.js';
import type { Database } from './database.js';

const COMMITTED: Promise<void> = Promise.resolve();

interface Entry {
  readonly id: number;
  /** Settles when the name's row is committed; data referring to the id waits for it. */
  readonly persisted: Promise<void>;
}

/**
 * Metric and scope names as small integers. Timeslice rows carry ids, not strings: appending
 * integers is about twice as fast as strings, and grouping and filtering by them is cheaper.
 * A new name's row commits in the transaction of the first data that uses it, and no later
 * data using it is acknowledged before that.
 */
export class MetricDictionary {
  private readonly ids = new Map<string, Entry>();
  private nextId = 1;

  private constructor(private readonly writer: BatchWriter) {}

  static async load(db: Database, writer: BatchWriter): Promise<MetricDictionary> {
    const dictionary = new MetricDictionary(writer);
    for (const r of await db.all<{ id: number; name: string }>('SELECT id, name FROM metric_names')) {
      dictionary.ids.set(r.name, { id: r.id, persisted: COMMITTED });
      dictionary.nextId = Math.max(dictionary.nextId, r.id + 1);
    }
    return dictionary;
  }

  /**
   * Writes the rows `build` makes with ids for `names`. Names seen for the first time get ids
   * here and their rows go into the same write, so they commit in the same transaction as the
   * data that uses them. Names another write created and has not committed yet are waited for.
   * If the write fails, the names it created are forgotten (the agent resends; they are created
   * again), and writes waiting for them fail too.
   */
  async write(names: readonly string[], build: (ids: ReadonlyMap<string, number>) => Rows[], ticket?: WriteTicket): Promise<void> {
    const ids = new Map<string, number>();
    const fresh = new Rows(METRIC_NAMES);
    const others = new Set<Promise<void>>();
    const created: string[] = [];
    let settle!: { resolve: () => void; reject: (e: Error) => void };
    const persisted = new Promise<void>((resolve, reject) => { settle = { resolve, reject }; });
    persisted.catch(() => undefined);
    for (const name of names) {
      if (ids.has(name)) continue;
      let entry = this.ids.get(name);
      if (!entry) {
        entry = { id: this.nextId++, persisted };
        this.ids.set(name, entry);
        fresh.push(entry.id, name);
        created.push(name);
      } else if (entry.persisted !== COMMITTED) {
        others.add(entry.persisted);
      }
      ids.set(name, entry.id);
    }
    try {
      await Promise.all(others);
      await this.writer.write([fresh, ...build(ids)], ticket);
      for (const name of created) this.ids.set(name, { id: ids.get(name)!, persisted: COMMITTED });
      settle.resolve();
    } catch (error) {
      for (const name of created) this.ids.delete(name);
      settle.reject(error as Error);
      throw error;
    }
  }

  get size(): number {
    return this.ids.size;
  }
}
