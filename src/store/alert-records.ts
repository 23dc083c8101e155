import type { AlertPolicy, Incident, Issue, NrqlCondition } from '../domain/alerts/alert-model.js';
import type { ConditionEvaluatorState } from '../domain/alerts/condition-evaluator.js';
import type { Channel, Destination, Workflow } from '../domain/alerts/notification-model.js';
import type { MutingRule } from '../domain/alerts/muting-rules.js';
import type { IssueSettings } from '../domain/alerts/issue-tracker.js';
import type { LegacyChannel } from '../domain/alerts/legacy-channel.js';

/** One notification to send: decided (and its body rendered) when the issue changed. */
export interface OutboxEntry {
  /** (issue, channel, issue trigger, issue updatedAt): the idempotency key. */
  readonly key: string;
  readonly accountId: number;
  readonly issueId: string;
  readonly channelId: string;
  readonly workflowId: string;
  readonly workflowName: string;
  readonly state: string;
  readonly trigger: string;
  readonly notificationTrigger: string;
  readonly body: string;
  readonly createdAt: number;
}

export interface NotificationConfig {
  readonly destinations: Destination[];
  readonly channels: Channel[];
  readonly workflows: Workflow[];
}

/** A policy as stored: the domain policy plus its bookkeeping times (epoch ms). */
export interface StoredPolicy {
  readonly policy: AlertPolicy;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface StoredCondition {
  readonly condition: NrqlCondition;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** What an engine needs to resume: configuration, each condition's evaluator state, open issues and incidents. */
export interface AlertSnapshot {
  readonly policies: StoredPolicy[];
  readonly conditions: StoredCondition[];
  readonly evaluatorStates: ReadonlyMap<string, ConditionEvaluatorState>;
  /** Open incidents and those of open issues (closed history stays in the store, read by queries). */
  readonly incidents: Incident[];
  readonly openIssues: Issue[];
}

/** One evaluation step's changes, committed in one transaction so a crash leaves all or none. */
export interface AlertStateChange {
  readonly evaluatorStates: ReadonlyMap<string, ConditionEvaluatorState>;
  readonly incidents: readonly Incident[];
  readonly issues: readonly Issue[];
  /** Notifications the change calls for; a key already present is not added again. */
  readonly outbox?: readonly OutboxEntry[];
}

/** Which REST v2 number: an incident's (REST calls it a violation) or an issue's (a REST incident). */
export type RestIdKind = 'incident' | 'issue';

/** A stored object with the integer id REST v2 shows for it. */
export interface Numbered<T> {
  readonly number: number;
  readonly value: T;
}

/** A page of an account's issues, newest (created) first. */
export interface RestIssueQuery {
  readonly onlyOpen: boolean;
  /** Only these issues (UUIDs), when given. */
  readonly ids?: readonly string[];
  /** Newest by their latest step (created, acknowledged or closed) instead: what recent events page by. */
  readonly byLatest?: boolean;
  readonly offset: number;
  readonly limit: number;
}

/** A page of an account's incidents, newest (opened, data time) first. */
export interface RestIncidentQuery {
  readonly onlyOpen: boolean;
  /** Bounds on `openedAt` (epoch ms, inclusive), when given. */
  readonly openedFrom?: number;
  readonly openedTo?: number;
  /** Only these incidents (UUIDs), when given. */
  readonly ids?: readonly string[];
  /** Newest by their latest step (opened or closed) instead. */
  readonly byLatest?: boolean;
  readonly offset: number;
  readonly limit: number;
}

/**
 * Alerting's durable state behind the store seam: policies and conditions (one vocabulary that
 * NerdGraph and, later, REST v2 render), evaluator state, incidents (REST violations) and issues
 * (REST incidents). Ids of policies and conditions are integers from one sequence each.
 */
export interface AlertRecords {
  load(): Promise<AlertSnapshot>;
  nextId(kind: 'policy' | 'condition' | 'legacyChannel'): Promise<number>;
  savePolicy(policy: StoredPolicy): Promise<void>;
  /** Deletes the policy and its conditions (and their evaluator state). */
  deletePolicy(accountId: number, policyId: string): Promise<void>;
  saveCondition(condition: StoredCondition): Promise<void>;
  deleteCondition(accountId: number, conditionId: string): Promise<void>;
  commit(change: AlertStateChange): Promise<void>;
  /** Issues of an account whose life overlaps [from, to] (epoch ms), newest first. */
  issues(accountId: number, from: number, to: number): Promise<Issue[]>;
  incidents(accountId: number, from: number, to: number): Promise<Incident[]>;
  loadNotificationConfig(): Promise<NotificationConfig>;
  saveNotificationObject(kind: 'destination' | 'channel' | 'workflow', object: Destination | Channel | Workflow): Promise<void>;
  deleteNotificationObject(kind: 'destination' | 'channel' | 'workflow', accountId: number, id: string): Promise<void>;
  /** Outbox entries not yet sent or given up, oldest first. */
  pendingNotifications(): Promise<OutboxEntry[]>;
  markNotification(key: string, status: 'SENT' | 'FAILED', attempts: number, at: number): Promise<void>;
  /** The log: every entry with its status (tests, explainability). */
  notificationLog(accountId: number): Promise<Array<OutboxEntry & { status: string; attempts: number }>>;
  /** Muting rules (optional per engine: without them the service refuses to create one). */
  loadMutingRules?(): Promise<MutingRule[]>;
  nextMutingRuleId?(): Promise<number>;
  saveMutingRule?(rule: MutingRule): Promise<void>;
  deleteMutingRule?(accountId: number, id: string): Promise<void>;
  /** Accounts' issue settings (grace periods, TTL); optional per engine like muting rules. */
  loadIssueSettings?(): Promise<Array<{ accountId: number; settings: IssueSettings }>>;
  saveIssueSettings?(accountId: number, settings: IssueSettings): Promise<void>;
  /**
   * The REST v2 numbers of incidents or issues by UUID. `commit` numbers every incident and issue it
   * stores, in its transaction; this numbers any of `ids` not numbered yet (one sequence per kind) and
   * never renumbers one.
   */
  restNumbers(kind: RestIdKind, ids: readonly string[]): Promise<Map<string, number>>;
  /** The UUID a REST number names, when it names one of the account's. */
  restIdOf(kind: RestIdKind, accountId: number, number: number): Promise<string | undefined>;
  restIssues(accountId: number, query: RestIssueQuery): Promise<Array<Numbered<Issue>>>;
  restIncidents(accountId: number, query: RestIncidentQuery): Promise<Array<Numbered<Incident>>>;
  /** REST v2's notification channels (alerts_channels), every account's. */
  legacyChannels(): Promise<LegacyChannel[]>;
  saveLegacyChannel(channel: LegacyChannel): Promise<void>;
  deleteLegacyChannel(accountId: number, id: number): Promise<void>;
  /**
   * Where other nodes share the records: `changed` is called when another node changed the alert
   * configuration (policies, conditions, muting rules, issue settings, destinations, channels,
   * workflows). Changes arriving while the promise it returns is pending are folded into one more
   * call after it.
   */
  watch?(changed: () => Promise<void>): void;
}
