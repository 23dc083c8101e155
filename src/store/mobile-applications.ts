import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Database } from './database.js';
import { timestampValue } from './duckdb-values.js';
import { Mutex } from './mutex.js';
import { runOnOwnConnection } from './own-connection.js';

/** A mobile application: its agents report with its token, its events carry its name as `appName`. */
export interface MobileApplication {
  readonly id: number;
  readonly accountId: number;
  readonly name: string;
  /** The ingest token the mobile agent is built with (NerdGraph's `applicationToken`). */
  readonly applicationToken: string;
  /** Epoch ms. */
  readonly createdAt: number;
}

/** New Relic's shape: `AA`, 40 hex characters, `-NRMA`. */
function generateApplicationToken(): string {
  return `AA${randomBytes(20).toString('hex')}-NRMA`;
}

/**
 * Mobile applications, in memory and written through to DuckDB (`mobile_applications`). REST v2
 * creates and reads them; NerdGraph's `agentApplicationCreateMobile` will create them too.
 */
export class MobileApplications {
  private readonly mutex = new Mutex();
  private readonly byId = new Map<number, MobileApplication>();
  private highestId = 0;

  private constructor(private readonly db: Database, private readonly clock: Clock) {}

  static async load(db: Database, clock: Clock): Promise<MobileApplications> {
    const store = new MobileApplications(db, clock);
    for (const r of await db.all<{ id: number; account_id: number; name: string; application_token: string; created_ms: bigint }>(
      'SELECT id, account_id, name, application_token, epoch_ms(created_at) AS created_ms FROM mobile_applications',
    )) {
      store.byId.set(r.id, { id: r.id, accountId: r.account_id, name: r.name, applicationToken: r.application_token, createdAt: Number(r.created_ms) });
      store.highestId = Math.max(store.highestId, r.id);
    }
    return store;
  }

  /**
   * Creates a mobile application with a new token. Its events are found by name, so a name is
   * unique in its account; refused (RangeError) when taken, empty or over 255 characters.
   */
  async create(accountId: number, name: string): Promise<MobileApplication> {
    const trimmed = name.trim();
    if (trimmed === '' || trimmed.length > 255) throw new RangeError('a mobile application name is 1 to 255 characters');
    return this.mutex.run(async () => {
      if (this.list(accountId).some((m) => m.name === trimmed)) throw new RangeError(`a mobile application named '${trimmed}' already exists`);
      const app: MobileApplication = {
        id: this.highestId + 1, accountId, name: trimmed, applicationToken: generateApplicationToken(), createdAt: this.clock.now(),
      };
      await runOnOwnConnection(this.db, 'INSERT INTO mobile_applications VALUES ($1, $2, $3, $4, $5)', [
        app.id, app.accountId, app.name, app.applicationToken, timestampValue(app.createdAt),
      ]);
      this.highestId = app.id;
      this.byId.set(app.id, app);
      return app;
    });
  }

  get(id: number): MobileApplication | undefined {
    return this.byId.get(id);
  }

  list(accountId: number): MobileApplication[] {
    return [...this.byId.values()].filter((m) => m.accountId === accountId);
  }
}
