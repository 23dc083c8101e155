import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentQuery, invoke, replyJson } from '../helpers/collector-client.js';
import { connectApp, ManualClock, sendMetrics, startTestServer, TEST_API_KEY } from '../helpers/rest-fixture.js';
import { TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);

/** A REST v2 GET over a real socket. */
async function restGet(ts: TestServer, path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${ts.server.apiUrl}${path}`, { headers: { 'x-api-key': TEST_API_KEY } });
  return { status: res.status, body: await res.json() };
}

async function runRows(ts: TestServer): Promise<number> {
  const [row] = await ts.server.db.all<{ n: bigint }>('SELECT count(*) AS n FROM agent_runs');
  return Number(row!.n);
}

test('runs idle for 24 h, instances idle for 8 days and hosts left without one are expired; their ids are never handed out again', async (t) => {
  const clock = new ManualClock(T0);
  const ts = await startTestServer({}, { clock });
  t.after(() => ts.stop());

  const agent = await connectApp(ts, 'expiring', 'web-1', 4100);
  await sendMetrics(ts, agent.runId, T0 - 60_000, T0, [['HttpDispatcher', '', [3, 0.3, 0.3, 0.1, 0.1, 0.03]]]);
  const listed = await restGet(ts, `/v2/applications/${agent.appId}/instances.json`);
  assert.equal(listed.status, 200);
  const instanceIds = listed.body.application_instances.map((i: { id: number }) => i.id);
  assert.equal(instanceIds.length, 1);
  const [instanceId] = instanceIds as [number];

  // One minute short of a day after its last call the run stays.
  clock.ms = T0 + DAY_MS - 60_000;
  assert.deepEqual(await ts.server.store.expireIdle(), { runs: 0, instances: 0, hosts: 0 });
  assert.equal(await runRows(ts), 1);

  // A day after its last call the run is gone from memory and from its table: its agent is told to reconnect.
  clock.ms = T0 + DAY_MS + 1;
  assert.deepEqual(await ts.server.store.expireIdle(), { runs: 1, instances: 0, hosts: 0 });
  assert.equal(await runRows(ts), 0);
  const late = await invoke(ts.server, { query: agentQuery('metric_data', TEST_LICENSE_KEY, agent.runId), body: [agent.runId, T0 / 1000, T0 / 1000 + 60, []] });
  assert.equal(late.status, 409);
  assert.equal((replyJson(late) as { exception: { error_type: string } }).exception.error_type, 'NewRelic::Agent::ForceRestartException');
  // The instance is still listed: it stopped reporting a day ago.
  assert.deepEqual((await restGet(ts, `/v2/applications/${agent.appId}/instances.json`)).body.application_instances.map((i: { id: number }) => i.id), [instanceId]);

  // Eight days after it last reported, the instance leaves the catalog; its application keeps the data.
  clock.ms = T0 + 8 * DAY_MS - 60_000;
  assert.deepEqual(await ts.server.store.expireIdle(), { runs: 0, instances: 0, hosts: 0 });
  clock.ms = T0 + 8 * DAY_MS + 1;
  assert.deepEqual(await ts.server.store.expireIdle(), { runs: 0, instances: 1, hosts: 1 });
  assert.deepEqual((await restGet(ts, `/v2/applications/${agent.appId}/instances.json`)).body.application_instances, []);
  assert.equal((await restGet(ts, `/v2/applications/${agent.appId}/instances/${instanceId}.json`)).status, 404);
  // Its host had no other instance: it goes too.
  assert.deepEqual((await restGet(ts, `/v2/applications/${agent.appId}/hosts.json`)).body.application_hosts, []);
  const window = `from=${new Date(T0 - 5 * 60_000).toISOString()}&to=${new Date(T0 + 5 * 60_000).toISOString()}`;
  const data = await restGet(ts, `/v2/applications/${agent.appId}/metrics/data.json?names[]=HttpDispatcher&values[]=call_count&summarize=true&${window}`);
  assert.equal(data.status, 200);
  assert.equal(data.body.metric_data.metrics[0].timeslices[0].values.call_count, 3);
  const names = async () => (await restGet(ts, `/v2/applications/${agent.appId}/metrics.json`)).body.metrics.map((m: { name: string }) => m.name);
  assert.deepEqual(await names(), ['HttpDispatcher'], 'the application still lists what its expired instance reported');

  // After a restart the same process reconnecting is a new instance with a new id, not the expired one's.
  await ts.restart();
  assert.deepEqual(await names(), ['HttpDispatcher'], 'also after a restart');
  const again = await connectApp(ts, 'expiring', 'web-1', 4100);
  assert.equal(again.appId, agent.appId);
  assert.deepEqual((await restGet(ts, `/v2/applications/${agent.appId}/instances.json`)).body.application_instances.map((i: { id: number }) => i.id), [instanceId + 1]);
});

test('a run that keeps calling is never expired, and neither is its instance', async (t) => {
  const clock = new ManualClock(T0);
  const ts = await startTestServer({}, { clock });
  t.after(() => ts.stop());
  const agent = await connectApp(ts, 'steady', 'web-1', 4200);
  for (let day = 1; day <= 9; day++) {
    clock.ms = T0 + day * DAY_MS - HOUR_MS;
    await sendMetrics(ts, agent.runId, clock.ms - 60_000, clock.ms, [['HttpDispatcher', '', [1, 0.1, 0.1, 0.1, 0.1, 0.01]]]);
    clock.ms = T0 + day * DAY_MS;
    assert.deepEqual(await ts.server.store.expireIdle(), { runs: 0, instances: 0, hosts: 0 }, `day ${day}`);
  }
  assert.equal(await runRows(ts), 1);
  assert.equal((await restGet(ts, `/v2/applications/${agent.appId}/instances.json`)).body.application_instances.length, 1);
});
