import type { AlertPolicy, Incident, Issue, NrqlCondition } from './alert-model.js';
import { incidentVariables } from './incident-annotations.js';

/*
 * Muting rules (NerdGraph's alertsMutingRule*): while a rule is enabled and its schedule is active,
 * an incident that opens and matches its condition is muted. An issue is FULLY_MUTED when all its
 * incidents are muted, PARTIALLY_MUTED when some are; workflows skip what their
 * mutingRulesHandling excludes. Schedules are wall-clock times in the rule's IANA time zone.
 */

export type MutingOperator =
  | 'ANY' | 'CONTAINS' | 'ENDS_WITH' | 'EQUALS' | 'IN' | 'IS_BLANK' | 'IS_NOT_BLANK'
  | 'NOT_CONTAINS' | 'NOT_ENDS_WITH' | 'NOT_EQUALS' | 'NOT_IN' | 'NOT_STARTS_WITH' | 'STARTS_WITH';

export interface MutingRuleCondition {
  readonly attribute: string;
  readonly operator: MutingOperator;
  readonly values: readonly string[];
}

export type MutingRepeat = 'DAILY' | 'WEEKLY' | 'MONTHLY';

export interface MutingSchedule {
  /** Wall-clock times in `timeZone`, `YYYY-MM-DDTHH:MM:SS`. */
  readonly startTime: string | null;
  readonly endTime: string | null;
  readonly timeZone: string;
  readonly repeat: MutingRepeat | null;
  readonly endRepeat: string | null;
  /** Occurrences in all, the first included. */
  readonly repeatCount: number | null;
  readonly weeklyRepeatDays: readonly string[] | null;
}

export interface MutingRule {
  readonly id: string;
  readonly accountId: number;
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  readonly condition: { readonly operator: 'AND' | 'OR'; readonly conditions: readonly MutingRuleCondition[] };
  readonly schedule: MutingSchedule | null;
  readonly actionOnMutingRuleWindowEnded: 'CLOSE_ISSUES_ON_INACTIVE' | 'DO_NOTHING';
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly createdBy: MutingRuleUser | null;
  readonly updatedBy: MutingRuleUser | null;
}

export interface MutingRuleUser {
  readonly id: number;
  readonly name: string;
  readonly email: string | null;
}

const DAY_MS = 86_400_000;
/** Occurrences a repeating schedule may be limited to. */
export const MAX_REPEAT_COUNT = 1_000;
const NAIVE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;
const WEEKDAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];

/** A naive wall-clock time as if it were UTC, to compare and step by days. */
/**
 * Whether a repeating schedule first starting on `start` has an occurrence on `day` (both naive
 * wall-clock midnights-plus-time, ms): every day; on the start day and the named weekdays; or on
 * the start's day of the month.
 */
function occursOn(s: MutingSchedule, start: number, day: number): boolean {
  const date = new Date(day);
  if (s.repeat === 'DAILY') return true;
  if (s.repeat === 'WEEKLY') return day === start || (s.weeklyRepeatDays ?? []).includes(WEEKDAYS[date.getUTCDay()]!);
  return date.getUTCDate() === new Date(start).getUTCDate();
}

function naiveMs(text: string): number {
  return Date.parse(`${text}Z`);
}

/** The wall-clock time of an instant in a time zone, as naive milliseconds. */
export function wallClockMs(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(instant));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
}

/** A naive time in a zone as an RFC 3339 string with that zone's offset then (how NerdGraph shows schedules). */
export function zonedIso(naive: string, timeZone: string): string {
  const guess = naiveMs(naive);
  // The offset at the instant the wall clock shows `naive` (one correction covers DST edges but the gap).
  let instant = guess - (wallClockMs(guess, timeZone) - guess);
  instant = guess - (wallClockMs(instant, timeZone) - instant);
  const offsetMin = Math.round((wallClockMs(instant, timeZone) - instant) / 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  return `${naive}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** Whether the rule mutes at `now`: enabled, and inside a window of its schedule (always, without one). */
export function mutingRuleActive(rule: MutingRule, now: number): boolean {
  if (!rule.enabled) return false;
  const s = rule.schedule;
  if (s === null) return true;
  const clock = wallClockMs(now, s.timeZone);
  const start = s.startTime === null ? null : naiveMs(s.startTime);
  const end = s.endTime === null ? null : naiveMs(s.endTime);
  if (s.repeat === null || start === null || end === null) return (start === null || start <= clock) && (end === null || clock < end);
  const duration = end - start;
  const endRepeat = s.endRepeat === null ? null : naiveMs(s.endRepeat);
  // Walk the occurrences from the first (one per matching day) up to now; the last one that started counts.
  let index = 0;
  let last: number | null = null;
  for (let day = start; day <= clock; day += DAY_MS) {
    if (!occursOn(s, start, day)) continue;
    if (endRepeat !== null && day > endRepeat) break;
    if (s.repeatCount !== null && index >= s.repeatCount) break;
    last = day;
    index++;
  }
  return last !== null && clock < last + duration;
}

function text(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  return String(value);
}

/** One condition of a rule against the incident's attributes (values compare as text). */
function conditionHolds(c: MutingRuleCondition, attributes: Readonly<Record<string, unknown>>): boolean {
  const value = text(attributes[c.attribute]);
  const first = c.values[0] ?? '';
  switch (c.operator) {
    case 'IS_BLANK': return value === null;
    case 'IS_NOT_BLANK': return value !== null;
    case 'EQUALS': return value === first;
    case 'NOT_EQUALS': return value !== first;
    case 'IN': case 'ANY': return value !== null && c.values.includes(value);
    case 'NOT_IN': return value === null || !c.values.includes(value);
    case 'CONTAINS': return value !== null && value.includes(first);
    case 'NOT_CONTAINS': return value === null || !value.includes(first);
    case 'STARTS_WITH': return value !== null && value.startsWith(first);
    case 'NOT_STARTS_WITH': return value === null || !value.startsWith(first);
    case 'ENDS_WITH': return value !== null && value.endsWith(first);
    case 'NOT_ENDS_WITH': return value === null || !value.endsWith(first);
    default: {
      const never: never = c.operator;
      return never;
    }
  }
}

export function mutingRuleMatches(rule: MutingRule, attributes: Readonly<Record<string, unknown>>): boolean {
  const results = rule.condition.conditions.map((c) => conditionHolds(c, attributes));
  return rule.condition.operator === 'AND' ? results.every(Boolean) : results.some(Boolean);
}

/** The first rule of the account that mutes an incident with these attributes at `now`. */
export function mutingRuleFor(rules: readonly MutingRule[], accountId: number, attributes: Readonly<Record<string, unknown>>, now: number): MutingRule | undefined {
  return rules.find((r) => r.accountId === accountId && mutingRuleActive(r, now) && mutingRuleMatches(r, attributes));
}

/** What a rule cannot be, as NerdGraph validation errors. */
export function checkMutingRule(rule: Pick<MutingRule, 'name' | 'condition' | 'schedule'>): Array<{ name: string; reason: string }> {
  const errors: Array<{ name: string; reason: string }> = [];
  if (rule.name.length < 1 || rule.name.length > 128) errors.push({ name: 'name', reason: 'Name must be between 1 and 128 characters' });
  if (rule.condition.conditions.length === 0) errors.push({ name: 'condition.conditions', reason: 'A muting rule needs at least one condition' });
  for (const c of rule.condition.conditions) {
    const needsValue = c.operator !== 'IS_BLANK' && c.operator !== 'IS_NOT_BLANK';
    if (needsValue && c.values.length === 0) errors.push({ name: 'condition.conditions[].values', reason: `The ${c.operator} operator needs a value` });
  }
  const s = rule.schedule;
  if (s === null) return errors;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: s.timeZone });
  } catch {
    errors.push({ name: 'schedule.timeZone', reason: `'${s.timeZone}' is not an IANA time zone` });
  }
  for (const name of ['startTime', 'endTime', 'endRepeat'] as const) {
    const value = s[name];
    if (value !== null && (!NAIVE.test(value) || Number.isNaN(naiveMs(value)))) errors.push({ name: `schedule.${name}`, reason: `${name} must be a local date and time, YYYY-MM-DDTHH:MM:SS, but was '${value}'` });
  }
  if (s.startTime !== null && s.endTime !== null && NAIVE.test(s.startTime) && NAIVE.test(s.endTime) && naiveMs(s.endTime) <= naiveMs(s.startTime)) {
    errors.push({ name: 'schedule.endTime', reason: 'endTime must be after startTime' });
  }
  if (s.repeat !== null) {
    if (s.startTime === null || s.endTime === null) errors.push({ name: 'schedule.repeat', reason: 'A repeating schedule needs a startTime and an endTime' });
    else if (NAIVE.test(s.startTime) && NAIVE.test(s.endTime) && naiveMs(s.endTime) - naiveMs(s.startTime) > DAY_MS) {
      errors.push({ name: 'schedule.endTime', reason: 'A repeating window lasts at most one day' });
    }
    if (s.endRepeat !== null && s.repeatCount !== null) errors.push({ name: 'schedule.repeatCount', reason: 'Give endRepeat or repeatCount, not both' });
    if (s.repeatCount !== null && (!Number.isInteger(s.repeatCount) || s.repeatCount < 1 || s.repeatCount > MAX_REPEAT_COUNT)) {
      errors.push({ name: 'schedule.repeatCount', reason: `repeatCount must be a whole number from 1 to ${MAX_REPEAT_COUNT}` });
    }
    if (s.repeat === 'WEEKLY' && (s.weeklyRepeatDays ?? []).length === 0) errors.push({ name: 'schedule.weeklyRepeatDays', reason: 'A WEEKLY schedule needs weeklyRepeatDays' });
  } else if (s.endRepeat !== null || s.repeatCount !== null || (s.weeklyRepeatDays ?? []).length > 0) {
    errors.push({ name: 'schedule.repeat', reason: 'endRepeat, repeatCount and weeklyRepeatDays need a repeat' });
  }
  return errors;
}

/**
 * The attributes a muting rule's conditions name, for an incident as it opens: New Relic's list
 * (accountId, conditionId, conditionName, conditionRunbookUrl, conditionType, entity.guid, nrqlQuery,
 * policyId, policyName, product, targetName, tag.<facet> / tags.<facet>).
 */
export function mutingAttributes(condition: NrqlCondition, policy: AlertPolicy, incident: Incident): Record<string, unknown> {
  const vars = incidentVariables(condition, policy, incident);
  const tags = Object.fromEntries(Object.entries(incident.facets).flatMap(([k, v]) => [[`tag.${k}`, v], [`tags.${k}`, v]]));
  return {
    ...tags,
    accountId: incident.accountId,
    conditionId: condition.id,
    conditionName: condition.name,
    conditionRunbookUrl: condition.runbookUrl,
    conditionType: 'NRQL',
    'entity.guid': incident.facets['entity.guid'] ?? incident.facets['entityGuid'] ?? null,
    nrqlQuery: condition.query,
    policyId: policy.id,
    policyName: policy.name,
    product: 'NRQL',
    targetName: vars.targetName,
  };
}

/** NerdGraph's AiIssuesIssueMutingState of an issue from its muted incidents. */
export function issueMutingState(issue: Pick<Issue, 'incidentIds' | 'mutedIncidentIds'>): 'NOT_MUTED' | 'PARTIALLY_MUTED' | 'FULLY_MUTED' {
  const muted = issue.mutedIncidentIds?.length ?? 0;
  if (muted === 0) return 'NOT_MUTED';
  return muted >= issue.incidentIds.length ? 'FULLY_MUTED' : 'PARTIALLY_MUTED';
}

/** Whether a workflow with this mutingRulesHandling notifies about an issue in this muting state. */
export function workflowNotifies(handling: string, state: ReturnType<typeof issueMutingState>): boolean {
  if (handling === 'DONT_NOTIFY_FULLY_MUTED_ISSUES') return state !== 'FULLY_MUTED';
  if (handling === 'DONT_NOTIFY_FULLY_OR_PARTIALLY_MUTED_ISSUES') return state === 'NOT_MUTED';
  return true;
}

/** NerdGraph's AlertsMutingRuleStatus at `now`. */
export function mutingRuleStatus(rule: MutingRule, now: number): 'ACTIVE' | 'ENDED' | 'INACTIVE' | 'SCHEDULED' {
  if (!rule.enabled) return 'INACTIVE';
  if (mutingRuleActive(rule, now)) return 'ACTIVE';
  const s = rule.schedule!;
  const clock = wallClockMs(now, s.timeZone);
  if (s.startTime !== null && clock < naiveMs(s.startTime)) return 'SCHEDULED';
  if (s.repeat === null) return 'ENDED';
  if (s.endRepeat !== null && clock > naiveMs(s.endRepeat)) return 'ENDED';
  if (s.repeatCount !== null && s.startTime !== null && !hasOccurrenceLeft(rule, now)) return 'ENDED';
  return 'SCHEDULED';
}

/** Whether a repeating schedule bounded by repeatCount still has an occurrence to come. */
function hasOccurrenceLeft(rule: MutingRule, now: number): boolean {
  const s = rule.schedule!;
  const clock = wallClockMs(now, s.timeZone);
  const start = naiveMs(s.startTime!);
  let index = 0;
  for (let day = start; index < (s.repeatCount ?? Infinity); day += DAY_MS) {
    if (!occursOn(s, start, day)) continue;
    if (day > clock) return true;
    index++;
  }
  return false;
}
