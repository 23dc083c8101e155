import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Database } from './database.js';
import { timestampValue } from './duckdb-values.js';
import { Mutex } from './mutex.js';
import { runOnOwnConnection } from './own-connection.js';

/**
 * Which browser agent the loader snippet brings: SPA (single-page app monitoring, the full
 * agent), PRO (the full agent without SPA route tracking) or LITE (page loads only).
 */
export type BrowserLoaderType = 'SPA' | 'PRO' | 'LITE';
export const BROWSER_LOADER_TYPES: readonly BrowserLoaderType[] = ['SPA', 'PRO', 'LITE'];

export interface BrowserSettings {
  readonly cookiesEnabled: boolean;
  readonly distributedTracingEnabled: boolean;
  readonly loaderType: BrowserLoaderType;
}

/** NerdGraph's defaults for `agentApplicationCreateBrowser` and `agentApplicationEnableApmBrowser`. */
export const DEFAULT_BROWSER_SETTINGS: BrowserSettings = { cookiesEnabled: true, distributedTracingEnabled: true, loaderType: 'SPA' };

export interface BrowserApplication {
  readonly id: number;
  readonly accountId: number;
  readonly name: string;
  /** The key the browser agent sends with its data; one per account, as New Relic's. */
  readonly browserMonitoringKey: string;
  readonly settings: BrowserSettings;
  /** The APM application this is the browser side of (NerdGraph's `servingApmApplicationId`); null when standalone. */
  readonly apmApplicationId: number | null;
  /** Epoch ms. */
  readonly createdAt: number;
}

export interface NewBrowserApplication {
  readonly accountId: number;
  readonly name: string;
  /** Each setting not given takes NerdGraph's default. */
  readonly settings?: Partial<BrowserSettings>;
  readonly apmApplicationId?: number;
}

/** New Relic's browser key shape: `NRJS-` and 19 hex characters. */
function generateBrowserKey(): string {
  return `NRJS-${randomBytes(10).toString('hex').slice(0, 19)}`;
}

interface Row {
  id: number; account_id: number; name: string; browser_monitoring_key: string; cookies_enabled: boolean;
  distributed_tracing_enabled: boolean; loader_type: BrowserLoaderType; apm_app_id: number | null; created_ms: bigint;
}

/**
 * Browser applications, standalone or the browser side of an APM application, in memory and
 * written through to DuckDB (`browser_applications`). REST v2 creates standalone ones and lists
 * them; NerdGraph's `agentApplicationCreateBrowser` / `agentApplicationEnableApmBrowser` will create both kinds.
 */
export class BrowserApplications {
  private readonly mutex = new Mutex();
  private readonly byId = new Map<number, BrowserApplication>();
  private highestId = 0;

  private constructor(private readonly db: Database, private readonly clock: Clock) {}

  static async load(db: Database, clock: Clock): Promise<BrowserApplications> {
    const store = new BrowserApplications(db, clock);
    for (const r of await db.all<Row>(
      `SELECT id, account_id, name, browser_monitoring_key, cookies_enabled, distributed_tracing_enabled, loader_type, apm_app_id,
         epoch_ms(created_at) AS created_ms FROM browser_applications`,
    )) {
      store.byId.set(r.id, {
        id: r.id, accountId: r.account_id, name: r.name, browserMonitoringKey: r.browser_monitoring_key,
        settings: { cookiesEnabled: r.cookies_enabled, distributedTracingEnabled: r.distributed_tracing_enabled, loaderType: r.loader_type },
        apmApplicationId: r.apm_app_id, createdAt: Number(r.created_ms),
      });
      store.highestId = Math.max(store.highestId, r.id);
    }
    return store;
  }

  /**
   * Creates a browser application. Refused (RangeError) when the name is empty, over 255
   * characters or taken in the account, when the loader type is not SPA, PRO or LITE, or when
   * the APM application already has a browser side.
   */
  async create(input: NewBrowserApplication): Promise<BrowserApplication> {
    const name = input.name.trim();
    if (name === '' || name.length > 255) throw new RangeError('a browser application name is 1 to 255 characters');
    const settings: BrowserSettings = { ...DEFAULT_BROWSER_SETTINGS, ...definedOnly(input.settings ?? {}) };
    if (!BROWSER_LOADER_TYPES.includes(settings.loaderType)) {
      throw new RangeError(`loader type '${String(settings.loaderType)}' is not one of ${BROWSER_LOADER_TYPES.join(', ')}`);
    }
    return this.mutex.run(async () => {
      const siblings = this.list(input.accountId);
      if (siblings.some((b) => b.name === name)) throw new RangeError(`a browser application named '${name}' already exists`);
      const apmApplicationId = input.apmApplicationId ?? null;
      const side = apmApplicationId === null ? undefined : siblings.find((b) => b.apmApplicationId === apmApplicationId);
      if (side) throw new RangeError(`application ${apmApplicationId} already has browser monitoring (browser application ${side.id})`);
      const app: BrowserApplication = {
        id: this.highestId + 1,
        accountId: input.accountId,
        name,
        browserMonitoringKey: siblings[0]?.browserMonitoringKey ?? generateBrowserKey(),
        settings,
        apmApplicationId,
        createdAt: this.clock.now(),
      };
      await runOnOwnConnection(this.db, 'INSERT INTO browser_applications VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
        app.id, app.accountId, app.name, app.browserMonitoringKey, settings.cookiesEnabled, settings.distributedTracingEnabled,
        settings.loaderType, apmApplicationId, timestampValue(app.createdAt),
      ]);
      this.highestId = app.id;
      this.byId.set(app.id, app);
      return app;
    });
  }

  get(id: number): BrowserApplication | undefined {
    return this.byId.get(id);
  }

  list(accountId: number): BrowserApplication[] {
    return [...this.byId.values()].filter((b) => b.accountId === accountId);
  }
}

function definedOnly<T extends object>(partial: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined)) as Partial<T>;
}
