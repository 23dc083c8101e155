/**
 * `timeslice serve` with TIMESLICE_CATALOG: the catalog, keys and settings live in PostgreSQL, shared
 * by two nodes (each with its own DuckDB data here), one of which holds the background lease; a
 * catalog that cannot be used stops the start with a message naming why.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { hashKey } from '../../src/security/keys.js';
import { agentQuery, connectAgent, invoke } from '../helpers/collector-client.js';
import { connectApp, ManualClock, rest, sendMetrics } from '../helpers/rest-fixture.js';
import { sample } from '../helpers/samples.js';
import { startPostgres, PG_USER, type TestPostgres } from '../helpers/postgres.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const T0 = Date.parse('2026-11-20T12:00:00Z');

let server: TestPostgres;
before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
});

async function until(what: () => boolean, withinMs: number): Promise<number> {
  const started = performance.now();
  while (!what()) {
    if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return performance.now() - started;
}

test('two nodes on one PostgreSQL catalog: keys, applications and settings shared; one holds the lease, the other takes it', { timeout: 60_000 }, async () => {
  const url = await server.createDatabase('serve_shared');
  const clock = new ManualClock(T0);
  const nodes: TestServer[] = [];
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    nodes.push(await startTestServer({ TIMESLICE_CATALOG: url }, { clock, alertIntervalMs: 0 }));
    const one = nodes[0]!;
    assert.deepEqual(one.server.createdKeys, { userKey: TEST_API_KEY, licenseKey: TEST_LICENSE_KEY });
    // The keys are in PostgreSQL, hashed; the DuckDB file holds no account.
    assert.deepEqual((await db.query('SELECT account_id, kind, key_hash FROM api_keys ORDER BY kind')).rows, [
      { account_id: 1, kind: 'license', key_hash: hashKey(TEST_LICENSE_KEY) }, { account_id: 1, kind: 'user', key_hash: hashKey(TEST_API_KEY) },
    ]);
    assert.deepEqual(await one.server.db.all('SELECT count(*)::INTEGER AS n FROM accounts'), [{ n: 0 }]);

    const app = await connectApp(one, 'pg-app');
    await sendMetrics(one, app.runId, T0 - 60_000, T0, [['HttpDispatcher', '', [7, 0.7, 0.7, 0.1, 0.1, 0.07]]]);
    const data = await rest(one, 'GET', `/v2/applications/${app.appId}/metrics/data.json?names[]=HttpDispatcher&values[]=call_count&summarize=true`);
    assert.equal(data.status, 200, data.text);
    assert.equal(data.json().metric_data.metrics[0].timeslices[0].values.call_count, 7);
    assert.deepEqual((await db.query('SELECT id, name, agent_name FROM applications')).rows, [{ id: app.appId, name: 'pg-app', agent_name: 'pg-app' }]);

    // A second node: it finds account 1 and the keys (it creates none) and the application.
    nodes.push(await startTestServer({ TIMESLICE_CATALOG: url }, { clock, alertIntervalMs: 0 }));
    const two = nodes[1]!;
    // serve shows the keys the environment gave (they are the stored ones), as on any later start.
    assert.deepEqual(two.server.createdKeys, { userKey: TEST_API_KEY, licenseKey: TEST_LICENSE_KEY });
    assert.equal((await db.query('SELECT count(*)::int AS n FROM api_keys')).rows[0].n, 2, 'no keys made by the second start');
    const listed = await rest(two, 'GET', '/v2/applications.json');
    assert.deepEqual(listed.json().applications.map((a: { id: number; name: string }) => [a.id, a.name]), [[app.appId, 'pg-app']]);

    // A change on node two is what node one hands the agent's next connect.
    const put = await rest(two, 'PUT', `/v2/applications/${app.appId}.json`, { body: { application: { settings: { app_apdex_threshold: 0.2 } } } });
    assert.equal(put.status, 200, put.text);
    await until(() => one.server.catalog.application(app.appId)?.apdexT === 0.2, 1000);

    // One node holds the background lease; closing it hands the lease to the other.
    await until(() => one.server.store.lease.held() !== two.server.store.lease.held(), 5000);
    const [holder, other] = one.server.store.lease.held() ? [one, two] : [two, one];
    await holder.stop();
    nodes.splice(nodes.indexOf(holder), 1);
    const tookMs = await until(() => other.server.store.lease.held(), 5000);
    assert.ok(tookMs < 3000, `took over after ${tookMs} ms`);
  } finally {
    for (const node of nodes) await node.stop();
    await db.end();
  }
});

test('kill -9 of the node holding the lease: another node takes it within ttl + one renewal, and the agent run it made works there', { timeout: 60_000 }, async () => {
  const url = await server.createDatabase('serve_kill');
  const dataDir = mkdtempSync(join(tmpdir(), 'timeslice-serve-pg-kill-'));
  const nodes: TestServer[] = [];
  const child = spawn(process.execPath, ['bin/timeslice.js', 'serve', '--port', '0', '--collector-port', '0', '--data', dataDir, '--catalog', url], {
    cwd: repoRoot, env: { ...process.env, TIMESLICE_LICENSE_KEY: TEST_LICENSE_KEY, TIMESLICE_API_KEY: TEST_API_KEY, TIMESLICE_MEMORY_LIMIT: '256MB' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const db = new pg.Client({ connectionString: url });
  try {
    let out = '';
    child.stdout!.on('data', (d) => { out += d; });
    await until(() => /NEW_RELIC_PORT=(\d+)/.test(out) || child.exitCode !== null, 30_000);
    assert.equal(child.exitCode, null, out);
    await db.connect();
    const holderRow = async () => (await db.query<{ holder: string; epoch: number }>('SELECT holder, epoch FROM background_leases')).rows;
    const started = performance.now();
    while ((await holderRow()).length === 0) {
      assert.ok(performance.now() - started < 5000, 'the first node took no lease');
      await new Promise((r) => setTimeout(r, 50));
    }
    const [first] = await holderRow();
    nodes.push(await startTestServer({ TIMESLICE_CATALOG: url }, { alertIntervalMs: 0 }));
    const two = nodes[0]!;
    // An agent connects to the child; its run is known to node two.
    const connectBody = structuredClone(sample('connect-request').body) as [Record<string, unknown>];
    connectBody[0] = { ...connectBody[0], app_name: ['killed-app'], host: 'web-9', display_host: 'web-9', pid: 99 };
    const childTarget = { collectorPort: Number(/NEW_RELIC_PORT=(\d+)/.exec(out)![1]), certPath: join(dataDir, 'tls/cert.pem') };
    const { runId } = await connectAgent(childTarget, TEST_LICENSE_KEY, connectBody);
    await until(() => two.server.catalog.run(runId) !== undefined, 1000);
    for (let i = 0; i < 5; i++) {
      assert.equal(two.server.store.lease.held(), false, 'the child holds the lease while alive');
      await new Promise((r) => setTimeout(r, 200));
    }
    child.kill('SIGKILL');
    await once(child, 'exit');
    const tookMs = await until(() => two.server.store.lease.held(), 15_000);
    assert.ok(tookMs <= 8_500, `took over ${Math.round(tookMs)} ms after the kill`);
    assert.deepEqual((await holderRow()).map((r) => r.epoch), [first!.epoch + 1]);
    // The agent's next harvest, to node two, is taken with the run the dead node made.
    await sendMetrics(two, runId, Date.now() - 60_000, Date.now(), [['HttpDispatcher', '', [3, 0.3, 0.3, 0.1, 0.1, 0.03]]]);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    for (const node of nodes) await node.stop();
    await db.end().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('PostgreSQL stopped: known runs keep reporting, connects get 503, no node keeps the lease; all resumes when it returns', { timeout: 90_000 }, async () => {
  const url = await server.createDatabase('serve_outage');
  const nodes: TestServer[] = [];
  try {
    nodes.push(await startTestServer({ TIMESLICE_CATALOG: url }, { alertIntervalMs: 0 }), await startTestServer({ TIMESLICE_CATALOG: url }, { alertIntervalMs: 0 }));
    const [one, two] = nodes as [TestServer, TestServer];
    const app = await connectApp(one, 'outage-app');
    await until(() => one.server.store.lease.held() !== two.server.store.lease.held(), 5000);

    await server.halt();
    // The hot path is in memory: a harvest on a known run is stored (its data is in the DuckDB file).
    const now = Date.now();
    await sendMetrics(one, app.runId, now - 60_000, now, [['HttpDispatcher', '', [2, 0.2, 0.2, 0.1, 0.1, 0.02]]]);
    // A connect needs the catalog: 503, which agents retry.
    const body = structuredClone(sample('connect-request').body) as [Record<string, unknown>];
    body[0] = { ...body[0], app_name: ['during-outage'] };
    const refused = await invoke(one.server, { query: agentQuery('connect', TEST_LICENSE_KEY), body });
    assert.equal(refused.status, 503, refused.text);
    // Reads are answered from memory.
    assert.equal((await rest(two, 'GET', '/v2/applications.json')).status, 200);
    // Neither node can renew: neither holds the lease past its grant.
    await until(() => !one.server.store.lease.held() && !two.server.store.lease.held(), 8000);

    await server.resume();
    await until(() => one.server.store.lease.held() !== two.server.store.lease.held(), 10_000);
    let connected: Awaited<ReturnType<typeof connectApp>> | undefined;
    const started = performance.now();
    while (!connected) {
      connected = await connectApp(one, 'after-outage').catch(() => undefined);
      assert.ok(connected || performance.now() - started < 10_000, 'connect still refused 10 s after PostgreSQL returned');
      if (!connected) await new Promise((r) => setTimeout(r, 200));
    }
    // The listening connections are back: a change on one node reaches the other.
    const put = await rest(one, 'PUT', `/v2/applications/${app.appId}.json`, { body: { application: { settings: { app_apdex_threshold: 0.3 } } } });
    assert.equal(put.status, 200, put.text);
    await until(() => two.server.catalog.application(app.appId)?.apdexT === 0.3, 5000);
    await until(() => two.server.catalog.application(connected!.appId) !== undefined, 5000);
  } finally {
    for (const node of nodes) await node.stop();
  }
});

test('timeslice keys --data with TIMESLICE_CATALOG works on the shared catalog: a recovered key authenticates on every node', { timeout: 60_000 }, async () => {
  const url = await server.createDatabase('serve_keys_cli');
  const nodes: TestServer[] = [];
  try {
    nodes.push(await startTestServer({ TIMESLICE_CATALOG: url }, { alertIntervalMs: 0 }));
    const dataDir = nodes[0]!.dataDir;
    await nodes[0]!.server.close();
    const cli = spawn(process.execPath, ['bin/timeslice.js', 'keys', 'create', '--account', '1', '--kind', 'user', '--data', dataDir], {
      cwd: repoRoot, env: { ...process.env, TIMESLICE_CATALOG: url }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    cli.stdout!.on('data', (d) => { out += d; });
    cli.stderr!.on('data', (d) => { err += d; });
    const [code] = await once(cli, 'exit');
    assert.equal(code, 0, err);
    const key = /^Key (\d+) \(user, account 1\): (NRAK-[A-Z0-9]{27})$/m.exec(out)!;
    // Written to PostgreSQL (not the data directory's file): another node, with its own data, takes it.
    nodes.push(await startTestServer({ TIMESLICE_CATALOG: url }, { alertIntervalMs: 0 }));
    assert.equal(nodes[1]!.server.catalog.accountForUserKey(key[2]!), 1);
    assert.equal(nodes[1]!.server.catalog.keyId(key[2]!), Number(key[1]));
  } finally {
    for (const node of nodes) await node.stop();
  }
});

test('timeslice serve refuses a catalog it cannot use, naming why', { timeout: 30_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'timeslice-serve-pg-'));
  try {
    const serve = async (env: Record<string, string>, args: string[] = []) => {
      const child = spawn(process.execPath, ['bin/timeslice.js', 'serve', '--port', '0', '--collector-port', '0', '--data', dataDir, ...args], {
        cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr!.on('data', (d) => { err += d; });
      const [code] = await once(child, 'exit');
      return { code, err };
    };
    const wrong = `postgres://${PG_USER}:wrong@127.0.0.1:${server.port}/postgres`;
    // A server that cannot be used: 1, as for any store (a URL that is not one: 2, a configuration error).
    assert.deepEqual(await serve({}, ['--catalog', wrong]), {
      code: 1,
      err: `timeslice: PostgreSQL at postgres://${PG_USER}:***@127.0.0.1:${server.port}/postgres refused the credentials: password authentication failed for user "${PG_USER}"\n`,
    });
    assert.deepEqual(await serve({ TIMESLICE_CATALOG: 'mysql://db.example/timeslice' }), {
      code: 2, err: 'timeslice: TIMESLICE_CATALOG must be a postgres:// URL, got a mysql:// one\n',
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
