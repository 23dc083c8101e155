import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_APM_AGENT_SETTINGS, DEFAULT_BROWSER_MONITORING_SETTINGS, DEFAULT_MOBILE_AGENT_SETTINGS } from '../../domain/agent-settings/model.js';
import { browserApdexT } from '../browser-applications.js';
import type { Application } from '../catalog.js';
import type { EntityStores } from '../entity-stores.js';
import { DuckDbCatalog } from './duckdb-catalog.js';
import { Database } from './database.js';
import { loadDuckDbEntityStores } from './duckdb-entity-stores.js';
import { MIGRATIONS } from './migrations.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const clock = { now: () => NOW };

const app = (id: number, accountId = 1): Application => ({
  id, accountId, name: `app-${id}`, agentName: `app-${id}`, language: 'nodejs', apdexT: 0.5, endUserApdexT: 7,
  enableRealUserMonitoring: false, useServerSideConfig: false, agentSettings: DEFAULT_APM_AGENT_SETTINGS, createdAt: NOW,
});

const isRangeError = (message: string) => (e: unknown) => e instanceof RangeError && e.message === message;

/** Stores on a file in a temp directory; `reopen` closes the database and loads them again from it. */
async function open(t: { after(fn: () => Promise<void>): void }) {
  const dir = await mkdtemp(join(tmpdir(), 'timeslice-entities-'));
  let db = await Database.open({ path: join(dir, 'store.duckdb') });
  let stores = await loadDuckDbEntityStores(db, clock);
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
      stores = await loadDuckDbEntityStores(db, clock);
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
    settings: { cookiesEnabled: true, distributedTracingEnabled: true, loaderType: 'SPA' }, monitoring: DEFAULT_BROWSER_MONITORING_SETTINGS,
    apdexT: 7, apmApplicationId: null, createdAt: NOW,
  });
  assert.match(site.browserMonitoringKey, /^NRJS-[0-9a-f]{19}$/);
  const side = await store.create({ accountId: 1, name: 'checkout-web', apmApplicationId: 4, settings: { loaderType: 'PRO', cookiesEnabled: false } });
  assert.deepEqual(side.settings, { cookiesEnabled: false, distributedTracingEnabled: true, loaderType: 'PRO' });
  assert.deepEqual([side.monitoring.loader, side.monitoring.privacy.cookiesEnabled, side.apdexT], ['PRO', false, null]);
  assert.equal(side.browserMonitoringKey, site.browserMonitoringKey, 'the account\'s key');
  const other = await store.create({ accountId: 2, name: 'marketing-site', settings: { loaderType: 'LITE', distributedTracingEnabled: undefined } });
  assert.notEqual(other.browserMonitoringKey, site.browserMonitoringKey);
  assert.equal(other.settings.distributedTracingEnabled, true, 'an undefined setting takes the default');
  await assert.rejects(store.create({ accountId: 1, name: 'checkout 2', apmApplicationId: 4 }),
    /RangeError: application 4 already has browser monitoring \(browser application 2\)/);
  await assert.rejects(store.create({ accountId: 1, name: 'marketing-site' }), /a browser application named 'marketing-site' already exists/);
  await assert.rejects(store.create({ accountId: 1, name: 'x', settings: { loaderType: 'RUM' as 'PRO' } }), /RangeError: loader type 'RUM' is not one of SPA, PRO, LITE/);
  await assert.rejects(store.create({ accountId: 1, name: 'x', settings: { loaderType: 'NONE' as 'PRO' } }), /RangeError: loader type 'NONE' is not one of SPA, PRO, LITE/);
  await assert.rejects(store.create({ accountId: 1, name: 'x', settings: { cookiesEnabled: 'no' as unknown as boolean } }), /RangeError: privacy.cookiesEnabled must be true or false/);
  const full = await store.create({ accountId: 1, name: 'legacy', settings: { loaderType: 'FULL' as 'PRO' } });
  assert.deepEqual([full.settings.loaderType, full.monitoring.loader], ['PRO', 'PRO'], 'NerdGraph\'s deprecated FULL is PRO');
  await s.reopen();
  assert.deepEqual(s.stores.browserApplications.list(1), [site, side, full]);
  assert.deepEqual(s.stores.browserApplications.get(3), other);
});

test('key transactions: update and delete, written through; a deleted id is not handed out again, also after a restart', async (t) => {
  const s = await open(t);
  const store = s.stores.keyTransactions;
  const users = await store.create({ application: app(4), name: 'Users', metricName: 'WebTransaction/Expressjs/GET//users' });
  const checkout = await store.create({ application: app(4), name: 'Checkout', metricName: 'WebTransaction/Expressjs/POST//checkout' });
  await store.create({ application: app(9, 2), name: 'Export', metricName: 'OtherTransaction/Nodejs/export' });

  const renamed = await store.update(users.id, { name: ' Users list ', apdexT: 0.2 });
  assert.deepEqual(renamed, { ...users, name: 'Users list', apdexT: 0.2 });
  assert.deepEqual(await store.update(users.id, { browserApdexT: 2.5 }), { ...users, name: 'Users list', apdexT: 0.2, browserApdexT: 2.5 });
  assert.deepEqual(await store.update(users.id, { name: 'Users list' }), store.get(users.id), 'its own name is not taken');
  assert.equal(await store.update(99, { name: 'x' }), undefined);
  const refused = [
    [{ name: 'Checkout' }, "a key transaction named 'Checkout' already exists"],
    [{ name: '' }, 'a key transaction name is 1 to 255 characters'],
    [{ apdexT: 0 }, 'apdexT must be a positive number of seconds'],
    [{ browserApdexT: Number.POSITIVE_INFINITY }, 'browserApdexT must be a positive number of seconds'],
  ] as const;
  for (const [changes, message] of refused) await assert.rejects(store.update(users.id, changes), isRangeError(message), message);
  // Another account's name is not taken.
  assert.equal((await store.update(users.id, { name: 'Export' }))!.name, 'Export');

  assert.equal(await store.delete(checkout.id), true);
  assert.equal(await store.delete(checkout.id), false);
  assert.equal(store.get(checkout.id), undefined);
  await s.reopen();
  const reloaded = s.stores.keyTransactions;
  assert.deepEqual(reloaded.get(users.id), { ...users, name: 'Export', apdexT: 0.2, browserApdexT: 2.5 });
  assert.equal(reloaded.get(checkout.id), undefined);
  assert.equal(await reloaded.delete(3), true, 'the newest');
  await s.reopen();
  const next = await s.stores.keyTransactions.create({ application: app(4), name: 'Search', metricName: 'WebTransaction/Expressjs/GET//search' });
  assert.equal(next.id, 4, 'ids 2 and 3 were deleted, never handed out again');
  assert.deepEqual((await s.db.all<{ id: number }>('SELECT id FROM key_transactions ORDER BY id')).map((r) => r.id), [1, 4]);
});

test('key transactions and browser sides of a deleted application are forgotten; other applications\' stay', async (t) => {
  const s = await open(t);
  await s.stores.keyTransactions.create({ application: app(4), name: 'Users', metricName: 'WebTransaction/Expressjs/GET//users' });
  const kept = await s.stores.keyTransactions.create({ application: app(5), name: 'Other', metricName: 'WebTransaction/Expressjs/GET//other' });
  await s.stores.browserApplications.create({ accountId: 1, name: 'side of 4', apmApplicationId: 4 });
  const standalone = await s.stores.browserApplications.create({ accountId: 1, name: 'standalone' });
  s.stores.keyTransactions.forgetApplication(4);
  s.stores.browserApplications.forgetApplication(4);
  assert.deepEqual(s.stores.keyTransactions.list(1), [kept]);
  assert.deepEqual(s.stores.browserApplications.list(1), [standalone]);
});

test('mobile applications: settings start at the defaults; rename and settings written through; delete', async (t) => {
  const s = await open(t);
  const store = s.stores.mobileApplications;
  const ios = await store.create(1, 'Shop iOS');
  const android = await store.create(1, 'Shop Android');
  assert.deepEqual(ios.settings, DEFAULT_MOBILE_AGENT_SETTINGS);
  const settings = {
    useCrashReports: false,
    networkSettings: { filterMode: 'HIDE' as const, hideList: ['ads.example.com'], aliases: [{ alias: 'API', hosts: ['api.example.com', 'api2.example.com'] }] },
  };
  const updated = await store.update(ios.id, { name: 'Shop iOS (prod)', settings });
  const expected = {
    ...ios,
    name: 'Shop iOS (prod)',
    settings: {
      applicationExitInfo: { enabled: true },
      networkSettings: {
        aliases: [{ alias: 'API', hosts: ['api.example.com', 'api2.example.com'] }], filterMode: 'HIDE', hideList: ['ads.example.com'], showList: [],
        ignoredStatusCodeRules: [],
      },
      useCrashReports: false,
    },
  };
  assert.deepEqual(updated, expected);
  const refused = [
    [{ name: 'Shop Android' }, "a mobile application named 'Shop Android' already exists"],
    [{ name: '  ' }, 'a mobile application name is 1 to 255 characters'],
    [{ settings: { networkSettings: { filterMode: 'ALL' } } }, 'networkSettings.filterMode must be one of DISABLED, HIDE, SHOW'],
    [{ settings: { networkSettings: { ignoredStatusCodeRules: [{ hosts: ['a.example.com'], statusCodes: ['4xx'] }] } } },
      "networkSettings.ignoredStatusCodeRules[0].statusCodes: '4xx' is not an HTTP status"],
    [{ settings: { crashes: true } }, 'crashes is not a setting'],
  ] as const;
  for (const [changes, message] of refused) {
    await assert.rejects(store.update(ios.id, changes as never), isRangeError(message), message);
  }
  assert.deepEqual(store.get(ios.id), expected, 'refusals change nothing');
  assert.equal(await store.update(42, { name: 'x' }), undefined);
  const [row] = await s.db.all<{ name: string; settings: string }>('SELECT name, settings FROM mobile_applications WHERE id = $1', [ios.id]);
  assert.deepEqual({ ...row, settings: JSON.parse(row!.settings) }, { name: 'Shop iOS (prod)', settings: expected.settings });

  assert.equal(await store.delete(android.id), true);
  assert.equal(await store.delete(android.id), false);
  await s.reopen();
  assert.deepEqual(s.stores.mobileApplications.list(1), [expected]);
  const [untouched] = await s.db.all<{ settings: string | null }>('SELECT settings FROM mobile_applications WHERE id = $1', [ios.id]);
  assert.notEqual(untouched!.settings, null);
  const again = await s.stores.mobileApplications.create(1, 'Shop Android');
  assert.equal(again.id, 3, 'the deleted newest id 2 is not handed out again');
  const [fresh] = await s.db.all<{ settings: string | null }>('SELECT settings FROM mobile_applications WHERE id = 3');
  assert.equal(fresh!.settings, null, 'defaults are stored as NULL');
});

test('browser applications: the three settings and the monitoring settings are one set of facts; Apdex T; delete', async (t) => {
  const s = await open(t);
  const store = s.stores.browserApplications;
  const site = await store.create({ accountId: 1, name: 'marketing-site' });
  const side = await store.create({ accountId: 1, name: 'checkout-web', apmApplicationId: 4 });

  // Through `settings`: the monitoring settings change with them.
  const viaSettings = (await store.update(site.id, { settings: { loaderType: 'FULL' as 'PRO', cookiesEnabled: false } }))!;
  assert.deepEqual(viaSettings.settings, { cookiesEnabled: false, distributedTracingEnabled: true, loaderType: 'PRO' });
  assert.deepEqual([viaSettings.monitoring.loader, viaSettings.monitoring.privacy], ['PRO', { cookiesEnabled: false }]);
  // Through `monitoring`: the settings change with them; what it leaves out stays.
  const viaMonitoring = (await store.update(site.id, {
    name: 'Marketing site',
    apdexT: 3,
    monitoring: {
      loader: 'LITE', distributedTracing: { enabled: false, allowedOrigins: ['https://api.example.com'], corsEnabled: true },
      ajax: { denyList: ['bam.nr-data.net'] }, pinnedVersion: '1.285.0', sessionReplay: { enabled: true, samplingRate: 25 },
    },
  }))!;
  const monitoring = {
    ...DEFAULT_BROWSER_MONITORING_SETTINGS,
    ajax: { denyList: ['bam.nr-data.net'] },
    distributedTracing: { ...DEFAULT_BROWSER_MONITORING_SETTINGS.distributedTracing, enabled: false, allowedOrigins: ['https://api.example.com'], corsEnabled: true },
    loader: 'LITE',
    pinnedVersion: '1.285.0',
    privacy: { cookiesEnabled: false },
    sessionReplay: { ...DEFAULT_BROWSER_MONITORING_SETTINGS.sessionReplay, enabled: true, samplingRate: 25 },
  };
  assert.deepEqual(viaMonitoring, {
    ...site, name: 'Marketing site', apdexT: 3, monitoring, settings: { cookiesEnabled: false, distributedTracingEnabled: false, loaderType: 'LITE' },
  });
  // Both at once agree, or are refused.
  assert.equal((await store.update(site.id, { settings: { loaderType: 'SPA' }, monitoring: { loader: 'SPA' } }))!.settings.loaderType, 'SPA');
  const refused = [
    [{ settings: { loaderType: 'PRO' }, monitoring: { loader: 'LITE' } }, 'settings.loaderType and monitoring.loader are one setting, given two values'],
    [{ settings: { cookiesEnabled: true }, monitoring: { privacy: { cookiesEnabled: false } } },
      'settings.cookiesEnabled and monitoring.privacy.cookiesEnabled are one setting, given two values'],
    [{ monitoring: { loader: 'NONE' } }, "loader type 'NONE' is not one of SPA, PRO, LITE"],
    [{ monitoring: { sessionTrace: { errorSamplingRate: -1 } } }, 'sessionTrace.errorSamplingRate must be ≥ 0'],
    [{ monitoring: { pinnedVersion: 'next' } }, 'pinnedVersion must be a browser agent version such as "1.285.0", or null'],
    [{ apdexT: 0 }, 'apdexT must be a positive number of seconds'],
    [{ name: 'checkout-web' }, "a browser application named 'checkout-web' already exists"],
  ] as const;
  for (const [changes, message] of refused) await assert.rejects(store.update(site.id, changes as never), isRangeError(message), message);
  const current = store.get(site.id)!;
  assert.equal(current.settings.loaderType, 'SPA', 'refusals change nothing');

  // A browser side's Apdex T is its APM application's end-user Apdex T.
  await assert.rejects(store.update(side.id, { apdexT: 2 }),
    isRangeError(`browser application ${side.id} is the browser side of application 4: its Apdex T is that application's end-user Apdex T`));
  const catalog = { application: (id: number) => (id === 4 ? { endUserApdexT: 4.5 } : undefined) };
  assert.deepEqual([browserApdexT(current, catalog), browserApdexT(side, catalog)], [3, 4.5]);
  assert.equal(await store.update(77, { name: 'x' }), undefined);

  // The three facts live in their columns; the rest of the monitoring settings in monitoring_settings.
  const [row] = await s.db.all<Record<string, unknown>>(
    'SELECT name, cookies_enabled, distributed_tracing_enabled, loader_type, apdex_t, monitoring_settings FROM browser_applications WHERE id = $1', [site.id]);
  const { loader: _l, privacy: _p, distributedTracing: { enabled: _e, ...tracing }, ...rest } = current.monitoring;
  assert.deepEqual({ ...row, monitoring_settings: JSON.parse(row!.monitoring_settings as string) }, {
    name: 'Marketing site', cookies_enabled: false, distributed_tracing_enabled: false, loader_type: 'SPA', apdex_t: 3,
    monitoring_settings: { ...rest, distributedTracing: tracing },
  });
  const [sideRow] = await s.db.all<{ apdex_t: number | null; monitoring_settings: string | null }>(
    'SELECT apdex_t, monitoring_settings FROM browser_applications WHERE id = $1', [side.id]);
  assert.deepEqual(sideRow, { apdex_t: null, monitoring_settings: null });

  await s.reopen();
  assert.deepEqual(s.stores.browserApplications.get(site.id), current);
  assert.deepEqual(s.stores.browserApplications.get(side.id), side);
  assert.equal(await s.stores.browserApplications.delete(side.id), true);
  assert.equal(await s.stores.browserApplications.delete(side.id), false);
  await s.reopen();
  assert.deepEqual(s.stores.browserApplications.list(1), [current]);
  assert.equal((await s.stores.browserApplications.create({ accountId: 1, name: 'docs' })).id, 3, 'the deleted newest id 2 is not handed out again');
});

test('migration 7 upgrades a version-6 store with rows: settings at their defaults, a browser side without an Apdex T of its own', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'timeslice-migration-7-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'store.duckdb');
  const old = await Database.open({ path }, MIGRATIONS.filter((m) => m.version <= 6));
  const conn = old.catalogConnection;
  await conn.run(`INSERT INTO applications (id, account_id, name, agent_name, language, apdex_t, end_user_apdex_t, created_at)
    VALUES (4, 1, 'shop', 'shop', 'nodejs', 0.25, 3, TIMESTAMP '2026-11-01 10:00:00')`);
  await conn.run("INSERT INTO key_transactions VALUES (1, 1, 4, 'Users', 'WebTransaction/Expressjs/GET//users', 0.2, 3, TIMESTAMP '2026-11-01 10:00:00')");
  await conn.run("INSERT INTO key_transactions VALUES (5, 1, 4, 'Checkout', 'WebTransaction/Expressjs/POST//checkout', 0.2, 3, TIMESTAMP '2026-11-01 10:00:00')");
  await conn.run("INSERT INTO mobile_applications VALUES (2, 1, 'Shop iOS', 'AA0123456789abcdef0123456789abcdef01234567-NRMA', TIMESTAMP '2026-11-01 10:00:00')");
  await conn.run(`INSERT INTO browser_applications VALUES
    (1, 1, 'site', 'NRJS-0123456789abcdef012', false, true, 'LITE', NULL, TIMESTAMP '2026-11-01 10:00:00'),
    (3, 1, 'shop (browser)', 'NRJS-0123456789abcdef012', true, false, 'PRO', 4, TIMESTAMP '2026-11-01 10:00:00')`);
  await old.close();

  const db = await Database.open({ path });
  t.after(() => db.close());
  const versions = await db.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  assert.deepEqual(versions.map((v) => v.version), MIGRATIONS.map((m) => m.version));
  assert.deepEqual(await db.all('SELECT kind, highest FROM entity_ids ORDER BY kind'), [
    { kind: 'browser_applications', highest: 3 }, { kind: 'key_transactions', highest: 5 }, { kind: 'mobile_applications', highest: 2 },
  ]);
  assert.deepEqual(await db.all('SELECT id, apdex_t, monitoring_settings FROM browser_applications ORDER BY id'), [
    { id: 1, apdex_t: 7, monitoring_settings: null }, { id: 3, apdex_t: null, monitoring_settings: null },
  ]);
  const catalog = await DuckDbCatalog.load(db, clock);
  const shop = catalog.application(4)!;
  assert.deepEqual([shop.apdexT, shop.endUserApdexT, shop.useServerSideConfig, shop.agentSettings], [0.25, 3, false, DEFAULT_APM_AGENT_SETTINGS]);
  const stores = await loadDuckDbEntityStores(db, clock);
  assert.equal(browserApdexT(stores.browserApplications.get(3)!, catalog), 3, 'the side\'s Apdex T is the application\'s end-user Apdex T');
  assert.deepEqual(stores.browserApplications.list(1).map((b) => [b.id, b.apdexT, b.settings, b.monitoring.loader, b.monitoring.privacy.cookiesEnabled]), [
    [1, 7, { cookiesEnabled: false, distributedTracingEnabled: true, loaderType: 'LITE' }, 'LITE', false],
    [3, null, { cookiesEnabled: true, distributedTracingEnabled: false, loaderType: 'PRO' }, 'PRO', true],
  ]);
  assert.deepEqual(stores.mobileApplications.get(2)!.settings, DEFAULT_MOBILE_AGENT_SETTINGS);
  assert.deepEqual(stores.keyTransactions.list(1).map((k) => k.id), [1, 5]);
  assert.equal((await stores.keyTransactions.create({ application: app(4), name: 'Search', metricName: 'WebTransaction/Expressjs/GET//search' })).id, 6);
  assert.equal((await stores.mobileApplications.create(1, 'Shop Android')).id, 3);
  assert.equal((await stores.browserApplications.create({ accountId: 1, name: 'docs' })).id, 4);
});
