/**
 * Key transactions, mobile and browser applications on every engine: the embedded DuckDB store and
 * the shared PostgreSQL catalog keep the same entities; on PostgreSQL what one node creates,
 * changes or deletes is seen on another within a second, and ids never collide between nodes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_BROWSER_MONITORING_SETTINGS, DEFAULT_MOBILE_AGENT_SETTINGS } from '../../src/domain/agent-settings/model.js';
import type { Catalog, ConnectFacts } from '../../src/store/catalog.js';
import { Database } from '../../src/store/duckdb/database.js';
import { DuckDbCatalog } from '../../src/store/duckdb/duckdb-catalog.js';
import { loadDuckDbEntityStores } from '../../src/store/duckdb/duckdb-entity-stores.js';
import type { EntityStores } from '../../src/store/entity-stores.js';
import { openPostgresCatalog, type PostgresCatalog } from '../../src/store/postgres/open-postgres-catalog.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const clock = { now: () => NOW };

const facts = (name: string): ConnectFacts => ({
  appNames: [name], language: 'nodejs', agentVersion: '13.0.0', host: 'web-1', displayHost: null, pid: 1, port: 3000, userAgent: null,
});

interface Opened { readonly catalog: Catalog; readonly entities: EntityStores; close(): Promise<void> }
interface Engine {
  readonly name: string;
  create(): Promise<{ open(): Promise<Opened> }>;
}

let server: TestPostgres;
let databases = 0;
const dirs: string[] = [];

const ENGINES: Engine[] = [
  {
    name: 'duckdb',
    async create() {
      const dir = mkdtempSync(join(tmpdir(), 'timeslice-entities-'));
      dirs.push(dir);
      return {
        async open() {
          const db = await Database.open({ path: join(dir, 'store.duckdb'), memoryLimit: '256MB' });
          const entities = await loadDuckDbEntityStores(db, clock);
          const catalog = await DuckDbCatalog.load(db, clock, { dependents: [entities.keyTransactions, entities.browserApplications] });
          return { catalog, entities, close: () => db.close() };
        },
      };
    },
  },
  {
    name: 'postgres',
    async create() {
      const url = await server.createDatabase(`entities_${++databases}`);
      return {
        async open() {
          const pgc = await openPostgresCatalog(url, { clock });
          return { catalog: pgc.catalog, entities: pgc.entities, close: () => pgc.close() };
        },
      };
    },
  },
];

before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

for (const engine of ENGINES) {
  describe(`entity stores on ${engine.name}`, () => {
    test('key transactions and mobile applications persist with their settings; ids go on after a restart', async () => {
      const made = await engine.create();
      let s = await made.open();
      try {
        const { primary: users } = await s.catalog.connect(1, facts('users-api'));
        const kt = await s.catalog.whileApplicationExists(users.id, (app) =>
          s.entities.keyTransactions.create({ application: app, name: ' Users list ', metricName: 'WebTransaction/Expressjs/GET//users' }));
        assert.deepEqual(kt, { id: 1, accountId: 1, appId: users.id, name: 'Users list', metricName: 'WebTransaction/Expressjs/GET//users', apdexT: 0.5, browserApdexT: 7, createdAt: NOW });
        await assert.rejects(
          s.entities.keyTransactions.create({ application: users, name: 'Users list', metricName: 'WebTransaction/Expressjs/GET//other' }),
          /a key transaction named 'Users list' already exists/,
        );
        const second = await s.entities.keyTransactions.create({ application: users, name: 'Job', metricName: 'OtherTransaction/Nodejs/job', apdexT: 0.1 });
        const ios = await s.entities.mobileApplications.create(1, 'Shop iOS');
        assert.deepEqual(ios.settings, DEFAULT_MOBILE_AGENT_SETTINGS);
        const updated = (await s.entities.mobileApplications.update(ios.id, { name: 'Shop iOS (prod)', settings: { useCrashReports: false } }))!;
        assert.equal(updated.settings.useCrashReports, false);
        await s.close();
        s = await made.open();
        assert.deepEqual(s.entities.keyTransactions.list(1), [kt, second]);
        assert.deepEqual(s.entities.mobileApplications.get(ios.id), updated);
        const next = await s.entities.keyTransactions.create({ application: users, name: 'Checkout', metricName: 'WebTransaction/Expressjs/POST//checkout' });
        assert.equal(next.id, 3, 'the next id above the highest handed out');
        assert.equal(await s.entities.keyTransactions.delete(second.id), true);
        assert.equal(await s.entities.keyTransactions.delete(second.id), false);
        // The highest deleted, then a restart: its id is not handed out again.
        assert.equal(await s.entities.keyTransactions.delete(next.id), true);
        await s.close();
        s = await made.open();
        const after = await s.entities.keyTransactions.create({ application: users, name: 'After', metricName: 'WebTransaction/Expressjs/GET//after' });
        assert.equal(after.id, 4);
      } finally {
        await s.close();
      }
    });

    test('browser applications: NerdGraph defaults, one key per account, one browser side per application, persisted', async () => {
      const made = await engine.create();
      let s = await made.open();
      try {
        const store = s.entities.browserApplications;
        const site = await store.create({ accountId: 1, name: 'marketing-site' });
        assert.deepEqual({ ...site, browserMonitoringKey: '…' }, {
          id: 1, accountId: 1, name: 'marketing-site', browserMonitoringKey: '…',
          settings: { cookiesEnabled: true, distributedTracingEnabled: true, loaderType: 'SPA' }, monitoring: DEFAULT_BROWSER_MONITORING_SETTINGS,
          apdexT: 7, apmApplicationId: null, createdAt: NOW,
        });
        const side = await store.create({ accountId: 1, name: 'checkout-web', apmApplicationId: 4, settings: { loaderType: 'PRO', cookiesEnabled: false } });
        assert.equal(side.browserMonitoringKey, site.browserMonitoringKey);
        await assert.rejects(store.create({ accountId: 1, name: 'checkout 2', apmApplicationId: 4 }), /application 4 already has browser monitoring \(browser application 2\)/);
        await s.close();
        s = await made.open();
        assert.deepEqual(s.entities.browserApplications.list(1), [site, side]);
      } finally {
        await s.close();
      }
    });

    test("deleting an application deletes its key transactions and browser side, not other applications'", async () => {
      const made = await engine.create();
      let s = await made.open();
      try {
        const { primary: doomed } = await s.catalog.connect(1, facts('doomed'));
        const { primary: kept } = await s.catalog.connect(1, facts('kept'));
        await s.entities.keyTransactions.create({ application: doomed, name: 'Gone', metricName: 'WebTransaction/Expressjs/GET//gone' });
        const stays = await s.entities.keyTransactions.create({ application: kept, name: 'Stays', metricName: 'WebTransaction/Expressjs/GET//stays' });
        await s.entities.browserApplications.create({ accountId: 1, name: 'side', apmApplicationId: doomed.id });
        const standalone = await s.entities.browserApplications.create({ accountId: 1, name: 'standalone' });
        await s.catalog.deleteApplication(doomed.id);
        assert.deepEqual([s.entities.keyTransactions.list(1), s.entities.browserApplications.list(1)], [[stays], [standalone]]);
        await s.close();
        s = await made.open();
        assert.deepEqual([s.entities.keyTransactions.list(1), s.entities.browserApplications.list(1)], [[stays], [standalone]]);
      } finally {
        await s.close();
      }
    });
  });
}

describe('entity stores shared by two nodes (PostgreSQL)', () => {
  async function until(what: () => boolean, withinMs: number): Promise<number> {
    const started = performance.now();
    while (!what()) {
      if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return performance.now() - started;
  }

  test('created, updated and deleted on one node, seen on the other within a second; ids never collide', async () => {
    const url = await server.createDatabase(`entities_shared_${++databases}`);
    const nodes: PostgresCatalog[] = [];
    try {
      nodes.push(await openPostgresCatalog(url, { clock }), await openPostgresCatalog(url, { clock }));
      const [one, two] = nodes as [PostgresCatalog, PostgresCatalog];
      const made = await Promise.all([
        one.entities.mobileApplications.create(1, 'a'), two.entities.mobileApplications.create(1, 'b'),
        one.entities.mobileApplications.create(1, 'c'), two.entities.mobileApplications.create(1, 'd'),
      ]);
      // Both nodes start from the same highest id: the one whose insert comes second takes the next.
      assert.deepEqual(made.map((m) => m.id).sort((a, b) => a - b), [1, 2, 3, 4]);
      const seenMs = await until(() => one.entities.mobileApplications.list(1).length === 4 && two.entities.mobileApplications.list(1).length === 4, 1000);
      const site = await one.entities.browserApplications.create({ accountId: 1, name: 'site' });
      await until(() => two.entities.browserApplications.get(site.id) !== undefined, 1000);
      assert.deepEqual(two.entities.browserApplications.get(site.id), site);
      await two.entities.browserApplications.update(site.id, { name: 'site (renamed)' });
      const updatedMs = await until(() => one.entities.browserApplications.get(site.id)?.name === 'site (renamed)', 1000);
      await one.entities.mobileApplications.delete(made[1].id);
      const deletedMs = await until(() => two.entities.mobileApplications.get(made[1].id) === undefined, 1000);
      assert.ok(Math.max(seenMs, updatedMs, deletedMs) < 1000);
    } finally {
      for (const node of nodes) await node.close();
    }
  });
});

describe('entity names across nodes (PostgreSQL)', () => {
  test('two nodes creating the same name at once: one succeeds, the other is refused as on one node', async () => {
    const url = await server.createDatabase(`entities_names_${++databases}`);
    const nodes: PostgresCatalog[] = [];
    try {
      nodes.push(await openPostgresCatalog(url, { clock }), await openPostgresCatalog(url, { clock }));
      const [one, two] = nodes as [PostgresCatalog, PostgresCatalog];
      const results = await Promise.allSettled([one.entities.mobileApplications.create(1, 'Shop'), two.entities.mobileApplications.create(1, 'Shop')]);
      assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
      const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      assert.ok(refused.reason instanceof RangeError);
      assert.equal(refused.reason.message, "a mobile application named 'Shop' already exists");
      // Another account may use the name; a browser side per application, whichever node makes it.
      await two.entities.mobileApplications.create(2, 'Shop');
      const sides = await Promise.allSettled([
        one.entities.browserApplications.create({ accountId: 1, name: 'side a', apmApplicationId: 9 }),
        two.entities.browserApplications.create({ accountId: 1, name: 'side b', apmApplicationId: 9 }),
      ]);
      assert.deepEqual(sides.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
      const made = (sides.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ id: number }>).value;
      assert.equal((sides.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason.message, `application 9 already has browser monitoring (browser application ${made.id})`);
      // A rename onto a taken name is refused too.
      const other = await one.entities.mobileApplications.create(1, 'Other');
      await new Promise((r) => setTimeout(r, 50));
      await assert.rejects(two.entities.mobileApplications.update(other.id, { name: 'Shop' }), { name: 'RangeError', message: "a mobile application named 'Shop' already exists" });
    } finally {
      for (const node of nodes) await node.close();
    }
  });
});

test('PostgreSQL text cannot hold U+0000: such a name given through the APIs is refused, one an agent reports is stored with U+FFFD', async () => {
  const url = await server.createDatabase(`entities_nul_${++databases}`);
  const pgc = await openPostgresCatalog(url, { clock });
  try {
    await assert.rejects(pgc.entities.mobileApplications.create(1, 'a\u0000b'), { name: 'RangeError', message: 'a mobile application name cannot contain the NUL character (U+0000)' });
    await assert.rejects(pgc.catalog.createAccount('x\u0000'), { name: 'RangeError', message: 'an account name cannot contain the NUL character (U+0000)' });
    const { primary } = await pgc.catalog.connect(1, { ...facts('agent\u0000app'), host: 'h\u0000' });
    assert.equal(primary.name, 'agent\uFFFDapp');
    assert.equal(pgc.catalog.hostsOf(primary.id)[0]!.name, 'h\uFFFD');
    assert.equal((await pgc.catalog.connect(1, facts('agent\u0000app'))).primary.id, primary.id, 'the same agent finds its application again');
    await assert.rejects(pgc.catalog.updateApplication(primary.id, { name: 'n\u0000' }), { name: 'RangeError', message: 'an application name cannot contain the NUL character (U+0000)' });
  } finally {
    await pgc.close();
  }
});
