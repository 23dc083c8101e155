import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sharedTextIds } from './dictionaries.js';

test('sharedTextIds groups the ids of one text under the smallest; texts with one id are left out', () => {
  assert.deepEqual(sharedTextIds([[12, 'web-1'], [3, 'web-1'], [5, 'web-2'], [8, 'web-1'], [9, 'db'], [2, 'db']]), [[2, [9]], [3, [8, 12]]]);
  assert.deepEqual(sharedTextIds([[1, 'a'], [2, 'b'], [1, 'a']]), []);
  assert.deepEqual(sharedTextIds([]), []);
});
