import { listValue } from '@duckdb/node-api';
import type { Clock } from '../../clock.js';
import type { Account, BootstrapKeys, CreatedKeys, KeyInfo, KeyUser, NewUser, User } from '../catalog/accounts.js';
import {
  DEFAULT_IDLE_EXPIRY, type AgentRun, type ConnectFacts, type ExpiredEntries, type IdleExpiry, type RunTarget,
} from '../catalog/agent-runs.js';
import { ApplicationNotFoundError, type Application, type ApplicationChanges, type Host, type Instance } from '../catalog/applications.js';
import type { Catalog } from '../catalog.js';
import type { MetricScope } from '../metric-index.js';
import { Mutex } from '../mutex.js';
import { CatalogWrites } from './catalog/catalog-writes.js';
import { DuckDbAccounts } from './catalog/duckdb-accounts.js';
import { DuckDbAgentRuns } from './catalog/duckdb-agent-runs.js';
import { DuckDbApplications } from './catalog/duckdb-applications.js';
import type { Database } from './database.js';

/** What else holds an application's data in memory, for `deleteApplication` to clear. */
export interface CatalogDeps {
  readonly metrics?: {
    forgetApplication(appId: number): void;
    /** When an instance last stored metric data: an instance reporting is not idle. */
    lastReportedAt?(scope: MetricScope): number | undefined;
    /** Instances and hosts left the catalog: their presence folds into their host's and application's. */
    retireInstances?(live: { readonly instances: ReadonlySet<number>; readonly hosts: ReadonlySet<number> }): void;
  };
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
  /** How long runs and instances stay idle before `expireIdle` removes them. */
  readonly expiry?: IdleExpiry;
}

/**
 * The catalog on DuckDB: accounts and keys, applications with hosts and instances, agent runs.
 * Held in memory (the ingest path resolves license keys and run ids without a query) and written
 * through to DuckDB one change at a time, every write under one lock.
 */
export class DuckDbCatalog implements Catalog {
  private readonly accountsPart: DuckDbAccounts;
  private readonly apps: DuckDbApplications;
  private readonly runs: DuckDbAgentRuns;

  private constructor(private readonly w: CatalogWrites, private readonly deps: CatalogDeps) {
    this.accountsPart = new DuckDbAccounts(w);
    this.apps = new DuckDbApplications(w);
    this.runs = new DuckDbAgentRuns(w);
  }

  static async load(db: Database, clock: Clock, deps: CatalogDeps = {}): Promise<DuckDbCatalog> {
    const catalog = new DuckDbCatalog(new CatalogWrites(db, clock, new Mutex()), deps);
    await catalog.accountsPart.load();
    await catalog.apps.load();
    const highest = catalog.apps.highest;
    // Runs outlive the applications they targeted: their targets remember ids handed out.
    await catalog.runs.load((t, at) => {
      highest.app = Math.max(highest.app, t.appId);
      highest.host = Math.max(highest.host, t.hostId);
      highest.instance = Math.max(highest.instance, t.instanceId);
      catalog.apps.heard(t.instanceId, at);
    });
    return catalog;
  }

  bootstrap(given: BootstrapKeys = {}): Promise<CreatedKeys | undefined> { return this.accountsPart.bootstrap(given); }
  createAccount(name: string): Promise<Account> { return this.accountsPart.createAccount(name); }
  account(id: number): Account | undefined { return this.accountsPart.account(id); }
  accounts(): Account[] { return this.accountsPart.accounts(); }
  createUser(user: NewUser): Promise<{ user: User; key: string }> { return this.accountsPart.createUser(user); }
  user(id: number): User | undefined { return this.accountsPart.user(id); }
  users(accountId?: number): User[] { return this.accountsPart.users(accountId); }
  createUserKey(accountId: number, userId?: number): Promise<string> { return this.accountsPart.createUserKey(accountId, userId); }
  createLicenseKey(accountId: number): Promise<string> { return this.accountsPart.createLicenseKey(accountId); }
  revokeKey(key: string): Promise<void> { return this.accountsPart.revokeKey(key); }
  revokeKeyById(id: number): Promise<boolean> { return this.accountsPart.revokeKeyById(id); }
  rotateKey(id: number): Promise<{ key: string; info: KeyInfo } | undefined> { return this.accountsPart.rotateKey(id); }
  keys(accountId?: number): KeyInfo[] { return this.accountsPart.keys(accountId); }
  accountForLicenseKey(key: string): number | undefined { return this.accountsPart.accountForLicenseKey(key); }
  accountForUserKey(key: string): number | undefined { return this.accountsPart.accountForUserKey(key); }
  keyId(key: string): number | undefined { return this.accountsPart.keyId(key); }
  userOfKey(key: string): KeyUser | undefined { return this.accountsPart.userOfKey(key); }

  application(id: number): Application | undefined { return this.apps.application(id); }
  applications(accountId: number): Application[] { return this.apps.applications(accountId); }
  host(id: number): Host | undefined { return this.apps.host(id); }
  hostsOf(appId: number): Host[] { return this.apps.hostsOf(appId); }
  instancesOf(appId: number): Instance[] { return this.apps.instancesOf(appId); }
  run(runId: string): AgentRun | undefined { return this.runs.get(runId); }
  allRuns(): Iterable<AgentRun> { return this.runs.all(); }

  async connect(accountId: number, facts: ConnectFacts): Promise<{ run: AgentRun; primary: Application }> {
    return this.w.mutex.run(async () => {
      const targets: RunTarget[] = [];
      let primary: Application | undefined;
      for (const name of facts.appNames) {
        const app = await this.apps.findOrCreateApplication(accountId, name, facts.language);
        primary ??= app;
        if (targets.some((t) => t.appId === app.id)) continue;
        const host = await this.apps.findOrCreateHost(app, facts.host, facts.displayHost);
        const instance = await this.apps.findOrCreateInstance(app, host, facts);
        targets.push({ appId: app.id, hostId: host.id, instanceId: instance.id });
      }
      if (!primary) throw new Error('connect names no application');
      const run = await this.runs.open(accountId, primary.id, targets, facts);
      return { run, primary };
    });
  }

  async updateApplication(id: number, changes: ApplicationChanges): Promise<Application> {
    return this.w.mutex.run(() => this.apps.update(id, changes));
  }

  async whileApplicationExists<T>(id: number, work: (app: Application) => Promise<T>): Promise<T> {
    return this.w.mutex.run(async () => {
      const app = this.apps.application(id);
      if (!app) throw new ApplicationNotFoundError(id);
      return work(app);
    });
  }

  holdRun(runId: string): () => void {
    const release = this.runs.hold(runId);
    this.heardThrough(runId);
    return () => {
      release();
      this.heardThrough(runId);
    };
  }

  /** A data call on a run is its instances being heard from. */
  private heardThrough(runId: string): void {
    const run = this.runs.get(runId);
    if (!run) return;
    const now = this.w.clock.now();
    for (const t of run.targets) this.apps.heard(t.instanceId, now);
  }

  async deleteApplication(id: number): Promise<void> {
    await this.w.mutex.run(async () => {
      if (!this.apps.has(id)) throw new ApplicationNotFoundError(id);
      const runs = this.runs.targeting(id);
      await this.runs.markShutdown(runs);
      await Promise.all(runs.map((run) => this.runs.callsEnded(run.runId)));
      const deleteRows = () => this.apps.deleteRows(id);
      await (this.deps.storeMaintenance ? this.deps.storeMaintenance.run(deleteRows) : deleteRows());
      this.apps.forget(id);
      this.deps.metrics?.forgetApplication(id);
      for (const dependent of this.deps.dependents ?? []) dependent.forgetApplication(id);
    });
  }

  async shutdownRun(runId: string): Promise<void> {
    const run = this.runs.get(runId);
    if (!run || run.shutdown) return;
    await this.w.mutex.run(() => this.runs.markShutdown([run]));
  }

  /** Tells the metric index which instances and hosts the catalog still has (after start, after expiry). */
  retireForgottenInstances(): void {
    this.deps.metrics?.retireInstances?.(this.apps.live());
  }

  async expireIdle(): Promise<ExpiredEntries> {
    const expiry = this.deps.expiry ?? DEFAULT_IDLE_EXPIRY;
    return this.w.mutex.run(async () => {
      const now = this.w.clock.now();
      const runs = this.runs.idle(now - expiry.runIdleMs);
      const expiring = new Set(runs.map((r) => r.runId));
      const targeted = new Set<number>();
      for (const run of this.runs.all()) if (!expiring.has(run.runId)) for (const t of run.targets) targeted.add(t.instanceId);
      const reportedAt = this.deps.metrics?.lastReportedAt?.bind(this.deps.metrics);
      const instances = this.apps.idleInstances(now - expiry.instanceIdleMs, (i) => reportedAt?.({ appId: i.appId, instanceId: i.id }))
        .filter((i) => !targeted.has(i.id));
      if (runs.length === 0 && instances.length === 0) return { runs: 0, instances: 0, hosts: 0 };
      const hosts = this.apps.hostsLeftEmpty(instances);
      await this.w.transaction(async () => {
        // The rows going may be the last to remember the highest ids handed out.
        await this.apps.recordHighest();
        await this.runs.deleteRows(runs);
        if (instances.length > 0) {
          await this.w.db.catalogConnection.run('DELETE FROM instances WHERE list_contains($1, id)', [listValue(instances.map((i) => i.id))]);
        }
        if (hosts.length > 0) {
          await this.w.db.catalogConnection.run('DELETE FROM hosts WHERE list_contains($1, id)', [listValue(hosts.map((h) => h.id))]);
        }
      });
      this.runs.forget(runs);
      this.apps.forgetInstances(instances, hosts);
      if (instances.length > 0) this.retireForgottenInstances();
      return { runs: runs.length, instances: instances.length, hosts: hosts.length };
    });
  }
}
