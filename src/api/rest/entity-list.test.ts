import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entityListPage } from './entity-list.js';
import { RestError } from './rest-error.js';
import { RestParams } from './rest-params.js';

const items = [
  { id: 7, name: 'checkout' },
  { id: 3, name: 'Billing' },
  { id: 5, name: 'billing' },
  { id: 2, name: 'billing' },
  { id: 9, name: 'search' },
];
const options = { what: 'widget', nameOf: (i: { name: string }) => i.name, perPage: 2 };
const ids = (page: { pageItems: { id: number }[] }) => page.pageItems.map((i) => i.id);

test('sorted by name (code units, so upper case first), then id; paged with the last page named', () => {
  const first = entityListPage(items, RestParams.from({}, undefined), options);
  assert.deepEqual(ids(first), [3, 2]);
  assert.deepEqual(first.pagination, { page: 1, lastPage: 3 });
  assert.deepEqual(ids(entityListPage(items, RestParams.from({ page: '3' }, undefined), options)), [9]);
  assert.deepEqual(entityListPage(items, RestParams.from({ page: '4' }, undefined), options), { pageItems: [], pagination: { page: 4, lastPage: 3 } });
});

test('the name filter is a case-insensitive substring under its parameter; filter[ids] and the route\'s own filter narrow it', () => {
  assert.deepEqual(ids(entityListPage(items, RestParams.from({ 'filter[name]': 'BILL' }, undefined), { ...options, perPage: 200 })), [3, 2, 5]);
  assert.deepEqual(ids(entityListPage(items, RestParams.from({ 'filter[hostname]': 'ch' }, undefined), { ...options, nameParam: 'filter[hostname]' })), [7, 9]);
  assert.deepEqual(ids(entityListPage(items, RestParams.from({ 'filter[name]': 'ch' }, undefined), { ...options, nameParam: 'filter[hostname]' })), [3, 2]);
  assert.deepEqual(ids(entityListPage(items, RestParams.from({ 'filter[ids]': '9,2,4' }, undefined), options)), [2, 9]);
  assert.deepEqual(ids(entityListPage(items, RestParams.from({}, undefined), { ...options, where: (i) => i.id > 4 })), [5, 7]);
});

test('a bad id list or page is a 422 naming what was wrong', () => {
  assert.throws(() => entityListPage(items, RestParams.from({ 'filter[ids]': '1,x' }, undefined), options), (e: unknown) =>
    e instanceof RestError && e.status === 422 && e.message === "Invalid filter[ids] '1,x': expected comma-separated widget ids");
  assert.throws(() => entityListPage(items, RestParams.from({ page: 'two' }, undefined), options), (e: unknown) =>
    e instanceof RestError && e.status === 422 && e.message === "Invalid page 'two': page must be a positive integer");
});
