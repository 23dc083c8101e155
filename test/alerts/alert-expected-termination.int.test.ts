import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import { agentQuery, invoke } from '../helpers/collector-client.js';
import { graphData } from '../helpers/graph-client.js';
import { connectApp, ManualClock, type AgentHandle } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

// ignoreOnExpectedTermination in the service: an application whose agent said `shutdown` ended
// expectedly, so its lost signal opens no incident; another application's silence still does.

const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;
const clock = new ManualClock(T0);
let ts: TestServer;
let a: AgentHandle;
let b: AgentHandle;

before(async () => {
  ts = await startTestServer({}, { clock, alertIntervalMs: 0 });
  a = await connectApp(ts, 'worker-a', 'wa', 4201);
  b = await connectApp(ts, 'worker-b', 'wb', 4202);
});
after(() => ts?.stop());

test('a lost signal of an application whose agent shut down opens nothing; a silent one opens', async () => {
  const policyId = (await graphData(ts, 'mutation { alertsPolicyCreate(accountId: 1, policy: {name: "workers", incidentPreference: PER_CONDITION_AND_TARGET}) { id } }')).alertsPolicyCreate.id;
  await graphData(ts, 'mutation($p: ID!, $c: AlertsNrqlConditionStaticInput!) { alertsNrqlConditionStaticCreate(accountId: 1, policyId: $p, condition: $c) { id } }', {
    p: policyId,
    c: {
      name: 'heartbeat', enabled: true, nrql: { query: 'SELECT count(*) FROM Heartbeat FACET appName' },
      signal: { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 0 },
      expiration: { expirationDuration: 120, openViolationOnExpiration: true, closeViolationsOnExpiration: false, ignoreOnExpectedTermination: true },
      terms: [{ operator: 'ABOVE', priority: 'CRITICAL', threshold: 1000, thresholdDuration: 120, thresholdOccurrences: 'ALL' }],
    },
  });
  const rows = new Rows(CUSTOM_EVENTS);
  for (const app of [a, b]) for (const minute of [0, 1, 2]) rows.push(1, app.appId, 0, 0, T0 + minute * MIN + 5_000, 'Heartbeat', '{}');
  await ts.server.writer.write([rows]);
  clock.ms = T0 + 3 * MIN;
  await ts.server.alerts.evaluateOnce();

  const shutdown = await invoke(ts.server, { query: agentQuery('shutdown', TEST_LICENSE_KEY, a.runId), body: [] });
  assert.equal(shutdown.status, 200, shutdown.text);
  clock.ms = T0 + 12 * MIN;
  await ts.server.alerts.evaluateOnce();

  const incidents = (await graphData(ts, '{ actor { account(id: 1) { aiIssues { incidents { incidents { title priority state createdAt entityNames } } } } } }')).actor.account.aiIssues.incidents.incidents;
  assert.deepEqual(incidents, [{ title: "worker-b signal lost on 'heartbeat'", priority: 'CRITICAL', state: 'CREATED', createdAt: T0 + 5 * MIN, entityNames: 'worker-b' }]);
});
