import type { ApmMetricCondition } from '../../../domain/alerts/alert-model.js';
import { APM_APP_METRICS, apmMetricQuery, USER_DEFINED_VALUES } from '../../../domain/alerts/apm-metric-nrql.js';
import type { NrqlConditionInput } from '../../../domain/alerts/condition-input.js';
import type { StoredCondition } from '../../../store/alert-records.js';
import { RestError } from '../rest-error.js';
import { FieldReader, METRIC_OPERATORS, termObjects } from './nrql-condition-wire.js';

/*
 * REST v2's `alerts_conditions` of type `apm_app_metric` (alerts.md §1.5): stored as the NRQL condition
 * it translates to (domain/alerts/apm-metric-nrql.ts), with what REST shows beside it. Entities are
 * strings on the way out and strings or numbers on the way in; durations are minutes (1–120).
 */

/** One-minute windows, closed once a minute newer than the window's end plus 60 s has arrived. */
const SIGNAL = { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 60 } as const;

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

export function apmConditionObject(stored: StoredCondition): Record<string, unknown> {
  const c = stored.condition;
  const m = c.apmMetric!;
  return {
    id: Number(c.id),
    type: 'apm_app_metric',
    name: c.name,
    enabled: c.enabled,
    entities: m.entities.map(String),
    metric: m.metric,
    condition_scope: m.conditionScope,
    runbook_url: c.runbookUrl ?? '',
    terms: termObjects(c),
    ...(m.userDefined !== null ? { user_defined: { metric: m.userDefined.metric, value_function: m.userDefined.valueFunction } } : {}),
  };
}

/** The request's condition laid over the stored one's REST form (PUT may leave fields out). */
export function mergeApmCondition(current: Obj, patch: Obj): Obj {
  return { ...current, ...patch };
}

/**
 * A REST APM condition → the domain's input with its NRQL, or a 422 listing every problem.
 * `ownsApplication` says whether an id is one of the caller's account's APM applications.
 */
export function apmConditionInput(c: Obj, ownsApplication: (id: number) => boolean): NrqlConditionInput {
  const r = new FieldReader();
  if (c.type !== 'apm_app_metric') {
    r.errors.push(`type must be 'apm_app_metric' (the only metric condition type Timeslice evaluates), got ${JSON.stringify(c.type)}`);
  }
  const name = r.text('name', c.name, true) ?? '';
  const runbook = r.text('runbook_url', c.runbook_url, false);
  const enabled = r.bool('enabled', c.enabled) ?? false;
  const metric = r.text('metric', c.metric, true);
  if (metric !== undefined && !(APM_APP_METRICS as readonly string[]).includes(metric)) r.errors.push(`metric must be one of ${APM_APP_METRICS.join(', ')}, got ${JSON.stringify(metric)}`);
  const scope = c.condition_scope ?? 'application';
  if (scope !== 'application') r.errors.push(`condition_scope must be 'application': per-instance conditions are not evaluated, got ${JSON.stringify(scope)}`);

  const entities: number[] = [];
  if (!Array.isArray(c.entities) || c.entities.length === 0) r.errors.push('entities must be a non-empty array of application ids');
  else {
    for (const e of c.entities) {
      const id = typeof e === 'number' ? e : typeof e === 'string' && /^\d{1,15}$/.test(e) ? Number(e) : NaN;
      if (!Number.isSafeInteger(id)) r.errors.push(`entities must hold application ids, got ${JSON.stringify(e)}`);
      else if (!ownsApplication(id)) r.errors.push(`entities: no APM application with id ${id} in this account`);
      else if (!entities.includes(id)) entities.push(id);
    }
  }

  let userDefined: ApmMetricCondition['userDefined'] = null;
  if (metric === 'user_defined') {
    const u = c.user_defined;
    if (!isObject(u)) r.errors.push('user_defined {metric, value_function} is required when metric is user_defined');
    else {
      const m = r.text('user_defined.metric', u.metric, true);
      if (m === '') r.errors.push('user_defined.metric must not be empty');
      const fn = r.text('user_defined.value_function', u.value_function, true);
      if (fn !== undefined && USER_DEFINED_VALUES[fn] === undefined) r.errors.push(`user_defined.value_function must be one of ${Object.keys(USER_DEFINED_VALUES).join(', ')}, got ${JSON.stringify(fn)}`);
      if (m && fn !== undefined && USER_DEFINED_VALUES[fn] !== undefined) userDefined = { metric: m, valueFunction: fn };
    }
  }
  const terms = r.terms(c.terms, METRIC_OPERATORS, 120);
  if (Array.isArray(c.terms) && c.terms.length === 0) r.errors.push('terms must hold a critical term, a warning term or both');

  if (r.errors.length > 0) throw RestError.unprocessable('Invalid condition', r.errors);
  const apmMetric: ApmMetricCondition = { metric: metric!, entities, conditionScope: 'application', userDefined };
  return {
    name,
    enabled,
    query: apmMetricQuery(apmMetric),
    runbookUrl: runbook === undefined || runbook === '' ? null : runbook,
    terms,
    signal: { ...SIGNAL },
    expiration: null,
    violationTimeLimitSeconds: null,
    apmMetric,
  };
}
