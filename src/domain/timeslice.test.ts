import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harvestMinute } from './timeslice.js';

const at = (iso: string) => Date.parse(iso);

test('a harvest is filed under the minute holding the middle of its interval', () => {
  // 12:00:40 → 12:01:40: the middle, 12:01:10, is in minute 12:01.
  assert.equal(harvestMinute(at('2026-11-22T12:00:40Z'), at('2026-11-22T12:01:40Z')), at('2026-11-22T12:01:00Z'));
  // 12:00:10 → 12:01:10: the middle, 12:00:40, is in minute 12:00.
  assert.equal(harvestMinute(at('2026-11-22T12:00:10Z'), at('2026-11-22T12:01:10Z')), at('2026-11-22T12:00:00Z'));
  // The first harvest, ~1 s after connect.
  assert.equal(harvestMinute(at('2026-11-22T12:00:59.2Z'), at('2026-11-22T12:01:00.4Z')), at('2026-11-22T12:00:00Z'));
  // A merged harvest after failed sends, 3 minutes long.
  assert.equal(harvestMinute(at('2026-11-22T12:00:00Z'), at('2026-11-22T12:03:00Z')), at('2026-11-22T12:01:00Z'));
});

test('an interval whose end precedes its begin is filed at its begin', () => {
  assert.equal(harvestMinute(at('2026-11-22T12:05:30Z'), at('2026-11-22T12:04:00Z')), at('2026-11-22T12:05:00Z'));
});
