/**
 * Deployments' ids and REST's deletions on every engine: the embedded store keeps them beside the
 * events in DuckDB; a shared catalog keeps them in PostgreSQL (events still in the data engine),
 * where two nodes hand out distinct ids and hide the same deleted deployment.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withDeploymentState } from '../../src/store/deployment-state.js';
import { Deployments, type ChangeTrackingRecords } from '../../src/store/deployments.js';
import { Database } from '../../src/store/duckdb/database.js';
import { DuckDbBatchWriter } from '../../src/store/duckdb/duckdb-batch-writer.js';
import { DuckDbChangeTrackingRecords } from '../../src/store/duckdb/duckdb-change-tracking.js';
import { openPostgresDatabase, type PostgresDatabase } from '../../src/store/postgres/pg-database.js';
import { PgDeploymentState } from '../../src/store/postgres/pg-deployment-state.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const clock = { now: () => NOW };
const APP = { id: 4, accountId: 1, name: 'checkout' };

let server: TestPostgres;
let databases = 0;
const dirs: string[] = [];
before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function duckdb(): Promise<{ db: Database; writer: DuckDbBatchWriter; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'timeslice-deployments-'));
  dirs.push(dir);
  const db = await Database.open({ path: join(dir, 'store.duckdb'), memoryLimit: '256MB' });
  const writer = new DuckDbBatchWriter(db.appendConnection);
  return { db, writer, async close() { await writer.close(); await db.close(); } };
}

const deploy = (d: Deployments, revision: string, at = NOW) => d.createEvent({
  accountId: 1, entity: Deployments.applicationEntity(APP), category: 'Deployment', type: 'Basic', timestamp: at,
  fields: { version: revision }, user: 'ci', source: 'timeslice:rest-v2', eventType: 'Deployment',
});

const ENGINES: { name: string; open(): Promise<{ records: ChangeTrackingRecords; close(): Promise<void> }> }[] = [
  {
    name: 'duckdb',
    async open() {
      const d = await duckdb();
      return { records: new DuckDbChangeTrackingRecords(d.db, d.writer), close: d.close };
    },
  },
  {
    name: 'duckdb events, postgres state',
    async open() {
      const d = await duckdb();
      const pgdb = await openPostgresDatabase(await server.createDatabase(`deployments_${++databases}`));
      return {
        records: withDeploymentState(new DuckDbChangeTrackingRecords(d.db, d.writer), new PgDeploymentState(pgdb)),
        async close() { await d.close(); await pgdb.close(); },
      };
    },
  },
];

for (const engine of ENGINES) {
  describe(`deployments on ${engine.name}`, () => {
    test('ids from one sequence; a deleted deployment is hidden from find and listed as deleted, once', async () => {
      const { records, close } = await engine.open();
      try {
        const d = new Deployments(records, clock);
        const first = await deploy(d, 'v1');
        const second = await deploy(d, 'v2', NOW + 1000);
        assert.deepEqual([first.deploymentId, second.deploymentId], [1, 2]);
        const found = await d.find(1, APP.id, 1);
        assert.deepEqual(found && [found.id, found.revision, found.user, found.timestamp, found.source], [1, 'v1', 'ci', NOW, 'timeslice:rest-v2']);
        assert.equal(await d.find(2, APP.id, 1), undefined, 'another account');
        assert.deepEqual((await d.delete(1, APP.id, 1))?.revision, 'v1');
        assert.equal(await d.delete(1, APP.id, 1), undefined, 'already deleted');
        assert.equal(await d.find(1, APP.id, 1), undefined);
        assert.equal((await d.find(1, APP.id, 2))?.revision, 'v2');
        assert.deepEqual(await d.deletedDeploymentIds(1, APP.id), [1]);
        assert.deepEqual(await d.deletedDeploymentIds(1, 5), []);
      } finally {
        await close();
      }
    });
  });
}

test('two nodes on one catalog hand out distinct deployment ids and see the same deletions', async () => {
  const url = await server.createDatabase(`deployments_shared_${++databases}`);
  const opened: PostgresDatabase[] = [];
  try {
    opened.push(await openPostgresDatabase(url), await openPostgresDatabase(url));
    const [one, two] = opened.map((db) => new PgDeploymentState(db)) as [PgDeploymentState, PgDeploymentState];
    const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? one : two).nextDeploymentId()));
    assert.deepEqual(ids.sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await one.recordDeleted(1, 4, 3, NOW);
    await two.recordDeleted(1, 4, 3, NOW);
    assert.deepEqual([await two.isDeleted(1, 3), await two.isDeleted(2, 3), await one.deletedDeploymentIds(1, 4)], [true, false, [3]]);
  } finally {
    for (const db of opened) await db.close();
  }
});
