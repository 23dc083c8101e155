import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatRestTime, parseRestTime } from './iso8601.js';

const at = (iso: string) => Date.parse(iso);

test('date only, minutes, seconds and fractions; T or a space; no zone means UTC', () => {
  assert.equal(parseRestTime('2024-03-05'), at('2024-03-05T00:00:00Z'));
  assert.equal(parseRestTime('2024-03-05T14:07'), at('2024-03-05T14:07:00Z'));
  assert.equal(parseRestTime('2024-03-05 14:07'), at('2024-03-05T14:07:00Z'));
  assert.equal(parseRestTime('2024-03-05T14:07:09'), at('2024-03-05T14:07:09Z'));
  assert.equal(parseRestTime('2024-03-05T14:07:09.5'), at('2024-03-05T14:07:09.500Z'));
  assert.equal(parseRestTime('2024-03-05T14:07:09.123'), at('2024-03-05T14:07:09.123Z'));
  assert.equal(parseRestTime('2024-03-05T14:07:09.123999999'), at('2024-03-05T14:07:09.123Z'), 'fraction truncated to ms');
  assert.equal(parseRestTime('2024-03-05t14:07:09z'), at('2024-03-05T14:07:09Z'));
});

test('zones: Z, ±HH:MM, ±HHMM, ±HH', () => {
  const utc = at('2024-03-05T06:00:00Z');
  for (const text of ['2024-03-05T06:00:00Z', '2024-03-05T06:00:00+00:00', '2024-03-05T06:00:00-00:00', '2024-03-05T14:00:00+08:00', '2024-03-05T14:00:00+0800', '2024-03-05T14:00:00+08', '2024-03-05T01:00-05:00', '2024-03-05T11:30:00.000+05:30']) {
    assert.equal(parseRestTime(text), utc, text);
  }
  assert.equal(parseRestTime('2024-03-05T00:00:00+18:00'), at('2024-03-04T06:00:00Z'));
  assert.equal(parseRestTime('2024-03-05T00:00:00-18:00'), at('2024-03-05T18:00:00Z'));
});

test('an unescaped + decoded to a space is read as the offset sign', () => {
  assert.equal(parseRestTime('2024-03-05T14:00:00 08:00'), at('2024-03-05T06:00:00Z'));
  assert.equal(parseRestTime('2024-03-05 14:00:00 0800'), at('2024-03-05T06:00:00Z'));
  assert.equal(parseRestTime('2024-03-05T14:00 08'), at('2024-03-05T06:00:00Z'));
});

test('ranges: month, day of month with leap years, hour, minute, second, offset', () => {
  assert.equal(parseRestTime('2024-02-29'), at('2024-02-29T00:00:00Z'));
  assert.equal(parseRestTime('2000-02-29'), at('2000-02-29T00:00:00Z'));
  assert.equal(parseRestTime('2024-04-30T23:59:59'), at('2024-04-30T23:59:59Z'));
  for (const text of [
    '2023-02-29', '1900-02-29', '2024-02-30', '2024-04-31', '2024-00-10', '2024-13-01', '2024-01-00', '2024-01-32',
    '2024-03-05T24:00:00', '2024-03-05T24:00', '2024-03-05T23:60', '2024-03-05T23:59:60',
    '2024-03-05T14:00:00+19:00', '2024-03-05T14:00:00+18:01', '2024-03-05T14:00:00+08:60',
  ]) {
    assert.equal(parseRestTime(text), undefined, text);
  }
});

test('two-digit years are not moved into the 1900s', () => {
  const date = new Date(0);
  date.setUTCFullYear(99, 0, 1);
  assert.equal(parseRestTime('0099-01-01'), date.getTime());
});

test('anything else is refused', () => {
  for (const text of [
    '', ' ', '1709647200', '1709647200000', 'now', 'yesterday', '2024-3-5', '24-03-05', '20240305', '2024-03-05T',
    '2024-03-05T14', '2024-03-05T1400', '2024-03-05T14:00:00.', '2024-03-05T14:00.5',
    '2024-03-05T14:00:00+8', '2024-03-05T14:00:00+08:0', '2024-03-05T14:00:00UTC', 'Tue Mar 05 2024 14:00:00',
    '"2024-03-05T14:00:00Z', 'March 5, 2024',
    '2024-03-05+08:00', '2024-03-05T14:00:00Z+01:00', '2024/03/05', '٢٠٢٤-03-05',
  ]) {
    assert.equal(parseRestTime(text), undefined, JSON.stringify(text));
  }
});

test('what real clients send besides ISO 8601: quoted JSON dates, Ruby Time#to_s, JavaScript Date#toString', () => {
  const t = at('2024-03-05T14:00:00Z');
  assert.equal(parseRestTime('"2024-03-05T14:00:00.000Z"'), t); // AngularJS-era Grafana plugins
  assert.equal(parseRestTime('2024-03-05 14:00:00 UTC'), t); // Ruby: 3.hours.ago.to_s
  assert.equal(parseRestTime('2024-03-05 06:00:00 -0800'), t); // Ruby: Time.now.to_s
  assert.equal(parseRestTime('2024-03-05T22:00:00 +08:00'), t);
  assert.equal(parseRestTime(' 2024-03-05T14:00:00Z '), t);
  assert.equal(parseRestTime('Tue Mar 05 2024 14:00:00 GMT+0000'), t);
  assert.equal(parseRestTime('Tue Mar 05 2024 15:00:00 GMT+0100 (Central European Standard Time)'), t);
  assert.equal(parseRestTime('2024-02-30 14:00:00 UTC'), undefined);
});

test('format: UTC, whole seconds floored, numeric offset', () => {
  assert.equal(formatRestTime(at('2024-03-05T14:07:00Z')), '2024-03-05T14:07:00+00:00');
  assert.equal(formatRestTime(at('2024-03-05T14:07:09.999Z')), '2024-03-05T14:07:09+00:00');
  assert.equal(formatRestTime(at('1969-12-31T23:59:59.5Z')), '1969-12-31T23:59:59+00:00');
});

test('format and parse round-trip', () => {
  for (const ms of [0, at('2024-02-29T23:59:59Z'), at('2038-01-19T03:14:08Z')]) {
    assert.equal(parseRestTime(formatRestTime(ms)), ms);
  }
});
