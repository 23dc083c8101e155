import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { agentQuery, connectAgent, invoke, replyJson } from '../helpers/collector-client.js';
import { sample } from '../helpers/samples.js';
import { startTestServer, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * What the REST applications endpoints rely on, seen from the agent's side: settings reach the
 * next connect, a renamed application keeps its agents, a deleted one sends them elsewhere, and
 * the metric index knows what an application reported, across a restart.
 */

let ts: TestServer;

before(async () => {
  ts = await startTestServer();
});

after(async () => {
  await ts?.stop();
});

function connectBody(appName: string): unknown {
  const body = sample('connect-request').body as Record<string, unknown>[];
  return [{ ...body[0], app_name: [appName] }];
}

async function connect(appName: string): Promise<{ runId: string; appId: number; apdexT: unknown }> {
  const { runId, connectReply } = await connectAgent(ts.server, TEST_LICENSE_KEY, connectBody(appName));
  return { runId, appId: Number(connectReply.application_id), apdexT: connectReply.apdex_t };
}

/** A one-minute harvest at 2026-11-22 12:00: HttpDispatcher, Apdex and a datastore metric only under a scope. */
const HARVEST_BEGIN_S = Date.UTC(2026, 10, 22, 12, 0, 0) / 1000;
function metricData(runId: string): unknown {
  return [runId, HARVEST_BEGIN_S, HARVEST_BEGIN_S + 60, [
    [{ name: 'HttpDispatcher' }, [3, 0.3, 0.3, 0.05, 0.15, 0.035]],
    [{ name: 'Apdex' }, [2, 1, 0, 0.5, 0.5, 0]],
    [{ name: 'WebTransaction/Expressjs/GET//checkout' }, [3, 0.3, 0.3, 0.05, 0.15, 0.035]],
    [{ name: 'Datastore/statement/Postgres/orders/select', scope: 'WebTransaction/Expressjs/GET//checkout' }, [1, 0.01, 0.01, 0.01, 0.01, 0.0001]],
  ]];
}

function sendMetricData(runId: string) {
  return invoke(ts.server, { query: agentQuery('metric_data', TEST_LICENSE_KEY, runId), body: metricData(runId) });
}

test('a changed apdex_t is what the application\'s next connect receives', async () => {
  const first = await connect('settings-app');
  assert.equal(first.apdexT, 0.5);
  await ts.server.catalog.updateApplication(first.appId, { apdexT: 0.3 });
  const second = await connect('settings-app');
  assert.equal(second.appId, first.appId);
  assert.equal(second.apdexT, 0.3);
});

test('a renamed application keeps the agents reporting under its old name, across a restart', async () => {
  const first = await connect('rename-app');
  await ts.server.catalog.updateApplication(first.appId, { name: 'Storefront (renamed)' });
  assert.equal((await connect('rename-app')).appId, first.appId);
  await ts.restart();
  const again = await connect('rename-app');
  assert.equal(again.appId, first.appId);
  assert.equal(ts.server.catalog.application(first.appId)!.name, 'Storefront (renamed)');
});

test('metric presence and last-reported time follow stored metric_data, and survive a restart', async () => {
  const { runId, appId } = await connect('presence-app');
  const host = ts.server.catalog.hostsOf(appId)[0]!;
  const instance = ts.server.catalog.instancesOf(appId)[0]!;
  assert.equal(ts.server.metrics.lastReportedAt({ appId }), undefined);
  const before = Date.now();
  const reply = await sendMetricData(runId);
  assert.equal(reply.status, 200, reply.text);
  const after = Date.now();

  const expected = ['Apdex', 'HttpDispatcher', 'WebTransaction/Expressjs/GET//checkout'];
  const check = () => {
    const metrics = ts.server.metrics;
    assert.deepEqual(metrics.metricNames({ appId }), expected);
    assert.deepEqual(metrics.metricNames({ appId, hostId: host.id }), expected);
    assert.deepEqual(metrics.metricNames({ appId, instanceId: instance.id }), expected);
    assert.equal(metrics.knows({ appId }, 'HttpDispatcher'), true);
    assert.equal(metrics.knows({ appId }, 'WebFrontend/QueueTime'), false, 'never reported');
    assert.equal(metrics.knows({ appId }, 'Datastore/statement/Postgres/orders/select'), false, 'reported only under a scope');
    assert.equal(typeof metrics.metricId('HttpDispatcher'), 'number');
  };
  check();
  const last = ts.server.metrics.lastReportedAt({ appId })!;
  assert.ok(last >= before && last <= after, `last reported ${last} is when the data was stored`);

  await ts.restart();
  check();
  // After a restart: the last stored minute (12:00) + 60 s.
  assert.equal(ts.server.metrics.lastReportedAt({ appId }), Date.UTC(2026, 10, 22, 12, 1));
});

test('a deleted application\'s agents are refused (409), reconnect, and report into a new application', async () => {
  const { runId, appId } = await connect('deleted-app');
  assert.equal((await sendMetricData(runId)).status, 200);
  assert.equal(ts.server.metrics.knows({ appId }, 'HttpDispatcher'), true);

  await ts.server.catalog.deleteApplication(appId);
  const refused = await sendMetricData(runId);
  assert.equal(refused.status, 409, refused.text);
  assert.equal((replyJson(refused) as { exception: { error_type: string } }).exception.error_type, 'NewRelic::Agent::ForceRestartException');
  const [left] = await ts.server.db.all<{ n: bigint }>('SELECT count(*) AS n FROM timeslices WHERE app_id = $1', [appId]);
  assert.equal(Number(left!.n), 0);
  assert.deepEqual(ts.server.metrics.metricNames({ appId }), []);

  const again = await connect('deleted-app');
  assert.notEqual(again.appId, appId);
  assert.equal((await sendMetricData(again.runId)).status, 200);
  assert.equal(ts.server.metrics.knows({ appId: again.appId }, 'HttpDispatcher'), true);
  assert.equal(ts.server.catalog.application(appId), undefined);
});
