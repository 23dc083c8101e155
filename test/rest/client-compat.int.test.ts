// What real REST v2 clients send besides the documented forms (found by reading their sources).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connectApp, ManualClock, rest, sendMetrics, startTestServer } from '../helpers/rest-fixture.js';

const clock = new ManualClock(Date.parse('2024-03-05T14:30:20Z'));
const ts = await startTestServer({}, { clock });
after(() => ts.stop());
const minute = Date.parse('2024-03-05T14:20:00Z');
const shop = await connectApp(ts, 'compat-shop');
await sendMetrics(ts, shop.runId, minute, minute + 60_000, [['HttpDispatcher', '', [10, 2, 2, 0.1, 0.5, 0.6]]]);
const quiet = await connectApp(ts, 'compat-quiet', 'batch-1');
await sendMetrics(ts, quiet.runId, minute, minute + 60_000, [['Custom/tick', '', [1, 1, 1, 1, 1, 1]]]);

test("Ansible's newrelic_deployment: POST /v2/applications.json with filter[name] as form data is the list", async () => {
  const reply = await rest(ts, 'POST', '/v2/applications.json', {
    body: 'filter[name]=compat-shop', headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(reply.status, 200);
  assert.deepEqual(reply.json().applications.map((a: { id: number }) => a.id), [shop.appId]);
});

test('times as Ruby, AngularJS-era Grafana and JavaScript print them read as the same window', async () => {
  const base = `/v2/applications/${shop.appId}/metrics/data.json?names[]=HttpDispatcher&summarize=true&values[]=call_count`;
  const forms: [string, string][] = [
    ['2024-03-05T14:00:00Z', '2024-03-05T14:30:00Z'],
    ['2024-03-05 14:00:00 UTC', '2024-03-05 06:30:00 -0800'],
    ['"2024-03-05T14:00:00.000Z"', '"2024-03-05T14:30:00.000Z"'],
    ['Tue Mar 05 2024 14:00:00 GMT+0000', 'Tue Mar 05 2024 15:30:00 GMT+0100 (Central European Standard Time)'],
  ];
  for (const [from, to] of forms) {
    const reply = await rest(ts, 'GET', `${base}&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
    assert.equal(reply.status, 200, `${from} … ${to}: ${reply.text}`);
    const data = reply.json().metric_data;
    assert.deepEqual([data.from, data.to], ['2024-03-05T14:00:00+00:00', '2024-03-05T14:30:00+00:00'], from);
    assert.equal(data.metrics[0].timeslices[0].values.call_count, 10);
  }
  const local = await rest(ts, 'GET', `${base}&from=${encodeURIComponent('Tue Mar 05 2024 14:00:00')}`);
  assert.equal(local.status, 422, 'a time without its zone is refused, not read in the server time zone');
});

test("Grafana's panel interval as period: rounded up to whole minutes, raised to the range's minimum", async () => {
  const url = (period: number) => `/v2/applications/${shop.appId}/metrics/data.json?names[]=HttpDispatcher&values[]=call_count&from=2024-03-05T14:00:00Z&to=2024-03-05T14:30:00Z&period=${period}`;
  const slices = async (period: number) => (await rest(ts, 'GET', url(period))).json().metric_data.metrics[0].timeslices as { from: string; to: string }[];
  assert.equal((await slices(30)).length, 30);
  const two = await slices(90);
  assert.equal(two.length, 15);
  assert.deepEqual([two[0]!.from, two[0]!.to], ['2024-03-05T14:00:00+00:00', '2024-03-05T14:02:00+00:00']);
});

test('a reporting application without web requests still has an application_summary, all zeros', async () => {
  const reply = await rest(ts, 'GET', `/v2/applications/${quiet.appId}.json`);
  const app = reply.json().application;
  assert.equal(app.reporting, true);
  assert.deepEqual(app.application_summary, {
    response_time: 0, throughput: 0, error_rate: 0, apdex_target: 0.5, apdex_score: 0, host_count: 1, instance_count: 1, concurrent_instance_count: 1,
  });
});

test('behind a TLS-terminating proxy, Link targets carry the scheme and host the client used', async () => {
  for (let i = 0; i < 201; i++) await connectApp(ts, `compat-many-${String(i).padStart(3, '0')}`, `h${i}`, 9000 + i);
  const reply = await rest(ts, 'GET', '/v2/applications.json?filter[name]=compat-many', {
    headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'apm.example.com' },
  });
  assert.equal(reply.status, 200);
  assert.equal(String(reply.headers.link).split(', ')[0], '<https://apm.example.com/v2/applications.json?filter[name]=compat-many&page=2>;rel="next"');
});
