/**
 * The background lease on PostgreSQL: one holder among nodes, a clean hand-over on close, and a
 * takeover within ttl + one renewal period when the holder is killed with SIGKILL.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { openPostgresDatabase, type PostgresDatabase } from '../../src/store/postgres/pg-database.js';
import { PgLease } from '../../src/store/postgres/pg-lease.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

let server: TestPostgres;
let n = 0;
before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function database(): Promise<PostgresDatabase> {
  return openPostgresDatabase(await server.createDatabase(`lease_${++n}`));
}

async function until(what: () => boolean, withinMs: number): Promise<number> {
  const started = performance.now();
  while (!what()) {
    if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await sleep(20);
  }
  return performance.now() - started;
}

test('of two nodes exactly one holds the lease; closing hands it over at the next attempt; epochs grow', async () => {
  const db = await database();
  const other = await openPostgresDatabase(server.url(`lease_${n}`));
  const a = new PgLease(db, { ttlMs: 1500, renewEveryMs: 300, holder: 'a' });
  const b = new PgLease(other, { ttlMs: 1500, renewEveryMs: 300, holder: 'b' });
  try {
    const changes: string[] = [];
    assert.equal(await a.attempt(), true);
    assert.equal(await b.attempt(), false);
    a.watch((held) => changes.push(`a:${held}`));
    b.watch((held) => changes.push(`b:${held}`));
    a.start();
    b.start();
    // Several renewal rounds: never both, always one.
    for (let i = 0; i < 10; i++) {
      assert.deepEqual([a.held(), b.held()], [true, false]);
      await sleep(100);
    }
    assert.equal(a.epoch(), 1, 'renewals keep the epoch');
    await a.close();
    assert.equal(a.held(), false);
    const tookMs = await until(() => b.held(), 1000);
    assert.ok(tookMs <= 400, `b took over ${tookMs} ms after a gave the lease up`);
    assert.equal(b.epoch(), 2);
    assert.deepEqual(changes, ['a:true', 'b:false', 'a:false', 'b:true']);
    const { rows } = await db.pool.query('SELECT holder, epoch FROM background_leases');
    assert.deepEqual(rows, [{ holder: 'b', epoch: 2 }]);
  } finally {
    await a.close();
    await b.close();
    await db.close();
    await other.close();
  }
});

test('a holder killed with SIGKILL loses the lease to another node within ttl + one renewal', async () => {
  const db = await database();
  const ttl = 2000;
  const renew = 500;
  const child = spawn(process.execPath, [fileURLToPath(new URL('../helpers/lease-child.js', import.meta.url)), server.url(`lease_${n}`), String(ttl), String(renew)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const survivor = new PgLease(db, { ttlMs: ttl, renewEveryMs: renew, holder: 'survivor' });
  try {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => { out += b.toString(); });
    await until(() => out.includes('held'), 15_000);
    survivor.start();
    for (let i = 0; i < 8; i++) {
      assert.equal(survivor.held(), false, 'the child holds it while alive');
      await sleep(250);
    }
    child.kill('SIGKILL');
    await once(child, 'exit');
    const tookMs = await until(() => survivor.held(), 10_000);
    assert.ok(tookMs <= ttl + renew + 300, `took over ${Math.round(tookMs)} ms after the kill`);
    assert.equal(survivor.epoch(), 2);
  } finally {
    child.kill('SIGKILL');
    await survivor.close();
    await db.close();
  }
});

test('a holder whose row another node took stops holding at its next renewal', async () => {
  const db = await database();
  const a = new PgLease(db, { ttlMs: 1500, renewEveryMs: 300, holder: 'a' });
  try {
    a.start();
    await until(() => a.held(), 1000);
    await db.pool.query("UPDATE background_leases SET holder = 'intruder', expires_at = now() + interval '1 minute'");
    await until(() => !a.held(), 600);
  } finally {
    await a.close();
    await db.close();
  }
});
