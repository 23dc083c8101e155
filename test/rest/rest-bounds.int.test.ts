import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectAgent } from '../helpers/collector-client.js';
import { ManualClock, sendMetrics, startTestServer, TEST_API_KEY, type MetricRow } from '../helpers/rest-fixture.js';
import { TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * REST v2 metric data refuses, before building or querying anything, what would take the process
 * down: too many names[], a response too large to build, a window whose times no engine or date
 * formatting survives, a period reaching back past any storable time. Each refusal is a 422 in
 * REST's error shape, over real HTTP. The limits' values are written out here, not imported.
 */

const NOW_MS = Date.UTC(2024, 2, 5, 14, 30, 20);
const MINUTE_MS = 60_000;
const METRICS = Array.from({ length: 17 }, (_, i) => `Custom/Bounds/${String(i).padStart(2, '0')}`);

let ts: TestServer;
let appId: number;

before(async () => {
  ts = await startTestServer({}, { clock: new ManualClock(NOW_MS) });
  const connect = [{ pid: 4100, host: 'web-1', app_name: ['bounds-app'], language: 'nodejs', agent_version: '12.0.0', identifier: 'bounds-app' }];
  const { runId, connectReply } = await connectAgent(ts.server, TEST_LICENSE_KEY, connect);
  const agent = { runId };
  appId = Number(connectReply.application_id);
  const rows: MetricRow[] = METRICS.map((name) => [name, '', [1, 0.5, 0.5, 0.5, 0.5, 0.25]]);
  await sendMetrics(ts, agent.runId, NOW_MS - 5 * MINUTE_MS, NOW_MS - 4 * MINUTE_MS, rows);
});
after(() => ts?.stop());

async function get(path: string, params: [string, string][]): Promise<{ status: number; type: string; text: string; json(): any }> {
  const query = params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  const res = await fetch(`${ts.server.apiUrl}${path}?${query}`, { headers: { 'x-api-key': TEST_API_KEY } });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, json: () => JSON.parse(text) };
}

/** A GET with the parameters in a form body, as the docs' `curl -X GET … -d` sends them. */
async function getWithBody(path: string, params: [string, string][]) {
  const body = new URLSearchParams(params).toString();
  const { request } = await import('node:http');
  const url = new URL(`${ts.server.apiUrl}${path}`);
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'GET',
      headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const data = (format = 'json') => `/v2/applications/${appId}/metrics/data.${format}`;
const names = (list: readonly string[]): [string, string][] => list.map((n) => ['names[]', n]);

function assertRefused(reply: { status: number; text: string }, title: string): void {
  assert.equal(reply.status, 422, reply.text.slice(0, 300));
  assert.deepEqual(JSON.parse(reply.text), { error: { title } });
}

describe('names[] per metric-data request', () => {
  const many = Array.from({ length: 1001 }, (_, i) => `Nope/${i}`);

  it('refuses 1001 names with 422, in JSON and in XML, from a form body', async () => {
    const title = 'Too many metric names: 1001 given, at most 1000 per request; split the names over several requests';
    assertRefused(await getWithBody(data(), names(many)), title);
    const xml = await getWithBody(data('xml'), names(many));
    assert.equal(xml.status, 422);
    assert.equal(xml.text, `<?xml version="1.0" encoding="UTF-8"?>\n<error><title>${title}</title></error>`);
  });

  it('the same on a mobile application', async () => {
    const mobile = await ts.server.entities.mobileApplications.create(1, 'bounds-mobile');
    const title = 'Too many metric names: 1001 given, at most 1000 per request; split the names over several requests';
    assertRefused(await getWithBody(`/v2/mobile_applications/${mobile.id}/metrics/data.json`, names(many)), title);
  });

  it('answers 1000 names', async () => {
    const reply = await getWithBody(data(), names(many.slice(0, 1000)));
    assert.equal(reply.status, 200);
    const body = JSON.parse(reply.text);
    assert.equal(body.metric_data.metrics_not_found.length, 1000);
    assert.deepEqual(body.metric_data.metrics, []);
  });
});

describe('values per metric-data response', () => {
  // 3000 slices of the longest default period (3 days): the range is 3000 × 259 200 s back from the minute of now.
  const endMs = Date.UTC(2024, 2, 5, 14, 30);
  const window: [string, string][] = [['from', new Date(endMs - 3000 * 259_200_000).toISOString()], ['to', new Date(NOW_MS).toISOString()]];

  it('refuses 17 metrics × 3000 slices × 10 values (510 000 > 500 000) before querying', async () => {
    const reply = await get(data(), [...names(METRICS), ...window]);
    assertRefused(reply, 'The response would hold 510000 values (17 metrics × 3000 timeslices × their values); at most 500000 are returned: '
      + 'ask for fewer names[] or values[], a shorter range, a larger period, or summarize=true');
  });

  it('answers the same window when values[] narrows it, and summarized with every value', async () => {
    const narrow = await get(data(), [...names(METRICS), ...window, ['values[]', 'call_count']]);
    assert.equal(narrow.status, 200);
    const metrics = narrow.json().metric_data.metrics as { name: string; timeslices: { values: { call_count: number } }[] }[];
    assert.equal(metrics.length, 17);
    assert.equal(metrics[0]!.timeslices.length, 3000);
    // A window reaching back past 8 days is answered in whole hours ending at the hour of `to`
    // (docs/rest-api.md): the one call, in the minute of now, is after the last slice's end.
    assert.equal(metrics[0]!.timeslices.at(-1)!.values.call_count, 0);
    const summarized = await get(data(), [...names(METRICS), ...window, ['summarize', 'true']]);
    assert.equal(summarized.status, 200);
    assert.equal(summarized.json().metric_data.metrics[16].timeslices[0].values.call_count, 1);
  });
});

describe('time window arithmetic', () => {
  const metric = names([METRICS[0]!]);

  it('refuses a from before the year 0000 (JavaScript reads -271821) with 422 and builds nothing', async () => {
    const before = process.memoryUsage().heapUsed;
    const reply = await get(data(), [...metric, ['from', '-271821-04-20T00:00:00Z']]);
    assertRefused(reply, 'Invalid from: expected a time from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z');
    assert.ok(process.memoryUsage().heapUsed - before < 100 * 2 ** 20, 'no slices were built');
  });

  it('refuses a to before the year 0000 with 422, not 500', async () => {
    assertRefused(await get(data(), [...metric, ['to', '-271821-04-20T00:00:00Z']]), 'Invalid to: expected a time from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z');
    assertRefused(await get(data(), [...metric, ['to', '+275760-09-13T00:00:00Z']]), 'Invalid to: expected a time from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z');
  });

  it('counts the slices of a 2024-year window without making them', async () => {
    // From 0000-01-01 to 2024-03-05T14:30 (the minute of now) in 3-day periods.
    const count = Math.ceil((Date.UTC(2024, 2, 5, 14, 30) + 62_167_219_200_000) / 259_200_000);
    assert.equal(count, 246_439);
    assertRefused(await get(data(), [...metric, ['from', '0000-01-01T00:00:00Z']]),
      `The time range holds ${count} slices of 259200 seconds; at most 3000 are returned: shorten the range, give a larger period, or summarize`);
    const summarized = await get(data(), [...metric, ['from', '0000-01-01T00:00:00Z'], ['summarize', 'true']]);
    assert.equal(summarized.status, 200, summarized.text);
    assert.equal(summarized.json().metric_data.metrics[0].timeslices[0].values.call_count, 1);
  });

  it('refuses a period past 366 days with 422 on an application that has the metric, not 500', async () => {
    const thirtyDays: [string, string][] = [['from', '2024-02-04T14:30:00Z'], ['to', '2024-03-05T14:30:00Z']];
    assertRefused(await get(data(), [...metric, ...thirtyDays, ['period', '9007199254740991']]), 'Invalid period: at most 31622400 seconds (366 days)');
    assertRefused(await get(data(), [...metric, ...thirtyDays, ['period', '31622401']]), 'Invalid period: at most 31622400 seconds (366 days)');
    const longest = await get(data(), [...metric, ...thirtyDays, ['period', '31622400']]);
    assert.equal(longest.status, 200, longest.text);
    const [slice] = longest.json().metric_data.metrics[0].timeslices;
    // Reaching back past 8 days, the slice is whole hours ending at the hour of `to` (docs/rest-api.md).
    assert.equal(slice.from, '2023-03-05T14:00:00+00:00');
    assert.equal(slice.to, '2024-03-05T14:00:00+00:00');
    assert.equal(slice.values.call_count, 0);
  });
});
