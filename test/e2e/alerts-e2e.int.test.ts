import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForExit } from '../helpers/agent-app.js';

// The issue's end-to-end scenario with real parts: `timeslice serve` as a process, an app under the real
// `newrelic` agent made slow on demand (its /frustrating route takes 2.1 s, /fast 5 ms), a condition on
// average(duration) and a workflow created through NerdGraph, a webhook receiver on 127.0.0.1. The
// service is killed with SIGKILL while the issue is open, restarted, and must not repeat a notification.

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../../../test/e2e/fixtures/agent-app.cjs', import.meta.url));
const LICENSE = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const API_KEY = 'NRAK-ALERTSE2E000000000000000000';
const APP = 'alerting-app';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

function serve(dataDir: string, apiPort: number, collectorPort: number): ChildProcess {
  return spawn(process.execPath, ['bin/timeslice.js', 'serve', '--port', String(apiPort), '--collector-port', String(collectorPort), '--data', dataDir], {
    cwd: repoRoot,
    env: { ...process.env, TIMESLICE_LICENSE_KEY: LICENSE, TIMESLICE_API_KEY: API_KEY, TIMESLICE_ALERT_EVERY_MS: '2000', TIMESLICE_EVENT_HARVEST_MS: '2000', TIMESLICE_MEMORY_LIMIT: '256MB' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function graph(apiPort: number, query: string, variables?: unknown): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${apiPort}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'api-key': API_KEY }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: any; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

function hit(port: number, path: string): Promise<void> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', () => resolve());
    req.end();
  });
}

test('a slow endpoint opens an incident, an issue and a webhook; recovery closes them; kill -9 repeats nothing', { timeout: 420_000 }, async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-alerts-e2e-'));
  const received: Array<{ body: any; key: string }> = [];
  const receiver: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      received.push({ body: JSON.parse(text), key: String(req.headers['x-timeslice-idempotency-key']) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const [apiPort, collectorPort] = [await freePort(), await freePort()];
  let server = serve(dataDir, apiPort, collectorPort);
  let app: ChildProcess | undefined;
  let traffic: 'fast' | 'frustrating' | 'stop' = 'frustrating';
  t.after(async () => {
    traffic = 'stop';
    if (app && app.exitCode === null) app.kill('SIGKILL');
    if (server.exitCode === null) server.kill('SIGKILL');
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    await rm(dataDir, { recursive: true, force: true });
  });
  const healthy = () => until('the service', 30_000, async () => ((await fetch(`http://127.0.0.1:${apiPort}/healthz`)).status === 200 ? true : undefined));
  await healthy();

  const policyId = (await graph(apiPort, 'mutation { alertsPolicyCreate(accountId: 1, policy: {name: "e2e", incidentPreference: PER_CONDITION}) { id } }')).alertsPolicyCreate.id;
  await graph(apiPort, `mutation($c: AlertsNrqlConditionStaticInput!) { alertsNrqlConditionStaticCreate(accountId: 1, policyId: "${policyId}", condition: $c) { id } }`, {
    c: {
      name: 'slow app', enabled: true, nrql: { query: 'SELECT average(duration) FROM Transaction FACET appName' },
      signal: { aggregationWindow: 30, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 0 },
      terms: [{ priority: 'CRITICAL', operator: 'ABOVE', threshold: 1, thresholdDuration: 60, thresholdOccurrences: 'ALL' }],
    },
  });
  const port = (receiver.address() as AddressInfo).port;
  const destinationId = (await graph(apiPort, `mutation { aiNotificationsCreateDestination(accountId: 1, destination: {name: "rx", type: WEBHOOK, properties: [{key: "url", value: "http://127.0.0.1:${port}/hook"}]}) { destination { id } } }`)).aiNotificationsCreateDestination.destination.id;
  const channelId = (await graph(apiPort, `mutation { aiNotificationsCreateChannel(accountId: 1, channel: {name: "rx default", type: WEBHOOK, product: IINT, destinationId: "${destinationId}", properties: []}) { channel { id } } }`)).aiNotificationsCreateChannel.channel.id;
  const workflow = await graph(apiPort, `mutation { aiWorkflowsCreateWorkflow(accountId: 1, createWorkflowData: {name: "e2e on-call", mutingRulesHandling: NOTIFY_ALL_ISSUES, issuesFilter: {type: FILTER, predicates: [{attribute: "labels.policyIds", operator: EXACTLY_MATCHES, values: ["${policyId}"]}]}, destinationConfigurations: [{channelId: "${channelId}", notificationTriggers: [ACTIVATED, CLOSED]}]}) { workflow { id } errors { type } } }`);
  assert.deepEqual(workflow.aiWorkflowsCreateWorkflow.errors, []);

  app = fork(FIXTURE, [], {
    execArgv: ['-r', 'newrelic'],
    env: {
      ...process.env, NEW_RELIC_APP_NAME: APP, NEW_RELIC_LICENSE_KEY: LICENSE, NEW_RELIC_HOST: 'localhost', NEW_RELIC_PORT: String(collectorPort),
      NODE_EXTRA_CA_CERTS: join(dataDir, 'tls/cert.pem'), NEW_RELIC_NO_CONFIG_FILE: 'true', NEW_RELIC_LOG: join(dataDir, 'agent.log'), NEW_RELIC_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const appPort = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the agent did not connect within 60 s')), 60_000);
    app!.once('message', (m: { port: number }) => { clearTimeout(timer); resolve(m.port); });
  });
  // Four requests in flight at all times, on the route the test chooses.
  let n = 0;
  const loops = Array.from({ length: 4 }, async () => {
    while (traffic !== 'stop') await hit(appPort, `/${traffic}/${n++}`);
  });

  const activated = await until('the ACTIVATED notification', 180_000, async () => received.find((r) => r.body.state === 'ACTIVATED'));
  assert.deepEqual(
    { ...activated.body, id: 'x', issueUrl: 'x', createdAt: 0, updatedAt: 0 },
    {
      id: 'x', issueUrl: 'x', title: `${APP} query result is > 1 for 1 minutes on 'slow app'`, priority: 'CRITICAL', impactedEntities: [APP], totalIncidents: 1,
      state: 'ACTIVATED', trigger: 'STATE_CHANGE', isCorrelated: false, createdAt: 0, updatedAt: 0, sources: ['newrelic'], alertPolicyNames: ['e2e'],
      alertConditionNames: ['slow app'], workflowName: 'e2e on-call',
    },
  );
  const issues = (await graph(apiPort, '{ actor { account(id: 1) { aiIssues { issues { issues { issueId state priority } } incidents(filter: {states: [CREATED]}) { incidents { incidentId title } } } } } }')).actor.account.aiIssues;
  assert.deepEqual(issues.issues.issues.map((i: any) => [i.issueId, i.state, i.priority]), [[activated.body.id, 'ACTIVATED', 'CRITICAL']]);
  assert.equal(issues.incidents.incidents.length, 1);
  const severity = async () => (await graph(apiPort, `{ actor { entitySearch(query: "name = '${APP}'") { results { entities { alertSeverity } } } } }`)).actor.entitySearch.results.entities[0]?.alertSeverity;
  assert.equal(await severity(), 'CRITICAL');

  // kill -9 with the issue open; the restarted service resumes without re-opening or re-sending.
  server.kill('SIGKILL');
  await waitForExit(server, 10_000);
  server = serve(dataDir, apiPort, collectorPort);
  await healthy();
  await new Promise((r) => setTimeout(r, 8_000));
  assert.equal(await severity(), 'CRITICAL', 'the open incident survived the kill');
  assert.deepEqual(received.map((r) => r.body.state), ['ACTIVATED'], 'nothing was sent twice');

  traffic = 'fast';
  const closed = await until('the CLOSED notification', 240_000, async () => received.find((r) => r.body.state === 'CLOSED'));
  assert.deepEqual([closed.body.id, closed.body.trigger], [activated.body.id, 'INCIDENT_CLOSED']);
  assert.deepEqual(received.map((r) => r.body.state), ['ACTIVATED', 'CLOSED']);
  assert.equal(new Set(received.map((r) => r.key)).size, 2);
  assert.equal(await severity(), 'NOT_ALERTING');

  traffic = 'stop';
  await Promise.all(loops);
  app.kill('SIGKILL');
  server.kill('SIGTERM');
  await waitForExit(server, 30_000);
});
