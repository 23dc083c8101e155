import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NrqlEngine } from '../../src/nrql/nrql-engine.js';
import { storeDictionaries } from '../../src/nrql/dictionaries.js';
import { mainPlan } from '../../src/nrql/execute.js';
import { ClickHousePlanExecutor } from '../../src/store/clickhouse/clickhouse-plan-executor.js';
import { clickhouseMissing, startClickHouse, type ClickHouseServer } from '../helpers/clickhouse.js';
import { ACCOUNT, loadGoldenScript } from '../helpers/nrql-golden-load.js';
import { parseScript, rewriteScript, type Expectation } from '../helpers/nrql-golden-script.js';
import { ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * The ClickHouse SQL of each query in test/golden/sql/clickhouse.nrql, pinned; and each pinned
 * statement, as written in the file, run on a real ClickHouse holding the script's data (its
 * database is the server's default, so the SQL runs unqualified). UPDATE_GOLDEN=1 rewrites the
 * file from what the dialect renders now.
 */
const PATH = join(process.cwd(), 'test', 'golden', 'sql', 'clickhouse.nrql');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

describe('ClickHouse SQL, pinned and run', { skip: clickhouseMissing() }, () => {
  const script = parseScript(readFileSync(PATH, 'utf8'));
  const clock = new ManualClock(Date.UTC(2025, 7, 11, 12));
  const actual = new Map<number, Expectation>();
  let clickhouse: ClickHouseServer;
  let ts: TestServer;
  let engine: NrqlEngine;

  before(async () => {
    clickhouse = await startClickHouse();
    ts = await startTestServer({ TIMESLICE_STORE: `clickhouse://127.0.0.1:${clickhouse.httpPort}/default` }, { clock });
    await loadGoldenScript(ts, script, clock);
    engine = new NrqlEngine({ executor: ts.server.store.executor, dictionaries: storeDictionaries(ts.server.catalog, ts.server.metrics), clock });
  });
  after(async () => {
    if (UPDATE) writeFileSync(PATH, rewriteScript(script, actual));
    await ts?.stop();
    await clickhouse?.stop();
  });

  script.lines.forEach((line, index) => {
    if (line.kind !== 'case') return;
    it(`line ${line.line}: ${line.query}`, async () => {
      const { analyzed } = engine.explain(line.query, { accountIds: [ACCOUNT] });
      assert.notEqual(analyzed.kind, 'showEventTypes');
      if (analyzed.kind === 'showEventTypes') return;
      const executor = ts.server.store.executor as ClickHousePlanExecutor;
      const got: Expectation = { kind: 'sql', sql: executor.render(mainPlan(analyzed)) };
      actual.set(index, got);
      if (UPDATE) return;
      assert.deepEqual(got, line.expectation);
      // The pinned text itself runs on the engine (and the query through the engine gives an answer).
      const rows = await clickhouse.query(`${(line.expectation as { sql: string }).sql}\nFORMAT JSONCompact`);
      assert.ok(Array.isArray((JSON.parse(rows) as { data: unknown[] }).data));
      await engine.run(line.query, { accountIds: [ACCOUNT] });
    });
  });
});
