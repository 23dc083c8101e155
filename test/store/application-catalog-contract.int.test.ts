/**
 * Applications, hosts, instances and agent runs (the catalog's part agents write) on every engine:
 * the embedded DuckDB catalog and the shared PostgreSQL one answer the same; on PostgreSQL a run,
 * a settings change and a deletion made on one node are seen on another within a second.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationNotFoundError, type Catalog, type ConnectFacts, type IdleExpiry } from '../../src/store/catalog.js';
import { Database } from '../../src/store/duckdb/database.js';
import { DuckDbCatalog } from '../../src/store/duckdb/duckdb-catalog.js';
import { openPostgresCatalog, type PostgresCatalog } from '../../src/store/postgres/open-postgres-catalog.js';
import { ManualClock } from '../helpers/rest-fixture.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 30);
const HOUR = 3_600_000;
const EXPIRY: IdleExpiry = { runIdleMs: 24 * HOUR, instanceIdleMs: 48 * HOUR };

function facts(appNames: string[], overrides: Partial<ConnectFacts> = {}): ConnectFacts {
  return { appNames, language: 'nodejs', agentVersion: '13.0.0', host: 'web-1', displayHost: null, pid: 4242, port: 3000, userAgent: null, ...overrides };
}

interface Engine {
  readonly name: string;
  create(clock: ManualClock, forgotten: number[]): Promise<{ open(): Promise<{ catalog: Catalog; close(): Promise<void> }> }>;
}

let server: TestPostgres;
let databases = 0;
const dirs: string[] = [];

const ENGINES: Engine[] = [
  {
    name: 'duckdb',
    async create(clock, forgotten) {
      const dir = mkdtempSync(join(tmpdir(), 'timeslice-apps-'));
      dirs.push(dir);
      return {
        async open() {
          const db = await Database.open({ path: join(dir, 'catalog.duckdb'), memoryLimit: '256MB' });
          const catalog = await DuckDbCatalog.load(db, clock, { expiry: EXPIRY, dependents: [{ forgetApplication: (id) => forgotten.push(id) }] });
          return { catalog, close: () => db.close() };
        },
      };
    },
  },
  {
    name: 'postgres',
    async create(clock, forgotten) {
      const url = await server.createDatabase(`apps_${++databases}`);
      return {
        async open() {
          const pgc = await openPostgresCatalog(url, { clock, applications: { expiry: EXPIRY, dependents: [{ forgetApplication: (id) => forgotten.push(id) }] } });
          return { catalog: pgc.catalog, close: () => pgc.close() };
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
  describe(`applications and runs on ${engine.name}`, () => {
    test('connect finds or creates applications, hosts and instances; runs and settings persist', async () => {
      const clock = new ManualClock(T0);
      const made = await engine.create(clock, []);
      let store = await made.open();
      try {
        const { catalog } = store;
        const first = await catalog.connect(1, facts(['checkout', 'all-apps'], { language: null }));
        assert.equal(first.primary.name, 'checkout');
        assert.equal(first.primary.language, null);
        assert.equal(first.run.targets.length, 2);
        assert.deepEqual(catalog.run(first.run.runId), first.run);
        const [checkout, all] = first.run.targets.map((t) => t.appId) as [number, number];
        // The same process again: same application (its language now taken), host and instance; a new run.
        const again = await catalog.connect(1, facts(['checkout']));
        assert.deepEqual(again.run.targets, [first.run.targets[0]]);
        assert.notEqual(again.run.runId, first.run.runId);
        assert.equal(catalog.application(checkout)?.language, 'nodejs');
        // Another process on the same host: a new instance; another host: a new host.
        const other = await catalog.connect(1, facts(['checkout'], { pid: 7, agentVersion: '13.1.0' }));
        const elsewhere = await catalog.connect(1, facts(['checkout'], { host: 'web-2' }));
        assert.equal(other.run.targets[0]!.hostId, first.run.targets[0]!.hostId);
        assert.notEqual(other.run.targets[0]!.instanceId, first.run.targets[0]!.instanceId);
        assert.notEqual(elsewhere.run.targets[0]!.hostId, first.run.targets[0]!.hostId);
        assert.deepEqual(catalog.hostsOf(checkout).map((h) => h.name).sort(), ['web-1', 'web-2']);
        assert.deepEqual(catalog.instancesOf(checkout).map((i) => [i.pid, i.agentVersion]).sort(), [[4242, '13.0.0'], [4242, '13.0.0'], [7, '13.1.0']]);
        assert.deepEqual(catalog.instancesOf(all).length, 1);
        // Another account: the same name is another application.
        const acct2 = await catalog.connect(2, facts(['checkout']));
        assert.notEqual(acct2.primary.id, checkout);
        assert.deepEqual(catalog.applications(2).map((a) => a.id), [acct2.primary.id]);

        await assert.rejects(catalog.updateApplication(999, { name: 'x' }), (e: unknown) => e instanceof ApplicationNotFoundError && e.message === 'application 999 does not exist');
        await assert.rejects(catalog.updateApplication(checkout, { apdexT: 0 }), { message: 'apdexT must be a positive number of seconds' });
        await assert.rejects(
          catalog.updateApplication(checkout, { name: 'renamed', agentSettings: { transactionTracer: { stackTraceThreshold: -1 } } }),
          { name: 'RangeError', message: 'transactionTracer.stackTraceThreshold must be ≥ 0' },
        );
        const updated = await catalog.updateApplication(checkout, { name: ' Checkout (prod) ', apdexT: 0.25, agentSettings: { transactionTracer: { stackTraceThreshold: 2 } } });
        assert.deepEqual([updated.name, updated.agentName, updated.apdexT, updated.agentSettings.transactionTracer.stackTraceThreshold], ['Checkout (prod)', 'checkout', 0.25, 2]);
        // The renamed application still receives its agents, with the new Apdex T.
        assert.deepEqual([(await catalog.connect(1, facts(['checkout']))).primary.id, catalog.application(checkout)?.apdexT], [checkout, 0.25]);
        await catalog.shutdownRun(first.run.runId);
        assert.equal(catalog.run(first.run.runId)?.shutdown, true);
        // Six connects made six runs; one is shut down.
        const runs = [...catalog.allRuns!()];
        assert.equal(runs.length, 6);
        assert.deepEqual(runs.filter((r) => r.shutdown).map((r) => r.runId), [first.run.runId]);
        for (const r of [again, other, elsewhere, acct2]) assert.ok(runs.some((x) => x.runId === r.run.runId && !x.shutdown));

        await store.close();
        store = await made.open();
        const reopened = store.catalog;
        const app = reopened.application(checkout)!;
        assert.deepEqual([app.name, app.apdexT, app.agentSettings.transactionTracer.stackTraceThreshold, app.language], ['Checkout (prod)', 0.25, 2, 'nodejs']);
        assert.deepEqual(reopened.run(first.run.runId), { ...first.run, shutdown: true });
        assert.deepEqual(reopened.run(other.run.runId), other.run);
        assert.equal(reopened.instancesOf(checkout).length, 3);
      } finally {
        await store.close();
      }
    });

    test('deleting an application shuts its runs down and forgets it; its agents make a new one with a new id', async () => {
      const clock = new ManualClock(T0);
      const forgotten: number[] = [];
      const made = await engine.create(clock, forgotten);
      const store = await made.open();
      try {
        const { catalog } = store;
        const { run, primary } = await catalog.connect(1, facts(['doomed']));
        const release = catalog.holdRun(run.runId);
        let deleted = false;
        const deleting = catalog.deleteApplication(primary.id).then(() => { deleted = true; });
        await new Promise((r) => setTimeout(r, 50));
        assert.equal(deleted, false, 'waits for the data call in progress');
        assert.equal(catalog.run(run.runId)?.shutdown, true, 'new calls are refused already');
        release();
        await deleting;
        assert.deepEqual([catalog.application(primary.id), catalog.hostsOf(primary.id), catalog.instancesOf(primary.id), forgotten], [undefined, [], [], [primary.id]]);
        await assert.rejects(catalog.deleteApplication(primary.id), ApplicationNotFoundError);
        await assert.rejects(catalog.whileApplicationExists(primary.id, async () => 1), ApplicationNotFoundError);
        const reborn = await catalog.connect(1, facts(['doomed']));
        assert.ok(reborn.primary.id > primary.id, `new id ${reborn.primary.id} after ${primary.id}`);
        assert.equal(await catalog.whileApplicationExists(reborn.primary.id, async (app) => app.name), 'doomed');
      } finally {
        await store.close();
      }
    });

    test('idle runs expire after a day, idle instances after two, and a host with them', async () => {
      const clock = new ManualClock(T0);
      const made = await engine.create(clock, []);
      const store = await made.open();
      try {
        const { catalog } = store;
        const a = await catalog.connect(1, facts(['idle'], { pid: 1 }));
        const b = await catalog.connect(1, facts(['idle'], { pid: 2 }));
        clock.ms = T0 + HOUR;
        catalog.holdRun(b.run.runId)();
        clock.ms = T0 + 25 * HOUR;
        assert.deepEqual(await catalog.expireIdle(), { runs: 1, instances: 0, hosts: 0 });
        assert.equal(catalog.run(a.run.runId), undefined);
        assert.ok(catalog.run(b.run.runId));
        clock.ms = T0 + 50 * HOUR;
        assert.deepEqual(await catalog.expireIdle(), { runs: 1, instances: 2, hosts: 1 });
        assert.deepEqual([catalog.instancesOf(a.primary.id), catalog.hostsOf(a.primary.id)], [[], []]);
        assert.deepEqual(await catalog.expireIdle(), { runs: 0, instances: 0, hosts: 0 });
      } finally {
        await store.close();
      }
    });
  });
}

describe('applications shared by two nodes (PostgreSQL)', () => {
  async function until(what: () => boolean, withinMs: number): Promise<number> {
    const started = performance.now();
    while (!what()) {
      if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return performance.now() - started;
  }

  test('a run, a settings change and a deletion made on one node are seen on the other within a second', async () => {
    const url = await server.createDatabase(`apps_shared_${++databases}`);
    const clock = new ManualClock(T0);
    const forgottenOnTwo: number[] = [];
    const nodes: PostgresCatalog[] = [];
    try {
      nodes.push(
        await openPostgresCatalog(url, { clock, applications: { expiry: EXPIRY } }),
        await openPostgresCatalog(url, { clock, applications: { expiry: EXPIRY, dependents: [{ forgetApplication: (id) => forgottenOnTwo.push(id) }] } }),
      );
      const [one, two] = nodes.map((n) => n.catalog) as [PostgresCatalog['catalog'], PostgresCatalog['catalog']];
      // The agent connects to node one and sends its data to node two.
      const { run, primary } = await one.connect(1, facts(['shared']));
      const runMs = await until(() => two.run(run.runId) !== undefined, 1000);
      assert.deepEqual(two.run(run.runId), run);
      assert.deepEqual(two.application(primary.id), primary);
      // Both nodes connecting the same agent at once: one application, one host, one instance.
      const both = await Promise.all([one.connect(1, facts(['raced'])), two.connect(1, facts(['raced']))]);
      assert.deepEqual(both[0].run.targets, both[1].run.targets);

      await two.updateApplication(primary.id, { apdexT: 0.1 });
      const settingsMs = await until(() => one.application(primary.id)?.apdexT === 0.1, 1000);

      // Data calls served by node two count for expiry run on node one.
      clock.ms = T0 + 20 * HOUR;
      two.holdRun(run.runId)();
      await nodes[1]!.catalog.apps.flushHeard();
      clock.ms = T0 + 30 * HOUR;
      assert.deepEqual(await one.expireIdle(), { runs: 2, instances: 0, hosts: 0 }, 'the two raced runs, not the one node two heard from');
      assert.ok(two.run(run.runId) !== undefined);

      await one.deleteApplication(primary.id);
      const deleteMs = await until(() => two.application(primary.id) === undefined, 1000);
      assert.deepEqual(forgottenOnTwo, [primary.id]);
      assert.equal(two.run(run.runId)?.shutdown, true);
      assert.ok(Math.max(runMs, settingsMs, deleteMs) < 1000, `run ${runMs} ms, settings ${settingsMs} ms, delete ${deleteMs} ms`);
    } finally {
      for (const node of nodes) await node.close();
    }
  });
});

test('last-heard times a flush could not write (PostgreSQL stopped) are written by the next one', async () => {
  const url = await server.createDatabase(`apps_flush_${++databases}`);
  const clock = new ManualClock(T0);
  const pgc = await openPostgresCatalog(url, { clock });
  try {
    const { run } = await pgc.catalog.connect(1, facts(['flushed']));
    clock.ms = T0 + HOUR;
    pgc.catalog.holdRun(run.runId)();
    await server.halt();
    try {
      await assert.rejects(pgc.catalog.apps.flushHeard());
    } finally {
      await server.resume();
    }
    let flushed = false;
    for (let i = 0; i < 50 && !flushed; i++) {
      flushed = await pgc.catalog.apps.flushHeard().then(() => true, () => false);
      if (!flushed) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(flushed);
    const { rows } = await pgc.db.pool.query('SELECT last_heard_at FROM agent_runs WHERE run_id = $1', [run.runId]);
    assert.deepEqual(rows, [{ last_heard_at: T0 + HOUR }]);
  } finally {
    await pgc.close();
  }
});
