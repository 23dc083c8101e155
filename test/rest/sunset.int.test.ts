import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock, rest, startTestServer, successorTitle, withoutSuccessorTitle, type RestReply } from '../helpers/rest-fixture.js';
import { TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';
import { golden } from './rest-scenario.js';

/*
 * REST v2 and Deployments v0 end of life (spec §9: both end on 2027-07-31). Every response of
 * both carries Deprecation (RFC 9745), Sunset (RFC 8594) and a successor-version Link to the graph
 * API; from 2027-08-01T00:00:00Z they answer 410 Gone with a migration message, unless
 * TIMESLICE_REST_SUNSET says `never`; `now` ends them at once. Other surfaces (health, the Event
 * API) are untouched.
 */

const DEPRECATION = '@1767225600'; // 2026-01-01T00:00:00Z
const SUNSET = 'Sun, 01 Aug 2027 00:00:00 GMT';
const SUCCESSOR = '<http://localhost:80/graphql>;rel="successor-version"';
const SUNSET_INSTANT = Date.UTC(2027, 7, 1, 0, 0, 0);

function assertEndOfLifeHeaders(reply: RestReply, what: string): void {
  assert.equal(reply.headers.deprecation, DEPRECATION, what);
  assert.equal(reply.headers.sunset, SUNSET, what);
  assert.ok(withoutSuccessorTitle(reply.headers.link).endsWith(SUCCESSOR), `${what}: link ${reply.headers.link}`);
  assert.ok((successorTitle(reply.headers.link) ?? '').length > 0, `${what}: the successor link names the replacing call`);
}

const V0_BODY = 'deployment[app_name]=nope&deployment[revision]=1';
const V0_HEADERS = { 'x-license-key': TEST_LICENSE_KEY, 'content-type': 'application/x-www-form-urlencoded' };

describe('before the sunset', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({}, { clock: new ManualClock(SUNSET_INSTANT - 1) });
  });
  after(() => ts?.stop());

  it('every REST v2 and v0 response carries Deprecation, Sunset and the successor Link, errors too', async () => {
    const replies: [string, RestReply, number][] = [
      ['list', await rest(ts, 'GET', '/v2/applications.json'), 200],
      ['list xml', await rest(ts, 'GET', '/v2/applications.xml'), 200],
      ['no key', await rest(ts, 'GET', '/v2/applications.json', { key: null }), 401],
      ['unknown app', await rest(ts, 'GET', '/v2/applications/7/deployments.json'), 404],
      ['no such endpoint', await rest(ts, 'GET', '/v2/nothing.json'), 404],
      ['wrong method', await rest(ts, 'DELETE', '/v2/applications.json'), 405],
      ['v0', await rest(ts, 'POST', '/deployments.xml', { key: null, headers: V0_HEADERS, body: V0_BODY }), 422],
      ['v0 no key', await rest(ts, 'POST', '/deployments.xml', { key: null, body: V0_BODY }), 403],
    ];
    for (const [what, reply, status] of replies) {
      assert.equal(reply.status, status, what);
      assertEndOfLifeHeaders(reply, what);
      assert.equal(withoutSuccessorTitle(reply.headers.link), SUCCESSOR, `${what}: one page, so the successor is the only link`);
    }
    // The title names the call that replaces this one (spec §4.4): listing applications is an entity search.
    assert.equal(successorTitle(replies[0]![1].headers.link), 'actor { entitySearch(query: "domain = \'APM\' AND type = \'APPLICATION\'") { results { entities { guid name } nextCursor } } }');
  });

  it('other surfaces carry none of them', async () => {
    const health = await ts.server.api.inject({ method: 'GET', url: '/healthz' });
    const events = await ts.server.api.inject({
      method: 'POST', url: '/v1/accounts/1/events', headers: { 'x-insert-key': TEST_LICENSE_KEY, 'content-type': 'application/json' }, payload: '[]',
    });
    for (const reply of [health, events]) {
      assert.equal(reply.statusCode, 200);
      assert.deepEqual([reply.headers.deprecation, reply.headers.sunset, reply.headers.link], [undefined, undefined, undefined]);
    }
  });
});

describe('from 2027-08-01T00:00:00Z (TIMESLICE_REST_SUNSET unset: follow the date)', () => {
  let ts: TestServer;
  let clock: ManualClock;
  before(async () => {
    clock = new ManualClock(SUNSET_INSTANT - 1);
    ts = await startTestServer({}, { clock });
  });
  after(() => ts?.stop());

  it('the last millisecond of 31 July is served; the next is 410 Gone with the way to migrate', async () => {
    assert.equal((await rest(ts, 'GET', '/v2/applications.json')).status, 200);
    clock.ms = SUNSET_INSTANT;
    const gone = await golden(ts, 'sunset/410-list', 'GET', '/v2/applications.json');
    assert.equal(gone.status, 410);
    assertEndOfLifeHeaders(gone, '410');
    await golden(ts, 'sunset/410-metric-data-xml', 'GET', '/v2/applications/1/metrics/data.xml?names[]=Apdex');
    await golden(ts, 'sunset/410-create-deployment', 'POST', '/v2/applications/1/deployments.json', { body: { deployment: { revision: 'x' } } });
    await golden(ts, 'sunset/410-delete-deployment', 'DELETE', '/v2/applications/1/deployments/3.json');
    await golden(ts, 'sunset/410-update-application', 'PUT', '/v2/applications/1.json', { body: { application: { name: 'x' } } });
  });

  it('every caller is told, without a key too, and on paths no endpoint serves', async () => {
    await golden(ts, 'sunset/410-no-key', 'GET', '/v2/applications.json', { key: null });
    await golden(ts, 'sunset/410-no-such-endpoint', 'GET', '/v2/nothing.json');
  });

  it('deployments.xml answers 410 in its own error shape, on both ports', async () => {
    const reply = await golden(ts, 'sunset/410-v0', 'POST', '/deployments.xml', { key: null, headers: V0_HEADERS, body: V0_BODY, note: `x-license-key: the license key; body: ${V0_BODY}` });
    assert.equal(reply.status, 410);
    assertEndOfLifeHeaders(reply, 'v0 410');
  });

  it('the Event API and health are not REST: they keep answering', async () => {
    const events = await ts.server.api.inject({
      method: 'POST', url: '/v1/accounts/1/events', headers: { 'x-insert-key': TEST_LICENSE_KEY }, payload: '[{"eventType":"AfterSunset"}]',
    });
    assert.equal(events.statusCode, 200);
    assert.equal((await ts.server.api.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  });
});

describe('TIMESLICE_REST_SUNSET', () => {
  it('never: REST keeps answering after the date, still announcing its end', async () => {
    const ts = await startTestServer({ TIMESLICE_REST_SUNSET: 'never' }, { clock: new ManualClock(Date.UTC(2030, 0, 1)) });
    try {
      const list = await rest(ts, 'GET', '/v2/applications.json');
      assert.equal(list.status, 200);
      assertEndOfLifeHeaders(list, 'never');
      const v0 = await rest(ts, 'POST', '/deployments.xml', { key: null, headers: V0_HEADERS, body: V0_BODY });
      assert.equal(v0.status, 422);
    } finally {
      await ts.stop();
    }
  });

  it('now: REST is gone before the date', async () => {
    const ts = await startTestServer({ TIMESLICE_REST_SUNSET: 'now' }, { clock: new ManualClock(Date.UTC(2024, 2, 5)) });
    try {
      assert.equal((await rest(ts, 'GET', '/v2/applications.json')).status, 410);
      assert.equal((await rest(ts, 'POST', '/deployments.xml', { key: null, headers: V0_HEADERS, body: V0_BODY })).status, 410);
    } finally {
      await ts.stop();
    }
  });

  it('anything else is a configuration error naming the choices', async () => {
    await assert.rejects(startTestServer({ TIMESLICE_REST_SUNSET: 'soon' }), /TIMESLICE_REST_SUNSET must be one of date, never, now, got 'soon'/);
  });
});
