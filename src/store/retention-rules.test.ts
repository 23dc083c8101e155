import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retentionCutoff, timesliceCoverage } from './retention-rules.js';

const DAY = 86_400_000;

describe('retention rules', () => {
  it('cuts off at the start of the minute a period before now', () => {
    assert.equal(retentionCutoff(Date.UTC(2026, 0, 9, 12, 30, 45), 8 * DAY), Date.UTC(2026, 0, 1, 12, 30));
  });

  it('keeps every minute from the earlier of the cutoff and the rollup watermark', () => {
    const now = Date.UTC(2026, 0, 9, 12, 30, 45);
    // Rolled up to 10:00 on 9 Jan: minutes from 1 Jan 12:30 (the 8-day cutoff) are kept.
    assert.deepEqual(timesliceCoverage(8 * DAY, Date.UTC(2026, 0, 9, 10), now), { hourlyUntilMs: Date.UTC(2026, 0, 9, 10), minuteFromMs: Date.UTC(2026, 0, 1, 12, 30) });
    // Rollups stalled on 31 Dec: no minute after the watermark may have gone.
    assert.deepEqual(timesliceCoverage(8 * DAY, Date.UTC(2025, 11, 31), now), { hourlyUntilMs: Date.UTC(2025, 11, 31), minuteFromMs: Date.UTC(2025, 11, 31) });
    assert.deepEqual(timesliceCoverage(null, Date.UTC(2026, 0, 9, 10), now), { hourlyUntilMs: Date.UTC(2026, 0, 9, 10), minuteFromMs: null });
    assert.deepEqual(timesliceCoverage(8 * DAY, null, now), { hourlyUntilMs: null, minuteFromMs: null });
  });
});
