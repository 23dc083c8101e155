import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { waitForExit, withAgentApp } from '../helpers/agent-app.js';

/*
 * End to end: `timeslice serve` as a real process, two apps instrumented by the real `newrelic`
 * agent reporting to it, a known mix of requests, then the store read back after a graceful stop.
 * Expected numbers come from the request plan below, not from the server's code.
 */

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const LICENSE_KEY = '0123456789abcdef0123456789abcdef01234567';
const API_KEY = 'NRAK-E2ETESTKEY0000000000000000';

type Kind = 'fast' | 'tolerating' | 'frustrating' | 'error';
/** Response times the fixture app uses, in seconds: 5 ms, 700 ms, 2100 ms, and a fast 500. */
const DURATION_S: Record<Kind, number> = { fast: 0.005, tolerating: 0.7, frustrating: 2.1, error: 0.005 };

/** Apdex zone of one request by the rules of the agent protocol §6, with T the server's apdex_t. */
function apdexZone(kind: Kind, t: number): 's' | 't' | 'f' {
  if (kind === 'error') return 'f';
  const d = DURATION_S[kind];
  return d <= t ? 's' : d <= 4 * t ? 't' : 'f';
}

interface Plan { readonly app: string; readonly mix: Record<Kind, number>; readonly queueHeader: boolean }
const PLANS: readonly Plan[] = [
  { app: 'e2e-no-queue', mix: { fast: 6, tolerating: 3, frustrating: 2, error: 3 }, queueHeader: false },
  { app: 'e2e-queue', mix: { fast: 5, tolerating: 2, frustrating: 1, error: 2 }, queueHeader: true },
];

function paths(plan: Plan): string[] {
  return (Object.keys(plan.mix) as Kind[]).flatMap((kind) => Array.from({ length: plan.mix[kind] }, (_, i) => `/${kind}/${i + 1}`));
}

async function startServe(dataDir: string): Promise<{ child: ChildProcess; apiUrl: string; collectorPort: number; certPath: string; output: () => string }> {
  const child = spawn(process.execPath, ['bin/timeslice.js', 'serve', '--port', '0', '--collector-port', '0', '--data', dataDir], {
    cwd: repoRoot,
    env: { ...process.env, TIMESLICE_LICENSE_KEY: LICENSE_KEY, TIMESLICE_API_KEY: API_KEY, TIMESLICE_EVENT_HARVEST_MS: '5000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const deadline = Date.now() + 30_000;
  while (!/NODE_EXTRA_CA_CERTS=\S+/.test(out)) {
    if (child.exitCode !== null) throw new Error(`serve exited early:\n${out}`);
    if (Date.now() > deadline) throw new Error(`serve did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const apiUrl = /API:\s+(http:\/\/\S+)/.exec(out)![1]!;
  const collectorPort = Number(/NEW_RELIC_PORT=(\d+)/.exec(out)![1]);
  const certPath = /NODE_EXTRA_CA_CERTS=(\S+)/.exec(out)![1]!;
  const health = await fetch(`${apiUrl}/healthz`);
  assert.equal(health.status, 200);
  return { child, apiUrl, collectorPort, certPath, output: () => out };
}

async function runApp(plan: Plan, collectorPort: number, certPath: string, logDir: string): Promise<string[]> {
  return withAgentApp({ appName: plan.app, licenseKey: LICENSE_KEY, collectorPort, certPath, logDir }, async ({ port }) => {
    const sent = paths(plan);
    await Promise.all(sent.map(async (path) => {
      const headers: Record<string, string> = {};
      // Queued 50 ms before the app saw it, in microseconds as a load balancer writes it.
      if (plan.queueHeader) headers['X-Request-Start'] = `t=${(Date.now() - 50) * 1000}`;
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
      await res.text();
      assert.equal(res.status, path.startsWith('/error') ? 500 : 200);
    }));
    return sent;
  });
}

test('the real Node agent reports into the store: counts, Apdex, queue time and events match the requests sent', { timeout: 180_000 }, async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-e2e-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const serve = await startServe(dataDir);
  t.after(() => { if (serve.child.exitCode === null) serve.child.kill('SIGKILL'); });

  const sent = await Promise.all(PLANS.map((plan) => runApp(plan, serve.collectorPort, serve.certPath, dataDir)));

  // A graceful stop commits everything; the store is then read directly.
  serve.child.kill('SIGTERM');
  assert.equal(await waitForExit(serve.child, 30_000), 0, serve.output());

  const instance = await DuckDBInstance.create(join(dataDir, 'timeslice.duckdb'));
  const conn = await instance.connect();
  t.after(() => { conn.closeSync(); instance.closeSync(); });
  const rows = async (sql: string, params: (string | number)[] = []) => (await conn.runAndReadAll(sql, params)).getRowObjectsJS();
  const metric = async (appId: number, name: string) => (await rows(`
    SELECT count(*)::INTEGER AS n_rows, sum(call_count) AS count, sum(total) AS total, sum(exclusive) AS exclusive,
           min(min) AS min, max(max) AS max
    FROM timeslices t JOIN metric_names m ON m.id = t.metric_id
    WHERE t.app_id = $1 AND m.name = $2 AND t.scope_id = 0`, [appId, name]))[0]!;

  for (const [i, plan] of PLANS.entries()) {
    const [app] = await rows('SELECT id, apdex_t FROM applications WHERE name = $1', [plan.app]);
    assert.ok(app, `application ${plan.app} was created on connect`);
    const appId = Number(app.id);
    const apdexT = Number(app.apdex_t);
    const requests = sent[i]!.length;

    const dispatcher = await metric(appId, 'HttpDispatcher');
    assert.equal(dispatcher.count, requests, `${plan.app}: HttpDispatcher call_count`);

    const expected = { s: 0, t: 0, f: 0 };
    for (const kind of Object.keys(plan.mix) as Kind[]) expected[apdexZone(kind, apdexT)] += plan.mix[kind];
    const apdex = await metric(appId, 'Apdex');
    assert.deepEqual({ s: apdex.count, t: apdex.total, f: apdex.exclusive }, expected, `${plan.app}: Apdex s/t/f against apdex_t ${apdexT}`);
    assert.equal(apdex.min, apdexT, 'Apdex timeslices carry the apdex_t the server handed out');
    assert.equal(apdex.max, apdexT);

    const errors = await metric(appId, 'Errors/all');
    assert.equal(errors.count, plan.mix.error, `${plan.app}: Errors/all`);

    const queue = await metric(appId, 'WebFrontend/QueueTime');
    if (plan.queueHeader) {
      assert.equal(queue.count, requests, 'every request with X-Request-Start recorded queue time');
      assert.ok(Number(queue.min) >= 0.04, `queue time is about the 50 ms the header claimed, got min ${queue.min}`);
    } else {
      assert.equal(queue.n_rows, 0, 'no WebFrontend/QueueTime for the app that never sent the header');
    }

    const events = await rows(`
      SELECT json_extract_string(agent_attributes, '$."request.uri"') AS uri, name, duration, queue_duration, http_status_code, error
      FROM transaction_events WHERE app_id = $1`, [appId]);
    assert.deepEqual(events.map((e) => e.uri).sort(), [...sent[i]!].sort(), `${plan.app}: one Transaction event per request`);
    for (const e of events) {
      const kind = String(e.uri).split('/')[1] as Kind;
      assert.equal(e.name, `WebTransaction/Custom/${kind}`);
      assert.equal(e.http_status_code, kind === 'error' ? 500 : 200);
      assert.ok(Number(e.duration) >= DURATION_S[kind] - 0.002, `${e.uri}: duration ${e.duration} s`);
      assert.equal(e.queue_duration === null, !plan.queueHeader, `${e.uri}: queueDuration only with the header`);
    }

    const hosts = await rows('SELECT name FROM hosts WHERE app_id = $1', [appId]);
    assert.equal(hosts.length, 1);
    const instances = await rows('SELECT pid FROM instances WHERE app_id = $1', [appId]);
    assert.equal(instances.length, 1);
    assert.ok(Number(instances[0]!.pid) > 0, 'the instance records the agent process id');
  }
});
