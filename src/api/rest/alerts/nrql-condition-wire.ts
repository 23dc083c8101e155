import type {
  AggregationMethod,
  FillOption,
  IncidentPreference,
  NrqlCondition,
  TermOperator,
  TermPriority,
  ThresholdOccurrences,
} from '../../../domain/alerts/alert-model.js';
import type { NrqlConditionInput } from '../../../domain/alerts/condition-input.js';
import type { StoredCondition, StoredPolicy } from '../../../store/alert-records.js';
import { RestError } from '../rest-error.js';

/*
 * REST v2's spelling of policies and NRQL conditions (alerts.md §1.1, §1.2, §1.6) over the one
 * domain model NerdGraph renders too: durations in minutes and thresholds as JSON strings, lower-case
 * enums (but upper-case incident_preference and aggregation_method), `since_value`,
 * `value_function`. Input accepts numbers where REST emits strings (clients send both); anything
 * else wrong is a 422 naming the field, and nothing is stored.
 */

export const INCIDENT_PREFERENCES: readonly IncidentPreference[] = ['PER_POLICY', 'PER_CONDITION', 'PER_CONDITION_AND_TARGET'];

const OPERATORS: Readonly<Record<string, TermOperator>> = {
  above: 'ABOVE',
  above_or_equals: 'ABOVE_OR_EQUALS',
  below: 'BELOW',
  below_or_equals: 'BELOW_OR_EQUALS',
  equal: 'EQUALS',
  not_equals: 'NOT_EQUALS',
};
const PRIORITIES: Readonly<Record<string, TermPriority>> = { critical: 'CRITICAL', warning: 'WARNING' };
const TIME_FUNCTIONS: Readonly<Record<string, ThresholdOccurrences>> = { all: 'ALL', any: 'AT_LEAST_ONCE' };
const FILL_OPTIONS: Readonly<Record<string, FillOption>> = { none: 'NONE', static: 'STATIC', last_value: 'LAST_VALUE' };
const METHODS: readonly AggregationMethod[] = ['EVENT_FLOW', 'EVENT_TIMER', 'CADENCE'];

const keyOf = <T extends string>(table: Readonly<Record<string, T>>, value: T): string => Object.entries(table).find(([, v]) => v === value)![0];

export function policyObject(stored: StoredPolicy): Record<string, unknown> {
  const p = stored.policy;
  return { id: Number(p.id), incident_preference: p.incidentPreference, name: p.name, created_at: stored.createdAt, updated_at: stored.updatedAt };
}

/** `{"policy": {"name", "incident_preference"}}`: the fields given, checked; `requireName` on create. */
export function policyInput(body: unknown, requireName: boolean): { name?: string; incidentPreference?: IncidentPreference } {
  const policy = member(body, 'policy');
  const out: { name?: string; incidentPreference?: IncidentPreference } = {};
  const errors: string[] = [];
  if (policy.name !== undefined) {
    if (typeof policy.name !== 'string' || policy.name.trim().length < 1 || policy.name.length > 128) errors.push('policy.name must be a string of 1 to 128 characters');
    else out.name = policy.name;
  } else if (requireName) errors.push('policy.name is required');
  if (policy.incident_preference !== undefined) {
    if (typeof policy.incident_preference !== 'string' || !(INCIDENT_PREFERENCES as readonly string[]).includes(policy.incident_preference)) {
      errors.push(`policy.incident_preference must be one of ${INCIDENT_PREFERENCES.join(', ')}`);
    } else out.incidentPreference = policy.incident_preference as IncidentPreference;
  }
  if (errors.length > 0) throw RestError.unprocessable('Invalid policy', errors);
  return out;
}

/** A number of minutes (or seconds) as REST writes it: an integer without a point, else a decimal. */
function numberText(value: number): string {
  return String(value);
}

/** A threshold as New Relic's captured responses write it: always with a fraction ("2.0", "0.9"). */
function thresholdText(value: number): string {
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

/**
 * The legacy `since_value` (minutes the query looks back) is what New Relic migrated to the CADENCE
 * method with an aggregation delay of that many one-minute windows; a condition of that shape
 * shows it again, so a REST client reads back what it wrote.
 */
function sinceValueOf(c: NrqlCondition): string | undefined {
  const s = c.signal;
  if (s.aggregationMethod !== 'CADENCE' || s.aggregationWindow !== 60 || s.slideBy !== null || s.aggregationDelay === null) return undefined;
  const minutes = s.aggregationDelay / 60;
  return Number.isInteger(minutes) && minutes >= 1 && minutes <= 20 ? String(minutes) : undefined;
}

export function nrqlConditionObject(stored: StoredCondition, entityGuid: string): Record<string, unknown> {
  const c = stored.condition;
  const s = c.signal;
  const since = sinceValueOf(c);
  return {
    id: Number(c.id),
    type: 'static',
    name: c.name,
    runbook_url: c.runbookUrl ?? '',
    enabled: c.enabled,
    value_function: 'single_value',
    violation_time_limit_seconds: c.violationTimeLimitSeconds,
    terms: termObjects(c),
    nrql: { query: c.query, ...(since !== undefined ? { since_value: since } : {}) },
    signal: {
      aggregation_window: numberText(s.aggregationWindow),
      aggregation_method: s.aggregationMethod,
      ...(s.aggregationDelay !== null ? { aggregation_delay: s.aggregationDelay } : {}),
      ...(s.aggregationTimer !== null ? { aggregation_timer: s.aggregationTimer } : {}),
      ...(s.slideBy !== null ? { slide_by: s.slideBy } : {}),
      fill_option: keyOf(FILL_OPTIONS, s.fillOption),
      ...(s.fillValue !== null ? { fill_value: numberText(s.fillValue) } : {}),
    },
    expiration: {
      ...(c.expiration.expirationDuration !== null ? { expiration_duration: c.expiration.expirationDuration } : {}),
      open_violation_on_expiration: c.expiration.openViolationOnExpiration,
      close_violations_on_expiration: c.expiration.closeViolationsOnExpiration,
    },
    entity_guid: entityGuid,
  };
}

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `body[key]`, which must be an object. */
export function member(body: unknown, key: string): Obj {
  const value = isObject(body) ? body[key] : undefined;
  if (!isObject(value)) throw RestError.unprocessable(`The request body must be a JSON object with a '${key}' object`);
  return value;
}

/** The request's `nrql_condition` laid over `current`'s REST form: nested objects merge key by key. */
export function mergeNrqlCondition(current: Obj, patch: Obj): Obj {
  const out: Obj = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    out[key] = isObject(value) && isObject(current[key]) && key !== 'terms' ? { ...(current[key] as Obj), ...value } : value;
  }
  // The two spellings of the look-back exclude each other: a stored condition shown with since_value
  // is shown with the signal it stands for too, so only one of them is kept — the signal when the
  // request gives one, else since_value. A request giving both is refused later.
  const patchSince = isObject(patch.nrql) && patch.nrql.since_value !== undefined;
  if (isObject(out.nrql) && out.nrql.since_value !== undefined && out.signal !== undefined) {
    if (patch.signal !== undefined && !patchSince) {
      const { since_value: _dropped, ...rest } = out.nrql;
      out.nrql = rest;
    } else if (patch.signal === undefined) delete out.signal;
  }
  return out;
}

/** Reads REST's loosely typed fields, collecting every problem instead of stopping at the first. */
export class FieldReader {
  readonly errors: string[] = [];

  text(key: string, value: unknown, required: boolean): string | undefined {
    if (value === undefined || value === null) {
      if (required) this.errors.push(`${key} is required`);
      return undefined;
    }
    if (typeof value !== 'string') {
      this.errors.push(`${key} must be a string`);
      return undefined;
    }
    return value;
  }

  num(key: string, value: unknown): number | undefined {
    if (value === undefined || value === null || value === '') return undefined;
    const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
    if (!Number.isFinite(n)) {
      this.errors.push(`${key} must be a number (or a string holding one), got ${JSON.stringify(value)}`);
      return undefined;
    }
    return n;
  }

  bool(key: string, value: unknown): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    this.errors.push(`${key} must be true or false`);
    return undefined;
  }

  oneOf<T>(key: string, value: unknown, table: Readonly<Record<string, T>>): T | undefined {
    if (value === undefined || value === null) return undefined;
    const found = typeof value === 'string' ? table[value.toLowerCase()] : undefined;
    if (found === undefined) this.errors.push(`${key} must be one of ${Object.keys(table).join(', ')}, got ${JSON.stringify(value)}`);
    return found;
  }

  /** REST terms: minutes as numbers or strings (more than 0, at most `maxMinutes`), thresholds ≥ 0. */
  terms(rawTerms: unknown, operators: Readonly<Record<string, TermOperator>>, maxMinutes: number): NonNullable<NrqlConditionInput['terms']>[number][] {
    const terms: NonNullable<NrqlConditionInput['terms']>[number][] = [];
    if (rawTerms !== undefined && !Array.isArray(rawTerms)) this.errors.push('terms must be an array');
    for (const [i, t] of (Array.isArray(rawTerms) ? rawTerms : []).entries()) {
      const at = `terms[${i}]`;
      if (!isObject(t)) {
        this.errors.push(`${at} must be an object`);
        continue;
      }
      const duration = this.num(`${at}.duration`, t.duration);
      const threshold = this.num(`${at}.threshold`, t.threshold);
      const operator = this.oneOf(`${at}.operator`, t.operator, operators);
      const priority = this.oneOf(`${at}.priority`, t.priority ?? 'critical', PRIORITIES);
      const occurrences = this.oneOf(`${at}.time_function`, t.time_function, TIME_FUNCTIONS);
      const exclude = this.bool(`${at}.exclude_from_entity_status`, t.exclude_from_entity_status);
      if (t.duration === undefined) this.errors.push(`${at}.duration is required (minutes)`);
      else if (duration !== undefined && !(duration > 0 && duration <= maxMinutes)) this.errors.push(`${at}.duration must be a number of minutes above 0 and at most ${maxMinutes}, got ${JSON.stringify(t.duration)}`);
      if (t.threshold === undefined) this.errors.push(`${at}.threshold is required`);
      else if (threshold !== undefined && threshold < 0) this.errors.push(`${at}.threshold must be a number of at least 0, got ${JSON.stringify(t.threshold)}`);
      if (t.operator === undefined) this.errors.push(`${at}.operator is required`);
      if (t.time_function === undefined) this.errors.push(`${at}.time_function is required (all or any)`);
      if (duration === undefined || threshold === undefined || operator === undefined || priority === undefined || occurrences === undefined) continue;
      terms.push({ priority, operator, threshold, thresholdDuration: Math.round(duration * 60), thresholdOccurrences: occurrences, disableHealthStatusReporting: exclude ?? false });
    }
    return terms;
  }
}

/** REST terms as clients read them back. */
export function termObjects(c: NrqlCondition): Record<string, unknown>[] {
  return c.terms.map((t) => ({
    duration: numberText(t.thresholdDuration / 60),
    operator: keyOf(OPERATORS, t.operator),
    priority: keyOf(PRIORITIES, t.priority),
    threshold: thresholdText(t.threshold),
    time_function: keyOf(TIME_FUNCTIONS, t.thresholdOccurrences),
    ...(t.disableHealthStatusReporting ? { exclude_from_entity_status: true } : {}),
  }));
}

/** Operators of APM metric conditions (NRQL conditions have three more). */
export const METRIC_OPERATORS: Readonly<Record<string, TermOperator>> = { above: 'ABOVE', below: 'BELOW', equal: 'EQUALS' };

/** A REST NRQL condition (create body, or a merged update) → the domain's input, or a 422 listing every problem. */
export function nrqlConditionInput(c: Obj): NrqlConditionInput {
  const r = new FieldReader();
  const errors = r.errors;
  const text = r.text.bind(r);
  const num = r.num.bind(r);
  const bool = r.bool.bind(r);
  const oneOf = r.oneOf.bind(r);

  if (c.type !== undefined && c.type !== 'static') errors.push(`type must be 'static': baseline and outlier NRQL conditions are not available through REST, got ${JSON.stringify(c.type)}`);
  const name = text('name', c.name, true) ?? '';
  const runbook = text('runbook_url', c.runbook_url, false);
  const enabled = bool('enabled', c.enabled) ?? false;

  const terms = r.terms(c.terms, OPERATORS, 1440);

  const valueFunction = c.value_function ?? 'single_value';
  if (valueFunction === 'sum') {
    if (terms.some((t) => t.thresholdOccurrences !== 'AT_LEAST_ONCE')) errors.push("terms[].time_function must be 'any' if value_function is set to 'sum'");
    else errors.push("value_function 'sum' is not supported: Timeslice evaluates each aggregation window's value (single_value)");
  } else if (valueFunction !== 'single_value') {
    errors.push(`value_function must be single_value or sum, got ${JSON.stringify(valueFunction)}`);
  }

  const nrql = c.nrql;
  let query = '';
  let sinceMinutes: number | undefined;
  if (!isObject(nrql)) errors.push('nrql.query is required');
  else {
    query = text('nrql.query', nrql.query, true) ?? '';
    if (nrql.since_value !== undefined && nrql.since_value !== null) {
      sinceMinutes = num('nrql.since_value', nrql.since_value);
      if (sinceMinutes !== undefined && (!Number.isInteger(sinceMinutes) || sinceMinutes < 1 || sinceMinutes > 20)) {
        errors.push(`nrql.since_value must be a whole number of minutes from 1 to 20, got ${JSON.stringify(nrql.since_value)}`);
        sinceMinutes = undefined;
      }
      if (c.signal !== undefined && c.signal !== null) errors.push('nrql.since_value cannot be combined with signal: give the aggregation settings in signal alone');
    }
  }

  let signal: NrqlConditionInput['signal'] = null;
  if (c.signal !== undefined && c.signal !== null) {
    if (!isObject(c.signal)) errors.push('signal must be an object');
    else {
      const s = c.signal;
      const method = s.aggregation_method;
      if (method !== undefined && (typeof method !== 'string' || !(METHODS as readonly string[]).includes(method.toUpperCase()))) {
        errors.push(`signal.aggregation_method must be one of ${METHODS.join(', ')}, got ${JSON.stringify(method)}`);
      }
      const nonNegative = (key: string, value: unknown) => {
        const n = num(`signal.${key}`, value);
        if (n !== undefined && n < 0) errors.push(`signal.${key} must not be negative, got ${JSON.stringify(value)}`);
        return n;
      };
      const fill = oneOf('signal.fill_option', s.fill_option, FILL_OPTIONS);
      signal = {
        aggregationWindow: nonNegative('aggregation_window', s.aggregation_window) ?? null,
        aggregationMethod: typeof method === 'string' && (METHODS as readonly string[]).includes(method.toUpperCase()) ? (method.toUpperCase() as AggregationMethod) : null,
        aggregationDelay: nonNegative('aggregation_delay', s.aggregation_delay) ?? null,
        aggregationTimer: nonNegative('aggregation_timer', s.aggregation_timer) ?? null,
        slideBy: nonNegative('slide_by', s.slide_by) ?? null,
        fillOption: fill ?? null,
        fillValue: num('signal.fill_value', s.fill_value) ?? null,
      };
    }
  } else if (sinceMinutes !== undefined) {
    signal = { aggregationWindow: 60, aggregationMethod: 'CADENCE', aggregationDelay: sinceMinutes * 60 };
  }

  let expiration: NrqlConditionInput['expiration'] = null;
  if (c.expiration !== undefined && c.expiration !== null) {
    if (!isObject(c.expiration)) errors.push('expiration must be an object');
    else {
      const e = c.expiration;
      const duration = num('expiration.expiration_duration', e.expiration_duration);
      if (duration !== undefined && duration < 0) errors.push(`expiration.expiration_duration must not be negative, got ${JSON.stringify(e.expiration_duration)}`);
      expiration = {
        expirationDuration: duration ?? null,
        openViolationOnExpiration: bool('expiration.open_violation_on_expiration', e.open_violation_on_expiration) ?? null,
        closeViolationsOnExpiration: bool('expiration.close_violations_on_expiration', e.close_violations_on_expiration) ?? null,
      };
    }
  }
  const limit = num('violation_time_limit_seconds', c.violation_time_limit_seconds);
  if (limit !== undefined && limit < 0) errors.push(`violation_time_limit_seconds must not be negative, got ${JSON.stringify(c.violation_time_limit_seconds)}`);

  if (errors.length > 0) throw RestError.unprocessable('Invalid NRQL condition', errors);
  return {
    name,
    enabled,
    query,
    runbookUrl: runbook === undefined || runbook === '' ? null : runbook,
    terms,
    signal,
    expiration,
    violationTimeLimitSeconds: limit ?? null,
  };
}
