/**
 * The time window of a REST v2 metric-data request (reference: rest-v2.md §4.3–4.5).
 *
 * Request window (`requestFromMs`/`requestToMs`, echoed as `metric_data.from`/`to`):
 * - `to` defaults to now; a `to` in the future is clamped to now. `from` defaults to `to` − 30 min.
 * - An unparseable `from` or `to` (see iso8601.ts) is refused, naming the parameter and the format;
 *   so is a time outside the years 0000–9999 (JavaScript's own fallback parser reads years back to
 *   −271821, which no date formatting or engine timestamp survives), and a window or series that
 *   would reach back before the year 0000 (a default `from`, or slices laid back from the end).
 * - `from` must be before `to`, and `to` − `from` must be at least 60 s, judged on the exact
 *   (millisecond) values; 60 s always holds one whole minute, so no window is empty.
 *
 * Period (`defaultPeriodSeconds`), from the length `to` − `from`:
 *   ≤ 3 h → 60 s, ≤ 6 h → 120, ≤ 14 h → 300, ≤ 24 h → 600, ≤ 4 d → 1800, ≤ 7 d → 3600,
 *   ≤ 21 d → 10800, ≤ 42 d → 21600, ≤ 63 d → 43200, longer → 259200.
 * When the start is more than 8 days before now and the range is at most 4 days, the series has
 * about 10 points instead: range / 10 rounded up to whole hours. Data that old is kept as hourly
 * rollups (1-minute timeslices are kept 8 days, store/store.ts DEFAULT_RETENTION): its periods are
 * whole hours (a `period` is rounded up to hours) and the series ends at `to` floored to its hour,
 * (a range inside one hour: that hour), so every slice is made of whole rollups and the store
 * answers it from them.
 * A `period` parameter must be a positive whole number of seconds (422 otherwise). It is rounded up
 * to whole minutes and raised to that default when finer, so it can only coarsen (Grafana plugins
 * send their panel interval, e.g. 30 s, and New Relic answers them). It may exceed the range: the one slice then
 * reaches back a whole period from the end, but it may not exceed `MAX_PERIOD_SECONDS` (366 days):
 * a larger one would reach back past any time an engine can store. With `summarize` the period is
 * ignored, unchecked, as it cannot change the answer.
 *
 * The number of slices is computed before any is made: past `maxSlices` (3000 unless given, New
 * Relic's "up to 3000 results per cell") the request is refused, so a window of 10 000 years costs
 * no more than one of 30 minutes.
 *
 * Data window (`beginMs` inclusive, `endMs` exclusive, whole minutes):
 * - Series: `endMs` = `to` floored to its minute (the current minute is still being reported);
 *   slices of one period are laid back from `endMs` until they reach `from` floored to its minute,
 *   so `beginMs` may fall a little before `from` (New Relic's series do too) and `endMs − beginMs`
 *   is a whole number of periods. The latter lets a TIMESERIES query over [beginMs, endMs) yield
 *   exactly these buckets whether it aligns buckets to the window start or to the epoch.
 * - Summarize: one slice from `from` floored to `to` floored; `periodSeconds` is its length.
 *   (The response shows the slice's `to` one second earlier; that is formatting, not this window.)
 */
import { formatRestTime, parseRestTime } from './iso8601.js';
import { LAST_TIME_MS } from './time-range.js';

export interface MetricWindowRequest {
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly period?: string | undefined;
  readonly summarize: boolean;
}

export interface MetricWindowLimits {
  /** Slices a series may have; more is refused before any is built. */
  readonly maxSlices?: number;
}

/** Slices per metric a series may have (New Relic: "up to 3000 results per cell"). */
export const MAX_SLICES = 3000;

/** The longest period a series may ask for: 366 days. */
export const MAX_PERIOD_SECONDS = 366 * 24 * 3600;

/** Times a request may name: 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z. */
const EARLIEST_TIME_MS = -62_167_219_200_000;

export interface TimeSlice {
  readonly beginMs: number;
  readonly endMs: number;
}

export interface MetricWindow {
  /** The effective request window, as given (or now), for `metric_data.from`/`to`. */
  readonly requestFromMs: number;
  readonly requestToMs: number;
  /** The data window: whole minutes, begin inclusive, end exclusive. */
  readonly beginMs: number;
  readonly endMs: number;
  /** Slice length; for summarize the whole data window. */
  readonly periodSeconds: number;
  readonly summarize: boolean;
  /** Consecutive, covering [beginMs, endMs); exactly one when summarizing. */
  readonly slices: ReadonlyArray<TimeSlice>;
}

/** A request whose window cannot be served; the message is written for the API user. */
export class WindowError extends Error {
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(message);
    this.name = 'WindowError';
  }
}

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

const DEFAULT_RANGE_MS = 30 * MINUTE_MS;
const MIN_RANGE_MS = 60 * SECOND_MS;
const OLD_DATA_AGE_MS = 8 * DAY_MS;
const OLD_DATA_MAX_RANGE_MS = 4 * DAY_MS;
const OLD_DATA_POINTS = 10;

/** Upper bound of the range (inclusive) → period in seconds; beyond the last, LONGEST_PERIOD_S. */
const PERIOD_BY_RANGE: ReadonlyArray<readonly [number, number]> = [
  [3 * HOUR_MS, 60],
  [6 * HOUR_MS, 120],
  [14 * HOUR_MS, 300],
  [24 * HOUR_MS, 600],
  [4 * DAY_MS, 1800],
  [7 * DAY_MS, 3600],
  [21 * DAY_MS, 10_800],
  [42 * DAY_MS, 21_600],
  [63 * DAY_MS, 43_200],
];
const LONGEST_PERIOD_S = 259_200;

const TIME_FORMAT = 'an ISO 8601 time such as 2024-03-05T14:00:00+00:00';

export function defaultPeriodSeconds(rangeMs: number, startAgeMs: number): number {
  if (startAgeMs > OLD_DATA_AGE_MS && rangeMs <= OLD_DATA_MAX_RANGE_MS) {
    return Math.ceil(rangeMs / OLD_DATA_POINTS / HOUR_MS) * 3600;
  }
  for (const [maxRangeMs, seconds] of PERIOD_BY_RANGE) {
    if (rangeMs <= maxRangeMs) return seconds;
  }
  return LONGEST_PERIOD_S;
}

export function resolveMetricWindow(req: MetricWindowRequest, nowMs: number, limits: MetricWindowLimits = {}): MetricWindow {
  const givenFrom = req.from === undefined ? undefined : parseTime('from', req.from);
  const givenTo = req.to === undefined ? nowMs : parseTime('to', req.to);
  const toMs = Math.min(givenTo, nowMs);
  const fromMs = givenFrom ?? toMs - DEFAULT_RANGE_MS;
  if (fromMs < EARLIEST_TIME_MS) throw new WindowError('from', 'The default from, 30 minutes before to, is before 0000-01-01: give a from');
  if (fromMs >= toMs) {
    const end = givenTo > nowMs ? 'now' : formatRestTime(toMs);
    throw new WindowError('from', `The time range must start before it ends: from ${formatRestTime(fromMs)} is not before ${end}`);
  }
  const rangeMs = toMs - fromMs;
  if (rangeMs < MIN_RANGE_MS) throw new WindowError('from', 'The time range must be at least 60 seconds');

  const firstMinuteMs = floorMinute(fromMs);
  const endMs = floorMinute(toMs);
  const base = { requestFromMs: fromMs, requestToMs: toMs, endMs, summarize: req.summarize };

  if (req.summarize) {
    return { ...base, beginMs: firstMinuteMs, periodSeconds: (endMs - firstMinuteMs) / SECOND_MS, slices: [{ beginMs: firstMinuteMs, endMs }] };
  }

  const old = nowMs - fromMs > OLD_DATA_AGE_MS;
  const periodSeconds = resolvePeriod(req.period, defaultPeriodSeconds(rangeMs, nowMs - fromMs), old ? 3600 : 60);
  const periodMs = periodSeconds * SECOND_MS;
  // Old data is kept as hourly rollups: its slices are whole hours on hour boundaries.
  // A range inside one hour gets that hour.
  const seriesEndMs = !old ? endMs : Math.floor(toMs / HOUR_MS) * HOUR_MS > firstMinuteMs ? Math.floor(toMs / HOUR_MS) * HOUR_MS : Math.ceil(toMs / HOUR_MS) * HOUR_MS;
  const count = Math.max(1, Math.ceil((seriesEndMs - firstMinuteMs) / periodMs));
  const maxSlices = limits.maxSlices ?? MAX_SLICES;
  if (count > maxSlices) {
    throw new WindowError('period', `The time range holds ${count} slices of ${periodSeconds} seconds; at most ${maxSlices} are returned: shorten the range, give a larger period, or summarize`);
  }
  const beginMs = seriesEndMs - count * periodMs;
  if (beginMs < EARLIEST_TIME_MS) throw new WindowError('period', 'The series would reach back before 0000-01-01: give a later from or a shorter period');
  const slices: TimeSlice[] = [];
  for (let k = 0; k < count; k++) slices.push({ beginMs: beginMs + k * periodMs, endMs: beginMs + (k + 1) * periodMs });
  return { ...base, endMs: seriesEndMs, beginMs, periodSeconds, slices };
}

function parseTime(parameter: 'from' | 'to', text: string): number {
  const ms = parseRestTime(text);
  if (ms === undefined) throw new WindowError(parameter, `Invalid ${parameter}: expected ${TIME_FORMAT}`);
  if (ms < EARLIEST_TIME_MS || ms > LAST_TIME_MS) {
    throw new WindowError(parameter, `Invalid ${parameter}: expected a time from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z`);
  }
  return ms;
}

function resolvePeriod(text: string | undefined, minimumSeconds: number, unitSeconds: number): number {
  if (text === undefined) return minimumSeconds;
  const seconds = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(seconds) || seconds <= 0) throw new WindowError('period', 'Invalid period: expected a whole number of seconds');
  if (seconds > MAX_PERIOD_SECONDS) throw new WindowError('period', `Invalid period: at most ${MAX_PERIOD_SECONDS} seconds (366 days)`);
  // Grafana plugins send their panel interval as is (20, 30 s); New Relic answers them, so round up.
  return Math.max(minimumSeconds, Math.ceil(seconds / unitSeconds) * unitSeconds);
}

function floorMinute(ms: number): number {
  return Math.floor(ms / MINUTE_MS) * MINUTE_MS;
}
