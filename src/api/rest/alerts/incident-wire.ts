import type { IncidentPreference, Incident, Issue } from '../../../domain/alerts/alert-model.js';

/*
 * The alert history in REST v2's words (rest-v2.md §12, alerts.md §4.12): a REST *violation* is a
 * NerdGraph incident, a REST *incident* a NerdGraph issue; both carry the integer the store gave
 * them (alert_rest_ids), and times are epoch milliseconds, the same instants NerdGraph shows
 * (violation opened_at = incident createdAt, incident opened_at = issue createdAt).
 */

/** The entity a violation is about, as REST names it. */
export interface ViolationEntity {
  readonly product: string;
  readonly type: string;
  readonly group_id: number;
  readonly id: number;
  readonly name: string;
}

/** What an issue was opened under: its rollup key has one part per level of the preference. */
export function preferenceOfIssue(issue: Issue): IncidentPreference {
  const parts = (JSON.parse(issue.key) as unknown[]).length;
  return parts === 1 ? 'PER_POLICY' : parts === 2 ? 'PER_CONDITION' : 'PER_CONDITION_AND_TARGET';
}

export function incidentObject(issue: Issue, number: number, violationNumbers: readonly number[] | undefined): Record<string, unknown> {
  return {
    id: number,
    opened_at: issue.createdAt,
    ...(issue.closedAt !== null ? { closed_at: issue.closedAt } : {}),
    incident_preference: preferenceOfIssue(issue),
    links: { ...(violationNumbers !== undefined ? { violations: [...violationNumbers] } : {}), policy_id: Number(issue.policyId) },
  };
}

/** The signal's name: its FACET values, or the condition's name when it has none (as titles say). */
export function targetName(incident: Incident): string {
  return Object.values(incident.facets).join(', ') || incident.conditionName;
}

export function violationPriority(incident: Incident): string {
  return incident.priority === 'CRITICAL' ? 'Critical' : 'Warning';
}

export function violationObject(
  incident: Incident,
  number: number,
  extra: { readonly policyName: string; readonly issueNumber: number | undefined; readonly entity: ViolationEntity; readonly now: number },
): Record<string, unknown> {
  const end = incident.closedAt ?? extra.now;
  return {
    id: number,
    label: incident.title,
    duration: Math.max(0, Math.floor((end - incident.openedAt) / 1000)),
    policy_name: extra.policyName,
    condition_name: incident.conditionName,
    priority: violationPriority(incident),
    opened_at: incident.openedAt,
    ...(incident.closedAt !== null ? { closed_at: incident.closedAt } : {}),
    entity: extra.entity,
    links: {
      policy_id: Number(incident.policyId),
      condition_id: Number(incident.conditionId),
      ...(extra.issueNumber !== undefined ? { incident_id: extra.issueNumber } : {}),
    },
  };
}

export type RecentEventType = 'VIOLATION_OPEN' | 'VIOLATION_CLOSE' | 'INCIDENT_OPEN' | 'INCIDENT_ACKNOWLEDGED' | 'INCIDENT_CLOSE';

/**
 * Event ids are derived, so they are as stable as the numbers they come from: eight per number,
 * the low three bits saying which step (violations use 1–2, incidents 3–5, so the two kinds never
 * collide).
 */
const EVENT_CODE: Readonly<Record<RecentEventType, number>> = {
  VIOLATION_OPEN: 1, VIOLATION_CLOSE: 2, INCIDENT_OPEN: 3, INCIDENT_ACKNOWLEDGED: 4, INCIDENT_CLOSE: 5,
};

export interface RecentEvent {
  readonly id: number;
  readonly event_type: RecentEventType;
  readonly product?: string;
  readonly entity_type?: string;
  readonly entity_group_id?: number;
  readonly entity_id?: number;
  readonly priority: string;
  readonly description: string;
  readonly timestamp: number;
  readonly incident_id?: number;
}

export function violationEvents(incident: Incident, number: number, issueNumber: number | undefined, entity: ViolationEntity): RecentEvent[] {
  const base = {
    product: entity.product, entity_type: entity.type, entity_group_id: entity.group_id, entity_id: entity.id,
    priority: violationPriority(incident).toLowerCase(), description: incident.title,
    ...(issueNumber !== undefined ? { incident_id: issueNumber } : {}),
  };
  const out: RecentEvent[] = [{ id: number * 8 + EVENT_CODE.VIOLATION_OPEN, event_type: 'VIOLATION_OPEN', ...base, timestamp: incident.openedAt }];
  if (incident.closedAt !== null) out.push({ id: number * 8 + EVENT_CODE.VIOLATION_CLOSE, event_type: 'VIOLATION_CLOSE', ...base, timestamp: incident.closedAt });
  return out;
}

/** Incident-level rows carry no product or entity (client-go's fixture), and say what opened them. */
export function incidentEvents(issue: Issue, number: number): RecentEvent[] {
  const priority = issue.priority === 'CRITICAL' ? 'critical' : 'warning';
  const entities = issue.entityNames.join(', ');
  const description = `${issue.policyName} (${entities} violated ${issue.conditionNames.join(', ')})`;
  const row = (type: RecentEventType, timestamp: number): RecentEvent => ({ id: number * 8 + EVENT_CODE[type], event_type: type, priority, description, timestamp, incident_id: number });
  const out = [row('INCIDENT_OPEN', issue.createdAt)];
  if (issue.acknowledgedAt !== null) out.push(row('INCIDENT_ACKNOWLEDGED', issue.acknowledgedAt));
  if (issue.closedAt !== null) out.push(row('INCIDENT_CLOSE', issue.closedAt));
  return out;
}
