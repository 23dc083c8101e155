import { TIMESLICE_TABLES } from './timeslice-tables.js';
import type { Clock } from '../../clock.js';
import type { BatchWriter, WriteTicket } from '../batch-writer.js';
import { MAX_METRIC_NAMES_PER_APP, type MetricIndex, type MetricIndexOptions, type MetricScope, type MetricWrite } from '../metric-index.js';
import { METRIC_NAMES, METRIC_PRESENCE, Rows } from '../append-tables.js';
import { namesPastLimit, withoutDropped } from '../metric-name-limit.js';
import type { Database } from './database.js';

const COMMITTED: Promise<void> = Promise.resolve();
/** Timeslices are filed under their minute: data filed at `ts` was stored by the end of that minute. */
const MINUTE_MS = 60_000;

interface NameEntry {
  readonly id: number;
  /** Settles when the name's row is committed; data referring to the id waits for it. */
  readonly persisted: Promise<void>;
}

/** What one instance of an application (on its host) has reported. */
interface Reporter {
  readonly hostId: number;
  /** Ids of the unscoped metrics whose presence row is committed. */
  readonly metrics: Set<number>;
  /** Presence rows in a write not yet committed, by metric id: settle with that write. */
  readonly pending: Map<number, Promise<void>>;
  /** Server time at which its last metric_data committed (at start: from the stored timeslices). */
  lastReportedAt: number | undefined;
}

/**
 * Metric and scope names as small integers, and which unscoped metrics each application, host
 * and instance has ever reported, and when it last did.
 *
 * Timeslice rows carry ids, not strings: appending integers is about twice as fast as strings,
 * and grouping and filtering by them is cheaper. REST lists an application's metric names and
 * tells a metric with no data in a window from one never reported; the presence rows
 * (`metric_presence`) answer both from memory instead of a scan of every timeslice.
 *
 * A new name's row and a new presence row commit in the transaction of the first data that
 * uses them, and no later data using them is acknowledged before that. Queries see only what
 * committed.
 *
 * An application reports at most `maxMetricNamesPerApp` distinct unscoped metric names (5000:
 * New Relic's metric grouping limit). A harvest's names past it are dropped for that application,
 * as metrics and as the scope of scoped metrics (a roll-up application at its limit does not stop
 * its primary, nor the other way round); the rest of the harvest is stored, with one
 * `NrIntegrationError` event per application saying how many names were dropped. Names reported
 * only scoped are not counted: agents report each scoped metric unscoped too, and the scope names
 * are transaction names, counted as metrics.
 */
export class DuckDbMetricIndex implements MetricIndex {
  private readonly ids = new Map<string, NameEntry>();
  private readonly names = new Map<number, string>();
  /** By application id, then instance id. */
  private readonly reporters = new Map<number, Map<number, Reporter>>();
  /** By application id: the unscoped metric ids any of its instances stored or is storing. */
  private readonly appMetrics = new Map<number, Set<number>>();
  private nextId = 1;
  private readonly maxMetricNamesPerApp: number;

  private constructor(private readonly writer: BatchWriter, private readonly clock: Clock, options: MetricIndexOptions) {
    this.maxMetricNamesPerApp = options.maxMetricNamesPerApp ?? MAX_METRIC_NAMES_PER_APP;
  }

  static async load(db: Database, writer: BatchWriter, clock: Clock, options: MetricIndexOptions = {}): Promise<DuckDbMetricIndex> {
    const index = new DuckDbMetricIndex(writer, clock, options);
    for (const r of await db.all<{ id: number; name: string }>('SELECT id, name FROM metric_names')) {
      index.ids.set(r.name, { id: r.id, persisted: COMMITTED });
      index.names.set(r.id, r.name);
      index.nextId = Math.max(index.nextId, r.id + 1);
    }
    for (const r of await db.all<{ app_id: number; host_id: number; instance_id: number; metric_id: number }>(
      'SELECT DISTINCT app_id, host_id, instance_id, metric_id FROM metric_presence',
    )) {
      index.reporter(r.app_id, r.host_id, r.instance_id).metrics.add(r.metric_id);
      index.metricsOfApp(r.app_id).add(r.metric_id);
    }
    for (const r of await db.all<{ app_id: number; host_id: number; instance_id: number; last: bigint }>(
      `SELECT app_id, host_id, instance_id, epoch_ms(max(ts)) AS last
       FROM (${TIMESLICE_TABLES.map((t) => `SELECT app_id, host_id, instance_id, ts FROM ${t}`).join(' UNION ALL ')})
       GROUP BY ALL`,
    )) {
      index.reporter(r.app_id, r.host_id, r.instance_id).lastReportedAt = Number(r.last) + MINUTE_MS;
    }
    return index;
  }

  /**
   * Writes the rows `build` makes with ids for `write.names`. Names seen for the first time get
   * ids here, and metrics a target reports for the first time get presence rows; both go into
   * the same write, so they commit in the same transaction as the data that introduces them.
   * Names and presence rows another write introduced and has not committed yet are waited for.
   * If the write fails, what it introduced is forgotten (the agent resends; it is introduced
   * again), and writes waiting for it fail too.
   *
   * Names past every target application's limit get no id, and `build` leaves out the rows that
   * use them; rows of an application past its limit that use names another target admitted are
   * taken out of what `build` returns.
   */
  async write(write: MetricWrite, build: (ids: ReadonlyMap<string, number>) => Rows[], ticket?: WriteTicket): Promise<void> {
    const { droppedFor, errors } = this.namesPastLimit(write);
    const appIds = new Set(write.targets.map((t) => t.appId));
    if (droppedFor.size === appIds.size) {
      const everywhere = (name: string) => [...droppedFor.values()].every((names) => names.has(name));
      write = { ...write, names: write.names.filter((n) => !everywhere(n)), unscoped: write.unscoped.filter((n) => !everywhere(n)) };
    }
    const ids = new Map<string, number>();
    const freshNames = new Rows(METRIC_NAMES);
    const freshPresence = new Rows(METRIC_PRESENCE);
    const others = new Set<Promise<void>>();
    const createdNames: string[] = [];
    const createdPresence: [Reporter, number][] = [];
    let settle!: { resolve: () => void; reject: (e: Error) => void };
    const persisted = new Promise<void>((resolve, reject) => { settle = { resolve, reject }; });
    persisted.catch(() => undefined);
    for (const name of write.names) {
      if (ids.has(name)) continue;
      let entry = this.ids.get(name);
      if (!entry) {
        entry = { id: this.nextId++, persisted };
        this.ids.set(name, entry);
        freshNames.push(entry.id, name);
        createdNames.push(name);
      } else if (entry.persisted !== COMMITTED) {
        others.add(entry.persisted);
      }
      ids.set(name, entry.id);
    }
    const reporters = write.targets.map((t) => this.reporter(t.appId, t.hostId, t.instanceId));
    try {
      for (const [i, target] of write.targets.entries()) {
        const reporter = reporters[i]!;
        const dropped = droppedFor.get(target.appId);
        for (const name of write.unscoped) {
          if (dropped?.has(name)) continue;
          const id = ids.get(name);
          if (id === undefined) throw new Error(`unscoped metric '${name}' is not among the write's names`);
          if (reporter.metrics.has(id)) continue;
          const other = reporter.pending.get(id);
          if (other) {
            if (other !== persisted) others.add(other);
            continue;
          }
          reporter.pending.set(id, persisted);
          freshPresence.push(write.accountId, target.appId, target.hostId, target.instanceId, id);
          createdPresence.push([reporter, id]);
          this.metricsOfApp(target.appId).add(id);
        }
      }
      await Promise.all(others);
      const built = droppedFor.size > 0 ? withoutDropped(build(ids), droppedFor, ids) : build(ids);
      await this.writer.write([freshNames, freshPresence, ...(errors ? [errors] : []), ...built], ticket);
      for (const name of createdNames) {
        const id = ids.get(name)!;
        this.ids.set(name, { id, persisted: COMMITTED });
        this.names.set(id, name);
      }
      for (const [reporter, id] of createdPresence) {
        reporter.pending.delete(id);
        reporter.metrics.add(id);
      }
      const now = this.clock.now();
      for (const reporter of reporters) reporter.lastReportedAt = now;
      settle.resolve();
    } catch (error) {
      for (const name of createdNames) this.ids.delete(name);
      for (const [reporter, id] of createdPresence) reporter.pending.delete(id);
      for (const target of write.targets) {
        const known = this.metricsOfApp(target.appId);
        for (const [, id] of createdPresence) if (!this.appReports(target.appId, id)) known.delete(id);
      }
      settle.reject(error as Error);
      throw error;
    }
  }

  /** The dictionary id of a committed name (for SQL filters on `metric_id` / `scope_id`). */
  metricId(name: string): number | undefined {
    const entry = this.ids.get(name);
    return entry?.persisted === COMMITTED ? entry.id : undefined;
  }

  /** The committed name of a dictionary id (metric or scope), for showing `metric_id` / `scope_id` as names. */
  nameOf(id: number): string | undefined {
    const name = this.names.get(id);
    return name !== undefined && this.ids.get(name)?.persisted === COMMITTED ? name : undefined;
  }

  /** Every committed dictionary entry (metric and scope names alike), for matching names by pattern. */
  *entries(): Iterable<readonly [id: number, name: string]> {
    for (const [name, entry] of this.ids) if (entry.persisted === COMMITTED) yield [entry.id, name];
  }

  /** Every unscoped metric name ever stored for the scope, regardless of time, sorted. */
  metricNames(scope: MetricScope): string[] {
    const ids = new Set<number>();
    for (const reporter of this.reportersIn(scope)) for (const id of reporter.metrics) ids.add(id);
    return [...ids].flatMap((id) => this.names.get(id) ?? []).sort();
  }

  /** Whether the scope ever stored `name` as an unscoped metric. */
  knows(scope: MetricScope, name: string): boolean {
    const id = this.metricId(name);
    if (id === undefined) return false;
    for (const reporter of this.reportersIn(scope)) if (reporter.metrics.has(id)) return true;
    return false;
  }

  /** Epoch ms (server clock) when the scope's last metric_data was stored; undefined if never. */
  lastReportedAt(scope: MetricScope): number | undefined {
    let last: number | undefined;
    for (const reporter of this.reportersIn(scope)) {
      if (reporter.lastReportedAt !== undefined && (last === undefined || reporter.lastReportedAt > last)) last = reporter.lastReportedAt;
    }
    return last;
  }

  /** Drops an application's presence and reporting times (its rows are deleted by the catalog). */
  forgetApplication(appId: number): void {
    this.reporters.delete(appId);
    this.appMetrics.delete(appId);
  }

  private namesPastLimit(write: MetricWrite): { droppedFor: Map<number, Set<string>>; errors: Rows | undefined } {
    return namesPastLimit(write, (appId) => this.metricsOfApp(appId), (name) => this.ids.get(name)?.id, this.maxMetricNamesPerApp, this.clock.now());
  }

  private metricsOfApp(appId: number): Set<number> {
    let known = this.appMetrics.get(appId);
    if (!known) {
      known = new Set();
      this.appMetrics.set(appId, known);
    }
    return known;
  }

  /** Whether any instance of the application stored, or is storing, the unscoped metric. */
  private appReports(appId: number, id: number): boolean {
    for (const reporter of this.reporters.get(appId)?.values() ?? []) {
      if (reporter.metrics.has(id) || reporter.pending.has(id)) return true;
    }
    return false;
  }

  /**
   * Folds what instances no longer in the catalog reported into one entry per host (or, once the
   * host is gone too, per application): the names and last-reported times of the application and
   * its hosts stay what they were, and an expired instance keeps no memory of its own. Keys: an
   * instance's id; -hostId for a host's retired instances; 0 for the application's retired hosts.
   */
  retireInstances(live: { readonly instances: ReadonlySet<number>; readonly hosts: ReadonlySet<number> }): void {
    for (const byInstance of this.reporters.values()) {
      for (const [key, reporter] of [...byInstance]) {
        if (reporter.pending.size > 0) continue;
        const retiredKey = key > 0 && !live.instances.has(key) ? (live.hosts.has(reporter.hostId) ? -reporter.hostId : 0)
          : key < 0 && !live.hosts.has(-key) ? 0
          : undefined;
        if (retiredKey === undefined) continue;
        byInstance.delete(key);
        let into = byInstance.get(retiredKey);
        if (!into) {
          into = { hostId: retiredKey === 0 ? 0 : reporter.hostId, metrics: new Set(), pending: new Map(), lastReportedAt: undefined };
          byInstance.set(retiredKey, into);
        }
        for (const id of reporter.metrics) into.metrics.add(id);
        if (reporter.lastReportedAt !== undefined && !(into.lastReportedAt !== undefined && into.lastReportedAt >= reporter.lastReportedAt)) {
          into.lastReportedAt = reporter.lastReportedAt;
        }
      }
    }
  }

  /** Distinct names known, committed or not. */
  get size(): number {
    return this.ids.size;
  }

  private reporter(appId: number, hostId: number, instanceId: number): Reporter {
    let byInstance = this.reporters.get(appId);
    if (!byInstance) {
      byInstance = new Map();
      this.reporters.set(appId, byInstance);
    }
    let reporter = byInstance.get(instanceId);
    if (!reporter) {
      reporter = { hostId, metrics: new Set(), pending: new Map(), lastReportedAt: undefined };
      byInstance.set(instanceId, reporter);
    }
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
    for (const reporter of byInstance.values()) {
      if (scope.hostId === undefined || reporter.hostId === scope.hostId) yield reporter;
    }
  }
}
