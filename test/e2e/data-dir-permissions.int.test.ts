import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveServeConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { agentQuery, connectAgent, invoke } from '../helpers/collector-client.js';
import { TEST_API_KEY, TEST_LICENSE_KEY } from '../helpers/test-server.js';

/** Every entry under `dir` (itself included) with its permission bits, as `path mode` lines, sorted. */
async function modes(dir: string, prefix = '.'): Promise<string[]> {
  const out = [`${prefix} ${((await stat(dir)).mode & 0o777).toString(8)}`];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await modes(path, `${prefix}/${entry.name}`)));
    else out.push(`${prefix}/${entry.name} ${((await stat(path)).mode & 0o777).toString(8)}`);
  }
  return out.sort();
}

async function serve(dataDir: string) {
  const config = resolveServeConfig(
    { host: '127.0.0.1', port: '0', 'collector-port': '0', data: dataDir },
    { TIMESLICE_LICENSE_KEY: TEST_LICENSE_KEY, TIMESLICE_API_KEY: TEST_API_KEY, TIMESLICE_MEMORY_LIMIT: '256MB', TIMESLICE_LOG_LEVEL: 'error' },
  );
  return startServer(config);
}

test('the data directory is 0700 and every file the service writes in it 0600 (store, WAL, TLS key and certificate)', async (t) => {
  const parent = await mkdtemp(join(tmpdir(), 'timeslice-perm-'));
  t.after(() => rm(parent, { recursive: true, force: true }));
  const dataDir = join(parent, 'data');
  const server = await serve(dataDir);
  try {
    // Data in flight: the WAL exists until the next checkpoint.
    const { runId } = await connectAgent(server, TEST_LICENSE_KEY, [{ app_name: ['Private'], host: 'h' }]);
    const reply = await invoke(server, { query: agentQuery('custom_event_data', TEST_LICENSE_KEY, runId), body: [runId, [[{ type: 'Secret', timestamp: Date.now() }, { v: 1 }]]] });
    assert.equal(reply.status, 200, reply.text);
    const listed = await modes(dataDir);
    assert.ok(listed.includes('./timeslice.duckdb.wal 600'), listed.join('\n'));
    assert.deepEqual(listed.filter((line) => !line.startsWith('./timeslice.duckdb.wal')), [
      '. 700', './timeslice.duckdb 600', './tls 700', './tls/cert.pem 600', './tls/key.pem 600',
    ]);
  } finally {
    await server.close();
  }
});

test('a data directory an earlier version left open (0755, files 0644) is closed at start', async (t) => {
  const parent = await mkdtemp(join(tmpdir(), 'timeslice-perm-'));
  t.after(() => rm(parent, { recursive: true, force: true }));
  const dataDir = join(parent, 'data');
  await (await serve(dataDir)).close();
  for (const [path, mode] of [['.', 0o755], ['tls', 0o755], ['tls/cert.pem', 0o644], ['tls/key.pem', 0o644], ['timeslice.duckdb', 0o644]] as const) {
    await chmod(join(dataDir, path), mode);
  }
  const server = await serve(dataDir);
  await server.close();
  assert.deepEqual((await modes(dataDir)).filter((line) => !line.startsWith('./timeslice.duckdb.wal')), [
    '. 700', './timeslice.duckdb 600', './tls 700', './tls/cert.pem 600', './tls/key.pem 600',
  ]);
});

test('a directory given as the data directory that holds other things keeps its own mode and theirs', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-perm-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  await chmod(dataDir, 0o755);
  await mkdir(join(dataDir, 'notes'), { mode: 0o755 });
  await chmod(join(dataDir, 'notes'), 0o755);
  await writeFile(join(dataDir, 'notes', 'readme.txt'), 'mine');
  await chmod(join(dataDir, 'notes', 'readme.txt'), 0o644);
  const server = await serve(dataDir);
  await server.close();
  assert.deepEqual((await modes(dataDir)).filter((line) => !line.startsWith('./timeslice.duckdb.wal')), [
    '. 755', './notes 755', './notes/readme.txt 644', './timeslice.duckdb 600', './tls 700', './tls/cert.pem 600', './tls/key.pem 600',
  ]);
});
