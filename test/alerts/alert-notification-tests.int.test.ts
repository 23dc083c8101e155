import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import { graphData } from '../helpers/graph-client.js';
import { connectApp, ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// aiNotificationsTestDestination(ById) and aiNotificationsTestChannel(ById) send one real test
// webhook to a receiver on 127.0.0.1: the default body or the channel's template over a sample
// issue, the destination's auth, SUCCESS on 2xx and FAIL with the reason otherwise, nothing saved,
// each attempt an NrAiNotification with operation Test. Then aiIssuesMarkAsInvestigating: only
// destinations that asked for INVESTIGATING hear of it.

const T0 = Date.parse('2026-11-20T12:00:00Z');
const clock = new ManualClock(T0);
const received: { path: string; headers: IncomingMessage['headers']; body: string }[] = [];
let rx: Server;
let url: string;
let ts: TestServer;

before(async () => {
  rx = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(req.url === '/ok' ? 202 : 400).end();
    });
  });
  await new Promise<void>((resolve) => rx.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(rx.address() as AddressInfo).port}`;
  ts = await startTestServer({}, { clock, alertIntervalMs: 0 });
});
after(async () => {
  await ts?.stop();
  await new Promise((resolve) => rx?.close(resolve));
});

const RESULT = 'result details errors { type description }';

test('test notifications reach the receiver once, report SUCCESS or FAIL, and save nothing', async () => {
  const tested = await graphData(ts, `mutation($d: AiNotificationsDestinationInput!) { aiNotificationsTestDestination(accountId: 1, destination: $d) { ${RESULT} } }`, {
    d: { name: 'unsaved', type: 'WEBHOOK', properties: [{ key: 'url', value: `${url}/ok` }], auth: { type: 'BASIC', basic: { user: 'nr', password: 'pw' } } },
  });
  assert.deepEqual(tested, { aiNotificationsTestDestination: { result: 'SUCCESS', details: 'The test notification was accepted (HTTP 202)', errors: [] } });
  assert.equal(received.length, 1);
  assert.equal(received[0]!.headers.authorization, `Basic ${Buffer.from('nr:pw').toString('base64')}`);
  const body = JSON.parse(received[0]!.body);
  assert.match(body.id, /^[0-9a-f-]{36}$/);
  assert.ok(body.issueUrl.endsWith(`/accounts/1/issues/${body.id}?notifier=WEBHOOK`), body.issueUrl);
  assert.deepEqual({ ...body, id: '', issueUrl: '' }, {
    id: '', issueUrl: '', title: 'Test notification from Timeslice', priority: 'CRITICAL', impactedEntities: [], totalIncidents: 0, state: 'ACTIVATED',
    trigger: 'STATE_CHANGE', isCorrelated: false, createdAt: T0, updatedAt: T0, sources: ['newrelic'], alertPolicyNames: ['Test notification'],
    alertConditionNames: ['Test notification'], workflowName: 'Test notification',
  });

  const destinationId = (await graphData(ts, `mutation($d: AiNotificationsDestinationInput!) { aiNotificationsCreateDestination(accountId: 1, destination: $d) { destination { id } } }`, {
    d: { name: 'hooks', type: 'WEBHOOK', properties: [{ key: 'url', value: `${url}/ok` }], auth: { type: 'TOKEN', token: { prefix: 'Bearer', token: 't0k' } } },
  })).aiNotificationsCreateDestination.destination.id;
  const template = '{"issue": {{ json issueTitle }}, "state": {{ json state }}}';
  const channelId = (await graphData(ts, `mutation($c: AiNotificationsChannelInput!) { aiNotificationsCreateChannel(accountId: 1, channel: $c) { channel { id } } }`, {
    c: { name: 'hooks payload', type: 'WEBHOOK', product: 'IINT', destinationId, properties: [{ key: 'payload', value: template }] },
  })).aiNotificationsCreateChannel.channel.id;

  assert.deepEqual(await graphData(ts, `mutation { aiNotificationsTestChannelById(accountId: 1, channelId: "${channelId}") { ${RESULT} evidence } }`), {
    aiNotificationsTestChannelById: { result: 'SUCCESS', details: 'The test notification was accepted (HTTP 202)', errors: [], evidence: null },
  });
  assert.deepEqual([received[1]!.body, received[1]!.headers.authorization], ['{"issue": "Test notification from Timeslice", "state": "ACTIVATED"}', 'Bearer t0k']);

  const unsavedChannel = await graphData(ts, `mutation($c: AiNotificationsChannelInput!) { aiNotificationsTestChannel(accountId: 1, channel: $c) { ${RESULT} } }`, {
    c: { name: 'draft', type: 'WEBHOOK', product: 'IINT', destinationId, properties: [{ key: 'payload', value: '{"p": {{ json priority }}}' }] },
  });
  assert.deepEqual(unsavedChannel, { aiNotificationsTestChannel: { result: 'SUCCESS', details: 'The test notification was accepted (HTTP 202)', errors: [] } });
  assert.equal(received[2]!.body, '{"p": "CRITICAL"}');

  // By id with changes: the changed URL is tested, the stored destination keeps its own.
  const failing = await graphData(ts, `mutation($d: AiNotificationsDestinationUpdate) { aiNotificationsTestDestinationById(accountId: 1, destinationId: "${destinationId}", destination: $d) { ${RESULT} } }`, {
    d: { properties: [{ key: 'url', value: `${url}/bad` }] },
  });
  assert.deepEqual(failing, { aiNotificationsTestDestinationById: { result: 'FAIL', details: 'The test notification failed: HTTP 400', errors: [] } });
  assert.deepEqual(received.map((r) => r.path), ['/ok', '/ok', '/ok', '/bad']);
  const stored = await graphData(ts, '{ actor { account(id: 1) { aiNotifications { destinations { entities { properties { key value } } } channels { totalCount } } } } }');
  assert.deepEqual(stored.actor.account.aiNotifications, { destinations: { entities: [{ properties: [{ key: 'url', value: `${url}/ok` }] }] }, channels: { totalCount: 1 } });

  const email = await graphData(ts, `mutation($d: AiNotificationsDestinationInput!) { aiNotificationsTestDestination(accountId: 1, destination: $d) { ${RESULT} } }`, {
    d: { name: 'mail', type: 'EMAIL', properties: [{ key: 'email', value: 'oncall@example.test' }] },
  });
  assert.deepEqual(email, { aiNotificationsTestDestination: { result: 'FAIL', details: 'EMAIL destinations are stored but not delivered; only WEBHOOK destinations receive notifications', errors: [] } });
  const unknown = await graphData(ts, `mutation { aiNotificationsTestChannelById(accountId: 1, channelId: "no-such-channel") { ${RESULT} } }`);
  assert.deepEqual(unknown, { aiNotificationsTestChannelById: { result: 'FAIL', details: 'Channel no-such-channel Not Found', errors: [{ type: 'INVALID_PARAMETER', description: 'Channel no-such-channel Not Found' }] } });

  const accountB = (await ts.server.catalog.createAccount('B')).id;
  const keyB = await ts.server.catalog.createUserKey(accountB);
  const asB = await graphData(ts, `mutation { aiNotificationsTestChannelById(accountId: 1, channelId: "${channelId}") { ${RESULT} } }`, undefined, { key: keyB });
  assert.deepEqual(asB, { aiNotificationsTestChannelById: { result: 'FAIL', details: 'Access denied: this API key cannot reach account 1', errors: [{ type: 'UNAUTHORIZED_ACCOUNT', description: 'Access denied: this API key cannot reach account 1' }] } });
  assert.equal(received.length, 4, 'refused tests send nothing');

  const rows = await graphData(ts, `{ actor { account(id: 1) { nrql(query: "SELECT count(*) FROM NrAiNotification WHERE operation = 'Test' FACET status, destinationType SINCE ${T0 - 60_000} UNTIL ${T0 + 60_000}") { results } } } }`);
  assert.deepEqual(
    rows.actor.account.nrql.results.map((r: { facet: string[]; count: number }) => [...r.facet, r.count]).sort(),
    [['Failed', 'EMAIL', 1], ['Failed', 'WEBHOOK', 1], ['Sent', 'WEBHOOK', 3]],
  );
});

test('aiIssuesMarkAsInvestigating notifies the destinations whose triggers name INVESTIGATING, once', async () => {
  const appId = (await connectApp(ts, 'checkout-web')).appId;
  const policyId = (await graphData(ts, 'mutation { alertsPolicyCreate(accountId: 1, policy: {name: "probes", incidentPreference: PER_CONDITION}) { id } }')).alertsPolicyCreate.id;
  await graphData(ts, 'mutation($p: ID!, $c: AlertsNrqlConditionStaticInput!) { alertsNrqlConditionStaticCreate(accountId: 1, policyId: $p, condition: $c) { id } }', {
    p: policyId,
    c: {
      name: 'probe value', enabled: true, nrql: { query: 'SELECT average(value) FROM Probe FACET appName' },
      terms: [{ operator: 'ABOVE', priority: 'CRITICAL', threshold: 2, thresholdDuration: 120, thresholdOccurrences: 'ALL' }],
      signal: { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 0 },
    },
  });
  const destinationId = (await graphData(ts, `mutation { aiNotificationsCreateDestination(accountId: 1, destination: {name: "investigations", type: WEBHOOK, properties: [{key: "url", value: "${url}/ok"}]}) { destination { id } } }`)).aiNotificationsCreateDestination.destination.id;
  const channelId = (await graphData(ts, `mutation { aiNotificationsCreateChannel(accountId: 1, channel: {name: "investigations", type: WEBHOOK, product: IINT, destinationId: "${destinationId}", properties: [{key: "payload", value: "{\\"state\\": {{ json state }}, \\"trigger\\": {{ json triggerEvent }}}"}]}) { channel { id } } }`)).aiNotificationsCreateChannel.channel.id;
  await graphData(ts, `mutation { aiWorkflowsCreateWorkflow(accountId: 1, createWorkflowData: {name: "investigations", mutingRulesHandling: NOTIFY_ALL_ISSUES, destinationConfigurations: [{channelId: "${channelId}", notificationTriggers: [INVESTIGATING]}]}) { workflow { id } } }`);

  const rows = new Rows(CUSTOM_EVENTS);
  for (const [minute, value] of [[0, 1], [1, 3], [2, 3], [3, 3]] as const) rows.push(1, appId, 0, 0, T0 + minute * 60_000 + 5_000, 'Probe', JSON.stringify({ value }));
  await ts.server.writer.write([rows]);
  const before = received.length;
  clock.ms = T0 + 4 * 60_000;
  await ts.server.alerts.evaluateOnce();
  await ts.server.alerts.flushNotifications();
  const issueId = (await graphData(ts, '{ actor { account(id: 1) { aiIssues { issues { issues { issueId } } } } } }')).actor.account.aiIssues.issues.issues[0].issueId;
  await graphData(ts, `mutation { aiIssuesAckIssue(accountId: 1, issueId: "${issueId}") { error } }`);
  const marked = await graphData(ts, `mutation { aiIssuesMarkAsInvestigating(accountId: 1, issueId: "${issueId}") { error result { accountId action issueId } } }`);
  assert.deepEqual(marked, { aiIssuesMarkAsInvestigating: { error: null, result: { accountId: 1, action: 'MARK_AS_INVESTIGATING', issueId } } });
  await ts.server.alerts.flushNotifications();
  assert.deepEqual(received.slice(before).map((r) => [r.path, r.body]), [['/ok', '{"state": "ACTIVATED", "trigger": "USER_ACTION"}']], 'activation and ack are not its triggers');
  const state = await graphData(ts, `{ actor { account(id: 1) { aiIssues { issues(filter: {ids: ["${issueId}"]}) { issues { state } } } } } }`);
  assert.deepEqual(state.actor.account.aiIssues.issues.issues, [{ state: 'ACTIVATED' }]);
});
