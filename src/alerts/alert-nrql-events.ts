import { CUSTOM_EVENTS, Rows } from '../store/append-tables.js';
import { attributeJson } from '../store/attribute-json.js';
import { operatorSymbol, type Incident, type Issue, type IssueEvent } from '../domain/alerts/alert-model.js';
import type { AlertEvent } from '../domain/alerts/alert-engine.js';
import type { WebhookResult } from './webhook-sender.js';

/**
 * Alerting's own events, queryable by NRQL as New Relic's are (reference §4.13): one NrAiIncident per
 * incident open and close, one NrAiIssue per issue event, one NrAiNotification per delivery
 * attempt, and an NrIntegrationError (category NotificationError) per notification given up.
 */
export function alertEventRows(events: readonly AlertEvent[], issueOf: (id: string) => Issue | undefined, at: number): Rows {
  const rows = new Rows(CUSTOM_EVENTS);
  for (const e of events) {
    if (e.kind === 'issue') {
      const issue = issueOf(e.event.issueId);
      if (issue !== undefined) rows.push(issue.accountId, 0, 0, 0, at, 'NrAiIssue', attributeJson(issueAttributes(issue, e.event)));
    } else {
      const i = e.incident;
      rows.push(i.accountId, 0, 0, 0, at, 'NrAiIncident', attributeJson(incidentAttributes(i, e.kind === 'incidentOpened' ? 'open' : 'close')));
    }
  }
  return rows;
}

function incidentAttributes(i: Incident, event: 'open' | 'close'): Record<string, unknown> {
  return {
    event,
    accountId: i.accountId,
    incidentId: i.id,
    issueId: i.issueId,
    conditionId: Number(i.conditionId),
    conditionName: i.conditionName,
    policyId: Number(i.policyId),
    priority: i.priority === 'CRITICAL' ? 'critical' : 'warning',
    evaluationType: i.evaluationType,
    operator: i.operator === null ? '' : operatorSymbol(i.operator),
    threshold: i.threshold,
    thresholdDuration: i.thresholdDuration,
    thresholdOccurrences: i.thresholdOccurrences === null ? null : i.thresholdOccurrences === 'ALL' ? 'all' : 'any',
    title: i.title,
    description: i.description ?? null,
    muted: (i.mutingRuleId ?? null) !== null,
    mutingRuleId: i.mutingRuleId == null ? null : Number(i.mutingRuleId),
    targetName: Object.values(i.facets).join(', ') || i.conditionName,
    ...Object.fromEntries(Object.entries(i.facets).map(([k, v]) => [`tag.${k}`, v])),
    degradationTime: i.degradationAt,
    openTime: i.openedAt,
    closeTime: i.closedAt,
    closeCause: i.closeCause,
    type: 'Incident',
  };
}

function issueAttributes(issue: Issue, event: IssueEvent): Record<string, unknown> {
  return {
    accountId: issue.accountId,
    issueId: issue.id,
    state: event.state,
    trigger: event.trigger,
    priority: event.priority,
    policyId: Number(issue.policyId),
    policyName: issue.policyName,
    conditionName: issue.conditionNames.join(', '),
    title: issue.titles[0] ?? '',
    totalIncidents: issue.incidentIds.length,
    createdAt: issue.createdAt,
    updatedAt: event.updatedAt,
  };
}

export function notificationRow(rows: Rows, accountId: number, at: number, attributes: Record<string, unknown>): void {
  rows.push(accountId, 0, 0, 0, at, 'NrAiNotification', attributeJson(attributes));
}

export function notificationErrorRow(rows: Rows, accountId: number, at: number, attributes: Record<string, unknown>): void {
  rows.push(accountId, 0, 0, 0, at, 'NrIntegrationError', attributeJson({ category: 'NotificationError', ...attributes }));
}

/**
 * One delivery's record: an `NrAiNotification` row per attempt (`Sent` or `Failed`, retried or
 * not, its HTTP status and time) and, when every attempt failed, one `NrIntegrationError` saying so.
 */
export function deliveryRows(rows: Rows, accountId: number, at: number, common: Record<string, unknown>, operation: string, result: WebhookResult): void {
  result.attempts.forEach((a, i) => {
    const sent = a.status !== null && a.status >= 200 && a.status < 300;
    notificationRow(rows, accountId, at, {
      ...common, status: sent ? 'Sent' : 'Failed', attempt: i + 1, httpStatus: a.status, error: a.error, retried: !sent && i < result.attempts.length - 1,
      durationMs: Math.round(a.durationMs), operation,
    });
  });
  const last = result.attempts[result.attempts.length - 1];
  if (!result.ok) notificationErrorRow(rows, accountId, at, { ...common, message: `Webhook delivery failed after ${result.attempts.length} attempt(s): ${last?.error ?? 'unknown'}`, httpStatus: last?.status ?? null });
}
