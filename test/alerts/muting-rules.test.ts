import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkMutingRule, mutingRuleActive, workflowNotifies, zonedIso, type MutingRule, type MutingSchedule } from '../../src/domain/alerts/muting-rules.js';

// Muting schedules in wall-clock time of a zone, their repeats and bounds, and rule validation.

const rule = (schedule: Partial<MutingSchedule> | null, enabled = true): MutingRule => ({
  id: '1', accountId: 1, name: 'r', description: '', enabled, actionOnMutingRuleWindowEnded: 'DO_NOTHING', createdAt: 0, updatedAt: 0, createdBy: null, updatedBy: null,
  condition: { operator: 'AND', conditions: [{ attribute: 'conditionName', operator: 'IS_NOT_BLANK', values: [] }] },
  schedule: schedule === null ? null : { startTime: null, endTime: null, timeZone: 'UTC', repeat: null, endRepeat: null, repeatCount: null, weeklyRepeatDays: null, ...schedule },
});
const at = (iso: string) => Date.parse(iso);

test('no schedule: active while enabled; a one-off window in a zone with daylight saving', () => {
  assert.equal(mutingRuleActive(rule(null), 0), true);
  assert.equal(mutingRuleActive(rule(null, false), 0), false);
  // 09:00–10:00 in New York on 2024-03-11 (EDT, UTC−4) is 13:00–14:00 UTC.
  const ny = rule({ startTime: '2024-03-11T09:00:00', endTime: '2024-03-11T10:00:00', timeZone: 'America/New_York' });
  assert.deepEqual(['12:59:59', '13:00:00', '13:59:59', '14:00:00'].map((t) => mutingRuleActive(ny, at(`2024-03-11T${t}Z`))), [false, true, true, false]);
});

test('WEEKLY on listed days, DAILY across midnight, MONTHLY on the same date, bounded by repeatCount or endRepeat', () => {
  // Mondays and Wednesdays 22:00–23:00 UTC from Monday 2024-06-03; 2024-06-05 is a Wednesday, 06-06 a Thursday.
  const weekly = rule({ startTime: '2024-06-03T22:00:00', endTime: '2024-06-03T23:00:00', repeat: 'WEEKLY', weeklyRepeatDays: ['MONDAY', 'WEDNESDAY'] });
  assert.deepEqual(['2024-06-05T22:30:00Z', '2024-06-06T22:30:00Z', '2024-06-10T22:00:00Z', '2024-06-10T23:00:00Z'].map((t) => mutingRuleActive(weekly, at(t))), [true, false, true, false]);
  // 23:00–01:00 every day, three occurrences in all: 06-01, 06-02, 06-03.
  const daily = rule({ startTime: '2024-06-01T23:00:00', endTime: '2024-06-02T01:00:00', repeat: 'DAILY', repeatCount: 3 });
  assert.deepEqual(['2024-06-03T00:30:00Z', '2024-06-04T00:30:00Z', '2024-06-04T23:30:00Z'].map((t) => mutingRuleActive(daily, at(t))), [true, true, false]);
  const monthly = rule({ startTime: '2024-01-31T10:00:00', endTime: '2024-01-31T11:00:00', repeat: 'MONTHLY', endRepeat: '2024-05-01T00:00:00' });
  assert.deepEqual(['2024-03-31T10:30:00Z', '2024-02-29T10:30:00Z', '2024-05-31T10:30:00Z'].map((t) => mutingRuleActive(monthly, at(t))), [true, false, false]);
});

test('schedule times are shown with the zone offset of their instant', () => {
  assert.equal(zonedIso('2024-01-15T08:00:00', 'Europe/Paris'), '2024-01-15T08:00:00+01:00');
  assert.equal(zonedIso('2024-07-15T08:00:00', 'Europe/Paris'), '2024-07-15T08:00:00+02:00');
  assert.equal(zonedIso('2024-07-15T08:00:00', 'America/Los_Angeles'), '2024-07-15T08:00:00-07:00');
  assert.equal(zonedIso('2024-07-15T08:00:00', 'UTC'), '2024-07-15T08:00:00+00:00');
});

test('validation names each field', () => {
  const base = { name: 'r', condition: rule(null).condition };
  assert.deepEqual(checkMutingRule({ ...base, schedule: rule({ timeZone: 'Mars/Olympus', startTime: '2024-06-01 10:00', endTime: null }).schedule }), [
    { name: 'schedule.timeZone', reason: "'Mars/Olympus' is not an IANA time zone" },
    { name: 'schedule.startTime', reason: "startTime must be a local date and time, YYYY-MM-DDTHH:MM:SS, but was '2024-06-01 10:00'" },
  ]);
  assert.deepEqual(checkMutingRule({ ...base, schedule: rule({ startTime: '2024-06-01T10:00:00', endTime: '2024-06-01T09:00:00', repeat: 'WEEKLY' }).schedule }), [
    { name: 'schedule.endTime', reason: 'endTime must be after startTime' },
    { name: 'schedule.weeklyRepeatDays', reason: 'A WEEKLY schedule needs weeklyRepeatDays' },
  ]);
  assert.deepEqual(checkMutingRule({ name: '', condition: { operator: 'OR', conditions: [{ attribute: 'policyName', operator: 'EQUALS', values: [] }] }, schedule: null }), [
    { name: 'name', reason: 'Name must be between 1 and 128 characters' },
    { name: 'condition.conditions[].values', reason: 'The EQUALS operator needs a value' },
  ]);
});

test('workflows skip what their mutingRulesHandling excludes', () => {
  const table = ['NOTIFY_ALL_ISSUES', 'DONT_NOTIFY_FULLY_MUTED_ISSUES', 'DONT_NOTIFY_FULLY_OR_PARTIALLY_MUTED_ISSUES'].map((h) =>
    (['NOT_MUTED', 'PARTIALLY_MUTED', 'FULLY_MUTED'] as const).map((s) => workflowNotifies(h, s)));
  assert.deepEqual(table, [[true, true, true], [true, true, false], [true, false, false]]);
});
