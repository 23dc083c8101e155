/**
 * The metric index on both engines: the embedded one beside its data in DuckDB, and the shared one
 * in PostgreSQL (the data still written through a DuckDB batch writer here). Same ids, names,
 * presence, reporting times and name limit; on PostgreSQL two nodes give a name the same id and see
 * each other's names and presence within a second.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rows, TIMESLICES } from '../../src/store/append-tables.js';
import { Database } from '../../src/store/duckdb/database.js';
import { DuckDbBatchWriter } from '../../src/store/duckdb/duckdb-batch-writer.js';
import { DuckDbMetricIndex } from '../../src/store/duckdb/duckdb-metric-index.js';
import type { MetricIndex, MetricWrite } from '../../src/store/metric-index.js';
import { openPostgresCatalog, type PostgresCatalog } from '../../src/store/postgres/open-postgres-catalog.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

const minute = Date.UTC(2026, 10, 22, 12, 0);
const A = { appId: 1, hostId: 1, instanceId: 1 };
const B = { appId: 1, hostId: 2, instanceId: 2 };
const OTHER = { appId: 2, hostId: 3, instanceId: 3 };

function harvest(names: readonly string[], targets: MetricWrite['targets'] = [A], scoped: [string, string][] = []) {
  const all = [...new Set([...names, ...scoped.flat()])];
  const write: MetricWrite = { names: all, unscoped: names, accountId: 1, targets };
  const build = (ids: ReadonlyMap<string, number>) => {
    const rows = new Rows(TIMESLICES);
    for (const t of targets) {
      for (const name of names) if (ids.has(name)) rows.push(1, t.appId, t.hostId, t.instanceId, ids.get(name)!, 0, minute, 1, 1, 1, 1, 1, 1);
      for (const [name, scope] of scoped) rows.push(1, t.appId, t.hostId, t.instanceId, ids.get(name)!, ids.get(scope)!, minute, 1, 1, 1, 1, 1, 1);
    }
    return [rows];
  };
  return [write, build] as const;
}

interface Opened { readonly index: MetricIndex; readonly db: Database; close(): Promise<void> }
interface Engine { readonly name: string; create(max?: number): Promise<{ open(): Promise<Opened> }> }

let server: TestPostgres;
let databases = 0;
const dirs: string[] = [];
const clock = { ms: minute + 60_000, now() { return this.ms; } };

async function duckdbData(dir: string) {
  const db = await Database.open({ path: join(dir, 'store.duckdb'), memoryLimit: '256MB' });
  const writer = new DuckDbBatchWriter(db.appendConnection);
  return { db, writer };
}

const ENGINES: Engine[] = [
  {
    name: 'duckdb',
    async create(max) {
      const dir = mkdtempSync(join(tmpdir(), 'timeslice-index-'));
      dirs.push(dir);
      return {
        async open() {
          const { db, writer } = await duckdbData(dir);
          const index = await DuckDbMetricIndex.load(db, writer, clock, max === undefined ? {} : { maxMetricNamesPerApp: max });
          return { index, db, async close() { await writer.close(); await db.close(); } };
        },
      };
    },
  },
  {
    name: 'postgres',
    async create(max) {
      const dir = mkdtempSync(join(tmpdir(), 'timeslice-index-'));
      dirs.push(dir);
      const url = await server.createDatabase(`index_${++databases}`);
      return {
        async open() {
          const { db, writer } = await duckdbData(dir);
          const pgc = await openPostgresCatalog(url, { clock });
          const index = await pgc.openMetricIndex(writer, max === undefined ? {} : { maxMetricNamesPerApp: max });
          return { index, db, async close() { await pgc.close(); await writer.close(); await db.close(); } };
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
  describe(`metric index on ${engine.name}`, () => {
    test('names get ids, presence is per instance, host and application; all of it persists', async () => {
      const made = await engine.create();
      let s = await made.open();
      try {
        await s.index.write(...harvest(['HttpDispatcher', 'Apdex'], [A], [['Datastore/all', 'WebTransaction/GET//users']]));
        await s.index.write(...harvest(['Apdex', 'Errors/all'], [B]));
        await s.index.write(...harvest(['Custom/other'], [OTHER]));
        const ids = ['HttpDispatcher', 'Apdex', 'Datastore/all', 'WebTransaction/GET//users', 'Errors/all', 'Custom/other'].map((n) => s.index.metricId(n));
        assert.equal(new Set(ids).size, 6);
        assert.ok(ids.every((id) => id !== undefined && s.index.nameOf(id) !== undefined));
        assert.equal(s.index.size, 6);
        assert.deepEqual(s.index.metricNames({ appId: 1 }), ['Apdex', 'Errors/all', 'HttpDispatcher']);
        assert.deepEqual(s.index.metricNames({ appId: 1, hostId: 2 }), ['Apdex', 'Errors/all']);
        assert.deepEqual(s.index.metricNames({ appId: 1, instanceId: 1 }), ['Apdex', 'HttpDispatcher']);
        assert.deepEqual([s.index.knows({ appId: 1 }, 'Datastore/all'), s.index.knows({ appId: 2 }, 'Apdex'), s.index.knows({ appId: 2 }, 'Custom/other')], [false, false, true]);
        assert.equal(s.index.lastReportedAt({ appId: 1 }), clock.ms);
        assert.equal(s.index.lastReportedAt({ appId: 3 }), undefined);
        const entries = new Map([...s.index.entries()].map(([id, name]) => [name, id]));
        assert.equal(entries.get('WebTransaction/GET//users'), s.index.metricId('WebTransaction/GET//users'));
        const before = Object.fromEntries(['HttpDispatcher', 'Apdex', 'Errors/all'].map((n) => [n, s.index.metricId(n)]));

        await s.close();
        s = await made.open();
        assert.deepEqual(Object.fromEntries(['HttpDispatcher', 'Apdex', 'Errors/all'].map((n) => [n, s.index.metricId(n)])), before);
        assert.deepEqual(s.index.metricNames({ appId: 1, hostId: 2 }), ['Apdex', 'Errors/all']);
        assert.equal(s.index.lastReportedAt({ appId: 1, instanceId: 2 }), minute + 60_000);
        s.index.forgetApplication(1);
        assert.deepEqual([s.index.metricNames({ appId: 1 }), s.index.lastReportedAt({ appId: 1 })], [[], undefined]);
        assert.deepEqual(s.index.metricNames({ appId: 2 }), ['Custom/other']);
      } finally {
        await s.close();
      }
    });

    test('a name with U+0000 gets an id and its data is written', async () => {
      const made = await engine.create();
      const s = await made.open();
      try {
        await s.index.write(...harvest(['Custom/a\u0000b', 'Custom/plain']));
        const id = s.index.metricId('Custom/a\u0000b');
        assert.notEqual(id, undefined);
        assert.equal(s.index.knows({ appId: 1 }, 'Custom/a\u0000b'), true);
        const rows = await s.db.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM timeslices WHERE metric_id = $1', [id!]);
        assert.deepEqual(rows, [{ n: 1 }]);
      } finally {
        await s.close();
      }
    });

    test("names past an application's limit are dropped for it, with one NrIntegrationError", async () => {
      const made = await engine.create(2);
      const s = await made.open();
      try {
        await s.index.write(...harvest(['One', 'Two', 'Three']));
        await s.index.write(...harvest(['One', 'Four']));
        assert.deepEqual(s.index.metricNames({ appId: 1 }), ['One', 'Two']);
        const rows = await s.db.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM timeslices');
        assert.deepEqual(rows, [{ n: 3 }]);
        const errors = await s.db.all<{ a: string }>("SELECT attributes AS a FROM custom_events WHERE event_type = 'NrIntegrationError' ORDER BY timestamp");
        assert.deepEqual(errors.map((e) => [JSON.parse(e.a).droppedCount, JSON.parse(e.a).metricNameSample]), [[1, 'Three'], [1, 'Four']]);
      } finally {
        await s.close();
      }
    });
  });
}

describe('metric index shared by two nodes (PostgreSQL)', () => {
  async function until(what: () => boolean, withinMs: number): Promise<number> {
    const started = performance.now();
    while (!what()) {
      if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return performance.now() - started;
  }

  test('both nodes give a name the same id; names, presence and reporting times reach the other node', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'timeslice-index-'));
    dirs.push(dir);
    const url = await server.createDatabase(`index_shared_${++databases}`);
    const { db, writer } = await duckdbData(dir);
    const nodes: PostgresCatalog[] = [];
    try {
      nodes.push(await openPostgresCatalog(url, { clock }), await openPostgresCatalog(url, { clock }));
      const one = await nodes[0]!.openMetricIndex(writer);
      const two = await nodes[1]!.openMetricIndex(writer);
      const names = Array.from({ length: 30 }, (_, i) => `Custom/m${i}`);
      await Promise.all([one.write(...harvest(names, [A])), two.write(...harvest([...names].reverse(), [B]))]);
      for (const name of names) assert.equal(one.metricId(name), two.metricId(name), name);
      await one.write(...harvest(['Only/one'], [OTHER]));
      const seenMs = await until(() => two.metricId('Only/one') !== undefined && two.knows({ appId: 2 }, 'Only/one'), 1000);
      assert.deepEqual(two.metricNames({ appId: 1, instanceId: 1 }), [...names].sort());
      await one.flushReported();
      await until(() => two.lastReportedAt({ appId: 2 }) === clock.ms, 1000);
      const timeslices = await db.all<{ n: number }>('SELECT count(DISTINCT metric_id)::INTEGER AS n FROM timeslices');
      assert.deepEqual(timeslices, [{ n: 31 }], 'one id per name in the data, whichever node wrote it');
      assert.ok(seenMs < 1000);
    } finally {
      for (const node of nodes) await node.close();
      await writer.close();
      await db.close();
    }
  });
});
