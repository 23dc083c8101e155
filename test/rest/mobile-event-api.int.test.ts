import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock, rest, startTestServer } from '../helpers/rest-fixture.js';
import { TEST_API_KEY, TEST_LICENSE_KEY } from '../helpers/test-server.js';
import { NOW_MS } from './rest-scenario.js';

/*
 * The whole path of a mobile application's data as any tool sends it: Mobile events POSTed to
 * the Event API (license key as the insert key), then read back by REST v2 as the mobile
 * summary and mobile metric data.
 */

test('Mobile events sent through the Event API are what REST v2 summarises and charts', async (t) => {
  const ts = await startTestServer({}, { clock: new ManualClock(NOW_MS) });
  t.after(() => ts.stop());
  const created = await rest(ts, 'POST', '/v2/mobile_applications.json', { body: { mobile_application: { name: 'Field App' } } });
  assert.equal(created.status, 201);
  const id = created.json().application.id as number;

  const at = (m: number, s = 0) => Date.UTC(2024, 2, 5, 14, m, s);
  const events = [
    { eventType: 'Mobile', appName: 'Field App', category: 'Session', deviceUuid: 'p1', timestamp: at(24) },
    { eventType: 'Mobile', appName: 'Field App', category: 'Session', deviceUuid: 'p2', timestamp: at(25, 30) },
    { eventType: 'Mobile', appName: 'Field App', category: 'Interaction', deviceUuid: 'p2', name: 'Map', duration: 2, timestamp: at(25, 40) },
    { eventType: 'Mobile', appName: 'Field App', category: 'Session', deviceUuid: 'p1', timestamp: at(27) },
    { eventType: 'Mobile', appName: 'Field App', category: 'Crash', deviceUuid: 'p1', timestamp: at(27, 5) },
    { eventType: 'Mobile', appName: 'Other App', category: 'Crash', deviceUuid: 'q1', timestamp: at(27, 5) },
  ];
  const sent = await ts.server.api.inject({
    method: 'POST', url: '/v1/accounts/1/events', headers: { 'api-key': TEST_LICENSE_KEY, 'content-type': 'application/json' }, payload: events,
  });
  assert.equal(sent.statusCode, 200, sent.body);

  const app = (await rest(ts, 'GET', `/v2/mobile_applications/${id}.json`)).json().application;
  // 3 launches by 2 devices, one 2 s interaction, 1 crash in 3 launches = 33.3 %.
  assert.deepEqual(app.mobile_summary, { active_users: 2, launch_count: 3, interaction_time: 2 });
  assert.deepEqual(app.crash_summary, { supports_crash_data: true, unresolved_crash_count: 1, crash_count: 1, crash_rate: 33.3 });
  assert.deepEqual([app.reporting, app.last_reported_at, app.health_status], [true, '2024-03-05T14:27:05+00:00', 'red']);

  const reply = await rest(ts, 'GET', `/v2/mobile_applications/${id}/metrics/data.json?names[]=Session/Start&names[]=Mobile/Crash/All&values[]=call_count&from=2024-03-05T14:24:00Z&to=2024-03-05T14:28:00Z`);
  const counts = (reply.json().metric_data.metrics as { timeslices: { values: { call_count: number } }[] }[]).map((m) => m.timeslices.map((s) => s.values.call_count));
  assert.deepEqual(counts, [[1, 1, 0, 1], [0, 0, 0, 1]]);

  // Each metric's X-Timeslice-NRQL, run by the NRQL engine over the same events, gives the same counts.
  const lines = reply.headers['x-timeslice-nrql'] as string[];
  assert.equal(lines.length, 2);
  for (const [i, line] of lines.entries()) {
    const answer = await ts.server.api.inject({ method: 'POST', url: '/timeslice/v1/nrql', headers: { 'api-key': TEST_API_KEY }, payload: { query: line } });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.deepEqual((JSON.parse(answer.body).results as { call_count: number }[]).map((r) => r.call_count), counts[i], line);
  }
});
