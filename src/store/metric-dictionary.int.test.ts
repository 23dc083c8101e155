import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rows, TIMESLICES } from './append-tables.js';
import { BatchWriter } from './batch-writer.js';
import { Database } from './database.js';
import { MetricDictionary } from './metric-dictionary.js';

const minute = Date.UTC(2026, 10, 22, 12, 0);
const slices = (ids: readonly (number | null | undefined)[]) => {
  const rows = new Rows(TIMESLICES);
  for (const id of ids) rows.push(1, 1, 1, 1, id ?? null, 0, minute, 1, 1, 1, 1, 1, 1);
  return [rows];
};

async function open(t: { after(fn: () => Promise<void>): void }) {
  const db = await Database.open({ path: ':memory:' });
  t.after(() => db.close());
  const writer = new BatchWriter(db.appendConnection);
  let commits = 0;
  const run = db.appendConnection.run.bind(db.appendConnection);
  db.appendConnection.run = (async (sql: string, ...rest: unknown[]) => {
    if (sql === 'COMMIT') commits++;
    return (run as (...a: unknown[]) => unknown)(sql, ...rest);
  }) as typeof db.appendConnection.run;
  return { db, writer, dictionary: await MetricDictionary.load(db, writer), commits: () => commits };
}

test('new names commit in the same transaction as the data using them', async (t) => {
  const { db, dictionary, commits } = await open(t);
  await dictionary.write(['HttpDispatcher', 'Apdex'], (ids) => slices([ids.get('HttpDispatcher'), ids.get('Apdex')]));
  assert.equal(commits(), 1);
  const stored = await db.all<{ name: string }>(
    'SELECT m.name FROM timeslices t JOIN metric_names m ON m.id = t.metric_id ORDER BY m.name');
  assert.deepEqual(stored.map((r) => r.name), ['Apdex', 'HttpDispatcher']);
  // Known names add no rows: the same two names, one of them new.
  await dictionary.write(['Apdex', 'Errors/all'], (ids) => slices([ids.get('Errors/all')]));
  const [n] = await db.all<{ n: bigint }>('SELECT count(*) AS n FROM metric_names');
  assert.equal(Number(n!.n), 3);
});

test('a write that fails forgets the names it created, and the next one creates them again', async (t) => {
  const { db, dictionary } = await open(t);
  // metric_id NULL breaks the NOT NULL constraint: the whole write, names included, is refused.
  await assert.rejects(dictionary.write(['Lost'], () => slices([null])));
  assert.equal(dictionary.size, 0);
  await dictionary.write(['Lost'], (ids) => slices([ids.get('Lost')]));
  const rows = await db.all<{ name: string }>('SELECT m.name FROM timeslices t JOIN metric_names m ON m.id = t.metric_id');
  assert.deepEqual(rows, [{ name: 'Lost' }]);
});

test('data using a name another write is still committing waits for it, and fails with it', async (t) => {
  const { db, dictionary } = await open(t);
  const creator = dictionary.write(['Shared'], () => slices([null]));
  const user = dictionary.write(['Shared'], (ids) => slices([ids.get('Shared')]));
  await assert.rejects(creator);
  await assert.rejects(user, 'no row may point at a name that was never stored');
  const [n] = await db.all<{ n: bigint }>('SELECT count(*) AS n FROM timeslices');
  assert.equal(Number(n!.n), 0);
});
