import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatNumber, isoTime, renderTable } from './query.js';

test('formatNumber rounds to three decimals, drops trailing zeros and groups thousands', () => {
  const cases: [number, string][] = [
    [1.0017709190000001, '1.002'], [0.1 + 0.2, '0.3'], [42, '42'], [1234567.891234, '1,234,567.891'], [-1234.5, '-1,234.5'],
    [0.00042, '0.00042'], [0, '0'], [999.9996, '1,000'],
  ];
  assert.deepEqual(cases.map(([v]) => formatNumber(v)), cases.map(([, s]) => s));
});

test('isoTime: UTC with Z, or the zone offset given, minutes included', () => {
  const at = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
  assert.equal(isoTime(at, { utc: true, wide: false }), '2026-01-02T03:04:05.006Z');
  assert.equal(isoTime(at, { utc: false, wide: false, offsetMinutes: () => 330 }), '2026-01-02T08:34:05.006+05:30');
  assert.equal(isoTime(at, { utc: false, wide: false, offsetMinutes: () => -420 }), '2026-01-01T20:04:05.006-07:00');
});

test('renderTable leaves out the facet column when the facet has its own, and cuts long cells unless wide', () => {
  const rows = [{ facet: 'checkout', appName: 'checkout', count: 3, 'percentile.duration': { 95: 1.0017709190000001 } }];
  assert.equal(renderTable(rows, { utc: true, wide: false }, ['appName']), [
    'appName   count  percentile.duration',
    '--------  -----  -------------------',
    'checkout  3      {"95":1.002}',
    '',
  ].join('\n'));
  const long = [{ name: 'x'.repeat(70) }];
  assert.equal(renderTable(long, { utc: true, wide: false }).split('\n')[2], `${'x'.repeat(59)}…`);
  assert.equal(renderTable(long, { utc: true, wide: true }).split('\n')[2], 'x'.repeat(70));
});
