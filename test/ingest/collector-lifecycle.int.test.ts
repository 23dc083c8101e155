import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { agentQuery, connectAgent, invoke, replyJson, type CollectorReply } from '../helpers/collector-client.js';
import { sample, withRunId } from '../helpers/samples.js';
import { startTestServer, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

type Obj = Record<string, unknown>;
type MetricEntry = [{ name: string; scope?: string }, number[]];

let ts: TestServer;
let runA: string;
let runB: string;
let appId: number;

const data = (run: string, method: string, body: unknown) =>
  invoke(ts.server, { query: agentQuery(method, TEST_LICENSE_KEY, run), body: withRunId(body, run) });

function assertOk(reply: CollectorReply): void {
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(replyJson(reply), { return_value: null });
}

function assertRunRefused(reply: CollectorReply, run: string): void {
  assert.equal(reply.status, 409, reply.text);
  const body = replyJson(reply) as { exception: { message: string; error_type: string } };
  assert.ok(body.exception.message.includes(run), body.exception.message);
  assert.equal(body.exception.error_type, 'NewRelic::Agent::ForceRestartException');
}

async function count(table: string): Promise<number> {
  const [row] = await ts.server.db.all<{ n: bigint }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(row!.n);
}

const harvests = ['metric_data', 'metric_data-first-harvest'].map((name) => (sample(name).body as [string, number, number, MetricEntry[]])[3]);

/** The timeslices stored, as [name, scope, six numbers, minute ms], sorted; and what the given harvests make. */
async function timeslices(): Promise<unknown[][]> {
  const rows = await ts.server.db.all<Obj>(`
    SELECT n.name, coalesce(s.name, '') AS scope, t.call_count, t.total, t.exclusive, t.min, t.max, t.sum_of_squares, epoch_ms(t.ts) AS ts
    FROM timeslices t JOIN metric_names n ON n.id = t.metric_id LEFT JOIN metric_names s ON s.id = t.scope_id AND t.scope_id <> 0`);
  return rows.map((r) => [r.name, r.scope, r.call_count, r.total, r.exclusive, r.min, r.max, r.sum_of_squares, Number(r.ts)]).sort(compare);
}
function expectedTimeslices(lists: MetricEntry[][]): unknown[][] {
  // Both harvests (03:42:12-03:42:14 and 03:42:14-03:43:14) are filed under the minute 03:42.
  return lists.flat().map(([spec, v]) => [spec.name, spec.scope ?? '', ...v, Date.UTC(2026, 10, 22, 3, 42)]).sort(compare);
}
function compare(a: unknown[], b: unknown[]): number {
  return JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0;
}

before(async () => {
  ts = await startTestServer();
  const connect = sample('connect-request').body;
  const a = await connectAgent(ts.server, TEST_LICENSE_KEY, connect);
  runA = a.runId;
  appId = Number(a.connectReply.application_id);
  runB = (await connectAgent(ts.server, TEST_LICENSE_KEY, connect)).runId;
});

after(async () => {
  await ts?.stop();
});

test('each connect opens its own run, for the same application and instance', async () => {
  assert.notEqual(runA, runB);
  const runs = await ts.server.db.all<Obj>('SELECT run_id, primary_app_id, targets FROM agent_runs ORDER BY connected_at, run_id');
  assert.equal(runs.length, 2);
  assert.deepEqual(new Set(runs.map((r) => r.run_id)), new Set([runA, runB]));
  assert.deepEqual(runs.map((r) => r.primary_app_id), [appId, appId]);
  assert.equal(runs[0]!.targets, runs[1]!.targets);
  assert.equal(await count('applications'), 1);
  assert.equal(await count('instances'), 1);
});

test('data sent on a run is stored', async () => {
  assertOk(await data(runA, 'metric_data', sample('metric_data').body));
  assertOk(await data(runA, 'custom_event_data', sample('custom_event_data').body));
  assertOk(await data(runB, 'error_event_data', sample('error_event_data').body));
  assert.deepEqual(await timeslices(), expectedTimeslices([harvests[0]!]));
  assert.equal(await count('custom_events'), 10);
  assert.equal(await count('error_events'), 24);
});

test('after shutdown the run is refused with 409; other runs carry on', async () => {
  const shutdown = sample('shutdown');
  assert.deepEqual(shutdown.body, []);
  assertOk(await data(runB, 'shutdown', shutdown.body));
  assertRunRefused(await data(runB, 'metric_data', sample('metric_data-final-harvest').body), runB);
  assertRunRefused(await data(runB, 'error_event_data', sample('error_event_data-noticed').body), runB);
  assertRunRefused(await data(runB, 'shutdown', []), runB);
  assert.equal(await count('error_events'), 24);
  assert.equal(await count('timeslices'), harvests[0]!.length);
  const [b] = await ts.server.db.all<Obj>('SELECT shutdown_at IS NOT NULL AS down FROM agent_runs WHERE run_id = $1', [runB]);
  const [a] = await ts.server.db.all<Obj>('SELECT shutdown_at IS NOT NULL AS down FROM agent_runs WHERE run_id = $1', [runA]);
  assert.deepEqual([a!.down, b!.down], [false, true]);
  // Run A is untouched.
  assertOk(await data(runA, 'error_event_data', sample('error_event_data-noticed').body));
  assert.equal(await count('error_events'), 35);
});

test('after a restart on the same data the run is still valid, the shut-down run still refused, the data all there', async () => {
  const certBefore = await readFile(ts.server.certPath, 'utf8');
  await ts.restart();
  assert.equal(await readFile(ts.server.certPath, 'utf8'), certBefore);

  // Durable: exactly what was acknowledged before the restart.
  assert.deepEqual(await timeslices(), expectedTimeslices([harvests[0]!]));
  assert.equal(await count('metric_names'), 98);
  assert.equal(await count('custom_events'), 10);
  assert.equal(await count('error_events'), 35);
  const custom = (sample('custom_event_data').body as [string, [Obj, Obj][]])[1];
  const stored = await ts.server.db.all<Obj>('SELECT epoch_ms(timestamp) AS ts, event_type, attributes, app_id FROM custom_events');
  assert.deepEqual(
    stored.map((r) => [Number(r.ts), r.event_type, JSON.parse(r.attributes as string), r.app_id]).sort(compare),
    custom.map(([h, attrs]) => [h.timestamp, h.type, attrs, appId]).sort(compare),
  );

  // The run survives the restart: the agent keeps reporting without reconnecting.
  assertOk(await data(runA, 'metric_data', sample('metric_data-first-harvest').body));
  assertRunRefused(await data(runB, 'metric_data', sample('metric_data-first-harvest').body), runB);
  assert.deepEqual(await timeslices(), expectedTimeslices(harvests));
  // Names already known keep their ids: none is created twice.
  const names = new Set(harvests.flat().flatMap(([spec]) => (spec.scope ? [spec.name, spec.scope] : [spec.name])));
  assert.equal(await count('metric_names'), names.size);
  const [dupes] = await ts.server.db.all<{ n: bigint }>('SELECT count(*) - count(DISTINCT name) AS n FROM metric_names');
  assert.equal(Number(dupes!.n), 0);

  // A reconnect after the restart gets a new run for the same application.
  const c = await connectAgent(ts.server, TEST_LICENSE_KEY, sample('connect-request').body);
  assert.ok(![runA, runB].includes(c.runId));
  assert.equal(Number(c.connectReply.application_id), appId);
  assert.equal(await count('applications'), 1);
  assert.equal(await count('instances'), 1);
});

test('a second restart still has everything', async () => {
  await ts.restart();
  assert.deepEqual(await timeslices(), expectedTimeslices(harvests));
  assert.equal(await count('agent_runs'), 3);
  assertOk(await data(runA, 'custom_event_data', sample('custom_event_data').body));
  assert.equal(await count('custom_events'), 20);
});
