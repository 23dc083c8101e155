import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveServeConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

function post(port: number, ca: string, query: Record<string, string>, body: unknown): Promise<{ status: number; body: string }> {
  const qs = new URLSearchParams({ marshal_format: 'json', protocol_version: '17', ...query });
  return new Promise((resolve, reject) => {
    const req = request({ host: 'localhost', port, method: 'POST', path: `/agent_listener/invoke_raw_method?${qs}`, ca, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

test('first start creates account 1, its keys (stored hashed only) and a certificate for localhost and 127.0.0.1', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-serve-'));
  const cleanup: (() => Promise<unknown>)[] = [];
  // Hooks run in the order they were added: close servers before their directory goes.
  t.after(async () => {
    for (const step of cleanup) await step();
    await rm(dataDir, { recursive: true, force: true });
  });
  const config = resolveServeConfig({ port: '0', 'collector-port': '0', data: dataDir }, {});
  const first = await startServer(config);
  const keys = first.createdKeys;
  assert.ok(keys);
  assert.match(keys.userKey, /^NRAK-[A-Z0-9]{27}$/);
  assert.match(keys.licenseKey, /^[0-9a-f]{40}$/);
  assert.deepEqual(await first.db.all('SELECT id, name FROM accounts'), [{ id: 1, name: 'Default' }]);
  const health = await fetch(`${first.apiUrl}/healthz`);
  assert.deepEqual([health.status, await health.json()], [200, { status: 'ok' }]);

  const cert = new X509Certificate(await readFile(join(dataDir, 'tls/cert.pem')));
  assert.match(cert.subjectAltName ?? '', /DNS:localhost/);
  assert.match(cert.subjectAltName ?? '', /IP Address:127\.0\.0\.1/);
  await first.close();

  const file = await readFile(join(dataDir, 'timeslice.duckdb'));
  assert.equal(file.includes(keys.licenseKey), false, 'the license key is not in the database file');
  assert.equal(file.includes(keys.userKey), false, 'the user key is not in the database file');

  // A second start keeps the account and its keys, prints none, and keeps the certificate.
  const second = await startServer(config);
  cleanup.push(() => second.close());
  assert.equal(second.createdKeys, undefined);
  assert.equal(second.catalog.accountForLicenseKey(keys.licenseKey), 1);
  assert.equal(second.catalog.accountForUserKey(keys.userKey), 1);
  assert.equal(second.catalog.accountForUserKey(keys.licenseKey), undefined, 'a license key is not a user key');
  assert.equal((await readFile(join(dataDir, 'tls/cert.pem'), 'utf8')).trim(), cert.toString().trim());
});

test('data acknowledged to an agent survives the server being killed', { timeout: 60_000 }, async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-kill-'));
  const cleanup: (() => Promise<unknown>)[] = [];
  t.after(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    for (const step of cleanup) await step();
    await rm(dataDir, { recursive: true, force: true });
  });
  const licenseKey = 'fedcba9876543210fedcba9876543210fedcba98';
  const child: ChildProcess = spawn(process.execPath, ['bin/timeslice.js', 'serve', '--port', '0', '--collector-port', '0', '--data', dataDir], {
    cwd: repoRoot, env: { ...process.env, TIMESLICE_LICENSE_KEY: licenseKey }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  while (!/NEW_RELIC_PORT=(\d+)/.test(out)) {
    assert.equal(child.exitCode, null, out);
    await new Promise((r) => setTimeout(r, 50));
  }
  const port = Number(/NEW_RELIC_PORT=(\d+)/.exec(out)![1]);
  const ca = await readFile(join(dataDir, 'tls/cert.pem'), 'utf8');

  const connect = await post(port, ca, { method: 'connect', license_key: licenseKey }, [{ app_name: ['durable'], host: 'h', pid: 7, language: 'nodejs' }]);
  assert.equal(connect.status, 200);
  const runId = JSON.parse(connect.body).return_value.agent_run_id as string;
  const now = Date.now() / 1000;
  const metrics = Array.from({ length: 50 }, (_, i) => [{ name: `Custom/durable/${i}` }, [i + 1, i * 0.5, i * 0.25, 0.001, 0.9, i * 0.1]]);
  const stored = await post(port, ca, { method: 'metric_data', license_key: licenseKey, run_id: runId }, [runId, now - 60, now, metrics]);
  assert.deepEqual([stored.status, JSON.parse(stored.body)], [200, { return_value: null }]);

  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));

  const restarted = await startServer(resolveServeConfig({ port: '0', 'collector-port': '0', data: dataDir }, { TIMESLICE_LICENSE_KEY: licenseKey }));
  cleanup.push(() => restarted.close());
  const [row] = await restarted.db.all<{ n: bigint; calls: number }>(`
    SELECT count(*) AS n, sum(call_count) AS calls FROM timeslices t JOIN metric_names m ON m.id = t.metric_id
    WHERE m.name LIKE 'Custom/durable/%'`);
  assert.equal(Number(row!.n), 50);
  assert.equal(row!.calls, (50 * 51) / 2);
  // The run survives the restart too: the agent goes on without reconnecting.
  assert.ok(restarted.catalog.run(runId));
});

test('a second process on the same data directory is refused with a clear message', { timeout: 30_000 }, async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-lock-'));
  const first = await startServer(resolveServeConfig({ port: '0', 'collector-port': '0', data: dataDir }, {}));
  t.after(async () => {
    await first.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const second = spawn(process.execPath, ['bin/timeslice.js', 'serve', '--port', '0', '--collector-port', '0', '--data', dataDir], {
    cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  second.stderr!.on('data', (d) => { err += d; });
  const code = await new Promise((r) => second.once('exit', r));
  assert.equal(code, 1);
  assert.match(err, /timeslice: .*timeslice\.duckdb is open in another process \(pid \d+\): only one Timeslice may use a data directory/);
  assert.doesNotMatch(err, /at .*\.js:\d+/, 'no stack trace');
});

test('a revoked license key authenticates nothing, also after a restart', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-revoke-'));
  const config = resolveServeConfig({ port: '0', 'collector-port': '0', data: dataDir }, {});
  let server = await startServer(config);
  t.after(async () => {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const accountKey = server.createdKeys!.licenseKey;
  const extra = 'aaaabbbbccccddddeeeeffff0000111122223333';
  await server.close();
  server = await startServer({ ...config, licenseKey: extra });
  assert.equal(server.catalog.accountForLicenseKey(extra), 1);
  await server.catalog.revokeKey(extra);
  assert.equal(server.catalog.accountForLicenseKey(extra), undefined);
  await server.close();
  server = await startServer(config);
  assert.equal(server.catalog.accountForLicenseKey(extra), undefined);
  assert.equal(server.catalog.accountForLicenseKey(accountKey), 1, 'the account\'s own key is untouched');
});
