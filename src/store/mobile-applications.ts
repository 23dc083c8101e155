import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Clock } from '../clock.js';
import { DEFAULT_MOBILE_AGENT_SETTINGS, type MobileAgentSettings } from '../domain/agent-settings/model.js';
import { applySettingsPatch, validateMobileAgentSettings, type SettingsPatch } from '../domain/agent-settings/validation.js';
import type { Database } from './duckdb/database.js';
import { timestampValue } from './duckdb/duckdb-values.js';
import { EntityIds } from './entity-ids.js';
import { Mutex } from './mutex.js';
import { runOnOwnConnection } from './duckdb/own-connection.js';
import { entityName, entityNameRule } from '../domain/entity-name.js';

/** A mobile application: its agents report with its token, its events carry its name as `appName`. */
export interface MobileApplication {
  readonly id: number;
  readonly accountId: number;
  readonly name: string;
  /** The ingest token the mobile agent is built with (NerdGraph's `applicationToken`). */
  readonly applicationToken: string;
  /** NerdGraph's `mobileSettings`. */
  readonly settings: MobileAgentSettings;
  /** Epoch ms. */
  readonly createdAt: number;
}

/** What NerdGraph's `agentApplicationSettingsUpdate` may change of a mobile application. */
export interface MobileApplicationChanges {
  readonly name?: string;
  /** Merged into the current settings: what it leaves out keeps its value. */
  readonly settings?: SettingsPatch<MobileAgentSettings>;
}

/** New Relic's shape: `AA`, 40 hex characters, `-NRMA`. */
function generateApplicationToken(): string {
  return `AA${randomBytes(20).toString('hex')}-NRMA`;
}

/** NULL is the defaults; stored settings are laid over them, so a setting added later starts at its default. */
function settingsOf(json: string | null): MobileAgentSettings {
  return json === null ? DEFAULT_MOBILE_AGENT_SETTINGS : applySettingsPatch(DEFAULT_MOBILE_AGENT_SETTINGS, JSON.parse(json) as SettingsPatch<MobileAgentSettings>);
}

function settingsJson(settings: MobileAgentSettings): string | null {
  return isDeepStrictEqual(settings, DEFAULT_MOBILE_AGENT_SETTINGS) ? null : JSON.stringify(settings);
}

function checkedName(input: string): string {
  const name = entityName(input);
  if (name === undefined) throw new RangeError(entityNameRule('a mobile application'));
  return name;
}

/**
 * Mobile applications, in memory and written through to DuckDB (`mobile_applications`). REST v2
 * creates and reads them; NerdGraph's `agentApplicationCreateMobile` will create them too.
 */
export class MobileApplications {
  private readonly mutex = new Mutex();
  private readonly byId = new Map<number, MobileApplication>();

  private constructor(private readonly db: Database, private readonly clock: Clock, private readonly ids: EntityIds) {}

  static async load(db: Database, clock: Clock): Promise<MobileApplications> {
    const store = new MobileApplications(db, clock, await EntityIds.load(db, 'mobile_applications'));
    for (const r of await db.all<{ id: number; account_id: number; name: string; application_token: string; settings: string | null; created_ms: bigint }>(
      'SELECT id, account_id, name, application_token, settings, epoch_ms(created_at) AS created_ms FROM mobile_applications',
    )) {
      store.byId.set(r.id, {
        id: r.id, accountId: r.account_id, name: r.name, applicationToken: r.application_token, settings: settingsOf(r.settings), createdAt: Number(r.created_ms),
      });
    }
    return store;
  }

  /**
   * Creates a mobile application with a new token. Its events are found by name, so a name is
   * unique in its account; refused (RangeError) when taken, empty or over 255 characters.
   */
  async create(accountId: number, name: string): Promise<MobileApplication> {
    const trimmed = checkedName(name);
    return this.mutex.run(async () => {
      this.checkNameFree(accountId, trimmed);
      const app: MobileApplication = {
        id: this.ids.next(), accountId, name: trimmed, applicationToken: generateApplicationToken(), settings: DEFAULT_MOBILE_AGENT_SETTINGS,
        createdAt: this.clock.now(),
      };
      await this.ids.insert(app.id, 'INSERT INTO mobile_applications (id, account_id, name, application_token, created_at) VALUES ($1, $2, $3, $4, $5)', [
        app.id, app.accountId, app.name, app.applicationToken, timestampValue(app.createdAt),
      ]);
      this.byId.set(app.id, app);
      return app;
    });
  }

  /**
   * Renames a mobile application or changes its settings, written through in one statement. Its
   * events are found by name, so a new name (unique in the account, as at creation) is also the
   * `appName` its events are looked up by from then on. Bad input is a RangeError naming the
   * field; undefined when there is no such application.
   */
  async update(id: number, changes: MobileApplicationChanges): Promise<MobileApplication | undefined> {
    const name = changes.name === undefined ? undefined : checkedName(changes.name);
    return this.mutex.run(async () => {
      const app = this.byId.get(id);
      if (!app) return undefined;
      if (name !== undefined && name !== app.name) this.checkNameFree(app.accountId, name);
      const settings = changes.settings === undefined ? app.settings : applySettingsPatch(app.settings, changes.settings);
      validateMobileAgentSettings(settings);
      const updated: MobileApplication = { ...app, name: name ?? app.name, settings };
      await runOnOwnConnection(this.db, 'UPDATE mobile_applications SET name = $1, settings = $2 WHERE id = $3', [
        updated.name, settingsJson(updated.settings), id,
      ]);
      this.byId.set(id, updated);
      return updated;
    });
  }

  /**
   * Deletes a mobile application; whether there was one. Its `Mobile` events are not its rows (the
   * Event API stores them by name) and stay, as every event stays until its retention ends. Its id
   * is never handed out again.
   */
  async delete(id: number): Promise<boolean> {
    return this.mutex.run(async () => {
      if (!this.byId.has(id)) return false;
      await runOnOwnConnection(this.db, 'DELETE FROM mobile_applications WHERE id = $1', [id]);
      this.byId.delete(id);
      return true;
    });
  }

  get(id: number): MobileApplication | undefined {
    return this.byId.get(id);
  }

  list(accountId: number): MobileApplication[] {
    return [...this.byId.values()].filter((m) => m.accountId === accountId);
  }

  private checkNameFree(accountId: number, name: string): void {
    if (this.list(accountId).some((m) => m.name === name)) throw new RangeError(`a mobile application named '${name}' already exists`);
  }
}
