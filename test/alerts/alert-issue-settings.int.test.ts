import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import { graphData } from '../helpers/graph-client.js';
import { connectApp, ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// aiIssuesUpdateGracePeriod and aiIssuesUpdateIssueTtl through NerdGraph: refusals in the payload's
// error, the settings read back, and the grace period's effect on a real evaluation: the issue stays
// CREATED (nothing sent) until its grace period has passed, then activates and notifies once.

const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;
const clock = new ManualClock(T0);
const received: string[] = [];
let rx: Server;
let url: string;
let ts: TestServer;
let appId: number;

before(async () => {
  rx = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => rx.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(rx.address() as AddressInfo).port}`;
  ts = await startTestServer({}, { clock, alertIntervalMs: 0 });
  appId = (await connectApp(ts, 'checkout-web')).appId;
});
after(async () => {
  await ts?.stop();
  await new Promise((resolve) => rx?.close(resolve));
});

const CONFIG = 'config { gracePeriod { priority period } issueTtl flappingInterval }';

test('grace period and issue TTL: set, refused, read back, and a new issue waits out its grace period', async () => {
  const defaults = await graphData(ts, `{ actor { account(id: 1) { aiIssues { configByEnvironment { ${CONFIG} } } } } }`);
  assert.deepEqual(defaults.actor.account.aiIssues.configByEnvironment.config, {
    gracePeriod: [{ priority: 'CRITICAL', period: 0 }, { priority: 'HIGH', period: 0 }, { priority: 'MEDIUM', period: 0 }, { priority: 'LOW', period: 0 }], issueTtl: 259200, flappingInterval: null,
  });
  const set = await graphData(ts, `mutation { aiIssuesUpdateGracePeriod(accountId: 1, gracePeriod: {critical: 180, high: 60, medium: 0, low: 0}) { ${CONFIG} error } }`);
  const grace = [{ priority: 'CRITICAL', period: 180 }, { priority: 'HIGH', period: 60 }, { priority: 'MEDIUM', period: 0 }, { priority: 'LOW', period: 0 }];
  assert.deepEqual(set, { aiIssuesUpdateGracePeriod: { config: { gracePeriod: grace, issueTtl: 259200, flappingInterval: null }, error: null } });
  assert.deepEqual(await graphData(ts, 'mutation { aiIssuesUpdateIssueTtl(accountId: 1, issueTtl: 60) { config { issueTtl } error } }'), {
    aiIssuesUpdateIssueTtl: { config: null, error: 'issueTtl must be a whole number of seconds from 86400 (1 day) to 2592000 (30 days), but was 60' },
  });
  assert.deepEqual(await graphData(ts, 'mutation { aiIssuesUpdateGracePeriod(accountId: 1, gracePeriod: {critical: 7200, high: 0, medium: 0, low: 0}) { config { issueTtl } error } }'), {
    aiIssuesUpdateGracePeriod: { config: null, error: 'gracePeriod.critical must be a whole number of seconds from 0 to 3600, but was 7200' },
  });
  assert.deepEqual(await graphData(ts, 'mutation { aiIssuesUpdateIssueTtl(accountId: 1, issueTtl: 172800) { config { issueTtl gracePeriod { period } } error } }'), {
    aiIssuesUpdateIssueTtl: { config: { issueTtl: 172800, gracePeriod: grace.map((g) => ({ period: g.period })) }, error: null },
  });
  await ts.restart();
  assert.deepEqual((await graphData(ts, `{ actor { account(id: 1) { aiIssues { configByEnvironment { ${CONFIG} } } } } }`)).actor.account.aiIssues.configByEnvironment.config,
    { gracePeriod: grace, issueTtl: 172800, flappingInterval: null }, 'kept across a restart');
  const accountB = (await ts.server.catalog.createAccount('B')).id;
  const keyB = await ts.server.catalog.createUserKey(accountB);
  assert.deepEqual(await graphData(ts, 'mutation { aiIssuesUpdateIssueTtl(accountId: 1, issueTtl: 86400) { config { issueTtl } error } }', undefined, { key: keyB }), {
    aiIssuesUpdateIssueTtl: { config: null, error: 'Access denied: this API key cannot reach account 1' },
  });
  const ofB = await graphData(ts, `{ actor { account(id: ${accountB}) { aiIssues { configByEnvironment { config { issueTtl } } } } } }`, undefined, { key: keyB });
  assert.equal(ofB.actor.account.aiIssues.configByEnvironment.config.issueTtl, 259200, "account 1's settings are its own");

  const policyId = (await graphData(ts, 'mutation { alertsPolicyCreate(accountId: 1, policy: {name: "probes", incidentPreference: PER_CONDITION}) { id } }')).alertsPolicyCreate.id;
  await graphData(ts, 'mutation($p: ID!, $c: AlertsNrqlConditionStaticInput!) { alertsNrqlConditionStaticCreate(accountId: 1, policyId: $p, condition: $c) { id } }', {
    p: policyId,
    c: {
      name: 'probe value', enabled: true, nrql: { query: 'SELECT average(value) FROM Probe FACET appName' },
      terms: [{ operator: 'ABOVE', priority: 'CRITICAL', threshold: 2, thresholdDuration: 120, thresholdOccurrences: 'ALL' }],
      signal: { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 0 },
    },
  });
  const destinationId = (await graphData(ts, `mutation { aiNotificationsCreateDestination(accountId: 1, destination: {name: "hooks", type: WEBHOOK, properties: [{key: "url", value: "${url}/"}]}) { destination { id } } }`)).aiNotificationsCreateDestination.destination.id;
  const channelId = (await graphData(ts, `mutation { aiNotificationsCreateChannel(accountId: 1, channel: {name: "hooks", type: WEBHOOK, product: IINT, destinationId: "${destinationId}", properties: [{key: "payload", value: "{\\"state\\": {{ json state }}}"}]}) { channel { id } } }`)).aiNotificationsCreateChannel.channel.id;
  await graphData(ts, `mutation { aiWorkflowsCreateWorkflow(accountId: 1, createWorkflowData: {name: "hooks", mutingRulesHandling: NOTIFY_ALL_ISSUES, destinationConfigurations: [{channelId: "${channelId}"}]}) { workflow { id } } }`);

  const rows = new Rows(CUSTOM_EVENTS);
  for (const [minute, value] of [[0, 1], [1, 3], [2, 3], [3, 3]] as const) rows.push(1, appId, 0, 0, T0 + minute * MIN + 5_000, 'Probe', JSON.stringify({ value }));
  await ts.server.writer.write([rows]);
  const ISSUES = '{ actor { account(id: 1) { aiIssues { issues { issues { state createdAt activatedAt } } } } } }';
  for (const [minute, state, activatedAt] of [[4, 'CREATED', null], [6, 'CREATED', null], [7, 'ACTIVATED', T0 + 7 * MIN]] as const) {
    clock.ms = T0 + minute * MIN;
    await ts.server.alerts.evaluateOnce();
    await ts.server.alerts.flushNotifications();
    assert.deepEqual((await graphData(ts, ISSUES)).actor.account.aiIssues.issues.issues, [{ state, createdAt: T0 + 4 * MIN, activatedAt }], `at +${minute}m`);
    assert.deepEqual(received, state === 'CREATED' ? [] : ['{"state": "ACTIVATED"}'], `sent by +${minute}m`);
  }
});
