import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkedEntityName, EntityCollection, type EntityRows } from './entity-collection.js';

interface Thing { readonly id: number; readonly accountId: number; readonly name: string }

/** Rows in an array, recording every write: the smallest engine an entity store can have. */
class ArrayRows implements EntityRows<Thing> {
  readonly writes: string[] = [];
  private highest: number;
  constructor(private rows: Thing[], highest = 0) {
    this.highest = Math.max(highest, ...rows.map((r) => r.id));
  }
  async loadAll(): Promise<Thing[]> { return [...this.rows]; }
  nextId(): number { return this.highest + 1; }
  async insert(t: Thing): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.rows.push(t);
    this.highest = t.id;
    this.writes.push(`insert ${t.id} ${t.name}`);
  }
  async update(t: Thing): Promise<void> {
    this.rows = this.rows.map((r) => (r.id === t.id ? t : r));
    this.writes.push(`update ${t.id} ${t.name}`);
  }
  async delete(id: number): Promise<void> {
    this.rows = this.rows.filter((r) => r.id !== id);
    this.writes.push(`delete ${id}`);
  }
}

const isRangeError = (message: string) => (e: unknown) => e instanceof RangeError && e.message === message;

test('loads the stored entities; ids continue above the highest ever handed out, deleted ones included', async () => {
  const rows = new ArrayRows([{ id: 2, accountId: 1, name: 'b' }], 7);
  const things = await EntityCollection.open(rows);
  assert.deepEqual(things.list(1), [{ id: 2, accountId: 1, name: 'b' }]);
  const made = await things.create((id) => ({ id, accountId: 1, name: 'c' }));
  assert.equal(made.id, 8);
  assert.equal(await things.delete(8), true);
  assert.equal(await things.delete(8), false);
  assert.equal((await things.create((id) => ({ id, accountId: 1, name: 'd' }))).id, 9);
  assert.deepEqual(rows.writes, ['insert 8 c', 'delete 8', 'insert 9 d']);
});

test('two creates of one name at once: the lock lets one check-and-write finish before the other checks', async () => {
  const rows = new ArrayRows([]);
  const things = await EntityCollection.open(rows);
  const create = () => things.create((id) => {
    things.checkNameFree(1, 'same', 'thing');
    return { id, accountId: 1, name: 'same' };
  });
  const outcomes = await Promise.allSettled([create(), create()]);
  assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected']);
  assert.ok(isRangeError("a thing named 'same' already exists")((outcomes[1] as PromiseRejectedResult).reason));
  assert.deepEqual(rows.writes, ['insert 1 same']);
  // The same name in another account is free.
  assert.equal((await things.create((id) => { things.checkNameFree(2, 'same', 'thing'); return { id, accountId: 2, name: 'same' }; })).id, 2);
});

test('a refused change writes nothing; updating what is not there is undefined; forget drops from memory only', async () => {
  const rows = new ArrayRows([{ id: 1, accountId: 1, name: 'a' }, { id: 2, accountId: 1, name: 'b' }]);
  const things = await EntityCollection.open(rows);
  await assert.rejects(things.update(1, () => { throw new RangeError('no'); }), isRangeError('no'));
  assert.equal(await things.update(5, (t) => t), undefined);
  assert.deepEqual(await things.update(2, (t) => ({ ...t, name: 'bee' })), { id: 2, accountId: 1, name: 'bee' });
  things.forget((t) => t.id === 1);
  assert.deepEqual(things.values().map((t) => t.id), [2]);
  assert.deepEqual(rows.writes, ['update 2 bee']);
});

test('names are 1 to 255 characters once trimmed', () => {
  assert.equal(checkedEntityName('  shop  ', 'thing'), 'shop');
  assert.equal(checkedEntityName('x'.repeat(255), 'thing').length, 255);
  assert.throws(() => checkedEntityName('   ', 'thing'), isRangeError('a thing name is 1 to 255 characters'));
  assert.throws(() => checkedEntityName('x'.repeat(256), 'mobile application'), isRangeError('a mobile application name is 1 to 255 characters'));
});
