import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connectApp, ManualClock, rest, sendMetrics, startTestServer } from '../helpers/rest-fixture.js';

const clock = new ManualClock(Date.parse('2026-11-22T12:00:30Z'));
const ts = await startTestServer({}, { clock });
after(() => ts.stop());
const minute = Date.parse('2026-11-22T11:50:00Z');
const lines = (value: unknown): string[] => (Array.isArray(value) ? value : value === undefined ? [] : [String(value)]);

test('X-Timeslice-NRQL stays a valid header: non-ASCII names percent-encode every line, and lines past 8 KiB are counted, not sent', async () => {
  const app = await connectApp(ts, 'headers');
  const names = Array.from({ length: 60 }, (_, i) => `Custom/größe/${i}`);
  await sendMetrics(ts, app.runId, minute, minute + 60_000, [
    ['Custom/plain', '', [1, 1, 1, 1, 1, 1]],
    ...names.map((n) => [n, '', [2, 1, 0.5, 0.25, 0.75, 0.6]] as const),
  ]);
  const query = ['Custom/plain', ...names].map((n) => `names[]=${encodeURIComponent(n)}`).join('&');
  const reply = await rest(ts, 'GET', `/v2/applications/${app.appId}/metrics/data.json?${query}&summarize=true`);
  assert.equal(reply.status, 200);
  assert.equal(reply.headers['x-timeslice-nrql-encoding'], 'uri');
  const sent = lines(reply.headers['x-timeslice-nrql']);
  assert.ok(sent.every((l) => /^[\x21-\x7e]+$/.test(l)), 'every line is printable ASCII without spaces');
  assert.ok(sent.join('').length <= 8 * 1024);
  assert.equal(sent.length + Number(reply.headers['x-timeslice-nrql-omitted']), 61);
  const decoded = sent.map(decodeURIComponent);
  assert.match(decoded[0]!, /metricTimesliceName = 'Custom\/plain'/);
  assert.match(decoded[1]!, /^SELECT .* FROM Metric WHERE appId = \d+ AND metricTimesliceName = 'Custom\/größe\/0' AND scope IS NULL SINCE \d+ UNTIL \d+$/);
});

test('ASCII queries travel as they are, quotes escaped NRQL-style', async () => {
  const app = await connectApp(ts, 'quotes');
  await sendMetrics(ts, app.runId, minute, minute + 60_000, [["Custom/O'Brien", '', [1, 1, 1, 1, 1, 1]]]);
  const reply = await rest(ts, 'GET', `/v2/applications/${app.appId}/metrics/data.json?names[]=${encodeURIComponent("Custom/O'Brien")}&values[]=call_count`);
  assert.equal(reply.headers['x-timeslice-nrql-encoding'], undefined);
  assert.equal(reply.headers['x-timeslice-nrql-omitted'], undefined);
  assert.deepEqual(lines(reply.headers['x-timeslice-nrql']), [
    `SELECT count(newrelic.timeslice.value) AS call_count FROM Metric WHERE appId = ${app.appId} AND metricTimesliceName = 'Custom/O\\'Brien' AND scope IS NULL ` +
      `SINCE ${Date.parse('2026-11-22T11:30:00Z')} UNTIL ${Date.parse('2026-11-22T12:00:00Z')} TIMESERIES 1 minute`,
  ]);
});
