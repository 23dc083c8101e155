import { isDeepStrictEqual } from 'node:util';
import type { DuckDBValue } from '@duckdb/node-api';
import {
  DEFAULT_BROWSER_MONITORING_SETTINGS, DEFAULT_MOBILE_AGENT_SETTINGS, type BrowserMonitoringSettings, type MobileAgentSettings,
} from '../../domain/agent-settings/model.js';
import { applySettingsPatch, type SettingsPatch } from '../../domain/agent-settings/validation.js';
import type { BrowserLoaderType } from '../../domain/agent-settings/model.js';
import { browserSettingsOf, type BrowserApplication } from '../browser-applications.js';
import type { EntityRows, StoredEntity } from '../entities/entity-collection.js';
import type { KeyTransaction } from '../key-transactions.js';
import type { MobileApplication } from '../mobile-applications.js';
import type { Database } from './database.js';
import { timestampValue } from './duckdb-values.js';
import { EntityIds, type EntityKind } from './entity-ids.js';
import { runOnOwnConnection } from './own-connection.js';

/** How one entity store's table holds its entities: what differs between the three. */
export interface EntityTable<T extends StoredEntity> {
  /** The table, also the entity kind whose ids `entity_ids` keeps. */
  readonly name: EntityKind;
  /** Column expressions read back (`created_at` as `epoch_ms(created_at) AS created_ms`). */
  readonly select: string;
  fromRow(row: Record<string, unknown>): T;
  /** Columns written by an insert, in order, and their values. */
  readonly insertColumns: readonly string[];
  insertValues(entity: T): DuckDBValue[];
  /** Columns an update may change, in order, and their values. */
  readonly updateColumns: readonly string[];
  updateValues(entity: T): DuckDBValue[];
}

/**
 * An entity store's rows in DuckDB, for any `EntityTable`. Writes run on connections of their own
 * (the catalog connection may hold an application's deletion open).
 */
export class DuckDbEntityRows<T extends StoredEntity> implements EntityRows<T> {
  private constructor(private readonly db: Database, private readonly table: EntityTable<T>, private readonly ids: EntityIds) {}

  static async open<T extends StoredEntity>(db: Database, table: EntityTable<T>): Promise<DuckDbEntityRows<T>> {
    return new DuckDbEntityRows(db, table, await EntityIds.load(db, table.name));
  }

  async loadAll(): Promise<T[]> {
    return (await this.db.all(`SELECT ${this.table.select} FROM ${this.table.name}`)).map((r) => this.table.fromRow(r));
  }

  nextId(): number {
    return this.ids.next();
  }

  async insert(entity: T): Promise<void> {
    const columns = this.table.insertColumns;
    await this.ids.insert(
      entity.id,
      `INSERT INTO ${this.table.name} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
      this.table.insertValues(entity),
    );
  }

  async update(entity: T): Promise<void> {
    const columns = this.table.updateColumns;
    await runOnOwnConnection(
      this.db,
      `UPDATE ${this.table.name} SET ${columns.map((c, i) => `${c} = $${i + 1}`).join(', ')} WHERE id = $${columns.length + 1}`,
      [...this.table.updateValues(entity), entity.id],
    );
  }

  async delete(id: number): Promise<void> {
    await runOnOwnConnection(this.db, `DELETE FROM ${this.table.name} WHERE id = $1`, [id]);
  }
}

const num = (v: unknown) => v as number;
const text = (v: unknown) => v as string;

export const KEY_TRANSACTIONS_TABLE: EntityTable<KeyTransaction> = {
  name: 'key_transactions',
  select: 'id, account_id, app_id, name, metric_name, apdex_t, browser_apdex_t, epoch_ms(created_at) AS created_ms',
  fromRow: (r) => ({
    id: num(r.id), accountId: num(r.account_id), appId: num(r.app_id), name: text(r.name), metricName: text(r.metric_name),
    apdexT: num(r.apdex_t), browserApdexT: num(r.browser_apdex_t), createdAt: Number(r.created_ms),
  }),
  insertColumns: ['id', 'account_id', 'app_id', 'name', 'metric_name', 'apdex_t', 'browser_apdex_t', 'created_at'],
  insertValues: (kt) => [kt.id, kt.accountId, kt.appId, kt.name, kt.metricName, kt.apdexT, kt.browserApdexT, timestampValue(kt.createdAt)],
  updateColumns: ['name', 'apdex_t', 'browser_apdex_t'],
  updateValues: (kt) => [kt.name, kt.apdexT, kt.browserApdexT],
};

/** NULL is the defaults; stored settings are laid over them, so a setting added later starts at its default. */
function mobileSettingsOf(json: string | null): MobileAgentSettings {
  return json === null ? DEFAULT_MOBILE_AGENT_SETTINGS : applySettingsPatch(DEFAULT_MOBILE_AGENT_SETTINGS, JSON.parse(json) as SettingsPatch<MobileAgentSettings>);
}

function mobileSettingsJson(settings: MobileAgentSettings): string | null {
  return isDeepStrictEqual(settings, DEFAULT_MOBILE_AGENT_SETTINGS) ? null : JSON.stringify(settings);
}

export const MOBILE_APPLICATIONS_TABLE: EntityTable<MobileApplication> = {
  name: 'mobile_applications',
  select: 'id, account_id, name, application_token, settings, epoch_ms(created_at) AS created_ms',
  fromRow: (r) => ({
    id: num(r.id), accountId: num(r.account_id), name: text(r.name), applicationToken: text(r.application_token),
    settings: mobileSettingsOf(r.settings as string | null), createdAt: Number(r.created_ms),
  }),
  insertColumns: ['id', 'account_id', 'name', 'application_token', 'created_at'],
  insertValues: (m) => [m.id, m.accountId, m.name, m.applicationToken, timestampValue(m.createdAt)],
  updateColumns: ['name', 'settings'],
  updateValues: (m) => [m.name, mobileSettingsJson(m.settings)],
};

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

interface BrowserRow {
  id: number; account_id: number; name: string; browser_monitoring_key: string; cookies_enabled: boolean;
  distributed_tracing_enabled: boolean; loader_type: BrowserLoaderType; apm_app_id: number | null; apdex_t: number | null;
  monitoring_settings: string | null; created_ms: bigint;
}

/** NULL `monitoring_settings` is the defaults; stored settings are laid over them, so a setting added later starts at its default. */
function monitoringOf(r: BrowserRow): BrowserMonitoringSettings {
  const rest = r.monitoring_settings === null ? {} : JSON.parse(r.monitoring_settings) as SettingsPatch<BrowserMonitoringSettings>;
  return applySettingsPatch(applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, rest), {
    loader: r.loader_type, privacy: { cookiesEnabled: r.cookies_enabled }, distributedTracing: { enabled: r.distributed_tracing_enabled },
  });
}

export const BROWSER_APPLICATIONS_TABLE: EntityTable<BrowserApplication> = {
  name: 'browser_applications',
  select: `id, account_id, name, browser_monitoring_key, cookies_enabled, distributed_tracing_enabled, loader_type, apm_app_id,
    apdex_t, monitoring_settings, epoch_ms(created_at) AS created_ms`,
  fromRow: (row) => {
    const r = row as unknown as BrowserRow;
    const monitoring = monitoringOf(r);
    return {
      id: r.id, accountId: r.account_id, name: r.name, browserMonitoringKey: r.browser_monitoring_key, settings: browserSettingsOf(monitoring), monitoring,
      apdexT: r.apm_app_id === null ? r.apdex_t : null, apmApplicationId: r.apm_app_id, createdAt: Number(r.created_ms),
    };
  },
  insertColumns: [
    'id', 'account_id', 'name', 'browser_monitoring_key', 'cookies_enabled', 'distributed_tracing_enabled', 'loader_type', 'apm_app_id',
    'created_at', 'apdex_t', 'monitoring_settings',
  ],
  insertValues: (b) => [
    b.id, b.accountId, b.name, b.browserMonitoringKey, b.settings.cookiesEnabled, b.settings.distributedTracingEnabled,
    b.settings.loaderType, b.apmApplicationId, timestampValue(b.createdAt), b.apdexT, monitoringJson(b.monitoring),
  ],
  updateColumns: ['name', 'cookies_enabled', 'distributed_tracing_enabled', 'loader_type', 'apdex_t', 'monitoring_settings'],
  updateValues: (b) => [
    b.name, b.settings.cookiesEnabled, b.settings.distributedTracingEnabled, b.settings.loaderType, b.apdexT, monitoringJson(b.monitoring),
  ],
};
