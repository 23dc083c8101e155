import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import { graphData } from '../helpers/graph-client.js';
import { connectApp, ManualClock, startTestServer } from '../helpers/rest-fixture.js';
import type { TestServer } from '../helpers/test-server.js';
import { assertGolden } from '../helpers/golden.js';
import { golden, goldenText, rest } from './rest-scenario.js';

/*
 * REST v2's notification channels: create, list, delete, link to policies (JSON and XML goldens in
 * test/golden/rest/alerts-channels/), and delivery of the legacy webhook payload (alerts.md §5.4) to a
 * real HTTP receiver on 127.0.0.1 when an issue of a linked policy opens, is acknowledged and closes
 * through REST: the default body, a custom $VARIABLE payload sent as a form, basic auth and custom
 * headers, a retry after a 503, no repeat, and an email channel's deliveries recorded as failed in
 * NrIntegrationError saying why.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;
const clock = new ManualClock(T0);
let ts: TestServer;
let rx: { server: Server; url: string; received: Received[] };
let keyB: string;

interface Received {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

async function receiver(): Promise<typeof rx> {
  const received: Received[] = [];
  let flaky = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, headers: req.headers, body });
      res.writeHead(path === '/flaky' && ++flaky === 1 ? 503 : 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

before(async () => {
  rx = await receiver();
  ts = await startTestServer({}, { clock, alertIntervalMs: 0, alertWebhook: { timeoutMs: 2000, retryDelaysMs: [10], maxResponseBytes: 1024 } });
  const accountB = (await ts.server.catalog.createAccount('B')).id;
  keyB = await ts.server.catalog.createUserKey(accountB);
  await connectApp(ts, 'checkout-web');
});
after(async () => {
  await ts?.stop();
  await new Promise((resolve) => rx?.server.close(resolve));
});

async function nrql(query: string): Promise<any[]> {
  return (await graphData(ts, `{ actor { account(id: 1) { nrql(query: ${JSON.stringify(query)}) { results } } } }`)).actor.account.nrql.results;
}

test('channels: create, list, link, unlink, delete; bad input stores nothing', async () => {
  const policy = (await rest(ts, 'POST', '/v2/alerts_policies.json', { body: { policy: { name: 'checkout-web golden signals' } } })).json().policy;
  assert.equal(policy.id, 1);
  const webhook = {
    channel: {
      name: 'pager bridge', type: 'webhook',
      configuration: { base_url: `${rx.url}/flaky`, auth_username: 'nr', auth_password: 's3cr3t', payload_type: 'application/json', headers: '{"X-Team":"checkout"}' },
    },
  };
  const made = await rest(ts, 'POST', '/v2/alerts_channels.json?policy_ids=1', { body: webhook });
  assert.equal(made.status, 201);
  // The receiver's port changes from run to run: the golden shows the rest.
  assert.deepEqual(made.json(), {
    channels: [{
      id: 1, name: 'pager bridge', type: 'webhook',
      configuration: { base_url: `${rx.url}/flaky`, auth_username: 'nr', payload_type: 'application/json', headers: { 'X-Team': 'checkout' } },
      links: { policy_ids: [1] },
    }],
  });
  const form = {
    channel: {
      name: 'form hook', type: 'webhook',
      configuration: { base_url: `${rx.url}/form`, payload_type: 'application/x-www-form-urlencoded', payload: { text: '$POLICY_NAME: $EVENT_STATE (incident $INCIDENT_ID)', id: '$INCIDENT_ID', targets: '$TARGETS' } },
    },
  };
  assert.equal((await rest(ts, 'POST', '/v2/alerts_channels.json', { body: form })).status, 201);
  await golden(ts, 'alerts-channels/create-email-xml', 'POST', '/v2/alerts_channels.xml', {
    body: { channel: { name: 'oncall@example.com', type: 'email', configuration: { recipients: 'oncall@example.com', include_json_attachment: true } } },
    note: 'body: an email channel, include_json_attachment as a JSON true',
  });
  await golden(ts, 'alerts-channels/link', 'PUT', '/v2/alerts_policy_channels.json?policy_id=1&channel_ids=2');
  await golden(ts, 'alerts-channels/link-xml', 'PUT', '/v2/alerts_policy_channels.xml?policy_id=1&channel_ids=3,2');
  await golden(ts, 'alerts-channels/link-unknown-channel', 'PUT', '/v2/alerts_policy_channels.json?policy_id=1&channel_ids=3,99');
  await golden(ts, 'alerts-channels/bad', 'POST', '/v2/alerts_channels.json', {
    body: { channel: { name: 'x', type: 'carrier-pigeon', configuration: {} } }, note: 'body: an unknown type',
  });
  await golden(ts, 'alerts-channels/bad-webhook', 'POST', '/v2/alerts_channels.json', {
    body: { channel: { name: 'x', type: 'webhook', configuration: { base_url: 'ftp://example.test', payload: 'not json' } } }, note: 'body: an ftp base_url and a payload that is not JSON',
  });
  const unknownPolicy = await rest(ts, 'POST', '/v2/alerts_channels.json?policy_ids=1,5', { body: form });
  assert.deepEqual([unknownPolicy.status, unknownPolicy.json()], [404, { error: { title: 'No policy with id 5' } }]);
  const asB = await rest(ts, 'DELETE', '/v2/alerts_channels/1.json', { key: keyB });
  assert.deepEqual([asB.status, asB.json()], [404, { error: { title: 'No channel with id 1' } }]);
  assert.deepEqual((await rest(ts, 'GET', '/v2/alerts_channels.json', { key: keyB })).json(), { channels: [] });

  const scratch = (await rest(ts, 'POST', '/v2/alerts_channels.json?policy_ids=1', { body: { channel: { name: 'scratch', type: 'slack', configuration: { url: 'https://hooks.slack.example/x', channel: '#ops' } } } })).json().channels[0];
  assert.equal(scratch.id, 4);
  await golden(ts, 'alerts-channels/unlink', 'DELETE', '/v2/alerts_policy_channels.json?policy_id=1&channel_id=4');
  await golden(ts, 'alerts-channels/unlink-again-xml', 'DELETE', '/v2/alerts_policy_channels.xml?policy_id=1&channel_id=4');
  await golden(ts, 'alerts-channels/delete', 'DELETE', '/v2/alerts_channels/4.json');
  const user = (await rest(ts, 'POST', '/v2/alerts_channels.json', { body: { channel: { name: 'Ada', type: 'user', configuration: { user_id: '1' } } } })).json().channels[0];
  await golden(ts, 'alerts-channels/delete-user-xml', 'DELETE', `/v2/alerts_channels/${user.id}.xml`);
  await golden(ts, 'alerts-channels/unlinked-delete-xml', 'DELETE', '/v2/alerts_channels/4.xml');
  // The receiver's port differs from run to run: the golden has PORT in its place.
  const list = await rest(ts, 'GET', '/v2/alerts_channels.xml');
  assertGolden('test/golden/rest/alerts-channels/list-xml.txt', goldenText('GET', '/v2/alerts_channels.xml', list).replaceAll(rx.url, 'http://127.0.0.1:PORT'));
  const json = await rest(ts, 'GET', '/v2/alerts_channels.json');
  assertGolden('test/golden/rest/alerts-channels/list.txt', goldenText('GET', '/v2/alerts_channels.json', json).replaceAll(rx.url, 'http://127.0.0.1:PORT'));
  assert.deepEqual(json.json().channels.map((c: any) => [c.id, c.links.policy_ids]), [[1, [1]], [2, [1]], [3, [1]], [5, []]]);
});

test('an issue of a linked policy is announced to webhook channels on open, acknowledge and close', async () => {
  const condition = {
    nrql_condition: {
      name: 'probe value', enabled: true, terms: [{ duration: '2', operator: 'above', threshold: '2', time_function: 'all', priority: 'critical' }],
      nrql: { query: "SELECT average(value) FROM Probe WHERE appName = 'checkout-web'" }, signal: { aggregation_window: '60', aggregation_delay: 0 },
    },
  };
  assert.equal((await rest(ts, 'POST', '/v2/alerts_nrql_conditions/policies/1.json', { body: condition })).status, 201);
  const rows = new Rows(CUSTOM_EVENTS);
  for (const [minute, value] of [[0, 1], [1, 3], [2, 3], [3, 3]] as const) rows.push(1, 1, 0, 0, T0 + minute * MIN + 5_000, 'Probe', JSON.stringify({ value }));
  await ts.server.writer.write([rows]);
  clock.ms = T0 + 4 * MIN;
  await ts.server.alerts.evaluateOnce();
  await ts.server.alerts.flushNotifications();

  const origin = `http://127.0.0.1:${(ts.server.api.server.address() as AddressInfo).port}`;
  const opened = rx.received.filter((r) => r.path === '/flaky');
  assert.equal(opened.length, 2, 'the 503 is retried once');
  assert.equal(opened[0]!.body, opened[1]!.body);
  assert.equal(opened[1]!.headers.authorization, `Basic ${Buffer.from('nr:s3cr3t').toString('base64')}`);
  assert.equal(opened[1]!.headers['x-team'], 'checkout');
  assert.equal(opened[1]!.headers['content-type'], 'application/json');
  // Without a FACET the signal is named after the condition (the engine's titles).
  const title = "probe value query result is > 2 for 2 minutes on 'probe value'";
  const expected = (state: string, at: number, counts: [number, number], owner: string) => ({
    account_id: 1, account_name: ts.server.catalog.account(1)!.name,
    closed_violations_count_critical: counts[1], closed_violations_count_warning: 0,
    condition_description: '', condition_family_id: 1, condition_id: 1, condition_name: 'probe value',
    current_state: state, details: title, duration: at - (T0 + 4 * MIN), event_type: 'INCIDENT',
    incident_acknowledge_url: `${origin}/accounts/1/incidents/1/acknowledge`, incident_id: 1, incident_url: `${origin}/accounts/1/incidents/1`,
    open_violations_count_critical: counts[0], open_violations_count_warning: 0, owner,
    policy_name: 'checkout-web golden signals', policy_url: `${origin}/accounts/1/policies/1`, runbook_url: null, severity: 'CRITICAL',
    targets: [{ id: '1', name: 'checkout-web', link: `${origin}/v2/applications/1.json`, labels: {}, product: 'APM', type: 'Application' }],
    timestamp: at, timestamp_utc_string: new Date(at).toISOString().replace(/^(\d{4}-\d\d-\d\d)T(\d\d:\d\d).*$/, '$1, $2 UTC'),
    violation_callback_url: `${origin}/accounts/1/incidents/1`, violation_chart_url: `${origin}/accounts/1/incidents/1`,
  });
  assert.deepEqual(JSON.parse(opened[0]!.body), expected('open', T0 + 4 * MIN, [1, 0], ''));
  const formOpen = rx.received.filter((r) => r.path === '/form');
  assert.equal(formOpen.length, 1);
  assert.equal(formOpen[0]!.headers['content-type'], 'application/x-www-form-urlencoded');
  const fields = Object.fromEntries(new URLSearchParams(formOpen[0]!.body));
  assert.deepEqual(fields, {
    text: 'checkout-web golden signals: open (incident 1)', id: '1',
    targets: JSON.stringify([{ id: '1', name: 'checkout-web', link: `${origin}/v2/applications/1.json`, labels: {}, product: 'APM', type: 'Application' }]),
  });

  clock.ms = T0 + 5 * MIN;
  assert.equal((await rest(ts, 'PUT', '/v2/alerts_incidents/1/acknowledge.json')).status, 200);
  clock.ms = T0 + 6 * MIN;
  assert.equal((await rest(ts, 'PUT', '/v2/alerts_incidents/1/close.json')).status, 200);
  await ts.server.alerts.flushNotifications();
  await ts.server.alerts.flushNotifications();
  const hook = rx.received.filter((r) => r.path === '/flaky').slice(2).map((r) => JSON.parse(r.body));
  const user = ts.server.catalog.userOfKey('NRAK-TESTKEY0000000000000000000')!.name;
  assert.deepEqual(hook, [expected('acknowledged', T0 + 5 * MIN, [1, 0], user), expected('closed', T0 + 6 * MIN, [0, 1], user)]);
  assert.deepEqual(rx.received.filter((r) => r.path === '/form').map((r) => new URLSearchParams(r.body).get('text')), [
    'checkout-web golden signals: open (incident 1)', 'checkout-web golden signals: acknowledged (incident 1)', 'checkout-web golden signals: closed (incident 1)',
  ]);

  // The email channel: three deliveries that could not be made, each an NrIntegrationError saying why
  // (the last two are stamped 12:06, when they were tried: a query ending after it sees them).
  clock.ms = T0 + 7 * MIN;
  const errors = await nrql("SELECT message, channelName FROM NrIntegrationError WHERE category = 'NotificationError' SINCE 1 day ago");
  assert.deepEqual(errors.map((e) => [e.channelName, e.message]), Array(3).fill(['oncall@example.com', 'Notification not sent: email channels are stored but not delivered: only webhook channels are']));
  const log = await ts.server.store.alerts.notificationLog(1);
  assert.deepEqual(log.map((e) => [e.channelId, e.notificationTrigger, e.status, e.attempts]), [
    ['legacy:1', 'OPEN', 'SENT', 2], ['legacy:2', 'OPEN', 'SENT', 1], ['legacy:3', 'OPEN', 'FAILED', 0],
    ['legacy:1', 'ACKNOWLEDGED', 'SENT', 1], ['legacy:2', 'ACKNOWLEDGED', 'SENT', 1], ['legacy:3', 'ACKNOWLEDGED', 'FAILED', 0],
    ['legacy:1', 'CLOSED', 'SENT', 1], ['legacy:2', 'CLOSED', 'SENT', 1], ['legacy:3', 'CLOSED', 'FAILED', 0],
  ]);
  // Restarted, nothing is sent again.
  const before = rx.received.length;
  await ts.restart();
  await ts.server.alerts.flushNotifications();
  assert.equal(rx.received.length, before);
  assert.deepEqual((await rest(ts, 'GET', '/v2/alerts_incidents.json')).json().incidents.map((i: any) => [i.id, i.links.violations]), [[1, [1]]], 'numbers survive the restart');
  assert.deepEqual((await rest(ts, 'GET', '/v2/alerts_channels.json')).json().channels.map((c: any) => c.name), ['pager bridge', 'form hook', 'oncall@example.com', 'Ada']);
});
