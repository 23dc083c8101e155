import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import { DEFAULT_MOBILE_AGENT_SETTINGS, type MobileAgentSettings } from '../domain/agent-settings/model.js';
import { applySettingsPatch, validateMobileAgentSettings, type SettingsPatch } from '../domain/agent-settings/validation.js';
import { checkedEntityName, EntityCollection, type EntityRows } from './entities/entity-collection.js';

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

const KIND = 'mobile application';

/**
 * Mobile applications, in memory and written through to the store's rows. REST v2
 * creates and reads them; NerdGraph's `agentApplicationCreateMobile` will create them too.
 */
export class MobileApplications {
  private constructor(private readonly entities: EntityCollection<MobileApplication>, private readonly clock: Clock) {}

  static async open(rows: EntityRows<MobileApplication>, clock: Clock): Promise<MobileApplications> {
    return new MobileApplications(await EntityCollection.open(rows), clock);
  }

  /**
   * Creates a mobile application with a new token. Its events are found by name, so a name is
   * unique in its account; refused (RangeError) when taken, empty or over 255 characters.
   */
  async create(accountId: number, name: string): Promise<MobileApplication> {
    const trimmed = checkedEntityName(name, KIND);
    return this.entities.create((id) => {
      this.entities.checkNameFree(accountId, trimmed, KIND);
      return {
        id, accountId, name: trimmed, applicationToken: generateApplicationToken(), settings: DEFAULT_MOBILE_AGENT_SETTINGS, createdAt: this.clock.now(),
      };
    });
  }

  /**
   * Renames a mobile application or changes its settings, written through in one statement. Its
   * events are found by name, so a new name (unique in the account, as at creation) is also the
   * `appName` its events are looked up by from then on. Bad input is a RangeError naming the
   * field; undefined when there is no such application.
   */
  async update(id: number, changes: MobileApplicationChanges): Promise<MobileApplication | undefined> {
    const name = changes.name === undefined ? undefined : checkedEntityName(changes.name, KIND);
    return this.entities.update(id, (app) => {
      if (name !== undefined && name !== app.name) this.entities.checkNameFree(app.accountId, name, KIND);
      const settings = changes.settings === undefined ? app.settings : applySettingsPatch(app.settings, changes.settings);
      validateMobileAgentSettings(settings);
      return { ...app, name: name ?? app.name, settings };
    });
  }

  /**
   * Deletes a mobile application; whether there was one. Its `Mobile` events are not its rows (the
   * Event API stores them by name) and stay, as every event stays until its retention ends. Its id
   * is never handed out again.
   */
  delete(id: number): Promise<boolean> {
    return this.entities.delete(id);
  }

  get(id: number): MobileApplication | undefined {
    return this.entities.get(id);
  }

  list(accountId: number): MobileApplication[] {
    return this.entities.list(accountId);
  }
}
