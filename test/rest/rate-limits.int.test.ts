import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { httpsRequest } from '../helpers/https-request.js';
import { ManualClock, startTestServer, TEST_API_KEY } from '../helpers/rest-fixture.js';
import { TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * One request budget per key for REST v2 and Deployments v0, whichever port a request comes in
 * on (the API port, or the collector's, where the Ruby agent sends deployments), and one budget
 * per account for the NRQL route. Small limits through the environment (3 REST requests, 2 NRQL
 * queries a minute) keep the test short; the clock is moved by hand across the minute.
 */

const NOW_MS = Date.UTC(2024, 2, 5, 14, 30, 20);
const NEXT_MINUTE_MS = Date.UTC(2024, 2, 5, 14, 31, 0);

let ts: TestServer;
let clock: ManualClock;

before(async () => {
  clock = new ManualClock(NOW_MS);
  ts = await startTestServer({ TIMESLICE_REST_RATE_LIMIT: '3', TIMESLICE_NRQL_RATE_LIMIT: '2' }, { clock });
});
after(() => ts?.stop());

async function api(method: string, path: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(`${ts.server.apiUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  return { status: res.status, headers: Object.fromEntries(res.headers), text: await res.text() };
}

const collector = (method: string, path: string, headers: Record<string, string>, body?: string) =>
  httpsRequest(ts.server, method, path, headers, body);

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const V0_BODY = 'deployment[app_name]=no-such-app&deployment[revision]=abc';

/** What a client reads from a 429: the limit, none left, the next minute, and when to retry. */
function assertLimitHeaders(headers: Record<string, string | string[] | undefined>, limit: number): void {
  assert.equal(headers['x-ratelimit-limit'], String(limit));
  assert.equal(headers['x-ratelimit-remaining'], '0');
  assert.equal(headers['x-ratelimit-reset'], String(NEXT_MINUTE_MS / 1000));
  assert.equal(headers['retry-after'], '40');
}

describe('REST v2 and Deployments v0: one budget per key across both ports', () => {
  it('three requests spread over the ports use up the key; the fourth is 429 on either port, in its API\'s shape', async () => {
    const key = { 'x-api-key': TEST_API_KEY };
    assert.equal((await api('GET', '/v2/applications.json', key)).status, 200);
    assert.equal((await collector('GET', '/v2/applications/999/deployments.json', key)).status, 404);
    assert.equal((await api('POST', '/deployments.xml', { ...key, ...FORM }, V0_BODY)).status, 422);

    const v0 = await collector('POST', '/deployments.xml', { ...key, ...FORM }, V0_BODY);
    assert.equal(v0.status, 429);
    assertLimitHeaders(v0.headers, 3);
    assert.equal(v0.text, '<?xml version="1.0" encoding="UTF-8"?>\n<errors>\n  <error>Rate limit exceeded: 3 requests per minute per API key</error>\n</errors>\n');

    const v2 = await api('GET', '/v2/applications.json', key);
    assert.equal(v2.status, 429);
    assertLimitHeaders(v2.headers, 3);
    assert.deepEqual(JSON.parse(v2.text), { error: { title: 'Rate limit exceeded: 3 requests per minute per API key' } });
    assert.equal((await collector('GET', '/v2/applications/999/deployments.json', key)).status, 429);
  });

  it('another key has its own budget (the license key on deployments.xml)', async () => {
    const reply = await api('POST', '/deployments.xml', { 'x-license-key': TEST_LICENSE_KEY, ...FORM }, V0_BODY);
    assert.equal(reply.status, 422, reply.text);
  });
});

describe('the NRQL route: a budget per account', () => {
  const query = (key = TEST_API_KEY) => api('POST', '/timeslice/v1/nrql', { 'api-key': key, 'content-type': 'application/json' },
    JSON.stringify({ query: 'SELECT count(*) FROM Transaction SINCE 1 hour ago' }));

  it('two queries are answered, the third is 429 with the rate-limit headers', async () => {
    assert.equal((await query()).status, 200);
    assert.equal((await query()).status, 200);
    const refused = await query();
    assert.equal(refused.status, 429);
    assertLimitHeaders(refused.headers, 2);
    assert.deepEqual(JSON.parse(refused.text), { error: { title: 'Rate limit exceeded: 2 NRQL queries per minute per account' } });
  });

  it('an unknown key is 401 and uses no budget', async () => {
    assert.equal((await query('NRAK-NOSUCHKEY')).status, 401);
  });
});

describe('the next minute', () => {
  it('every budget starts afresh', async () => {
    clock.ms = NEXT_MINUTE_MS;
    assert.equal((await api('GET', '/v2/applications.json', { 'x-api-key': TEST_API_KEY })).status, 200);
    assert.equal((await collector('POST', '/deployments.xml', { 'x-api-key': TEST_API_KEY, ...FORM }, V0_BODY)).status, 422);
    const nrql = await api('POST', '/timeslice/v1/nrql', { 'api-key': TEST_API_KEY, 'content-type': 'application/json' },
      JSON.stringify({ query: 'SELECT count(*) FROM Transaction SINCE 1 hour ago' }));
    assert.equal(nrql.status, 200, nrql.text);
  });
});
