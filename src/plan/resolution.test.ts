import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AggregatePlan } from './aggregate-plan.js';
import { eq, field, rowArith, type AggregateCall } from './expressions.js';
import { chooseResolution, HOUR_MS, rollupAnswers } from './resolution.js';

const H = Date.UTC(2026, 10, 1);
const ratio = rowArith('/', field('totalExclusive'), field('count'));
const plan = (over: Partial<AggregatePlan> = {}): AggregatePlan => ({
  kind: 'aggregate', source: { kind: 'timeslices' }, accountId: 1, window: { beginMs: H, endMs: H + 5 * HOUR_MS },
  where: eq('appId', 3), groupBy: [field('metricId')], aggregates: [{ fn: 'sum', arg: field('count') }, { fn: 'max', arg: field('max') }], outputs: [], ...over,
});

test('whole hours below the watermark come from rollups, the rest from minutes', () => {
  const chosen = chooseResolution(plan({ window: { beginMs: H - 10 * 60_000, endMs: H + 5 * HOUR_MS } }), { hourlyUntilMs: H + 3 * HOUR_MS, minuteFromMs: null });
  assert.equal(chosen.resolution, 'mixed');
  assert.deepEqual(chosen.plan.source, { kind: 'timeslices', hourly: { beginMs: H, endMs: H + 3 * HOUR_MS } });
  const all = chooseResolution(plan(), { hourlyUntilMs: H + 5 * HOUR_MS, minuteFromMs: null });
  assert.deepEqual([all.resolution, all.plan.source], ['hour', { kind: 'timeslices', hourly: { beginMs: H, endMs: H + 5 * HOUR_MS } }]);
  assert.equal(chooseResolution(plan(), { hourlyUntilMs: null, minuteFromMs: null }).resolution, 'minute');
  assert.equal(chooseResolution(plan(), { hourlyUntilMs: H, minuteFromMs: null }).resolution, 'minute', 'nothing rolled up inside the window');
  assert.equal(chooseResolution(plan({ window: { beginMs: H + 60_000, endMs: H + HOUR_MS + 59 * 60_000 } }), { hourlyUntilMs: H + 9 * HOUR_MS, minuteFromMs: null }).resolution, 'minute', 'no whole hour inside');
});

test('only plans rollups answer exactly: merged value fields, identity filters and groups, hour buckets', () => {
  const no = (over: Partial<AggregatePlan>, why: string) => assert.equal(rollupAnswers(plan(over)), false, why);
  assert.equal(rollupAnswers(plan()), true);
  assert.equal(rollupAnswers(plan({ buckets: { beginMs: H, widthMs: 2 * HOUR_MS, count: 2 }, window: { beginMs: H, endMs: H + 4 * HOUR_MS } })), true);
  no({ buckets: { beginMs: H, widthMs: 30 * 60_000, count: 10 } }, 'half-hour buckets');
  no({ buckets: { beginMs: H + 60_000, widthMs: HOUR_MS, count: 4 } }, 'buckets off the hour');
  no({ aggregates: [{ fn: 'sum', arg: field('min') }] }, 'a sum of minimums');
  no({ aggregates: [{ fn: 'count', arg: field('count') }] }, 'a count of rows');
  no({ aggregates: [{ fn: 'countRows' }] }, 'a count of rows');
  no({ aggregates: [{ fn: 'max', arg: ratio }] }, 'the largest per-minute ratio');
  no({ where: { kind: 'compare', op: '>', left: field('count'), right: { kind: 'literal', value: 1 } } }, 'a filter on a value');
  no({ groupBy: [field('timestamp')] }, 'grouped by the minute');
  no({ source: { kind: 'events', eventTypes: ['Transaction'] } }, 'events');
  no({ aggregates: [{ fn: 'sum', arg: field('count'), where: { kind: 'compare', op: '<', left: field('total'), right: { kind: 'literal', value: 1 } } }] }, 'a filter() on a value');
});

test("the sum and count of each minute's exclusive time per call read the points the rollups keep", () => {
  const aggregates: AggregateCall[] = [{ fn: 'sum', arg: ratio }, { fn: 'count', arg: ratio }, { fn: 'min', arg: field('min') }];
  const chosen = chooseResolution(plan({ aggregates }), { hourlyUntilMs: H + 5 * HOUR_MS, minuteFromMs: null });
  assert.deepEqual(chosen.plan.aggregates, [
    { fn: 'sum', arg: field('exclusivePerCall') }, { fn: 'sum', arg: field('exclusivePerCallPoints') }, { fn: 'min', arg: field('min') },
  ]);
  const minute = chooseResolution(plan({ aggregates }), { hourlyUntilMs: null, minuteFromMs: null });
  assert.deepEqual(minute.plan.aggregates, aggregates, 'unchanged when the minutes answer');
});

test('buckets off the hour: 1-minute data while kept, rollups only for hours whose minutes may have expired', () => {
  // NRQL lays TIMESERIES buckets back from now: 1-hour buckets ending at 10:17.
  const window = { beginMs: H + 17 * 60_000, endMs: H + 10 * HOUR_MS + 17 * 60_000 };
  const hourly = plan({ window, buckets: { beginMs: window.beginMs, widthMs: HOUR_MS, count: 10 } });
  assert.equal(chooseResolution(hourly, { hourlyUntilMs: H + 9 * HOUR_MS, minuteFromMs: null }).resolution, 'minute', 'nothing expired: minutes answer exactly');
  // Minutes before 04:30 may be gone: rollups for 01:00–05:00, minutes for the rest.
  const old = chooseResolution(hourly, { hourlyUntilMs: H + 9 * HOUR_MS, minuteFromMs: H + 4 * HOUR_MS + 30 * 60_000 });
  assert.deepEqual([old.resolution, old.plan.source], ['mixed', { kind: 'timeslices', hourly: { beginMs: H + HOUR_MS, endMs: H + 5 * HOUR_MS } }]);
  const fine = plan({ window, buckets: { beginMs: window.beginMs, widthMs: 30 * 60_000, count: 20 } });
  assert.equal(chooseResolution(fine, { hourlyUntilMs: H + 9 * HOUR_MS, minuteFromMs: H + 4 * HOUR_MS }).resolution, 'minute', 'buckets under an hour');
});
