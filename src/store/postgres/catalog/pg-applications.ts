import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import type { Clock } from '../../../clock.js';
import { DEFAULT_APM_AGENT_SETTINGS, type ApmAgentSettings } from '../../../domain/agent-settings/model.js';
import { applySettingsPatch, validateApmAgentSettings, type SettingsPatch } from '../../../domain/agent-settings/validation.js';
import {
  DEFAULT_IDLE_EXPIRY, RunCalls, type AgentRun, type AgentRuns, type ConnectFacts, type ExpiredEntries, type IdleExpiry, type RunTarget,
} from '../../catalog/agent-runs.js';
import {
  ApplicationNotFoundError, checkedApplicationChanges, DEFAULT_APDEX_T, DEFAULT_END_USER_APDEX_T,
  type Application, type ApplicationCatalog, type ApplicationChanges, type Host, type Instance,
} from '../../catalog/applications.js';
import type { MetricScope } from '../../metric-index.js';
import { Mutex } from '../../mutex.js';
import { notifyChange, type PgChangeFeed } from '../pg-change-feed.js';
import { APPLICATION_ENTITY_KINDS, notifyApplicationEntitiesGone } from '../pg-entity-stores.js';
import type { PostgresDatabase } from '../pg-database.js';
import { refuseNul, withoutNul } from '../pg-text.js';

const APPS = 'applications';
const RUNS = 'runs';

/** How often a node writes when it last heard from runs and instances (expiry is measured in hours and days). */
export const HEARD_FLUSH_MS = 30_000;

/** What else holds an application's data, for `deleteApplication` (and a deletion seen from another node) to clear. */
export interface PgApplicationDeps {
  readonly metrics?: {
    forgetApplication(appId: number): void;
    lastReportedAt?(scope: MetricScope): number | undefined;
  };
  /** In-memory stores with rows of an application (key transactions, the browser side): told when it is gone. */
  readonly dependents?: readonly { forgetApplication(appId: number): void }[];
  /**
   * Deletes the application's data outside this database (timeslices, events, traces in the data
   * engine). Runs while the application's row is locked, before its catalog rows go.
   */
  readonly deleteApplicationData?: (appId: number) => Promise<void>;
  readonly expiry?: IdleExpiry;
}

interface AppRow {
  id: number; account_id: number; name: string; agent_name: string; language: string | null; apdex_t: number; end_user_apdex_t: number;
  enable_real_user_monitoring: boolean; use_server_side_config: boolean; agent_settings: string | null; created_at: number;
}
interface HostRow { id: number; account_id: number; app_id: number; name: string }
interface InstanceRow { id: number; account_id: number; app_id: number; host_id: number; pid: number | null; port: number | null; agent_version: string | null }
interface RunRow { run_id: string; account_id: number; targets: string; shutdown_at: number | null }

const APP_COLUMNS = 'id, account_id, name, agent_name, language, apdex_t, end_user_apdex_t, enable_real_user_monitoring, use_server_side_config, agent_settings, created_at';

function appOf(r: AppRow): Application {
  return {
    id: r.id, accountId: r.account_id, name: r.name, agentName: r.agent_name, language: r.language, apdexT: r.apdex_t, endUserApdexT: r.end_user_apdex_t,
    enableRealUserMonitoring: r.enable_real_user_monitoring, useServerSideConfig: r.use_server_side_config, createdAt: r.created_at,
    agentSettings: r.agent_settings === null ? DEFAULT_APM_AGENT_SETTINGS : applySettingsPatch(DEFAULT_APM_AGENT_SETTINGS, JSON.parse(r.agent_settings) as SettingsPatch<ApmAgentSettings>),
  };
}
const hostOf = (r: HostRow): Host => ({ id: r.id, accountId: r.account_id, appId: r.app_id, name: r.name });
const instanceOf = (r: InstanceRow): Instance => ({ id: r.id, accountId: r.account_id, appId: r.app_id, hostId: r.host_id, pid: r.pid, port: r.port, agentVersion: r.agent_version });
function runOf(r: RunRow): AgentRun {
  const targets = (JSON.parse(r.targets) as [number, number, number][]).map(([appId, hostId, instanceId]) => ({ appId, hostId, instanceId }));
  return { runId: r.run_id, accountId: r.account_id, targets, shutdown: r.shutdown_at !== null };
}

/** Items by id and by application: summaries ask for one application's hosts and instances at a time. */
class ByApplication<T extends { readonly id: number; readonly appId: number }> {
  readonly byId = new Map<number, T>();
  private readonly byApp = new Map<number, Map<number, T>>();
  constructor(items: Iterable<T> = []) {
    for (const item of items) this.set(item);
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

/**
 * Applications, hosts, instances and agent runs in PostgreSQL, shared by every node. Each node
 * holds them in memory (ingest resolves run ids without a query) and reloads what another node
 * changed when notified: the whole application tables (small) or the one run named. Agents may
 * connect to one node and send data to another: a run exists everywhere once its connect
 * committed and the notification arrived (milliseconds; agents harvest a minute later).
 *
 * When a run or instance was last heard from is kept per node and written in batches
 * (`HEARD_FLUSH_MS`), so idle expiry, run on the node holding the background lease, sees the
 * data calls every node served.
 */
export class PgApplications implements ApplicationCatalog, AgentRuns {
  private apps = new Map<number, Application>();
  private hosts = new ByApplication<Host>();
  private instances = new ByApplication<Instance>();
  private readonly runs = new Map<string, AgentRun>();
  private readonly calls = new RunCalls();
  private readonly heardRuns = new Map<string, number>();
  private readonly heardInstances = new Map<number, number>();
  private flushTimer: NodeJS.Timeout | undefined;
  /**
   * One `whileApplicationExists` at a time on this node, as the embedded catalog's lock: its work
   * runs while a pooled connection holds the row, and writes on others, so unbounded ones could
   * hold every connection of the pool and wait for one forever.
   */
  private readonly existing = new Mutex();

  constructor(private readonly db: PostgresDatabase, private readonly clock: Clock, feed: PgChangeFeed, private readonly deps: PgApplicationDeps = {}) {
    feed.on(APPS, (appId) => (appId === undefined ? this.loadApplications() : this.loadApplication(Number(appId))));
    feed.on(RUNS, (runId) => (runId === undefined ? this.loadRuns() : this.loadRun(runId)));
  }

  async load(): Promise<void> {
    await this.loadApplications();
    await this.loadRuns();
    this.flushTimer = setInterval(() => void this.flushHeard().catch(() => undefined), HEARD_FLUSH_MS);
    this.flushTimer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.flushHeard().catch(() => undefined);
  }

  private async loadApplications(): Promise<void> {
    let apps: AppRow[] = [];
    let hosts: HostRow[] = [];
    let instances: InstanceRow[] = [];
    await this.db.transaction(async (c) => {
      await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      apps = (await c.query<AppRow>(`SELECT ${APP_COLUMNS} FROM applications ORDER BY id`)).rows;
      hosts = (await c.query<HostRow>('SELECT id, account_id, app_id, name FROM hosts ORDER BY id')).rows;
      instances = (await c.query<InstanceRow>('SELECT id, account_id, app_id, host_id, pid, port, agent_version FROM instances ORDER BY id')).rows;
    });
    const before = this.apps;
    this.apps = new Map(apps.map((r) => [r.id, appOf(r)]));
    this.hosts = new ByApplication(hosts.map(hostOf));
    this.instances = new ByApplication(instances.map(instanceOf));
    // An application another node deleted: what this node holds of it in memory goes too.
    for (const id of before.keys()) if (!this.apps.has(id)) this.forgetElsewhere(id);
  }

  /** One application with its hosts and instances, as another node left it (a connect, a change, its deletion). */
  private async loadApplication(appId: number): Promise<void> {
    let app: AppRow | undefined;
    let hosts: HostRow[] = [];
    let instances: InstanceRow[] = [];
    await this.db.transaction(async (c) => {
      await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      app = (await c.query<AppRow>(`SELECT ${APP_COLUMNS} FROM applications WHERE id = $1`, [appId])).rows[0];
      hosts = (await c.query<HostRow>('SELECT id, account_id, app_id, name FROM hosts WHERE app_id = $1 ORDER BY id', [appId])).rows;
      instances = (await c.query<InstanceRow>('SELECT id, account_id, app_id, host_id, pid, port, agent_version FROM instances WHERE app_id = $1 ORDER BY id', [appId])).rows;
    });
    const had = this.apps.has(appId);
    this.hosts.deleteApplication(appId);
    this.instances.deleteApplication(appId);
    if (app === undefined) {
      this.apps.delete(appId);
      if (had) this.forgetElsewhere(appId);
      return;
    }
    this.apps.set(appId, appOf(app));
    for (const h of hosts) this.hosts.set(hostOf(h));
    for (const i of instances) this.instances.set(instanceOf(i));
  }

  private async loadRuns(): Promise<void> {
    const rows = (await this.db.pool.query<RunRow>('SELECT run_id, account_id, targets, shutdown_at FROM agent_runs')).rows;
    const known = new Map(this.runs);
    this.runs.clear();
    for (const r of rows) this.runs.set(r.run_id, this.newest(runOf(r), known.get(r.run_id)));
  }

  private async loadRun(runId: string): Promise<void> {
    const row = (await this.db.pool.query<RunRow>('SELECT run_id, account_id, targets, shutdown_at FROM agent_runs WHERE run_id = $1', [runId])).rows[0];
    if (row) this.runs.set(runId, this.newest(runOf(row), this.runs.get(runId)));
    else this.runs.delete(runId);
  }

  /**
   * A run read back from PostgreSQL, never less shut down than this node already knows it: a reload
   * whose SELECT ran before this node's own shutdown committed must not revive the run in memory.
   */
  private newest(loaded: AgentRun, known: AgentRun | undefined): AgentRun {
    return known?.shutdown === true && !loaded.shutdown ? { ...loaded, shutdown: true } : loaded;
  }

  private forgetElsewhere(appId: number): void {
    this.deps.metrics?.forgetApplication(appId);
    for (const d of this.deps.dependents ?? []) d.forgetApplication(appId);
  }

  application(id: number): Application | undefined {
    return this.apps.get(id);
  }

  applications(accountId: number): Application[] {
    return [...this.apps.values()].filter((a) => a.accountId === accountId);
  }

  host(id: number): Host | undefined {
    return this.hosts.byId.get(id);
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

  allRuns(): Iterable<AgentRun> {
    return this.runs.values();
  }

  async connect(accountId: number, reported: ConnectFacts): Promise<{ run: AgentRun; primary: Application }> {
    const facts: ConnectFacts = {
      ...reported, appNames: reported.appNames.map((n) => withoutNul(n)), language: withoutNul(reported.language), agentVersion: withoutNul(reported.agentVersion),
      host: withoutNul(reported.host), displayHost: withoutNul(reported.displayHost), userAgent: withoutNul(reported.userAgent),
    };
    const now = this.clock.now();
    const runId = randomBytes(18).toString('base64url');
    const made = await this.db.transaction(async (c) => {
      const targets: RunTarget[] = [];
      const apps: Application[] = [];
      const hosts: Host[] = [];
      const instances: Instance[] = [];
      for (const name of facts.appNames) {
        // Found, else created: an INSERT only when there is none, so identities advance only for new
        // rows and ids come out as dense as the embedded catalog's. ON CONFLICT covers another node
        // creating the same row in between. A language is taken once.
        const app = appOf(await findOrCreate(c,
          `SELECT ${APP_COLUMNS} FROM applications WHERE account_id = $1 AND agent_name = $2`, [accountId, name],
          `INSERT INTO applications (account_id, name, agent_name, language, apdex_t, end_user_apdex_t, enable_real_user_monitoring, use_server_side_config, created_at)
           VALUES ($1, $2, $2, $3, $4, $5, false, false, $6) ON CONFLICT (account_id, agent_name) DO NOTHING RETURNING ${APP_COLUMNS}`,
          [accountId, name, facts.language, DEFAULT_APDEX_T, DEFAULT_END_USER_APDEX_T, now],
          (row: AppRow) => (row.language === null && facts.language !== null
            ? c.query<AppRow>(`UPDATE applications SET language = $2 WHERE id = $1 RETURNING ${APP_COLUMNS}`, [row.id, facts.language]).then((r) => r.rows[0]!)
            : row),
        ));
        apps.push(app);
        if (targets.some((t) => t.appId === app.id)) continue;
        const host = hostOf(await findOrCreate(c,
          'SELECT id, account_id, app_id, name FROM hosts WHERE app_id = $1 AND name = $2', [app.id, facts.host],
          `INSERT INTO hosts (account_id, app_id, name, display_name, created_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (app_id, name) DO NOTHING RETURNING id, account_id, app_id, name`,
          [accountId, app.id, facts.host, facts.displayHost, now],
        ));
        // The same process (host, pid, port) reconnecting is the same instance; its agent version and
        // when it was heard from follow the latest connect.
        const instance = instanceOf(await findOrCreate(c,
          `SELECT id, account_id, app_id, host_id, pid, port, agent_version FROM instances
           WHERE host_id = $1 AND coalesce(pid, -1) = coalesce($2::int, -1) AND coalesce(port, -1) = coalesce($3::int, -1)`,
          [host.id, facts.pid, facts.port],
          `INSERT INTO instances (account_id, app_id, host_id, pid, port, language, agent_version, created_at, last_heard_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) ON CONFLICT (host_id, (coalesce(pid, -1)), (coalesce(port, -1))) DO NOTHING
           RETURNING id, account_id, app_id, host_id, pid, port, agent_version`,
          [accountId, app.id, host.id, facts.pid, facts.port, facts.language, facts.agentVersion, now],
          (row: InstanceRow) => c.query<InstanceRow>(
            `UPDATE instances SET agent_version = $2, last_heard_at = greatest(last_heard_at, $3) WHERE id = $1
             RETURNING id, account_id, app_id, host_id, pid, port, agent_version`,
            [row.id, facts.agentVersion, now],
          ).then((r) => r.rows[0]!),
        ));
        hosts.push(host);
        instances.push(instance);
        targets.push({ appId: app.id, hostId: host.id, instanceId: instance.id });
      }
      const primary = apps[0];
      if (!primary) throw new Error('connect names no application');
      await c.query('INSERT INTO agent_runs VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, $8)', [
        runId, accountId, primary.id, JSON.stringify(targets.map((t) => [t.appId, t.hostId, t.instanceId])), facts.agentVersion, facts.language, facts.userAgent, now,
      ]);
      for (const appId of new Set(apps.map((a) => a.id))) await notifyChange(c, APPS, String(appId));
      await notifyChange(c, RUNS, runId);
      return { apps, hosts, instances, targets, primary };
    });
    for (const app of made.apps) this.apps.set(app.id, app);
    for (const host of made.hosts) this.hosts.set(host);
    for (const instance of made.instances) this.instances.set(instance);
    const run: AgentRun = { runId, accountId, targets: made.targets, shutdown: false };
    this.runs.set(runId, run);
    return { run, primary: made.primary };
  }

  async updateApplication(id: number, changes: ApplicationChanges): Promise<Application> {
    const name = checkedApplicationChanges(changes);
    if (name !== undefined) refuseNul(name, 'an application name');
    const updated = await this.db.transaction(async (c) => {
      const row = (await c.query<AppRow>(`SELECT ${APP_COLUMNS} FROM applications WHERE id = $1 FOR UPDATE`, [id])).rows[0];
      if (!row) throw new ApplicationNotFoundError(id);
      const app = appOf(row);
      const agentSettings = changes.agentSettings === undefined ? app.agentSettings : applySettingsPatch(app.agentSettings, changes.agentSettings);
      validateApmAgentSettings(agentSettings);
      const next: Application = {
        ...app,
        name: name ?? app.name,
        apdexT: changes.apdexT ?? app.apdexT,
        endUserApdexT: changes.endUserApdexT ?? app.endUserApdexT,
        enableRealUserMonitoring: changes.enableRealUserMonitoring ?? app.enableRealUserMonitoring,
        useServerSideConfig: changes.useServerSideConfig ?? app.useServerSideConfig,
        agentSettings,
      };
      await c.query(
        `UPDATE applications SET name = $1, apdex_t = $2, end_user_apdex_t = $3, enable_real_user_monitoring = $4,
           use_server_side_config = $5, agent_settings = $6 WHERE id = $7`,
        [
          next.name, next.apdexT, next.endUserApdexT, next.enableRealUserMonitoring, next.useServerSideConfig,
          isDeepStrictEqual(next.agentSettings, DEFAULT_APM_AGENT_SETTINGS) ? null : JSON.stringify(next.agentSettings), id,
        ],
      );
      await notifyChange(c, APPS, String(id));
      return next;
    });
    this.apps.set(id, updated);
    return updated;
  }

  async whileApplicationExists<T>(id: number, work: (app: Application) => Promise<T>): Promise<T> {
    // The row held FOR UPDATE: a deletion, or the same call, on any node waits for `work`, and `work`
    // never sees a deleted application (nor two of them the state before the other's change).
    return this.existing.run(() => this.db.transaction(async (c) => {
      const row = (await c.query<AppRow>(`SELECT ${APP_COLUMNS} FROM applications WHERE id = $1 FOR UPDATE`, [id])).rows[0];
      if (!row) throw new ApplicationNotFoundError(id);
      return work(appOf(row));
    }));
  }

  holdRun(runId: string): () => void {
    return this.calls.hold(runId, () => this.heard(runId));
  }

  private heard(runId: string): void {
    const run = this.runs.get(runId);
    if (!run) return;
    const now = this.clock.now();
    this.heardRuns.set(runId, now);
    for (const t of run.targets) this.heardInstances.set(t.instanceId, now);
  }

  /** Writes when this node last heard from runs and instances. */
  async flushHeard(): Promise<void> {
    if (this.heardRuns.size === 0 && this.heardInstances.size === 0) return;
    const runs = [...this.heardRuns];
    const instances = [...this.heardInstances];
    this.heardRuns.clear();
    this.heardInstances.clear();
    // Not written (the database unreachable): kept for the next flush, unless heard from again meanwhile.
    const restore = () => {
      for (const [id, at] of runs) if ((this.heardRuns.get(id) ?? -Infinity) < at) this.heardRuns.set(id, at);
      for (const [id, at] of instances) if ((this.heardInstances.get(id) ?? -Infinity) < at) this.heardInstances.set(id, at);
    };
    await this.db.transaction(async (c) => {
      await c.query(
        `UPDATE agent_runs r SET last_heard_at = greatest(r.last_heard_at, v.at)
         FROM unnest($1::text[], $2::bigint[]) AS v(id, at) WHERE r.run_id = v.id`,
        [runs.map(([id]) => id), runs.map(([, at]) => at)],
      );
      await c.query(
        `UPDATE instances i SET last_heard_at = greatest(i.last_heard_at, v.at)
         FROM unnest($1::int[], $2::bigint[]) AS v(id, at) WHERE i.id = v.id`,
        [instances.map(([id]) => id), instances.map(([, at]) => at)],
      );
    }).catch((error: unknown) => {
      restore();
      throw error;
    });
  }

  async shutdownRun(runId: string): Promise<void> {
    const run = this.runs.get(runId);
    if (!run || run.shutdown) return;
    await this.markShutdown([run]);
  }

  /** In memory first, in the same turn, so this node refuses data calls on them from here on. */
  private async markShutdown(runs: readonly AgentRun[]): Promise<void> {
    const active = runs.filter((r) => !r.shutdown);
    if (active.length === 0) return;
    for (const run of active) this.runs.set(run.runId, { ...run, shutdown: true });
    const now = this.clock.now();
    await this.db.transaction(async (c) => {
      await c.query('UPDATE agent_runs SET shutdown_at = $1, last_heard_at = greatest(last_heard_at, $1) WHERE run_id = ANY($2)', [now, active.map((r) => r.runId)]);
      for (const run of active) await notifyChange(c, RUNS, run.runId);
    });
  }

  private callsEnded(runId: string): Promise<void> {
    return this.calls.ended(runId);
  }

  async deleteApplication(id: number): Promise<void> {
    if (!this.apps.has(id)) await this.loadApplications();
    if (!this.apps.has(id)) throw new ApplicationNotFoundError(id);
    const runs = [...this.runs.values()].filter((r) => r.targets.some((t) => t.appId === id));
    await this.markShutdown(runs);
    await Promise.all(runs.map((run) => this.callsEnded(run.runId)));
    await this.db.transaction(async (c) => {
      if ((await c.query('SELECT 1 FROM applications WHERE id = $1 FOR UPDATE', [id])).rowCount === 0) throw new ApplicationNotFoundError(id);
      await this.deps.deleteApplicationData?.(id);
      await c.query('DELETE FROM instances WHERE app_id = $1', [id]);
      await c.query('DELETE FROM hosts WHERE app_id = $1', [id]);
      // Its key transactions and browser side go with it.
      await c.query('DELETE FROM entities WHERE kind = ANY($1) AND app_id = $2', [APPLICATION_ENTITY_KINDS, id]);
      await c.query('DELETE FROM metric_presence WHERE app_id = $1', [id]);
      await c.query('DELETE FROM metric_reported WHERE app_id = $1', [id]);
      await c.query('DELETE FROM applications WHERE id = $1', [id]);
      await notifyChange(c, APPS, String(id));
      await notifyApplicationEntitiesGone(c);
    });
    this.apps.delete(id);
    this.hosts.deleteApplication(id);
    this.instances.deleteApplication(id);
    this.forgetElsewhere(id);
  }

  async expireIdle(): Promise<ExpiredEntries> {
    const expiry = this.deps.expiry ?? DEFAULT_IDLE_EXPIRY;
    await this.flushHeard();
    const now = this.clock.now();
    const result = await this.db.transaction(async (c) => {
      const idleRuns = (await c.query<{ run_id: string }>(
        'SELECT run_id FROM agent_runs WHERE greatest(connected_at, coalesce(shutdown_at, connected_at), last_heard_at) < $1 FOR UPDATE',
        [now - expiry.runIdleMs],
      )).rows.map((r) => r.run_id).filter((id) => !this.calls.busy(id));
      const targeted = new Set<number>();
      for (const r of (await c.query<RunRow>('SELECT run_id, account_id, targets, shutdown_at FROM agent_runs WHERE NOT (run_id = ANY($1))', [idleRuns])).rows) {
        for (const t of runOf(r).targets) targeted.add(t.instanceId);
      }
      const reportedAt = this.deps.metrics?.lastReportedAt?.bind(this.deps.metrics);
      const instances = (await c.query<InstanceRow & { last_heard_at: number }>(
        'SELECT id, account_id, app_id, host_id, pid, port, agent_version, last_heard_at FROM instances WHERE last_heard_at < $1 FOR UPDATE',
        [now - expiry.instanceIdleMs],
      )).rows.filter((i) => !targeted.has(i.id) && (reportedAt?.({ appId: i.app_id, instanceId: i.id }) ?? -Infinity) < now - expiry.instanceIdleMs);
      if (idleRuns.length === 0 && instances.length === 0) return { runs: 0, instances: 0, hosts: 0 };
      await c.query('DELETE FROM agent_runs WHERE run_id = ANY($1)', [idleRuns]);
      await c.query('DELETE FROM instances WHERE id = ANY($1)', [instances.map((i) => i.id)]);
      const hosts = await c.query(
        'DELETE FROM hosts h WHERE id = ANY($1) AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.host_id = h.id) RETURNING id',
        [[...new Set(instances.map((i) => i.host_id))]],
      );
      await notifyChange(c, APPS);
      await notifyChange(c, RUNS);
      return { runs: idleRuns.length, instances: instances.length, hosts: hosts.rowCount ?? 0 };
    });
    await this.loadApplications();
    await this.loadRuns();
    return result;
  }
}

/**
 * The row `select` finds (passed through `existing` when given), else the one `insert` makes; when
 * another transaction inserted it in between (the insert conflicts and returns nothing), the one it made.
 */
async function findOrCreate<R extends pg.QueryResultRow>(
  c: pg.PoolClient,
  select: string,
  selectParams: unknown[],
  insert: string,
  insertParams: unknown[],
  existing?: (row: R) => R | Promise<R>,
): Promise<R> {
  const found = (await c.query<R>(select, selectParams)).rows[0];
  if (found) return existing ? existing(found) : found;
  const made = (await c.query<R>(insert, insertParams)).rows[0];
  if (made) return made;
  const raced = (await c.query<R>(select, selectParams)).rows[0]!;
  return existing ? existing(raced) : raced;
}
