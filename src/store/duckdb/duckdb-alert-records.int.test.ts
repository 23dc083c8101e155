import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Database } from './database.js';
import { DuckDbAlertRecords } from './duckdb-alert-records.js';
import { MIGRATIONS } from './migrations.js';

// Migration 11 numbers what a version-10 store already held, in the order it happened; numbers are
// never reused or changed, and new objects continue each kind's sequence.

const body = (id: string) => JSON.stringify({ id });

test('migration 11 numbers a version-10 store\'s incidents and issues in the order they happened', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'timeslice-migration-11-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'store.duckdb');
  const old = await Database.open({ path }, MIGRATIONS.filter((m) => m.version <= 10));
  const conn = old.catalogConnection;
  // Inserted out of order: numbers follow opened_at (incidents) and created_at (issues), then the id.
  await conn.run(`INSERT INTO alert_incidents VALUES
    ('inc-c', 1, 7, 'iss-b', 3000, NULL, '${body('inc-c')}'),
    ('inc-a', 1, 7, 'iss-a', 1000, 2500, '${body('inc-a')}'),
    ('inc-b', 2, 8, 'iss-b', 3000, NULL, '${body('inc-b')}')`);
  await conn.run(`INSERT INTO alert_issues VALUES
    ('iss-b', 1, 'ACTIVATED', 3000, NULL, '${body('iss-b')}'),
    ('iss-a', 1, 'CLOSED', 1000, 2500, '${body('iss-a')}')`);
  await old.close();

  const db = await Database.open({ path });
  t.after(() => db.close());
  assert.deepEqual(await db.all("SELECT kind, id, number FROM alert_rest_ids ORDER BY kind, number"), [
    { kind: 'incident', id: 'inc-a', number: 1n }, { kind: 'incident', id: 'inc-b', number: 2n }, { kind: 'incident', id: 'inc-c', number: 3n },
    { kind: 'issue', id: 'iss-a', number: 1n }, { kind: 'issue', id: 'iss-b', number: 2n },
  ]);
  const records = new DuckDbAlertRecords(db);
  assert.equal(await records.restIdOf('incident', 1, 3), 'inc-c');
  assert.equal(await records.restIdOf('incident', 1, 2), undefined, "incident 2 is account 2's");
  const numbers = await records.restNumbers('issue', ['iss-new', 'iss-a', 'iss-newer']);
  assert.deepEqual([...numbers].sort(), [['iss-a', 1], ['iss-new', 3], ['iss-newer', 4]]);
  assert.deepEqual([...(await records.restNumbers('issue', ['iss-newer', 'iss-new']))].sort(), [['iss-new', 3], ['iss-newer', 4]], 'never renumbered');
});
