/**
 * Alerting moves with the background lease: two nodes share alert state in PostgreSQL (each fed the
 * same probe data, as a shared data store would give them). Configuration made through the node not
 * holding the lease reaches the holder; the holder opens an issue and notifies; when it stops, the
 * other node takes the lease, reloads the state the first one left, and carries the same issue on:
 * no second ACTIVATED notification, and its CLOSED one once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import { PgAlertRecords } from '../../src/store/postgres/pg-alert-records.js';
import { openPostgresDatabase } from '../../src/store/postgres/pg-database.js';
import { ManualClock } from '../helpers/rest-fixture.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;

let pgServer: TestPostgres;
before(async () => {
  pgServer = await startPostgres();
});
after(async () => {
  await pgServer?.stop();
});

async function until(what: () => boolean, withinMs: number): Promise<number> {
  const started = performance.now();
  while (!what()) {
    if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now() - started;
}

async function probes(nodes: readonly TestServer[], values: ReadonlyArray<[minute: number, value: number]>): Promise<void> {
  for (const node of nodes) {
    const rows = new Rows(CUSTOM_EVENTS);
    for (const [minute, value] of values) rows.push(1, 0, 0, 0, T0 + minute * MIN + 5_000, 'Probe', JSON.stringify({ host: 'host-a', value }));
    await node.server.writer.write([rows]);
  }
}

test('the node taking the lease over carries the open issue on: it notifies once, and closes it once', { timeout: 60_000 }, async () => {
  const received: { state: string; id: string }[] = [];
  const rx: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { state: string; id: string };
      received.push({ state: parsed.state, id: parsed.id });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => rx.listen(0, '127.0.0.1', resolve));
  const url = await pgServer.createDatabase('alert_takeover');
  const clock = new ManualClock(T0);
  const nodes: TestServer[] = [];
  try {
    nodes.push(await startTestServer({ TIMESLICE_CATALOG: url }, { clock, alertIntervalMs: 0 }));
    const a = nodes[0]!;
    await until(() => a.server.store.lease.held(), 5000);
    nodes.push(await startTestServer({ TIMESLICE_CATALOG: url }, { clock, alertIntervalMs: 0 }));
    const b = nodes[1]!;
    assert.equal(b.server.store.lease.held(), false);

    // Configured through the node not holding the lease: policy, condition, a webhook workflow.
    const { policy } = await b.server.alerts.createPolicy(1, 'probes', 'PER_CONDITION');
    await b.server.alerts.createCondition(1, policy.id, {
      name: 'probe value', enabled: true, query: 'SELECT average(value) FROM Probe FACET host',
      signal: { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 0 },
      terms: [{ priority: 'CRITICAL', operator: 'ABOVE', threshold: 2, thresholdDuration: 120, thresholdOccurrences: 'ALL' }],
    });
    const n = b.server.alerts.notifications;
    const destination = await n.saveDestination(1, { name: 'rx', type: 'WEBHOOK', properties: [{ key: 'url', value: `http://127.0.0.1:${(rx.address() as AddressInfo).port}/ok` }] });
    const channel = await n.saveChannel(1, { name: 'ch', type: 'WEBHOOK', product: 'IINT', destinationId: destination.value!.id, properties: [] });
    const workflow = await n.saveWorkflow(1, {
      name: 'on-call', mutingRulesHandling: 'NOTIFY_ALL_ISSUES',
      destinationConfigurations: [{ channelId: channel.value!.id, notificationTriggers: ['ACTIVATED', 'CLOSED'] }],
    });
    assert.deepEqual(workflow.errors, []);
    const seenMs = await until(() => a.server.alerts.conditions(1).length === 1 && a.server.alerts.notifier.workflows.size === 1, 2000);
    assert.ok(seenMs < 1000, `the holder saw the configuration after ${seenMs} ms`);

    // The holder opens the issue and notifies.
    await probes(nodes, [[0, 1], [1, 3], [2, 3], [3, 3]]);
    clock.ms = T0 + 4 * MIN;
    await a.server.alerts.evaluateOnce();
    await a.server.alerts.flushNotifications();
    assert.deepEqual(received.map((r) => r.state), ['ACTIVATED']);
    const issueId = received[0]!.id;

    // The holder stops; the other node takes the lease and reloads what the first one left.
    await a.stop();
    nodes.shift();
    await until(() => b.server.store.lease.held(), 5000);
    await until(() => b.server.alerts.alertSeverity(1, { names: ['host-a'] }) === 'CRITICAL', 5000);

    // Still breaching: the same open issue, nothing new to send.
    await probes([b], [[4, 3]]);
    clock.ms = T0 + 5 * MIN;
    await b.server.alerts.evaluateOnce();
    await b.server.alerts.flushNotifications();
    assert.deepEqual(received.map((r) => r.state), ['ACTIVATED']);

    // Recovery: the issue closes, and its CLOSED notification goes out once, for the same issue.
    await probes([b], [[5, 1], [6, 1], [7, 1]]);
    clock.ms = T0 + 8 * MIN;
    await b.server.alerts.evaluateOnce();
    await b.server.alerts.flushNotifications();
    assert.deepEqual(received, [{ state: 'ACTIVATED', id: issueId }, { state: 'CLOSED', id: issueId }]);
    const log = await b.server.store.alerts.notificationLog(1);
    assert.deepEqual(log.map((e) => [e.issueId, e.state, e.status, e.attempts]), [[issueId, 'ACTIVATED', 'SENT', 1], [issueId, 'CLOSED', 'SENT', 1]]);
  } finally {
    for (const node of nodes) await node.stop();
    await new Promise((resolve) => rx.close(resolve));
  }
});

test('kill -9 of the holder with a notification committed and not yet sent: the node taking over sends it once', { timeout: 60_000 }, async () => {
  const received: string[] = [];
  const rx: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push(body);
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => rx.listen(0, '127.0.0.1', resolve));
  const url = await pgServer.createDatabase('alert_kill');
  const dataDir = mkdtempSync(join(tmpdir(), 'timeslice-alert-kill-'));
  const child = spawn(process.execPath, ['bin/timeslice.js', 'serve', '--port', '0', '--collector-port', '0', '--data', dataDir, '--catalog', url], {
    cwd: repoRoot,
    env: { ...process.env, TIMESLICE_LICENSE_KEY: TEST_LICENSE_KEY, TIMESLICE_API_KEY: TEST_API_KEY, TIMESLICE_MEMORY_LIMIT: '256MB', TIMESLICE_ALERT_EVERY_MS: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const nodes: TestServer[] = [];
  const db = await openPostgresDatabase(url);
  const watcher = new pg.Client({ connectionString: url });
  try {
    let out = '';
    child.stdout!.on('data', (d) => { out += d; });
    await until(() => /NEW_RELIC_PORT=(\d+)/.test(out) || child.exitCode !== null, 30_000);
    assert.equal(child.exitCode, null, out);
    await watcher.connect();
    const started = performance.now();
    while (((await watcher.query('SELECT 1 FROM background_leases WHERE expires_at > now()')).rowCount ?? 0) === 0) {
      assert.ok(performance.now() - started < 5000, 'the child took no lease');
      await new Promise((r) => setTimeout(r, 50));
    }
    nodes.push(await startTestServer({ TIMESLICE_CATALOG: url }, { alertIntervalMs: 0 }));
    const survivor = nodes[0]!;
    assert.equal(survivor.server.store.lease.held(), false);

    // Configured through the survivor (not holding the lease).
    const n = survivor.server.alerts.notifications;
    const destination = await n.saveDestination(1, { name: 'rx', type: 'WEBHOOK', properties: [{ key: 'url', value: `http://127.0.0.1:${(rx.address() as AddressInfo).port}/` }] });
    const channel = await n.saveChannel(1, { name: 'ch', type: 'WEBHOOK', product: 'IINT', destinationId: destination.value!.id, properties: [] });
    const workflow = await n.saveWorkflow(1, { name: 'on-call', mutingRulesHandling: 'NOTIFY_ALL_ISSUES', destinationConfigurations: [{ channelId: channel.value!.id }] });
    assert.deepEqual(workflow.errors, []);
    await new Promise((r) => setTimeout(r, 500));

    // What the holder's last cycle committed: an issue's notification, in the outbox, not yet sent.
    const key = `issue-1|${channel.value!.id}|STATE_CHANGE|1795700000000`;
    await new PgAlertRecords(db).commit({
      evaluatorStates: new Map(), incidents: [], issues: [],
      outbox: [{
        key, accountId: 1, issueId: 'issue-1', channelId: channel.value!.id, workflowId: workflow.value!.id, workflowName: 'on-call',
        state: 'ACTIVATED', trigger: 'STATE_CHANGE', notificationTrigger: 'ACTIVATED', body: '{"id":"issue-1","state":"ACTIVATED"}', createdAt: 1795700000000,
      }],
    });
    child.kill('SIGKILL');
    await once(child, 'exit');
    assert.deepEqual(received, [], 'the holder died before sending');

    const tookMs = await until(() => survivor.server.store.lease.held(), 15_000);
    assert.ok(tookMs <= 8_500, `took over ${Math.round(tookMs)} ms after the kill`);
    await until(() => received.length === 1, 5000);
    // A node starting now, and the survivor sending again, send nothing more.
    nodes.push(await startTestServer({ TIMESLICE_CATALOG: url }, { alertIntervalMs: 0 }));
    await survivor.server.alerts.flushNotifications();
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual(received, ['{"id":"issue-1","state":"ACTIVATED"}']);
    const log = await survivor.server.store.alerts.notificationLog(1);
    assert.deepEqual(log.map((e) => [e.key, e.status, e.attempts]), [[key, 'SENT', 1]]);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    for (const node of nodes) await node.stop();
    await watcher.end().catch(() => undefined);
    await db.close();
    await new Promise((resolve) => rx.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
});
