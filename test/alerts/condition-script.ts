import type { AlertPolicy, EntityAlertSeverity, Incident, IncidentPreference, Issue } from '../../src/domain/alerts/alert-model.js';
import { AlertEngine, emptyAlertEngineState, type AlertEvent } from '../../src/domain/alerts/alert-engine.js';
import { buildNrqlCondition, type NrqlConditionInput } from '../../src/domain/alerts/condition-input.js';
import { notificationTriggerOf } from '../../src/domain/alerts/notification-triggers.js';
import type { WindowObservation } from '../../src/domain/alerts/condition-evaluator.js';
import { issueMutingState, type MutingRule } from '../../src/domain/alerts/muting-rules.js';

/**
 * The golden condition-test format (alerts reference §7.1), as JSON: a policy, its conditions,
 * per-window series with an arrival lag (or explicit points), user actions and edits at given
 * times, and the expected incidents, issues, notifications and entity alertSeverity. Times are
 * offsets from `start`: "+90s", "+6m", "+2h".
 */
export interface ConditionScript {
  readonly description: string;
  readonly policy: { readonly name: string; readonly incidentPreference: IncidentPreference };
  readonly conditions: ReadonlyArray<NrqlConditionInput & { readonly id: string }>;
  readonly start: string;
  /** Last wall time simulated (offset). */
  readonly until: string;
  /** Wall-clock evaluation cadence in seconds (default 60). */
  readonly tickSeconds?: number;
  readonly series?: ReadonlyArray<{
    readonly condition: string;
    readonly signal?: Readonly<Record<string, string>>;
    /** One value per evaluation step, space separated; `_` = no data in that window. */
    readonly values: string;
    /** Offset of the first window (default "+0s"). */
    readonly from?: string;
    /** Data timestamp of each point relative to its window start, seconds (default 0). */
    readonly stampSeconds?: number;
    /** Wall-clock arrival minus the point's timestamp, seconds (default 0). */
    readonly arrivalLagSeconds?: number;
  }>;
  /** Points given one by one, for out-of-order and late data. */
  readonly points?: ReadonlyArray<{
    readonly condition: string;
    readonly signal?: Readonly<Record<string, string>>;
    readonly window: string;
    readonly value: number;
    readonly stamp?: string;
    readonly arrive: string;
  }>;
  readonly actions?: ReadonlyArray<{
    readonly at: string;
    readonly edit?: { readonly condition: string; readonly patch: Partial<NrqlConditionInput> };
    readonly disable?: string;
    readonly delete?: string;
    /** Index (creation order) of the issue to acknowledge / resolve. */
    readonly ack?: number;
    readonly resolve?: number;
  }>;
  /** Muting rules of the account (id, name, enabled, condition, schedule; the rest defaults). */
  readonly mutingRules?: ReadonlyArray<Pick<MutingRule, 'id' | 'enabled' | 'condition' | 'schedule'> & Partial<Pick<MutingRule, 'actionOnMutingRuleWindowEnded'>>>;
  /** The account's issue settings: grace period by priority and issue TTL, seconds. */
  readonly issueSettings?: { readonly gracePeriod: Readonly<Record<'CRITICAL' | 'HIGH' | 'MEDIUM' | 'LOW', number>>; readonly issueTtl: number };
  /** Entities whose agents shut down (an expected termination) from the given time on. */
  readonly terminations?: ReadonlyArray<{ readonly at: string; readonly entity: string }>;
  readonly expect: {
    readonly incidents: readonly ExpectedIncident[];
    readonly issues: ReadonlyArray<{ readonly state: string; readonly priority: string; readonly totalIncidents: number; readonly incidents?: readonly number[]; readonly mutingState?: string; readonly activatedAt?: string | null }>;
    readonly notifications: ReadonlyArray<readonly [string, string]>;
    readonly alertSeverity?: ReadonlyArray<{ readonly at: string; readonly entity: string; readonly severity: EntityAlertSeverity }>;
  };
}

export interface ExpectedIncident {
  readonly condition: string;
  readonly signal: Readonly<Record<string, string>>;
  readonly priority: string;
  readonly evaluationType?: string;
  readonly degradationAt: string;
  readonly openedAt: string;
  readonly detectedAt: string;
  readonly closedAt: string | null;
  readonly closeCause: string | null;
  /** Compared when any expected incident of the script gives one: the rendered title and description. */
  readonly title?: string;
  readonly description?: string | null;
  /** Compared when the script has muting rules. */
  readonly mutingRuleId?: string | null;
}

export function offsetMs(text: string): number {
  const m = /^([+-])(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text);
  if (m === null) throw new Error(`bad offset ${text}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[3] as 'ms' | 's' | 'm' | 'h'];
  return (m[1] === '-' ? -1 : 1) * Number(m[2]) * unit;
}

/** Prints an offset the way expectations write it: whole minutes as "+Nm", else "+Ns". */
export function formatOffset(ms: number): string {
  if (ms % 60_000 === 0) return `${ms < 0 ? '-' : '+'}${Math.abs(ms) / 60_000}m`;
  return `${ms < 0 ? '-' : '+'}${Math.abs(ms) / 1000}s`;
}

export interface ScriptOutcome {
  readonly incidents: ExpectedIncident[];
  readonly issues: Array<{ state: string; priority: string; totalIncidents: number; incidents: number[]; mutingState?: string; activatedAt?: string | null }>;
  readonly notifications: Array<[string, string]>;
  readonly alertSeverity: Array<{ at: string; entity: string; severity: EntityAlertSeverity }>;
  readonly events: AlertEvent[];
  readonly engine: AlertEngine;
  readonly rawIncidents: Incident[];
  readonly rawIssues: Issue[];
}

interface Arrival {
  readonly at: number;
  readonly order: number;
  readonly condition: string;
  readonly observation: WindowObservation;
}

/** Runs a script against the engine with an injected clock: arrivals, actions, then a tick, at each instant. */
export function runConditionScript(script: ConditionScript, onStep?: (engine: AlertEngine, now: number) => void): ScriptOutcome {
  const start = Date.parse(script.start);
  const until = start + offsetMs(script.until);
  let nextId = 1;
  const engine = new AlertEngine(emptyAlertEngineState(), { newId: () => `id-${nextId++}` });
  const policy: AlertPolicy = { id: 'p1', accountId: 1, name: script.policy.name, incidentPreference: script.policy.incidentPreference };
  engine.setPolicy(policy);
  if (script.issueSettings) {
    const g = script.issueSettings.gracePeriod;
    engine.setIssueSettings(1, { gracePeriodMs: { CRITICAL: g.CRITICAL * 1000, HIGH: g.HIGH * 1000, MEDIUM: g.MEDIUM * 1000, LOW: g.LOW * 1000 }, issueTtlMs: script.issueSettings.issueTtl * 1000 });
  }
  engine.setMutingRules((script.mutingRules ?? []).map((r) => ({
    accountId: 1, name: r.id, description: '', actionOnMutingRuleWindowEnded: 'DO_NOTHING', createdAt: 0, updatedAt: 0, createdBy: null, updatedBy: null, ...r,
  })));
  const inputs = new Map<string, NrqlConditionInput>();
  const events: AlertEvent[] = [];
  const build = (id: string, input: NrqlConditionInput) => {
    const built = buildNrqlCondition({ id, accountId: 1, policyId: 'p1' }, input);
    if (built.condition === null) throw new Error(`condition ${id}: ${JSON.stringify(built.errors)}`);
    return built.condition;
  };
  for (const c of script.conditions) {
    inputs.set(c.id, c);
    events.push(...engine.setCondition(build(c.id, c), start));
  }
  const facetValues = (conditionId: string, signal: Readonly<Record<string, string>> | undefined): string[] => {
    const facets = inputs.get(conditionId)?.facets ?? [];
    return facets.map((f) => signal?.[f] ?? '');
  };

  const arrivals: Arrival[] = [];
  let order = 0;
  for (const s of script.series ?? []) {
    const c = inputs.get(s.condition);
    if (c === undefined) throw new Error(`series names unknown condition ${s.condition}`);
    const stepMs = ((c.signal?.slideBy ?? c.signal?.aggregationWindow) ?? 60) * 1000;
    const from = start + offsetMs(s.from ?? '+0s');
    s.values.trim().split(/\s+/).forEach((token, i) => {
      if (token === '_') return;
      const windowStart = from + i * stepMs;
      const timestamp = windowStart + (s.stampSeconds ?? 0) * 1000;
      const at = timestamp + (s.arrivalLagSeconds ?? 0) * 1000;
      arrivals.push({ at, order: order++, condition: s.condition, observation: { facets: facetValues(s.condition, s.signal), windowStart, value: Number(token), timestamp, arrivalAt: at } });
    });
  }
  for (const p of script.points ?? []) {
    const windowStart = start + offsetMs(p.window);
    const at = start + offsetMs(p.arrive);
    arrivals.push({
      at,
      order: order++,
      condition: p.condition,
      observation: { facets: facetValues(p.condition, p.signal), windowStart, value: p.value, timestamp: p.stamp === undefined ? windowStart : start + offsetMs(p.stamp), arrivalAt: at },
    });
  }
  arrivals.sort((a, b) => a.at - b.at || a.order - b.order);

  const actions = (script.actions ?? []).map((a) => ({ ...a, atMs: start + offsetMs(a.at) }));
  const severityChecks = (script.expect.alertSeverity ?? []).map((c) => ({ ...c, atMs: start + offsetMs(c.at) }));
  const tickMs = (script.tickSeconds ?? 60) * 1000;
  const instants = new Set<number>();
  for (let t = start; t <= until; t += tickMs) instants.add(t);
  for (const a of arrivals) instants.add(a.at);
  for (const a of actions) instants.add(a.atMs);
  for (const c of severityChecks) instants.add(c.atMs);
  const issueOrder: string[] = [];
  const record = (list: AlertEvent[]) => {
    for (const e of list) {
      events.push(e);
      if (e.kind === 'issue' && !issueOrder.includes(e.event.issueId)) issueOrder.push(e.event.issueId);
    }
  };
  const severity: ScriptOutcome['alertSeverity'] = [];
  for (const now of [...instants].filter((t) => t <= until).sort((a, b) => a - b)) {
    const due = arrivals.filter((a) => a.at === now);
    const byCondition = new Map<string, WindowObservation[]>();
    for (const a of due) byCondition.set(a.condition, [...(byCondition.get(a.condition) ?? []), a.observation]);
    for (const [conditionId, observations] of byCondition) record(engine.observe(conditionId, observations, now));
    for (const action of actions.filter((a) => a.atMs === now)) {
      if (action.edit !== undefined) {
        const next = { ...inputs.get(action.edit.condition)!, ...action.edit.patch };
        inputs.set(action.edit.condition, next);
        record(engine.setCondition(build(action.edit.condition, next), now));
      }
      if (action.disable !== undefined) {
        const next = { ...inputs.get(action.disable)!, enabled: false };
        inputs.set(action.disable, next);
        record(engine.setCondition(build(action.disable, next), now));
      }
      if (action.delete !== undefined) record(engine.removeCondition(action.delete, now));
      if (action.ack !== undefined) record(engine.acknowledge(issueOrder[action.ack]!, 'user@example.test', now));
      if (action.resolve !== undefined) record(engine.resolve(issueOrder[action.resolve]!, 'user@example.test', now));
    }
    const ended = (script.terminations ?? []).filter((t) => start + offsetMs(t.at) <= now).map((t) => t.entity);
    record(engine.tick(now, (_account, name) => ended.includes(name)));
    onStep?.(engine, now);
    for (const check of severityChecks.filter((c) => c.atMs === now)) {
      severity.push({ at: check.at, entity: check.entity, severity: engine.alertSeverity({ names: [check.entity] }) });
    }
  }

  const rawIncidents = Object.values(engine.state.incidents).sort((a, b) => a.detectedAt - b.detectedAt || Number(a.id.slice(3)) - Number(b.id.slice(3)));
  const rel = (t: number | null) => (t === null ? null : formatOffset(t - start));
  const signalOf = (i: Incident) => ({ ...i.facets });
  const withText = script.expect.incidents.some((i) => i.title !== undefined);
  const incidents = rawIncidents.map((i) => ({
    condition: i.conditionId,
    signal: signalOf(i),
    priority: i.priority,
    ...(i.evaluationType === 'Expiration' ? { evaluationType: 'Expiration' } : {}),
    degradationAt: rel(i.degradationAt)!,
    openedAt: rel(i.openedAt)!,
    detectedAt: rel(i.detectedAt)!,
    closedAt: rel(i.closedAt),
    closeCause: i.closeCause,
    ...(withText ? { title: i.title, description: i.description ?? null } : {}),
    ...(script.mutingRules ? { mutingRuleId: i.mutingRuleId ?? null } : {}),
  }));
  const rawIssues = issueOrder.map((id) => engine.state.issues.issues[id]!);
  const issues = rawIssues.map((issue) => ({
    state: issue.state,
    priority: issue.priority,
    totalIncidents: issue.incidentIds.length,
    incidents: issue.incidentIds.map((id) => rawIncidents.findIndex((i) => i.id === id)),
    ...(script.mutingRules ? { mutingState: issueMutingState(issue) } : {}),
    ...(script.issueSettings ? { activatedAt: rel(issue.activatedAt) } : {}),
  }));
  const notifications: Array<[string, string]> = [];
  for (const e of events) {
    if (e.kind === 'issue' && notificationTriggerOf(e.event) !== null) notifications.push([e.event.state, e.event.trigger]);
  }
  return { incidents, issues, notifications, alertSeverity: severity, events, engine, rawIncidents, rawIssues };
}
