import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { obfuscate } from '../../src/ingest/browser/obfuscation.js';
import { agentQuery, invoke } from '../helpers/collector-client.js';
import { connectApp, ManualClock, rest, startTestServer } from '../helpers/rest-fixture.js';
import { repoRoot, sample, SAMPLES_DIR } from '../helpers/samples.js';
import { TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

/** The lab's captured beacons (browser agent 1.322.0 in headless Chromium). */
const lab = JSON.parse(readFileSync(join(SAMPLES_DIR, 'browser-beacons-1.322.0.json'), 'utf8')) as {
  user_agent: string;
  samples: Record<string, { path: string; query: Record<string, string>; headers: Record<string, string>; body?: string }>;
};
const NOW = 1_795_695_410_400; // just after the lab's beacons were sent

let ts: TestServer;
const clock = new ManualClock(NOW);
let key: string;
let standaloneId: number;
let apmId: number;

async function post(path: string, query: Record<string, string>, body: string | Buffer | undefined, headers: Record<string, string> = {}) {
  const url = `${ts.server.apiUrl}${path}?${new URLSearchParams(query)}`;
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain', origin: 'http://localhost:38507', 'user-agent': lab.user_agent, ...headers }, ...(body !== undefined ? { body } : {}) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Replays a lab beacon against this server's key and the given application id. */
function replay(name: string, a: number, overrides: Record<string, string> = {}, extra: { sa?: boolean } = { sa: true }) {
  const s = lab.samples[name]!;
  const query: Record<string, string> = { ...s.query, a: String(a), ...overrides };
  if (!extra.sa) delete query.sa;
  const path = s.path.replace(/NRJS-testkey0000000/, key);
  if ('browser_monitoring_key' in query) query.browser_monitoring_key = key;
  // The raw endpoints name the application in the body (logs) or `app_id` (blobs).
  return post(path, query, s.body?.replace(/"appId":"42"/g, `"appId":"${a}"`));
}

async function nrql(query: string): Promise<any[]> {
  const res = await fetch(`${ts.server.apiUrl}/timeslice/v1/nrql`, {
    method: 'POST', headers: { 'api-key': TEST_API_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ query }),
  });
  const body = await res.json() as { results?: any[] };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.results!;
}

async function count(eventType: string, where = ''): Promise<number> {
  const [row] = await nrql(`SELECT count(*) FROM ${eventType} ${where} SINCE 1 day ago`);
  return row.count as number;
}

async function storedRows(): Promise<number> {
  const [row] = await ts.server.db.all<{ n: bigint }>('SELECT (SELECT count(*) FROM custom_events) + (SELECT count(*) FROM timeslices) + (SELECT count(*) FROM log_events) AS n');
  const n = row!.n;
  return Number(n);
}

/**
 * The stored row count once no write of an earlier test is still landing (two equal reads 100 ms
 * apart), so a refusal is compared against what was there before it alone.
 */
async function settledRows(): Promise<number> {
  let last = await storedRows();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await storedRows();
    if (now === last) return now;
    last = now;
  }
}

before(async () => {
  ts = await startTestServer({}, { clock });
  const standalone = await ts.server.entities.browserApplications.create({ accountId: 1, name: 'Shop site' });
  standaloneId = standalone.id;
  key = standalone.browserMonitoringKey;
  apmId = (await connectApp(ts, 'Checkout')).appId;
  await ts.server.entities.browserApplications.create({ accountId: 1, name: 'Checkout', apmApplicationId: apmId });
});
after(async () => ts?.stop());

describe('browser agent files', () => {
  const built = readFileSync(join(repoRoot(), 'build', 'browser-agent', 'nr-loader-spa.min.js'));
  const version = (JSON.parse(readFileSync(join(repoRoot(), 'build', 'browser-agent', 'manifest.json'), 'utf8')) as { version: string }).version;

  it('serves the built loader under the snippet path, cached a week with an ETag', async () => {
    const res = await fetch(`${ts.server.apiUrl}/browser-agent/nr-loader-spa.min.js`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=604800');
    assert.match(res.headers.get('content-type')!, /^application\/javascript/);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), built);
    const again = await fetch(`${ts.server.apiUrl}/browser-agent/nr-loader-spa.min.js`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    assert.equal(again.status, 304);
  });

  it('serves the versioned path as immutable, and 404s other versions and files', async () => {
    assert.equal(version, '1.322.0');
    const res = await fetch(`${ts.server.apiUrl}/browser-agent/${version}/nr-loader-rum.min.js`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal((await fetch(`${ts.server.apiUrl}/browser-agent/1.0.0/nr-loader-rum.min.js`)).status, 404);
    assert.equal((await fetch(`${ts.server.apiUrl}/browser-agent/nr-loader-other.min.js`)).status, 404);
  });

  it('loads nothing from a CDN', () => {
    assert.doesNotMatch(built.toString('utf8'), /js-agent\.newrelic\.com/);
  });
});

describe('beacons of a standalone (copy/paste) application', () => {
  it('answers the RUM call with the flags, the server time and CORS for the page', async () => {
    const res = await replay('spa_rum_first_page', standaloneId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('access-control-allow-origin'), 'http://localhost:38507');
    assert.deepEqual(JSON.parse(res.text), {
      err: 1, ins: 1, spa: 1, st: 0, sts: 0, sr: 0, srs: 0, log: 0, logapi: 0,
      app: { agents: [{ entityGuid: Buffer.from(`1|BROWSER|APPLICATION|${standaloneId}`).toString('base64').replace(/=+$/, '') }], nrServerTime: NOW },
    });
  });

  it('stores every beacon kind as its events', async () => {
    for (const name of ['spa_events_bel6_timings_first', 'spa_events_bel7_initial_page_load', 'spa_events_bel7_route_change', 'spa_jserrors_err_and_xhr', 'spa_ins_pageaction_custom_perf', 'spa_logs']) {
      const res = await replay(name, standaloneId);
      assert.equal(res.status, 200, `${name}: ${res.text}`);
    }
    assert.equal(await count('PageView'), 1);
    assert.equal(await count('PageViewTiming'), 3);
    assert.equal(await count('BrowserInteraction'), 2);
    assert.equal(await count('AjaxRequest'), 3); // two in the initial load, one in the route change
    assert.equal(await count('JavaScriptError'), 2);
    assert.equal(await count('PageAction'), 1);
    assert.equal(await count('LabEvent'), 1);
    assert.equal(await count('Log', "WHERE message = 'lab log line'"), 1);
  });

  it('keeps the attributes of the reference (§3)', async () => {
    const [pv] = await nrql("SELECT duration, backendDuration, domProcessingDuration, pageRenderingDuration, appName, appId, session, pageUrl, tier, userAgentName, deviceType, browserTransactionName, timestamp FROM PageView SINCE 1 day ago");
    // be=12, fe=182, dc=163 ms; rst=203 ms before the RUM call arrived.
    assert.deepEqual({ ...pv, timestamp: undefined }, {
      duration: 0.194, backendDuration: 0.012, domProcessingDuration: 0.163, pageRenderingDuration: 0.019, appName: 'Shop site',
      appId: standaloneId, session: 'b730d53c80679879', pageUrl: 'http://localhost:38507/page.html', tier: 'gold',
      userAgentName: 'Headless Chrome', deviceType: 'Desktop', browserTransactionName: 'http://localhost:38507/page.html', timestamp: undefined,
    });
    assert.equal(pv.timestamp, NOW - 203);
    const timings = await nrql('SELECT timingName, firstPaint, firstContentfulPaint, windowLoad FROM PageViewTiming SINCE 1 day ago LIMIT 10');
    const byName = Object.fromEntries(timings.map((t: any) => [t.timingName, t]));
    assert.equal(byName.fp.firstPaint, 0.184);
    assert.equal(byName.fcp.firstContentfulPaint, 0.184);
    assert.equal(byName.load.windowLoad, 0.194);
    const [ixn] = await nrql("SELECT duration, trigger, category, timeToLoadEventEnd FROM BrowserInteraction WHERE category = 'Route change' SINCE 1 day ago");
    assert.deepEqual(ixn, { duration: 0.045, trigger: 'click', category: 'Route change', timeToLoadEventEnd: null, timestamp: ixn.timestamp });
    const ajax = await nrql("SELECT httpMethod, httpResponseCode, hostname, port, requestUrl, duration FROM AjaxRequest WHERE requestUrl = 'localhost:38507/api/echo' SINCE 1 day ago");
    assert.deepEqual(ajax.map(({ timestamp: _t, ...a }: any) => a), [{ httpMethod: 'POST', httpResponseCode: 200, hostname: 'localhost', port: 38507, requestUrl: 'localhost:38507/api/echo', duration: 0.015 }]);
    const errors = await nrql("SELECT errorClass, errorMessage FROM JavaScriptError WHERE errorClass = 'TypeError' SINCE 1 day ago");
    assert.deepEqual(errors.map(({ timestamp: _t, ...e }: any) => e), [{ errorClass: 'TypeError', errorMessage: 'lab boom' }]);
    const [action] = await nrql('SELECT actionName, sku, qty, timeSinceLoad FROM PageAction SINCE 1 day ago');
    assert.deepEqual({ ...action, timestamp: undefined }, { actionName: 'clickedBuy', sku: 'A1', qty: 2, timeSinceLoad: 0.193, timestamp: undefined });
    assert.equal(action.timestamp, 1795695410104);
  });

  it('writes no timeslices for a standalone application (it has no REST application)', async () => {
    const [row] = await ts.server.db.all<{ n: bigint }>('SELECT count(*) AS n FROM timeslices');
  const n = row!.n;
    assert.equal(Number(n), 0);
  });
});

describe('beacons of an APM application with browser monitoring', () => {
  it('hands the agent the browser keys at connect', async () => {
    const body = structuredClone(sample('connect-request').body) as [Record<string, unknown>];
    body[0] = { ...body[0], app_name: ['Checkout'] };
    const pre = await invoke(ts.server, { query: agentQuery('connect', TEST_LICENSE_KEY), body });
    const reply = JSON.parse(pre.text).return_value;
    const apiPort = new URL(ts.server.apiUrl).port;
    assert.equal(reply.browser_key, key);
    assert.equal(reply.beacon, `localhost:${apiPort}`);
    assert.equal(reply.error_beacon, `localhost:${apiPort}`);
    assert.equal(reply['browser_monitoring.loader'], 'spa');
    assert.match(reply.js_agent_loader, new RegExp(`http://localhost:${apiPort}/browser-agent/1\\.322\\.0/nr-loader-spa\\.min\\.js`));
    assert.match(reply.js_agent_loader, /ssl:false/);
  });

  it('files EndUser timeslices under the APM application, classified by its browser Apdex T (7 s)', async () => {
    const page = (be: number, fe: number, to?: string) => post(`/1/${key}`, {
      a: String(apmId), v: '1.322.0', ...(to ? { to } : { t: 'Unnamed Transaction' }), rst: '500', s: '0', ref: 'http://shop.test/', ptid: 'p1', be: String(be), fe: String(fe), dc: String(fe / 2),
    }, '{"ja":{}}');
    const name = 'WebTransaction/Expressjs/GET//cart';
    // Learned from the agent's calls: the first 13 characters of its license key read `to`.
    for (const [be, fe, to] of [[100, 900, obfuscate(name, TEST_LICENSE_KEY)], [1000, 11_000], [2000, 30_000]] as const) {
      const res = await page(be, fe, to);
      assert.equal(res.status, 200, res.text);
    }
    // REST reads whole minutes up to the current one: move past the minute the pages were filed in.
    clock.ms = NOW + 120_000;
    const data = await rest(ts, 'GET', `/v2/applications/${apmId}/metrics/data.json?names[]=Apdex&names[]=EndUser/Apdex&values[]=score&values[]=s&values[]=t&values[]=f&values[]=count&values[]=threshold&summarize=true&from=2026-11-26T00:00:00Z&to=2026-11-27T00:00:00Z`);
    assert.equal(data.status, 200, data.text);
    const metrics = data.json().metric_data.metrics as { name: string; timeslices: { values: Record<string, number> }[] }[];
    const endUserApdex = metrics.find((m) => m.name === 'EndUser/Apdex')!;
    // 1.0 s ≤ 7: satisfied; 12 s ≤ 28: tolerating; 32 s: frustrated.
    assert.deepEqual(endUserApdex.timeslices[0]!.values, { score: 0.5, s: 1, t: 1, f: 1, count: 3, threshold: 7 });
    const endUser = await rest(ts, 'GET', `/v2/applications/${apmId}/metrics/data.json?names[]=EndUser&values[]=call_count&values[]=average_response_time&values[]=average_fe_response_time&values[]=average_be_response_time&summarize=true&from=2026-11-26T00:00:00Z&to=2026-11-27T00:00:00Z`);
    // Load times 1, 12 and 32 s, the last clamped to max(4.5·7, 13.5) = 31.5 s: (1 + 12 + 31.5) / 3 s.
    // Front end (0.9 + 11 + 30) / 3 s; back end is load less front end: (0.1 + 1 + 1.5) / 3 s, the clamp taking 0.5 s of the last.
    assert.deepEqual(endUser.json().metric_data.metrics[0].timeslices[0].values, {
      call_count: 3, average_response_time: 14800, average_fe_response_time: 14000, average_be_response_time: 867,
    });
    // As a series: the three pages are in the minute they arrived, the other slices empty.
    const series = await rest(ts, 'GET', `/v2/applications/${apmId}/metrics/data.json?names[]=EndUser/Apdex&values[]=s&values[]=t&values[]=f&from=2026-11-26T12:10:00Z&to=2026-11-26T12:18:00Z`);
    const slices = series.json().metric_data.metrics[0].timeslices as { from: string; values: Record<string, number> }[];
    assert.deepEqual(slices.filter((x) => x.values.s! + x.values.t! + x.values.f! > 0), [{ from: '2026-11-26T12:16:00+00:00', to: '2026-11-26T12:17:00+00:00', values: { s: 1, t: 1, f: 1 } }]);
    const perTxn = await nrql(`SELECT count(newrelic.timeslice.value) FROM Metric WHERE metricTimesliceName = 'EndUser/WebTransaction/${name}' SINCE 1 day ago`);
    assert.deepEqual(perTxn, [{ 'count.newrelic.timeslice.value': 1 }]);
  });
});

describe('the browser origin of a deployment behind a proxy', () => {
  it('is what the connect reply hands agents when TIMESLICE_BROWSER_ORIGIN is set', async () => {
    const other = await startTestServer({ TIMESLICE_BROWSER_ORIGIN: 'https://apm.example.com' });
    try {
      const { appId } = await connectApp(other, 'Proxied');
      await other.server.entities.browserApplications.create({ accountId: 1, name: 'Proxied', apmApplicationId: appId });
      const body = structuredClone(sample('connect-request').body) as [Record<string, unknown>];
      body[0] = { ...body[0], app_name: ['Proxied'] };
      const reply = JSON.parse((await invoke(other.server, { query: agentQuery('connect', TEST_LICENSE_KEY), body })).text).return_value;
      assert.equal(reply.beacon, 'apm.example.com');
      assert.equal(reply.error_beacon, 'apm.example.com');
      assert.match(reply.js_agent_loader, /"https:\/\/apm\.example\.com\/browser-agent\/1\.322\.0\/nr-loader-spa\.min\.js"/);
      assert.doesNotMatch(reply.js_agent_loader, /ssl:false/);
    } finally {
      await other.stop();
    }
  });
});

describe('beacons of an APM application: errors and the collector port', () => {
  it('counts JavaScript errors of APM pages in EndUser/errors', async () => {
    const res = await post(`/jserrors/1/${key}`, { a: String(apmId), rst: '900' }, JSON.stringify({
      err: [{ params: { exceptionClass: 'Error', message: 'a', timestamp: NOW }, metrics: { count: 2 } }, { params: { exceptionClass: 'TypeError', message: 'b', timestamp: NOW } }],
    }));
    assert.equal(res.status, 200, res.text);
    const [row] = await nrql("SELECT sum(newrelic.timeslice.value['count']) AS errors FROM Metric WHERE metricTimesliceName = 'EndUser/errors' SINCE 1 day ago");
    assert.equal(row.errors, 3);
    assert.equal(await count('JavaScriptError', "WHERE appName = 'Checkout'"), 3);
  });

  it('takes beacons on the collector port (HTTPS) too', async () => {
    const reply = await invoke(ts.server, {
      query: { a: String(apmId), be: '10', fe: '90', rst: '100' }, body: Buffer.from(''), headers: { 'content-type': 'text/plain', origin: 'http://shop.test' },
      path: `/1/${key}`,
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.headers['access-control-allow-origin'], 'http://shop.test');
    assert.equal(JSON.parse(reply.text).app.nrServerTime, clock.ms);
    const loader = await invoke(ts.server, { verb: 'GET', query: {}, path: '/browser-agent/nr-loader-rum.min.js' });
    assert.equal(loader.status, 200);
  });
});

describe('bad beacons', () => {
  const rum = () => ({ a: String(standaloneId), sa: '1', be: '10', fe: '100', rst: '200' });
  const cases: [string, () => Promise<{ status: number; text: string }>, number][] = [
    ['an unknown key', () => post('/1/NRJS-00000000000000000000', rum(), ''), 403],
    ['events with an unknown key', () => post('/events/1/NRJS-00000000000000000000', rum(), "bel.6;e,'fp,1,0"), 403],
    ['errors with an unknown key', () => post('/jserrors/1/NRJS-00000000000000000000', rum(), '{"err":[]}'), 403],
    ['ins with an unknown key', () => post('/ins/1/NRJS-00000000000000000000', rum(), '{"ins":[]}'), 403],
    ['logs with an unknown key', () => post('/browser/logs', { browser_monitoring_key: 'NRJS-00000000000000000000' }, '[]'), 403],
    ['truncated JSON errors', () => post(`/jserrors/1/${key}`, rum(), '{"err":[{"params":'), 400],
    ['truncated querypack inside a string', () => post(`/events/1/${key}`, rum(), "bel.7;2,,1,1,,,'GE"), 400],
    ['an application the key does not own', () => post(`/1/${key}`, { ...rum(), a: '999' }, ''), 403],
    ['no application', () => post(`/1/${key}`, { be: '1', fe: '1' }, ''), 403],
    ['a RUM call without timings', () => post(`/1/${key}`, { a: String(standaloneId), sa: '1' }, ''), 400],
    ['a RUM body that is not JSON', () => post(`/1/${key}`, rum(), '{"ja":'), 400],
    ['a RUM body of the wrong type', () => post(`/1/${key}`, rum(), '{"ja":[1,2]}'), 400],
    ['an oversized querypack', () => post(`/events/1/${key}`, rum(), `bel.6;e,'fp,1,0;${'x'.repeat(1_000_001)}`), 413],
    ['an oversized RUM call', () => post(`/1/${key}`, rum(), `{"ja":{"x":"${'x'.repeat(1_000_001)}"}}`), 413],
    ['oversized errors', () => post(`/jserrors/1/${key}`, rum(), `{"err":[],"x":"${'x'.repeat(1_000_001)}"}`), 413],
    ['oversized ins', () => post(`/ins/1/${key}`, rum(), `{"ins":[],"x":"${'x'.repeat(1_000_001)}"}`), 413],
    ['oversized logs', () => post('/browser/logs', { browser_monitoring_key: key }, `[${'1,'.repeat(500_001)}1]`), 413],
    ['truncated querypack', () => post(`/events/1/${key}`, rum(), "bel.6;e,'fp,54,2;5,'k,'v"), 400],
    ['garbled querypack', () => post(`/events/1/${key}`, rum(), 'bel.7;2,2,5b,1p,,,\'GET,zz!!,\'x'), 400],
    ['an unknown querypack schema', () => post(`/events/1/${key}`, rum(), 'bel.99;e,1'), 400],
    ['JSON to /events', () => post(`/events/1/${key}`, rum(), '{"ins":[]}'), 400],
    ['jserrors of the wrong type', () => post(`/jserrors/1/${key}`, rum(), '{"err":{"params":{}}}'), 400],
    ['a jserrors count that is not a number', () => post(`/jserrors/1/${key}`, rum(), '{"err":[{"params":{},"metrics":{"count":"7"}}]}'), 400],
    ['ins that is not a list', () => post(`/ins/1/${key}`, rum(), '{"ins":{"eventType":"PageAction"}}'), 400],
    ['an empty ins body', () => post(`/ins/1/${key}`, rum(), ''), 400],
    ['logs that are not a list', () => post('/browser/logs', { browser_monitoring_key: key }, '{"logs":[]}'), 400],
    ['a session trace (not stored)', () => post('/browser/blobs', { browser_monitoring_key: key, type: 'BrowserSessionChunk', app_id: String(standaloneId) }, '[]'), 400],
    ['blobs with an unknown key', () => post('/browser/blobs', { browser_monitoring_key: 'nope' }, '[]'), 403],
    ['an unknown endpoint version', () => post(`/events/3/${key}`, rum(), 'bel.6;'), 404],
  ];
  for (const [label, send, status] of cases) {
    it(`refuses ${label} with ${status} and stores nothing`, async () => {
      const before = await settledRows();
      const res = await send();
      assert.equal(res.status, status, res.text);
      assert.equal(typeof JSON.parse(res.text).error.title, 'string');
      assert.equal(await storedRows(), before);
    });
  }

  for (const path of ['/1/k', '/events/1/k', '/jserrors/1/k', '/ins/1/k', '/browser/logs', '/browser/blobs']) {
    it(`answers GET ${path} with 405 and a preflight with 204`, async () => {
      const get = await fetch(`${ts.server.apiUrl}${path}`);
      assert.equal(get.status, 405);
      assert.equal(get.headers.get('allow'), 'POST, OPTIONS');
      const pre = await fetch(`${ts.server.apiUrl}${path}`, {
        method: 'OPTIONS', headers: { origin: 'http://a.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-retry-count' },
      });
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get('access-control-allow-origin'), 'http://a.test');
      assert.equal(pre.headers.get('access-control-allow-headers'), 'x-retry-count');
    });
  }

  it('accepts a beacon sent with no content type (sendBeacon of bytes)', async () => {
    const url = `${ts.server.apiUrl}/ins/1/${key}?${new URLSearchParams({ a: String(standaloneId), sa: '1', rst: '10' })}`;
    const res = await fetch(url, { method: 'POST', body: new Blob([Buffer.from('{"ins":[{"eventType":"NoType","timestamp":1795695410000}]}')]) });
    assert.equal(res.status, 200);
    assert.equal(await count('NoType'), 1);
  });
});
