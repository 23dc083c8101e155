import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashKey, keyHint } from '../../src/security/keys.js';
import { connectAs, FORM, golden, rest, startScenario, type Scenario } from './rest-scenario.js';

/*
 * Every refusal of the hosts, instances, key transaction and browser application endpoints, in
 * the error shape with its status; golden files in test/golden/rest/errors/entities/. A second
 * account (written into the catalog tables, then a restart, as rest-errors.int.test.ts does)
 * owns an application, a key transaction and a browser application that must not exist for
 * the first account's key, and so must its mobile application.
 */

const OTHER_USER_KEY = 'NRAK-SECONDACCOUNT0000000000000';
const OTHER_LICENSE_KEY = 'fedcba9876543210fedcba9876543210fedcba98';

let s: Scenario;
let foreign: { app: number; host: number; instance: number; keyTransaction: number; browser: number; mobile: number };
let ownKeyTransaction: number;
let ownMobile: number;

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
  const app = (await connectAs(s.ts, 'second-account-app', { host: 'other-1', pid: 9000, licenseKey: OTHER_LICENSE_KEY })).appId;
  const { catalog, entities } = s.ts.server;
  foreign = {
    app,
    host: catalog.hostsOf(app)[0]!.id,
    instance: catalog.instancesOf(app)[0]!.id,
    keyTransaction: (await entities.keyTransactions.create({ application: catalog.application(app)!, name: 'Theirs', metricName: 'WebTransaction/Custom/x' })).id,
    browser: (await entities.browserApplications.create({ accountId: 2, name: 'their-site' })).id,
    mobile: (await entities.mobileApplications.create(2, 'Their App')).id,
  };
  ownKeyTransaction = (await entities.keyTransactions.create({ application: catalog.application(s.checkout)!, name: 'Ours', metricName: 'WebTransaction/Custom/y' })).id;
  await entities.browserApplications.create({ accountId: 1, name: 'taken-name' });
  ownMobile = (await entities.mobileApplications.create(1, 'Taken App')).id;
});
after(() => s?.ts.stop());

function assertErrorShape(reply: { status: number; text: string; headers: Record<string, unknown>; json(): any }, status: number): void {
  assert.equal(reply.status, status);
  if (String(reply.headers['content-type']).startsWith('application/xml')) {
    assert.match(reply.text, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<error><title>[^<]+<\/title>(<messages>(<message>[^<]*<\/message>)+<\/messages>)?<\/error>$/);
  } else {
    const body = reply.json();
    assert.deepEqual(Object.keys(body), ['error']);
    assert.equal(typeof body.error.title, 'string');
  }
}

type Case = readonly [name: string, method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, status: number, options?: Parameters<typeof golden>[4]];

async function run(cases: readonly Case[]): Promise<void> {
  for (const [name, method, url, status, options] of cases) {
    const reply = await golden(s.ts, `errors/entities/${name}`, method, url, options);
    assertErrorShape(reply, status);
  }
}

const app = () => `/v2/applications/${s.checkout}`;
const json = (body: unknown): Parameters<typeof golden>[4] => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' }, note: `body (application/json): ${JSON.stringify(body)}` });

describe('mobile applications', () => {
  const url = '/v2/mobile_applications.json';
  it('404: unknown, non-numeric, of another account, on every route', async () => {
    await run([
      ['404-mobile-unknown', 'GET', '/v2/mobile_applications/999.json', 404],
      ['404-mobile-non-numeric-xml', 'GET', '/v2/mobile_applications/ios.xml', 404],
      ['404-mobile-other-account', 'GET', `/v2/mobile_applications/${foreign.mobile}.json`, 404],
      ['404-mobile-other-account-metrics', 'GET', `/v2/mobile_applications/${foreign.mobile}/metrics.json`, 404],
      ['404-mobile-other-key-data-xml', 'GET', `/v2/mobile_applications/${ownMobile}/metrics/data.xml?names[]=Session/Start`, 404, { key: OTHER_USER_KEY, note: "X-Api-Key: account 2's user key" }],
    ]);
  });

  it('422: bodies, names, parameters', async () => {
    await run([
      ['422-mobile-no-body', 'POST', url, 422],
      ['422-mobile-wrapper-not-object', 'POST', url, 422, json({ mobile_application: ['Shop'] })],
      ['422-mobile-name-missing-xml', 'POST', '/v2/mobile_applications.xml', 422, json({ application: { label: 'Shop' } })],
      ['422-mobile-name-taken', 'POST', url, 422, json({ mobile_application: { name: 'Taken App' } })],
      ['422-mobile-name-too-long', 'POST', url, 422, json({ mobile_application: { name: 'm'.repeat(256) } })],
      ['422-mobile-filter-ids', 'GET', '/v2/mobile_applications.json?filter[ids]=1,,x', 422],
      ['422-mobile-data-no-names', 'GET', `/v2/mobile_applications/${ownMobile}/metrics/data.json?values[]=call_count`, 422],
      ['422-mobile-data-range-xml', 'GET', `/v2/mobile_applications/${ownMobile}/metrics/data.xml?names[]=Session/Start&from=2024-03-05T14:20:00Z&to=2024-03-05T14:20:30Z`, 422],
      ['422-mobile-names-page', 'GET', `/v2/mobile_applications/${ownMobile}/metrics.json?page=x`, 422],
    ]);
  });

  it('405: no update or delete', async () => {
    await run([
      ['405-put-mobile', 'PUT', `/v2/mobile_applications/${ownMobile}.json`, 405, json({ application: { name: 'x' } })],
      ['405-delete-mobile-xml', 'DELETE', `/v2/mobile_applications/${ownMobile}.xml`, 405],
    ]);
  });
});

describe('hosts and instances', () => {
  it('404: unknown, non-numeric, of another application or account', async () => {
    const billingHost = s.ts.server.catalog.hostsOf(s.billing)[0]!.id;
    const billingInstance = s.ts.server.catalog.instancesOf(s.billing)[0]!.id;
    await run([
      ['404-hosts-unknown-app', 'GET', '/v2/applications/999/hosts.json', 404],
      ['404-instances-unknown-app-xml', 'GET', '/v2/applications/999/instances.xml', 404],
      ['404-host-unknown', 'GET', `${app()}/hosts/999.json`, 404],
      ['404-host-non-numeric-xml', 'GET', `${app()}/hosts/web-1.xml`, 404],
      ['404-host-of-other-app', 'GET', `${app()}/hosts/${billingHost}.json`, 404],
      ['404-instance-unknown-xml', 'GET', `${app()}/instances/999.xml`, 404],
      ['404-instance-of-other-app', 'GET', `${app()}/instances/${billingInstance}.json`, 404],
      ['404-hosts-other-account', 'GET', `/v2/applications/${foreign.app}/hosts.json`, 404],
      ['404-host-other-account', 'GET', `/v2/applications/${foreign.app}/hosts/${foreign.host}.json`, 404],
      ['404-instance-other-account-xml', 'GET', `/v2/applications/${foreign.app}/instances/${foreign.instance}.xml`, 404],
    ]);
    assert.equal((await rest(s.ts, 'GET', `/v2/applications/${foreign.app}/hosts/${foreign.host}.json`, { key: OTHER_USER_KEY })).status, 200);
  });

  it('422: filters and pages', async () => {
    await run([
      ['422-hosts-filter-ids', 'GET', `${app()}/hosts.json?filter[ids]=1,web-2`, 422],
      ['422-instances-filter-ids-xml', 'GET', `${app()}/instances.xml?filter[ids]=-3`, 422],
      ['422-hosts-page', 'GET', `${app()}/hosts.json?page=first`, 422],
      ['422-instances-page-form-body', 'GET', `${app()}/instances.json`, 422, {
        body: 'page=-2', headers: FORM, note: 'body (application/x-www-form-urlencoded): page=-2',
      }],
    ]);
  });

  it('405: they are read-only', async () => {
    await run([
      ['405-post-hosts', 'POST', `${app()}/hosts.json`, 405, json({ host: 'web-9' })],
      ['405-delete-instance-xml', 'DELETE', `${app()}/instances/${s.instances.web1a}.xml`, 405],
    ]);
  });
});

describe('key transactions', () => {
  it('404: unknown, non-numeric, of another account', async () => {
    await run([
      ['404-key-transaction-unknown', 'GET', '/v2/key_transactions/999.json', 404],
      ['404-key-transaction-non-numeric-xml', 'GET', '/v2/key_transactions/checkout.xml', 404],
      ['404-key-transaction-other-account', 'GET', `/v2/key_transactions/${foreign.keyTransaction}.json`, 404],
      ['404-key-transaction-other-key', 'GET', `/v2/key_transactions/${ownKeyTransaction}.json`, 404, { key: OTHER_USER_KEY, note: "X-Api-Key: account 2's user key" }],
    ]);
    const theirs = (await rest(s.ts, 'GET', '/v2/key_transactions.json', { key: OTHER_USER_KEY })).json().key_transactions as { id: number }[];
    assert.deepEqual(theirs.map((k) => k.id), [foreign.keyTransaction]);
  });

  it('422 and 405', async () => {
    await run([
      ['422-key-transactions-filter-ids', 'GET', '/v2/key_transactions.json?filter[ids]=1;2', 422],
      ['422-key-transactions-page-xml', 'GET', '/v2/key_transactions.xml?page=1.5', 422],
      ['405-post-key-transactions', 'POST', '/v2/key_transactions.json', 405, json({ key_transaction: { name: 'x' } })],
    ]);
  });
});

describe('browser applications', () => {
  const url = '/v2/browser_applications.json';
  it('422: bodies that do not name a new application', async () => {
    await run([
      ['422-browser-no-body', 'POST', url, 422],
      ['422-browser-wrong-wrapper', 'POST', url, 422, json({ application: { name: 'x' } })],
      ['422-browser-wrapper-not-object', 'POST', url, 422, json({ browser_application: 'x' })],
      ['422-browser-name-missing', 'POST', url, 422, json({ browser_application: {} })],
      ['422-browser-name-number-xml', 'POST', '/v2/browser_applications.xml', 422, json({ browser_application: { name: 7 } })],
      ['422-browser-name-empty', 'POST', url, 422, json({ browser_application: { name: '  ' } })],
      ['422-browser-name-too-long', 'POST', url, 422, json({ browser_application: { name: 'x'.repeat(256) } })],
      ['422-browser-name-taken', 'POST', url, 422, json({ browser_application: { name: 'taken-name' } })],
      ['422-browser-array', 'POST', url, 422, json([{ browser_application: { name: 'x' } }])],
      ['422-browser-filter-ids', 'GET', '/v2/browser_applications.json?filter[ids]=a', 422],
    ]);
    // Another account may use the name.
    const theirs = await rest(s.ts, 'POST', url, { key: OTHER_USER_KEY, body: { browser_application: { name: 'taken-name' } } });
    assert.equal(theirs.status, 201);
  });

  it('400, 415 and 405', async () => {
    await run([
      ['400-browser-malformed-json', 'POST', url, 400, { body: '{"browser_application": ', headers: { 'content-type': 'application/json' }, note: 'body (application/json): {"browser_application": ' }],
      ['415-browser-xml-body', 'POST', url, 415, { body: '<browser_application><name>x</name></browser_application>', headers: { 'content-type': 'application/xml' }, note: 'body (application/xml)' }],
      ['405-delete-browser-applications', 'DELETE', url, 405],
      ['404-browser-show', 'GET', '/v2/browser_applications/1.json', 404],
    ]);
  });

  it("another account's browser applications are not listed", async () => {
    const ids = ((await rest(s.ts, 'GET', `/v2/browser_applications.json?filter[ids]=${foreign.browser}`)).json().browser_applications as unknown[]);
    assert.deepEqual(ids, []);
  });
});
