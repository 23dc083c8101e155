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
import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import { attributeJson } from '../../src/store/attribute-json.js';
import { DuckDbPlanExecutor } from '../../src/store/duckdb/duckdb-plan-executor.js';
import { agentQuery, invoke } from '../helpers/collector-client.js';
import { parseScript, rewriteScript, type Expectation, type Script } from '../helpers/nrql-golden-script.js';
import { MemoryPlanExecutor } from '../../src/store/memory/memory-plan-executor.js';
import { memoryRowsOf } from '../helpers/memory-rows.js';
import { connectApp, ManualClock, sendMetrics, type AgentHandle } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

const DIR = join(process.cwd(), 'test', 'golden', 'nrql');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const ACCOUNT = 1;

/** Rounds floats to 12 significant digits so 0.1 + 0.2 and 0.3 compare equal on both sides. */
function normalize(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number(value.toPrecision(12));
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]));
  return value;
}

async function load(ts: TestServer, script: Script, clock: ManualClock): Promise<void> {
  let agent: AgentHandle | undefined;
  const need = () => {
    if (!agent) throw new Error('an `agent <app> <host>` line must come before data lines');
    return agent;
  };
  const post = async (method: string, body: unknown) => {
    const reply = await invoke(ts.server, { query: agentQuery(method, TEST_LICENSE_KEY, need().runId), body });
    if (reply.status !== 200) throw new Error(`${method} answered ${reply.status}: ${reply.text}`);
  };
  for (const line of script.lines) {
    switch (line.kind) {
      case 'now':
        clock.ms = line.ms;
        break;
      case 'agent':
        agent = await connectApp(ts, line.app, line.host);
        break;
      case 'event': {
        const method = { Transaction: 'analytic_event_data', TransactionError: 'error_event_data', Span: 'span_event_data' }[line.eventType];
        if (!method) throw new Error(`event lines take Transaction, TransactionError or Span, not ${line.eventType}`);
        const [intrinsics = {}, user = {}, agentAttrs = {}] = line.parts;
        await post(method, [need().runId, { reservoir_size: 100, events_seen: 1 }, [[{ type: line.eventType, ...intrinsics }, user, agentAttrs]]]);
        break;
      }
      case 'custom':
        await post('custom_event_data', [need().runId, [[{ type: line.eventType, timestamp: (line.attributes as { timestamp?: number }).timestamp ?? clock.ms }, line.attributes]]]);
        break;
      case 'insert': {
        const res = await ts.server.api.inject({
          method: 'POST', url: `/v1/accounts/${ACCOUNT}/events`, headers: { 'x-license-key': TEST_LICENSE_KEY, 'content-type': 'application/json' }, payload: JSON.stringify([line.event]),
        });
        if (res.statusCode !== 200) throw new Error(`Event API answered ${res.statusCode}: ${res.body}`);
        break;
      }
      case 'stored': {
        const { eventType, timestamp, ...attributes } = line.event as { eventType: string; timestamp: number };
        const rows = new Rows(CUSTOM_EVENTS);
        rows.push(ACCOUNT, 0, 0, 0, timestamp, eventType, attributeJson(attributes));
        await ts.server.writer.write([rows]);
        break;
      }
      case 'metric':
        await sendMetrics(ts, need().runId, line.beginMs, line.beginMs + line.seconds * 1000, [[line.name, line.scope, line.stats as [number, number, number, number, number, number]]]);
        break;
      case 'case':
        break;
    }
  }
}

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
