import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readZone } from './zone.js';

const WINTER = Date.parse('2023-01-15T12:00:00Z');
const SUMMER = Date.parse('2023-07-15T12:00:00Z');

/** Offsets in minutes in January and July. */
function offsets(text: string): [number, number] | undefined {
  const zone = readZone(text);
  return zone && [zone.offset(WINTER), zone.offset(SUMMER)];
}

test('abbreviations are fixed offsets all year, bare or bracketed, any case', () => {
  assert.deepEqual(offsets('UTC'), [0, 0]);
  assert.deepEqual(offsets('GMT'), [0, 0]);
  assert.deepEqual(offsets('Z'), [0, 0]);
  assert.deepEqual(offsets('EST'), [-300, -300]);
  assert.deepEqual(offsets('EDT'), [-240, -240]);
  assert.deepEqual(offsets('CST'), [-360, -360]);
  assert.deepEqual(offsets('cdt'), [-300, -300]);
  assert.deepEqual(offsets('MST'), [-420, -420]);
  assert.deepEqual(offsets('MDT'), [-360, -360]);
  assert.deepEqual(offsets('PST'), [-480, -480]);
  assert.deepEqual(offsets('[PDT]'), [-420, -420]);
});

test('offsets: ±HH, ±HHMM, ±HH:MM up to 18 hours', () => {
  assert.deepEqual(offsets('+05:30'), [330, 330]);
  assert.deepEqual(offsets('+0530'), [330, 330]);
  assert.deepEqual(offsets('-03'), [-180, -180]);
  assert.deepEqual(offsets('-00:00'), [0, 0]);
  assert.deepEqual(offsets('+18:00'), [1080, 1080]);
  assert.deepEqual(offsets('-18:00'), [-1080, -1080]);
  for (const text of ['+18:01', '+19', '+05:60', '+5', '+5:30', '05:30']) assert.equal(readZone(text), undefined, text);
});

test('IANA names follow daylight saving time, bare or bracketed, any case', () => {
  assert.deepEqual(offsets('America/New_York'), [-300, -240]);
  assert.deepEqual(offsets('[America/Chicago]'), [-360, -300]);
  assert.deepEqual(offsets('europe/london'), [0, 60]);
  assert.deepEqual(offsets('Australia/Sydney'), [660, 600]);
  assert.deepEqual(offsets('Asia/Kolkata'), [330, 330]);
  assert.deepEqual(offsets('Etc/GMT-6'), [360, 360]);
  assert.deepEqual(offsets('US/Pacific'), [-480, -420]);
  assert.deepEqual(offsets('[UTC]'), [0, 0]);
});

test('refused: unknown names, ambiguous short ids, junk', () => {
  for (const text of ['Mars/Olympus_Mons', 'IST', 'BST', 'jst', '[AET]', 'New York', '', '[]', 'America/', '12:00']) {
    assert.equal(readZone(text), undefined, text);
  }
});
