/**
 * Alerting moves with the background lease: two nodes share alert state in PostgreSQL (each fed the
 * same probe data, as a shared data store would give them). Configuration made through the node not
 * holding the lease reaches the holder; the holder opens an issue and notifies; when it stops, the
 * other node takes the lease, reloads the state the first one left, and carries the same issue on:
 * no second ACTIVATED notification, and its CLOSED one once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import { ManualClock } from '../helpers/rest-fixture.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

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
