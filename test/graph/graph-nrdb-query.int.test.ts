import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { graph, graphData } from '../helpers/graph-client.js';
import { connectApp, ManualClock, sendMetrics } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * `entity(guid) { nrdbQuery(nrql:) }` reads the entity's own data, named as each kind names it:
 * an APM application's by GUID, a mobile or browser application's events by its name, a key
 * transaction's as its transaction's metrics in its application. Counts below are of what each
 * test sent, so a condition that matched nothing (or everything) fails them.
 */

const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const MINUTE = Math.floor(NOW / 60_000) * 60_000;

describe('entity.nrdbQuery per kind', () => {
  let ts: TestServer;
  const guid = (parts: string) => Buffer.from(parts).toString('base64').replace(/=+$/, '');
  let ids: { shop: number; other: number; mobile: number; browser: number; kt: number };

  before(async () => {
    ts = await startTestServer({}, { clock: new ManualClock(NOW) });
    const shop = await connectApp(ts, 'shop', 'web-1', 4100);
    const other = await connectApp(ts, 'other', 'web-2', 4200);
    // shop: 7 calls of its key transaction's metric and 5 of another; other: 11 of the same name.
    await sendMetrics(ts, shop.runId, MINUTE - 60_000, MINUTE, [
      ['WebTransaction/Expressjs/GET//cart', '', [7, 0.7, 0.7, 0.1, 0.1, 0.07]],
      ['WebTransaction/Expressjs/GET//home', '', [5, 0.5, 0.5, 0.1, 0.1, 0.05]],
    ]);
    await sendMetrics(ts, other.runId, MINUTE - 60_000, MINUTE, [['WebTransaction/Expressjs/GET//cart', '', [11, 1.1, 1.1, 0.1, 0.1, 0.11]]]);
    const created = await graphData(ts, `mutation {
      m: agentApplicationCreateMobile(accountId: 1, name: "shop-ios") { guid }
      b: agentApplicationCreateBrowser(accountId: 1, name: "shop-web") { guid }
      k: keyTransactionCreate(applicationGuid: "${guid(`1|APM|APPLICATION|${shop.appId}`)}", apdexTarget: 0.5, browserApdexTarget: 7, metricName: "WebTransaction/Expressjs/GET//cart", name: "Cart") { guid } }`);
    const idOf = (g: string) => Number(Buffer.from(g, 'base64').toString('utf8').split('|')[3]);
    ids = { shop: shop.appId, other: other.appId, mobile: idOf(created.m.guid), browser: idOf(created.b.guid), kt: idOf(created.k.guid) };
    const events = [
      ...Array.from({ length: 3 }, () => ({ eventType: 'Mobile', appName: 'shop-ios', category: 'Session' })),
      ...Array.from({ length: 4 }, () => ({ eventType: 'Mobile', appName: 'someone-else', category: 'Session' })),
      ...Array.from({ length: 2 }, () => ({ eventType: 'PageView', appName: 'shop-web', duration: 1.5 })),
      ...Array.from({ length: 6 }, () => ({ eventType: 'PageView', appName: 'someone-else', duration: 2 })),
    ].map((e) => ({ ...e, timestamp: NOW - 30_000 }));
    const res = await ts.server.api.inject({
      method: 'POST', url: '/v1/accounts/1/events', headers: { 'api-key': TEST_LICENSE_KEY, 'content-type': 'application/json' }, payload: JSON.stringify(events),
    });
    assert.equal(res.statusCode, 200, res.body);
  });
  after(() => ts?.stop());

  const count = async (entityGuid: string, nrql: string) =>
    (await graphData(ts, `query($g: EntityGuid!, $q: Nrql!) { actor { entity(guid: $g) { nrdbQuery(nrql: $q) { results } } } }`, { g: entityGuid, q: nrql })).actor.entity.nrdbQuery.results;

  it('an APM application: its own metrics, by GUID', async () => {
    assert.deepEqual(await count(guid(`1|APM|APPLICATION|${ids.shop}`), 'SELECT count(newrelic.timeslice.value) FROM Metric SINCE 10 minutes ago'), [{ 'count.newrelic.timeslice.value': 12 }]);
  });

  it('a mobile application: its Mobile events, by name', async () => {
    assert.deepEqual(await count(guid(`1|MOBILE|APPLICATION|${ids.mobile}`), 'SELECT count(*) FROM Mobile SINCE 10 minutes ago'), [{ count: 3 }]);
  });

  it('a browser application: its PageView events, by name', async () => {
    assert.deepEqual(await count(guid(`1|BROWSER|APPLICATION|${ids.browser}`), 'SELECT count(*), average(duration) FROM PageView SINCE 10 minutes ago'), [{ count: 2, 'average.duration': 1.5 }]);
  });

  it('a key transaction: its transaction’s metric in its own application only', async () => {
    assert.deepEqual(await count(guid(`1|APM|KEY_TRANSACTION|${ids.kt}`), 'SELECT count(newrelic.timeslice.value) FROM Metric SINCE 10 minutes ago'), [{ 'count.newrelic.timeslice.value': 7 }]);
  });

  it('SHOW EVENT TYPES has no WHERE to scope: refused rather than answered for the whole account', async () => {
    const reply = await graph(ts, `{ actor { entity(guid: "${guid(`1|MOBILE|APPLICATION|${ids.mobile}`)}") { nrdbQuery(nrql: "SHOW EVENT TYPES") { results } } } }`);
    assert.deepEqual(reply.body.errors?.map((e) => [e.extensions?.errorClass, e.message]), [['INVALID_INPUT', 'nrdbQuery takes a SELECT query: the entity condition is added to its WHERE']]);
  });
});
