import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rows, TIMESLICES } from '../append-tables.js';
import { StoreBusyError, WriteTooLargeError } from '../batch-writer.js';
import { DuckDbBatchWriter } from './duckdb-batch-writer.js';
import { Database } from './database.js';

const minute = Date.UTC(2026, 10, 22, 12, 0);
function timeslices(metricIds: readonly (number | null)[]): Rows {
  const rows = new Rows(TIMESLICES);
  for (const id of metricIds) rows.push(1, 2, 3, 4, id, 0, minute, 5, 0.5, 0.25, 0.01, 0.2, 0.07);
  return rows;
}

test('writes in one event-loop turn commit together, and each resolves after the commit', async (t) => {
  const db = await Database.open({ path: ':memory:' });
  t.after(() => db.close());
  const writer = new DuckDbBatchWriter(db.appendConnection);
  const commits = countCommits(db);
  await Promise.all([writer.write([timeslices([1, 2])]), writer.write([timeslices([3])]), writer.write([timeslices([4, 5, 6])])]);
  assert.equal(commits.length, 1, 'one transaction for the three writes');
  const [row] = await db.all<{ n: bigint; ids: bigint }>('SELECT count(*) AS n, sum(metric_id) AS ids FROM timeslices');
  assert.deepEqual([Number(row!.n), Number(row!.ids)], [6, 21]);
});

test('a write the store refuses fails alone; the writes batched with it are committed', async (t) => {
  const db = await Database.open({ path: ':memory:' });
  t.after(() => db.close());
  const writer = new DuckDbBatchWriter(db.appendConnection);
  const results = await Promise.allSettled([
    writer.write([timeslices([10, 11])]),
    writer.write([timeslices([12, null])]), // metric_id is NOT NULL
    writer.write([timeslices([13])]),
  ]);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  const ids = (await db.all<{ metric_id: number }>('SELECT metric_id FROM timeslices ORDER BY metric_id')).map((r) => r.metric_id);
  assert.deepEqual(ids, [10, 11, 13], 'nothing of the refused write is stored, all of the others is');
});

test('close commits what is pending and refuses later writes', async () => {
  const db = await Database.open({ path: ':memory:' });
  const writer = new DuckDbBatchWriter(db.appendConnection);
  const pending = writer.write([timeslices([1, 2, 3])]);
  await writer.close();
  await pending;
  await assert.rejects(writer.write([timeslices([4])]), (e: unknown) => e instanceof StoreBusyError && /closing/.test(e.message));
  const [row] = await db.all<{ n: bigint }>('SELECT count(*) AS n FROM timeslices');
  assert.equal(Number(row!.n), 3);
  await db.close();
});

test('a writer too far behind refuses writes instead of holding them all in memory', async (t) => {
  const db = await Database.open({ path: ':memory:' });
  t.after(() => db.close());
  const writer = new DuckDbBatchWriter(db.appendConnection, 5);
  const first = writer.write([timeslices([1, 2, 3])]);
  const second = writer.write([timeslices([4, 5])]);
  const third = writer.write([timeslices([6])]);
  await assert.rejects(third, (e: unknown) => e instanceof StoreBusyError && /behind \(5 rows/.test(e.message));
  await Promise.all([first, second]);
  // Once committed, the queue is empty again: a write up to the limit is taken.
  await writer.write([timeslices([7, 8, 9]), timeslices([10, 11])]);
  const [row] = await db.all<{ n: bigint }>('SELECT count(*) AS n FROM timeslices');
  assert.equal(Number(row!.n), 10);
});

test('one write larger than the queue cap is refused for good, even when the queue is empty', async (t) => {
  const db = await Database.open({ path: ':memory:' });
  t.after(() => db.close());
  const writer = new DuckDbBatchWriter(db.appendConnection, 5);
  await assert.rejects(writer.write([timeslices([1, 2, 3]), timeslices([4, 5, 6])]), (e: unknown) =>
    e instanceof WriteTooLargeError && e.message === 'one write of 6 rows is more than the 5 rows the store queues at once');
  // Nothing of it is stored or held: the next write within the cap is taken whole.
  await writer.write([timeslices([7, 8, 9, 10, 11])]);
  const ids = (await db.all<{ metric_id: number }>('SELECT metric_id FROM timeslices ORDER BY metric_id')).map((r) => r.metric_id);
  assert.deepEqual(ids, [7, 8, 9, 10, 11]);
});

test('a commit waits briefly for announced writes, so they share its transaction', async (t) => {
  const db = await Database.open({ path: ':memory:' });
  t.after(() => db.close());
  const writer = new DuckDbBatchWriter(db.appendConnection);
  const commits = countCommits(db);
  const ticket = writer.announce();
  const first = writer.write([timeslices([1])]);
  // The announced write arrives 3 ms later, well within the wait; queuing it releases the ticket.
  await new Promise((r) => setTimeout(r, 3));
  const second = writer.write([timeslices([2])], ticket);
  await Promise.all([first, second]);
  assert.equal(commits.length, 1);

  // An announced write that never comes holds a commit back at most ~10 ms.
  const abandoned = writer.announce();
  const started = performance.now();
  await writer.write([timeslices([3])]);
  const waited = performance.now() - started;
  abandoned.release();
  assert.equal(commits.length, 2);
  assert.ok(waited >= 9 && waited < 500, `waited ${waited} ms`);

  // Withdrawn before the commit: no wait at all.
  writer.announce().release();
  await writer.write([timeslices([4])]);
  assert.equal(commits.length, 3);
});

function countCommits(db: Database): number[] {
  const commits: number[] = [];
  const original = db.appendConnection.run.bind(db.appendConnection);
  db.appendConnection.run = (async (sql: string, ...rest: unknown[]) => {
    if (sql === 'COMMIT') commits.push(Date.now());
    return (original as (...a: unknown[]) => unknown)(sql, ...rest);
  }) as typeof db.appendConnection.run;
  return commits;
}
