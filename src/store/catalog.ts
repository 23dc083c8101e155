import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { DuckDBTimestampValue, DuckDBValue } from '@duckdb/node-api';
import { paramTypes, timestampValue } from './duckdb/duckdb-values.js';
import type { Clock } from '../clock.js';
import { DEFAULT_APM_AGENT_SETTINGS, type ApmAgentSettings } from '../domain/agent-settings/model.js';
import { applySettingsPatch, validateApmAgentSettings, type SettingsPatch } from '../domain/agent-settings/validation.js';
import { generateLicenseKey, generateUserKey, hashKey, keyHint } from '../security/keys.js';
import { APPEND_TABLES } from './duckdb/append-tables.js';
import type { Database } from './duckdb/database.js';
import { Mutex } from './mutex.js';
import { TIMESLICE_TABLES } from './duckdb/timeslice-compactor.js';
import { entityName, entityNameRule } from '../domain/entity-name.js';

export interface Account { readonly id: number; readonly name: string }
/** Timeslice keeps no user records: a user key stands for its user, whose id is the key's. */
export interface KeyUser {
  readonly id: number;
  /** The one account the key reaches. */
  readonly accountId: number;
  /** The key's kind and last four characters. */
  readonly hint: string;
  readonly name: string;
  /** Epoch ms. */
  readonly createdAt: number;
}
export interface Application {
  readonly id: number;
  readonly accountId: number;
  /** The display name; REST renames change it. */
  readonly name: string;
  /** The name agents report under and are matched by; fixed at creation, renames leave it. */
  readonly agentName: string;
  readonly language: string | null;
  /** Apdex T in seconds, handed to the application's agents when they connect. */
  readonly apdexT: number;
  /** Browser (end user) Apdex T in seconds. */
  readonly endUserApdexT: number;
  readonly enableRealUserMonitoring: boolean;
  /** Whether its agents take `agentSettings` from the connect reply (`agent_config`) over their own configuration. */
  readonly useServerSideConfig: boolean;
  /** Epoch ms: when the first agent reporting under its name connected. */
  readonly createdAt: number;
  /** What NerdGraph's `apmSettings` shows and `agentApplicationSettingsUpdate` changes. */
  readonly agentSettings: ApmAgentSettings;
}

/** What REST `PUT /v2/applications/{id}` and NerdGraph's `agentApplicationSettingsUpdate` may change. */
export interface ApplicationChanges {
  readonly name?: string;
  readonly apdexT?: number;
  readonly endUserApdexT?: number;
  readonly enableRealUserMonitoring?: boolean;
  readonly useServerSideConfig?: boolean;
  /** Merged into the current settings: what it leaves out keeps its value. */
  readonly agentSettings?: SettingsPatch<ApmAgentSettings>;
}

export class ApplicationNotFoundError extends Error {
  constructor(readonly appId: number) {
    super(`application ${appId} does not exist`);
  }
}
export interface Host { readonly id: number; readonly accountId: number; readonly appId: number; readonly name: string }
export interface Instance {
  readonly id: number;
  readonly accountId: number;
  readonly appId: number;
  readonly hostId: number;
  readonly pid: number | null;
  readonly port: number | null;
  /** The agent's version at its latest connect (NerdGraph's `runningAgentVersions`). */
  readonly agentVersion: string | null;
}
/** Where one agent run's data goes: its primary application first, then its roll-up applications. */
export interface RunTarget { readonly appId: number; readonly hostId: number; readonly instanceId: number }
export interface AgentRun {
  readonly runId: string;
  readonly accountId: number;
  readonly targets: readonly RunTarget[];
  readonly shutdown: boolean;
}

export interface ConnectFacts {
  readonly appNames: readonly string[];
  readonly language: string | null;
  readonly agentVersion: string | null;
  readonly host: string;
  readonly displayHost: string | null;
  readonly pid: number | null;
  readonly port: number | null;
  readonly userAgent: string | null;
}

export interface BootstrapKeys {
  /** Keys to use for account 1 instead of generated ones (emulator mode). */
  readonly userKey?: string;
  readonly licenseKey?: string;
}

/** Keys in clear, known only at the moment they were created (or given by the environment). */
export interface CreatedKeys { readonly userKey: string; readonly licenseKey: string }

/** New Relic's default server-side Apdex T for APM applications, in seconds. */
export const DEFAULT_APDEX_T = 0.5;
/** New Relic's default Apdex T for browser (end user) monitoring, in seconds. */
export const DEFAULT_END_USER_APDEX_T = 7;

/** What else holds an application's data in memory, for `deleteApplication` to clear. */
export interface CatalogDeps {
  readonly metrics?: { forgetApplication(appId: number): void };
  /**
   * Stores holding rows that `deleteApplication` removes from their tables (key transactions, the
   * browser side): told, after the delete commits, to drop them from memory too.
   */
  readonly dependents?: readonly { forgetApplication(appId: number): void }[];
  /**
   * Held around an application's deletion; the timeslice compactor holds it around each run. Both
   * delete from `timeslices`, and DuckDB fails one of two transactions deleting the same rows.
   */
  readonly storeMaintenance?: Mutex;
}

/** Tables whose rows belong to an application (`app_id`): a deleted application's rows go with it. */
const APPLICATION_DATA_TABLES = [
  ...APPEND_TABLES.filter((t) => t.columns.some((c) => c.name === 'app_id')).map((t) => t.name),
  ...TIMESLICE_TABLES.filter((t) => t !== 'timeslices'),
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


/**
 * Accounts, keys, applications, hosts, instances and agent runs. The catalog is small, so it is
 * held in memory (the ingest path resolves license keys and run ids without a query) and
 * written through to DuckDB, one change at a time.
 */
export class Catalog {
  private readonly mutex = new Mutex();
  private readonly accountsById = new Map<number, Account>();
  /** By key hash. */
  private readonly keys = new Map<string, { id: number; accountId: number; kind: 'user' | 'license'; hint: string; createdAt: number }>();
  private readonly apps = new Map<number, Application>();
  private readonly hosts = new ByApplication<Host>();
  private readonly instances = new ByApplication<Instance>();
  private readonly runs = new Map<string, AgentRun>();
  /** Data calls in progress per run, and who waits for them to end. */
  private readonly calls = new Map<string, { count: number; ended: (() => void)[] }>();
  private nextKeyId = 1;
  /**
   * Highest ids handed out. Ids are never reused: a deleted application's id may still be held
   * by REST clients and by rows in flight. Runs outlive the applications they targeted, so the
   * runs' targets remember every id handed out.
   */
  private readonly highest = { app: 0, host: 0, instance: 0 };

  private constructor(private readonly db: Database, private readonly clock: Clock, private readonly deps: CatalogDeps) {}

  static async load(db: Database, clock: Clock, deps: CatalogDeps = {}): Promise<Catalog> {
    const catalog = new Catalog(db, clock, deps);
    await catalog.reload();
    return catalog;
  }

  private async reload(): Promise<void> {
    for (const r of await this.db.all<{ id: number; name: string }>('SELECT id, name FROM accounts')) {
      this.accountsById.set(r.id, { id: r.id, name: r.name });
    }
    for (const r of await this.db.all<{ id: number; account_id: number; kind: 'user' | 'license'; key_hash: string; hint: string; created_ms: bigint }>(
      'SELECT id, account_id, kind, key_hash, hint, epoch_ms(created_at) AS created_ms FROM api_keys',
    )) {
      this.keys.set(r.key_hash, { id: r.id, accountId: r.account_id, kind: r.kind, hint: r.hint, createdAt: Number(r.created_ms) });
      this.nextKeyId = Math.max(this.nextKeyId, r.id + 1);
    }
    for (const r of await this.db.all<ApplicationRow>(
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
    for (const r of await this.db.all<{ id: number; account_id: number; app_id: number; name: string }>(
      'SELECT id, account_id, app_id, name FROM hosts',
    )) {
      this.hosts.set({ id: r.id, accountId: r.account_id, appId: r.app_id, name: r.name });
      this.highest.host = Math.max(this.highest.host, r.id);
    }
    for (const r of await this.db.all<{ id: number; account_id: number; app_id: number; host_id: number; pid: number | null; port: number | null; agent_version: string | null }>(
      'SELECT id, account_id, app_id, host_id, pid, port, agent_version FROM instances',
    )) {
      this.instances.set({ id: r.id, accountId: r.account_id, appId: r.app_id, hostId: r.host_id, pid: r.pid, port: r.port, agentVersion: r.agent_version });
      this.highest.instance = Math.max(this.highest.instance, r.id);
    }
    for (const r of await this.db.all<{ run_id: string; account_id: number; targets: string; shutdown: boolean }>(
      'SELECT run_id, account_id, targets, shutdown_at IS NOT NULL AS shutdown FROM agent_runs',
    )) {
      const targets = (JSON.parse(r.targets) as [number, number, number][]).map(([appId, hostId, instanceId]) => ({ appId, hostId, instanceId }));
      this.runs.set(r.run_id, { runId: r.run_id, accountId: r.account_id, targets, shutdown: r.shutdown });
      for (const t of targets) {
        this.highest.app = Math.max(this.highest.app, t.appId);
        this.highest.host = Math.max(this.highest.host, t.hostId);
        this.highest.instance = Math.max(this.highest.instance, t.instanceId);
      }
    }
  }

  /**
   * First start: account 1 ("Default") with a user key and a license key. Returns the keys in
   * clear when it created them (or was given them), and undefined when the account existed.
   * Keys given by the environment are registered even on a later start, so an emulator run can
   * always use the keys it was started with.
   */
  async bootstrap(given: BootstrapKeys = {}): Promise<CreatedKeys | undefined> {
    return this.mutex.run(async () => {
      if (this.accountsById.size > 0) {
        for (const [kind, key] of [['user', given.userKey], ['license', given.licenseKey]] as const) {
          if (key && !this.keys.has(hashKey(key))) await this.insertKey(1, kind, key);
        }
        return undefined;
      }
      await this.exec('INSERT INTO accounts VALUES (1, $1, $2)', ['Default', this.now()]);
      this.accountsById.set(1, { id: 1, name: 'Default' });
      const keys = { userKey: given.userKey ?? generateUserKey(), licenseKey: given.licenseKey ?? generateLicenseKey() };
      await this.insertKey(1, 'user', keys.userKey);
      await this.insertKey(1, 'license', keys.licenseKey);
      return keys;
    });
  }

  /** A new account with the next id; it has no keys until `createUserKey` / `createLicenseKey`. */
  async createAccount(name: string): Promise<Account> {
    const trimmed = name.trim();
    if (entityName(trimmed) === undefined) throw new RangeError(entityNameRule('an account'));
    return this.mutex.run(async () => {
      const account: Account = { id: Math.max(0, ...this.accountsById.keys()) + 1, name: trimmed };
      await this.exec('INSERT INTO accounts VALUES ($1, $2, $3)', [account.id, account.name, this.now()]);
      this.accountsById.set(account.id, account);
      return account;
    });
  }

  account(id: number): Account | undefined {
    return this.accountsById.get(id);
  }

  /** Every account, by id. */
  accounts(): Account[] {
    return [...this.accountsById.values()].sort((a, b) => a.id - b.id);
  }

  /** A new user key (REST, the graph API) for the account, in clear: only its hash is stored. */
  createUserKey(accountId: number): Promise<string> {
    return this.createKey(accountId, 'user', generateUserKey());
  }

  /** A new license key (agents, ingest) for the account, in clear: only its hash is stored. */
  createLicenseKey(accountId: number): Promise<string> {
    return this.createKey(accountId, 'license', generateLicenseKey());
  }

  private async createKey(accountId: number, kind: 'user' | 'license', key: string): Promise<string> {
    return this.mutex.run(async () => {
      if (!this.accountsById.has(accountId)) throw new RangeError(`account ${accountId} does not exist`);
      await this.insertKey(accountId, kind, key);
      return key;
    });
  }

  /** Removes a key: it authenticates nothing from now on. */
  async revokeKey(key: string): Promise<void> {
    const hash = hashKey(key.trim());
    await this.mutex.run(async () => {
      await this.exec('DELETE FROM api_keys WHERE key_hash = $1', [hash]);
      this.keys.delete(hash);
    });
  }

  private async insertKey(accountId: number, kind: 'user' | 'license', key: string): Promise<void> {
    const id = this.nextKeyId++;
    const createdAt = this.clock.now();
    await this.exec('INSERT INTO api_keys VALUES ($1, $2, $3, $4, $5, $6)', [id, accountId, kind, hashKey(key), keyHint(key), timestampValue(createdAt)]);
    this.keys.set(hashKey(key), { id, accountId, kind, hint: keyHint(key), createdAt });
  }

  accountForLicenseKey(key: string): number | undefined {
    const found = this.keys.get(hashKey(key.trim()));
    return found?.kind === 'license' ? found.accountId : undefined;
  }

  accountForUserKey(key: string): number | undefined {
    const found = this.keys.get(hashKey(key.trim()));
    return found?.kind === 'user' ? found.accountId : undefined;
  }

  /** The user a user key stands for (NerdGraph's `actor.user`), named after the key's hint. */
  userOfKey(key: string): KeyUser | undefined {
    const found = this.keys.get(hashKey(key.trim()));
    return found?.kind === 'user' ? { id: found.id, accountId: found.accountId, hint: found.hint, name: `User of key ${found.hint}`, createdAt: found.createdAt } : undefined;
  }

  application(id: number): Application | undefined {
    return this.apps.get(id);
  }

  applications(accountId: number): Application[] {
    return [...this.apps.values()].filter((a) => a.accountId === accountId);
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

  run(runId: string): AgentRun | undefined {
    return this.runs.get(runId);
  }

  /**
   * An agent connected: find or create its applications (by name, per account), host and
   * instance in each, and open a run whose id later data calls must carry.
   */
  async connect(accountId: number, facts: ConnectFacts): Promise<{ run: AgentRun; primary: Application }> {
    return this.mutex.run(async () => {
      const targets: RunTarget[] = [];
      let primary: Application | undefined;
      for (const name of facts.appNames) {
        const app = await this.findOrCreateApplication(accountId, name, facts.language);
        primary ??= app;
        if (targets.some((t) => t.appId === app.id)) continue;
        const host = await this.findOrCreateHost(app, facts.host, facts.displayHost);
        const instance = await this.findOrCreateInstance(app, host, facts);
        targets.push({ appId: app.id, hostId: host.id, instanceId: instance.id });
      }
      if (!primary) throw new Error('connect names no application');
      const run: AgentRun = { runId: randomBytes(18).toString('base64url'), accountId, targets, shutdown: false };
      await this.exec('INSERT INTO agent_runs VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)', [
        run.runId, accountId, primary.id, JSON.stringify(targets.map((t) => [t.appId, t.hostId, t.instanceId])),
        facts.agentVersion, facts.language, facts.userAgent, this.now(),
      ]);
      this.runs.set(run.runId, run);
      return { run, primary };
    });
  }

  /**
   * Changes an application's display name and settings, written through in one statement. A
   * changed Apdex T, and with server-side configuration the agent settings, are what its agents
   * receive when they next connect. A rename leaves the name agents report under: they keep
   * landing in this application. Bad input is a RangeError naming the field; nothing changes then.
   */
  async updateApplication(id: number, changes: ApplicationChanges): Promise<Application> {
    const name = changes.name === undefined ? undefined : entityName(changes.name);
    if (changes.name !== undefined && name === undefined) throw new RangeError(entityNameRule('an application'));
    for (const [field, value] of [['apdexT', changes.apdexT], ['endUserApdexT', changes.endUserApdexT]] as const) {
      if (value !== undefined && !(Number.isFinite(value) && value > 0)) throw new RangeError(`${field} must be a positive number of seconds`);
    }
    if (changes.useServerSideConfig !== undefined && typeof changes.useServerSideConfig !== 'boolean') {
      throw new RangeError('useServerSideConfig must be true or false');
    }
    return this.mutex.run(async () => {
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
      await this.exec(
        `UPDATE applications SET name = $1, apdex_t = $2, end_user_apdex_t = $3, enable_real_user_monitoring = $4,
           use_server_side_config = $5, agent_settings = $6 WHERE id = $7`,
        [
          updated.name, updated.apdexT, updated.endUserApdexT, updated.enableRealUserMonitoring, updated.useServerSideConfig,
          agentSettingsJson(updated.agentSettings), id,
        ],
      );
      this.apps.set(id, updated);
      return updated;
    });
  }

  /**
   * Runs `work` for application `id` while it exists and cannot be deleted: creating what belongs
   * to it (a key transaction, its browser side) cannot race its deletion and leave a row behind.
   * `work` must not call back into the catalog's writes. ApplicationNotFoundError when it is gone.
   */
  async whileApplicationExists<T>(id: number, work: (app: Application) => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      const app = this.apps.get(id);
      if (!app) throw new ApplicationNotFoundError(id);
      return work(app);
    });
  }

  /**
   * Marks a data call in progress on a run, until the returned function is called: a deletion
   * waits for the calls on the runs it shuts down, so none of their rows lands after it.
   */
  holdRun(runId: string): () => void {
    let calls = this.calls.get(runId);
    if (!calls) {
      calls = { count: 0, ended: [] };
      this.calls.set(runId, calls);
    }
    const held = calls;
    held.count++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--held.count > 0) return;
      this.calls.delete(runId);
      for (const resolve of held.ended) resolve();
    };
  }

  /**
   * Deletes an application with all its data: hosts, instances, metric presence, timeslices,
   * events and traces, in one transaction. Every run targeting it is shut down first, so its
   * agents' next data call is refused (409) and they reconnect, creating a new application;
   * data calls already in progress on those runs finish before the delete. Whether the
   * application may be deleted (it stopped reporting) is the caller's decision.
   */
  async deleteApplication(id: number): Promise<void> {
    await this.mutex.run(async () => {
      if (!this.apps.has(id)) throw new ApplicationNotFoundError(id);
      const runs = [...this.runs.values()].filter((r) => r.targets.some((t) => t.appId === id));
      const active = runs.filter((r) => !r.shutdown);
      // In memory first, in the same turn: from here on, data calls on these runs are refused.
      for (const run of active) this.runs.set(run.runId, { ...run, shutdown: true });
      for (const run of active) await this.exec('UPDATE agent_runs SET shutdown_at = $1 WHERE run_id = $2', [this.now(), run.runId]);
      await Promise.all(runs.map((run) => this.callsEnded(run.runId)));
      const conn = this.db.catalogConnection;
      const deleteRows = async () => {
        await conn.run('BEGIN TRANSACTION');
        try {
          for (const table of APPLICATION_DATA_TABLES) await conn.run(`DELETE FROM ${table} WHERE app_id = $1`, [id]);
          for (const table of ['instances', 'hosts', 'key_transactions']) await conn.run(`DELETE FROM ${table} WHERE app_id = $1`, [id]);
          // The browser side of the application goes with it; a standalone browser application has no APM id.
          await conn.run('DELETE FROM browser_applications WHERE apm_app_id = $1', [id]);
          await conn.run('DELETE FROM applications WHERE id = $1', [id]);
          await conn.run('COMMIT');
        } catch (error) {
          await conn.run('ROLLBACK').catch(() => undefined);
          throw error;
        }
      };
      await (this.deps.storeMaintenance ? this.deps.storeMaintenance.run(deleteRows) : deleteRows());
      this.apps.delete(id);
      this.hosts.deleteApplication(id);
      this.instances.deleteApplication(id);
      this.deps.metrics?.forgetApplication(id);
      for (const dependent of this.deps.dependents ?? []) dependent.forgetApplication(id);
    });
  }

  private callsEnded(runId: string): Promise<void> {
    const calls = this.calls.get(runId);
    return calls ? new Promise((resolve) => calls.ended.push(resolve)) : Promise.resolve();
  }

  async shutdownRun(runId: string): Promise<void> {
    const run = this.runs.get(runId);
    if (!run || run.shutdown) return;
    await this.mutex.run(async () => {
      await this.exec('UPDATE agent_runs SET shutdown_at = $1 WHERE run_id = $2', [this.now(), runId]);
      this.runs.set(runId, { ...run, shutdown: true });
    });
  }

  /** Agents are matched by the name they report under, not the display name (which REST may change). */
  private async findOrCreateApplication(accountId: number, agentName: string, language: string | null): Promise<Application> {
    const existing = [...this.apps.values()].find((a) => a.accountId === accountId && a.agentName === agentName);
    if (existing && (existing.language !== null || language === null)) return existing;
    if (existing) {
      await this.exec('UPDATE applications SET language = $1 WHERE id = $2', [language, existing.id]);
      const updated = { ...existing, language };
      this.apps.set(existing.id, updated);
      return updated;
    }
    const app: Application = {
      id: ++this.highest.app, accountId, name: agentName, agentName, language, apdexT: DEFAULT_APDEX_T,
      endUserApdexT: DEFAULT_END_USER_APDEX_T, enableRealUserMonitoring: false, useServerSideConfig: false,
      agentSettings: DEFAULT_APM_AGENT_SETTINGS, createdAt: this.clock.now(),
    };
    await this.exec(
      `INSERT INTO applications (id, account_id, name, agent_name, language, apdex_t, end_user_apdex_t, enable_real_user_monitoring,
         use_server_side_config, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [app.id, accountId, app.name, agentName, language, app.apdexT, app.endUserApdexT, app.enableRealUserMonitoring, app.useServerSideConfig, timestampValue(app.createdAt)],
    );
    this.apps.set(app.id, app);
    return app;
  }

  private async findOrCreateHost(app: Application, name: string, displayName: string | null): Promise<Host> {
    const existing = this.hosts.ofApplication(app.id).find((h) => h.name === name);
    if (existing) return existing;
    const host: Host = { id: ++this.highest.host, accountId: app.accountId, appId: app.id, name };
    await this.exec('INSERT INTO hosts VALUES ($1, $2, $3, $4, $5, $6)', [host.id, app.accountId, app.id, name, displayName, this.now()]);
    this.hosts.set(host);
    return host;
  }

  /** An instance is one agent process: the same host, pid and port reconnecting is the same instance. */
  private async findOrCreateInstance(app: Application, host: Host, facts: ConnectFacts): Promise<Instance> {
    const existing = this.instances.ofApplication(app.id).find(
      (i) => i.hostId === host.id && i.pid === facts.pid && i.port === facts.port,
    );
    if (existing) {
      if (existing.agentVersion === facts.agentVersion) return existing;
      // The same process address with another agent: an upgrade and restart that kept the pid and port.
      const upgraded: Instance = { ...existing, agentVersion: facts.agentVersion };
      await this.exec('UPDATE instances SET agent_version = $1 WHERE id = $2', [facts.agentVersion, existing.id]);
      this.instances.set(upgraded);
      return upgraded;
    }
    const instance: Instance = {
      id: ++this.highest.instance, accountId: app.accountId, appId: app.id, hostId: host.id, pid: facts.pid, port: facts.port, agentVersion: facts.agentVersion,
    };
    await this.exec('INSERT INTO instances VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
      instance.id, app.accountId, app.id, host.id, facts.pid, facts.port, facts.language, facts.agentVersion, this.now(),
    ]);
    this.instances.set(instance);
    return instance;
  }

  private now(): DuckDBTimestampValue {
    return timestampValue(this.clock.now());
  }

  private async exec(sql: string, params: DuckDBValue[]): Promise<void> {
    await this.db.catalogConnection.run(sql, params, paramTypes(params));
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

  set(item: T): void {
    this.byId.set(item.id, item);
    let ofApp = this.byApp.get(item.appId);
    if (!ofApp) this.byApp.set(item.appId, (ofApp = new Map()));
    ofApp.set(item.id, item);
  }

  ofApplication(appId: number): T[] {
    return [...(this.byApp.get(appId)?.values() ?? [])];
  }

  deleteApplication(appId: number): void {
    for (const id of this.byApp.get(appId)?.keys() ?? []) this.byId.delete(id);
    this.byApp.delete(appId);
  }
}
