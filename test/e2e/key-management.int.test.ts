import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveServeConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { agentQuery, invoke } from '../helpers/collector-client.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The real CLI, as a person runs it; TIMESLICE_API_KEY unset unless given. */
function cli(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin/timeslice.js'), ...args], {
      cwd: repoRoot, env: { ...process.env, TIMESLICE_API_KEY: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.once('exit', (code) => resolve({ code, out, err }));
  });
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** What each surface answers a key: REST, the graph API, the NRQL route (user keys); collector, Event API (license keys). */
async function userKeyStatuses(server: RunningServer, key: string): Promise<number[]> {
  const rest = await fetch(`${server.apiUrl}/v2/applications.json`, { headers: { 'x-api-key': key } });
  const graph = await fetch(`${server.apiUrl}/graphql`, { method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ actor { user { id } } }' }) });
  const nrql = await fetch(`${server.apiUrl}/timeslice/v1/nrql`, { method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'SELECT count(*) FROM Transaction' }) });
  return [rest.status, graph.status, nrql.status];
}

async function licenseKeyStatuses(server: RunningServer, key: string, accountId: number): Promise<number[]> {
  const connect = await invoke(server, { query: agentQuery('preconnect', key), body: [] });
  const events = await fetch(`${server.apiUrl}/v1/accounts/${accountId}/events`, {
    method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body: JSON.stringify([{ eventType: 'KeyCheck', n: 1 }]),
  });
  return [connect.status, events.status];
}

test('accounts, users and keys are managed with the CLI while the service runs; a revoked key stops at once everywhere', { timeout: 120_000 }, async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-keys-'));
  let server = await startServer(resolveServeConfig({ port: '0', 'collector-port': '0', data: dataDir }, {}));
  t.after(async () => {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const admin = server.createdKeys!.userKey;
  const firstLicense = server.createdKeys!.licenseKey;
  const as = (key: string) => ['--url', server.apiUrl, '--api-key', key];

  // The first user is the admin, with the configured default name and email.
  const users = await cli(['users', 'list', '--json', ...as(admin)]);
  assert.equal(users.code, 0, users.err);
  const firstUser = (JSON.parse(users.out) as { users: Record<string, unknown>[] }).users;
  assert.deepEqual(firstUser.map(({ createdAt: _c, ...u }) => u), [{ id: 1, accountId: 1, name: 'Admin', email: 'admin@localhost', admin: true }]);

  const account = await cli(['accounts', 'create', 'Staging', '--json', ...as(admin)]);
  assert.equal(account.code, 0, account.err);
  const { account: staging, licenseKey: stagingLicense } = JSON.parse(account.out) as { account: { id: number; name: string }; licenseKey: string };
  assert.deepEqual(staging, { id: 2, name: 'Staging' });
  assert.match(stagingLicense, /^[0-9a-f]{40}$/);

  const made = await cli(['users', 'create', '--account', '2', '--name', 'Ada Lovelace', '--email', 'ada@example.com', ...as(admin)]);
  assert.equal(made.code, 0, made.err);
  const adaKey = /User API key: (NRAK-[A-Z0-9]{27})/.exec(made.out)![1]!;
  assert.match(made.out, /^User 2 \(Ada Lovelace <ada@example\.com>\) created in account 2\.$/m);

  // A user who is not an admin cannot manage keys.
  const refused = await cli(['keys', 'list', ...as(adaKey)]);
  assert.deepEqual([refused.code, refused.err], [1, 'timeslice keys list: User 2 (Ada Lovelace) is not an admin: only an admin\'s key manages accounts, users and keys\n']);

  const list = await cli(['keys', 'list', '--json', ...as(admin)]);
  const keys = (JSON.parse(list.out) as { keys: { id: number; accountId: number; kind: string; userId: number | null; hint: string }[] }).keys;
  assert.deepEqual(keys.map(({ id, accountId, kind, userId, hint }) => ({ id, accountId, kind, userId, hint })), [
    { id: 1, accountId: 1, kind: 'user', userId: 1, hint: `NRAK-…${admin.slice(-4)}` },
    { id: 2, accountId: 1, kind: 'license', userId: null, hint: `…${firstLicense.slice(-4)}` },
    { id: 3, accountId: 2, kind: 'license', userId: null, hint: `…${stagingLicense.slice(-4)}` },
    { id: 4, accountId: 2, kind: 'user', userId: 2, hint: `NRAK-…${adaKey.slice(-4)}` },
  ]);
  // Stored only as hashes.
  const stored = await server.db.all<{ id: number; key_hash: string }>('SELECT id, key_hash FROM api_keys ORDER BY id');
  assert.deepEqual(stored, [admin, firstLicense, stagingLicense, adaKey].map((k, i) => ({ id: i + 1, key_hash: sha256(k) })));

  // Both new keys work on every surface, then stop at once when revoked.
  assert.deepEqual(await userKeyStatuses(server, adaKey), [200, 200, 200]);
  assert.deepEqual(await licenseKeyStatuses(server, stagingLicense, 2), [200, 200]);
  for (const id of ['4', '3']) {
    const revoked = await cli(['keys', 'revoke', id, ...as(admin)]);
    assert.equal(revoked.code, 0, revoked.err);
    assert.match(revoked.out, new RegExp(`^Key ${id} \\(\\S+\\) revoked`));
  }
  assert.deepEqual(await userKeyStatuses(server, adaKey), [401, 401, 401]);
  assert.deepEqual(await licenseKeyStatuses(server, stagingLicense, 2), [401, 403]);
  const again = await cli(['keys', 'revoke', '4', ...as(admin)]);
  assert.deepEqual([again.code, again.err], [1, 'timeslice keys revoke: Key 4 does not exist\n']);

  // Rotating the license key: the new one works, the old one no longer.
  const rotated = await cli(['keys', 'rotate', '2', '--json', ...as(admin)]);
  assert.equal(rotated.code, 0, rotated.err);
  const { key: newLicense, info } = JSON.parse(rotated.out) as { key: string; info: { id: number; kind: string; accountId: number } };
  assert.deepEqual([info.id, info.kind, info.accountId], [5, 'license', 1]);
  assert.deepEqual(await licenseKeyStatuses(server, firstLicense, 1), [401, 403]);
  assert.deepEqual(await licenseKeyStatuses(server, newLicense, 1), [200, 200]);

  // Every key lost: with the service stopped, the CLI makes an admin key on the data directory.
  await server.close();
  const recovered = await cli(['keys', 'create', '--account', '1', '--kind', 'user', '--data', dataDir]);
  assert.equal(recovered.code, 0, recovered.err);
  const recoveredKey = /^Key 6 \(user, account 1\): (NRAK-[A-Z0-9]{27})$/m.exec(recovered.out)![1]!;
  server = await startServer(resolveServeConfig({ port: '0', 'collector-port': '0', data: dataDir }, {}));
  assert.equal(server.createdKeys, undefined);
  assert.deepEqual(await userKeyStatuses(server, recoveredKey), [200, 200, 200]);
  const adminAgain = await cli(['keys', 'list', ...as(recoveredKey)]);
  assert.equal(adminAgain.code, 0, adminAgain.err);
});

test('TIMESLICE_API_KEY on a later start is accepted for that run only, never stored', { timeout: 60_000 }, async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-envkey-'));
  let server = await startServer(resolveServeConfig({ port: '0', 'collector-port': '0', data: dataDir }, {}));
  t.after(async () => {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  await server.close();
  const chosen = 'NRAK-CHOSENBYTHEENVIRONMENT0001';
  server = await startServer(resolveServeConfig({ port: '0', 'collector-port': '0', data: dataDir }, { TIMESLICE_API_KEY: chosen }));
  assert.deepEqual(await userKeyStatuses(server, chosen), [200, 200, 200]);
  assert.deepEqual(await server.db.all('SELECT count(*)::INTEGER AS n FROM api_keys WHERE key_hash = $1', [sha256(chosen)]), [{ n: 0 }]);
  await server.close();
  server = await startServer(resolveServeConfig({ port: '0', 'collector-port': '0', data: dataDir }, {}));
  assert.deepEqual(await userKeyStatuses(server, chosen), [401, 401, 401]);
});

test('actor.user answers the name and email of the key\'s user (the first one configurable), requestContext its id and key hint', { timeout: 60_000 }, async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-user-'));
  const server = await startServer(resolveServeConfig(
    { port: '0', 'collector-port': '0', data: dataDir },
    { TIMESLICE_ADMIN_NAME: 'Grace Hopper', TIMESLICE_ADMIN_EMAIL: 'grace@example.com' },
  ));
  t.after(async () => {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const ask = async (key: string) => {
    const reply = await fetch(`${server.apiUrl}/graphql`, {
      method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ actor { user { email name id } } requestContext { userId apiKey } }' }),
    });
    return reply.json();
  };
  const admin = server.createdKeys!.userKey;
  assert.deepEqual(await ask(admin), {
    data: { actor: { user: { email: 'grace@example.com', name: 'Grace Hopper', id: 1 } }, requestContext: { userId: '1', apiKey: `NRAK-…${admin.slice(-4)}` } },
  });
  const made = await cli(['users', 'create', '--account', '1', '--name', 'Alan Turing', '--email', 'alan@example.com', '--url', server.apiUrl, '--api-key', admin]);
  assert.equal(made.code, 0, made.err);
  const alan = /User API key: (NRAK-[A-Z0-9]{27})/.exec(made.out)![1]!;
  assert.deepEqual(await ask(alan), {
    data: { actor: { user: { email: 'alan@example.com', name: 'Alan Turing', id: 2 } }, requestContext: { userId: '2', apiKey: `NRAK-…${alan.slice(-4)}` } },
  });
  const bad = await cli(['users', 'create', '--account', '1', '--name', 'X', '--email', 'not-an-address', '--url', server.apiUrl, '--api-key', admin]);
  assert.deepEqual([bad.code, bad.err], [1, "timeslice users create: 'not-an-address' is not an email address\n"]);
});
