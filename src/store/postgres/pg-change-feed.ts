import pg from 'pg';
import type { PostgresDatabase } from './pg-database.js';

/** The channel every catalog write notifies, with the topic (the part of the catalog) as payload. */
export const CATALOG_CHANNEL = 'timeslice_catalog';

/**
 * Tells the other nodes, when the calling transaction commits, that `topic` changed (and, when
 * given, which entry of it: `topic:detail`, so a node reloads only that).
 */
export async function notifyChange(client: pg.ClientBase, topic: string, detail?: string): Promise<void> {
  await client.query('SELECT pg_notify($1, $2)', [CATALOG_CHANNEL, detail === undefined ? topic : `${topic}:${detail}`]);
}

/**
 * Keeps each node's in-memory catalog coherent with the others: one connection LISTENs on the
 * catalog channel, and a notification reloads the part it names. PostgreSQL delivers a
 * notification when its transaction commits, so a reload reads the change. Notifications arriving
 * while a part reloads make it reload once more, after. A lost connection is reopened and then
 * every part reloads, since notifications sent meanwhile are lost.
 */
export class PgChangeFeed {
  private readonly reloaders = new Map<string, (detail: string | undefined) => Promise<void>>();
  private readonly state = new Map<string, { running: Promise<void>; again: boolean }>();
  private client: pg.Client | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  /** Reload failures (the database unreachable): the next notification or reconnect retries. */
  lastError: Error | undefined;

  constructor(private readonly db: PostgresDatabase) {}

  /**
   * `reload` re-reads a part of the catalog into memory; it runs whenever `topic` is notified, with
   * the detail the notification names (undefined: reload all of it).
   */
  on(topic: string, reload: (detail: string | undefined) => Promise<void>): void {
    this.reloaders.set(topic, reload);
  }

  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.db.url });
    client.on('notification', (n) => {
      if (n.channel === CATALOG_CHANNEL && n.payload) void this.reload(n.payload);
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CATALOG_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.client = client;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    const again = () => {
      this.retry = undefined;
      if (this.closed) return;
      this.connect().then(
        () => Promise.all([...this.reloaders.keys()].map((t) => this.reload(t))),
        () => { this.retry = setTimeout(again, 1000); },
      );
    };
    this.retry = setTimeout(again, 200);
  }

  /** Reloads `topic` or `topic:detail` now (coalescing with the same one in progress). */
  reload(payload: string): Promise<void> {
    const colon = payload.indexOf(':');
    const topic = colon < 0 ? payload : payload.slice(0, colon);
    const detail = colon < 0 ? undefined : payload.slice(colon + 1);
    const reload = this.reloaders.get(topic);
    if (!reload) return Promise.resolve();
    const current = this.state.get(payload);
    if (current) {
      current.again = true;
      return current.running;
    }
    const entry = { running: Promise.resolve(), again: false };
    entry.running = (async () => {
      do {
        entry.again = false;
        try {
          await reload(detail);
        } catch (error) {
          this.lastError = error as Error;
        }
      } while (entry.again && !this.closed);
      this.state.delete(payload);
    })();
    this.state.set(payload, entry);
    return entry.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
    await Promise.all([...this.state.values()].map((s) => s.running));
  }
}
