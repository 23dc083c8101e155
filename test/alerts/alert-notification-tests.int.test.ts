import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { graphData } from '../helpers/graph-client.js';
import { ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// aiNotificationsTestDestination(ById) and aiNotificationsTestChannel(ById) send one real test
// webhook to a receiver on 127.0.0.1: the default body or the channel's template over a sample
// issue, the destination's auth, SUCCESS on 2xx and FAIL with the reason otherwise, nothing saved,
// each attempt an NrAiNotification with operation Test.

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
