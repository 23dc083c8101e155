import type { Incident, Issue } from './alert-model.js';

/*
 * REST v2's notification channels (alerts.md §1.3–§1.4, §5.4): the pre-workflow way of telling
 * someone about an issue (a REST incident). A channel is linked to policies; every issue of a linked
 * policy is announced when it opens, is acknowledged and closes. Only `webhook` channels are
 * delivered; the other types are stored and listed, and each delivery they would have made is
 * recorded as failed, saying why.
 */

export const LEGACY_CHANNEL_TYPES = ['user', 'email', 'slack', 'webhook', 'pagerduty', 'opsgenie', 'victorops', 'campfire', 'hipchat', 'xmatters'] as const;
export type LegacyChannelType = (typeof LEGACY_CHANNEL_TYPES)[number];

export interface LegacyChannel {
  readonly id: number;
  readonly accountId: number;
  readonly name: string;
  readonly type: LegacyChannelType;
  /** As sent, strings kept strings; `payload` and `headers` of a webhook are objects (parsed when sent as JSON text). */
  readonly configuration: Readonly<Record<string, unknown>>;
  readonly policyIds: readonly number[];
  readonly createdAt: number;
}

/** Keys whose values are secrets: stored, never shown back. */
export const SECRET_CONFIGURATION_KEYS: readonly string[] = ['auth_password', 'service_key', 'api_key', 'key', 'route_key'];

/** What a webhook channel's configuration needs; the problems of one that is wrong. */
export function checkLegacyConfiguration(type: LegacyChannelType, configuration: Record<string, unknown>): { configuration: Record<string, unknown>; errors: string[] } {
  const errors: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(configuration)) {
    if (type === 'webhook' && (key === 'payload' || key === 'headers')) {
      if (value === '' || value === null) continue;
      let parsed: unknown = value;
      if (typeof value === 'string') {
        try {
          parsed = JSON.parse(value) as unknown;
        } catch {
          errors.push(`configuration.${key} must be a JSON object (or a string holding one)`);
          continue;
        }
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) errors.push(`configuration.${key} must be a JSON object (or a string holding one)`);
      else out[key] = parsed;
      continue;
    }
    if (value !== null && typeof value === 'object') errors.push(`configuration.${key} must be a string`);
    else out[key] = value === null ? '' : String(value);
  }
  if (type === 'webhook') {
    const url = out.base_url;
    if (typeof url !== 'string' || url === '') errors.push('configuration.base_url is required for a webhook channel');
    else if (!/^https?:\/\/\S+$/i.test(url)) errors.push(`configuration.base_url '${url}' is not an http or https URL`);
    const payloadType = out.payload_type;
    if (payloadType !== undefined && payloadType !== '' && payloadType !== 'application/json' && payloadType !== 'application/x-www-form-urlencoded') {
      errors.push("configuration.payload_type must be 'application/json' or 'application/x-www-form-urlencoded'");
    }
  }
  if (type === 'email' && (typeof out.recipients !== 'string' || out.recipients === '')) errors.push('configuration.recipients is required for an email channel');
  return { configuration: out, errors };
}

/** The issue step a legacy channel announces, as its payload's `current_state`. */
export type LegacyState = 'open' | 'acknowledged' | 'closed';

export interface LegacyPayloadInput {
  readonly issue: Issue;
  /** REST's number of the issue (its "incident id"). */
  readonly issueNumber: number;
  /** The issue's incidents (REST violations), as they stand. */
  readonly incidents: readonly Incident[];
  readonly state: LegacyState;
  readonly at: number;
  readonly accountName: string;
  readonly origin: string;
  /** The target of an incident: an APM application when the signal is one, else the query. */
  readonly targetOf: (incident: Incident) => LegacyTarget;
  readonly runbookUrl: string | null;
  readonly conditionDescription: string | null;
}

export interface LegacyTarget {
  readonly id: string;
  readonly name: string;
  readonly link: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly product: string;
  readonly type: string;
}

/** `2024-06-10, 06:19 UTC`. */
function utcText(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)}, ${iso.slice(11, 16)} UTC`;
}

/** The default legacy webhook body (alerts.md §5.4), keys in New Relic's order. */
export function legacyWebhookPayload(p: LegacyPayloadInput): Record<string, unknown> {
  const { issue, issueNumber: n, origin } = p;
  const first = p.incidents[0];
  const count = (open: boolean, priority: 'CRITICAL' | 'HIGH') => p.incidents.filter((i) => (i.closedAt === null) === open && i.priority === priority).length;
  const incidentUrl = `${origin}/accounts/${issue.accountId}/incidents/${n}`;
  const targets: LegacyTarget[] = [];
  for (const incident of p.incidents) {
    const target = p.targetOf(incident);
    if (!targets.some((t) => t.id === target.id && t.name === target.name)) targets.push(target);
  }
  return {
    account_id: issue.accountId,
    account_name: p.accountName,
    closed_violations_count_critical: count(false, 'CRITICAL'),
    closed_violations_count_warning: count(false, 'HIGH'),
    condition_description: p.conditionDescription ?? '',
    condition_family_id: first === undefined ? null : Number(first.conditionId),
    condition_id: first === undefined ? null : Number(first.conditionId),
    condition_name: issue.conditionNames[0] ?? '',
    current_state: p.state,
    details: first?.title ?? issue.titles[0] ?? '',
    duration: Math.max(0, p.at - issue.createdAt),
    event_type: 'INCIDENT',
    incident_acknowledge_url: `${incidentUrl}/acknowledge`,
    incident_id: n,
    incident_url: incidentUrl,
    open_violations_count_critical: count(true, 'CRITICAL'),
    open_violations_count_warning: count(true, 'HIGH'),
    owner: issue.acknowledgedBy ?? '',
    policy_name: issue.policyName,
    policy_url: `${origin}/accounts/${issue.accountId}/policies/${issue.policyId}`,
    runbook_url: p.runbookUrl,
    severity: issue.priority === 'CRITICAL' ? 'CRITICAL' : 'WARNING',
    targets,
    timestamp: p.at,
    timestamp_utc_string: utcText(p.at),
    violation_callback_url: incidentUrl,
    violation_chart_url: incidentUrl,
  };
}

/** `$VARIABLE` → the default payload's key (New Relic's custom payload variables). */
const VARIABLES: Readonly<Record<string, string>> = {
  ACCOUNT_ID: 'account_id', ACCOUNT_NAME: 'account_name',
  CLOSED_VIOLATIONS_COUNT_CRITICAL: 'closed_violations_count_critical', CLOSED_VIOLATIONS_COUNT_WARNING: 'closed_violations_count_warning',
  OPEN_VIOLATIONS_COUNT_CRITICAL: 'open_violations_count_critical', OPEN_VIOLATIONS_COUNT_WARNING: 'open_violations_count_warning',
  CONDITION_FAMILY_ID: 'condition_family_id', CONDITION_ID: 'condition_id', CONDITION_NAME: 'condition_name', DESCRIPTION: 'condition_description',
  EVENT_STATE: 'current_state', EVENT_DETAILS: 'details', DURATION: 'duration', EVENT_TYPE: 'event_type',
  INCIDENT_ID: 'incident_id', INCIDENT_URL: 'incident_url', INCIDENT_ACKNOWLEDGE_URL: 'incident_acknowledge_url',
  EVENT_OWNER: 'owner', POLICY_NAME: 'policy_name', POLICY_URL: 'policy_url', RUNBOOK_URL: 'runbook_url', SEVERITY: 'severity',
  TARGETS: 'targets', TIMESTAMP: 'timestamp', TIMESTAMP_UTC_STRING: 'timestamp_utc_string',
  VIOLATION_CALLBACK_URL: 'violation_callback_url', VIOLATION_CHART_URL: 'violation_chart_url',
};

/**
 * A custom payload: every string that is exactly one `$VARIABLE` becomes the variable's value with its
 * type (a number, the targets array); variables inside longer strings are replaced by their text; an
 * unknown `$NAME` is left as written.
 */
export function renderLegacyPayload(template: unknown, values: Readonly<Record<string, unknown>>): unknown {
  const valueOf = (name: string): unknown => (VARIABLES[name] === undefined ? undefined : values[VARIABLES[name]!]);
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const whole = /^\$([A-Z_]+)$/.exec(node);
      if (whole !== null && valueOf(whole[1]!) !== undefined) return valueOf(whole[1]!);
      return node.replace(/\$([A-Z_]+)/g, (text, name: string) => {
        const v = valueOf(name);
        return v === undefined ? text : v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
      });
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
    return node;
  };
  return walk(template);
}

/** `application/x-www-form-urlencoded`: one field per key, objects and arrays as JSON text. */
export function formEncode(body: Readonly<Record<string, unknown>>): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) form.append(key, value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));
  return form.toString();
}
