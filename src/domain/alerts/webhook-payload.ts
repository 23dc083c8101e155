import type { Issue, IssueEvent } from './alert-model.js';
import { issueMutingState } from './muting-rules.js';

/** The variables a channel's payload template can name (reference §5.3), for one issue event. */
export function templateVariables(issue: Issue, event: IssueEvent, workflowName: string, origin: string): Record<string, unknown> {
  const issuePageUrl = `${origin}/accounts/${issue.accountId}/issues/${issue.id}?notifier=WEBHOOK`;
  return {
    issueId: issue.id,
    issueTitle: issue.titles[0] ?? '',
    issuePageUrl,
    issueAckUrl: `${origin}/accounts/${issue.accountId}/issues/${issue.id}/ack`,
    issueCloseUrl: `${origin}/accounts/${issue.accountId}/issues/${issue.id}/close`,
    priority: event.priority,
    state: event.state,
    triggerEvent: event.trigger,
    createdAt: issue.createdAt,
    updatedAt: event.updatedAt,
    activatedAt: issue.activatedAt,
    closedAt: issue.closedAt,
    acknowledgedBy: issue.acknowledgedBy,
    closedBy: issue.closedBy,
    isAcknowledged: issue.acknowledgedAt !== null,
    isCorrelated: false,
    totalIncidents: issue.incidentIds.length,
    openIncidentsCount: issue.openIncidentIds.length,
    closedIncidentsCount: issue.incidentIds.length - issue.openIncidentIds.length,
    incidentIds: issue.incidentIds,
    impactedEntitiesCount: issue.entityNames.length,
    mutingState: issueMutingState(issue),
    nrAccountId: issue.accountId,
    workflowName,
    annotations: { title: issue.titles, description: issue.descriptions ?? issue.titles },
    accumulations: {
      policyName: [issue.policyName],
      conditionName: issue.conditionNames,
      conditionFamilyId: issue.conditionIds,
      source: ['newrelic'],
      sources: ['newrelic'],
      origins: ['Alerts'],
    },
    entitiesData: { names: issue.entityNames },
    labels: { policyIds: [issue.policyId], accountIds: [String(issue.accountId)] },
  };
}

/** The default workflow webhook body (reference §5.3): the keys receivers parse, with `id` first. */
export function defaultPayload(vars: Record<string, unknown>): Record<string, unknown> {
  const get = (path: string) => lookup(vars, path);
  return {
    id: get('issueId'),
    issueUrl: get('issuePageUrl'),
    title: get('annotations.title.[0]'),
    priority: get('priority'),
    impactedEntities: get('entitiesData.names'),
    totalIncidents: get('totalIncidents'),
    state: get('state'),
    trigger: get('triggerEvent'),
    isCorrelated: get('isCorrelated'),
    createdAt: get('createdAt'),
    updatedAt: get('updatedAt'),
    sources: get('accumulations.source'),
    alertPolicyNames: get('accumulations.policyName'),
    alertConditionNames: get('accumulations.conditionName'),
    workflowName: get('workflowName'),
  };
}

/** A path such as `annotations.title.[0]` or `entitiesData.names` in the variables. */
export function lookup(vars: unknown, path: string): unknown {
  let value: unknown = vars;
  for (const raw of path.split('.')) {
    if (value === null || value === undefined) return undefined;
    const index = /^\[(\d+)\]$/.exec(raw);
    value = index ? (value as unknown[])[Number(index[1])] : (value as Record<string, unknown>)[raw];
  }
  return value;
}

export class TemplateError extends Error {}

const MUSTACHE = /\{\{\s*(json\s+)?([A-Za-z_][\w]*(?:\.(?:[A-Za-z_][\w]*|\[\d+\]))*)\s*\}\}/g;

/**
 * Renders the subset of the Handlebars New Relic's webhook templates use: `{{json path}}` (a JSON
 * value) and `{{path}}` (its text); block helpers are refused. The result must be valid JSON.
 */
export function renderTemplate(template: string, vars: Record<string, unknown>): string {
  if (/\{\{\s*[#/^>!]/.test(template)) throw new TemplateError('Block helpers ({{#if}}, {{#each}}, …) are not supported in webhook payload templates; use {{json variable}} and {{variable}}');
  const rendered = template.replace(MUSTACHE, (_m, json: string | undefined, path: string) => {
    const value = lookup(vars, path);
    if (json) return JSON.stringify(value ?? null);
    return value === null || value === undefined ? '' : String(value);
  });
  if (/\{\{/.test(rendered)) throw new TemplateError('The payload template has a {{…}} expression that is not a variable path');
  try {
    JSON.parse(rendered);
  } catch (error) {
    throw new TemplateError(`The payload template does not render to valid JSON: ${(error as Error).message}`);
  }
  return rendered;
}
