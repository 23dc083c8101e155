import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import {
  BROWSER_LOADER_TYPES, DEFAULT_BROWSER_MONITORING_SETTINGS, type BrowserLoaderType, type BrowserMonitoringSettings, type BrowserSettings,
} from '../domain/agent-settings/model.js';
import { applySettingsPatch, browserLoader, validateBrowserMonitoringSettings, type SettingsPatch } from '../domain/agent-settings/validation.js';
import { DEFAULT_END_USER_APDEX_T } from './catalog.js';
import { checkedEntityName, EntityCollection, type EntityRows } from './entities/entity-collection.js';

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

/** The three settings as `monitoring` holds them. */
export function browserSettingsOf(monitoring: BrowserMonitoringSettings): BrowserSettings {
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

const KIND = 'browser application';

/**
 * Browser applications, standalone or the browser side of an APM application, in memory and
 * written through to the store's rows. REST v2 creates standalone ones and lists
 * them; NerdGraph's `agentApplicationCreateBrowser` / `agentApplicationEnableApmBrowser` will create both kinds.
 */
export class BrowserApplications {
  private constructor(private readonly entities: EntityCollection<BrowserApplication>, private readonly clock: Clock) {}

  static async open(rows: EntityRows<BrowserApplication>, clock: Clock): Promise<BrowserApplications> {
    return new BrowserApplications(await EntityCollection.open(rows), clock);
  }

  /**
   * Creates a browser application. Refused (RangeError) when the name is empty, over 255
   * characters or taken in the account, when the loader type is not SPA, PRO (or FULL) or LITE,
   * or when the APM application already has a browser side.
   */
  async create(input: NewBrowserApplication): Promise<BrowserApplication> {
    const name = checkedEntityName(input.name, KIND);
    const monitoring = changedMonitoring(DEFAULT_BROWSER_MONITORING_SETTINGS, input.settings ?? {}, {});
    return this.entities.create((id) => {
      const siblings = this.list(input.accountId);
      this.entities.checkNameFree(input.accountId, name, KIND);
      const apmApplicationId = input.apmApplicationId ?? null;
      const side = apmApplicationId === null ? undefined : siblings.find((b) => b.apmApplicationId === apmApplicationId);
      if (side) throw new RangeError(`application ${apmApplicationId} already has browser monitoring (browser application ${side.id})`);
      return {
        id,
        accountId: input.accountId,
        name,
        browserMonitoringKey: siblings[0]?.browserMonitoringKey ?? generateBrowserKey(),
        settings: browserSettingsOf(monitoring),
        monitoring,
        apdexT: apmApplicationId === null ? DEFAULT_END_USER_APDEX_T : null,
        apmApplicationId,
        createdAt: this.clock.now(),
      };
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
    const name = changes.name === undefined ? undefined : checkedEntityName(changes.name, KIND);
    if (changes.apdexT !== undefined && !(Number.isFinite(changes.apdexT) && changes.apdexT > 0)) {
      throw new RangeError('apdexT must be a positive number of seconds');
    }
    return this.entities.update(id, (app) => {
      if (changes.apdexT !== undefined && app.apmApplicationId !== null) {
        throw new RangeError(
          `browser application ${id} is the browser side of application ${app.apmApplicationId}: its Apdex T is that application's end-user Apdex T`,
        );
      }
      if (name !== undefined && name !== app.name) this.entities.checkNameFree(app.accountId, name, KIND);
      const monitoring = changedMonitoring(app.monitoring, changes.settings ?? {}, changes.monitoring ?? {});
      return { ...app, name: name ?? app.name, settings: browserSettingsOf(monitoring), monitoring, apdexT: changes.apdexT ?? app.apdexT };
    });
  }

  /**
   * Deletes a browser application; whether there was one. Deleting a browser side turns browser
   * monitoring of its APM application off; the APM application stays. Its id is never handed out again.
   */
  delete(id: number): Promise<boolean> {
    return this.entities.delete(id);
  }

  /** The catalog deleted the APM application and its browser side's row with it: the side goes from memory too. */
  forgetApplication(appId: number): void {
    this.entities.forget((app) => app.apmApplicationId === appId);
  }

  get(id: number): BrowserApplication | undefined {
    return this.entities.get(id);
  }

  list(accountId: number): BrowserApplication[] {
    return this.entities.list(accountId);
  }
}
