import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForExit } from '../helpers/agent-app.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const cli = join(repoRoot, 'bin/timeslice.js');

/** `timeslice serve` as a person runs it; resolves with its output once it printed the set-up. */
async function startServe(dataDir: string, extraArgs: readonly string[] = []): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--collector-port', '0', '--data', dataDir, ...extraArgs], {
    cwd: repoRoot, env: { ...process.env, TIMESLICE_API_KEY: '', TIMESLICE_LICENSE_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  while (!out.includes('Read it back')) {
    assert.equal(child.exitCode, null, out);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, out: () => out };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await waitForExit(child, 20_000);
}

const APP = `'use strict'
const newrelic = require('newrelic')
const http = require('node:http')
const server = http.createServer((req, res) => { newrelic.setTransactionName('hello'); res.end('hello') })
server.listen(0, '127.0.0.1', () => {
  const ready = () => process.stdout.write('PORT ' + server.address().port + '\\n')
  if (newrelic.agent._state === 'started') ready(); else newrelic.agent.once('started', ready)
})
process.on('SIGTERM', () => { server.close(); newrelic.shutdown({ collectPendingData: true, timeout: 20000 }, (e) => process.exit(e ? 1 : 0)) })
`;

test('the agent set-up serve prints works pasted into an app\'s own folder', { timeout: 90_000 }, async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-setup-'));
  const appDir = await mkdtemp(join(tmpdir(), 'timeslice-setup-app-'));
  const serve = await startServe(dataDir);
  let app: ChildProcess | undefined;
  t.after(async () => {
    if (app && app.exitCode === null) app.kill('SIGKILL');
    await stop(serve.child);
    await rm(dataDir, { recursive: true, force: true });
    await rm(appDir, { recursive: true, force: true });
  });
  const out = serve.out();
  const userKey = /User API key[^:]*:\s+(NRAK-\S+)/.exec(out)![1]!;
  const apiUrl = /API:\s+(\S+)/.exec(out)![1]!;
  // Exactly the printed lines, from the `export` lines to the `node -r newrelic` line.
  const lines = out.split('\n');
  const first = lines.findIndex((l) => l.trim().startsWith('export NEW_RELIC_'));
  const last = lines.findIndex((l) => l.trim().startsWith('node -r newrelic'));
  assert.ok(first > 0 && last > first, out);
  const printed = lines.slice(first, last + 1).map((l) => l.trim()).join('\n');
  assert.match(printed, /^export NEW_RELIC_APP_NAME=/m);

  // The app's own folder: its entry point and its own install of the agent.
  await writeFile(join(appDir, 'app.js'), APP);
  await symlink(join(repoRoot, 'node_modules'), join(appDir, 'node_modules'));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('NEW_RELIC_') && k !== 'NODE_EXTRA_CA_CERTS' && v !== undefined) env[k] = v;
  app = spawn('sh', ['-c', printed.replace(/^node /m, 'exec node ')], { cwd: appDir, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let appOut = '';
  app.stdout!.on('data', (d) => { appOut += d; });
  const deadline = Date.now() + 30_000;
  while (!/PORT (\d+)/.test(appOut)) {
    assert.equal(app.exitCode, null, `the app exited: ${appOut} (agent log: ${await readFile(join(appDir, 'newrelic_agent.log'), 'utf8').catch(() => 'none')})`);
    assert.ok(Date.now() < deadline, 'the agent did not connect within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const port = Number(/PORT (\d+)/.exec(appOut)![1]);
  for (let i = 0; i < 3; i++) assert.equal(await (await fetch(`http://127.0.0.1:${port}/`)).text(), 'hello');
  app.kill('SIGTERM');
  assert.equal(await waitForExit(app, 40_000), 0);

  const apps = await (await fetch(`${apiUrl}/v2/applications.json`, { headers: { 'x-api-key': userKey } })).json() as { applications: { name: string }[] };
  assert.deepEqual(apps.applications.map((a) => a.name), ['My Application']);
  const nrql = await fetch(`${apiUrl}/timeslice/v1/nrql`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'api-key': userKey },
    body: JSON.stringify({ query: "SELECT count(*) FROM Transaction WHERE appName = 'My Application' SINCE 1 hour ago" }),
  });
  const body = await nrql.json() as { results: { count: number }[] };
  assert.deepEqual(body.results, [{ count: 3 }]);
});

test('keys made by a first start whose port is taken reach the person on the next start', { timeout: 60_000 }, async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-busy-'));
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const busyPort = (busy.address() as { port: number }).port;
  let serve: { child: ChildProcess } | undefined;
  t.after(async () => {
    busy.close();
    if (serve) await stop(serve.child);
    await rm(dataDir, { recursive: true, force: true });
  });
  const failed = spawnSync(process.execPath, [cli, 'serve', '--port', String(busyPort), '--collector-port', '0', '--data', dataDir], {
    cwd: repoRoot, env: { ...process.env, TIMESLICE_API_KEY: '', TIMESLICE_LICENSE_KEY: '' }, encoding: 'utf8', timeout: 30_000,
  });
  assert.equal(failed.status, 1, failed.stderr);
  assert.match(failed.stderr, /EADDRINUSE.*pick another --port\/--collector-port/);
  const started = await startServe(dataDir);
  serve = started;
  const out = started.out();
  const userKey = /User API key[^:]*:\s+(NRAK-[A-Z0-9]{27})/.exec(out)?.[1];
  const licenseKey = /License key[^:]*:\s+([0-9a-f]{40})/.exec(out)?.[1];
  assert.ok(userKey && licenseKey, out);
  assert.match(out, new RegExp(`export NEW_RELIC_LICENSE_KEY=${licenseKey}`));
  const apiUrl = /API:\s+(\S+)/.exec(out)![1]!;
  const reply = await fetch(`${apiUrl}/v2/applications.json`, { headers: { 'x-api-key': userKey } });
  assert.equal(reply.status, 200, 'the printed user key works');
});

test('timeslice --version prints the package version', () => {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['--version', '-v', 'version']) {
    const run = spawnSync(process.execPath, [cli, flag], { encoding: 'utf8' });
    assert.deepEqual([run.status, run.stdout, run.stderr], [0, `timeslice ${manifest.version}\n`, '']);
  }
});

test('the demo keeps its data in its own directory and its closing hint runs through npx', { timeout: 120_000 }, async (t) => {
  const cwd = await mkdtemp(join(tmpdir(), 'timeslice-demo-cwd-'));
  t.after(() => rm(cwd, { recursive: true, force: true }));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TIMESLICE_') && !k.startsWith('NEW_RELIC_') && v !== undefined) env[k] = v;
  const child = spawn(process.execPath, [cli, 'demo', '--duration', '1', '--port', '0', '--collector-port', '0'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  assert.equal(await waitForExit(child, 100_000), 0, out);
  const demoData = join(cwd, 'demo-data');
  assert.match(out, new RegExp(`^ {4}npx timeslice serve --data ${demoData.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  assert.ok(existsSync(join(demoData, 'timeslice.duckdb')), 'the demo store is in ./demo-data');
  assert.equal(existsSync(join(cwd, 'data')), false, 'serve\'s ./data is left alone');
});
