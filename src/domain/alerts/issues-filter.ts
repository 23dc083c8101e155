import type { Issue } from './alert-model.js';
import type { WorkflowPredicate } from './notification-model.js';

/** The issue attributes workflow predicates can name (reference §5.1), as strings or lists of strings. */
export function issueAttributes(issue: Issue, conditionNames: readonly string[]): Record<string, string | number | boolean | readonly string[] | null> {
  return {
    priority: issue.priority,
    state: issue.state,
    createdAt: issue.createdAt,
    updatedAt: issue.updatedAt,
    activatedAt: issue.activatedAt,
    acknowledgedAt: issue.acknowledgedAt,
    closedAt: issue.closedAt,
    isAcknowledged: issue.acknowledgedAt !== null,
    isCorrelated: false,
    totalIncidents: issue.incidentIds.length,
    'labels.policyIds': [issue.policyId],
    'labels.accountIds': [String(issue.accountId)],
    'accumulations.policyName': [issue.policyName],
    'accumulations.conditionName': conditionNames,
    'accumulations.conditionFamilyId': issue.conditionIds,
    'accumulations.source': ['newrelic'],
    'accumulations.sources': ['newrelic'],
    'accumulations.conditionProduct': issue.conditionIds.map(() => 'NRQL'),
    'entitiesData.names': issue.entityNames,
    'annotations.title': issue.titles,
  };
}

/**
 * Whether an issue passes a workflow's filter: every predicate holds; a predicate holds when any of
 * its values matches (operators are case-insensitive; list attributes match if some element does).
 */
export function issueMatches(predicates: readonly WorkflowPredicate[], attributes: ReturnType<typeof issueAttributes>): boolean {
  return predicates.every((p) => predicateHolds(p, attributes[p.attribute]));
}

function predicateHolds(p: WorkflowPredicate, value: string | number | boolean | readonly string[] | null | undefined): boolean {
  const op = p.operator.toUpperCase();
  if (op === 'IS') return p.values.some((v) => (v.toLowerCase() === 'null' ? value == null : String(value) === v.toLowerCase()));
  if (op === 'IS_NOT') return !p.values.some((v) => (v.toLowerCase() === 'null' ? value == null : String(value) === v.toLowerCase()));
  if (value === null || value === undefined) return op.startsWith('DOES_NOT');
  const items = Array.isArray(value) ? (value as readonly string[]).map(String) : [String(value)];
  const some = (test: (item: string, v: string) => boolean) => p.values.some((v) => items.some((item) => test(item, v)));
  switch (op) {
    case 'EQUAL':
    case 'EXACTLY_MATCHES':
      return some((item, v) => item === v);
    case 'DOES_NOT_EQUAL':
    case 'DOES_NOT_EXACTLY_MATCH':
      return !some((item, v) => item === v);
    case 'CONTAINS':
      return some((item, v) => item.toLowerCase().includes(v.toLowerCase()));
    case 'DOES_NOT_CONTAIN':
      return !some((item, v) => item.toLowerCase().includes(v.toLowerCase()));
    case 'STARTS_WITH':
      return some((item, v) => item.startsWith(v));
    case 'ENDS_WITH':
      return some((item, v) => item.endsWith(v));
    case 'GREATER_THAN':
      return some((item, v) => Number(item) > Number(v));
    case 'GREATER_OR_EQUAL':
      return some((item, v) => Number(item) >= Number(v));
    case 'LESS_THAN':
      return some((item, v) => Number(item) < Number(v));
    case 'LESS_OR_EQUAL':
      return some((item, v) => Number(item) <= Number(v));
    default:
      return false;
  }
}
