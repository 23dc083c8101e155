import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Clock } from '../../src/clock.js';
import { withAgentApp } from '../helpers/agent-app.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY } from '../helpers/test-server.js';

/*
 * One application, three processes under the real `newrelic` agent (13.x): hosts and instances
 * as REST v2 lists them, and per-host and per-instance metric data that add up to the
 * application's.
 *
 * Two hosts on one machine: the agent reports `host` from os.hostname(), except that with
 * `heroku.use_dyno_names` (on by default) and a DYNO environment variable it reports the dyno
 * name instead (lib/config/index.js, getHostnameSafe). `process_host.display_name` changes only
 * `display_host`, which Timeslice keeps beside the host but does not key hosts by. So the
 * processes run as dynos web.1 (two of them: one host, two instances) and web.2.
 *
 * Each process serves a planned list of requests (test/e2e/fixtures/agent-app.cjs) and shuts
 * down, sending its last harvest; the expected counts come from the plans, never from the server.
 * The clock is then moved two minutes ahead so the minutes the harvests landed in are complete
 * (as in rest-agent.int.test.ts).
 */

const MINUTE_MS = 60_000;
const APP = 'hosts-e2e';

type Kind = 'fast' | 'tolerating' | 'frustrating' | 'error';
interface Process { readonly key: string; readonly dyno: string; readonly requests: readonly Kind[] }
const many = (n: number, kind: Kind): Kind[] => Array.from({ length: n }, () => kind);
const PROCESSES: readonly Process[] = [
  { key: 'a', dyno: 'web.1', requests: [...many(5, 'fast'), 'tolerating'] },
  { key: 'b', dyno: 'web.1', requests: [...many(3, 'fast'), ...many(2, 'error')] },
  { key: 'c', dyno: 'web.2', requests: [...many(4, 'fast'), 'frustrating'] },
];

class ShiftedClock implements Clock {
  offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
}

type Obj = Record<string, any>;
const floorMinute = (ms: number) => Math.floor(ms / MINUTE_MS) * MINUTE_MS;
const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${what}: ${actual} ≠ ${expected}`);

test('two hosts and three instances of one application under the real Node agent: listings and metric data agree with the application', { timeout: 150_000 }, async (t) => {
  const clock = new ShiftedClock();
  const ts = await startTestServer({}, { clock });
  t.after(() => ts.stop());
  const { apiUrl, collectorPort, certPath } = ts.server;
  const get = async (path: string): Promise<Obj> => {
    const res = await fetch(`${apiUrl}${path}`, { headers: { 'X-Api-Key': TEST_API_KEY } });
    const body = await res.json() as Obj;
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(body)}`);
    return body;
  };
  const startedMs = Date.now();

  const appIds = await Promise.all(PROCESSES.map((p) => withAgentApp({
    appName: APP, licenseKey: TEST_LICENSE_KEY, collectorPort, certPath, logDir: ts.dataDir,
    env: { DYNO: p.dyno, NEW_RELIC_LOG: join(ts.dataDir, `${APP}-${p.key}.log`) },
  }, async (ready) => {
    for (const [i, kind] of p.requests.entries()) {
      const res = await fetch(`http://127.0.0.1:${ready.port}/${kind}/${i + 1}`);
      await res.text();
      assert.equal(res.status, kind === 'error' ? 500 : 200);
    }
    return Number(ready.appId);
  })));
  assert.equal(new Set(appIds).size, 1, 'the three processes report into one application');
  const appId = appIds[0]!;
  clock.offsetMs = 2 * MINUTE_MS;

  // One instance per process: the catalog tells them apart by pid.
  assert.equal(new Set(ts.server.catalog.instancesOf(appId).map((i) => i.pid)).size, 3);

  const app = (await get(`/v2/applications/${appId}.json`)).application as Obj;
  assert.equal(app.application_summary.host_count, 2);
  assert.equal(app.application_summary.instance_count, 3);

  const hosts = (await get(`/v2/applications/${appId}/hosts.json`)).application_hosts as Obj[];
  assert.deepEqual(hosts.map((h) => h.host), ['web.1', 'web.2']);
  const instances = (await get(`/v2/applications/${appId}/instances.json`)).application_instances as Obj[];
  assert.deepEqual(instances.map((i) => i.host), ['web.1', 'web.1', 'web.2']);
  const hostIdOf = new Map(hosts.map((h) => [h.host as string, h.id as number]));
  for (const i of instances) assert.equal(i.links.application_host, hostIdOf.get(i.host), `instance ${i.id} links its host`);
  assert.deepEqual(hosts.map((h) => h.links.application_instances.length), [2, 1]);
  assert.deepEqual(hosts.map((h) => h.application_summary.instance_count), [2, 1]);

  // HttpDispatcher over the whole run, unrounded, for the application, each host and each instance.
  const window = `from=${encodeURIComponent(new Date(floorMinute(startedMs) - MINUTE_MS).toISOString())}&to=${encodeURIComponent(new Date(clock.now()).toISOString())}`;
  const dispatcher = async (base: string): Promise<{ count: number; average: number }> => {
    const body = await get(`${base}/metrics/data.json?names[]=HttpDispatcher&values[]=call_count&values[]=average_response_time&summarize=true&raw=true&${window}`);
    const values = body.metric_data.metrics[0].timeslices[0].values as Obj;
    return { count: values.call_count, average: values.average_response_time };
  };
  const appData = await dispatcher(`/v2/applications/${appId}`);
  assert.equal(appData.count, PROCESSES.reduce((n, p) => n + p.requests.length, 0), 'every request counted once');

  const perInstance = await Promise.all(instances.map(async (i) => ({ host: i.host as string, id: i.id as number, ...(await dispatcher(`/v2/applications/${appId}/instances/${i.id}`)) })));
  // Each instance has exactly its process's requests: the counts per host name, in plan order.
  for (const host of ['web.1', 'web.2']) {
    const planned = PROCESSES.filter((p) => p.dyno === host).map((p) => p.requests.length).sort();
    const measured = perInstance.filter((i) => i.host === host).map((i) => i.count).sort();
    assert.deepEqual(measured, planned, `${host}: requests per instance`);
  }
  assert.equal(perInstance.reduce((n, i) => n + i.count, 0), appData.count, 'instance counts sum to the application\'s');
  close(perInstance.reduce((n, i) => n + i.average * i.count, 0) / appData.count, appData.average, 'application average = count-weighted mean of the instance averages');
  assert.ok(appData.average >= 5, `average ${appData.average} ms covers the planned delays`);

  for (const h of hosts) {
    const hostData = await dispatcher(`/v2/applications/${appId}/hosts/${h.id}`);
    const own = perInstance.filter((i) => i.host === h.host);
    assert.equal(hostData.count, own.reduce((n, i) => n + i.count, 0), `${h.host}: host count = its instances'`);
    close(hostData.average, own.reduce((n, i) => n + i.average * i.count, 0) / hostData.count, `${h.host}: host average = weighted mean of its instances'`);
  }
  const hostCounts = await Promise.all(hosts.map(async (h) => (await dispatcher(`/v2/applications/${appId}/hosts/${h.id}`)).count));
  assert.equal(hostCounts.reduce((a, b) => a + b, 0), appData.count, 'host counts sum to the application\'s');

  // The listings' summaries (10-minute window, requests per minute) add up the same way.
  const throughput = (xs: Obj[]) => xs.reduce((n, x) => n + x.application_summary.throughput, 0);
  close(throughput(instances), appData.count / 10, 'instance throughputs sum to the application\'s requests per minute');
  close(throughput(hosts), appData.count / 10, 'host throughputs too');
  close(app.application_summary.throughput, appData.count / 10, 'application throughput');

  // Key transactions on two of the fixture's transactions (setTransactionName(kind) names them
  // WebTransaction/Custom/<kind>): their summaries come from the agent's own per-transaction metrics.
  const store = ts.server.entities.keyTransactions;
  const application = ts.server.catalog.application(appId)!;
  const fast = await store.create({ application, name: 'Fast', metricName: 'WebTransaction/Custom/fast' });
  const failing = await store.create({ application, name: 'Failing', metricName: 'WebTransaction/Custom/error' });
  const fastCount = PROCESSES.reduce((n, p) => n + p.requests.filter((k) => k === 'fast').length, 0);
  const errorCount = PROCESSES.reduce((n, p) => n + p.requests.filter((k) => k === 'error').length, 0);
  const fastKt = (await get(`/v2/key_transactions/${fast.id}.json`)).key_transaction as Obj;
  assert.equal(fastKt.reporting, true);
  assert.deepEqual([fastKt.application_summary.throughput, fastKt.application_summary.error_rate, fastKt.application_summary.apdex_score],
    [fastCount / 10, 0, 1], 'fast: every call satisfied, none failed');
  const failingKt = (await get(`/v2/key_transactions/${failing.id}.json`)).key_transaction as Obj;
  assert.deepEqual([failingKt.application_summary.throughput, failingKt.application_summary.error_rate, failingKt.application_summary.apdex_score],
    [errorCount / 10, 100, 0], 'error: every call failed, and errors frustrate');
  assert.equal(failingKt.health_status, 'red');
});
