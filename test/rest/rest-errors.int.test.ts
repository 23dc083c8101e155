import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashKey, keyHint } from '../../src/security/keys.js';
import { TEST_LICENSE_KEY } from '../helpers/test-server.js';
import { connectAs, FORM, golden, NOW_MS, rest, startScenario, type Scenario } from './rest-scenario.js';

/*
 * Every refusal of the applications and metrics endpoints, each in the error shape
 * ({"error": {"title": …}} for .json, <error><title>…</title></error> for .xml) with its
 * status. Golden files are in test/golden/rest/errors/.
 *
 * A second account: the catalog creates only account 1 (bootstrap) and has no operation to
 * add one, so the test writes account 2 and its keys into the catalog tables and restarts the
 * server, which loads them like any others. Its agent then creates an application there.
 */

const OTHER_USER_KEY = 'NRAK-SECONDACCOUNT0000000000000';
const OTHER_LICENSE_KEY = 'fedcba9876543210fedcba9876543210fedcba98';

let s: Scenario;
let foreignApp: number;

before(async () => {
  s = await startScenario();
  const db = s.ts.server.db;
  await db.all("INSERT INTO accounts VALUES (2, 'Second', TIMESTAMP '2024-03-05 14:00:00')");
  let id = 100;
  for (const [kind, key] of [['user', OTHER_USER_KEY], ['license', OTHER_LICENSE_KEY]] as const) {
    // A user key belongs to a user of its account (the user takes the key's id, as migrated keys do).
    if (kind === 'user') await db.all("INSERT INTO users VALUES ($1, 2, 'Second user', NULL, FALSE, TIMESTAMP '2024-03-05 14:00:00')", [id]);
    await db.all("INSERT INTO api_keys VALUES ($1, 2, $2, $3, $4, TIMESTAMP '2024-03-05 14:00:00', $5)", [id, kind, hashKey(key), keyHint(key), kind === 'user' ? id : null]);
    id++;
  }
  await s.ts.restart();
  foreignApp = (await connectAs(s.ts, 'second-account-app', { host: 'other-1', pid: 9000, licenseKey: OTHER_LICENSE_KEY })).appId;
});
after(() => s?.ts.stop());

const app = () => `/v2/applications/${s.checkout}`;

/** Checks the shape whatever the golden file says: one title, and messages only as a list of strings. */
function assertErrorShape(reply: { status: number; text: string; headers: Record<string, unknown>; json(): any }, status: number): void {
  assert.equal(reply.status, status);
  if (String(reply.headers['content-type']).startsWith('application/xml')) {
    assert.match(reply.text, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<error><title>[^<]+<\/title>(<messages>(<message>[^<]*<\/message>)+<\/messages>)?<\/error>$/);
  } else {
    const body = reply.json();
    assert.deepEqual(Object.keys(body), ['error']);
    assert.equal(typeof body.error.title, 'string');
    assert.ok(Object.keys(body.error).every((k) => k === 'title' || k === 'messages'));
  }
}

type Case = readonly [name: string, method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, status: number, options?: Parameters<typeof golden>[4]];

async function run(cases: readonly Case[]): Promise<void> {
  for (const [name, method, url, status, options] of cases) {
    const reply = await golden(s.ts, `errors/${name}`, method, url, options);
    assertErrorShape(reply, status);
  }
}

describe('401: no key, a wrong key, a license key', () => {
  it('refuses each, JSON and XML, before looking at the path', async () => {
    await run([
      ['401-no-key', 'GET', '/v2/applications.json', 401, { key: null }],
      ['401-no-key-xml', 'GET', `${app()}/metrics/data.xml?names[]=HttpDispatcher`, 401, { key: null }],
      ['401-empty-key', 'GET', '/v2/applications.json', 401, { key: '   ', note: 'X-Api-Key: (three spaces)' }],
      ['401-bad-key', 'GET', `${app()}.json`, 401, { key: 'NRAK-NOTAKEY', note: 'X-Api-Key: NRAK-NOTAKEY' }],
      ['401-bad-key-xml', 'DELETE', '/v2/applications/999.xml', 401, { key: 'NRAK-NOTAKEY', note: 'X-Api-Key: NRAK-NOTAKEY' }],
      ['401-license-key', 'GET', `${app()}/metrics.json`, 401, { key: TEST_LICENSE_KEY, note: 'X-Api-Key: the license key' }],
      ['401-license-key-api-key-header', 'GET', '/v2/applications.xml', 401, {
        key: null, headers: { 'Api-Key': TEST_LICENSE_KEY }, note: 'Api-Key: the license key',
      }],
    ]);
  });
});

describe('404', () => {
  it('unknown, non-numeric and out-of-range application ids', async () => {
    await run([
      ['404-unknown-app', 'GET', '/v2/applications/999.json', 404],
      ['404-unknown-app-xml', 'GET', '/v2/applications/999/metrics/data.xml?names[]=HttpDispatcher', 404],
      ['404-non-numeric-app', 'GET', '/v2/applications/abc.json', 404],
      ['404-non-numeric-app-metrics', 'GET', '/v2/applications/1e3/metrics.json', 404],
      ['404-huge-app-id', 'PUT', '/v2/applications/99999999999999999999.json', 404, { body: { application: { name: 'x' } } }],
      ['404-unknown-app-delete', 'DELETE', '/v2/applications/999.json', 404],
    ]);
  });

  it("another account's application does not exist for this key, and the reverse", async () => {
    const own = await rest(s.ts, 'GET', `/v2/applications/${foreignApp}.json`, { key: OTHER_USER_KEY });
    assert.equal(own.status, 200);
    assert.deepEqual((await rest(s.ts, 'GET', '/v2/applications.json', { key: OTHER_USER_KEY })).json().applications.map((a: { id: number }) => a.id), [foreignApp]);
    assert.ok(!(await rest(s.ts, 'GET', '/v2/applications.json')).json().applications.some((a: { id: number }) => a.id === foreignApp));
    await run([
      ['404-other-account-app', 'GET', `/v2/applications/${foreignApp}.json`, 404],
      ['404-other-account-app-data-xml', 'GET', `/v2/applications/${foreignApp}/metrics/data.xml?names[]=HttpDispatcher`, 404],
      ['404-other-account-put', 'PUT', `/v2/applications/${foreignApp}.json`, 404, { body: { application: { name: 'stolen' } } }],
      ['404-other-account-delete', 'DELETE', `/v2/applications/${foreignApp}.json`, 404],
      ['404-other-key-on-own-app', 'GET', `${app()}/metrics.json`, 404, { key: OTHER_USER_KEY, note: "X-Api-Key: account 2's user key" }],
    ]);
    assert.equal((await rest(s.ts, 'GET', `/v2/applications/${foreignApp}.json`, { key: OTHER_USER_KEY })).json().application.name, 'second-account-app');
  });

  it('unknown hosts and instances, and those of another application', async () => {
    const billingHost = s.ts.server.catalog.hostsOf(s.billing)[0]!.id;
    const billingInstance = s.ts.server.catalog.instancesOf(s.billing)[0]!.id;
    await run([
      ['404-unknown-host', 'GET', `${app()}/hosts/999/metrics.json`, 404],
      ['404-unknown-host-data-xml', 'GET', `${app()}/hosts/999/metrics/data.xml?names[]=HttpDispatcher`, 404],
      ['404-non-numeric-host', 'GET', `${app()}/hosts/web-1/metrics/data.json?names[]=HttpDispatcher`, 404],
      ['404-host-of-other-app', 'GET', `${app()}/hosts/${billingHost}/metrics/data.json?names[]=HttpDispatcher`, 404],
      ['404-unknown-instance', 'GET', `${app()}/instances/999/metrics/data.json?names[]=HttpDispatcher`, 404],
      ['404-instance-of-other-app-xml', 'GET', `${app()}/instances/${billingInstance}/metrics.xml`, 404],
    ]);
  });

  it('unknown routes under /v2', async () => {
    await run([
      ['404-no-route', 'GET', '/v2/nothing.json', 404],
      ['404-no-route-xml', 'GET', '/v2/applications/1/nothing.xml', 404],
      ['404-no-suffix', 'GET', '/v2/applications', 404],
      ['404-other-suffix', 'GET', '/v2/applications.yaml', 404],
      ['404-no-route-with-body', 'POST', '/v2/nothing.json', 404, { body: '{not json', headers: { 'content-type': 'application/json' }, note: 'body (application/json): {not json' }],
    ]);
  });
});

describe('422: metric data parameters', () => {
  const data = (query: string) => `${app()}/metrics/data.json?names[]=HttpDispatcher&${query}`;
  it('the time range', async () => {
    await run([
      ['422-range-under-60s', 'GET', data('from=2024-03-05T14:20:00Z&to=2024-03-05T14:20:59Z'), 422],
      ['422-range-under-60s-after-clamp', 'GET', data('from=2024-03-05T14:29:30Z&to=2024-03-05T15:00:00Z'), 422],
      ['422-from-after-to', 'GET', data('from=2024-03-05T14:25:00Z&to=2024-03-05T14:20:00Z'), 422],
      ['422-from-equals-to-xml', 'GET', `${app()}/metrics/data.xml?names[]=HttpDispatcher&from=2024-03-05T14:25:00Z&to=2024-03-05T14:25:00Z`, 422],
      ['422-from-in-future', 'GET', data('from=2024-03-06T00:00:00Z'), 422],
      ['422-unparseable-from', 'GET', data('from=yesterday'), 422],
      ['422-unparseable-to-xml', 'GET', `${app()}/metrics/data.xml?names[]=HttpDispatcher&to=2024-02-30T00:00:00Z`, 422],
      ['422-from-offset-over-18h', 'GET', data('from=2024-03-05T14:00:00+25:00'), 422],
      ['422-too-many-slices', 'GET', data('from=1900-01-01T00:00:00Z'), 422],
      ['422-too-many-slices-with-period', 'GET', data('from=1990-01-01T00:00:00Z&period=259200'), 422],
    ]);
  });

  it('period', async () => {
    await run([
      ['422-period-not-a-number', 'GET', data('period=abc'), 422],
      ['422-period-negative', 'GET', data('period=-60'), 422],
      ['422-period-zero', 'GET', data('period=0'), 422],
      ['422-period-fraction', 'GET', data('period=60.0'), 422],
    ]);
  });

  it('booleans, names[], and a form body that is wrong', async () => {
    await run([
      ['422-summarize-maybe', 'GET', data('summarize=maybe'), 422],
      ['422-raw-perhaps-xml', 'GET', `${app()}/metrics/data.xml?names[]=HttpDispatcher&raw=perhaps`, 422],
      ['422-missing-names', 'GET', `${app()}/metrics/data.json`, 422],
      ['422-empty-names', 'GET', `${app()}/metrics/data.json?names[]=&values[]=call_count`, 422],
      ['422-missing-names-host-xml', 'GET', `${app()}/hosts/${s.hosts.web1}/metrics/data.xml?values[]=call_count`, 422],
      ['422-summarize-in-form-body', 'GET', `${app()}/metrics/data.json`, 422, {
        body: 'names[]=HttpDispatcher&summarize=perhaps', headers: FORM, note: 'body (application/x-www-form-urlencoded): names[]=HttpDispatcher&summarize=perhaps',
      }],
    ]);
  });
});

describe('422: paging and list parameters', () => {
  it('page must be a positive whole number', async () => {
    await run([
      ['422-page-negative-xml', 'GET', '/v2/applications.xml?page=-1', 422],
      ['422-page-abc', 'GET', '/v2/applications.json?page=abc', 422],
      ['422-page-huge', 'GET', '/v2/applications.json?page=99999999999999999999', 422],
      ['422-names-page-abc-xml', 'GET', `${app()}/metrics.xml?page=abc`, 422],
      ['422-instance-names-page-negative', 'GET', `${app()}/instances/${s.instances.web2}/metrics.json?page=-1`, 422],
      ['422-filter-ids', 'GET', '/v2/applications.json?filter[ids]=1,two', 422],
    ]);
  });

  it('exclude_links must be a boolean: 422', async () => {
    const reply = await rest(s.ts, 'GET', '/v2/applications.json?exclude_links=maybe');
    assertErrorShape(reply, 422);
  });
});

describe('PUT bodies', () => {
  const url = () => `${app()}.json`;
  const json = (body: unknown): Parameters<typeof golden>[4] => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' }, note: `body (application/json): ${JSON.stringify(body)}` });
  it('422 for a body that is not an object with an application, or settings of the wrong type', async () => {
    await run([
      ['422-put-array', 'PUT', url(), 422, json([1, 2])],
      ['422-put-string', 'PUT', url(), 422, json('x')],
      ['422-put-number-xml', 'PUT', `${app()}.xml`, 422, json(42)],
      ['422-put-null', 'PUT', url(), 422, json(null)],
      ['422-put-application-not-object', 'PUT', url(), 422, json({ application: 'checkout' })],
      ['422-put-no-body', 'PUT', url(), 422],
      ['422-put-threshold-string', 'PUT', url(), 422, json({ application: { settings: { app_apdex_threshold: 'fast' } } })],
      ['422-put-threshold-negative', 'PUT', url(), 422, json({ application: { settings: { app_apdex_threshold: -1 } } })],
      ['422-put-threshold-zero', 'PUT', url(), 422, json({ application: { settings: { end_user_apdex_threshold: 0 } } })],
      ['422-put-threshold-boolean-xml', 'PUT', `${app()}.xml`, 422, json({ application: { settings: { end_user_apdex_threshold: true } } })],
      ['422-put-threshold-object', 'PUT', url(), 422, json({ application: { settings: { app_apdex_threshold: { value: 1 } } } })],
      ['422-put-rum-not-boolean', 'PUT', url(), 422, json({ application: { settings: { enable_real_user_monitoring: 'yes' } } })],
      ['422-put-name-number', 'PUT', url(), 422, json({ application: { name: 7 } })],
      ['422-put-name-empty', 'PUT', url(), 422, json({ application: { name: '   ' } })],
      ['422-put-name-too-long', 'PUT', url(), 422, json({ application: { name: 'n'.repeat(256) } })],
      ['422-put-form-threshold', 'PUT', url(), 422, {
        body: 'application[settings][app_apdex_threshold]=soon', headers: FORM, note: 'body (application/x-www-form-urlencoded): application[settings][app_apdex_threshold]=soon',
      }],
    ]);
    // None of them changed anything.
    const shown = (await rest(s.ts, 'GET', url())).json().application;
    assert.equal(shown.name, 'checkout-web');
    assert.deepEqual(shown.settings, { app_apdex_threshold: 0.5, end_user_apdex_threshold: 7, enable_real_user_monitoring: false, use_server_side_config: false });
  });

  it('400 for malformed JSON; 415 for a body in a format with no parser; text/plain is read as text, not an object', async () => {
    await run([
      ['400-put-malformed-json', 'PUT', url(), 400, { body: '{"application": ', headers: { 'content-type': 'application/json' }, note: 'body (application/json): {"application": ' }],
      ['400-put-malformed-json-xml', 'PUT', `${app()}.xml`, 400, { body: '{application: {}}', headers: { 'content-type': 'application/json' }, note: 'body (application/json): {application: {}}' }],
      ['415-put-xml-body', 'PUT', url(), 415, { body: '<application><name>x</name></application>', headers: { 'content-type': 'application/xml' }, note: 'body (application/xml): <application><name>x</name></application>' }],
      ['422-put-text-plain', 'PUT', url(), 422, { body: 'name=x', headers: { 'content-type': 'text/plain' }, note: 'body (text/plain): name=x' }],
    ]);
  });
});

describe('405 and 413', () => {
  it('405 names the allowed methods in Allow', async () => {
    await run([
      ['405-post-application', 'POST', `${app()}.json`, 405],
      ['405-without-key', 'PUT', '/v2/applications.json', 405, { key: null }],
      ['405-delete-list-xml', 'DELETE', '/v2/applications.xml', 405],
      ['405-put-metric-data', 'PUT', `${app()}/metrics/data.json?names[]=HttpDispatcher`, 405],
      ['405-post-host-metrics', 'POST', `${app()}/hosts/${s.hosts.web1}/metrics.json`, 405],
    ]);
  });

  it('413 for a body over 1 MiB, JSON or form', async () => {
    const huge = 'x'.repeat(1024 * 1024 + 1);
    await run([
      ['413-put-json', 'PUT', `${app()}.json`, 413, {
        body: JSON.stringify({ application: { name: huge } }), headers: { 'content-type': 'application/json' }, note: 'body (application/json): {"application":{"name":"xxx… (1 MiB + 1 x)"}}',
      }],
      ['413-get-form-body-xml', 'GET', `${app()}/metrics/data.xml`, 413, {
        body: `names[]=${huge}`, headers: FORM, note: 'body (application/x-www-form-urlencoded): names[]=xxx… (1 MiB + 1 x)',
      }],
    ]);
    assert.equal((await rest(s.ts, 'GET', `${app()}.json`)).json().application.name, 'checkout-web');
  });
});

describe('429', () => {
  it('the 1001st request of a key in one minute, with the X-RateLimit headers', async () => {
    // A fresh minute, so that the requests above do not count: 14:31:20, window ends 14:32:00.
    s.clock.ms = NOW_MS + 60_000;
    for (let i = 0; i < 1000; i++) {
      const reply = await rest(s.ts, 'GET', '/v2/applications/999.json');
      assert.equal(reply.status, 404);
    }
    await run([
      ['429-rate-limited', 'GET', `${app()}.json`, 429],
      ['429-rate-limited-xml', 'GET', `${app()}/metrics/data.xml?names[]=HttpDispatcher`, 429],
    ]);
    // Another key is counted on its own.
    assert.equal((await rest(s.ts, 'GET', '/v2/applications.json', { key: OTHER_USER_KEY })).status, 200);
    s.clock.ms = NOW_MS + 120_000;
    assert.equal((await rest(s.ts, 'GET', `${app()}.json`)).status, 200);
  });
});
