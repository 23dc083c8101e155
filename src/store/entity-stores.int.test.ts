import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Application } from './catalog.js';
import { Database } from './database.js';
import { loadEntityStores, type EntityStores } from './entity-stores.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const clock = { now: () => NOW };

const app = (id: number, accountId = 1): Application => ({
  id, accountId, name: `app-${id}`, agentName: `app-${id}`, language: 'nodejs', apdexT: 0.5, endUserApdexT: 7,
  enableRealUserMonitoring: false, useServerSideConfig: false,
});

/** Stores on a file in a temp directory; `reopen` closes the database and loads them again from it. */
async function open(t: { after(fn: () => Promise<void>): void }) {
  const dir = await mkdtemp(join(tmpdir(), 'timeslice-entities-'));
  let db = await Database.open({ path: join(dir, 'store.duckdb') });
  let stores = await loadEntityStores(db, clock);
  t.after(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });
  return {
    get stores(): EntityStores { return stores; },
    get db(): Database { return db; },
    async reopen() {
      await db.close();
      db = await Database.open({ path: join(dir, 'store.duckdb') });
      stores = await loadEntityStores(db, clock);
    },
  };
}

test('key transactions: defaults from the application, persisted, ids go on after a restart', async (t) => {
  const s = await open(t);
  const kt = await s.stores.keyTransactions.create({ application: app(4), name: ' Users list ', metricName: 'WebTransaction/Expressjs/GET//users' });
  assert.deepEqual(kt, {
    id: 1, accountId: 1, appId: 4, name: 'Users list', metricName: 'WebTransaction/Expressjs/GET//users', apdexT: 0.5, browserApdexT: 7, createdAt: NOW,
  });
  await s.stores.keyTransactions.create({ application: app(9, 2), name: 'Users list', metricName: 'OtherTransaction/Nodejs/job', apdexT: 0.1, browserApdexT: 3 });
  await s.reopen();
  assert.deepEqual(s.stores.keyTransactions.get(1), kt);
  assert.deepEqual(s.stores.keyTransactions.list(2).map((k) => [k.id, k.apdexT, k.browserApdexT]), [[2, 0.1, 3]]);
  const next = await s.stores.keyTransactions.create({ application: app(4), name: 'Checkout', metricName: 'WebTransaction/Expressjs/POST//checkout' });
  assert.equal(next.id, 3);
  assert.deepEqual((await s.db.all<{ n: bigint }>('SELECT count(*) AS n FROM key_transactions'))[0]!.n, 3n);
});

test('key transactions: what create refuses', async (t) => {
  const s = await open(t);
  const store = s.stores.keyTransactions;
  await store.create({ application: app(4), name: 'Users list', metricName: 'WebTransaction/Expressjs/GET//users' });
  const refused = [
    [{ name: '  ', metricName: 'WebTransaction/x' }, /^RangeError: a key transaction name is 1 to 255 characters$/],
    [{ name: 'x'.repeat(256), metricName: 'WebTransaction/x' }, /1 to 255 characters/],
    [{ name: 'Apdex', metricName: 'Apdex/Expressjs/GET//users' }, /'Apdex\/Expressjs\/GET\/\/users' is not a transaction metric: expected WebTransaction\/… or OtherTransaction\/…/],
    [{ name: 'Bare', metricName: 'WebTransaction/' }, /is not a transaction metric/],
    [{ name: 'users list', metricName: 'WebTransaction/y', apdexT: 0 }, /^RangeError: apdexT must be a positive number of seconds$/],
    [{ name: 'other', metricName: 'WebTransaction/y', browserApdexT: Number.NaN }, /browserApdexT must be a positive number/],
    [{ name: 'Users list', metricName: 'WebTransaction/y' }, /a key transaction named 'Users list' already exists/],
    [{ name: 'Again', metricName: 'WebTransaction/Expressjs/GET//users' }, /WebTransaction\/Expressjs\/GET\/\/users of application 4 already is key transaction 1/],
  ] as const;
  for (const [input, message] of refused) {
    await assert.rejects(store.create({ application: app(4), ...input }), (e: Error) => e instanceof RangeError && message.test(String(e)), JSON.stringify(input));
  }
  assert.equal(store.list(1).length, 1);
});

test('mobile applications: a token in New Relic\'s shape each, names unique per account, persisted', async (t) => {
  const s = await open(t);
  const a = await s.stores.mobileApplications.create(1, ' Shop iOS ');
  const b = await s.stores.mobileApplications.create(2, 'Shop iOS');
  assert.deepEqual([a.id, a.name, a.accountId, a.createdAt, b.id], [1, 'Shop iOS', 1, NOW, 2]);
  assert.match(a.applicationToken, /^AA[0-9a-f]{40}-NRMA$/);
  assert.notEqual(a.applicationToken, b.applicationToken);
  await assert.rejects(s.stores.mobileApplications.create(1, 'Shop iOS'), /RangeError: a mobile application named 'Shop iOS' already exists/);
  await assert.rejects(s.stores.mobileApplications.create(1, ''), /RangeError: a mobile application name is 1 to 255 characters/);
  await s.reopen();
  assert.deepEqual(s.stores.mobileApplications.get(1), a);
  assert.equal((await s.stores.mobileApplications.create(1, 'Shop Android')).id, 3);
});

test('browser applications: NerdGraph defaults, one browser key per account, one browser side per APM application', async (t) => {
  const s = await open(t);
  const store = s.stores.browserApplications;
  const site = await store.create({ accountId: 1, name: 'marketing-site' });
  assert.deepEqual({ ...site, browserMonitoringKey: '…' }, {
    id: 1, accountId: 1, name: 'marketing-site', browserMonitoringKey: '…',
    settings: { cookiesEnabled: true, distributedTracingEnabled: true, loaderType: 'SPA' }, apmApplicationId: null, createdAt: NOW,
  });
  assert.match(site.browserMonitoringKey, /^NRJS-[0-9a-f]{19}$/);
  const side = await store.create({ accountId: 1, name: 'checkout-web', apmApplicationId: 4, settings: { loaderType: 'PRO', cookiesEnabled: false } });
  assert.deepEqual(side.settings, { cookiesEnabled: false, distributedTracingEnabled: true, loaderType: 'PRO' });
  assert.equal(side.browserMonitoringKey, site.browserMonitoringKey, 'the account\'s key');
  const other = await store.create({ accountId: 2, name: 'marketing-site', settings: { loaderType: 'LITE', distributedTracingEnabled: undefined } });
  assert.notEqual(other.browserMonitoringKey, site.browserMonitoringKey);
  assert.equal(other.settings.distributedTracingEnabled, true, 'an undefined setting takes the default');
  await assert.rejects(store.create({ accountId: 1, name: 'checkout 2', apmApplicationId: 4 }),
    /RangeError: application 4 already has browser monitoring \(browser application 2\)/);
  await assert.rejects(store.create({ accountId: 1, name: 'marketing-site' }), /a browser application named 'marketing-site' already exists/);
  await assert.rejects(store.create({ accountId: 1, name: 'x', settings: { loaderType: 'FULL' as 'PRO' } }), /RangeError: loader type 'FULL' is not one of SPA, PRO, LITE/);
  await s.reopen();
  assert.deepEqual(s.stores.browserApplications.list(1), [site, side]);
  assert.deepEqual(s.stores.browserApplications.get(3), other);
});
