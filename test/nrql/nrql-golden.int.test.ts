import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NrqlEngine } from '../../src/nrql/nrql-engine.js';
import { storeDictionaries } from '../../src/nrql/dictionaries.js';
import { mainPlan } from '../../src/nrql/execute.js';
import { NrqlError, positionOf } from '../../src/nrql/nrql-error.js';
import { duckdbDialect } from '../../src/store/duckdb/duckdb-dialect.js';
import { duckdbSchema } from '../../src/store/duckdb/sources.js';
import { renderAggregatePlan, renderRowsPlan } from '../../src/sql/render-plan.js';
import { DuckDbPlanExecutor } from '../../src/store/duckdb/duckdb-plan-executor.js';
import { parseScript, rewriteScript, type Expectation } from '../helpers/nrql-golden-script.js';
import { MemoryPlanExecutor } from '../../src/store/memory/memory-plan-executor.js';
import { memoryRowsOf } from '../helpers/memory-rows.js';
import { ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { ACCOUNT, loadGoldenScript as load, normalize } from '../helpers/nrql-golden-load.js';

const DIR = join(process.cwd(), 'test', 'golden', 'nrql');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

async function outcome(engine: NrqlEngine, query: string, wanted: Expectation): Promise<Expectation> {
  try {
    if (wanted.kind === 'sql') {
      const { analyzed } = engine.explain(query, { accountIds: [ACCOUNT] });
      if (analyzed.kind === 'showEventTypes') throw new Error('no SQL for SHOW EVENT TYPES');
      const plan = mainPlan(analyzed);
      const rendered = plan.kind === 'rows' ? renderRowsPlan(plan, duckdbDialect, duckdbSchema) : renderAggregatePlan(plan, duckdbDialect, duckdbSchema);
      return { kind: 'sql', sql: `${rendered.sql}\n-- params: ${JSON.stringify(rendered.params)}` };
    }
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

// `pending-*.nrql`: cases written ahead of an engine fix, run by name only (node scripts/run-tests.js with NRQL_PENDING=1).
const files = readdirSync(DIR).filter((f) => f.endsWith('.nrql') && (process.env.NRQL_PENDING === '1' || !f.startsWith('pending-'))).sort();
for (const file of files) {
  describe(`NRQL golden ${file}`, () => {
    const path = join(DIR, file);
    const script = parseScript(readFileSync(path, 'utf8'));
    const clock = new ManualClock(Date.UTC(2025, 7, 11, 12));
    let ts: TestServer;
    let engine: NrqlEngine;
    let memoryEngine: NrqlEngine;
    const actual = new Map<number, Expectation>();

    before(async () => {
      ts = await startTestServer({}, { clock });
      await load(ts, script, clock);
      const dictionaries = storeDictionaries(ts.server.catalog, ts.server.metrics);
      engine = new NrqlEngine({ executor: new DuckDbPlanExecutor(ts.server.db), dictionaries, clock });
      // The same rows, as the collector and the Event API stored them, on the reference executor.
      memoryEngine = new NrqlEngine({ executor: MemoryPlanExecutor.of(await memoryRowsOf(ts.server.db)), dictionaries, clock });
    });
    after(async () => {
      if (UPDATE) writeFileSync(path, rewriteScript(script, actual));
      await ts?.stop();
    });

    script.lines.forEach((line, index) => {
      if (line.kind !== 'case') return;
      const check = (got: Expectation) => {
        assert.notEqual(line.expectation.kind, 'none', 'no expectation written; run with UPDATE_GOLDEN=1 and review');
        if (line.expectation.kind === 'expect') assert.deepEqual(got, { kind: 'expect', json: normalize(line.expectation.json) });
        else assert.deepEqual(got, line.expectation);
      };
      it(`line ${line.line}: ${line.query}`, async () => {
        const got = await outcome(engine, line.query, line.expectation);
        actual.set(index, got);
        if (!UPDATE) check(got);
      });
      it(`line ${line.line} in memory: ${line.query}`, { skip: UPDATE }, async () => {
        check(await outcome(memoryEngine, line.query, line.expectation));
      });
    });
  });
}
