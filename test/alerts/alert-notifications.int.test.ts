import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import { IDEMPOTENCY_HEADER } from '../../src/alerts/notifier.js';
import { graphData } from '../helpers/graph-client.js';
import { ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// Workflows deliver to webhook destinations served by a real HTTP receiver on 127.0.0.1: the default
// payload, retries on transient failures only, bounded cost for a receiver that hangs, redirects or
// answers without end, every attempt in NrAiNotification, give-ups in NrIntegrationError, and no
// repeat after a restart.

const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;

interface Received {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

async function receiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  let flaky = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, headers: req.headers, body });
      if (path === '/ok') res.writeHead(202).end('accepted');
      else if (path === '/flaky') res.writeHead(++flaky === 1 ? 503 : 200).end();
      else if (path === '/bad') res.writeHead(400).end('bad request');
      else if (path === '/redirect') res.writeHead(302, { location: '/redirect' }).end();
      else if (path === '/huge') {
        res.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024, 'x');
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      }
      // '/hang': never answers.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

async function nrql(ts: TestServer, query: string): Promise<unknown[]> {
  const data = await graphData(ts, `{ actor { account(id: 1) { nrql(query: ${JSON.stringify(query)}) { results } } } }`);
  return data.actor.account.nrql.results;
}

test('a workflow delivers each issue change once to each webhook channel, with retries only where they can help', async () => {
  const rx = await receiver();
  const clock = new ManualClock(T0);
  const ts = await startTestServer({}, { clock, alertIntervalMs: 0, alertWebhook: { timeoutMs: 400, retryDelaysMs: [20, 40], maxResponseBytes: 64 * 1024 } });
  try {
    const alerts = () => ts.server.alerts;
    const { policy } = await alerts().createPolicy(1, 'probes', 'PER_CONDITION');
    await alerts().createCondition(1, policy.id, {
      name: 'probe value', enabled: true, query: 'SELECT average(value) FROM Probe FACET host',
      signal: { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 0 },
      terms: [{ priority: 'CRITICAL', operator: 'ABOVE', threshold: 2, thresholdDuration: 120, thresholdOccurrences: 'ALL' }],
    });
    const n = alerts().notifications;
    const paths = ['/ok', '/flaky', '/bad', '/hang', '/redirect', '/huge'];
    const channelIds: string[] = [];
    for (const path of paths) {
      const destination = await n.saveDestination(1, { name: `rx${path}`, type: 'WEBHOOK', properties: [{ key: 'url', value: rx.url + path }], auth: { type: 'BASIC', basic: { user: 'nr', password: 's3cr3t' } } });
      assert.deepEqual(destination.errors, []);
      const channel = await n.saveChannel(1, { name: `ch${path}`, type: 'WEBHOOK', product: 'IINT', destinationId: destination.value!.id, properties: [] });
      channelIds.push(channel.value!.id);
    }
    const workflow = await n.saveWorkflow(1, {
      name: 'probe on-call', mutingRulesHandling: 'NOTIFY_ALL_ISSUES',
      issuesFilter: { name: 'probes', type: 'FILTER', predicates: [{ attribute: 'labels.policyIds', operator: 'EXACTLY_MATCHES', values: [policy.id] }] },
      destinationConfigurations: channelIds.map((channelId) => ({ channelId, notificationTriggers: ['ACTIVATED', 'CLOSED'] })),
    });
    assert.deepEqual(workflow.errors, []);
    const dup = await n.saveWorkflow(1, { name: 'again', mutingRulesHandling: 'NOTIFY_ALL_ISSUES', destinationConfigurations: [{ channelId: channelIds[0]! }] });
    assert.equal(dup.errors[0]?.type, 'DUPLICATE');

    const rows = new Rows(CUSTOM_EVENTS);
    for (const [minute, value] of [[0, 1], [1, 3], [2, 3], [3, 3]] as const) rows.push(1, 0, 0, 0, T0 + minute * MIN + 5_000, 'Probe', JSON.stringify({ host: 'host-a', value }));
    await ts.server.writer.write([rows]);
    clock.ms = T0 + 4 * MIN;
    const started = performance.now();
    await alerts().evaluateOnce();
    await alerts().flushNotifications();
    const elapsed = performance.now() - started;
    // Three attempts at most for the hanging receiver, 400 ms each, plus the backoff: bounded.
    assert.ok(elapsed < 3_000, `delivery took ${elapsed} ms`);

    const byPath = (path: string) => rx.received.filter((r) => r.path === path);
    assert.deepEqual(paths.map((p) => byPath(p).length), [1, 2, 1, 3, 1, 1], 'attempts per receiver: retried only on 503 and no answer');
    const ok = byPath('/ok')[0]!;
    const body = JSON.parse(ok.body);
    const [issue] = await ts.server.store.alerts.issues(1, T0, T0 + 10 * MIN);
    assert.deepEqual(body, {
      id: issue!.id, issueUrl: `${new URL(ts.server.apiUrl).origin}/accounts/1/issues/${issue!.id}?notifier=WEBHOOK`,
      title: "host-a query result is > 2 for 2 minutes on 'probe value'", priority: 'CRITICAL', impactedEntities: ['host-a'], totalIncidents: 1,
      state: 'ACTIVATED', trigger: 'STATE_CHANGE', isCorrelated: false, createdAt: T0 + 4 * MIN, updatedAt: T0 + 4 * MIN, sources: ['newrelic'],
      alertPolicyNames: ['probes'], alertConditionNames: ['probe value'], workflowName: 'probe on-call',
    });
    assert.equal(ok.headers.authorization, `Basic ${Buffer.from('nr:s3cr3t').toString('base64')}`);
    assert.equal(ok.headers[IDEMPOTENCY_HEADER], `${issue!.id}|${channelIds[0]}|STATE_CHANGE|${T0 + 4 * MIN}`);

    const log = await ts.server.store.alerts.notificationLog(1);
    assert.deepEqual(log.map((e) => [e.channelId, e.status, e.attempts]), [
      [channelIds[0], 'SENT', 1], [channelIds[1], 'SENT', 2], [channelIds[2], 'FAILED', 1], [channelIds[3], 'FAILED', 3], [channelIds[4], 'FAILED', 1], [channelIds[5], 'SENT', 1],
    ]);
    assert.deepEqual(await nrql(ts, `SELECT count(*) FROM NrAiNotification FACET status SINCE ${T0} UNTIL ${T0 + 10 * MIN}`), [
      { facet: 'Failed', status: 'Failed', count: 6 }, { facet: 'Sent', status: 'Sent', count: 3 },
    ]);
    assert.deepEqual(await nrql(ts, `SELECT count(*) FROM NrIntegrationError WHERE category = 'NotificationError' SINCE ${T0} UNTIL ${T0 + 10 * MIN}`), [{ count: 3 }]);
    assert.deepEqual(await nrql(ts, `SELECT count(*) FROM NrAiIncident FACET event SINCE ${T0} UNTIL ${T0 + 10 * MIN}`), [{ facet: 'open', event: 'open', count: 1 }]);

    // A restart sends nothing again.
    await ts.restart();
    await ts.server.alerts.flushNotifications();
    assert.equal(rx.received.length, 9);

    // Recovery closes the issue: one CLOSED notification per channel that takes CLOSED.
    const more = new Rows(CUSTOM_EVENTS);
    for (const minute of [4, 5, 6]) more.push(1, 0, 0, 0, T0 + minute * MIN + 5_000, 'Probe', JSON.stringify({ host: 'host-a', value: 1 }));
    await ts.server.writer.write([more]);
    clock.ms = T0 + 7 * MIN;
    await ts.server.alerts.evaluateOnce();
    await ts.server.alerts.flushNotifications();
    const closed = JSON.parse(byPath('/ok')[1]!.body);
    assert.deepEqual([closed.state, closed.trigger, closed.id], ['CLOSED', 'INCIDENT_CLOSED', issue!.id]);
  } finally {
    await ts.stop();
    rx.server.closeAllConnections();
    await new Promise((resolve) => rx.server.close(resolve));
  }
});
