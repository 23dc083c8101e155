import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { isStorableTime, LAST_TIME_MS } from './time-range.js';

test('stored times run from 1970 to the last millisecond of the year 9999', () => {
  assert.equal(LAST_TIME_MS, 253402300799999);
  assert.equal(new Date(LAST_TIME_MS).toISOString(), '9999-12-31T23:59:59.999Z');
  assert.equal(isStorableTime(0), true);
  assert.equal(isStorableTime(253402300799999), true);
  assert.equal(isStorableTime(253402300800000), false);
  assert.equal(isStorableTime(-1), false);
  assert.equal(isStorableTime(Number.NaN), false);
  assert.equal(isStorableTime(Number.POSITIVE_INFINITY), false);
});
