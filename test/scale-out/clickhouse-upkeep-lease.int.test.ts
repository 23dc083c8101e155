/**
 * Upkeep of a shared ClickHouse store runs on the node holding the background lease only: the other
 * node never runs it, and a holder that loses the lease (here: the row taken by someone else, the
 * node still running) stops running it until it holds the lease again. Each node's own record of its
 * last retention run (`status().lastRetentionMs`, the clock's time of the run) says who ran.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { clickhouseMissing, startClickHouse } from '../helpers/clickhouse.js';
import { startPostgres } from '../helpers/postgres.js';
import { ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const T0 = Date.UTC(2025, 7, 11, 12);

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('rollups and retention of a shared ClickHouse store run on the lease holder only', { skip: clickhouseMissing(), timeout: 90_000 }, async (t) => {
  const [clickhouse, pgServer] = await Promise.all([startClickHouse(), startPostgres()]);
  const nodes: TestServer[] = [];
  const admin = new pg.Client({ connectionString: await pgServer.createDatabase('upkeep_lease') });
  t.after(async () => {
    for (const n of nodes) await n.stop();
    await admin.end().catch(() => undefined);
    await clickhouse.stop();
    await pgServer.stop();
  });
  const clock = new ManualClock(T0);
  const env = { TIMESLICE_STORE: `clickhouse://127.0.0.1:${clickhouse.httpPort}/upkeep_lease`, TIMESLICE_CATALOG: pgServer.url('upkeep_lease'), TIMESLICE_UPKEEP_EVERY_MS: '100' };
  nodes.push(await startTestServer(env, { clock }));
  const [a] = nodes as [TestServer];
  await until('node a holds the lease', () => a.server.store.lease.held());
  nodes.push(await startTestServer(env, { clock }));
  const b = nodes[1]!;
  const ran = async (n: TestServer) => (await n.server.store.status()).lastRetentionMs;

  await until('the holder ran upkeep', async () => (await ran(a)) === T0);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(b.server.store.lease.held(), false);
  assert.equal(await ran(b), null, 'the node without the lease never ran upkeep');

  // The lease taken from a while it runs: a stops counting itself the holder, and stops running upkeep.
  await admin.connect();
  await admin.query("UPDATE background_leases SET holder = 'elsewhere', expires_at = now() + interval '1 hour' WHERE name = 'background'");
  await until('node a lost the lease', () => !a.server.store.lease.held());
  await new Promise((r) => setTimeout(r, 300)); // a run in progress finishes
  clock.ms = T0 + 60_000;
  await new Promise((r) => setTimeout(r, 1_000));
  assert.equal(await ran(a), T0, 'no upkeep on a node that lost the lease');
  assert.equal(await ran(b), null);

  // Given up by 'elsewhere': one of the two takes it, and only that one runs upkeep again.
  await admin.query("UPDATE background_leases SET expires_at = now() - interval '1 second' WHERE name = 'background'");
  await until('a node took the lease', () => a.server.store.lease.held() || b.server.store.lease.held());
  const [holder, other] = a.server.store.lease.held() ? [a, b] : [b, a];
  const before = await ran(other);
  clock.ms = T0 + 120_000;
  await until('the new holder ran upkeep', async () => (await ran(holder)) === T0 + 120_000);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(await ran(other), before, 'the other node did not');
});
