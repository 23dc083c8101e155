import { DateTime, FixedOffsetZone, type Zone } from 'luxon';
import { WEEKDAYS, type BucketSize, type DayRef, type Interval, type Span, type TimePoint, type TimeUnit } from './ast.js';
import { quoteNrqlString } from './literals.js';
import { formatTimePointText } from './format.js';
import { NRQL_ERROR_CODES, NrqlError } from './nrql-error.js';
import { readDateTimeText, readTimeOfDay, type CalendarDate, type TimeOfDay } from './time/date-time-text.js';
import { readZone } from './time/zone.js';

/**
 * NRQL time: the window a query's SINCE / UNTIL / WITH TIMEZONE clauses name, its TIMESERIES
 * buckets and its COMPARE WITH window. Pure functions of the clauses and `now`; the choices the
 * reference leaves open are written down in `docs/nrql.md` § Time windows.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Fixed lengths, as NRQL defines them: a month is 30 days, a quarter 91, a year 365. */
const UNIT_MS: Readonly<Record<TimeUnit, number>> = {
  millisecond: 1,
  second: SECOND,
  minute: MINUTE,
  hour: HOUR,
  day: DAY,
  week: 7 * DAY,
  month: 30 * DAY,
  quarter: 91 * DAY,
  year: 365 * DAY,
};

/** No TIMESERIES is split into more buckets than this. */
export const MAX_BUCKETS = 366;

/** The range of a JavaScript `Date`: instants beyond it cannot be shown or compared. */
const MAX_INSTANT_MS = 8.64e15;

const MIDNIGHT: TimeOfDay = { hour: 0, minute: 0, second: 0, millisecond: 0 };

/** The AUTO bucket width for windows up to each length; longer windows get whole days. */
const AUTO_WIDTHS: readonly (readonly [maxWindowMs: number, widthMs: number])[] = [
  [HOUR, MINUTE],
  [3 * HOUR, 5 * MINUTE],
  [6 * HOUR, 15 * MINUTE],
  [DAY, 30 * MINUTE],
  [3 * DAY, HOUR],
  [7 * DAY, 6 * HOUR],
];

export interface ResolvedWindow {
  /** Inclusive, epoch ms. */
  readonly beginMs: number;
  /** Exclusive, epoch ms. */
  readonly endMs: number;
  /** `metadata.timeWindow.since`: the SINCE clause as normalised text (`formatTimePoint`). */
  readonly since: string;
  /** `metadata.timeWindow.until`. */
  readonly until: string;
}

export interface TimeWindowInput {
  readonly since?: TimePoint;
  readonly until?: TimePoint;
  /** The text of `WITH TIMEZONE '…'`. */
  readonly timezone?: string;
  /** Where that text is in the query, for the unknown-zone error. */
  readonly timezoneSpan?: Span;
}

export interface BucketLayout {
  /** The window's begin moved forward so that the first bucket is whole (or back, for one bucket longer than the window). */
  readonly beginMs: number;
  readonly widthMs: number;
  /** `count × widthMs = endMs − beginMs`. */
  readonly count: number;
}

export interface CompareWindow {
  readonly beginMs: number;
  readonly endMs: number;
  /** `metadata.timeWindow.compareWith`, e.g. `"1 DAYS AGO"`. */
  readonly compareWith: string;
}

type Role = 'SINCE' | 'UNTIL';

export function intervalMs(interval: Interval): number {
  return interval.amount * UNIT_MS[interval.unit];
}

/**
 * The window `[beginMs, endMs)` of a query run at `nowMs`. Without SINCE it starts one hour
 * before now, without UNTIL it ends now; calendar references are taken in the query's zone
 * (UTC unless WITH TIMEZONE), a zone written inside a date-time text wins over it.
 */
export function resolveTimeWindow(input: TimeWindowInput, nowMs: number): ResolvedWindow {
  const zone = input.timezone === undefined ? FixedOffsetZone.utcInstance : readQueryZone(input.timezone, input.timezoneSpan);
  const beginMs = input.since ? resolveTimePoint(input.since, 'SINCE', zone, nowMs) : nowMs - HOUR;
  const endMs = input.until ? resolveTimePoint(input.until, 'UNTIL', zone, nowMs) : nowMs;
  const since = input.since ? formatTimePoint(input.since) : '60 MINUTES AGO';
  const until = input.until ? formatTimePoint(input.until) : 'NOW';
  if (beginMs >= endMs) {
    throw new NrqlError(
      NRQL_ERROR_CODES.BAD_TIME,
      `The time window is empty: SINCE ${since} (${isoText(beginMs)}) is not before UNTIL ${until} (${isoText(endMs)})`,
      input.since?.span ?? input.until?.span,
    );
  }
  return { beginMs, endMs, since, until };
}

/**
 * TIMESERIES buckets over a window: laid from the end backwards, the begin moved forward to the
 * first whole bucket. A window shorter than one bucket gets one bucket ending at the window's
 * end (the begin moves back), so every bucket is as wide as the query asked.
 * `span` (the TIMESERIES clause) is attached to errors.
 */
export function resolveBuckets(window: { readonly beginMs: number; readonly endMs: number }, size: BucketSize, span?: Span): BucketLayout {
  const lengthMs = window.endMs - window.beginMs;
  const widthMs = size === 'auto' ? autoWidthMs(lengthMs) : size === 'max' ? maxWidthMs(lengthMs) : explicitWidthMs(size, lengthMs, span);
  const count = Math.max(1, Math.floor(lengthMs / widthMs));
  const beginMs = window.endMs - count * widthMs;
  if (beginMs < -MAX_INSTANT_MS) throw new NrqlError(NRQL_ERROR_CODES.BAD_TIME, 'TIMESERIES buckets this wide reach before the earliest supported time', span);
  return { beginMs, widthMs, count };
}

/** The COMPARE WITH window: as long as `window`, `interval` earlier. `span` is attached to errors. */
export function resolveCompareWindow(window: { readonly beginMs: number; readonly endMs: number }, interval: Interval, span?: Span): CompareWindow {
  const shiftMs = intervalMs(interval);
  const compareWith = formatAgo(interval);
  if (shiftMs === 0) {
    throw new NrqlError(NRQL_ERROR_CODES.BAD_TIME, `COMPARE WITH ${compareWith} compares the window with itself: give an interval above zero`, span);
  }
  const beginMs = window.beginMs - shiftMs;
  if (beginMs < -MAX_INSTANT_MS) throw new NrqlError(NRQL_ERROR_CODES.BAD_TIME, `COMPARE WITH ${compareWith} reaches before the earliest supported time`, span);
  return { beginMs, endMs: window.endMs - shiftMs, compareWith };
}

/**
 * A time point as `metadata.timeWindow` shows it: `2 HOURS AGO`, `NOW`, the epoch ms as written,
 * the date-time text in quotes, `TODAY`, `YESTERDAY AT '01:23:45'`, `MONDAY`, `THIS WEEK`.
 */
export function formatTimePoint(point: TimePoint): string {
  // Only relative times differ from the query's own text: metadata always writes plural units.
  return point.kind === 'ago' ? formatAgo(point.interval) : formatTimePointText(point);
}

/** `n UNITS AGO` with the unit always plural, the form New Relic's metadata uses (`"1 DAYS AGO"`). */
export function formatAgo(interval: Interval): string {
  return `${interval.amount} ${interval.unit.toUpperCase()}S AGO`;
}

function resolveTimePoint(point: TimePoint, role: Role, zone: Zone, nowMs: number): number {
  switch (point.kind) {
    case 'ago':
      return inRange(nowMs - intervalMs(point.interval), point);
    case 'now':
      return nowMs;
    case 'epochMs':
      return inRange(point.ms, point);
    case 'dateTime':
      return resolveDateTimeText(point.text, point.span, role, zone, nowMs);
    case 'day':
      return resolveDay(point.day, point.at, point.span, role, zone, nowMs);
    case 'calendar':
      return resolveCalendar(point.which, point.unit, zone, nowMs);
    default:
      return unreachable(point);
  }
}

function resolveDateTimeText(text: string, span: Span, role: Role, queryZone: Zone, nowMs: number): number {
  const parsed = readDateTimeText(text, span);
  const zone = parsed.zone ?? queryZone;
  const time = parsed.time ?? MIDNIGHT;
  if (parsed.date) return atLocal(parsed.date, time, zone);
  const today = dateAt(nowMs, zone);
  const todayMs = atLocal(today, time, zone);
  // A time without a date is today's, unless SINCE would then start in the future.
  return role === 'SINCE' && todayMs > nowMs ? atLocal(addDays(today, -1), time, zone) : todayMs;
}

function resolveDay(day: DayRef, at: string | undefined, span: Span, role: Role, zone: Zone, nowMs: number): number {
  const time = at === undefined ? MIDNIGHT : readTimeOfDay(at, span);
  const today = dateAt(nowMs, zone);
  const date = day === 'today' ? today : day === 'yesterday' ? addDays(today, -1) : addDays(today, -daysSince(today, day));
  const ms = atLocal(date, time, zone);
  if (role === 'UNTIL' || ms <= nowMs) return ms;
  // SINCE never starts in the future: `today AT` a later time means yesterday's, and a weekday
  // naming today the week before's. (Yesterday's times are always past.)
  return atLocal(addDays(date, day === 'today' ? -1 : -7), time, zone);
}

function resolveCalendar(which: 'this' | 'last', unit: 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year', zone: Zone, nowMs: number): number {
  const back = which === 'last' ? 1 : 0;
  const today = dateAt(nowMs, zone);
  switch (unit) {
    case 'hour':
      // Elapsed hours, so the hour repeated on a fall-back night is an hour of its own.
      return DateTime.fromMillis(nowMs, { zone }).startOf('hour').toMillis() - back * HOUR;
    case 'day':
      return atLocal(addDays(today, -back), MIDNIGHT, zone);
    case 'week':
      return atLocal(addDays(today, -(weekdayOf(today) - 1) - 7 * back), MIDNIGHT, zone);
    case 'month':
      return atLocal(addMonths({ ...today, day: 1 }, -back), MIDNIGHT, zone);
    case 'quarter':
      return atLocal(addMonths({ year: today.year, month: today.month - ((today.month - 1) % 3), day: 1 }, -3 * back), MIDNIGHT, zone);
    case 'year':
      return atLocal({ year: today.year - back, month: 1, day: 1 }, MIDNIGHT, zone);
    default:
      return unreachable(unit);
  }
}

/**
 * The instant a wall clock in `zone` shows `date` `time`. A time the clocks skip (02:30 on a
 * spring-forward day) is read as the same time after the jump (03:30); a time they show twice
 * (01:30 on a fall-back night) as its first occurrence. Both are java.time's rules, the ones a
 * JVM-based NRQL engine would follow.
 */
function atLocal(date: CalendarDate, time: TimeOfDay, zone: Zone): number {
  const wall = DateTime.fromObject({ ...date, ...time }, { zone });
  return Math.min(wall.toMillis(), ...wall.getPossibleOffsets().map((candidate) => candidate.toMillis()));
}

function dateAt(ms: number, zone: Zone): CalendarDate {
  const local = DateTime.fromMillis(ms, { zone });
  return { year: local.year, month: local.month, day: local.day };
}

function addDays(date: CalendarDate, days: number): CalendarDate {
  const moved = DateTime.utc(date.year, date.month, date.day).plus({ days });
  return { year: moved.year, month: moved.month, day: moved.day };
}

function addMonths(date: CalendarDate, months: number): CalendarDate {
  const moved = DateTime.utc(date.year, date.month, date.day).plus({ months });
  return { year: moved.year, month: moved.month, day: moved.day };
}

/** How many days ago `weekday` last began: 0 when `today` is one. */
function daysSince(today: CalendarDate, weekday: (typeof WEEKDAYS)[number]): number {
  return (weekdayOf(today) - (WEEKDAYS.indexOf(weekday) + 1) + 7) % 7;
}

/** 1 = Monday … 7 = Sunday. */
function weekdayOf(date: CalendarDate): number {
  return DateTime.utc(date.year, date.month, date.day).weekday;
}

function readQueryZone(text: string, span: Span | undefined): Zone {
  const zone = readZone(text.trim());
  if (zone) return zone;
  throw new NrqlError(
    NRQL_ERROR_CODES.BAD_TIME,
    `Unknown time zone ${quoteNrqlString(text)} in WITH TIMEZONE: use a zone name such as 'America/New_York', an offset such as '-05:00', or 'UTC'`,
    span,
  );
}

function inRange(ms: number, point: TimePoint): number {
  if (Math.abs(ms) <= MAX_INSTANT_MS) return ms;
  throw new NrqlError(NRQL_ERROR_CODES.BAD_TIME, `${formatTimePoint(point)} is outside the supported range of dates`, point.span);
}

function autoWidthMs(lengthMs: number): number {
  for (const [maxWindowMs, widthMs] of AUTO_WIDTHS) {
    if (lengthMs <= maxWindowMs) return widthMs;
  }
  return DAY * Math.max(1, Math.ceil(lengthMs / (MAX_BUCKETS * DAY)));
}

/**
 * The narrowest bucket giving at most 366: whole seconds while that is under a minute, whole
 * minutes from there (the docs' 1 day → 4 minutes, not 237 seconds).
 */
function maxWidthMs(lengthMs: number): number {
  const seconds = Math.max(1, Math.ceil(lengthMs / (MAX_BUCKETS * SECOND)));
  return seconds < 60 ? seconds * SECOND : Math.ceil(lengthMs / (MAX_BUCKETS * MINUTE)) * MINUTE;
}

function explicitWidthMs(size: Interval, lengthMs: number, span: Span | undefined): number {
  const widthMs = intervalMs(size);
  const written = countOf(size.amount, size.unit);
  if (widthMs === 0) throw new NrqlError(NRQL_ERROR_CODES.BAD_TIME, `TIMESERIES ${written}: a bucket must be longer than zero`, span);
  const count = Math.floor(lengthMs / widthMs);
  if (count > MAX_BUCKETS) {
    const narrowest = maxWidthMs(lengthMs);
    const narrowestText = narrowest % MINUTE === 0 ? countOf(narrowest / MINUTE, 'minute') : countOf(narrowest / SECOND, 'second');
    throw new NrqlError(
      NRQL_ERROR_CODES.LIMIT_EXCEEDED,
      `TIMESERIES ${written} makes ${count} buckets over this window, more than the limit of ${MAX_BUCKETS}: use buckets of at least ${narrowestText}, or TIMESERIES MAX`,
      span,
    );
  }
  return widthMs;
}

function countOf(amount: number, unit: string): string {
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}

function isoText(ms: number): string {
  return new Date(ms).toISOString();
}

function unreachable(value: never): never {
  throw new Error(`unhandled ${JSON.stringify(value)}`);
}
