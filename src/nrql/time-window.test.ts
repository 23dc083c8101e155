import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BucketSize, DayRef, Interval, Span, TimePoint, TimeUnit } from './ast.js';
import { NrqlError } from './nrql-error.js';
import { formatAgo, formatTimePoint, intervalMs, resolveBuckets, resolveCompareWindow, resolveTimeWindow, type TimeWindowInput } from './time-window.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The reference's "now": 2023-12-18T12:34:56.789Z, a Monday. */
const NOW = at('2023-12-18T12:34:56.789Z');

const SINCE_SPAN: Span = { start: 40, end: 60 };
const UNTIL_SPAN: Span = { start: 61, end: 80 };

const interval = (amount: number, unit: TimeUnit): Interval => ({ amount, unit });
const ago = (amount: number, unit: TimeUnit, span = SINCE_SPAN): TimePoint => ({ kind: 'ago', interval: interval(amount, unit), span });
const now = (span = UNTIL_SPAN): TimePoint => ({ kind: 'now', span });
const epoch = (ms: number, span = SINCE_SPAN): TimePoint => ({ kind: 'epochMs', ms, span });
const text = (value: string, span = SINCE_SPAN): TimePoint => ({ kind: 'dateTime', text: value, span });
const day = (name: DayRef, atTime?: string, span = SINCE_SPAN): TimePoint =>
  atTime === undefined ? { kind: 'day', day: name, span } : { kind: 'day', day: name, at: atTime, span };
const calendar = (which: 'this' | 'last', unit: 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year', span = SINCE_SPAN): TimePoint => ({ kind: 'calendar', which, unit, span });

/** The begin SINCE `point` resolves to, as ISO text. */
function since(point: TimePoint, nowMs = NOW, timezone?: string): string {
  return iso(resolveTimeWindow(timezone === undefined ? { since: point } : { since: point, timezone }, nowMs).beginMs);
}

/** The end UNTIL `point` resolves to (SINCE the epoch, so any end is after the begin). */
function until(point: TimePoint, nowMs = NOW, timezone?: string): string {
  const input: TimeWindowInput = { since: epoch(0), until: point, ...(timezone === undefined ? {} : { timezone }) };
  return iso(resolveTimeWindow(input, nowMs).endMs);
}

function nrqlError(code: string, message: string, span?: Span) {
  return (e: unknown) => {
    assert.ok(e instanceof NrqlError, String(e));
    assert.equal(e.code, code);
    assert.equal(e.message, message);
    assert.deepEqual(e.span, span);
    return true;
  };
}

test('intervalMs: fixed unit lengths (month 30 days, quarter 91, year 365)', () => {
  assert.equal(intervalMs(interval(7, 'millisecond')), 7);
  assert.equal(intervalMs(interval(3, 'second')), 3_000);
  assert.equal(intervalMs(interval(5, 'minute')), 300_000);
  assert.equal(intervalMs(interval(2, 'hour')), 7_200_000);
  assert.equal(intervalMs(interval(1, 'day')), 86_400_000);
  assert.equal(intervalMs(interval(2, 'week')), 1_209_600_000);
  assert.equal(intervalMs(interval(1, 'month')), 2_592_000_000);
  assert.equal(intervalMs(interval(1, 'quarter')), 7_862_400_000);
  assert.equal(intervalMs(interval(1, 'year')), 31_536_000_000);
  assert.equal(intervalMs(interval(0, 'year')), 0);
});

test('reference §7.3: every time-window resolution, now = 2023-12-18T12:34:56.789Z', () => {
  const none = resolveTimeWindow({}, NOW);
  assert.deepEqual(none, { beginMs: NOW - HOUR, endMs: NOW, since: '60 MINUTES AGO', until: 'NOW' });
  assert.equal(since(ago(2, 'hour')), '2023-12-18T10:34:56.789Z');
  assert.equal(since(ago(2, 'month')), '2023-10-19T12:34:56.789Z');
  assert.equal(since(ago(2, 'quarter')), '2023-06-19T12:34:56.789Z');
  assert.equal(since(day('today')), '2023-12-18T00:00:00.000Z');
  assert.equal(since(day('yesterday', '01:23:45')), '2023-12-17T01:23:45.000Z');
  assert.equal(since(day('tuesday')), '2023-12-12T00:00:00.000Z');
  assert.equal(since(day('today', '23:45')), '2023-12-17T23:45:00.000Z');
  assert.equal(since(calendar('this', 'week')), '2023-12-18T00:00:00.000Z');
  assert.equal(since(calendar('last', 'week')), '2023-12-11T00:00:00.000Z');
  assert.equal(since(calendar('this', 'quarter')), '2023-10-01T00:00:00.000Z');
  const epochs = resolveTimeWindow({ since: epoch(1702899296789), until: epoch(1702902896789, UNTIL_SPAN) }, NOW);
  assert.deepEqual([iso(epochs.beginMs), iso(epochs.endMs)], ['2023-12-18T11:34:56.789Z', '2023-12-18T12:34:56.789Z']);
  assert.equal(since(text('2023-12-18 CST')), '2023-12-18T06:00:00.000Z');
});

test('docs: relative times for every unit', () => {
  assert.equal(until(now()), '2023-12-18T12:34:56.789Z');
  assert.equal(since(ago(2, 'millisecond')), '2023-12-18T12:34:56.787Z');
  assert.equal(since(ago(2, 'second')), '2023-12-18T12:34:54.789Z');
  assert.equal(since(ago(2, 'minute')), '2023-12-18T12:32:56.789Z');
  assert.equal(since(ago(2, 'day')), '2023-12-16T12:34:56.789Z');
  assert.equal(since(ago(2, 'week')), '2023-12-04T12:34:56.789Z');
  assert.equal(since(ago(2, 'year')), '2021-12-18T12:34:56.789Z');
});

test('docs: day and calendar references, now a Monday', () => {
  const expected: [TimePoint, string][] = [
    [day('today'), '2023-12-18T00:00:00.000Z'],
    [day('today', '01:23:45'), '2023-12-18T01:23:45.000Z'],
    [day('yesterday'), '2023-12-17T00:00:00.000Z'],
    [day('monday'), '2023-12-18T00:00:00.000Z'],
    [day('monday', '01:23:45'), '2023-12-18T01:23:45.000Z'],
    [day('tuesday', '01:23:45'), '2023-12-12T01:23:45.000Z'],
    [day('wednesday'), '2023-12-13T00:00:00.000Z'],
    [day('thursday'), '2023-12-14T00:00:00.000Z'],
    [day('friday', '01:23:45'), '2023-12-15T01:23:45.000Z'],
    [day('saturday'), '2023-12-16T00:00:00.000Z'],
    [day('sunday', '01:23:45'), '2023-12-17T01:23:45.000Z'],
    [calendar('this', 'hour'), '2023-12-18T12:00:00.000Z'],
    [calendar('last', 'hour'), '2023-12-18T11:00:00.000Z'],
    [calendar('this', 'day'), '2023-12-18T00:00:00.000Z'],
    [calendar('last', 'day'), '2023-12-17T00:00:00.000Z'],
    [calendar('this', 'month'), '2023-12-01T00:00:00.000Z'],
    [calendar('last', 'month'), '2023-11-01T00:00:00.000Z'],
    [calendar('last', 'quarter'), '2023-07-01T00:00:00.000Z'],
    [calendar('this', 'year'), '2023-01-01T00:00:00.000Z'],
    [calendar('last', 'year'), '2022-01-01T00:00:00.000Z'],
  ];
  for (const [point, resolved] of expected) assert.equal(since(point), resolved, formatTimePoint(point));
});

test('calendar references across year and quarter boundaries', () => {
  const newYear = at('2024-01-02T08:00:00Z'); // a Tuesday
  assert.equal(since(calendar('last', 'month'), newYear), '2023-12-01T00:00:00.000Z');
  assert.equal(since(calendar('last', 'quarter'), newYear), '2023-10-01T00:00:00.000Z');
  assert.equal(since(calendar('this', 'quarter'), newYear), '2024-01-01T00:00:00.000Z');
  assert.equal(since(calendar('this', 'week'), newYear), '2024-01-01T00:00:00.000Z');
  assert.equal(since(calendar('last', 'week'), newYear), '2023-12-25T00:00:00.000Z');
  assert.equal(since(day('sunday'), newYear), '2023-12-31T00:00:00.000Z');
  assert.equal(since(calendar('last', 'day'), at('2024-03-01T01:00:00Z')), '2024-02-29T00:00:00.000Z');
  const sunday = at('2023-12-17T23:59:59.999Z');
  assert.equal(since(calendar('this', 'week'), sunday), '2023-12-11T00:00:00.000Z', 'a week starts on Monday');
  assert.equal(since(calendar('this', 'quarter'), at('2023-06-30T23:00:00Z')), '2023-04-01T00:00:00.000Z');
  assert.equal(since(calendar('this', 'quarter'), at('2023-07-01T00:00:00.001Z')), '2023-07-01T00:00:00.000Z');
});

test('docs: date-time texts, with and without zones, AM/PM, compact forms', () => {
  // The docs list these with a resolved date of 2023-12-17, contradicting the 2023-12-18 written in
  // each of them (and the date-only rows of the same table); the date as written is what we assert.
  const nowLater = at('2023-12-18T14:27:32.189Z');
  for (const t of [
    '2023-12-18T12:34:56.789', '2023-12-18T12:34:56.789Z', '2023-12-18 12:34:56.789', '2023-12-18 12:34:56.789Z',
    '2023-12-18T06:34:56.789-0600', '2023-12-18T06:34:56.789-06:00', '2023-12-18T06:34:56.789 [America/Chicago]',
    '2023-12-18T06:34:56.789 CST', '20231218T123456.789', '2023-12-18T07:34:56.789 America/New_York',
  ]) {
    assert.equal(since(text(t), nowLater), '2023-12-18T12:34:56.789Z', t);
  }
  for (const t of ['2023-12-18T12:34:56', '2023-12-18 12:34:56', '2023-12-18T06:34:56-0600', '2023-12-18T06:34:56 [America/Chicago]']) {
    assert.equal(since(text(t), nowLater), '2023-12-18T12:34:56.000Z', t);
  }
  for (const t of ['2023-12-18T12:34', '2023-12-18 12:34', '2023-12-18T06:34-0600', '2023-12-18T06:34 [America/Chicago]', '20231218T1234']) {
    assert.equal(since(text(t), nowLater), '2023-12-18T12:34:00.000Z', t);
  }
  for (const t of ['2023-12-18T01:23 PM', '2023-12-18 01:23 PM', '2023-12-18T07:23-0600 AM', '2023-12-18 1:23 pm']) {
    assert.equal(since(text(t), nowLater), '2023-12-18T13:23:00.000Z', t);
  }
  for (const t of ['2023-12-18', '2023-12-18Z', '20231218']) {
    assert.equal(since(text(t), nowLater), '2023-12-18T00:00:00.000Z', t);
  }
  for (const t of ['2023-12-18-06:00', '2023-12-18 [America/Chicago]', '2023-12-18 CST']) {
    assert.equal(since(text(t), nowLater), '2023-12-18T06:00:00.000Z', t);
  }
  assert.equal(since(text('2023-12'), nowLater), '2023-12-01T00:00:00.000Z', 'day left out: the 1st');
});

test('docs: a time-only text is today, or yesterday when SINCE would otherwise be in the future', () => {
  const evening = at('2023-12-18T20:00:00Z');
  for (const t of ['12:34', '12:34:00', '12:34:00.000', '12:34 PM', '06:34-0600 AM', '06:34 [America/Chicago]']) {
    assert.equal(since(text(t), evening), '2023-12-18T12:34:00.000Z', t);
  }
  const morning = at('2023-12-18T10:00:00Z');
  assert.equal(since(text('12:34'), morning), '2023-12-17T12:34:00.000Z');
  assert.equal(until(text('12:34', UNTIL_SPAN), morning), '2023-12-18T12:34:00.000Z', 'UNTIL keeps today');
  // "Today" is the zone's: at 02:00Z it is still the 17th in Chicago.
  assert.equal(since(text('01:00 [America/Chicago]'), at('2023-12-18T08:00:00Z')), '2023-12-18T07:00:00.000Z');
  assert.equal(since(text('19:00 [America/Chicago]'), at('2023-12-18T02:00:00Z')), '2023-12-18T01:00:00.000Z');
  assert.equal(since(text('19:00'), at('2023-12-18T02:00:00Z'), 'America/Chicago'), '2023-12-18T01:00:00.000Z');
});

test('today AT a later time steps back only in SINCE; a weekday naming today steps back a week', () => {
  const noon = at('2023-12-18T12:00:00Z');
  const workday = resolveTimeWindow({ since: day('today', '09:00'), until: day('today', '17:00', UNTIL_SPAN) }, noon);
  assert.deepEqual([iso(workday.beginMs), iso(workday.endMs)], ['2023-12-18T09:00:00.000Z', '2023-12-18T17:00:00.000Z']);
  assert.deepEqual([workday.since, workday.until], ["TODAY AT '09:00'", "TODAY AT '17:00'"]);
  assert.equal(since(day('today', '12:00:01'), noon), '2023-12-17T12:00:01.000Z');
  assert.equal(since(day('today', '12:00'), noon + 1), '2023-12-18T12:00:00.000Z');
  assert.equal(since(day('monday', '23:00'), noon), '2023-12-11T23:00:00.000Z');
  assert.equal(until(day('monday', '23:00', UNTIL_SPAN), noon), '2023-12-18T23:00:00.000Z');
  assert.equal(since(day('yesterday', '23:59:59'), noon), '2023-12-17T23:59:59.000Z');
});

test('docs: SINCE today UNTIL a date-time WITH TIMEZONE America/Los_Angeles, run on 2022-05-19', () => {
  const w = resolveTimeWindow({ since: day('today'), until: text('2022-05-19T12:00', UNTIL_SPAN), timezone: 'America/Los_Angeles' }, at('2022-05-19T20:15:00Z'));
  assert.deepEqual(w, { beginMs: at('2022-05-19T07:00:00Z'), endMs: at('2022-05-19T19:00:00Z'), since: 'TODAY', until: "'2022-05-19T12:00'" });
});

test('WITH TIMEZONE: calendar references and zone-less texts use it; a zone in the text wins', () => {
  const zone = 'America/New_York';
  assert.equal(since(day('today'), NOW, zone), '2023-12-18T05:00:00.000Z');
  assert.equal(since(day('today'), at('2023-12-18T03:00:00Z'), zone), '2023-12-17T05:00:00.000Z', 'still the 17th in New York');
  assert.equal(since(calendar('this', 'month'), NOW, zone), '2023-12-01T05:00:00.000Z');
  assert.equal(since(calendar('this', 'year'), NOW, zone), '2023-01-01T05:00:00.000Z');
  assert.equal(until(text('2023-12-18 10:00', UNTIL_SPAN), NOW, zone), '2023-12-18T15:00:00.000Z');
  assert.equal(since(text('2023-12-18 10:00Z'), NOW, zone), '2023-12-18T10:00:00.000Z');
  assert.equal(since(text('2023-12-18 10:00 [Europe/Paris]'), NOW, zone), '2023-12-18T09:00:00.000Z');
  assert.equal(since(ago(2, 'hour'), NOW, zone), '2023-12-18T10:34:56.789Z', 'relative times do not depend on the zone');
  assert.equal(since(epoch(1702899296789), NOW, zone), '2023-12-18T11:34:56.789Z');
  assert.equal(since(calendar('this', 'hour'), NOW, 'Asia/Kolkata'), '2023-12-18T12:30:00.000Z', 'a half-hour zone');
  assert.equal(since(day('today'), NOW, 'america/new_york'), '2023-12-18T05:00:00.000Z', 'zone names are case-insensitive');
  assert.equal(since(day('today'), NOW, '+05:30'), '2023-12-17T18:30:00.000Z');
  assert.equal(since(day('today'), NOW, 'UTC'), '2023-12-18T00:00:00.000Z');
  assert.equal(since(day('today'), NOW, 'PST'), '2023-12-18T08:00:00.000Z');
});

test('abbreviations are fixed offsets; region names follow daylight saving time', () => {
  assert.equal(since(text('2023-07-01 10:00 CST')), '2023-07-01T16:00:00.000Z');
  assert.equal(since(text('2023-07-01 10:00 CDT')), '2023-07-01T15:00:00.000Z');
  assert.equal(since(text('2023-07-01 10:00 [America/Chicago]')), '2023-07-01T15:00:00.000Z');
  assert.equal(since(text('2023-12-01 10:00 America/Chicago')), '2023-12-01T16:00:00.000Z');
});

test('DST, America/New_York: SINCE today on the spring-forward day starts at midnight EST', () => {
  // 2024-03-10: 02:00 EST jumps to 03:00 EDT. At 12:00 EDT the day so far is 11 hours long.
  const w = resolveTimeWindow({ since: day('today'), timezone: 'America/New_York' }, at('2024-03-10T16:00:00Z'));
  assert.equal(iso(w.beginMs), '2024-03-10T05:00:00.000Z');
  assert.equal(w.endMs - w.beginMs, 11 * HOUR);
  // The fall-back day is 25 hours long; at 12:00 EST, 13 hours have passed.
  const fall = resolveTimeWindow({ since: day('today'), timezone: 'America/New_York' }, at('2024-11-03T17:00:00Z'));
  assert.equal(iso(fall.beginMs), '2024-11-03T04:00:00.000Z');
  assert.equal(fall.endMs - fall.beginMs, 13 * HOUR);
});

test('DST, America/New_York: this week and last week straddling the spring-forward Sunday', () => {
  const tuesday = at('2024-03-12T16:00:00Z');
  assert.equal(since(calendar('this', 'week'), tuesday, 'America/New_York'), '2024-03-11T04:00:00.000Z', 'Monday midnight EDT');
  assert.equal(since(calendar('last', 'week'), tuesday, 'America/New_York'), '2024-03-04T05:00:00.000Z', 'Monday midnight EST');
  assert.equal(since(calendar('this', 'week'), at('2024-03-10T16:00:00Z'), 'America/New_York'), '2024-03-04T05:00:00.000Z');
});

test('DST, America/New_York: a skipped wall time reads as the time after the jump, a repeated one as its first occurrence', () => {
  const monday = at('2024-03-11T16:00:00Z');
  assert.equal(since(day('yesterday', '02:30'), monday, 'America/New_York'), '2024-03-10T07:30:00.000Z', '02:30 does not exist: 03:30 EDT');
  assert.equal(since(day('yesterday', '01:59'), monday, 'America/New_York'), '2024-03-10T06:59:00.000Z', 'EST');
  assert.equal(since(day('yesterday', '03:00'), monday, 'America/New_York'), '2024-03-10T07:00:00.000Z', 'EDT');
  assert.equal(since(text('2024-03-10 02:30'), monday, 'America/New_York'), '2024-03-10T07:30:00.000Z');
  const fallMonday = at('2024-11-04T17:00:00Z');
  assert.equal(since(day('yesterday', '01:30'), fallMonday, 'America/New_York'), '2024-11-03T05:30:00.000Z', '01:30 EDT, not 01:30 EST');
  assert.equal(since(text('2024-11-03 01:30'), fallMonday, 'America/New_York'), '2024-11-03T05:30:00.000Z');
  assert.equal(since(text('2024-11-03 01:30-05:00'), fallMonday, 'America/New_York'), '2024-11-03T06:30:00.000Z', 'an offset picks the second');
});

test('DST: this and last hour during the repeated hour are elapsed hours', () => {
  // 06:15Z is 01:15 EST, the second time the clocks show 01:15 on 2024-11-03.
  const repeated = at('2024-11-03T06:15:00Z');
  assert.equal(since(calendar('this', 'hour'), repeated, 'America/New_York'), '2024-11-03T06:00:00.000Z');
  assert.equal(since(calendar('last', 'hour'), repeated, 'America/New_York'), '2024-11-03T05:00:00.000Z');
});

test('DST: a day whose midnight does not exist starts when the clocks do (Asia/Beirut, 2024-03-31)', () => {
  assert.equal(since(day('today'), at('2024-03-31T12:00:00Z'), 'Asia/Beirut'), '2024-03-30T22:00:00.000Z');
});

test('metadata texts for every kind of time point', () => {
  assert.equal(formatTimePoint(ago(1, 'day')), '1 DAYS AGO');
  assert.equal(formatTimePoint(ago(60, 'minute')), '60 MINUTES AGO');
  assert.equal(formatTimePoint(ago(2, 'hour')), '2 HOURS AGO');
  assert.equal(formatTimePoint(now()), 'NOW');
  assert.equal(formatTimePoint(epoch(1702899296789)), '1702899296789');
  assert.equal(formatTimePoint(text('2023-12-18 CST')), "'2023-12-18 CST'");
  assert.equal(formatTimePoint(text("it's")), "'it\\'s'");
  assert.equal(formatTimePoint(day('today')), 'TODAY');
  assert.equal(formatTimePoint(day('yesterday', '01:23:45')), "YESTERDAY AT '01:23:45'");
  assert.equal(formatTimePoint(day('wednesday')), 'WEDNESDAY');
  assert.equal(formatTimePoint(calendar('this', 'week')), 'THIS WEEK');
  assert.equal(formatTimePoint(calendar('last', 'quarter')), 'LAST QUARTER');
  assert.equal(formatAgo(interval(3, 'millisecond')), '3 MILLISECONDS AGO');
  const w = resolveTimeWindow({ since: ago(1, 'day'), until: calendar('this', 'hour', UNTIL_SPAN) }, NOW);
  assert.deepEqual([w.since, w.until], ['1 DAYS AGO', 'THIS HOUR']);
});

test('errors: an empty or reversed window names both ends, at the SINCE clause', () => {
  assert.throws(
    () => resolveTimeWindow({ since: ago(1, 'hour'), until: ago(2, 'hour', UNTIL_SPAN) }, NOW),
    nrqlError('NRQL_BAD_TIME', 'The time window is empty: SINCE 1 HOURS AGO (2023-12-18T11:34:56.789Z) is not before UNTIL 2 HOURS AGO (2023-12-18T10:34:56.789Z)', SINCE_SPAN),
  );
  assert.throws(
    () => resolveTimeWindow({ since: ago(0, 'minute') }, NOW),
    nrqlError('NRQL_BAD_TIME', 'The time window is empty: SINCE 0 MINUTES AGO (2023-12-18T12:34:56.789Z) is not before UNTIL NOW (2023-12-18T12:34:56.789Z)', SINCE_SPAN),
  );
  assert.throws(
    () => resolveTimeWindow({ since: text('2030-01-01') }, NOW),
    nrqlError('NRQL_BAD_TIME', "The time window is empty: SINCE '2030-01-01' (2030-01-01T00:00:00.000Z) is not before UNTIL NOW (2023-12-18T12:34:56.789Z)", SINCE_SPAN),
  );
  // A lone UNTIL keeps the default SINCE of an hour ago.
  assert.throws(
    () => resolveTimeWindow({ until: ago(2, 'hour', UNTIL_SPAN) }, NOW),
    nrqlError('NRQL_BAD_TIME', 'The time window is empty: SINCE 60 MINUTES AGO (2023-12-18T11:34:56.789Z) is not before UNTIL 2 HOURS AGO (2023-12-18T10:34:56.789Z)', UNTIL_SPAN),
  );
  const lone = resolveTimeWindow({ until: ago(30, 'minute', UNTIL_SPAN) }, NOW);
  assert.deepEqual(lone, { beginMs: NOW - HOUR, endMs: NOW - 30 * MINUTE, since: '60 MINUTES AGO', until: '30 MINUTES AGO' });
});

test('errors: unknown zones, unreadable texts, out-of-range times, each at its span', () => {
  const zoneSpan: Span = { start: 90, end: 113 };
  assert.throws(
    () => resolveTimeWindow({ timezone: 'Mars/Olympus_Mons', timezoneSpan: zoneSpan }, NOW),
    nrqlError('NRQL_BAD_TIME', "Unknown time zone 'Mars/Olympus_Mons' in WITH TIMEZONE: use a zone name such as 'America/New_York', an offset such as '-05:00', or 'UTC'", zoneSpan),
  );
  assert.throws(
    () => resolveTimeWindow({ since: text('2023-12-18 10:00 Mars/Olympus_Mons') }, NOW),
    nrqlError('NRQL_BAD_TIME', "Unknown time zone 'Mars/Olympus_Mons' in '2023-12-18 10:00 Mars/Olympus_Mons'", SINCE_SPAN),
  );
  assert.throws(
    () => resolveTimeWindow({ since: epoch(0), until: text('next tuesday', UNTIL_SPAN) }, NOW),
    nrqlError(
      'NRQL_BAD_TIME',
      "Cannot read 'next tuesday' as a date and time: write it as 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM[:SS[.mmm]]' or 'HH:MM[:SS]', optionally with a zone such as 'Z', '-05:00', 'CST' or '[America/Chicago]' and AM/PM",
      UNTIL_SPAN,
    ),
  );
  assert.throws(() => resolveTimeWindow({ since: text('2023-02-29') }, NOW), nrqlError('NRQL_BAD_TIME', "'2023-02-29' is not a valid date and time: day 29 is out of range (1–28)", SINCE_SPAN));
  assert.throws(
    () => resolveTimeWindow({ since: day('yesterday', '01:23:45.500') }, NOW),
    nrqlError('NRQL_BAD_TIME', "Cannot read '01:23:45.500' as a time of day: AT takes 'HH:MM' or 'HH:MM:SS', without milliseconds or a zone", SINCE_SPAN),
  );
  assert.throws(() => resolveTimeWindow({ since: day('yesterday', '24:00') }, NOW), nrqlError('NRQL_BAD_TIME', "'24:00' is not a valid time of day: hour 24 is out of range (0–23)", SINCE_SPAN));
  assert.throws(
    () => resolveTimeWindow({ since: ago(1_000_000, 'year') }, NOW),
    nrqlError('NRQL_BAD_TIME', '1000000 YEARS AGO is outside the supported range of dates', SINCE_SPAN),
  );
  assert.throws(
    () => resolveTimeWindow({ since: epoch(0), until: epoch(9e15, UNTIL_SPAN) }, NOW),
    nrqlError('NRQL_BAD_TIME', '9000000000000000 is outside the supported range of dates', UNTIL_SPAN),
  );
});

function buckets(lengthMs: number, size: BucketSize, endMs = NOW) {
  return resolveBuckets({ beginMs: endMs - lengthMs, endMs }, size);
}

test('AUTO: the reference table, at and just past each boundary', () => {
  const rows: [lengthMs: number, widthMs: number][] = [
    [30 * MINUTE, MINUTE],
    [HOUR, MINUTE],
    [HOUR + 1, 5 * MINUTE],
    [3 * HOUR, 5 * MINUTE],
    [3 * HOUR + 1, 15 * MINUTE],
    [6 * HOUR, 15 * MINUTE],
    [6 * HOUR + 1, 30 * MINUTE],
    [DAY, 30 * MINUTE],
    [DAY + 1, HOUR],
    [3 * DAY, HOUR],
    [3 * DAY + 1, 6 * HOUR],
    [7 * DAY, 6 * HOUR],
    [7 * DAY + 1, DAY],
    [366 * DAY, DAY],
    [366 * DAY + 1, 2 * DAY],
    [3 * 365 * DAY, 3 * DAY],
  ];
  for (const [lengthMs, widthMs] of rows) assert.equal(buckets(lengthMs, 'auto').widthMs, widthMs, `window ${lengthMs} ms`);
  assert.deepEqual(buckets(DAY, 'auto'), { beginMs: NOW - DAY, widthMs: 30 * MINUTE, count: 48 }, 'docs: 1 day → 30 minutes');
  assert.deepEqual(buckets(7 * DAY, 'auto'), { beginMs: NOW - 7 * DAY, widthMs: 6 * HOUR, count: 28 }, 'docs: 1 week → 6 hours');
  assert.deepEqual(buckets(HOUR, 'auto'), { beginMs: NOW - HOUR, widthMs: MINUTE, count: 60 });
  assert.deepEqual(buckets(366 * DAY, 'auto'), { beginMs: NOW - 366 * DAY, widthMs: DAY, count: 366 });
  assert.deepEqual(buckets(366 * DAY + 1, 'auto'), { beginMs: NOW - 366 * DAY, widthMs: 2 * DAY, count: 183 });
});

test('MAX: the narrowest whole-second (under a minute) or whole-minute width giving at most 366 buckets', () => {
  assert.deepEqual(buckets(DAY, 'max'), { beginMs: NOW - DAY, widthMs: 4 * MINUTE, count: 360 }, 'docs: 1 day → 4 minutes');
  assert.deepEqual(buckets(HOUR, 'max'), { beginMs: NOW - HOUR, widthMs: 10 * SECOND, count: 360 });
  assert.deepEqual(buckets(6 * HOUR, 'max'), { beginMs: NOW - 6 * HOUR, widthMs: MINUTE, count: 360 });
  assert.deepEqual(buckets(366 * 59 * SECOND, 'max'), { beginMs: NOW - 366 * 59 * SECOND, widthMs: 59 * SECOND, count: 366 });
  assert.deepEqual(buckets(366 * 59 * SECOND + 1, 'max'), { beginMs: NOW - 359 * MINUTE, widthMs: MINUTE, count: 359 });
  assert.deepEqual(buckets(366 * MINUTE, 'max'), { beginMs: NOW - 366 * MINUTE, widthMs: MINUTE, count: 366 });
  assert.deepEqual(buckets(366 * MINUTE + 1, 'max'), { beginMs: NOW - 366 * MINUTE, widthMs: 2 * MINUTE, count: 183 });
  assert.deepEqual(buckets(10 * SECOND, 'max'), { beginMs: NOW - 10 * SECOND, widthMs: SECOND, count: 10 });
  // 365 days = 525600 minutes; 525600 / 366 = 1436.07 → 1437-minute buckets, 365 of them.
  assert.deepEqual(buckets(365 * DAY, 'max'), { beginMs: NOW - 365 * 1437 * MINUTE, widthMs: 1437 * MINUTE, count: 365 });
  for (const lengthMs of [1, 999, 61_000, 7 * DAY + 12_345, 400 * DAY]) {
    const layout = buckets(lengthMs, 'max');
    assert.ok(layout.count <= 366, `window ${lengthMs} ms`);
    assert.equal(layout.count * layout.widthMs, NOW - layout.beginMs);
  }
});

test('docs: buckets are laid from the end; the begin moves forward to the first whole bucket', () => {
  const layout = resolveBuckets({ beginMs: at('2023-12-20T00:04:59Z'), endMs: at('2023-12-21T00:03:12Z') }, interval(5, 'minute'));
  assert.deepEqual(layout, { beginMs: at('2023-12-20T00:08:12Z'), widthMs: 5 * MINUTE, count: 287 });
  assert.deepEqual(buckets(HOUR + 59 * SECOND, interval(1, 'minute')), { beginMs: NOW - HOUR, widthMs: MINUTE, count: 60 });
});

test('a window shorter than one bucket gets one whole bucket ending at the window end', () => {
  assert.deepEqual(buckets(2 * MINUTE, interval(5, 'minute')), { beginMs: NOW - 5 * MINUTE, widthMs: 5 * MINUTE, count: 1 });
  assert.deepEqual(buckets(500, 'max'), { beginMs: NOW - SECOND, widthMs: SECOND, count: 1 });
  assert.deepEqual(buckets(20 * SECOND, 'auto'), { beginMs: NOW - MINUTE, widthMs: MINUTE, count: 1 });
});

test('explicit sizes: 366 buckets are allowed, 367 are not; a zero size is refused', () => {
  assert.deepEqual(buckets(366 * MINUTE, interval(1, 'minute')), { beginMs: NOW - 366 * MINUTE, widthMs: MINUTE, count: 366 });
  assert.deepEqual(buckets(367 * MINUTE - 1, interval(1, 'minute')), { beginMs: NOW - 366 * MINUTE, widthMs: MINUTE, count: 366 });
  const clause: Span = { start: 50, end: 72 };
  assert.throws(
    () => resolveBuckets({ beginMs: NOW - 367 * MINUTE, endMs: NOW }, interval(1, 'minute'), clause),
    nrqlError('NRQL_LIMIT_EXCEEDED', 'TIMESERIES 1 minute makes 367 buckets over this window, more than the limit of 366: use buckets of at least 2 minutes, or TIMESERIES MAX', clause),
  );
  assert.throws(
    () => resolveBuckets({ beginMs: NOW - DAY, endMs: NOW }, interval(1, 'minute'), clause),
    nrqlError('NRQL_LIMIT_EXCEEDED', 'TIMESERIES 1 minute makes 1440 buckets over this window, more than the limit of 366: use buckets of at least 4 minutes, or TIMESERIES MAX', clause),
  );
  assert.throws(
    () => resolveBuckets({ beginMs: NOW - HOUR, endMs: NOW }, interval(5, 'second'), clause),
    nrqlError('NRQL_LIMIT_EXCEEDED', 'TIMESERIES 5 seconds makes 720 buckets over this window, more than the limit of 366: use buckets of at least 10 seconds, or TIMESERIES MAX', clause),
  );
  assert.throws(
    () => resolveBuckets({ beginMs: NOW - HOUR, endMs: NOW }, interval(0, 'minute'), clause),
    nrqlError('NRQL_BAD_TIME', 'TIMESERIES 0 minutes: a bucket must be longer than zero', clause),
  );
  assert.deepEqual(buckets(30 * DAY, interval(1, 'month')), { beginMs: NOW - 30 * DAY, widthMs: 30 * DAY, count: 1 });
  assert.throws(
    () => resolveBuckets({ beginMs: NOW - HOUR, endMs: NOW }, interval(300_000, 'year'), clause),
    nrqlError('NRQL_BAD_TIME', 'TIMESERIES buckets this wide reach before the earliest supported time', clause),
  );
});

test('COMPARE WITH: the same length, shifted back; its metadata text', () => {
  const window = resolveTimeWindow({ since: ago(1, 'day') }, NOW);
  assert.deepEqual(resolveCompareWindow(window, interval(1, 'day')), {
    beginMs: at('2023-12-16T12:34:56.789Z'),
    endMs: at('2023-12-17T12:34:56.789Z'),
    compareWith: '1 DAYS AGO',
  });
  const today = resolveTimeWindow({ since: day('today') }, NOW);
  assert.deepEqual(resolveCompareWindow(today, interval(1, 'week')), {
    beginMs: at('2023-12-11T00:00:00Z'),
    endMs: at('2023-12-11T12:34:56.789Z'),
    compareWith: '1 WEEKS AGO',
  });
  assert.deepEqual(resolveCompareWindow(today, interval(1, 'month')), {
    beginMs: at('2023-11-18T00:00:00Z'),
    endMs: at('2023-11-18T12:34:56.789Z'),
    compareWith: '1 MONTHS AGO',
  });
  const clause: Span = { start: 70, end: 98 };
  assert.throws(
    () => resolveCompareWindow(window, interval(0, 'hour'), clause),
    nrqlError('NRQL_BAD_TIME', 'COMPARE WITH 0 HOURS AGO compares the window with itself: give an interval above zero', clause),
  );
  assert.throws(
    () => resolveCompareWindow({ beginMs: -8e15, endMs: 0 }, interval(100_000, 'year'), clause),
    nrqlError('NRQL_BAD_TIME', 'COMPARE WITH 100000 YEARS AGO reaches before the earliest supported time', clause),
  );
});
