import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NrqlEngine } from '../../src/nrql/nrql-engine.js';
import { storeDictionaries } from '../../src/nrql/dictionaries.js';
import { NrqlError, positionOf } from '../../src/nrql/nrql-error.js';
import { clickhouseMissing, startClickHouse, type ClickHouseServer } from '../helpers/clickhouse.js';
import { ACCOUNT, loadGoldenScript, normalize } from '../helpers/nrql-golden-load.js';
import { parseScript, type Expectation } from '../helpers/nrql-golden-script.js';
import { ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * The NRQL golden scripts (test/golden/nrql) on the ClickHouse store: each script's data goes in
 * through the collector and the Event API of a server whose TIMESLICE_STORE is a ClickHouse
 * database of its own, and every query must give the answer (or the error) the script expects —
 * the same expectations the DuckDB and in-memory executors meet. `sql` expectations pin DuckDB's
 * SQL and are left to nrql-golden.int.test.ts; ClickHouse's SQL is pinned in
 * test/golden/sql/*.clickhouse.sql (clickhouse-sql-golden.int.test.ts).
 */
const DIR = join(process.cwd(), 'test', 'golden', 'nrql');
const skip = clickhouseMissing();
const files = readdirSync(DIR).filter((f) => f.endsWith('.nrql') && !f.startsWith('pending-')).sort();

async function outcome(engine: NrqlEngine, query: string): Promise<Expectation> {
  try {
    const answer = await engine.run(query, { accountIds: [ACCOUNT] });
    return {
      kind: 'expect',
      json: normalize({
        results: answer.results,
        ...(answer.totalResult !== null ? { totalResult: answer.totalResult } : {}),
        ...(answer.otherResult !== null ? { otherResult: answer.otherResult } : {}),
        ...(answer.metadata.facets !== null ? { facets: answer.metadata.facets } : {}),
      }),
    };
  } catch (error) {
    if (!(error instanceof NrqlError)) throw error;
    const at = error.span ? positionOf(query, error.span.start) : undefined;
    return { kind: 'error', code: error.code, at: at ? `${at.line}:${at.column}` : '-', message: error.message };
  }
}

describe('NRQL golden scripts on ClickHouse', { skip }, () => {
  let clickhouse: ClickHouseServer;
  before(async () => {
    clickhouse = await startClickHouse();
  });
  after(async () => {
    await clickhouse?.stop();
  });

  for (const [n, file] of files.entries()) {
    describe(file, () => {
      const script = parseScript(readFileSync(join(DIR, file), 'utf8'));
      const clock = new ManualClock(Date.UTC(2025, 7, 11, 12));
      let ts: TestServer;
      let engine: NrqlEngine;

      before(async () => {
        ts = await startTestServer({ TIMESLICE_STORE: `clickhouse://127.0.0.1:${clickhouse.httpPort}/golden_${n}` }, { clock });
        assert.equal(ts.server.store.engine, 'clickhouse');
        await loadGoldenScript(ts, script, clock);
        engine = new NrqlEngine({ executor: ts.server.store.executor, dictionaries: storeDictionaries(ts.server.catalog, ts.server.metrics), clock });
      });
      after(async () => {
        await ts?.stop();
      });

      script.lines.forEach((line) => {
        if (line.kind !== 'case' || line.expectation.kind === 'sql' || line.expectation.kind === 'none') return;
        it(`line ${line.line}: ${line.query}`, async () => {
          const got = await outcome(engine, line.query);
          if (line.expectation.kind === 'expect') assert.deepEqual(got, { kind: 'expect', json: normalize(line.expectation.json) });
          else assert.deepEqual(got, line.expectation);
        });
      });
    });
  }
});
