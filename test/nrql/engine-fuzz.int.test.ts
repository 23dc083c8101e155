/**
 * Random queries run to the end, on a real store: generated syntax trees (every construct, odd
 * names and values) over a store with events of several types and timeslices, through the whole
 * engine and DuckDB. Each either answers or fails with an `NrqlError`; a DuckDB error reaching the
 * caller (an HTTP 500) fails the test. The compiler alone is fuzzed in `compiler-properties.test.ts`;
 * this catches what only the SQL engine refuses (types, regexes, ORDER BY forms, memory).
 * Replay with FC_SEED.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { SelectQuery } from '../../src/nrql/ast.js';
import { storeDictionaries } from '../../src/nrql/dictionaries.js';
import { format, formatCondition } from '../../src/nrql/format.js';
import { NrqlEngine } from '../../src/nrql/nrql-engine.js';
import { NrqlError } from '../../src/nrql/nrql-error.js';
import { DuckDbPlanExecutor } from '../../src/store/duckdb/duckdb-plan-executor.js';
import { agentQuery, invoke } from '../helpers/collector-client.js';
import { nrqlArbitraries } from '../helpers/nrql-generator.js';
import { connectApp, ManualClock, sendMetrics } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';
import { scaledRuns } from '../helpers/fuzz-scale.js';

const SEED = process.env.FC_SEED === undefined ? 20_261_122 : Number(process.env.FC_SEED);
const RUNS = Number(process.env.NRQL_FUZZ_RUNS ?? scaledRuns(1500));
const NOW = Date.UTC(2025, 7, 11, 8, 30);

describe('generated queries on a real store', () => {
  const clock = new ManualClock(NOW);
  let ts: TestServer;
  let engine: NrqlEngine;

  before(async () => {
    ts = await startTestServer({}, { clock });
    const odd = { 'Logged-in user': 'ana', count: 3, 'a.b': 'dot', flag: 'yes', list: [1, 2], obj: { a: 1 }, '': 'empty', "it's": 5 };
    for (const [app, host] of [['checkout', 'h1'], ['search', 'h2']] as const) {
      const { runId } = await connectApp(ts, app, host);
      const events = [0, 1, 2, 3].map((i) => [
        { type: 'Transaction', timestamp: NOW - (i + 1) * 600_000, name: `WebTransaction/Controller/${i}`, duration: 0.1 * (i + 1), error: i === 3 },
        { ...odd, n: i }, { httpResponseCode: String(200 + i), 'request.uri': '/x' },
      ]);
      const post = async (method: string, body: unknown) => {
        const reply = await invoke(ts.server, { query: agentQuery(method, TEST_LICENSE_KEY, runId), body });
        assert.equal(reply.status, 200, reply.text);
      };
      await post('analytic_event_data', [runId, { reservoir_size: 10, events_seen: 4 }, events]);
      await post('custom_event_data', [runId, [[{ type: 'Mobile', timestamp: NOW - 900_000 }, { appName: app, osName: 'iOS', ...odd }]]]);
      await sendMetrics(ts, runId, NOW - 1_800_000, NOW - 1_740_000, [
        ['HttpDispatcher', '', [4, 0.4, 0.2, 0.05, 0.2, 0.05]], ['Apdex', '', [3, 1, 0, 0.5, 0.5, 0]],
        ['Datastore/all', 'WebTransaction/Controller/0', [2, 0.1, 0.1, 0.02, 0.08, 0.007]],
      ]);
    }
    engine = new NrqlEngine({ executor: new DuckDbPlanExecutor(ts.server.db), dictionaries: storeDictionaries(ts.server.catalog, ts.server.metrics), clock });
  });
  after(async () => { await ts?.stop(); });

  it(`${RUNS} generated queries answer or fail with an NrqlError`, async (t) => {
    const { selectQuery } = nrqlArbitraries({ maxDepth: 3 });
    // Most trees over the stored types and the default window, so most reach the SQL engine.
    const types = ['Transaction', 'Metric', 'Mobile', 'TransactionError'];
    const query = fc.tuple(selectQuery, fc.nat(9), fc.constantFrom(...types)).map(([q, n, type]): SelectQuery => {
      if (n >= 8) return q;
      const { since: _s, until: _u, compareWith: _c, timezone: _z, metricFormat: _m, timeseries, ...rest } = q;
      return { ...rest, from: [{ name: type, span: q.from[0]!.span }], ...(timeseries && !timeseries.slideBy ? { timeseries } : {}) };
    });
    // Half of them: well-formed aggregate and row queries over the stored attributes, with generated
    // (odd) conditions, so most of those reach DuckDB.
    const { condition } = nrqlArbitraries({ maxDepth: 3 });
    const attributes = ['duration', 'name', 'appName', 'host', 'error', 'n', 'count', '`Logged-in user`', '`a.b`', 'flag', 'list', 'obj', 'httpResponseCode',
      'appId', 'metricTimesliceName', 'scope', 'osName', 'missing', 'timestamp'];
    const attribute = fc.constantFrom(...attributes);
    const aggregate = fc.oneof(
      fc.constant('count(*)'),
      attribute.chain((a) => fc.constantFrom(`count(${a})`, `sum(${a})`, `average(${a})`, `min(${a})`, `max(${a})`, `stddev(${a})`, `uniqueCount(${a})`,
        `uniques(${a}, 3)`, `latest(${a})`, `earliest(${a})`, `percentile(${a}, 50, 90)`, `median(${a})`, `apdex(${a}, t: 0.2)`, `latest(${a}) * 2`)),
      fc.constantFrom('rate(count(*), 1 minute)', 'percentage(count(*), WHERE error IS TRUE)', 'filter(sum(duration), WHERE n > 1)',
        'count(newrelic.timeslice.value)', 'average(newrelic.timeslice.value) * 1000', "sum(newrelic.timeslice.value['count'])", 'apdex(newrelic.timeslice.value)'),
    );
    const shaped = fc.record({
      rows: fc.boolean(),
      items: fc.array(aggregate, { minLength: 1, maxLength: 3 }),
      columns: fc.array(attribute, { minLength: 1, maxLength: 3 }),
      type: fc.constantFrom(...types, 'Transaction, Mobile'),
      where: fc.option(condition, { nil: undefined }),
      facet: fc.option(fc.array(attribute, { minLength: 1, maxLength: 2 }), { nil: undefined }),
      timeseries: fc.boolean(),
      order: fc.option(attribute, { nil: undefined }),
      limit: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
    }).map((q) => [
      q.rows ? `SELECT ${q.columns.join(', ')}` : `SELECT ${q.items.join(', ')}`,
      `FROM ${q.type}`,
      q.where ? `WHERE ${formatCondition(q.where)}` : '',
      !q.rows && q.facet ? `FACET ${q.facet.join(', ')}` : '',
      !q.rows && q.timeseries ? 'TIMESERIES' : '',
      q.rows && q.order ? `ORDER BY ${q.order} DESC` : '',
      q.limit ? `LIMIT ${q.limit}` : '',
      'SINCE 1 hour ago',
    ].filter(Boolean).join(' '));
    const texts = [
      ...fc.sample(query, { numRuns: RUNS / 2, seed: SEED }).map((q) => format(q)),
      ...fc.sample(shaped, { numRuns: RUNS / 2, seed: SEED }),
    ];
    const outcomes = new Map<string, number>();
    for (const text of texts) {
      let outcome: string;
      try {
        await engine.run(text, { accountIds: [1], timeoutMs: 10_000 });
        outcome = 'answered';
      } catch (error) {
        if (!(error instanceof NrqlError)) throw new Error(`${String(error)}\nfor: ${text}`, { cause: error });
        outcome = error.code;
      }
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    t.diagnostic(`seed ${SEED}: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    assert.ok((outcomes.get('answered') ?? 0) > RUNS / 4, `too few queries reached the store: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  });
});
