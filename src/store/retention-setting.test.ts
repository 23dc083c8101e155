import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRetention } from './retention-setting.js';
import { DEFAULT_RETENTION } from './store.js';

const DAY = 86_400_000;

test('the defaults follow New Relic: minutes 8 days, rollups 90, key metrics forever, events per type', () => {
  assert.deepEqual(parseRetention('', DEFAULT_RETENTION), DEFAULT_RETENTION);
  assert.equal(DEFAULT_RETENTION.minuteMs, 8 * DAY);
  assert.equal(DEFAULT_RETENTION.hourlyMs, 90 * DAY);
  assert.equal(DEFAULT_RETENTION.keyMetricsMs, null);
  assert.equal(DEFAULT_RETENTION.eventsMs.Log, 30 * DAY);
  assert.equal(DEFAULT_RETENTION.eventsMs.ChangeTrackingEvent, null);
});

test('each part overrides one default; other names are event types', () => {
  const r = parseRetention(' minute=2d, hourly=12h ,key=400d,events=90m,traces=forever,PageView=14d,Log=forever', DEFAULT_RETENTION);
  assert.deepEqual(r, {
    minuteMs: 2 * DAY, hourlyMs: 12 * 3_600_000, keyMetricsMs: 400 * DAY, otherEventsMs: 90 * 60_000, tracesMs: null,
    eventsMs: { ...DEFAULT_RETENTION.eventsMs, PageView: 14 * DAY, Log: null },
  });
});

test('a bad part is refused, saying what was expected', () => {
  assert.throws(() => parseRetention('minute=8', DEFAULT_RETENTION), { message: "minute must be a whole number of minutes, hours or days (90m, 12h, 8d) or 'forever', got '8'" });
  assert.throws(() => parseRetention('minute=0d', DEFAULT_RETENTION), /minute must be a whole number/);
  assert.throws(() => parseRetention('8d', DEFAULT_RETENTION), { message: "expected name=period, got '8d'" });
  assert.throws(() => parseRetention('Page View=1d', DEFAULT_RETENTION), { message: "'Page View' is not an event type name" });
});
