import type { AlertPolicy, CloseCause, EntityAlertSeverity, Incident, IssueEvent, NrqlCondition } from './alert-model.js';
import { ConditionEvaluator, emptyEvaluatorState, ENTITY_ATTRIBUTES, type ConditionEvaluatorState, type EvaluatorEvent, type ExpectedTermination, type WindowObservation } from './condition-evaluator.js';
import { annotateIncident } from './incident-annotations.js';
import { mutingAttributes, mutingRuleActive, mutingRuleFor, type MutingRule } from './muting-rules.js';
import { DEFAULT_ISSUE_TTL_MS, emptyIssueTrackerState, IssueTracker, type IssueSettings, type IssueTrackerState } from './issue-tracker.js';

export type AlertEvent =
  | { readonly kind: 'incidentOpened'; readonly incident: Incident }
  | { readonly kind: 'incidentClosed'; readonly incident: Incident }
  | { readonly kind: 'issue'; readonly event: IssueEvent };

/** The whole alerting state of one engine as plain data: what the store persists. */
export interface AlertEngineState {
  evaluators: Record<string, ConditionEvaluatorState>;
  issues: IssueTrackerState;
  /** Every incident, open and closed, by id (the incident history). */
  incidents: Record<string, Incident>;
}

export function emptyAlertEngineState(): AlertEngineState {
  return { evaluators: {}, issues: emptyIssueTrackerState(), incidents: {} };
}

export interface AlertEngineOptions {
  readonly newId: () => string;
  readonly issueTtlMs?: number;
  readonly keepEvaluated?: boolean;
}

/** Facet attributes whose value names the entity a signal is about (reference §4.11, a choice). */
export const ENTITY_FACETS: readonly string[] = ENTITY_ATTRIBUTES;

/** An entity as alertSeverity sees it: any of its names (application name, GUID, host). */
export interface AlertTarget {
  readonly names: readonly string[];
}

/**
 * Policies, conditions, their evaluators and the issues they roll into. Pure over its inputs
 * (observations from the NRQL pipeline, the clock values passed in, user actions); every change is
 * returned as AlertEvents in order, for the store and for workflows.
 */
export class AlertEngine {
  private readonly policies = new Map<string, AlertPolicy>();
  private readonly conditions = new Map<string, ConditionEvaluator>();
  private readonly tracker: IssueTracker;
  private mutingRules: readonly MutingRule[] = [];

  constructor(
    readonly state: AlertEngineState,
    private readonly options: AlertEngineOptions,
  ) {
    this.tracker = new IssueTracker(state.issues, options.newId, options.issueTtlMs ?? DEFAULT_ISSUE_TTL_MS);
  }

  policy(id: string): AlertPolicy | undefined {
    return this.policies.get(id);
  }

  condition(id: string): NrqlCondition | undefined {
    return this.conditions.get(id)?.current;
  }

  evaluator(id: string): ConditionEvaluator | undefined {
    return this.conditions.get(id);
  }

  policyIds(): string[] {
    return [...this.policies.keys()];
  }

  conditionIds(): string[] {
    return [...this.conditions.keys()];
  }

  /** An account's grace periods and issue TTL. */
  setIssueSettings(accountId: number, settings: IssueSettings): void {
    this.tracker.setSettings(accountId, settings);
  }

  /** The muting rules of every account; an incident opening while one matches is muted. */
  setMutingRules(rules: readonly MutingRule[]): void {
    this.mutingRules = rules;
  }

  setPolicy(policy: AlertPolicy): void {
    this.policies.set(policy.id, policy);
  }

  removePolicy(policyId: string, now: number): AlertEvent[] {
    const out: AlertEvent[] = [];
    for (const [id, evaluator] of this.conditions) {
      if (evaluator.current.policyId !== policyId) continue;
      out.push(...this.apply(evaluator.remove('POLICY_DELETED', now), now));
      this.conditions.delete(id);
      delete this.state.evaluators[id];
    }
    this.policies.delete(policyId);
    return out;
  }

  /** Adds a condition, or applies an edit to it (which may reset its evaluation). */
  setCondition(condition: NrqlCondition, now: number): AlertEvent[] {
    const existing = this.conditions.get(condition.id);
    if (existing !== undefined) return this.apply(existing.edit(condition, now), now);
    const state = (this.state.evaluators[condition.id] ??= emptyEvaluatorState());
    this.conditions.set(condition.id, new ConditionEvaluator(condition, state, this.options.newId, this.options.keepEvaluated ?? false));
    return [];
  }

  removeCondition(conditionId: string, now: number): AlertEvent[] {
    const evaluator = this.conditions.get(conditionId);
    if (evaluator === undefined) return [];
    const out = this.apply(evaluator.remove('CONDITION_DELETED', now), now);
    this.conditions.delete(conditionId);
    delete this.state.evaluators[conditionId];
    return out;
  }

  observe(conditionId: string, observations: readonly WindowObservation[], now: number): AlertEvent[] {
    const evaluator = this.conditions.get(conditionId);
    if (evaluator === undefined || !evaluator.current.enabled) return [];
    return this.apply(evaluator.observe(observations, now), now);
  }

  /** The clock moved: windows due close, wall-clock rules apply (see ConditionEvaluator.tick). */
  tick(now: number, endedExpectedly?: ExpectedTermination): AlertEvent[] {
    const out: AlertEvent[] = [];
    for (const evaluator of this.conditions.values()) {
      if (evaluator.current.enabled) out.push(...this.apply(evaluator.tick(now, endedExpectedly), now));
    }
    for (const event of this.tracker.activateDue(now)) out.push({ kind: 'issue', event });
    for (const issueId of this.tracker.expired(now)) out.push(...this.closeIssue(issueId, 'CLOSE_TTL', 'CLOSE_TTL', null, now));
    for (const issueId of this.mutedIssuesToClose(now)) out.push(...this.closeIssue(issueId, 'CLOSE_INACTIVE', 'MUTING_RULE_ENDED', null, now));
    return out;
  }

  acknowledge(issueId: string, user: string, now: number): AlertEvent[] {
    const event = this.tracker.acknowledge(issueId, user, now);
    return event === null ? [] : [{ kind: 'issue', event }];
  }

  markAsInvestigating(issueId: string, now: number): AlertEvent[] {
    const event = this.tracker.markAsInvestigating(issueId, now);
    return event === null ? [] : [{ kind: 'issue', event }];
  }

  unacknowledge(issueId: string, now: number): AlertEvent[] {
    const event = this.tracker.unacknowledge(issueId, now);
    return event === null ? [] : [{ kind: 'issue', event }];
  }

  /** A user resolves the issue: it closes, and so do its open incidents (cause USER). */
  resolve(issueId: string, user: string, now: number): AlertEvent[] {
    const issue = this.state.issues.issues[issueId];
    if (issue === undefined || issue.state === 'CLOSED') return [];
    return this.closeIssue(issueId, 'USER_ACTION', 'USER', user, now);
  }

  /** A user closes one incident; its issue follows the usual rule. */
  closeIncident(incidentId: string, now: number): AlertEvent[] {
    const incident = this.state.incidents[incidentId];
    if (incident === undefined || incident.closedAt !== null) return [];
    const evaluator = this.conditions.get(incident.conditionId);
    if (evaluator === undefined) return [];
    return this.apply(evaluator.closeIncident(incidentId, 'USER', now), now);
  }

  /** alertSeverity of an entity (reference §4.11) from the open incidents and evaluated signals. */
  alertSeverity(target: AlertTarget, accountId?: number): EntityAlertSeverity {
    let severity: EntityAlertSeverity = 'NOT_CONFIGURED';
    const rank: Record<EntityAlertSeverity, number> = { NOT_CONFIGURED: 0, NOT_ALERTING: 1, WARNING: 2, CRITICAL: 3 };
    const raise = (s: EntityAlertSeverity): void => {
      if (rank[s] > rank[severity]) severity = s;
    };
    for (const evaluator of this.conditions.values()) {
      const condition = evaluator.current;
      if (!condition.enabled || (accountId !== undefined && condition.accountId !== accountId)) continue;
      for (const signal of Object.values(evaluator.state.signals)) {
        if (!signalTargets(condition, signal.facets, target)) continue;
        if (signal.lastClosedWindow !== null) raise('NOT_ALERTING');
      }
      for (const incident of Object.values(evaluator.state.open)) {
        if (incident.disableHealthStatusReporting) continue;
        const facets = condition.facets.map((f) => incident.facets[f] ?? '');
        if (!signalTargets(condition, facets, target)) continue;
        raise(incident.priority === 'CRITICAL' ? 'CRITICAL' : 'WARNING');
      }
    }
    return severity;
  }

  /**
   * Open issues whose open incidents were all muted by rules that close issues when they become inactive
   * (`CLOSE_ISSUES_ON_INACTIVE`) and that are now inactive: disabled or outside their window. A rule
   * deleted since muting leaves its issues open.
   */
  private mutedIssuesToClose(now: number): string[] {
    const out: string[] = [];
    for (const issueId of Object.values(this.state.issues.openByKey)) {
      const issue = this.state.issues.issues[issueId]!;
      if (issue.openIncidentIds.length === 0) continue;
      const rules = issue.openIncidentIds.map((id) => {
        const ruleId = this.state.incidents[id]?.mutingRuleId;
        return ruleId == null ? undefined : this.mutingRules.find((r) => r.id === ruleId);
      });
      if (rules.every((r) => r !== undefined && r.actionOnMutingRuleWindowEnded === 'CLOSE_ISSUES_ON_INACTIVE' && !mutingRuleActive(r, now))) out.push(issueId);
    }
    return out;
  }

  private closeIssue(issueId: string, trigger: 'USER_ACTION' | 'CLOSE_TTL' | 'CLOSE_INACTIVE', cause: CloseCause, user: string | null, now: number): AlertEvent[] {
    const out: AlertEvent[] = [];
    const issue = this.state.issues.issues[issueId]!;
    out.push({ kind: 'issue', event: this.tracker.closeIssue(issueId, now, trigger, user, { openIncidentIds: [] }) });
    for (const incidentId of issue.openIncidentIds) {
      const incident = this.state.incidents[incidentId];
      const evaluator = incident === undefined ? undefined : this.conditions.get(incident.conditionId);
      if (evaluator !== undefined) out.push(...this.apply(evaluator.closeIncident(incidentId, cause, now), now));
    }
    return out;
  }

  private apply(events: readonly EvaluatorEvent[], now: number): AlertEvent[] {
    const out: AlertEvent[] = [];
    for (const event of events) {
      if (event.kind === 'incidentOpened') {
        const policy = this.policies.get(event.incident.policyId);
        if (policy === undefined) throw new Error(`condition ${event.incident.conditionId} names unknown policy ${event.incident.policyId}`);
        const condition = this.conditions.get(event.incident.conditionId)?.current;
        const rendered = condition === undefined ? event.incident : annotateIncident(condition, policy, event.incident);
        const muting = condition === undefined ? undefined : mutingRuleFor(this.mutingRules, rendered.accountId, mutingAttributes(condition, policy, rendered), now);
        const annotated = muting === undefined ? rendered : { ...rendered, mutingRuleId: muting.id };
        const { issueId, events: issueEvents } = this.tracker.incidentOpened(policy, annotated, now);
        const incident = { ...annotated, issueId };
        this.state.incidents[incident.id] = incident;
        const evaluator = this.conditions.get(incident.conditionId);
        if (evaluator !== undefined && evaluator.state.open[incident.id] !== undefined) evaluator.state.open[incident.id] = incident;
        out.push({ kind: 'incidentOpened', incident });
        for (const e of issueEvents) out.push({ kind: 'issue', event: e });
      } else {
        const known = this.state.incidents[event.incident.id];
        const incident = { ...event.incident, issueId: known?.issueId ?? event.incident.issueId };
        this.state.incidents[incident.id] = incident;
        out.push({ kind: 'incidentClosed', incident });
        for (const e of this.tracker.incidentClosed(incident, now)) out.push({ kind: 'issue', event: e });
      }
    }
    return out;
  }
}

/**
 * Whether an incident is about an entity (its alertViolations): a FACET value on an entity attribute
 * names it, or its condition (while it exists) pins the entity in its WHERE — the alertSeverity rule.
 */
export function incidentTargets(incident: Incident, condition: NrqlCondition | undefined, target: AlertTarget): boolean {
  for (const [attribute, value] of Object.entries(incident.facets)) {
    if (ENTITY_FACETS.includes(attribute) && target.names.includes(value)) return true;
  }
  return (condition?.entityTargets ?? []).some((name) => target.names.includes(name));
}

function signalTargets(condition: NrqlCondition, facets: readonly string[], target: AlertTarget): boolean {
  for (let i = 0; i < condition.facets.length; i++) {
    if (ENTITY_FACETS.includes(condition.facets[i]!) && target.names.includes(facets[i] ?? '')) return true;
  }
  return (condition.entityTargets ?? []).some((name) => target.names.includes(name));
}
