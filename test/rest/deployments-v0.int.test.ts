import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { httpsRequest } from '../helpers/https-request.js';
import { TEST_API_KEY, TEST_LICENSE_KEY } from '../helpers/test-server.js';
import { golden, goldenText, rest, startScenario, type Scenario } from './rest-scenario.js';
import { assertGolden } from '../helpers/golden.js';
import { withoutSuccessorTitle } from '../helpers/rest-fixture.js';

/*
 * The legacy Deployments v0 API, POST /deployments.xml, as its callers send it: the Ruby agent's
 * `newrelic deployments` (license key, the app name in deployment[application_id], a form labelled
 * application/octet-stream), curl scripts (user key, deployment[app_name]), old Ansible (unprefixed
 * fields), on the API port and on the collector port over HTTPS. Bodies are pinned in
 * test/golden/rest/deployments-v0/. The clock stands at 2024-03-05 14:30:20 UTC.
 */

let s: Scenario;
before(async () => {
  s = await startScenario();
});
after(() => s?.ts.stop());

const OCTET = { 'content-type': 'application/octet-stream' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** The form the Ruby agent builds (set_form_data): its keys in its order, values escaped. */
function rubyAgentForm(fields: Record<string, string>): string {
  return Object.entries(fields).map(([k, v]) => `${encodeURIComponent(`deployment[${k}]`)}=${encodeURIComponent(v)}`).join('&');
}

interface V0Row {
  app_id: number;
  ms: bigint;
  attributes: string;
}

async function v0Rows(): Promise<Record<string, unknown>[]> {
  const rows = await s.ts.server.db.all<V0Row>(
    `SELECT app_id, epoch_ms(timestamp) AS ms, attributes FROM custom_events WHERE event_type = 'Deployment'
     ORDER BY CAST(json_extract(attributes, '$.deploymentId') AS BIGINT)`,
  );
  return rows.map((r) => ({ row: { appId: r.app_id, ms: Number(r.ms) }, ...JSON.parse(r.attributes) }));
}

describe('POST /deployments.xml', () => {
  it('records the Ruby agent\'s call: license key, the app name in application_id, an octet-stream form', async () => {
    const body = rubyAgentForm({
      application_id: 'checkout-web', host: 'web-1', description: 'Deploy 42 & more', user: 'deploy', revision: 'a1b2c3d', changelog: 'line 1\nline 2',
    });
    const reply = await golden(s.ts, 'deployments-v0/ruby-agent', 'POST', '/deployments.xml', {
      key: null, headers: { 'x-license-key': TEST_LICENSE_KEY, ...OCTET }, body,
      note: `x-license-key: the license key; application/octet-stream body: ${body}`,
    });
    assert.equal(reply.status, 201);
  });

  it('takes a user key with deployment[app_name], an application id, and the unprefixed fields of old scripts', async () => {
    s.clock.ms += 60_000;
    const byName = await golden(s.ts, 'deployments-v0/app-name-user-key', 'POST', '/deployments.xml', {
      key: null, headers: { 'x-api-key': TEST_API_KEY, ...FORM }, body: 'deployment[app_name]=billing-worker&deployment[revision]=v7',
      note: 'x-api-key: the user key; body: deployment[app_name]=billing-worker&deployment[revision]=v7',
    });
    assert.equal(byName.status, 201);
    s.clock.ms += 60_000;
    const byId = await rest(s.ts, 'POST', '/deployments.xml', {
      key: null, headers: { 'x-api-key': TEST_API_KEY, ...FORM }, body: `deployment[application_id]=${s.checkout}&deployment[description]=by+id`,
    });
    assert.equal(byId.status, 201);
    const unprefixed = await rest(s.ts, 'POST', '/deployments.xml', {
      key: null, headers: { 'x-api-key': TEST_API_KEY, ...FORM }, body: 'app_name=checkout-web&revision=v9&user=ansible&environment=prod',
    });
    assert.equal(unprefixed.status, 201);
    const json = await rest(s.ts, 'POST', '/deployments.xml', {
      key: null, headers: { 'x-api-key': TEST_API_KEY }, body: { deployment: { app_name: 'billing-worker', revision: 'v8' } },
    });
    assert.equal(json.status, 201);
  });

  it('answers on the collector port too, over HTTPS', async () => {
    s.clock.ms += 60_000;
    const body = rubyAgentForm({ application_id: 'billing-worker', revision: 'tls-1', user: 'cap' });
    const reply = await httpsRequest(s.ts.server, 'POST', '/deployments.xml', { 'x-license-key': TEST_LICENSE_KEY, ...OCTET }, body);
    assert.equal(reply.status, 201);
    // The successor is the API's /graphql: the collector does not serve the graph API.
    const apiPort = new URL(s.ts.server.apiUrl).port;
    assert.equal(withoutSuccessorTitle(reply.headers.link), `<http://localhost:${apiPort}/graphql>;rel="successor-version"`);
    const text = goldenText('POST', '/deployments.xml (collector port, HTTPS)', {
      status: reply.status, headers: reply.headers, text: reply.text, json: () => JSON.parse(reply.text),
    });
    assertGolden('test/golden/rest/deployments-v0/collector-port.txt', text.replace(`localhost:${apiPort}/`, 'localhost:<api port>/'));
  });

  it('each is a Deployment event stamped timeslice:deployments-v0, in the REST v2 list', async () => {
    const rows = await v0Rows();
    assert.equal(rows.length, 6);
    assert.deepEqual(rows[0], {
      row: { appId: s.checkout, ms: Date.UTC(2024, 2, 5, 14, 30, 20) },
      changeTrackingId: rows[0]!.changeTrackingId,
      deploymentId: 1,
      category: 'Deployment',
      type: 'Basic',
      version: 'a1b2c3d',
      changelog: 'line 1\nline 2',
      description: 'Deploy 42 & more',
      user: 'deploy',
      shortDescription: 'deploy deployed version a1b2c3d to checkout-web',
      'entity.guid': Buffer.from(`1|APM|APPLICATION|${s.checkout}`).toString('base64').replace(/=+$/, ''),
      'entity.name': 'checkout-web',
      appId: s.checkout,
      appName: 'checkout-web',
      'service.source': 'timeslice:deployments-v0',
    });
    assert.deepEqual(rows.map((r) => [(r.row as { appId: number }).appId, r.version ?? null, r['service.source']]), [
      [s.checkout, 'a1b2c3d', 'timeslice:deployments-v0'],
      [s.billing, 'v7', 'timeslice:deployments-v0'],
      [s.checkout, null, 'timeslice:deployments-v0'],
      [s.checkout, 'v9', 'timeslice:deployments-v0'],
      [s.billing, 'v8', 'timeslice:deployments-v0'],
      [s.billing, 'tls-1', 'timeslice:deployments-v0'],
    ]);
    assert.equal(rows[2]!.shortDescription, 'Deployed to checkout-web');
    const list = await golden(s.ts, 'deployments-v0/v2-list', 'GET', `/v2/applications/${s.checkout}/deployments.json`);
    assert.deepEqual(list.json().deployments.map((d: { id: number }) => d.id), [4, 3, 1]);
  });
});

describe('refusals, each as <errors><error>…</error></errors>', () => {
  type Case = readonly [name: string, status: number, options: Parameters<typeof golden>[4], method?: 'GET' | 'POST' | 'PUT' | 'DELETE'];
  const license = { 'x-license-key': TEST_LICENSE_KEY, ...OCTET };
  const cases: readonly Case[] = [
    ['403-no-key', 403, { key: null, headers: OCTET, body: 'deployment[app_name]=checkout-web' }],
    ['403-bad-license-key', 403, { key: null, headers: { 'x-license-key': '0000000000000000000000000000000000000000', ...OCTET }, body: 'deployment[app_name]=checkout-web', note: 'x-license-key: forty zeros' }],
    ['403-user-key-as-license-key', 403, { key: null, headers: { 'x-license-key': TEST_API_KEY, ...OCTET }, body: 'deployment[app_name]=checkout-web', note: 'x-license-key: the user key' }],
    ['403-license-key-as-api-key', 403, { key: null, headers: { 'x-api-key': TEST_LICENSE_KEY, ...OCTET }, body: 'deployment[app_name]=checkout-web', note: 'x-api-key: the license key' }],
    ['422-no-application', 422, { key: null, headers: license, body: 'deployment[revision]=x', note: 'license key; body: deployment[revision]=x' }],
    ['422-unknown-name', 422, { key: null, headers: license, body: 'deployment[app_name]=nope', note: 'license key; body: deployment[app_name]=nope' }],
    ['422-roll-up-name', 422, { key: null, headers: license, body: 'deployment[app_name]=checkout-web%3Bbilling-worker', note: 'license key; body: deployment[app_name]=checkout-web;billing-worker' }],
    ['422-unknown-id', 422, { key: null, headers: license, body: 'deployment[application_id]=999', note: 'license key; body: deployment[application_id]=999' }],
    ['400-malformed-json', 400, { key: null, headers: { 'x-license-key': TEST_LICENSE_KEY, 'content-type': 'application/json' }, body: '{"deployment":', note: 'license key; body: {"deployment":' }],
    ['413-too-large', 413, { key: null, headers: license, body: `deployment[app_name]=checkout-web&deployment[changelog]=${'x'.repeat(1024 * 1024)}`, note: 'license key; a 1 MiB changelog' }],
    ['405-get', 405, { key: null, headers: { 'x-license-key': TEST_LICENSE_KEY } }, 'GET'],
  ];

  it('403 for a missing or unknown key, 422 for an unknown application, 405 for another method', async () => {
    const before = (await v0Rows()).length;
    for (const [name, status, options, method] of cases) {
      const reply = await golden(s.ts, `deployments-v0/errors/${name}`, method ?? 'POST', '/deployments.xml', options);
      assert.equal(reply.status, status, name);
      assert.match(reply.text, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<errors>\n( {2}<error>[^<\n]+<\/error>\n)+<\/errors>\n$/, name);
    }
    assert.equal((await v0Rows()).length, before, 'no refused request stored anything');
  });
});
