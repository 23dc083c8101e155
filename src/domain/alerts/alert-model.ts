/**
 * The alerts domain as plain data: policies, NRQL static conditions, incidents (REST "violations")
 * and issues (REST "incidents"). One vocabulary is stored; NerdGraph and REST v2 render it.
 * Times are epoch milliseconds. "Data time" is the time the data is stamped with; "wall time" is the
 * clock of the evaluator (arrival, detection). Both are kept where New Relic shows both.
 */

export type IncidentPreference = 'PER_POLICY' | 'PER_CONDITION' | 'PER_CONDITION_AND_TARGET';
export type TermOperator = 'ABOVE' | 'ABOVE_OR_EQUALS' | 'BELOW' | 'BELOW_OR_EQUALS' | 'EQUALS' | 'NOT_EQUALS';
export type TermPriority = 'CRITICAL' | 'WARNING';
export type ThresholdOccurrences = 'ALL' | 'AT_LEAST_ONCE';
export type AggregationMethod = 'EVENT_FLOW' | 'EVENT_TIMER' | 'CADENCE';
export type FillOption = 'NONE' | 'STATIC' | 'LAST_VALUE';
/** NerdGraph's issue/incident priorities; a WARNING term yields HIGH. */
export type IssuePriority = 'CRITICAL' | 'HIGH' | 'MEDIUM' | 'LOW';
export type IssueState = 'CREATED' | 'ACTIVATED' | 'CLOSED';
export type CloseCause =
  | 'EVALUATOR'
  | 'EXPIRED'
  | 'LOSS_OF_SIGNAL'
  | 'CONDITION_MODIFIED'
  | 'CONDITION_DELETED'
  | 'CONDITION_DISABLED'
  | 'POLICY_DELETED'
  | 'USER'
  | 'CLOSE_TTL'
  | 'MUTING_RULE_ENDED';
export type IssueTrigger =
  | 'STATE_CHANGE'
  | 'INCIDENT_ADDED'
  | 'INCIDENT_CLOSED'
  | 'CLOSE_INACTIVE'
  | 'CLOSE_TTL'
  | 'USER_ACTION'
  | 'PRIORITY_CHANGED';
export type EntityAlertSeverity = 'NOT_CONFIGURED' | 'NOT_ALERTING' | 'WARNING' | 'CRITICAL';

export interface AlertPolicy {
  readonly id: string;
  readonly accountId: number;
  readonly name: string;
  readonly incidentPreference: IncidentPreference;
}

export interface ConditionTerm {
  readonly priority: TermPriority;
  readonly operator: TermOperator;
  readonly threshold: number;
  /** Seconds; a multiple of the evaluation step (window, or slideBy when sliding). */
  readonly thresholdDuration: number;
  readonly thresholdOccurrences: ThresholdOccurrences;
  readonly disableHealthStatusReporting: boolean;
  /** Stored and shown; Timeslice writes NrAiIncident rows for every incident regardless. */
  readonly disableEventCreation?: boolean;
}

export interface ConditionSignal {
  /** Seconds. */
  readonly aggregationWindow: number;
  readonly aggregationMethod: AggregationMethod;
  /** Seconds; EVENT_FLOW and CADENCE only (null with EVENT_TIMER). */
  readonly aggregationDelay: number | null;
  /** Seconds; EVENT_TIMER only. */
  readonly aggregationTimer: number | null;
  /** Seconds; a new signal's windows earlier than this after its first window are not evaluated. */
  readonly evaluationDelay: number | null;
  readonly fillOption: FillOption;
  readonly fillValue: number | null;
  /** Seconds; windows of `aggregationWindow` start every `slideBy` seconds. */
  readonly slideBy: number | null;
}

export interface ConditionExpiration {
  /** Seconds; null disables loss of signal. */
  readonly expirationDuration: number | null;
  readonly openViolationOnExpiration: boolean;
  readonly closeViolationsOnExpiration: boolean;
  readonly ignoreOnExpectedTermination: boolean;
}

export interface NrqlCondition {
  readonly id: string;
  readonly accountId: number;
  readonly policyId: string;
  readonly name: string;
  readonly enabled: boolean;
  readonly query: string;
  /** The FACET attributes of `query`, in order: a signal is one tuple of their values. */
  readonly facets: readonly string[];
  readonly description: string | null;
  readonly runbookUrl: string | null;
  /** Handlebars over the incident's variables, rendered into incident and issue titles (docs/alerts.md). */
  readonly titleTemplate?: string | null;
  /** The account whose data the query reads, when a client named it: always the condition's own. */
  readonly dataAccountId?: number | null;
  /** The entity GUID a client pinned the condition to; stored and shown. */
  readonly targetEntity?: string | null;
  readonly terms: readonly ConditionTerm[];
  readonly signal: ConditionSignal;
  readonly expiration: ConditionExpiration;
  /** Seconds. */
  readonly violationTimeLimitSeconds: number;
  /** Entities the query pins in its WHERE (`appName = '…'`, `entity.guid = '…'`), for alertSeverity. */
  readonly entityTargets?: readonly string[];
  /** Set when REST v2 made it as an APM metric condition: what REST shows; `query` is its translation. */
  readonly apmMetric?: ApmMetricCondition;
}

/** REST v2's `apm_app_metric` condition (alerts.md §1.5), evaluated through the NRQL it translates to. */
export interface ApmMetricCondition {
  readonly metric: string;
  /** Application ids. */
  readonly entities: readonly number[];
  readonly conditionScope: 'application';
  readonly userDefined: { readonly metric: string; readonly valueFunction: string } | null;
}

/** Which term of a signal an incident belongs to: a term's priority, or the loss-of-signal incident. */
export type TermKey = TermPriority | 'LOSS_OF_SIGNAL';

export interface Incident {
  readonly id: string;
  readonly accountId: number;
  readonly policyId: string;
  readonly conditionId: string;
  readonly conditionName: string;
  readonly signalKey: string;
  /** The FACET values of the signal, by attribute. */
  readonly facets: Readonly<Record<string, string>>;
  readonly termKey: TermKey;
  readonly priority: IssuePriority;
  readonly evaluationType: 'Threshold' | 'Expiration';
  readonly operator: TermOperator | null;
  readonly threshold: number | null;
  readonly thresholdDuration: number | null;
  readonly thresholdOccurrences: ThresholdOccurrences | null;
  readonly disableHealthStatusReporting: boolean;
  /** The condition's titleTemplate rendered for this incident, else the default title. */
  readonly title: string;
  /** The condition's description rendered for this incident; absent without one. */
  readonly description?: string | null;
  /** The muting rule that muted this incident when it opened (absent or null: not muted). */
  readonly mutingRuleId?: string | null;
  /** Data time: start of the first breaching window of the run. */
  readonly degradationAt: number;
  /** Data time: end of the window that completed the run. */
  readonly openedAt: number;
  /** Wall time the evaluator opened it (drives the issue and notifications). */
  readonly detectedAt: number;
  /** Data time for EVALUATOR (back-dated to the start of recovery) and EXPIRED; wall time otherwise. */
  readonly closedAt: number | null;
  readonly closeCause: CloseCause | null;
  /** Wall time the close was decided. */
  readonly closeDetectedAt: number | null;
  readonly issueId: string | null;
}

export interface Issue {
  readonly id: string;
  readonly accountId: number;
  readonly policyId: string;
  readonly policyName: string;
  /** The rollup key the issue was opened under (policy; policy+condition; policy+condition+signal). */
  readonly key: string;
  readonly state: IssueState;
  readonly priority: IssuePriority;
  readonly incidentIds: readonly string[];
  readonly openIncidentIds: readonly string[];
  readonly conditionIds: readonly string[];
  readonly conditionNames: readonly string[];
  readonly titles: readonly string[];
  /** Per incident: its rendered description, else its title (absent in state written before descriptions). */
  readonly descriptions?: readonly string[];
  /** The incidents a muting rule muted (absent: none). */
  readonly mutedIncidentIds?: readonly string[];
  readonly entityNames: readonly string[];
  readonly createdAt: number;
  readonly activatedAt: number | null;
  readonly acknowledgedAt: number | null;
  readonly acknowledgedBy: string | null;
  readonly closedAt: number | null;
  readonly closedBy: string | null;
  readonly updatedAt: number;
  /** The last issue event (NerdGraph `eventType`). */
  readonly lastTrigger: IssueTrigger;
}

/** One issue transition, the unit workflows match and notify on. */
export interface IssueEvent {
  readonly issueId: string;
  readonly state: IssueState;
  readonly trigger: IssueTrigger;
  readonly priority: IssuePriority;
  readonly updatedAt: number;
  /** Set on USER_ACTION events: what the user did. */
  readonly action?: 'ACK' | 'UNACK' | 'RESOLVE' | 'MARK_AS_INVESTIGATING';
  /** Set when an issue closes that never left CREATED (all its incidents closed within the grace period). */
  readonly neverActivated?: true;
}

export const PRIORITY_RANK: Readonly<Record<IssuePriority, number>> = { LOW: 0, MEDIUM: 1, HIGH: 2, CRITICAL: 3 };

export function termPriorityToIssuePriority(priority: TermPriority): IssuePriority {
  return priority === 'CRITICAL' ? 'CRITICAL' : 'HIGH';
}

const OPERATOR_SYMBOL: Readonly<Record<TermOperator, string>> = {
  ABOVE: '>',
  ABOVE_OR_EQUALS: '>=',
  BELOW: '<',
  BELOW_OR_EQUALS: '<=',
  EQUALS: '=',
  NOT_EQUALS: '!=',
};

export function operatorSymbol(operator: TermOperator): string {
  return OPERATOR_SYMBOL[operator];
}

/** `value cmp threshold` for a term's operator. */
export function breaches(operator: TermOperator, value: number, threshold: number): boolean {
  switch (operator) {
    case 'ABOVE':
      return value > threshold;
    case 'ABOVE_OR_EQUALS':
      return value >= threshold;
    case 'BELOW':
      return value < threshold;
    case 'BELOW_OR_EQUALS':
      return value <= threshold;
    case 'EQUALS':
      return value === threshold;
    case 'NOT_EQUALS':
      return value !== threshold;
    default: {
      const never: never = operator;
      throw new Error(`unknown operator ${String(never)}`);
    }
  }
}

/** The evaluation step: the window, or `slideBy` when windows slide. */
export function evaluationStepMs(signal: ConditionSignal): number {
  return (signal.slideBy ?? signal.aggregationWindow) * 1000;
}
