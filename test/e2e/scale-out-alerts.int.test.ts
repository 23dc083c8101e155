/**
 * Alerting on the scale-out setup, in real time: two `timeslice serve` processes on a two-shard
 * ClickHouse cluster and one PostgreSQL. A condition and a webhook workflow are made through the node
 * not holding the background lease; events go to that node too. The holder evaluates the shared data,
 * opens an issue and notifies once. It is then killed with SIGKILL: the other node takes the lease,
 * carries the same issue on without a second ACTIVATED notification, and sends its CLOSED one once
 * when the values fall.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import pg from 'pg';
import { clickhouseMissing, startClickHouseCluster } from '../helpers/clickhouse.js';
import { startPostgres } from '../helpers/postgres.js';
import { TEST_API_KEY, TEST_LICENSE_KEY } from '../helpers/test-server.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

interface Node { child: ChildProcess; apiUrl: string; dataDir: string }

async function serveNode(env: Record<string, string>): Promise<Node> {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-alert-node-'));
  const child = spawn(process.execPath, ['bin/timeslice.js', 'serve', '--host', '127.0.0.1', '--port', '0', '--collector-port', '0', '--data', dataDir], {
    cwd: repoRoot,
    env: { ...process.env, ...env, TIMESLICE_LICENSE_KEY: TEST_LICENSE_KEY, TIMESLICE_API_KEY: TEST_API_KEY, TIMESLICE_LOG_LEVEL: 'error', TIMESLICE_ALERT_EVERY_MS: '2000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  while (!/API:\s+(http:\/\/\S+)/.test(out) || !out.includes('Read it back')) {
    assert.equal(child.exitCode, null, out);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, dataDir, apiUrl: /API:\s+(http:\/\/\S+)/.exec(out)![1]!.replace(/\/$/, '') };
}

async function graph(node: Node, query: string, variables?: unknown): Promise<any> {
  const res = await fetch(`${node.apiUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'api-key': TEST_API_KEY }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: any; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('on two shards and PostgreSQL, kill -9 of the node evaluating alerts: the other carries the issue on, each notification once', { skip: clickhouseMissing(), timeout: 360_000 }, async (t) => {
  const [pgServer, cluster] = await Promise.all([startPostgres(), startClickHouseCluster('two')]);
  const received: { state: string; id: string; key: string }[] = [];
  const rx: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(text) as { state: string; id: string };
      received.push({ state: body.state, id: body.id, key: String(req.headers['x-timeslice-idempotency-key']) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => rx.listen(0, '127.0.0.1', r));
  const nodes: Node[] = [];
  let sending = true;
  let sender: Promise<void> = Promise.resolve();
  const admin = new pg.Client({ connectionString: await pgServer.createDatabase('alerting') });
  t.after(async () => {
    sending = false;
    await sender;
    for (const n of nodes) {
      if (n.child.exitCode === null && n.child.signalCode === null) {
        n.child.kill('SIGTERM');
        await Promise.race([once(n.child, 'exit'), new Promise((r) => setTimeout(r, 15_000))]);
        if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
      }
      await rm(n.dataDir, { recursive: true, force: true });
    }
    rx.closeAllConnections();
    await new Promise((r) => rx.close(r));
    await admin.end().catch(() => undefined);
    await cluster.stop();
    await pgServer.stop();
  });
  const [a, b] = cluster.shards;
  const env = { TIMESLICE_STORE: `clickhouse://127.0.0.1:${a!.httpPort},127.0.0.1:${b!.httpPort}/alerting?cluster=two`, TIMESLICE_CATALOG: pgServer.url('alerting') };
  nodes.push(await serveNode(env));
  nodes.push(await serveNode(env));
  await admin.connect();
  const holderPid = async () => {
    const row = (await admin.query("SELECT holder FROM background_leases WHERE name = 'background' AND expires_at > now()")).rows[0] as { holder: string } | undefined;
    return row === undefined ? undefined : Number(row.holder.split('/')[1]);
  };
  const holder = await until("a lease holder", 10_000, async () => { const pid = await holderPid(); return nodes.find((n) => n.child.pid === pid); });
  const other = nodes.find((n) => n !== holder)!;

  // Configured through the node not holding the lease.
  const policyId = (await graph(other, 'mutation { alertsPolicyCreate(accountId: 1, policy: {name: "shards", incidentPreference: PER_CONDITION}) { id } }')).alertsPolicyCreate.id;
  await graph(other, `mutation($c: AlertsNrqlConditionStaticInput!) { alertsNrqlConditionStaticCreate(accountId: 1, policyId: "${policyId}", condition: $c) { id } }`, {
    c: {
      name: 'probe value', enabled: true, nrql: { query: 'SELECT average(value) FROM Probe' },
      signal: { aggregationWindow: 30, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 0 },
      terms: [{ priority: 'CRITICAL', operator: 'ABOVE', threshold: 2, thresholdDuration: 60, thresholdOccurrences: 'ALL' }],
    },
  });
  const port = (rx.address() as AddressInfo).port;
  const destinationId = (await graph(other, `mutation { aiNotificationsCreateDestination(accountId: 1, destination: {name: "rx", type: WEBHOOK, properties: [{key: "url", value: "http://127.0.0.1:${port}/hook"}]}) { destination { id } } }`)).aiNotificationsCreateDestination.destination.id;
  const channelId = (await graph(other, `mutation { aiNotificationsCreateChannel(accountId: 1, channel: {name: "rx", type: WEBHOOK, product: IINT, destinationId: "${destinationId}", properties: []}) { channel { id } } }`)).aiNotificationsCreateChannel.channel.id;
  const workflow = await graph(other, `mutation { aiWorkflowsCreateWorkflow(accountId: 1, createWorkflowData: {name: "on-call", mutingRulesHandling: NOTIFY_ALL_ISSUES, destinationConfigurations: [{channelId: "${channelId}", notificationTriggers: [ACTIVATED, CLOSED]}]}) { workflow { id } errors { type } } }`);
  assert.deepEqual(workflow.aiWorkflowsCreateWorkflow.errors, []);

  // Probe events through the Event API of the node not holding the lease, every 500 ms: 5 (breaching), then 1.
  let value = 5;
  sender = (async () => {
    while (sending) {
      const res = await fetch(`${other.apiUrl}/v1/accounts/1/events`, {
        method: 'POST', headers: { 'x-insert-key': TEST_LICENSE_KEY, 'content-type': 'application/json' },
        body: JSON.stringify([{ eventType: 'Probe', value, timestamp: Date.now() }]),
      }).catch(() => undefined);
      if (res) {
        await res.text();
        assert.ok(res.status === 200 || res.status === 202, `the Event API answered ${res.status}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  })();

  const activated = await until('the ACTIVATED notification', 150_000, () => received.find((r) => r.state === 'ACTIVATED'));
  holder.child.kill('SIGKILL');
  await once(holder.child, 'exit');
  const killed = Date.now();
  await until('the lease on the other node', 10_000, async () => ((await holderPid()) === other.child.pid ? true : undefined));
  t.diagnostic(`lease moved ${Date.now() - killed} ms after kill -9`);
  // Still breaching for a while on the new holder: the same issue stays open, nothing is sent again.
  await new Promise((r) => setTimeout(r, 10_000));
  assert.deepEqual(received.map((r) => r.state), ['ACTIVATED'], 'the new holder sent nothing again');
  const open = (await graph(other, '{ actor { account(id: 1) { aiIssues { issues { issues { issueId state } } } } } }')).actor.account.aiIssues.issues.issues;
  assert.deepEqual(open.map((i: { issueId: string; state: string }) => [i.issueId, i.state]), [[activated.id, 'ACTIVATED']]);

  value = 1;
  const closed = await until('the CLOSED notification', 150_000, () => received.find((r) => r.state === 'CLOSED'));
  assert.equal(closed.id, activated.id, 'the issue the first holder opened is the one closed');
  await new Promise((r) => setTimeout(r, 3_000));
  assert.deepEqual(received.map((r) => r.state), ['ACTIVATED', 'CLOSED']);
  assert.equal(new Set(received.map((r) => r.key)).size, 2);
});
