import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultPeriodSeconds, resolveMetricWindow, WindowError, type MetricWindowRequest } from './rest-window.js';

const at = (iso: string) => Date.parse(iso);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const NOW = at('2024-03-05T14:30:12.345Z');

function windowError(parameter: string, message: string) {
  return (e: unknown) => {
    assert.ok(e instanceof WindowError, String(e));
    assert.equal(e.parameter, parameter);
    assert.equal(e.message, message);
    return true;
  };
}

const series = (from?: string, to?: string, period?: string): MetricWindowRequest => ({ from, to, period, summarize: false });

test('defaults: the last 30 minutes up to now, per minute, the current minute left out', () => {
  const w = resolveMetricWindow({ summarize: false }, NOW);
  assert.equal(w.requestToMs, NOW);
  assert.equal(w.requestFromMs, NOW - 30 * MINUTE);
  assert.equal(w.beginMs, at('2024-03-05T14:00:00Z'));
  assert.equal(w.endMs, at('2024-03-05T14:30:00Z'));
  assert.equal(w.periodSeconds, 60);
  assert.equal(w.slices.length, 30);
  assert.deepEqual(w.slices[0], { beginMs: at('2024-03-05T14:00:00Z'), endMs: at('2024-03-05T14:01:00Z') });
  assert.deepEqual(w.slices[29], { beginMs: at('2024-03-05T14:29:00Z'), endMs: at('2024-03-05T14:30:00Z') });
});

test('only to: from is 30 minutes before it; only from: to is now', () => {
  const a = resolveMetricWindow(series(undefined, '2024-03-05T10:00:00Z'), NOW);
  assert.equal(a.requestFromMs, at('2024-03-05T09:30:00Z'));
  assert.equal(a.slices.length, 30);
  const b = resolveMetricWindow(series('2024-03-05T13:30:00Z'), NOW);
  assert.equal(b.requestToMs, NOW);
  assert.equal(b.beginMs, at('2024-03-05T13:30:00Z'));
  assert.equal(b.slices.length, 60);
});

test('a to in the future is clamped to now', () => {
  const w = resolveMetricWindow(series('2024-03-05T14:00:00Z', '2024-03-06T00:00:00Z'), NOW);
  assert.equal(w.requestToMs, NOW);
  assert.equal(w.endMs, at('2024-03-05T14:30:00Z'));
  const defaulted = resolveMetricWindow(series(undefined, '2030-01-01T00:00:00Z'), NOW);
  assert.equal(defaulted.requestFromMs, NOW - 30 * MINUTE);
});

test('unparseable from or to names the parameter and the expected format', () => {
  const format = 'an ISO 8601 time such as 2024-03-05T14:00:00+00:00';
  assert.throws(() => resolveMetricWindow(series('yesterday'), NOW), windowError('from', `Invalid from: expected ${format}`));
  assert.throws(() => resolveMetricWindow(series(undefined, '1709647200'), NOW), windowError('to', `Invalid to: expected ${format}`));
  assert.throws(() => resolveMetricWindow(series('', ''), NOW), windowError('from', `Invalid from: expected ${format}`));
});

test('from at or after to is refused', () => {
  assert.throws(
    () => resolveMetricWindow(series('2024-03-05T12:00:00Z', '2024-03-05T11:00:00Z'), NOW),
    windowError('from', 'The time range must start before it ends: from 2024-03-05T12:00:00+00:00 is not before 2024-03-05T11:00:00+00:00'),
  );
  assert.throws(() => resolveMetricWindow(series('2024-03-05T12:00:00Z', '2024-03-05T12:00:00Z'), NOW), WindowError);
  assert.throws(
    () => resolveMetricWindow(series('2024-03-05T15:00:00Z', '2024-03-05T16:00:00Z'), NOW),
    windowError('from', 'The time range must start before it ends: from 2024-03-05T15:00:00+00:00 is not before now'),
  );
});

test('a range under 60 seconds is refused, judged to the millisecond', () => {
  const short = windowError('from', 'The time range must be at least 60 seconds');
  assert.throws(() => resolveMetricWindow(series('2024-03-05T14:00:00Z', '2024-03-05T14:00:59.999Z'), NOW), short);
  assert.throws(() => resolveMetricWindow(series('2024-03-05T14:00:00.500Z', '2024-03-05T14:01:00.499Z'), NOW), short);
  assert.throws(() => resolveMetricWindow({ from: '2024-03-05T14:00:00Z', to: '2024-03-05T14:00:30Z', summarize: true }, NOW), short);
  assert.throws(() => resolveMetricWindow(series(new Date(NOW - 59_000).toISOString()), NOW), short);
});

test('exactly 60 seconds straddling a minute boundary gives the one whole minute inside', () => {
  const w = resolveMetricWindow(series('2024-03-05T14:00:30Z', '2024-03-05T14:01:30Z'), NOW);
  assert.deepEqual(w.slices, [{ beginMs: at('2024-03-05T14:00:00Z'), endMs: at('2024-03-05T14:01:00Z') }]);
  const s = resolveMetricWindow({ from: '2024-03-05T14:00:59.999Z', to: '2024-03-05T14:01:59.999Z', summarize: true }, NOW);
  assert.deepEqual(s.slices, [{ beginMs: at('2024-03-05T14:00:00Z'), endMs: at('2024-03-05T14:01:00Z') }]);
  assert.equal(s.periodSeconds, 60);
  assert.equal(s.requestFromMs, at('2024-03-05T14:00:59.999Z'));
});

test('offsets other than UTC land on the same UTC window', () => {
  const w = resolveMetricWindow(series('2024-03-05T16:00:00+02:00', '2024-03-05T09:30:00-05:00'), NOW);
  assert.equal(w.requestFromMs, at('2024-03-05T14:00:00Z'));
  assert.equal(w.requestToMs, at('2024-03-05T14:30:00Z'));
  assert.equal(w.beginMs, at('2024-03-05T14:00:00Z'));
  assert.equal(w.endMs, at('2024-03-05T14:30:00Z'));
  const unescaped = resolveMetricWindow(series('2024-03-05T19:30:00 05:30', '2024-03-05T22:30:00 08:00'), NOW);
  assert.equal(unescaped.requestFromMs, at('2024-03-05T14:00:00Z'));
  assert.equal(unescaped.requestToMs, at('2024-03-05T14:30:00Z'));
});

test('default period by range length, bounds inclusive', () => {
  const table: Array<[number, number]> = [
    [60_000, 60], [3 * HOUR, 60], [3 * HOUR + 1, 120], [6 * HOUR, 120], [6 * HOUR + 1, 300], [14 * HOUR, 300],
    [14 * HOUR + 1, 600], [24 * HOUR, 600], [24 * HOUR + 1, 1800], [4 * DAY, 1800], [4 * DAY + 1, 3600], [7 * DAY, 3600],
    [7 * DAY + 1, 10_800], [21 * DAY, 10_800], [21 * DAY + 1, 21_600], [42 * DAY, 21_600], [42 * DAY + 1, 43_200],
    [63 * DAY, 43_200], [63 * DAY + 1, 259_200], [400 * DAY, 259_200],
  ];
  for (const [range, period] of table) assert.equal(defaultPeriodSeconds(range, range), period, `range ${range}`);
});

test('a start older than 8 days with a range up to 4 days gives about 10 points of whole hours', () => {
  const old = 8 * DAY + 1;
  assert.equal(defaultPeriodSeconds(HOUR, old), 3600, 'rounded up to a whole hour');
  assert.equal(defaultPeriodSeconds(61_000, old), 3600);
  assert.equal(defaultPeriodSeconds(10 * HOUR, old), 3600);
  assert.equal(defaultPeriodSeconds(10 * HOUR + 1, old), 7200);
  assert.equal(defaultPeriodSeconds(4 * DAY, old), 36_000, '9.6 hours rounded up to 10');
  assert.equal(defaultPeriodSeconds(4 * DAY + 1, old), 3600, 'longer ranges keep the table');
  assert.equal(defaultPeriodSeconds(HOUR, 8 * DAY), 60, 'exactly 8 days is not older');

  const w = resolveMetricWindow(series('2024-02-20T10:00:00Z', '2024-02-21T10:00:00Z'), NOW);
  assert.equal(w.periodSeconds, 3 * 3600, '24 h / 10 = 2.4 h, rounded up to 3');
  assert.equal(w.slices.length, 8);
  // Whole hours on hour boundaries, ending at to's hour, reaching back past from: what rollups answer.
  const unaligned = resolveMetricWindow(series('2024-02-20T10:20:00Z', '2024-02-20T14:50:00Z', '1900'), NOW);
  assert.equal(unaligned.periodSeconds, 3600, 'a period rounds up to whole hours');
  assert.deepEqual([unaligned.beginMs, unaligned.endMs], [at('2024-02-20T10:00:00Z'), at('2024-02-20T14:00:00Z')]);
  assert.equal(unaligned.slices.length, 4);
  const inside = resolveMetricWindow(series('2024-02-20T10:20:00Z', '2024-02-20T10:50:00Z'), NOW);
  assert.deepEqual(inside.slices, [{ beginMs: at('2024-02-20T10:00:00Z'), endMs: at('2024-02-20T11:00:00Z') }]);
});

test('period: coarsens; one finer than the default is raised to it, and seconds round up to whole minutes', () => {
  const fourDays = (period: string) => series('2024-03-01T14:00:00Z', '2024-03-05T14:00:00Z', period);
  const w = resolveMetricWindow(fourDays('3600'), NOW);
  assert.equal(w.periodSeconds, 3600);
  assert.equal(w.slices.length, 96);
  assert.equal(resolveMetricWindow(fourDays('1800'), NOW).periodSeconds, 1800);
  assert.equal(resolveMetricWindow(fourDays('60'), NOW).periodSeconds, 1800);
  assert.equal(resolveMetricWindow(fourDays('3630'), NOW).periodSeconds, 3660);
  const halfHour = (period: string) => series('2024-03-05T14:00:00Z', '2024-03-05T14:30:00Z', period);
  assert.equal(resolveMetricWindow(halfHour('30'), NOW).periodSeconds, 60); // Grafana's panel interval
  assert.equal(resolveMetricWindow(halfHour('90'), NOW).periodSeconds, 120);
  for (const bad of ['', '0', '-60', '60.0', '1e3', ' 60', '0x3c', 'abc', '99999999999999999999']) {
    assert.throws(() => resolveMetricWindow(fourDays(bad), NOW), windowError('period', 'Invalid period: expected a whole number of seconds'), bad);
  }
  assert.equal(resolveMetricWindow(fourDays('003600'), NOW).periodSeconds, 3600);
});

test('period is ignored when summarizing', () => {
  const w = resolveMetricWindow({ from: '2024-03-05T14:00:00Z', to: '2024-03-05T14:30:00Z', period: 'abc', summarize: true }, NOW);
  assert.equal(w.periodSeconds, 1800);
});

test('series are laid back from the end in whole periods, so they may start before from', () => {
  const w = resolveMetricWindow(series('2024-03-05T12:06:06Z', '2024-03-05T14:06:06Z', '420'), NOW);
  assert.equal(w.endMs, at('2024-03-05T14:06:00Z'));
  assert.equal(w.slices.length, 18, '120 minutes in 7-minute slices');
  assert.equal(w.beginMs, at('2024-03-05T12:00:00Z'));
  assert.deepEqual(w.slices[0], { beginMs: at('2024-03-05T12:00:00Z'), endMs: at('2024-03-05T12:07:00Z') });
  assert.equal(w.requestFromMs, at('2024-03-05T12:06:06Z'));

  const exact = resolveMetricWindow(series('2024-03-05T13:06:06Z', '2024-03-05T14:06:06Z', '300'), NOW);
  assert.equal(exact.beginMs, at('2024-03-05T13:06:00Z'), 'a range of whole periods starts at its first minute');
  assert.equal(exact.slices.length, 12);
});

test('a period longer than the range gives one slice ending at to', () => {
  const w = resolveMetricWindow(series('2024-03-05T14:00:00Z', '2024-03-05T14:30:00Z', '86400'), NOW);
  assert.deepEqual(w.slices, [{ beginMs: at('2024-03-04T14:30:00Z'), endMs: at('2024-03-05T14:30:00Z') }]);
});

test('summarize: one slice from the minute of from to the minute of to', () => {
  const w = resolveMetricWindow({ from: '2024-03-05T13:22:45Z', to: '2024-03-05T14:07:12Z', summarize: true }, NOW);
  assert.equal(w.summarize, true);
  assert.equal(w.beginMs, at('2024-03-05T13:22:00Z'));
  assert.equal(w.endMs, at('2024-03-05T14:07:00Z'));
  assert.equal(w.periodSeconds, 45 * 60);
  assert.deepEqual(w.slices, [{ beginMs: w.beginMs, endMs: w.endMs }]);
  assert.equal(w.requestFromMs, at('2024-03-05T13:22:45Z'));
  assert.equal(w.requestToMs, at('2024-03-05T14:07:12Z'));
});

test('every series covers [beginMs, endMs) in whole, contiguous periods reaching back past from', () => {
  let seed = 12345;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 500; i++) {
    const toMs = NOW - Math.floor(random() * 30 * DAY);
    const fromMs = toMs - 60_000 - Math.floor(random() * random() * 90 * DAY);
    const w = resolveMetricWindow(series(new Date(fromMs).toISOString(), new Date(toMs).toISOString()), NOW);
    const periodMs = w.periodSeconds * 1000;
    assert.equal(w.endMs % MINUTE, 0);
    assert.equal(w.beginMs % MINUTE, 0);
    assert.equal((w.endMs - w.beginMs) % periodMs, 0);
    assert.ok(w.beginMs <= fromMs && fromMs - w.beginMs < periodMs + MINUTE, `begin ${w.beginMs} from ${fromMs}`);
    // A start older than 8 days: whole hours, as the hourly rollups hold that data.
    const unit = NOW - fromMs > 8 * DAY ? HOUR : MINUTE;
    assert.equal(w.endMs % unit, 0);
    assert.equal(periodMs % unit, 0);
    if (w.endMs > toMs) assert.ok(unit === HOUR && w.slices.length === 1 && w.endMs - toMs < HOUR && w.beginMs <= fromMs, 'a range inside one hour gets that hour');
    else assert.ok(toMs - w.endMs < unit);
    assert.ok(w.slices.length >= 1);
    assert.equal(w.slices[0]?.beginMs, w.beginMs);
    assert.equal(w.slices.at(-1)?.endMs, w.endMs);
    w.slices.forEach((s, k) => {
      assert.equal(s.endMs - s.beginMs, periodMs);
      if (k > 0) assert.equal(s.beginMs, w.slices[k - 1]?.endMs);
    });
  }
});

test('times outside the years 0000–9999 are refused, whichever parser read them', () => {
  const message = (p: string) => `Invalid ${p}: expected a time from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z`;
  assert.throws(() => resolveMetricWindow(series('-271821-04-20T00:00:00Z'), NOW), windowError('from', message('from')));
  assert.throws(() => resolveMetricWindow(series(undefined, '-271821-04-20T00:00:00Z'), NOW), windowError('to', message('to')));
  assert.throws(() => resolveMetricWindow(series('-000001-12-31T00:00:00Z'), NOW), windowError('from', message('from')));
  assert.equal(resolveMetricWindow({ from: '0000-01-01T00:00:00Z', summarize: true }, NOW).beginMs, -62_167_219_200_000);
});

test('the slice count is checked before slices are made, against the limit given', () => {
  const twoDays = series('2024-03-03T14:30:00Z', '2024-03-05T14:30:00Z', '3600');
  assert.equal(resolveMetricWindow(twoDays, NOW, { maxSlices: 48 }).slices.length, 48);
  assert.throws(() => resolveMetricWindow(twoDays, NOW, { maxSlices: 47 }), windowError('period',
    'The time range holds 48 slices of 3600 seconds; at most 47 are returned: shorten the range, give a larger period, or summarize'));
});

test('a period is at most 366 days', () => {
  const day = series('2024-03-04T14:30:00Z', '2024-03-05T14:30:00Z', '31622400');
  assert.equal(resolveMetricWindow(day, NOW).beginMs, at('2023-03-05T14:30:00Z'));
  for (const period of ['31622401', '9007199254740991']) {
    assert.throws(() => resolveMetricWindow({ ...day, period }, NOW), windowError('period', 'Invalid period: at most 31622400 seconds (366 days)'));
  }
});

test('nothing reaches back before 0000-01-01: a default from, or slices laid back a long period', () => {
  assert.throws(() => resolveMetricWindow(series(undefined, '0000-01-01T00:10:00Z'), NOW),
    windowError('from', 'The default from, 30 minutes before to, is before 0000-01-01: give a from'));
  assert.throws(() => resolveMetricWindow(series('0000-01-01T00:00:00Z', '0000-01-02T00:00:00Z', '36000'), NOW),
    windowError('period', 'The series would reach back before 0000-01-01: give a later from or a shorter period'));
  assert.equal(resolveMetricWindow(series('0000-01-01T00:00:00Z', '0000-01-02T00:00:00Z', '600'), NOW).beginMs, -62_167_219_200_000);
});
