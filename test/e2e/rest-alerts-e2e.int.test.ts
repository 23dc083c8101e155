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

// Issue 15's end-to-end scenario with real parts: `timeslice serve` as a process, an app under the real
// `newrelic` agent, an apm_app_metric error_percentage condition and a webhook channel made through REST v2,
// a receiver on 127.0.0.1. Requests that fail (HTTP 500) are driven until a violation opens; the test sees it
// in alerts_violations, alerts_incidents and alerts_events, receives the legacy webhook payload, acknowledges
// and closes the incident through REST, and reads the same state through NerdGraph.

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../../../test/e2e/fixtures/agent-app.cjs', import.meta.url));
const LICENSE = 'b1c2d3e4f5a60718293a4b5c6d7e8f9012345678';
const API_KEY = 'NRAK-RESTALERTSE2E0000000000000';
const APP = 'rest-alerting-app';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
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

test('an error_percentage condition and a webhook channel made through REST: violation, legacy webhook, ack and close', { timeout: 480_000 }, async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-rest-alerts-e2e-'));
  const received: any[] = [];
  const receiver: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      received.push(JSON.parse(text));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const [apiPort, collectorPort] = [await freePort(), await freePort()];
  const server: ChildProcess = spawn(process.execPath, ['bin/timeslice.js', 'serve', '--port', String(apiPort), '--collector-port', String(collectorPort), '--data', dataDir], {
    cwd: repoRoot,
    env: { ...process.env, TIMESLICE_LICENSE_KEY: LICENSE, TIMESLICE_API_KEY: API_KEY, TIMESLICE_ALERT_EVERY_MS: '2000', TIMESLICE_MEMORY_LIMIT: '256MB' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let app: ChildProcess | undefined;
  let traffic: 'error' | 'fast' | 'stop' = 'error';
  t.after(async () => {
    traffic = 'stop';
    if (app && app.exitCode === null) app.kill('SIGKILL');
    if (server.exitCode === null) server.kill('SIGKILL');
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    await rm(dataDir, { recursive: true, force: true });
  });
  const api = `http://127.0.0.1:${apiPort}`;
  const restCall = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const res = await fetch(`${api}${path}`, {
      method, headers: { 'x-api-key': API_KEY, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: await res.json() };
  };
  const graph = async (query: string): Promise<any> => {
    const res = await fetch(`${api}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'api-key': API_KEY }, body: JSON.stringify({ query }) });
    const body = (await res.json()) as { data?: any; errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  await until('the service', 30_000, async () => ((await fetch(`${api}/healthz`)).status === 200 ? true : undefined));

  app = fork(FIXTURE, [], {
    execArgv: ['-r', 'newrelic'],
    env: {
      ...process.env, NEW_RELIC_APP_NAME: APP, NEW_RELIC_LICENSE_KEY: LICENSE, NEW_RELIC_HOST: 'localhost', NEW_RELIC_PORT: String(collectorPort),
      NODE_EXTRA_CA_CERTS: join(dataDir, 'tls/cert.pem'), NEW_RELIC_NO_CONFIG_FILE: 'true', NEW_RELIC_LOG: join(dataDir, 'agent.log'), NEW_RELIC_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ port: number; appId: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the agent did not connect within 60 s')), 60_000);
    app!.once('message', (m: { port: number; appId: number }) => { clearTimeout(timer); resolve(m); });
  });
  const appId = Number(ready.appId);

  // Policy, condition and channel through REST v2, as an older script or Terraform resource makes them.
  const policy = await restCall('POST', '/v2/alerts_policies.json', { policy: { name: 'rest e2e', incident_preference: 'PER_CONDITION' } });
  assert.equal(policy.status, 201);
  const condition = await restCall('POST', `/v2/alerts_conditions/policies/${policy.json.policy.id}.json`, {
    condition: {
      type: 'apm_app_metric', name: 'errors high', enabled: true, entities: [String(appId)], metric: 'error_percentage', condition_scope: 'application',
      runbook_url: 'https://runbooks.example.test/errors', terms: [{ duration: '1', operator: 'above', priority: 'critical', threshold: '50', time_function: 'all' }],
    },
  });
  assert.equal(condition.status, 201, JSON.stringify(condition.json));
  const port = (receiver.address() as AddressInfo).port;
  const channel = await restCall('POST', `/v2/alerts_channels.json?policy_ids=${policy.json.policy.id}`, {
    channel: { name: 'pager bridge', type: 'webhook', configuration: { base_url: `http://127.0.0.1:${port}/hook`, payload_type: 'application/json' } },
  });
  assert.equal(channel.status, 201);

  // Four failing requests in flight at all times.
  let n = 0;
  const loops = Array.from({ length: 4 }, async () => {
    while (traffic !== 'stop') await hit(ready.port, `/${traffic}/${n++}`);
  });

  const violation = await until('a violation in alerts_violations', 360_000, async () => {
    const list = (await restCall('GET', '/v2/alerts_violations.json?only_open=true')).json.violations as any[];
    return list.find((v) => v.condition_name === 'errors high');
  });
  assert.deepEqual(
    { ...violation, id: 0, duration: 0, opened_at: 0, links: { ...violation.links, incident_id: 0 } },
    {
      id: 0, label: `${APP} query result is > 50 for 1 minutes on 'errors high'`, duration: 0, policy_name: 'rest e2e', condition_name: 'errors high',
      priority: 'Critical', opened_at: 0, entity: { product: 'Apm', type: 'Application', group_id: appId, id: appId, name: APP },
      links: { policy_id: policy.json.policy.id, condition_id: condition.json.condition.id, incident_id: 0 },
    },
  );
  const incidentId = violation.links.incident_id as number;
  const incidents = (await restCall('GET', '/v2/alerts_incidents.json?only_open=true')).json.incidents as any[];
  assert.deepEqual(incidents.find((i) => i.id === incidentId), {
    id: incidentId, opened_at: incidents.find((i) => i.id === incidentId).opened_at, incident_preference: 'PER_CONDITION',
    links: { violations: [violation.id], policy_id: policy.json.policy.id },
  });
  const events = (await restCall('GET', `/v2/alerts_events.json?filter[incident_id]=${incidentId}`)).json.recent_events as any[];
  assert.deepEqual(events.map((e) => e.event_type).sort(), ['INCIDENT_OPEN', 'VIOLATION_OPEN']);
  assert.deepEqual(events.find((e) => e.event_type === 'VIOLATION_OPEN')!.timestamp, violation.opened_at);

  const opened = await until('the legacy webhook (open)', 60_000, async () => received.find((r) => r.current_state === 'open'));
  assert.deepEqual(
    { ...opened, duration: 0, timestamp: 0, timestamp_utc_string: '', account_name: '' },
    {
      account_id: 1, account_name: '', closed_violations_count_critical: 0, closed_violations_count_warning: 0, condition_description: '',
      condition_family_id: condition.json.condition.id, condition_id: condition.json.condition.id, condition_name: 'errors high', current_state: 'open',
      details: violation.label, duration: 0, event_type: 'INCIDENT', incident_acknowledge_url: `${api}/accounts/1/incidents/${incidentId}/acknowledge`,
      incident_id: incidentId, incident_url: `${api}/accounts/1/incidents/${incidentId}`, open_violations_count_critical: 1, open_violations_count_warning: 0,
      owner: '', policy_name: 'rest e2e', policy_url: `${api}/accounts/1/policies/${policy.json.policy.id}`, runbook_url: 'https://runbooks.example.test/errors',
      severity: 'CRITICAL', targets: [{ id: String(appId), name: APP, link: `${api}/v2/applications/${appId}.json`, labels: {}, product: 'APM', type: 'Application' }],
      timestamp: 0, timestamp_utc_string: '', violation_callback_url: `${api}/accounts/1/incidents/${incidentId}`, violation_chart_url: `${api}/accounts/1/incidents/${incidentId}`,
    },
  );

  const ack = await restCall('PUT', `/v2/alerts_incidents/${incidentId}/acknowledge.json`);
  assert.equal(ack.status, 200);
  const acked = await until('the legacy webhook (acknowledged)', 30_000, async () => received.find((r) => r.current_state === 'acknowledged'));
  assert.equal(acked.incident_id, incidentId);
  assert.notEqual(acked.owner, '');
  traffic = 'fast';
  const close = await restCall('PUT', `/v2/alerts_incidents/${incidentId}/close.json`);
  assert.equal(close.status, 200);
  const closedAt = close.json.incident.closed_at as number;
  assert.equal(typeof closedAt, 'number');
  const closed = await until('the legacy webhook (closed)', 30_000, async () => received.find((r) => r.current_state === 'closed'));
  assert.deepEqual([closed.incident_id, closed.open_violations_count_critical, closed.closed_violations_count_critical, closed.timestamp], [incidentId, 0, 1, closedAt]);

  // The same state through NerdGraph.
  const graphState = (await graph(`{ actor { account(id: 1) { aiIssues {
    issues(filter: {policyIds: [${policy.json.policy.id}]}) { issues { issueId state priority closedAt acknowledgedAt acknowledgedBy createdAt incidentIds } }
    incidents { incidents { incidentId issueId state closedAt createdAt title } } } } } }`)).actor.account.aiIssues;
  const restIncident = (await restCall('GET', '/v2/alerts_incidents.json')).json.incidents.find((i: any) => i.id === incidentId);
  const issue = graphState.issues.issues.find((i: any) => i.createdAt === restIncident.opened_at);
  assert.ok(issue, 'NerdGraph shows the REST incident');
  assert.deepEqual([issue.state, issue.priority, issue.closedAt, issue.acknowledgedBy, issue.incidentIds.length], ['CLOSED', 'CRITICAL', closedAt, acked.owner, 1]);
  const ackEvent = (await restCall('GET', `/v2/alerts_events.json?filter[incident_id]=${incidentId}&filter[event_type]=INCIDENT_ACKNOWLEDGED`)).json.recent_events;
  assert.deepEqual(ackEvent.map((e: any) => e.timestamp), [issue.acknowledgedAt]);
  const graphIncident = graphState.incidents.incidents.find((i: any) => i.incidentId === issue.incidentIds[0]);
  assert.deepEqual([graphIncident.state, graphIncident.closedAt, graphIncident.createdAt, graphIncident.title], ['CLOSED', closedAt, violation.opened_at, violation.label]);
  const closedViolation = (await restCall('GET', '/v2/alerts_violations.json')).json.violations.find((v: any) => v.id === violation.id);
  assert.equal(closedViolation.closed_at, closedAt);

  traffic = 'stop';
  await Promise.all(loops);
  app.kill('SIGKILL');
  server.kill('SIGTERM');
  await waitForExit(server, 30_000);
});
