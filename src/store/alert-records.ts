import type { AlertPolicy, Incident, Issue, NrqlCondition } from '../alerts/alert-model.js';
import type { ConditionEvaluatorState } from '../alerts/condition-evaluator.js';

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
}

/**
 * Alerting's durable state behind the store seam: policies and conditions (one vocabulary that
 * NerdGraph and, later, REST v2 render), evaluator state, incidents (REST violations) and issues
 * (REST incidents). Ids of policies and conditions are integers from one sequence each.
 */
export interface AlertRecords {
  load(): Promise<AlertSnapshot>;
  nextId(kind: 'policy' | 'condition'): Promise<number>;
  savePolicy(policy: StoredPolicy): Promise<void>;
  /** Deletes the policy and its conditions (and their evaluator state). */
  deletePolicy(accountId: number, policyId: string): Promise<void>;
  saveCondition(condition: StoredCondition): Promise<void>;
  deleteCondition(accountId: number, conditionId: string): Promise<void>;
  commit(change: AlertStateChange): Promise<void>;
  /** Issues of an account whose life overlaps [from, to] (epoch ms), newest first. */
  issues(accountId: number, from: number, to: number): Promise<Issue[]>;
  incidents(accountId: number, from: number, to: number): Promise<Incident[]>;
}
