import { isDeepStrictEqual } from 'node:util';
import { DEFAULT_APM_AGENT_SETTINGS, type ApmAgentSettings } from '../../../domain/agent-settings/model.js';
import { applySettingsPatch, validateApmAgentSettings, type SettingsPatch } from '../../../domain/agent-settings/validation.js';
import type { ConnectFacts } from '../../catalog/agent-runs.js';
import {
  ApplicationNotFoundError, checkedApplicationChanges, DEFAULT_APDEX_T, DEFAULT_END_USER_APDEX_T,
  type Application, type ApplicationChanges, type Host, type Instance,
} from '../../catalog/applications.js';
import { APPEND_TABLES } from '../../append-tables.js';
import { timestampValue } from '../duckdb-values.js';
import { HOURLY_TIMESLICES, TIMESLICE_TABLES } from '../timeslice-tables.js';
import type { CatalogWrites } from './catalog-writes.js';

/** Tables whose rows belong to an application (`app_id`): a deleted application's rows go with it. */
export const APPLICATION_DATA_TABLES = [
  ...APPEND_TABLES.filter((t) => t.columns.some((c) => c.name === 'app_id')).map((t) => t.name),
  ...TIMESLICE_TABLES.filter((t) => t !== 'timeslices'),
  HOURLY_TIMESLICES,
];

interface ApplicationRow {
  id: number;
  account_id: number;
  name: string;
  agent_name: string;
  language: string | null;
  apdex_t: number;
  end_user_apdex_t: number;
  enable_real_user_monitoring: boolean;
  use_server_side_config: boolean;
  agent_settings: string | null;
  created_ms: bigint;
}

/** NULL is New Relic's defaults; stored settings are laid over them, so a setting added later starts at its default. */
function agentSettingsOf(json: string | null): ApmAgentSettings {
  return json === null ? DEFAULT_APM_AGENT_SETTINGS : applySettingsPatch(DEFAULT_APM_AGENT_SETTINGS, JSON.parse(json) as SettingsPatch<ApmAgentSettings>);
}

function agentSettingsJson(settings: ApmAgentSettings): string | null {
  return isDeepStrictEqual(settings, DEFAULT_APM_AGENT_SETTINGS) ? null : JSON.stringify(settings);
}

/** The kinds of `entity_ids` rows holding the catalog's high-water marks once runs that remembered them expire. */
const HIGHEST_KINDS = { app: 'applications', host: 'hosts', instance: 'instances' } as const;
export type Highest = { app: number; host: number; instance: number };

/**
 * Applications, hosts and instances (`applications`, `hosts`, `instances`), in memory and written
 * through. Its writes are called with the catalog's lock held.
 */
export class DuckDbApplications {
  private readonly apps = new Map<number, Application>();
  private readonly hosts = new ByApplication<Host>();
  private readonly instances = new ByApplication<Instance>();
  /** Epoch ms an instance was last heard from: created, connected, or a data call on a run targeting it. */
  private readonly instanceHeard = new Map<number, number>();
  /**
   * Highest ids handed out. Ids are never reused: a deleted application's id may still be held
   * by REST clients and by rows in flight. The runs' targets and `entity_ids` remember ids whose
   * rows are gone.
   */
  readonly highest: Highest = { app: 0, host: 0, instance: 0 };

  constructor(private readonly w: CatalogWrites) {}

  async load(): Promise<void> {
    const db = this.w.db;
    for (const r of await db.all<ApplicationRow>(
      `SELECT id, account_id, name, agent_name, language, apdex_t, end_user_apdex_t, enable_real_user_monitoring,
         use_server_side_config, agent_settings, epoch_ms(created_at) AS created_ms FROM applications`,
    )) {
      this.apps.set(r.id, {
        id: r.id, accountId: r.account_id, name: r.name, agentName: r.agent_name, language: r.language, apdexT: r.apdex_t,
        endUserApdexT: r.end_user_apdex_t, enableRealUserMonitoring: r.enable_real_user_monitoring, useServerSideConfig: r.use_server_side_config,
        agentSettings: agentSettingsOf(r.agent_settings), createdAt: Number(r.created_ms),
      });
      this.highest.app = Math.max(this.highest.app, r.id);
    }
    for (const r of await db.all<{ id: number; account_id: number; app_id: number; name: string }>(
      'SELECT id, account_id, app_id, name FROM hosts',
    )) {
      this.hosts.set({ id: r.id, accountId: r.account_id, appId: r.app_id, name: r.name });
      this.highest.host = Math.max(this.highest.host, r.id);
    }
    for (const r of await db.all<{ id: number; account_id: number; app_id: number; host_id: number; pid: number | null; port: number | null; agent_version: string | null; created_ms: bigint }>(
      'SELECT id, account_id, app_id, host_id, pid, port, agent_version, epoch_ms(created_at) AS created_ms FROM instances',
    )) {
      this.instances.set({ id: r.id, accountId: r.account_id, appId: r.app_id, hostId: r.host_id, pid: r.pid, port: r.port, agentVersion: r.agent_version });
      this.instanceHeard.set(r.id, Number(r.created_ms));
      this.highest.instance = Math.max(this.highest.instance, r.id);
    }
    for (const r of await db.all<{ kind: string; highest: number }>(
      'SELECT kind, max(highest) AS highest FROM entity_ids WHERE kind IN ($1, $2, $3) GROUP BY kind',
      [HIGHEST_KINDS.app, HIGHEST_KINDS.host, HIGHEST_KINDS.instance],
    )) {
      for (const key of ['app', 'host', 'instance'] as const) {
        if (HIGHEST_KINDS[key] === r.kind) this.highest[key] = Math.max(this.highest[key], r.highest);
      }
    }
  }

  application(id: number): Application | undefined {
    return this.apps.get(id);
  }

  applications(accountId: number): Application[] {
    return [...this.apps.values()].filter((a) => a.accountId === accountId);
  }

  has(id: number): boolean {
    return this.apps.has(id);
  }

  host(id: number): Host | undefined {
    return this.hosts.get(id);
  }

  hostsOf(appId: number): Host[] {
    return this.hosts.ofApplication(appId);
  }

  instancesOf(appId: number): Instance[] {
    return this.instances.ofApplication(appId);
  }

  /** The ids of every instance and host in the catalog. */
  live(): { instances: Set<number>; hosts: Set<number> } {
    return { instances: new Set([...this.instances.all()].map((i) => i.id)), hosts: new Set([...this.hosts.all()].map((h) => h.id)) };
  }

    /** An instance was heard from at `at` (epoch ms); a later time only moves it forward. */
  heard(instanceId: number, at: number): void {
    if ((this.instanceHeard.get(instanceId) ?? -Infinity) < at) this.instanceHeard.set(instanceId, at);
  }

  /** Instances last heard from (here or through `reportedAt`) before `before`. */
  idleInstances(before: number, reportedAt: (instance: Instance) => number | undefined): Instance[] {
    const idle: Instance[] = [];
    for (const instance of this.instances.all()) {
      const heard = Math.max(this.instanceHeard.get(instance.id) ?? -Infinity, reportedAt(instance) ?? -Infinity);
      if (heard < before) idle.push(instance);
    }
    return idle;
  }

  /** Writes the high-water marks to `entity_ids`; called in the transaction that removes rows holding them. */
  async recordHighest(): Promise<void> {
    for (const key of ['app', 'host', 'instance'] as const) {
      await this.w.exec('DELETE FROM entity_ids WHERE kind = $1', [HIGHEST_KINDS[key]]);
      await this.w.exec('INSERT INTO entity_ids VALUES ($1, $2)', [HIGHEST_KINDS[key], this.highest[key]]);
    }
  }

  /** The hosts of `instances` that have no other instance: they go with them. */
  hostsLeftEmpty(instances: readonly Instance[]): Host[] {
    const going = new Set(instances.map((i) => i.id));
    const hostIds = new Set(instances.map((i) => i.hostId));
    const kept = new Set<number>();
    for (const instance of this.instances.all()) if (hostIds.has(instance.hostId) && !going.has(instance.id)) kept.add(instance.hostId);
    return [...hostIds].filter((id) => !kept.has(id)).flatMap((id) => this.hosts.get(id) ?? []);
  }

  /** Drops instances and hosts from memory once their rows are deleted. */
  forgetInstances(instances: readonly Instance[], hosts: readonly Host[]): void {
    for (const instance of instances) {
      this.instances.delete(instance);
      this.instanceHeard.delete(instance.id);
    }
    for (const host of hosts) this.hosts.delete(host);
  }

  /** Agents are matched by the name they report under, not the display name (which REST may change). */
  async findOrCreateApplication(accountId: number, agentName: string, language: string | null): Promise<Application> {
    const existing = [...this.apps.values()].find((a) => a.accountId === accountId && a.agentName === agentName);
    if (existing && (existing.language !== null || language === null)) return existing;
    if (existing) {
      await this.w.exec('UPDATE applications SET language = $1 WHERE id = $2', [language, existing.id]);
      const updated = { ...existing, language };
      this.apps.set(existing.id, updated);
      return updated;
    }
    const app: Application = {
      id: ++this.highest.app, accountId, name: agentName, agentName, language, apdexT: DEFAULT_APDEX_T,
      endUserApdexT: DEFAULT_END_USER_APDEX_T, enableRealUserMonitoring: false, useServerSideConfig: false,
      agentSettings: DEFAULT_APM_AGENT_SETTINGS, createdAt: this.w.clock.now(),
    };
    await this.w.exec(
      `INSERT INTO applications (id, account_id, name, agent_name, language, apdex_t, end_user_apdex_t, enable_real_user_monitoring,
         use_server_side_config, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [app.id, accountId, app.name, agentName, language, app.apdexT, app.endUserApdexT, app.enableRealUserMonitoring, app.useServerSideConfig, timestampValue(app.createdAt)],
    );
    this.apps.set(app.id, app);
    return app;
  }

  async findOrCreateHost(app: Application, name: string, displayName: string | null): Promise<Host> {
    const existing = this.hosts.ofApplication(app.id).find((h) => h.name === name);
    if (existing) return existing;
    const host: Host = { id: ++this.highest.host, accountId: app.accountId, appId: app.id, name };
    await this.w.exec('INSERT INTO hosts VALUES ($1, $2, $3, $4, $5, $6)', [host.id, app.accountId, app.id, name, displayName, this.w.now()]);
    this.hosts.set(host);
    return host;
  }

  /** An instance is one agent process: the same host, pid and port reconnecting is the same instance. */
  async findOrCreateInstance(app: Application, host: Host, facts: ConnectFacts): Promise<Instance> {
    const now = this.w.clock.now();
    const existing = this.instances.ofApplication(app.id).find(
      (i) => i.hostId === host.id && i.pid === facts.pid && i.port === facts.port,
    );
    if (existing) {
      this.heard(existing.id, now);
      if (existing.agentVersion === facts.agentVersion) return existing;
      // The same process address with another agent: an upgrade and restart that kept the pid and port.
      const upgraded: Instance = { ...existing, agentVersion: facts.agentVersion };
      await this.w.exec('UPDATE instances SET agent_version = $1 WHERE id = $2', [facts.agentVersion, existing.id]);
      this.instances.set(upgraded);
      return upgraded;
    }
    const instance: Instance = {
      id: ++this.highest.instance, accountId: app.accountId, appId: app.id, hostId: host.id, pid: facts.pid, port: facts.port, agentVersion: facts.agentVersion,
    };
    await this.w.exec('INSERT INTO instances VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
      instance.id, app.accountId, app.id, host.id, facts.pid, facts.port, facts.language, facts.agentVersion, timestampValue(now),
    ]);
    this.instances.set(instance);
    this.heard(instance.id, now);
    return instance;
  }

  async update(id: number, changes: ApplicationChanges): Promise<Application> {
    const name = checkedApplicationChanges(changes);
    const app = this.apps.get(id);
    if (!app) throw new ApplicationNotFoundError(id);
    const agentSettings = changes.agentSettings === undefined ? app.agentSettings : applySettingsPatch(app.agentSettings, changes.agentSettings);
    validateApmAgentSettings(agentSettings);
    const updated: Application = {
      ...app,
      name: name ?? app.name,
      apdexT: changes.apdexT ?? app.apdexT,
      endUserApdexT: changes.endUserApdexT ?? app.endUserApdexT,
      enableRealUserMonitoring: changes.enableRealUserMonitoring ?? app.enableRealUserMonitoring,
      useServerSideConfig: changes.useServerSideConfig ?? app.useServerSideConfig,
      agentSettings,
    };
    await this.w.exec(
      `UPDATE applications SET name = $1, apdex_t = $2, end_user_apdex_t = $3, enable_real_user_monitoring = $4,
         use_server_side_config = $5, agent_settings = $6 WHERE id = $7`,
      [
        updated.name, updated.apdexT, updated.endUserApdexT, updated.enableRealUserMonitoring, updated.useServerSideConfig,
        agentSettingsJson(updated.agentSettings), id,
      ],
    );
    this.apps.set(id, updated);
    return updated;
  }

  /** Deletes the application's rows and everything it owns, in one transaction. */
  async deleteRows(id: number): Promise<void> {
    const conn = this.w.db.catalogConnection;
    await this.w.transaction(async () => {
      for (const table of APPLICATION_DATA_TABLES) await conn.run(`DELETE FROM ${table} WHERE app_id = $1`, [id]);
      for (const table of ['instances', 'hosts', 'key_transactions']) await conn.run(`DELETE FROM ${table} WHERE app_id = $1`, [id]);
      // The browser side of the application goes with it; a standalone browser application has no APM id.
      await conn.run('DELETE FROM browser_applications WHERE apm_app_id = $1', [id]);
      await conn.run('DELETE FROM applications WHERE id = $1', [id]);
    });
  }

  /** Drops a deleted application from memory. */
  forget(id: number): void {
    this.apps.delete(id);
    this.hosts.deleteApplication(id);
    for (const instance of this.instances.ofApplication(id)) this.instanceHeard.delete(instance.id);
    this.instances.deleteApplication(id);
  }
}

/**
 * Hosts or instances by id and by application: REST and graph summaries ask for an application's
 * hosts and instances once per application of a page, which must not scan them all.
 */
class ByApplication<T extends { readonly id: number; readonly appId: number }> {
  private readonly byId = new Map<number, T>();
  private readonly byApp = new Map<number, Map<number, T>>();

  get(id: number): T | undefined {
    return this.byId.get(id);
  }

  all(): IterableIterator<T> {
    return this.byId.values();
  }

  set(item: T): void {
    this.byId.set(item.id, item);
    let ofApp = this.byApp.get(item.appId);
    if (!ofApp) this.byApp.set(item.appId, (ofApp = new Map()));
    ofApp.set(item.id, item);
  }

  delete(item: T): void {
    this.byId.delete(item.id);
    const ofApp = this.byApp.get(item.appId);
    ofApp?.delete(item.id);
    if (ofApp?.size === 0) this.byApp.delete(item.appId);
  }

  ofApplication(appId: number): T[] {
    return [...(this.byApp.get(appId)?.values() ?? [])];
  }

  deleteApplication(appId: number): void {
    for (const id of this.byApp.get(appId)?.keys() ?? []) this.byId.delete(id);
    this.byApp.delete(appId);
  }
}
