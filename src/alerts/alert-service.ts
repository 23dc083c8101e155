import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { NrqlEngine } from '../nrql/nrql-engine.js';
import type { AlertRecords, Numbered, RestIdKind, RestIncidentQuery, RestIssueQuery, StoredCondition, StoredPolicy } from '../store/alert-records.js';
import { evaluationStepMs, type AlertPolicy, type EntityAlertSeverity, type IncidentPreference, type Incident, type Issue, type NrqlCondition } from '../domain/alerts/alert-model.js';
import { AlertEngine, incidentTargets, type AlertEvent, type AlertTarget } from '../domain/alerts/alert-engine.js';
import { buildNrqlCondition, type ConditionValidationError, type NrqlConditionInput } from '../domain/alerts/condition-input.js';
import { checkConditionQuery, readRange, type ReadWindow } from './condition-query.js';
import { readConditions, type ConditionRead } from './shared-reads.js';
import type { ConditionEvaluatorState, ExpectedTermination } from '../domain/alerts/condition-evaluator.js';
import type { Rows } from '../store/append-tables.js';
import { alertEventRows } from './alert-nrql-events.js';
import { NotificationConfigService, Notifier } from './notifier.js';
import { MutingRuleService } from './muting-rule-service.js';
import { IssueSettingsService } from './issue-settings-service.js';
import type { WebhookOptions } from './webhook-sender.js';
import type { LegacyContext } from './legacy-channels.js';
import { applicationOfIncident } from '../domain/alerts/incident-entity.js';

export interface AlertServiceDeps {
  readonly records: AlertRecords;
  readonly nrql: NrqlEngine;
  readonly clock: Clock;
  /**
   * Evaluation with no new data: a cycle this long after the last one started (default one minute;
   * 0 = only `evaluateOnce`, and no cycles on data either).
   */
  readonly intervalMs?: number;
  /** A cycle starts this long after ingest committed data, so a burst of harvests is read at once. */
  readonly settleMs?: number;
  /** Cycles started by data are at least this far apart (their CPU cost per minute is bounded by it). */
  readonly minGapMs?: number;
  /** Told of every alert event after it is committed (workflows, tests). */
  readonly onEvents?: (events: readonly AlertEvent[]) => void | Promise<void>;
  readonly log?: (message: string, error?: unknown) => void;
  /** Appends alerting's NRQL events (NrAiIncident, NrAiIssue, NrAiNotification, NrIntegrationError). */
  readonly writeEvents?: (rows: Rows[]) => Promise<void>;
  readonly webhook?: WebhookOptions;
  /** The service's public address, for links in notifications. */
  readonly origin?: () => string;
  /** Which entities ended expectedly (agents shut down), asked once per cycle: ignoreOnExpectedTermination. */
  readonly endedExpectedly?: () => ExpectedTermination;
  /** Account names and APM applications, for REST channels' payloads (account_name, targets). */
  readonly accountName?: (accountId: number) => string | undefined;
  readonly applications?: (accountId: number) => ReadonlyArray<{ readonly id: number; readonly name: string }>;
  /**
   * Whether opening sends the notifications left pending (default true). False where nodes share
   * the alert state: the node holding the background lease sends them, after `reload`.
   */
  readonly dispatchOnOpen?: boolean;
}

export const DEFAULT_SETTLE_MS = 500;
export const DEFAULT_MIN_GAP_MS = 3_000;

export class AlertValidationError extends Error {
  constructor(readonly validationErrors: readonly ConditionValidationError[]) {
    super('Validation Error');
  }
}

export class AlertNotFoundError extends Error {}

/** Per-cycle figures, for the benchmark and the logs. */
export interface EvaluationCycle {
  readonly conditions: number;
  readonly queries: number;
  readonly failures: number;
  readonly events: number;
  readonly elapsedMs: number;
  /** Of elapsedMs: waiting for the conditions' queries, and committing the cycle's changes (its transaction). */
  readonly queryMs: number;
  readonly commitMs: number;
  /** `performance.now()` when the cycle's transaction committed (its NrAi events are written after). */
  readonly committedAt: number;
  /** Process CPU time (DuckDB's threads included) while the cycle ran: other work interleaved counts too. */
  readonly cpuMs: number;
  /** The clock the cycle evaluated at. */
  readonly now: number;
  /** Incidents the cycle opened (committed). */
  readonly opened: readonly Incident[];
}

/**
 * Alerting in the server: policies and conditions kept in the store, an AlertEngine over them, and a
 * timer that evaluates every enabled condition each minute by running its query through the NRQL
 * engine (one signal per FACET tuple, only the condition's account). Each cycle's state change is
 * committed in one transaction before anyone is told, so a restart — even after kill -9 — resumes
 * from the last committed cycle. Configuration changes and cycles take turns.
 */
export class AlertService {
  private timer: NodeJS.Timeout | undefined;
  private dataTimer: NodeJS.Timeout | undefined;
  private started = false;
  /** A scheduled cycle waits in the queue (one is enough: it reads everything committed before it starts). */
  private cycleQueued = false;
  private lastCycleStart = Number.NEGATIVE_INFINITY;
  private readonly cycleListeners = new Set<(cycle: EvaluationCycle) => void>();
  /** Per condition, per (window, signal) read: its value and event count as last read (see `news`). */
  private readonly lastRead = new Map<string, Map<string, { windowStart: number; mark: string }>>();
  /** Per condition: the evaluator revision last committed (0, as loaded, when absent). */
  private readonly committedStates = new Map<string, number>();
  private queue: Promise<unknown> = Promise.resolve();
  /** Creation and update times by `p<id>`/`pu<id>` (policies) and `c<id>`/`cu<id>` (conditions). */
  private readonly createdAt = new Map<string, number>();

  readonly notifier: Notifier;
  readonly notifications: NotificationConfigService;
  readonly mutingRules: MutingRuleService;
  readonly issueSettings: IssueSettingsService;

  private constructor(
    private readonly deps: AlertServiceDeps,
    private current: AlertEngine,
  ) {
    this.notifier = new Notifier({
      records: deps.records, clock: deps.clock,
      ...(deps.writeEvents ? { writeEvents: deps.writeEvents } : {}), ...(deps.webhook ? { webhook: deps.webhook } : {}),
      ...(deps.origin ? { origin: deps.origin } : {}), ...(deps.log ? { log: deps.log } : {}),
    });
    this.notifications = new NotificationConfigService(this.notifier, deps.records, deps.clock);
    this.mutingRules = new MutingRuleService(deps.records, () => this.current, deps.clock, (work) => this.serial(work));
    this.issueSettings = new IssueSettingsService(deps.records, () => this.current, (work) => this.serial(work));
  }

  /** The engine over the state loaded last (at open, or by `reload`). */
  get engine(): AlertEngine {
    return this.current;
  }

  static async open(deps: AlertServiceDeps): Promise<AlertService> {
    const loaded = await AlertService.loadEngine(deps);
    const service = new AlertService(deps, loaded.engine);
    for (const [key, at] of loaded.times) service.createdAt.set(key, at);
    await service.notifier.load();
    await service.mutingRules.load();
    await service.issueSettings.load();
    // Notifications committed before a stop (or a kill) and not yet sent go out now, once.
    if (deps.dispatchOnOpen !== false) {
      void service.notifier.dispatch().catch((error: unknown) => deps.log?.('notification dispatch failed', error));
    }
    return service;
  }

  /**
   * Reads configuration and state from the store again, in turn with cycles and changes: where
   * several nodes share the alert state, what the others changed since this node loaded it (the
   * server calls it when its node gains the background lease, and when another node changed the
   * configuration). Then sends what is pending, unless told not to (a node not holding the lease).
   */
  reload(options: { readonly dispatch?: boolean } = {}): Promise<void> {
    return this.serial(async () => {
      const loaded = await AlertService.loadEngine(this.deps);
      this.current = loaded.engine;
      // New evaluators over the stored states: their revisions start again, and every window is new to them.
      this.committedStates.clear();
      this.lastRead.clear();
      // The same service objects (callers hold them), their rules and settings read again into the new engine.
      await this.mutingRules.load();
      await this.issueSettings.load();
      this.createdAt.clear();
      for (const [key, at] of loaded.times) this.createdAt.set(key, at);
      // Swapped in one turn: a dispatch running meanwhile never finds a channel missing.
      const config = await this.deps.records.loadNotificationConfig();
      this.notifier.destinations.clear();
      this.notifier.channels.clear();
      this.notifier.workflows.clear();
      for (const d of config.destinations) this.notifier.destinations.set(d.id, d);
      for (const c of config.channels) this.notifier.channels.set(c.id, c);
      for (const w of config.workflows) this.notifier.workflows.set(w.id, w);
      if (options.dispatch === false) return;
      void this.notifier.dispatch().catch((error: unknown) => this.deps.log?.('notification dispatch failed', error));
    });
  }

  /** An engine over the store's snapshot, and the policies' and conditions' creation and update times. */
  private static async loadEngine(deps: AlertServiceDeps): Promise<{ engine: AlertEngine; times: Map<string, number> }> {
    const snapshot = await deps.records.load();
    const issues: Record<string, Issue> = {};
    const openByKey: Record<string, string> = {};
    for (const issue of snapshot.openIssues) {
      issues[issue.id] = issue;
      openByKey[issue.key] = issue.id;
    }
    const evaluators: Record<string, ConditionEvaluatorState> = {};
    for (const [id, state] of snapshot.evaluatorStates) evaluators[id] = state;
    const incidents = Object.fromEntries(snapshot.incidents.map((i) => [i.id, i]));
    const engine = new AlertEngine({ evaluators, issues: { issues, openByKey }, incidents }, { newId: randomUUID });
    const times = new Map<string, number>();
    for (const p of snapshot.policies) {
      engine.setPolicy(p.policy);
      times.set(`p${p.policy.id}`, p.createdAt);
      times.set(`pu${p.policy.id}`, p.updatedAt);
    }
    for (const c of snapshot.conditions) {
      engine.setCondition(c.condition, deps.clock.now());
      times.set(`c${c.condition.id}`, c.createdAt);
      times.set(`cu${c.condition.id}`, c.updatedAt);
    }
    return { engine, times };
  }

  /**
   * Starts scheduled evaluation: a cycle `settleMs` after ingest commits data (`dataCommitted`), at
   * most one per `minGapMs`, so a window's closing data is evaluated seconds after it lands; and a
   * cycle `intervalMs` after the last one started when no data came (timers, cadence, loss of signal).
   */
  start(): void {
    const every = this.deps.intervalMs ?? 60_000;
    if (every <= 0 || this.started) return;
    this.started = true;
    this.scheduleTimed(every);
  }

  /** Ingest committed data: evaluate it soon. Cheap to call on every commit. */
  dataCommitted(): void {
    if (!this.started || this.dataTimer !== undefined || this.cycleQueued) return;
    const wait = Math.max(this.deps.settleMs ?? DEFAULT_SETTLE_MS, this.lastCycleStart + (this.deps.minGapMs ?? DEFAULT_MIN_GAP_MS) - performance.now());
    this.dataTimer = setTimeout(() => {
      this.dataTimer = undefined;
      this.runScheduled();
    }, wait);
    this.dataTimer.unref();
  }

  /** Figures of every cycle as it commits (the benchmark, logs). */
  onCycle(listener: (cycle: EvaluationCycle) => void): () => void {
    this.cycleListeners.add(listener);
    return () => this.cycleListeners.delete(listener);
  }

  /** Stops evaluating on the timer and on data, sending nothing more (this node lost the background lease). */
  pause(): void {
    this.started = false;
    clearTimeout(this.timer);
    clearTimeout(this.dataTimer);
    this.timer = undefined;
    this.dataTimer = undefined;
  }

  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    clearTimeout(this.dataTimer);
    this.timer = undefined;
    this.dataTimer = undefined;
    await this.queue.catch(() => undefined);
    await this.notifier.dispatch().catch(() => undefined);
  }

  private scheduleTimed(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.runScheduled(), delayMs);
    this.timer.unref();
  }

  private runScheduled(): void {
    if (!this.started || this.cycleQueued) return;
    this.cycleQueued = true;
    this.serial(async () => {
      this.cycleQueued = false;
      // Paused or stopped while this cycle waited its turn.
      if (!this.started) return;
      this.lastCycleStart = performance.now();
      this.scheduleTimed(this.deps.intervalMs ?? 60_000);
      await this.cycle();
    }).catch((error: unknown) => this.deps.log?.('alert evaluation failed', error));
  }

  /** Sends the pending notifications now and waits for them (tests; the service does it after each change). */
  flushNotifications(): Promise<void> {
    return this.notifier.dispatch();
  }

  // ---- configuration -------------------------------------------------------------------------

  policies(accountId: number): StoredPolicy[] {
    return this.allPolicies().filter((p) => p.policy.accountId === accountId);
  }

  conditions(accountId: number): StoredCondition[] {
    return this.engine
      .conditionIds()
      .map((id) => this.engine.condition(id)!)
      .filter((c) => c.accountId === accountId)
      .map((c) => ({ condition: c, createdAt: this.createdAt.get(`c${c.id}`) ?? 0, updatedAt: this.createdAt.get(`cu${c.id}`) ?? this.createdAt.get(`c${c.id}`) ?? 0 }))
      .sort((a, b) => Number(a.condition.id) - Number(b.condition.id));
  }

  createPolicy(accountId: number, name: string, incidentPreference: IncidentPreference = 'PER_POLICY'): Promise<StoredPolicy> {
    return this.serial(async () => {
      checkPolicyName(name);
      const id = String(await this.deps.records.nextId('policy'));
      const now = this.deps.clock.now();
      const stored = { policy: { id, accountId, name, incidentPreference }, createdAt: now, updatedAt: now };
      await this.deps.records.savePolicy(stored);
      this.engine.setPolicy(stored.policy);
      this.createdAt.set(`p${id}`, now);
      return stored;
    });
  }

  updatePolicy(accountId: number, id: string, patch: { name?: string; incidentPreference?: IncidentPreference }): Promise<StoredPolicy> {
    return this.serial(async () => {
      const current = this.ownPolicy(accountId, id);
      if (patch.name !== undefined) checkPolicyName(patch.name);
      const now = this.deps.clock.now();
      const policy: AlertPolicy = { ...current, ...(patch.name !== undefined ? { name: patch.name } : {}), ...(patch.incidentPreference !== undefined ? { incidentPreference: patch.incidentPreference } : {}) };
      const stored = { policy, createdAt: this.createdAt.get(`p${id}`) ?? now, updatedAt: now };
      await this.deps.records.savePolicy(stored);
      this.engine.setPolicy(policy);
      this.createdAt.set(`pu${id}`, now);
      return stored;
    });
  }

  deletePolicy(accountId: number, id: string): Promise<AlertPolicy> {
    return this.serial(async () => {
      const policy = this.ownPolicy(accountId, id);
      const ids = this.engine.conditionIds().filter((c) => this.engine.condition(c)!.policyId === id);
      await this.deps.records.deletePolicy(accountId, id);
      this.forgetConditions(ids);
      const events = this.engine.removePolicy(id, this.deps.clock.now());
      await this.commit(events, ids, []);
      return policy;
    });
  }

  /** Validates the condition and its query; stores it only when both are sound. */
  createCondition(accountId: number, policyId: string, input: NrqlConditionInput): Promise<StoredCondition> {
    return this.serial(async () => {
      this.ownPolicy(accountId, policyId);
      const withShape = this.withQueryShape(accountId, input);
      const check = buildNrqlCondition({ id: '0', accountId, policyId }, withShape);
      if (check.condition === null) throw new AlertValidationError(check.errors);
      const id = String(await this.deps.records.nextId('condition'));
      const now = this.deps.clock.now();
      const stored = { condition: { ...check.condition, id }, createdAt: now, updatedAt: now };
      await this.deps.records.saveCondition(stored);
      this.engine.setCondition(stored.condition, now);
      this.createdAt.set(`c${id}`, now);
      return stored;
    });
  }

  /** Applies a full condition input over the stored one (the caller merged absent fields). */
  updateCondition(accountId: number, id: string, merge: (current: NrqlCondition) => NrqlConditionInput): Promise<StoredCondition> {
    return this.serial(async () => {
      const current = this.engine.condition(id);
      if (current === undefined || current.accountId !== accountId) throw new AlertNotFoundError(`Condition ${id} Not Found`);
      const input = this.withQueryShape(accountId, merge(current));
      const check = buildNrqlCondition({ id, accountId, policyId: current.policyId }, input);
      if (check.condition === null) throw new AlertValidationError(check.errors);
      const now = this.deps.clock.now();
      const stored = { condition: check.condition, createdAt: this.createdAt.get(`c${id}`) ?? now, updatedAt: now };
      await this.deps.records.saveCondition(stored);
      this.createdAt.set(`cu${id}`, now);
      // After an edit every window counts as new again (a resetting edit forgot the signals).
      this.lastRead.delete(id);
      const events = this.engine.setCondition(check.condition, now);
      await this.commit(events, [id], []);
      return stored;
    });
  }

  deleteCondition(accountId: number, id: string): Promise<NrqlCondition> {
    return this.serial(async () => {
      const current = this.engine.condition(id);
      if (current === undefined || current.accountId !== accountId) throw new AlertNotFoundError(`Condition ${id} Not Found`);
      await this.deps.records.deleteCondition(accountId, id);
      this.forgetConditions([id]);
      const events = this.engine.removeCondition(id, this.deps.clock.now());
      await this.commit(events, [], []);
      return current;
    });
  }

  // ---- issues ----------------------------------------------------------------------------------

  acknowledge(accountId: number, issueId: string, user: string): Promise<boolean> {
    return this.userAction(accountId, issueId, (now) => this.engine.acknowledge(issueId, user, now));
  }

  markAsInvestigating(accountId: number, issueId: string): Promise<boolean> {
    return this.userAction(accountId, issueId, (now) => this.engine.markAsInvestigating(issueId, now));
  }

  unacknowledge(accountId: number, issueId: string): Promise<boolean> {
    return this.userAction(accountId, issueId, (now) => this.engine.unacknowledge(issueId, now));
  }

  resolve(accountId: number, issueId: string, user: string): Promise<boolean> {
    return this.userAction(accountId, issueId, (now) => this.engine.resolve(issueId, user, now));
  }

  /** A user closes one open incident (aiIssuesCloseIncident); false unless the account holds it open. */
  closeIncident(accountId: number, incidentId: string): Promise<boolean> {
    return this.serial(async () => {
      const incident = this.engine.state.incidents[incidentId];
      if (incident === undefined || incident.accountId !== accountId || incident.closedAt !== null) return false;
      const events = this.engine.closeIncident(incidentId, this.deps.clock.now());
      if (events.length === 0) return false;
      await this.commit(events, [incident.conditionId], incident.issueId === null ? [] : [incident.issueId]);
      return true;
    });
  }

  /**
   * Issues of an account whose life overlaps [from, to], newest first, as last committed: reads do not
   * wait for a running cycle.
   */
  issues(accountId: number, from: number, to: number): Promise<Issue[]> {
    return this.deps.records.issues(accountId, from, to);
  }

  incidents(accountId: number, from: number, to: number): Promise<Incident[]> {
    return this.deps.records.incidents(accountId, from, to);
  }

  /** Incidents about an entity open during [from, to], newest first, as last committed. */
  async entityIncidents(accountId: number, target: AlertTarget, from: number, to: number): Promise<Incident[]> {
    return (await this.deps.records.incidents(accountId, from, to)).filter((i) => incidentTargets(i, this.engine.condition(i.conditionId), target));
  }

  // ---- REST v2's numbers (a REST violation is an incident, a REST incident an issue) -------------

  /** The REST numbers of incidents or issues, numbering any not numbered yet. */
  restNumbers(kind: RestIdKind, ids: readonly string[]): Promise<Map<string, number>> {
    return this.deps.records.restNumbers(kind, ids);
  }

  restIdOf(kind: RestIdKind, accountId: number, number: number): Promise<string | undefined> {
    return this.deps.records.restIdOf(kind, accountId, number);
  }

  restIssues(accountId: number, query: RestIssueQuery): Promise<Array<Numbered<Issue>>> {
    return this.deps.records.restIssues(accountId, query);
  }

  restIncidents(accountId: number, query: RestIncidentQuery): Promise<Array<Numbered<Incident>>> {
    return this.deps.records.restIncidents(accountId, query);
  }

  alertSeverity(accountId: number, target: AlertTarget): EntityAlertSeverity {
    return this.engine.alertSeverity(target, accountId);
  }

  // ---- evaluation ------------------------------------------------------------------------------

  /**
   * One evaluation cycle: the windows each enabled condition can still take, read through NRQL (one
   * query per shared read, see shared-reads), observed in condition order, then the clock; the
   * cycle's changes are committed in one transaction.
   */
  evaluateOnce(): Promise<EvaluationCycle> {
    return this.serial(() => this.cycle());
  }

  private async cycle(): Promise<EvaluationCycle> {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const now = this.deps.clock.now();
    const events: AlertEvent[] = [];
    const evaluated: string[] = [];
    const reads: ConditionRead[] = [];
    for (const id of this.engine.conditionIds()) {
      const condition = this.engine.condition(id)!;
      if (!condition.enabled) continue;
      evaluated.push(id);
      const sig = condition.signal;
      const { fromMs, toMs } = readRange(sig, this.engine.state.evaluators[id], now);
      if (fromMs >= toMs) continue;
      reads.push({
        conditionId: id, accountId: condition.accountId, query: condition.query, facetCount: condition.facets.length,
        windowSeconds: sig.aggregationWindow, slideBySeconds: sig.slideBy, stepMs: evaluationStepMs(sig), fromMs, toMs,
      });
    }
    const asked = performance.now();
    const outcome = await readConditions(reads, (text, accountId) => this.deps.nrql.run(text, { accountIds: [accountId] }), now);
    const queryMs = performance.now() - asked;
    for (const [id, error] of outcome.failed) this.deps.log?.(`condition ${id} could not be evaluated`, error);
    const fromOf = new Map(reads.map((r) => [r.conditionId, r.fromMs]));
    for (const id of evaluated) {
      const windows = outcome.observations.get(id);
      if (windows === undefined) continue;
      const fresh = this.news(id, windows, fromOf.get(id)!);
      // Nothing new: the watermark did not move, so observing would close nothing.
      if (fresh.length > 0) events.push(...this.engine.observe(id, fresh, now));
    }
    events.push(...this.engine.tick(now, this.deps.endedExpectedly?.()));
    const committing = performance.now();
    const committedAt = await this.commit(events, evaluated, []);
    const commitMs = committedAt - committing;
    const cycle: EvaluationCycle = {
      conditions: evaluated.length, queries: outcome.queries, failures: outcome.failed.size, events: events.length,
      elapsedMs: performance.now() - started, queryMs, commitMs, committedAt, now, cpuMs: cpuMs(process.cpuUsage(cpu)),
      opened: events.filter((e): e is Extract<AlertEvent, { kind: 'incidentOpened' }> => e.kind === 'incidentOpened').map((e) => e.incident),
    };
    for (const listener of this.cycleListeners) listener(cycle);
    return cycle;
  }

  /**
   * The windows of a read that bring something new: a window not read before, or one whose value or
   * event count changed. Re-reading an open window is not an arrival of data, so it neither restarts
   * an EVENT_TIMER window's timer nor keeps a silent signal from being lost.
   */
  private news(conditionId: string, windows: readonly ReadWindow[], fromMs: number): ReadWindow[] {
    let seen = this.lastRead.get(conditionId);
    if (seen === undefined) this.lastRead.set(conditionId, (seen = new Map()));
    const out: ReadWindow[] = [];
    for (const w of windows) {
      if (seen.get(w.key)?.mark === w.mark) continue;
      seen.set(w.key, { windowStart: w.windowStart, mark: w.mark });
      out.push(w);
    }
    // Windows before the range are not read again.
    for (const [key, entry] of seen) if (entry.windowStart < fromMs) seen.delete(key);
    return out;
  }

  /** Their stored state rows are gone: forget what was read and committed for them. */
  private forgetConditions(ids: readonly string[]): void {
    for (const id of ids) {
      this.lastRead.delete(id);
      this.committedStates.delete(id);
    }
  }

  private userAction(accountId: number, issueId: string, act: (now: number) => AlertEvent[]): Promise<boolean> {
    return this.serial(async () => {
      const issue = this.engine.state.issues.issues[issueId];
      if (issue === undefined || issue.accountId !== accountId) return false;
      const events = act(this.deps.clock.now());
      const conditions = [...new Set(issue.incidentIds.map((i) => this.engine.state.incidents[i]?.conditionId).filter((c): c is string => c !== undefined))];
      await this.commit(events, conditions, [issueId]);
      return true;
    });
  }

  /** Persists the evaluator states, incidents and issues the events touched, then tells listeners. */
  private async commit(events: readonly AlertEvent[], conditionIds: readonly string[], issueIds: readonly string[]): Promise<number> {
    const states = new Map<string, ConditionEvaluatorState>();
    const written = new Map<string, number>();
    // A state is written when what it decided changed since its last commit (the evaluator's
    // revision). Values of windows still open and arrival times alone are not worth a write: the
    // data they came from is committed, and a restart reads every open window again.
    const changed = (id: string, _state: ConditionEvaluatorState): boolean => {
      const revision = this.engine.evaluator(id)?.revision;
      if (revision === undefined || (this.committedStates.get(id) ?? 0) === revision) return false;
      written.set(id, revision);
      return true;
    };
    for (const id of conditionIds) {
      const state = this.engine.state.evaluators[id];
      if (state !== undefined && changed(id, state)) states.set(id, state);
    }
    const incidents = new Map<string, (typeof this.engine.state.incidents)[string]>();
    const issues = new Set(issueIds);
    for (const e of events) {
      if (e.kind === 'issue') issues.add(e.event.issueId);
      else {
        incidents.set(e.incident.id, this.engine.state.incidents[e.incident.id] ?? e.incident);
        if (!states.has(e.incident.conditionId) && !conditionIds.includes(e.incident.conditionId)) {
          const state = this.engine.state.evaluators[e.incident.conditionId];
          if (state !== undefined && changed(e.incident.conditionId, state)) states.set(e.incident.conditionId, state);
        }
      }
    }
    const issueOf = (id: string) => this.engine.state.issues.issues[id];
    const outbox = this.notifier.outboxFor(events, issueOf);
    const announced = this.notifier.legacy.announcedIssues(events, issueOf);
    if (announced.length > 0) outbox.push(...this.notifier.legacy.outboxFor(events, issueOf, await this.legacyContext(announced)));
    await this.deps.records.commit({
      evaluatorStates: states,
      incidents: [...incidents.values()],
      issues: [...issues].map((id) => this.engine.state.issues.issues[id]!).filter((i) => i !== undefined),
      outbox,
    });
    const committedAt = performance.now();
    for (const [id, revision] of written) this.committedStates.set(id, revision);
    if (events.length > 0 && this.deps.writeEvents) {
      const rows = alertEventRows(events, issueOf, this.deps.clock.now());
      await this.deps.writeEvents([rows]).catch((error: unknown) => this.deps.log?.('alert events not recorded', error));
    }
    this.forgetClosed(events);
    if (outbox.length > 0) void this.notifier.dispatch().catch((error: unknown) => this.deps.log?.('notification dispatch failed', error));
    if (events.length > 0) await this.deps.onEvents?.(events);
    return committedAt;
  }

  /** What REST channels' payloads name beyond the issue: its number, incidents, targets. */
  private async legacyContext(issueIds: readonly string[]): Promise<LegacyContext> {
    const origin = this.deps.origin?.() ?? '';
    return {
      issueNumbers: await this.deps.records.restNumbers('issue', issueIds),
      incidentOf: (id) => this.engine.state.incidents[id],
      conditionOf: (id) => this.engine.condition(id),
      accountName: (accountId) => this.deps.accountName?.(accountId) ?? '',
      origin,
      targetOf: (incident) => {
        const apps = this.deps.applications?.(incident.accountId) ?? [];
        const app = applicationOfIncident(incident, this.engine.condition(incident.conditionId)?.entityTargets, (name) => apps.find((a) => a.name === name));
        if (app !== undefined) return { id: String(app.id), name: app.name, link: `${origin}/v2/applications/${app.id}.json`, labels: {}, product: 'APM', type: 'Application' };
        return {
          id: incident.conditionId, name: Object.values(incident.facets).join(', ') || incident.conditionName,
          link: `${origin}/accounts/${incident.accountId}/conditions/${incident.conditionId}`, labels: { ...incident.facets }, product: 'NRQL', type: 'Query',
        };
      },
    };
  }

  /** Closed issues and their closed incidents live on in the store only; memory keeps what is open. */
  private forgetClosed(events: readonly AlertEvent[]): void {
    for (const e of events) {
      if (e.kind !== 'issue' || e.event.state !== 'CLOSED') continue;
      const issue = this.engine.state.issues.issues[e.event.issueId];
      if (issue === undefined) continue;
      for (const id of issue.incidentIds) if (this.engine.state.incidents[id]?.closedAt !== null) delete this.engine.state.incidents[id];
      delete this.engine.state.issues.issues[issue.id];
    }
  }

  private withQueryShape(accountId: number, input: NrqlConditionInput): NrqlConditionInput {
    const checked = checkConditionQuery(input.query, (text) => this.deps.nrql.explain(text, { accountIds: [accountId] }));
    if (checked.shape === null) throw new AlertValidationError(checked.errors);
    return { ...input, facets: checked.shape.facets, entityTargets: checked.shape.entityTargets };
  }

  private ownPolicy(accountId: number, id: string): AlertPolicy {
    const policy = this.engine.policy(id);
    if (policy === undefined || policy.accountId !== accountId) throw new AlertNotFoundError(`Policy ${id} Not Found`);
    return policy;
  }

  private allPolicies(): StoredPolicy[] {
    const out: StoredPolicy[] = [];
    for (const id of this.policyIds()) {
      const policy = this.engine.policy(id)!;
      out.push({ policy, createdAt: this.createdAt.get(`p${id}`) ?? 0, updatedAt: this.createdAt.get(`pu${id}`) ?? this.createdAt.get(`p${id}`) ?? 0 });
    }
    return out.sort((a, b) => Number(a.policy.id) - Number(b.policy.id));
  }

  private policyIds(): string[] {
    return this.engine.policyIds();
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

function cpuMs(used: NodeJS.CpuUsage): number {
  return (used.user + used.system) / 1000;
}

function checkPolicyName(name: string): void {
  if (name.length < 1 || name.length > 128) throw new AlertValidationError([{ name: 'name', reason: 'Policy name must be between 1 and 128 characters' }]);
}
