import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../clock.js';
import { Rows, TIMESLICES } from '../append-tables.js';
import { DuckDbBatchWriter } from './duckdb-batch-writer.js';
import { Database } from './database.js';
import type { MetricWrite } from '../metric-index.js';
import { DuckDbMetricIndex } from './duckdb-metric-index.js';
import { MIGRATIONS } from './migrations.js';

const minute = Date.UTC(2026, 10, 22, 12, 0);
const target = { appId: 1, hostId: 1, instanceId: 1 };

/** A write of one unscoped timeslice per name (and `scoped` as [name, scope] pairs) for the targets. */
function harvest(names: readonly string[], options: { scoped?: [string, string][]; targets?: MetricWrite['targets']; broken?: boolean } = {}) {
  const targets = options.targets ?? [target];
  const scoped = options.scoped ?? [];
  const all = [...new Set([...names, ...scoped.flat()])];
  const write: MetricWrite = { names: all, unscoped: names, accountId: 1, targets };
  const build = (ids: ReadonlyMap<string, number>) => {
    const rows = new Rows(TIMESLICES);
    for (const t of targets) {
      for (const name of names) rows.push(1, t.appId, t.hostId, t.instanceId, options.broken ? null : ids.get(name)!, 0, minute, 1, 1, 1, 1, 1, 1);
      for (const [name, scope] of scoped) rows.push(1, t.appId, t.hostId, t.instanceId, ids.get(name)!, ids.get(scope)!, minute, 1, 1, 1, 1, 1, 1);
    }
    return [rows];
  };
  return [write, build] as const;
}

interface Opened {
  readonly db: Database;
  readonly metrics: DuckDbMetricIndex;
  readonly commits: () => number;
  readonly clock: Clock & { ms: number };
  /** Closes the store (also done after the test). */
  readonly close: () => Promise<void>;
}

async function open(t: { after(fn: () => Promise<void>): void }, path = ':memory:'): Promise<Opened> {
  const db = await Database.open({ path });
  let isOpen = true;
  const close = async () => {
    if (isOpen) await db.close();
    isOpen = false;
  };
  t.after(close);
  const clock = { ms: minute + 90_000, now() { return this.ms; } };
  const writer = new DuckDbBatchWriter(db.appendConnection);
  let commits = 0;
  const run = db.appendConnection.run.bind(db.appendConnection);
  db.appendConnection.run = (async (sql: string, ...rest: unknown[]) => {
    if (sql === 'COMMIT') commits++;
    return (run as (...a: unknown[]) => unknown)(sql, ...rest);
  }) as typeof db.appendConnection.run;
  return { db, metrics: await DuckDbMetricIndex.load(db, writer, clock), commits: () => commits, clock, close };
}

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'timeslice-metric-index-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('new names and presence rows commit in the same transaction as the data using them', async (t) => {
  const { db, metrics, commits } = await open(t);
  await metrics.write(...harvest(['HttpDispatcher', 'Apdex']));
  assert.equal(commits(), 1);
  const stored = await db.all<{ name: string }>(
    'SELECT m.name FROM timeslices t JOIN metric_names m ON m.id = t.metric_id ORDER BY m.name');
  assert.deepEqual(stored.map((r) => r.name), ['Apdex', 'HttpDispatcher']);
  const presence = await db.all<{ name: string }>(
    'SELECT m.name FROM metric_presence p JOIN metric_names m ON m.id = p.metric_id ORDER BY m.name');
  assert.deepEqual(presence.map((r) => r.name), ['Apdex', 'HttpDispatcher']);
  // Known names and tuples add no rows: one of the two names is new.
  await metrics.write(...harvest(['Apdex', 'Errors/all']));
  const [n] = await db.all<{ names: bigint; presence: bigint }>(
    'SELECT (SELECT count(*) FROM metric_names) AS names, (SELECT count(*) FROM metric_presence) AS presence');
  assert.deepEqual([Number(n!.names), Number(n!.presence)], [3, 3]);
  assert.equal(commits(), 2);
});

test('a write that fails forgets the names and presence it introduced, and the next one introduces them again', async (t) => {
  const { db, metrics } = await open(t);
  // metric_id NULL breaks the NOT NULL constraint: the whole write, names and presence included, is refused.
  await assert.rejects(metrics.write(...harvest(['Lost'], { broken: true })));
  assert.equal(metrics.size, 0);
  assert.equal(metrics.metricId('Lost'), undefined);
  assert.equal(metrics.knows({ appId: 1 }, 'Lost'), false);
  assert.deepEqual(metrics.metricNames({ appId: 1 }), []);
  assert.equal(metrics.lastReportedAt({ appId: 1 }), undefined, 'nothing was stored, so nothing was reported');
  const [phantom] = await db.all<{ n: bigint }>('SELECT count(*) AS n FROM metric_presence');
  assert.equal(Number(phantom!.n), 0);

  await metrics.write(...harvest(['Lost']));
  const rows = await db.all<{ name: string }>('SELECT m.name FROM metric_presence p JOIN metric_names m ON m.id = p.metric_id');
  assert.deepEqual(rows, [{ name: 'Lost' }]);
  assert.equal(metrics.knows({ appId: 1 }, 'Lost'), true);
});

test('a failed write does not take away presence that committed before it', async (t) => {
  const { metrics } = await open(t);
  await metrics.write(...harvest(['Kept']));
  await assert.rejects(metrics.write(...harvest(['Kept', 'New'], { broken: true })));
  assert.deepEqual(metrics.metricNames({ appId: 1 }), ['Kept']);
});

test('data using a name or presence another write is still committing waits for it, and fails with it', async (t) => {
  const { db, metrics } = await open(t);
  const creator = metrics.write(...harvest(['Shared'], { broken: true }));
  const user = metrics.write(...harvest(['Shared']));
  await assert.rejects(creator);
  await assert.rejects(user, 'no row may point at a name that was never stored');
  const [n] = await db.all<{ n: bigint }>('SELECT count(*) AS n FROM timeslices');
  assert.equal(Number(n!.n), 0);
  assert.equal(metrics.knows({ appId: 1 }, 'Shared'), false);
});

test('a second write of a tuple in flight waits for its commit and then sees it known', async (t) => {
  const { db, metrics } = await open(t);
  await metrics.write(...harvest(['A']));
  // Both writes introduce the presence of B for the same instance; only one presence row is written.
  await Promise.all([metrics.write(...harvest(['A', 'B'])), metrics.write(...harvest(['B']))]);
  const [n] = await db.all<{ n: bigint }>("SELECT count(*) AS n FROM metric_presence p JOIN metric_names m ON m.id = p.metric_id WHERE m.name = 'B'");
  assert.equal(Number(n!.n), 1);
  assert.deepEqual(metrics.metricNames({ appId: 1 }), ['A', 'B']);
});

test('metric names are the unscoped ones of the app, host or instance, sorted; scopes and scoped-only names are not metrics', async (t) => {
  const { metrics } = await open(t);
  const a1 = { appId: 1, hostId: 10, instanceId: 100 };
  const a2 = { appId: 1, hostId: 10, instanceId: 101 };
  const a3 = { appId: 1, hostId: 11, instanceId: 102 };
  const rollup = { appId: 2, hostId: 20, instanceId: 200 };
  await metrics.write(...harvest(['WebTransaction', 'HttpDispatcher'], {
    targets: [a1, rollup],
    scoped: [['Datastore/Only/Scoped', 'WebTransaction/Expressjs/GET//x']],
  }));
  await metrics.write(...harvest(['Apdex'], { targets: [a2] }));
  await metrics.write(...harvest(['CPU/User Time'], { targets: [a3] }));

  assert.deepEqual(metrics.metricNames({ appId: 1 }), ['Apdex', 'CPU/User Time', 'HttpDispatcher', 'WebTransaction']);
  assert.deepEqual(metrics.metricNames({ appId: 1, hostId: 10 }), ['Apdex', 'HttpDispatcher', 'WebTransaction']);
  assert.deepEqual(metrics.metricNames({ appId: 1, instanceId: 101 }), ['Apdex']);
  assert.deepEqual(metrics.metricNames({ appId: 1, hostId: 11, instanceId: 101 }), [], 'instance 101 is not on host 11');
  assert.deepEqual(metrics.metricNames({ appId: 2 }), ['HttpDispatcher', 'WebTransaction']);
  assert.deepEqual(metrics.metricNames({ appId: 3 }), []);

  assert.equal(metrics.knows({ appId: 1 }, 'Apdex'), true);
  assert.equal(metrics.knows({ appId: 1, hostId: 11 }, 'Apdex'), false);
  assert.equal(metrics.knows({ appId: 2 }, 'Apdex'), false);
  assert.equal(metrics.knows({ appId: 1 }, 'Datastore/Only/Scoped'), false, 'stored only under a scope');
  assert.equal(metrics.knows({ appId: 1 }, 'WebTransaction/Expressjs/GET//x'), false, 'a scope name alone');
  assert.equal(metrics.knows({ appId: 1 }, 'WebFrontend/QueueTime'), false);

  assert.equal(typeof metrics.metricId('Datastore/Only/Scoped'), 'number', 'scoped names still have ids for SQL');
  assert.equal(metrics.metricId('Never/Seen'), undefined);
});

test('last reported: the server time of the last stored metric_data; after a restart, the last stored minute + 60 s', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'index.duckdb');
  const first = await open(t, path);
  const i1 = { appId: 1, hostId: 1, instanceId: 1 };
  const i2 = { appId: 1, hostId: 2, instanceId: 2 };
  first.clock.ms = Date.UTC(2026, 10, 22, 12, 3, 10);
  await first.metrics.write(...harvest(['HttpDispatcher'], { targets: [i1] }));
  first.clock.ms = Date.UTC(2026, 10, 22, 12, 4, 20);
  await first.metrics.write(...harvest(['Apdex'], { targets: [i2] }));
  assert.equal(first.metrics.lastReportedAt({ appId: 1 }), Date.UTC(2026, 10, 22, 12, 4, 20));
  assert.equal(first.metrics.lastReportedAt({ appId: 1, hostId: 1 }), Date.UTC(2026, 10, 22, 12, 3, 10));
  assert.equal(first.metrics.lastReportedAt({ appId: 1, instanceId: 2 }), Date.UTC(2026, 10, 22, 12, 4, 20));
  assert.equal(first.metrics.lastReportedAt({ appId: 9 }), undefined);
  await first.close();

  const second = await open(t, path);
  // Both harvests are filed under the minute 12:00 (the test rows' ts): known to be stored by 12:01.
  assert.equal(second.metrics.lastReportedAt({ appId: 1 }), minute + 60_000);
  assert.equal(second.metrics.lastReportedAt({ appId: 1, instanceId: 2 }), minute + 60_000);
  // Presence and names came back from the table.
  assert.deepEqual(second.metrics.metricNames({ appId: 1 }), ['Apdex', 'HttpDispatcher']);
  assert.deepEqual(second.metrics.metricNames({ appId: 1, hostId: 2 }), ['Apdex']);
  assert.equal(second.metrics.metricId('Apdex'), first.metrics.metricId('Apdex'));
});

test('migration 2 backfills presence from the timeslices a migration-1 store holds, and adds application settings', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'old.duckdb');
  const old = await Database.open({ path }, MIGRATIONS.slice(0, 1));
  const conn = old.catalogConnection;
  await conn.run("INSERT INTO applications VALUES (1, 1, 'legacy-app', 'nodejs', 0.25, now())");
  await conn.run("INSERT INTO metric_names VALUES (1, 'HttpDispatcher'), (2, 'Apdex'), (3, 'WebTransaction/Expressjs/GET//a'), (4, 'Datastore/all')");
  // Unscoped HttpDispatcher twice (two harvests) on instance 1, Apdex on instance 2; Datastore/all only scoped.
  await conn.run(`INSERT INTO timeslices VALUES
    (1, 1, 1, 1, 1, 0, TIMESTAMP '2026-11-22 12:00:00', 1, 1, 1, 1, 1, 1),
    (1, 1, 1, 1, 1, 0, TIMESTAMP '2026-11-22 12:05:00', 1, 1, 1, 1, 1, 1),
    (1, 1, 1, 2, 2, 0, TIMESTAMP '2026-11-22 12:02:00', 1, 1, 1, 1, 1, 1),
    (1, 1, 1, 1, 4, 3, TIMESTAMP '2026-11-22 12:05:00', 1, 1, 1, 1, 1, 1)`);
  await old.close();

  const { db, metrics } = await open(t, path);
  const presence = await db.all<{ instance_id: number; metric_id: number }>(
    'SELECT instance_id, metric_id FROM metric_presence ORDER BY instance_id, metric_id');
  assert.deepEqual(presence, [{ instance_id: 1, metric_id: 1 }, { instance_id: 2, metric_id: 2 }]);
  assert.deepEqual(metrics.metricNames({ appId: 1 }), ['Apdex', 'HttpDispatcher']);
  assert.deepEqual(metrics.metricNames({ appId: 1, instanceId: 2 }), ['Apdex']);
  assert.equal(metrics.knows({ appId: 1 }, 'Datastore/all'), false);
  assert.equal(metrics.lastReportedAt({ appId: 1 }), Date.UTC(2026, 10, 22, 12, 6));
  assert.equal(metrics.lastReportedAt({ appId: 1, instanceId: 2 }), Date.UTC(2026, 10, 22, 12, 3));

  const [app] = await db.all('SELECT name, agent_name, apdex_t, end_user_apdex_t, enable_real_user_monitoring, use_server_side_config FROM applications');
  assert.deepEqual(app, {
    name: 'legacy-app', agent_name: 'legacy-app', apdex_t: 0.25, end_user_apdex_t: 7, enable_real_user_monitoring: false, use_server_side_config: false,
  });
  const versions = await db.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  assert.deepEqual(versions.map((v) => v.version), MIGRATIONS.map((m) => m.version));
});

test('retired instances fold into their host, and into the application once the host is gone: names and last-reported times stay', async (t) => {
  const s = await open(t);
  const at = (appId: number, hostId: number, instanceId: number) => ({ appId, hostId, instanceId });
  await s.metrics.write(...harvest(['A'], { targets: [at(1, 1, 1)] }));
  s.clock.ms += 60_000;
  await s.metrics.write(...harvest(['B'], { targets: [at(1, 1, 2)] }));
  s.clock.ms += 60_000;
  await s.metrics.write(...harvest(['C'], { targets: [at(1, 2, 3)] }));
  const before = [s.metrics.lastReportedAt({ appId: 1 }), s.metrics.lastReportedAt({ appId: 1, hostId: 1 }), s.metrics.lastReportedAt({ appId: 1, hostId: 2 })];
  s.metrics.retireInstances({ instances: new Set([2]), hosts: new Set([1]) });
  assert.deepEqual(s.metrics.metricNames({ appId: 1 }), ['A', 'B', 'C']);
  assert.deepEqual(s.metrics.metricNames({ appId: 1, hostId: 1 }), ['A', 'B']);
  assert.deepEqual(s.metrics.metricNames({ appId: 1, instanceId: 1 }), [], 'instance 1 has no entry of its own any more');
  assert.deepEqual(s.metrics.metricNames({ appId: 1, instanceId: 2 }), ['B']);
  assert.equal(s.metrics.knows({ appId: 1 }, 'C'), true);
  assert.deepEqual([s.metrics.lastReportedAt({ appId: 1 }), s.metrics.lastReportedAt({ appId: 1, hostId: 1 })], before.slice(0, 2));
  s.metrics.retireInstances({ instances: new Set(), hosts: new Set() });
  assert.deepEqual(s.metrics.metricNames({ appId: 1 }), ['A', 'B', 'C']);
  assert.deepEqual(s.metrics.metricNames({ appId: 1, hostId: 1 }), []);
  assert.equal(s.metrics.lastReportedAt({ appId: 1 }), before[0]);
});
