import type { BatchWriter } from './batch-writer.js';
import { METRIC_NAMES, Rows } from './append-tables.js';
import type { Database } from './database.js';

interface Entry {
  readonly id: number;
  /** Settles when the name's row is committed; data referring to the id waits for it. */
  readonly persisted: Promise<void>;
}

/**
 * Metric and scope names as small integers. Timeslice rows carry ids, not strings: appending
 * integers is about twice as fast as strings, and grouping and filtering by them is cheaper.
 * A new name's row is committed before any timeslice that uses it is acknowledged.
 */
export class MetricDictionary {
  private readonly ids = new Map<string, Entry>();
  private nextId = 1;

  private constructor(private readonly writer: BatchWriter) {}

  static async load(db: Database, writer: BatchWriter): Promise<MetricDictionary> {
    const dictionary = new MetricDictionary(writer);
    for (const r of await db.all<{ id: number; name: string }>('SELECT id, name FROM metric_names')) {
      dictionary.ids.set(r.name, { id: r.id, persisted: Promise.resolve() });
      dictionary.nextId = Math.max(dictionary.nextId, r.id + 1);
    }
    return dictionary;
  }

  /** Ids for the names, creating the missing ones; resolves once all of them are durable. */
  async resolve(names: Iterable<string>): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const fresh = new Rows(METRIC_NAMES);
    const waits = new Set<Promise<void>>();
    const created: string[] = [];
    let freshPersisted: Promise<void> | undefined;
    let settleFresh!: { resolve: () => void; reject: (e: Error) => void };
    for (const name of names) {
      if (out.has(name)) continue;
      let entry = this.ids.get(name);
      if (!entry) {
        freshPersisted ??= new Promise<void>((resolve, reject) => { settleFresh = { resolve, reject }; });
        entry = { id: this.nextId++, persisted: freshPersisted };
        this.ids.set(name, entry);
        fresh.push(entry.id, name);
        created.push(name);
      }
      out.set(name, entry.id);
      waits.add(entry.persisted);
    }
    if (freshPersisted) {
      freshPersisted.catch(() => undefined);
      this.writer.write([fresh]).then(settleFresh.resolve, (error: Error) => {
        // Forget the names so the next harvest (the agent retries) creates them again.
        for (const name of created) this.ids.delete(name);
        settleFresh.reject(error);
      });
    }
    await Promise.all(waits);
    return out;
  }

  get size(): number {
    return this.ids.size;
  }
}
