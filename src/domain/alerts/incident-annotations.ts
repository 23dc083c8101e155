import { operatorSymbol, type AlertPolicy, type Incident, type NrqlCondition } from './alert-model.js';

/*
 * A condition's `titleTemplate` and `description` rendered for one incident (reference §4.13): the
 * variables are the incident's NrAiIncident attribute names (`conditionName`, `targetName`,
 * `threshold`, `tag.<facet>`, …), written as Handlebars paths. The subset rendered is `{{path}}`,
 * `{{{path}}}` (the same: titles are plain text, nothing is HTML-escaped) and `{{json path}}`; an
 * unknown path renders as nothing, as in Handlebars. Block helpers are refused when the condition is
 * saved (checkIncidentTemplates).
 */

const EXPRESSION = /\{\{(\{)?\s*(json\s+)?([A-Za-z_][\w-]*(?:\.(?:[A-Za-z_][\w-]*|\[\d+\]))*)\s*\}?\}\}/g;
const BLOCK = /\{\{~?\s*[#/^>!&]/;

/** The variables a title or description template can name, for an incident as it opens. */
export function incidentVariables(condition: NrqlCondition, policy: AlertPolicy, incident: Incident): Record<string, unknown> {
  const targetName = Object.values(incident.facets).join(', ') || condition.name;
  return {
    accountId: incident.accountId,
    aggregationDuration: condition.signal.aggregationWindow,
    conditionId: Number(condition.id),
    conditionName: condition.name,
    degradationTime: incident.degradationAt,
    'entity.name': targetName,
    evaluationType: incident.evaluationType,
    expirationDuration: condition.expiration.expirationDuration,
    incidentId: incident.id,
    nrqlQuery: condition.query,
    openTime: incident.openedAt,
    operator: incident.operator === null ? '' : operatorSymbol(incident.operator),
    policyId: Number(policy.id),
    policyName: policy.name,
    priority: incident.priority === 'CRITICAL' ? 'critical' : 'warning',
    runbookUrl: condition.runbookUrl,
    tag: { ...incident.facets },
    targetName,
    threshold: incident.threshold,
    thresholdDuration: incident.thresholdDuration,
    thresholdOccurrences: incident.thresholdOccurrences === null ? null : incident.thresholdOccurrences === 'ALL' ? 'all' : 'any',
    title: incident.title,
    valueFunction: 'SINGLE_VALUE',
    violationTimeLimitSeconds: condition.violationTimeLimitSeconds,
  };
}

/** A dotted path in the variables; a key holding dots (`entity.name`, `tag.entity.guid`) is matched whole first. */
function lookup(vars: unknown, parts: readonly string[]): unknown {
  if (parts.length === 0) return vars;
  if (vars === null || typeof vars !== 'object') return undefined;
  for (let n = parts.length; n >= 1; n--) {
    const head = parts.slice(0, n).join('.');
    const index = /^\[(\d+)\]$/.exec(head);
    const key = index ? index[1]! : head;
    if (Object.prototype.hasOwnProperty.call(vars, key)) {
      const found = lookup((vars as Record<string, unknown>)[key], parts.slice(n));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Renders a title or description template over the incident variables. */
export function renderIncidentTemplate(template: string, vars: Record<string, unknown>): string {
  return template.replace(EXPRESSION, (_m, _triple: string | undefined, json: string | undefined, path: string) => {
    const value = lookup(vars, path.split('.'));
    if (json) return JSON.stringify(value ?? null);
    if (value === null || value === undefined) return '';
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  });
}

/** The incident with its condition's templates applied: the title replaced, the description set. */
export function annotateIncident(condition: NrqlCondition, policy: AlertPolicy, incident: Incident): Incident {
  const template = condition.titleTemplate ?? null;
  const describe = condition.description ?? null;
  if (template === null && describe === null) return incident;
  const vars = incidentVariables(condition, policy, incident);
  const rendered = template === null ? '' : renderIncidentTemplate(template, vars).trim();
  return {
    ...incident,
    title: rendered === '' ? incident.title : rendered,
    ...(describe === null ? {} : { description: renderIncidentTemplate(describe, vars) }),
  };
}

/** Templates the renderer cannot honour, as validation errors on their fields. */
export function checkIncidentTemplates(input: { titleTemplate?: string | null; description?: string | null }): Array<{ name: string; reason: string }> {
  const errors: Array<{ name: string; reason: string }> = [];
  for (const name of ['titleTemplate', 'description'] as const) {
    const text = input[name];
    if (text === null || text === undefined) continue;
    if (BLOCK.test(text)) errors.push({ name, reason: 'Block helpers, partials and comments ({{#if}}, {{#each}}, {{> …}}, {{! …}}) are not supported; use {{variable}} or {{json variable}}' });
    else if (/\{\{/.test(text.replace(EXPRESSION, ''))) errors.push({ name, reason: 'Every {{…}} must name one variable, such as {{conditionName}} or {{tag.appName}}' });
  }
  return errors;
}
