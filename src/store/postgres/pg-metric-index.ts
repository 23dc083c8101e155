import type { Clock } from '../../clock.js';
import type { Rows } from '../append-tables.js';
import { StoreBusyError, type BatchWriter, type WriteTicket } from '../batch-writer.js';
import { MAX_METRIC_NAMES_PER_APP, type MetricIndex, type MetricIndexOptions, type MetricScope, type MetricWrite } from '../metric-index.js';
import { namesPastLimit, withoutDropped } from '../metric-name-limit.js';
import { notifyChange, type PgChangeFeed } from './pg-change-feed.js';
import type { PostgresDatabase } from './pg-database.js';
import { withoutNul } from './pg-text.js';

const NAMES = 'metric_names';
const PRESENCE = 'metric_presence';
const REPORTED = 'metric_reported';

/** How often a node writes when its instances last stored metric data (REST's reporting state reads it). */
export const REPORTED_FLUSH_MS = 5_000;

interface Reporter {
  readonly hostId: number;
  readonly metrics: Set<number>;
  lastReportedAt: number | undefined;
}

/**
 * The metric index in PostgreSQL, for a data store shared by several nodes: metric and scope names
 * get their ids from one table (`INSERT … ON CONFLICT`), so every node gives a name the same id
 * whichever saw it first; presence rows are shared too. Each node holds both in memory and loads
 * what another node added when notified (new names by id, an application's presence whole).
 *
 * Unlike the embedded index, where names and presence commit in the data's transaction, here they
 * commit in PostgreSQL before the data is written: a data write that then fails leaves a name or a
 * presence row without data, which the agent's resend fills (REST lists the name meanwhile). When
 * PostgreSQL cannot be reached the write is refused with `StoreBusyError` (agents retry), before any
 * data is written. When each instance last stored metric data is written every `REPORTED_FLUSH_MS`.
 */
export class PgMetricIndex implements MetricIndex {
  private readonly ids = new Map<string, number>();
  private readonly names = new Map<number, string>();
  private readonly reporters = new Map<number, Map<number, Reporter>>();
  private readonly appMetrics = new Map<number, Set<number>>();
  private readonly reported = new Map<string, { appId: number; hostId: number; instanceId: number; at: number }>();
  private readonly maxMetricNamesPerApp: number;
  private flushTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly db: PostgresDatabase,
    private readonly writer: BatchWriter,
    private readonly clock: Clock,
    feed: PgChangeFeed,
    options: MetricIndexOptions,
  ) {
    this.maxMetricNamesPerApp = options.maxMetricNamesPerApp ?? MAX_METRIC_NAMES_PER_APP;
    feed.on(NAMES, (fromId) => this.loadNames(fromId === undefined ? 0 : Number(fromId)));
    feed.on(PRESENCE, (appId) => this.loadPresence(appId === undefined ? undefined : Number(appId)));
    feed.on(REPORTED, () => this.loadReported());
  }

  static async load(db: PostgresDatabase, writer: BatchWriter, clock: Clock, feed: PgChangeFeed, options: MetricIndexOptions = {}): Promise<PgMetricIndex> {
    const index = new PgMetricIndex(db, writer, clock, feed, options);
    await index.loadNames(0);
    await index.loadPresence(undefined);
    await index.loadReported();
    index.flushTimer = setInterval(() => void index.flushReported().catch(() => undefined), REPORTED_FLUSH_MS);
    index.flushTimer.unref();
    return index;
  }

  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.flushReported().catch(() => undefined);
  }

  private async loadNames(fromId: number): Promise<void> {
    const { rows } = await this.db.pool.query<{ id: number; name: string }>('SELECT id, name FROM metric_names WHERE id >= $1', [fromId]);
    for (const r of rows) {
      this.ids.set(r.name, r.id);
      this.names.set(r.id, r.name);
    }
  }

  private async loadPresence(appId: number | undefined): Promise<void> {
    const { rows } = appId === undefined
      ? await this.db.pool.query<{ app_id: number; host_id: number; instance_id: number; metric_id: number }>('SELECT app_id, host_id, instance_id, metric_id FROM metric_presence')
      : await this.db.pool.query<{ app_id: number; host_id: number; instance_id: number; metric_id: number }>(
        'SELECT app_id, host_id, instance_id, metric_id FROM metric_presence WHERE app_id = $1', [appId]);
    for (const r of rows) {
      this.reporter(r.app_id, r.host_id, r.instance_id).metrics.add(r.metric_id);
      this.metricsOfApp(r.app_id).add(r.metric_id);
    }
  }

  private async loadReported(): Promise<void> {
    const { rows } = await this.db.pool.query<{ app_id: number; host_id: number; instance_id: number; last_ms: number }>(
      'SELECT app_id, host_id, instance_id, last_ms FROM metric_reported');
    for (const r of rows) {
      const reporter = this.reporter(r.app_id, r.host_id, r.instance_id);
      if (reporter.lastReportedAt === undefined || reporter.lastReportedAt < r.last_ms) reporter.lastReportedAt = r.last_ms;
    }
  }

  /** Writes when this node's instances last stored metric data, and tells the other nodes. */
  async flushReported(): Promise<void> {
    if (this.reported.size === 0) return;
    const entries = [...this.reported.entries()];
    this.reported.clear();
    await this.db.transaction(async (c) => {
      await c.query(
        `INSERT INTO metric_reported SELECT * FROM unnest($1::int[], $2::int[], $3::int[], $4::bigint[])
         ON CONFLICT (app_id, instance_id) DO UPDATE SET last_ms = greatest(metric_reported.last_ms, EXCLUDED.last_ms)`,
        [entries.map(([, e]) => e.appId), entries.map(([, e]) => e.hostId), entries.map(([, e]) => e.instanceId), entries.map(([, e]) => e.at)],
      );
      await notifyChange(c, REPORTED);
    }).catch((error: unknown) => {
      // Not written (the database unreachable): kept for the next flush, unless reported again meanwhile.
      for (const [key, e] of entries) if ((this.reported.get(key)?.at ?? -Infinity) < e.at) this.reported.set(key, e);
      throw error;
    });
  }

  async write(reported: MetricWrite, build: (ids: ReadonlyMap<string, number>) => Rows[], ticket?: WriteTicket): Promise<void> {
    // Names as PostgreSQL can hold them; `build` gets the ids by the names the harvest used.
    const asStored = new Map(reported.names.map((n) => [withoutNul(n), n]));
    let write: MetricWrite = { ...reported, names: reported.names.map((n) => withoutNul(n)), unscoped: reported.unscoped.map((n) => withoutNul(n)) };
    const { droppedFor, errors } = namesPastLimit(write, (appId) => this.metricsOfApp(appId), (name) => this.ids.get(name), this.maxMetricNamesPerApp, this.clock.now());
    const appIds = new Set(write.targets.map((t) => t.appId));
    if (droppedFor.size === appIds.size) {
      const everywhere = (name: string) => [...droppedFor.values()].every((names) => names.has(name));
      write = { ...write, names: write.names.filter((n) => !everywhere(n)), unscoped: write.unscoped.filter((n) => !everywhere(n)) };
    }
    const fresh = [...new Set(write.names.filter((name) => !this.ids.has(name)))];
    const presence: { appId: number; hostId: number; instanceId: number; name: string }[] = [];
    for (const t of write.targets) {
      const reporter = this.reporter(t.appId, t.hostId, t.instanceId);
      const dropped = droppedFor.get(t.appId);
      for (const name of new Set(write.unscoped)) {
        if (dropped?.has(name)) continue;
        const id = this.ids.get(name);
        if (id === undefined || !reporter.metrics.has(id)) presence.push({ ...t, name });
      }
    }
    if (fresh.length > 0 || presence.length > 0) {
      try {
        await this.introduce(write.accountId, fresh, presence);
      } catch (error) {
        ticket?.release();
        throw new StoreBusyError(`the shared metric index cannot be written: ${(error as Error).message}`);
      }
    }
    const ids = new Map<string, number>();
    for (const name of write.names) ids.set(asStored.get(name) ?? name, this.ids.get(name)!);
    const droppedAsReported = new Map([...droppedFor].map(([appId, names]) => [appId, new Set([...names].map((n) => asStored.get(n) ?? n))]));
    const built = droppedFor.size > 0 ? withoutDropped(build(ids), droppedAsReported, ids) : build(ids);
    await this.writer.write([...(errors ? [errors] : []), ...built], ticket);
    const now = this.clock.now();
    for (const t of write.targets) {
      this.reporter(t.appId, t.hostId, t.instanceId).lastReportedAt = now;
      this.reported.set(`${t.appId}/${t.instanceId}`, { ...t, at: now });
    }
  }

  /** Names get ids and targets get presence rows in one transaction; this node's memory takes them once it committed. */
  private async introduce(accountId: number, fresh: string[], presence: { appId: number; hostId: number; instanceId: number; name: string }[]): Promise<void> {
    const names = [...new Set([...fresh, ...presence.map((p) => p.name)])];
    const got = await this.db.transaction(async (c) => {
      let minNew: number | undefined;
      if (fresh.length > 0) {
        const inserted = await c.query<{ id: number }>('INSERT INTO metric_names (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING RETURNING id', [fresh]);
        for (const r of inserted.rows) minNew = Math.min(minNew ?? r.id, r.id);
      }
      const { rows } = await c.query<{ id: number; name: string }>('SELECT id, name FROM metric_names WHERE name = ANY($1::text[])', [names]);
      const byName = new Map(rows.map((r) => [r.name, r.id]));
      if (presence.length > 0) {
        await c.query(
          `INSERT INTO metric_presence SELECT * FROM unnest($1::int[], $2::int[], $3::int[], $4::int[], $5::int[]) ON CONFLICT DO NOTHING`,
          [presence.map(() => accountId), presence.map((p) => p.appId), presence.map((p) => p.hostId), presence.map((p) => p.instanceId), presence.map((p) => byName.get(p.name)!)],
        );
        for (const appId of new Set(presence.map((p) => p.appId))) await notifyChange(c, PRESENCE, String(appId));
      }
      if (minNew !== undefined) await notifyChange(c, NAMES, String(minNew));
      return byName;
    });
    for (const [name, id] of got) {
      this.ids.set(name, id);
      this.names.set(id, name);
    }
    for (const p of presence) {
      const id = got.get(p.name)!;
      this.reporter(p.appId, p.hostId, p.instanceId).metrics.add(id);
      this.metricsOfApp(p.appId).add(id);
    }
  }

  metricId(name: string): number | undefined {
    return this.ids.get(withoutNul(name));
  }

  nameOf(id: number): string | undefined {
    return this.names.get(id);
  }

  *entries(): Iterable<readonly [id: number, name: string]> {
    for (const [id, name] of this.names) yield [id, name];
  }

  metricNames(scope: MetricScope): string[] {
    const ids = new Set<number>();
    for (const reporter of this.reportersIn(scope)) for (const id of reporter.metrics) ids.add(id);
    return [...ids].flatMap((id) => this.names.get(id) ?? []).sort();
  }

  knows(scope: MetricScope, name: string): boolean {
    const id = this.ids.get(withoutNul(name));
    if (id === undefined) return false;
    for (const reporter of this.reportersIn(scope)) if (reporter.metrics.has(id)) return true;
    return false;
  }

  lastReportedAt(scope: MetricScope): number | undefined {
    let last: number | undefined;
    for (const reporter of this.reportersIn(scope)) {
      if (reporter.lastReportedAt !== undefined && (last === undefined || reporter.lastReportedAt > last)) last = reporter.lastReportedAt;
    }
    return last;
  }

  forgetApplication(appId: number): void {
    this.reporters.delete(appId);
    this.appMetrics.delete(appId);
    for (const [key, entry] of this.reported) if (entry.appId === appId) this.reported.delete(key);
  }

  /**
   * Instances (and hosts) not in `live` left the catalog: their entries fold into one per host (or,
   * once the host is gone too, per application), so names and reporting times are unchanged.
   * Keys: an instance's id; -hostId for a host's retired instances; 0 for the application's retired hosts.
   */
  retireInstances(live: { readonly instances: ReadonlySet<number>; readonly hosts: ReadonlySet<number> }): void {
    for (const byInstance of this.reporters.values()) {
      for (const [key, reporter] of [...byInstance]) {
        const into = key > 0 && !live.instances.has(key) ? (live.hosts.has(reporter.hostId) ? -reporter.hostId : 0)
          : key < 0 && !live.hosts.has(-key) ? 0
          : undefined;
        if (into === undefined) continue;
        byInstance.delete(key);
        let target = byInstance.get(into);
        if (!target) byInstance.set(into, (target = { hostId: into === 0 ? 0 : reporter.hostId, metrics: new Set(), lastReportedAt: undefined }));
        for (const id of reporter.metrics) target.metrics.add(id);
        if (reporter.lastReportedAt !== undefined && !(target.lastReportedAt !== undefined && target.lastReportedAt >= reporter.lastReportedAt)) {
          target.lastReportedAt = reporter.lastReportedAt;
        }
      }
    }
  }

  get size(): number {
    return this.ids.size;
  }

  private metricsOfApp(appId: number): Set<number> {
    let known = this.appMetrics.get(appId);
    if (!known) this.appMetrics.set(appId, (known = new Set()));
    return known;
  }

  private reporter(appId: number, hostId: number, instanceId: number): Reporter {
    let byInstance = this.reporters.get(appId);
    if (!byInstance) this.reporters.set(appId, (byInstance = new Map()));
    let reporter = byInstance.get(instanceId);
    if (!reporter) byInstance.set(instanceId, (reporter = { hostId, metrics: new Set(), lastReportedAt: undefined }));
    return reporter;
  }

  private *reportersIn(scope: MetricScope): Iterable<Reporter> {
    const byInstance = this.reporters.get(scope.appId);
    if (!byInstance) return;
    if (scope.instanceId !== undefined) {
      const reporter = byInstance.get(scope.instanceId);
      if (reporter && (scope.hostId === undefined || reporter.hostId === scope.hostId)) yield reporter;
      return;
    }
    for (const reporter of byInstance.values()) if (scope.hostId === undefined || reporter.hostId === scope.hostId) yield reporter;
  }
}
