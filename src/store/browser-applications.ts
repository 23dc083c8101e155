import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Clock } from '../clock.js';
import { DEFAULT_BROWSER_MONITORING_SETTINGS, type BrowserMonitoringSettings } from '../domain/agent-settings/model.js';
import { applySettingsPatch, browserLoader, validateBrowserMonitoringSettings, type SettingsPatch } from '../domain/agent-settings/validation.js';
import { DEFAULT_END_USER_APDEX_T } from './catalog.js';
import type { Database } from './duckdb/database.js';
import { timestampValue } from './duckdb/duckdb-values.js';
import { EntityIds } from './entity-ids.js';
import { Mutex } from './mutex.js';
import { runOnOwnConnection } from './duckdb/own-connection.js';
import { entityName, entityNameRule } from '../domain/entity-name.js';

/**
 * Which browser agent the loader snippet brings: SPA (single-page app monitoring, the full
 * agent), PRO (the full agent without SPA route tracking) or LITE (page loads only). NerdGraph
 * also has NONE, which the stores refuse: the loader script has no form for it.
 */
export type BrowserLoaderType = 'SPA' | 'PRO' | 'LITE';
export const BROWSER_LOADER_TYPES: readonly BrowserLoaderType[] = ['SPA', 'PRO', 'LITE'];

/**
 * The three settings NerdGraph's `agentApplicationCreateBrowser` takes. They are the same facts as
 * `monitoring.loader`, `monitoring.privacy.cookiesEnabled` and `monitoring.distributedTracing.enabled`:
 * a record's `settings` is always read off its `monitoring`.
 */
export interface BrowserSettings {
  readonly cookiesEnabled: boolean;
  readonly distributedTracingEnabled: boolean;
  readonly loaderType: BrowserLoaderType;
}

export interface BrowserApplication {
  readonly id: number;
  readonly accountId: number;
  readonly name: string;
  /** The key the browser agent sends with its data; one per account, as New Relic's. */
  readonly browserMonitoringKey: string;
  readonly settings: BrowserSettings;
  /** NerdGraph's `browserSettings.browserMonitoring`, with `sessionReplay` and `sessionTrace`. */
  readonly monitoring: BrowserMonitoringSettings;
  /**
   * Seconds (NerdGraph's `browserConfig.apdexTarget`) of a standalone application. Null for a
   * browser side: its Apdex T is its APM application's `endUserApdexT` in the catalog, the one
   * place that fact is kept (`browserApdexT` reads either).
   */
  readonly apdexT: number | null;
  /** The APM application this is the browser side of (NerdGraph's `servingApmApplicationId`); null when standalone. */
  readonly apmApplicationId: number | null;
  /** Epoch ms. */
  readonly createdAt: number;
}

export interface NewBrowserApplication {
  readonly accountId: number;
  readonly name: string;
  /** Each setting not given takes NerdGraph's default; loader type FULL (NerdGraph's deprecated name) is PRO. */
  readonly settings?: Partial<BrowserSettings>;
  readonly apmApplicationId?: number;
}

/** What NerdGraph's `agentApplicationSettingsUpdate` may change of a browser application. */
export interface BrowserApplicationChanges {
  readonly name?: string;
  /** Seconds; a standalone application's only (a browser side's is its APM application's `endUserApdexT`). */
  readonly apdexT?: number;
  readonly settings?: Partial<BrowserSettings>;
  /** Merged into the current monitoring settings: what it leaves out keeps its value. */
  readonly monitoring?: SettingsPatch<BrowserMonitoringSettings>;
}

function settingsOf(monitoring: BrowserMonitoringSettings): BrowserSettings {
  return {
    cookiesEnabled: monitoring.privacy.cookiesEnabled,
    distributedTracingEnabled: monitoring.distributedTracing.enabled,
    loaderType: monitoring.loader as BrowserLoaderType,
  };
}

/** A browser application's Apdex T in seconds: its own, or for a browser side its APM application's end-user Apdex T. */
export function browserApdexT(app: BrowserApplication, applications: { application(id: number): { readonly endUserApdexT: number } | undefined }): number {
  if (app.apdexT !== null) return app.apdexT;
  return applications.application(app.apmApplicationId!)?.endUserApdexT ?? DEFAULT_END_USER_APDEX_T;
}

/** New Relic's browser key shape: `NRJS-` and 19 hex characters. */
function generateBrowserKey(): string {
  return `NRJS-${randomBytes(10).toString('hex').slice(0, 19)}`;
}

function definedOnly<T extends object>(partial: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Applies `settings`, then `monitoring`, to `current` (a FULL loader is PRO in either), refusing
 * (RangeError) the two naming one fact with different values, a loader the loader script has no
 * form for, or anything `validateBrowserMonitoringSettings` refuses.
 */
function changedMonitoring(
  current: BrowserMonitoringSettings, settings: Partial<BrowserSettings>, patch: SettingsPatch<BrowserMonitoringSettings>,
): BrowserMonitoringSettings {
  const given = definedOnly(settings);
  const settingsLoader = given.loaderType === undefined ? undefined : browserLoader(given.loaderType);
  const patchLoader = patch.loader === undefined ? undefined : browserLoader(patch.loader);
  const pairs = [
    ['settings.loaderType', settingsLoader, 'monitoring.loader', patchLoader],
    ['settings.cookiesEnabled', given.cookiesEnabled, 'monitoring.privacy.cookiesEnabled', patch.privacy?.cookiesEnabled],
    ['settings.distributedTracingEnabled', given.distributedTracingEnabled, 'monitoring.distributedTracing.enabled', patch.distributedTracing?.enabled],
  ] as const;
  for (const [first, a, second, b] of pairs) {
    if (a !== undefined && b !== undefined && a !== b) throw new RangeError(`${first} and ${second} are one setting, given two values`);
  }
  const fromSettings = applySettingsPatch(current, {
    ...(settingsLoader !== undefined ? { loader: settingsLoader as BrowserLoaderType } : {}),
    ...(given.cookiesEnabled !== undefined ? { privacy: { cookiesEnabled: given.cookiesEnabled } } : {}),
    ...(given.distributedTracingEnabled !== undefined ? { distributedTracing: { enabled: given.distributedTracingEnabled } } : {}),
  });
  const merged = applySettingsPatch(fromSettings, patchLoader === undefined ? patch : { ...patch, loader: patchLoader as BrowserLoaderType });
  if (!(BROWSER_LOADER_TYPES as readonly string[]).includes(merged.loader)) {
    throw new RangeError(`loader type '${String(merged.loader)}' is not one of ${BROWSER_LOADER_TYPES.join(', ')}`);
  }
  validateBrowserMonitoringSettings(merged);
  return merged;
}

/** What `monitoring_settings` holds: the monitoring settings but the three kept in their own columns. */
function storedRest(monitoring: BrowserMonitoringSettings): Omit<BrowserMonitoringSettings, 'loader' | 'privacy'> {
  const { loader: _loader, privacy: _privacy, distributedTracing, ...rest } = monitoring;
  const { enabled: _enabled, ...tracing } = distributedTracing;
  return { ...rest, distributedTracing: tracing as BrowserMonitoringSettings['distributedTracing'] };
}

function monitoringJson(monitoring: BrowserMonitoringSettings): string | null {
  const rest = storedRest(monitoring);
  return isDeepStrictEqual(rest, storedRest(DEFAULT_BROWSER_MONITORING_SETTINGS)) ? null : JSON.stringify(rest);
}

interface Row {
  id: number; account_id: number; name: string; browser_monitoring_key: string; cookies_enabled: boolean;
  distributed_tracing_enabled: boolean; loader_type: BrowserLoaderType; apm_app_id: number | null; apdex_t: number | null;
  monitoring_settings: string | null; created_ms: bigint;
}

/** NULL `monitoring_settings` is the defaults; stored settings are laid over them, so a setting added later starts at its default. */
function monitoringOf(r: Row): BrowserMonitoringSettings {
  const rest = r.monitoring_settings === null ? {} : JSON.parse(r.monitoring_settings) as SettingsPatch<BrowserMonitoringSettings>;
  return applySettingsPatch(applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, rest), {
    loader: r.loader_type, privacy: { cookiesEnabled: r.cookies_enabled }, distributedTracing: { enabled: r.distributed_tracing_enabled },
  });
}

function checkedName(input: string): string {
  const name = entityName(input);
  if (name === undefined) throw new RangeError(entityNameRule('a browser application'));
  return name;
}

/**
 * Browser applications, standalone or the browser side of an APM application, in memory and
 * written through to DuckDB (`browser_applications`). REST v2 creates standalone ones and lists
 * them; NerdGraph's `agentApplicationCreateBrowser` / `agentApplicationEnableApmBrowser` will create both kinds.
 */
export class BrowserApplications {
  private readonly mutex = new Mutex();
  private readonly byId = new Map<number, BrowserApplication>();

  private constructor(private readonly db: Database, private readonly clock: Clock, private readonly ids: EntityIds) {}

  static async load(db: Database, clock: Clock): Promise<BrowserApplications> {
    const store = new BrowserApplications(db, clock, await EntityIds.load(db, 'browser_applications'));
    for (const r of await db.all<Row>(
      `SELECT id, account_id, name, browser_monitoring_key, cookies_enabled, distributed_tracing_enabled, loader_type, apm_app_id,
         apdex_t, monitoring_settings, epoch_ms(created_at) AS created_ms FROM browser_applications`,
    )) {
      const monitoring = monitoringOf(r);
      store.byId.set(r.id, {
        id: r.id, accountId: r.account_id, name: r.name, browserMonitoringKey: r.browser_monitoring_key, settings: settingsOf(monitoring), monitoring,
        apdexT: r.apm_app_id === null ? r.apdex_t : null, apmApplicationId: r.apm_app_id, createdAt: Number(r.created_ms),
      });
    }
    return store;
  }

  /**
   * Creates a browser application. Refused (RangeError) when the name is empty, over 255
   * characters or taken in the account, when the loader type is not SPA, PRO (or FULL) or LITE,
   * or when the APM application already has a browser side.
   */
  async create(input: NewBrowserApplication): Promise<BrowserApplication> {
    const name = checkedName(input.name);
    const monitoring = changedMonitoring(DEFAULT_BROWSER_MONITORING_SETTINGS, input.settings ?? {}, {});
    return this.mutex.run(async () => {
      const siblings = this.list(input.accountId);
      this.checkNameFree(input.accountId, name);
      const apmApplicationId = input.apmApplicationId ?? null;
      const side = apmApplicationId === null ? undefined : siblings.find((b) => b.apmApplicationId === apmApplicationId);
      if (side) throw new RangeError(`application ${apmApplicationId} already has browser monitoring (browser application ${side.id})`);
      const app: BrowserApplication = {
        id: this.ids.next(),
        accountId: input.accountId,
        name,
        browserMonitoringKey: siblings[0]?.browserMonitoringKey ?? generateBrowserKey(),
        settings: settingsOf(monitoring),
        monitoring,
        apdexT: apmApplicationId === null ? DEFAULT_END_USER_APDEX_T : null,
        apmApplicationId,
        createdAt: this.clock.now(),
      };
      await this.ids.insert(app.id, `INSERT INTO browser_applications (id, account_id, name, browser_monitoring_key, cookies_enabled,
          distributed_tracing_enabled, loader_type, apm_app_id, created_at, apdex_t, monitoring_settings)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, [
        app.id, app.accountId, app.name, app.browserMonitoringKey, app.settings.cookiesEnabled, app.settings.distributedTracingEnabled,
        app.settings.loaderType, apmApplicationId, timestampValue(app.createdAt), app.apdexT, monitoringJson(monitoring),
      ]);
      this.byId.set(app.id, app);
      return app;
    });
  }

  /**
   * Renames a browser application or changes its Apdex T or settings, written through in one
   * statement. `settings` and `monitoring` may both be given; naming one fact twice with two
   * values is refused. Bad input is a RangeError naming the field, and so is an Apdex T for a
   * browser side (change its APM application's `endUserApdexT`); undefined when there is no such
   * application.
   */
  async update(id: number, changes: BrowserApplicationChanges): Promise<BrowserApplication | undefined> {
    const name = changes.name === undefined ? undefined : checkedName(changes.name);
    if (changes.apdexT !== undefined && !(Number.isFinite(changes.apdexT) && changes.apdexT > 0)) {
      throw new RangeError('apdexT must be a positive number of seconds');
    }
    return this.mutex.run(async () => {
      const app = this.byId.get(id);
      if (!app) return undefined;
      if (changes.apdexT !== undefined && app.apmApplicationId !== null) {
        throw new RangeError(
          `browser application ${id} is the browser side of application ${app.apmApplicationId}: its Apdex T is that application's end-user Apdex T`,
        );
      }
      if (name !== undefined && name !== app.name) this.checkNameFree(app.accountId, name);
      const monitoring = changedMonitoring(app.monitoring, changes.settings ?? {}, changes.monitoring ?? {});
      const updated: BrowserApplication = {
        ...app, name: name ?? app.name, settings: settingsOf(monitoring), monitoring, apdexT: changes.apdexT ?? app.apdexT,
      };
      await runOnOwnConnection(this.db, `UPDATE browser_applications SET name = $1, cookies_enabled = $2, distributed_tracing_enabled = $3,
          loader_type = $4, apdex_t = $5, monitoring_settings = $6 WHERE id = $7`, [
        updated.name, updated.settings.cookiesEnabled, updated.settings.distributedTracingEnabled, updated.settings.loaderType, updated.apdexT,
        monitoringJson(monitoring), id,
      ]);
      this.byId.set(id, updated);
      return updated;
    });
  }

  /**
   * Deletes a browser application; whether there was one. Deleting a browser side turns browser
   * monitoring of its APM application off; the APM application stays. Its id is never handed out again.
   */
  async delete(id: number): Promise<boolean> {
    return this.mutex.run(async () => {
      if (!this.byId.has(id)) return false;
      await runOnOwnConnection(this.db, 'DELETE FROM browser_applications WHERE id = $1', [id]);
      this.byId.delete(id);
      return true;
    });
  }

  /** The catalog deleted the APM application and its browser side's row with it: the side goes from memory too. */
  forgetApplication(appId: number): void {
    for (const [id, app] of this.byId) if (app.apmApplicationId === appId) this.byId.delete(id);
  }

  get(id: number): BrowserApplication | undefined {
    return this.byId.get(id);
  }

  list(accountId: number): BrowserApplication[] {
    return [...this.byId.values()].filter((b) => b.accountId === accountId);
  }

  private checkNameFree(accountId: number, name: string): void {
    if (this.list(accountId).some((b) => b.name === name)) throw new RangeError(`a browser application named '${name}' already exists`);
  }
}
