import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import type { MobileApplication } from '../../src/store/mobile-applications.js';
import { storeDictionaries } from '../../src/nrql/dictionaries.js';
import { NrqlEngine } from '../../src/nrql/nrql-engine.js';
import { DuckDbPlanExecutor } from '../../src/store/duckdb/duckdb-plan-executor.js';
import { assertGolden } from '../helpers/golden.js';
import { ManualClock, startTestServer, type RestReply } from '../helpers/rest-fixture.js';
import type { TestServer } from '../helpers/test-server.js';
import { FORM, goldenText, NOW_MS, rest } from './rest-scenario.js';

/*
 * Mobile applications over REST v2: list, show, create, metric names and metric data, all
 * derived from `Mobile` events by `appName`. The events are written as the Event API stores
 * them (custom_events rows, attributes as JSON). The clock stands at 14:30:20, so the summary
 * window is 14:01–14:31 and "reporting" means an event since 14:20:20.
 *
 *   Shop iOS      8 launches 14:22–14:29 by devices d1–d6, and one at 13:55 (d8) before the window;
 *                 4 interactions of 0.2, 0.5, 0.3 and 1.0 s; 1 crash; 1 custom event by d7
 *   Shop Android  1 launch at 14:10: not reporting
 *   Kiosk         no events
 *
 * Beside them: a MobileSession event and a Mobile event of another app, which must not count.
 * Tokens are random; golden files show them as AA<token>-NRMA.
 */

let ts: TestServer;
let ios: MobileApplication;
let android: MobileApplication;
let kiosk: MobileApplication;

const at = (h: number, m: number, s = 0) => Date.UTC(2024, 2, 5, h, m, s);
type Event = readonly [type: string, timestampMs: number, attributes: Record<string, unknown>];
const mobile = (app: string, ms: number, category: string, device: string, extra: Record<string, unknown> = {}): Event =>
  ['Mobile', ms, { appName: app, category, deviceUuid: device, ...extra }];

const EVENTS: readonly Event[] = [
  mobile('Shop iOS', at(13, 55), 'Session', 'd8'),
  mobile('Shop iOS', at(14, 22, 10), 'Session', 'd1'),
  mobile('Shop iOS', at(14, 22, 20), 'Interaction', 'd1', { name: 'CartView', duration: 0.2 }),
  mobile('Shop iOS', at(14, 23, 5), 'Session', 'd2'),
  mobile('Shop iOS', at(14, 23, 30), 'Interaction', 'd2', { name: 'CartView', duration: 0.5 }),
  mobile('Shop iOS', at(14, 24, 40), 'Session', 'd3'),
  mobile('Shop iOS', at(14, 24, 50), 'Interaction', 'd3', { name: 'Checkout', duration: 0.3 }),
  mobile('Shop iOS', at(14, 25, 0), 'Session', 'd1'),
  mobile('Shop iOS', at(14, 26, 30), 'Session', 'd4'),
  mobile('Shop iOS', at(14, 26, 40), 'Interaction', 'd4', { name: 'Checkout', duration: 1.0 }),
  mobile('Shop iOS', at(14, 27, 15), 'Session', 'd2'),
  mobile('Shop iOS', at(14, 27, 20), 'Crash', 'd2'),
  mobile('Shop iOS', at(14, 28, 0), 'Custom', 'd7', { name: 'Purchase' }),
  mobile('Shop iOS', at(14, 28, 50), 'Session', 'd5'),
  mobile('Shop iOS', at(14, 29, 10), 'Session', 'd6'),
  mobile('Shop Android', at(14, 10), 'Session', 'a1'),
  mobile('Somebody else', at(14, 25), 'Crash', 'x1'),
  ['MobileSession', at(14, 25), { appName: 'Shop iOS', category: 'Session', deviceUuid: 'd9' }],
];

before(async () => {
  ts = await startTestServer({}, { clock: new ManualClock(NOW_MS) });
  const store = ts.server.entities.mobileApplications;
  ios = await store.create(1, 'Shop iOS');
  android = await store.create(1, 'Shop Android');
  kiosk = await store.create(1, 'Kiosk');
  const rows = new Rows(CUSTOM_EVENTS);
  for (const [type, ms, attributes] of EVENTS) rows.push(1, 0, 0, 0, ms, type, JSON.stringify(attributes));
  await ts.server.writer.write([rows]);
});
after(() => ts?.stop());

const TOKEN = /AA[0-9a-f]{40}-NRMA/g;

async function golden(name: string, method: 'GET' | 'POST', url: string, options: Parameters<typeof rest>[3] & { note?: string } = {}): Promise<RestReply> {
  const reply = await rest(ts, method, url, options);
  const text = reply.text.replace(TOKEN, 'AA<token>-NRMA');
  assertGolden(`test/golden/rest/mobile-applications/${name}.txt`, goldenText(method, url, { ...reply, text, json: () => JSON.parse(text) }, options.note));
  return reply;
}

type Obj = Record<string, any>;

describe('GET /v2/mobile_applications', () => {
  it('lists them by name, with summaries for those reporting', async () => {
    const reply = await golden('list', 'GET', '/v2/mobile_applications.json');
    await golden('list-xml', 'GET', '/v2/mobile_applications.xml');
    const [k, android_, ios_] = reply.json().applications as Obj[];
    assert.deepEqual([k!.name, android_!.name, ios_!.name], ['Kiosk', 'Shop Android', 'Shop iOS']);
    // Shop iOS, 14:01–14:31: launches 8 (13:55 is before the window); users d1–d7 = 7 (a custom event
    // counts, the MobileSession event does not); interactions (0.2 + 0.5 + 0.3 + 1.0) / 4 = 0.5 s;
    // 1 crash in 8 launches = 12.5 % → red. Its newest event is 14:29:10.
    assert.deepEqual(ios_!.mobile_summary, { active_users: 7, launch_count: 8, interaction_time: 0.5 });
    assert.deepEqual(ios_!.crash_summary, { supports_crash_data: true, unresolved_crash_count: 1, crash_count: 1, crash_rate: 12.5 });
    assert.deepEqual([ios_!.health_status, ios_!.reporting, ios_!.last_reported_at], ['red', true, '2024-03-05T14:29:10+00:00']);
    // Shop Android's one event is 20 minutes old: not reporting, no summary.
    assert.deepEqual(android_, { id: android.id, name: 'Shop Android', health_status: 'gray', reporting: false });
    assert.deepEqual(k, { id: kiosk.id, name: 'Kiosk', health_status: 'gray', reporting: false });
  });

  it('filters by name and ids, also from a form body', async () => {
    await golden('filter-name', 'GET', '/v2/mobile_applications.json?filter[name]=SHOP');
    await golden('filter-ids', 'GET', `/v2/mobile_applications.json?filter[ids]=${kiosk.id},999`);
    await golden('filter-form-body', 'GET', '/v2/mobile_applications.xml', {
      body: 'filter[name]=ios', headers: FORM, note: 'body (application/x-www-form-urlencoded): filter[name]=ios',
    });
    await golden('page-past-end', 'GET', '/v2/mobile_applications.json?page=2');
  });

  it('shows one, with its application token', async () => {
    const reply = await golden('show', 'GET', `/v2/mobile_applications/${ios.id}.json`);
    assert.equal(reply.json().application.application_token, ios.applicationToken);
    await golden('show-xml', 'GET', `/v2/mobile_applications/${android.id}.xml`);
  });
});

describe('POST /v2/mobile_applications', () => {
  it('creates one and answers it with its new token (201)', async () => {
    const reply = await golden('create', 'POST', '/v2/mobile_applications.json', { body: { mobile_application: { name: 'Shop Watch' } } });
    const created = reply.json().application;
    assert.equal(ts.server.entities.mobileApplications.get(created.id)?.applicationToken, created.application_token);
    assert.match(created.application_token, /^AA[0-9a-f]{40}-NRMA$/);
  });

  it('takes the "application" wrapper the responses use, and form fields', async () => {
    assert.equal((await rest(ts, 'POST', '/v2/mobile_applications.json', { body: { application: { name: 'Shop TV' } } })).status, 201);
    await golden('create-form-xml', 'POST', '/v2/mobile_applications.xml', {
      body: 'mobile_application[name]=Shop+Car', headers: FORM, note: 'body (application/x-www-form-urlencoded): mobile_application[name]=Shop+Car',
    });
    assert.deepEqual(ts.server.entities.mobileApplications.list(1).map((m) => m.name).slice(3), ['Shop Watch', 'Shop TV', 'Shop Car']);
  });
});

describe('mobile metric names and data from Mobile events', () => {
  const data = (id: number, query: string) => `/v2/mobile_applications/${id}/metrics/data.json?${query}`;

  it('names: the metrics each application ever had events for', async () => {
    await golden('names', 'GET', `/v2/mobile_applications/${ios.id}/metrics.json`);
    await golden('names-xml', 'GET', `/v2/mobile_applications/${android.id}/metrics.xml`);
    await golden('names-filter', 'GET', `/v2/mobile_applications/${ios.id}/metrics.json?name=Crash`);
    assert.deepEqual((await rest(ts, 'GET', `/v2/mobile_applications/${kiosk.id}/metrics.json`)).json(), { metrics: [] });
  });

  it('summarized over the default 30 minutes: counts and rates per minute', async () => {
    const reply = await golden('data-summarize', 'GET', data(ios.id, 'names[]=Session/Start&names[]=Mobile/Crash/All&names[]=EndUser&summarize=true'));
    const metrics = reply.json().metric_data.metrics as Obj[];
    // 14:00–14:30: 8 launches (8 / 30 = 0.267 a minute) and 1 crash (0.0333 a minute).
    assert.deepEqual(metrics.map((m) => m.timeslices[0].values), [
      { call_count: 8, calls_per_minute: 0.267, launch_count: 8 },
      { call_count: 1, calls_per_minute: 0.0333 },
    ]);
    assert.deepEqual(reply.json().metric_data.metrics_not_found, ['EndUser']);
  });

  it('a series per minute, XML, chosen values, raw', async () => {
    const reply = await golden('data-series', 'GET', data(ios.id, 'names[]=Session/Start&values[]=launch_count&from=2024-03-05T14:20:00Z&to=2024-03-05T14:30:00Z'));
    const counts = (reply.json().metric_data.metrics[0].timeslices as Obj[]).map((t) => t.values.launch_count);
    assert.deepEqual(counts, [0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
    await golden('data-series-xml', 'GET', `/v2/mobile_applications/${ios.id}/metrics/data.xml?names[]=Mobile/Crash/All&from=2024-03-05T14:25:00Z&to=2024-03-05T14:30:00Z`);
    const raw = await rest(ts, 'GET', data(ios.id, 'names[]=Session/Start&values[]=calls_per_minute&summarize=true&raw=true&from=2024-03-05T13:50:00Z&to=2024-03-05T14:30:00Z'));
    // 13:50–14:30 holds the 13:55 launch too: 9 in 40 minutes.
    assert.equal(raw.json().metric_data.metrics[0].timeslices[0].values.calls_per_minute, 9 / 40);
  });

  it('an application without events has no metrics', async () => {
    await golden('data-none-found', 'GET', data(kiosk.id, 'names[]=Session/Start&summarize=true'));
  });
});

describe('REST mobile numbers are the NRQL ones (spec §4.5 rule 5: FROM Mobile by appName)', () => {
  it('counts, rates, users and interaction time agree with queries written here by hand', async (t) => {
    const executor = new DuckDbPlanExecutor(ts.server.db);
    t.after(() => executor.close());
    const engine = new NrqlEngine({ executor, dictionaries: storeDictionaries(ts.server.catalog, ts.server.metrics), clock: { now: () => NOW_MS } });
    const nrql = async (query: string): Promise<Record<string, unknown>> => (await engine.run(query, { accountIds: [1] })).results[0] as Record<string, unknown>;
    const window = `SINCE ${at(14, 0)} UNTIL ${at(14, 30)}`;
    const app = "FROM Mobile WHERE appName = 'Shop iOS'";
    const rest_ = (await rest(ts, 'GET', `/v2/mobile_applications/${ios.id}/metrics/data.json?names[]=Session/Start&names[]=Mobile/Crash/All&summarize=true&raw=true`)).json();
    const [launches, crashes] = (rest_.metric_data.metrics as Obj[]).map((m) => m.timeslices[0].values);
    assert.deepEqual(await nrql(`SELECT count(*) AS n, rate(count(*), 1 minute) AS r ${app} AND category = 'Session' ${window}`), { n: launches.call_count, r: launches.calls_per_minute });
    assert.deepEqual(await nrql(`SELECT count(*) AS n, rate(count(*), 1 minute) AS r ${app} AND category = 'Crash' ${window}`), { n: crashes.call_count, r: crashes.calls_per_minute });
    // The summary's window is 14:01–14:31.
    const summary = (await rest(ts, 'GET', `/v2/mobile_applications/${ios.id}.json`)).json().application;
    const summaryWindow = `SINCE ${at(14, 1)} UNTIL ${at(14, 31)}`;
    assert.deepEqual(await nrql(`SELECT uniqueCount(deviceUuid) AS users, filter(average(duration), WHERE category = 'Interaction') AS t ${app} ${summaryWindow}`),
      { users: summary.mobile_summary.active_users, t: summary.mobile_summary.interaction_time });
  });
});
