import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { agentQuery, invoke } from '../helpers/collector-client.js';
import { clickhouseMissing, startClickHouseCluster, type ClickHouseServer } from '../helpers/clickhouse.js';
import { connectApp, ManualClock, rest, type AgentHandle } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

/**
 * Two ClickHouse servers as the two shards of a cluster, Distributed tables over each one's
 * MergeTree tables, and a Timeslice node on them; beside it an embedded DuckDB node fed the same
 * traffic. NRQL and REST must give the same answers, value for value, on both; a stopped shard
 * gives agents 503 and readers a 503 naming the store, and everything resumes when it returns.
 */
const skip = clickhouseMissing();
const BEGIN = Date.UTC(2025, 7, 11, 11, 0);
const APPS = ['alpha', 'bravo', 'charlie', 'delta'];

function metricData(runId: string, minute: number, app: number): unknown {
  const calls = 3 + app * 2 + minute;
  const t = 0.1 * (app + 1) + 0.01 * minute;
  return [runId, (BEGIN + minute * 60_000) / 1000, (BEGIN + (minute + 1) * 60_000) / 1000, [
    [{ name: 'HttpDispatcher' }, [calls, calls * t, calls * t, t / 2, t * 2, calls * t * t]],
    [{ name: 'WebTransaction/Expressjs/GET//item' }, [calls, calls * t, calls * t / 2, t / 2, t * 2, calls * t * t]],
    [{ name: 'Datastore/all', scope: 'WebTransaction/Expressjs/GET//item' }, [minute + 1, 0.02 * (minute + 1), 0.02 * (minute + 1), 0.01, 0.03, 0.0005 * (minute + 1)]],
    [{ name: 'Apdex' }, [calls - 1, 1, minute % 2, 0.5, 0.5, 0]],
    [{ name: 'Errors/all' }, [app % 2, 0, 0, 0, 0, 0]],
  ]];
}

function transactions(runId: string, minute: number, app: number): unknown {
  const events = Array.from({ length: 3 }, (_, i) => [
    { type: 'Transaction', name: `WebTransaction/Expressjs/GET//item${i}`, timestamp: BEGIN + minute * 60_000 + i * 1000, duration: 0.05 * (i + 1) + app * 0.01, error: i === 2 },
    { plan: i % 2 === 0 ? 'gold' : 'free' },
    { 'http.statusCode': i === 2 ? 500 : 200 },
  ]);
  return [runId, { reservoir_size: 100, events_seen: events.length }, events];
}

/**
 * Floating-point sums in another order (rows merged per shard, then across shards) may differ in
 * the last bits: values compare to 12 significant digits, as the NRQL goldens do.
 */
function normalize(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number(value.toPrecision(12));
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]));
  return value;
}

const QUERIES = [
  `SELECT count(*), average(duration), percentile(duration, 50, 90), uniqueCount(name) FROM Transaction SINCE ${BEGIN} UNTIL ${BEGIN + 600_000}`,
  `SELECT count(*) FROM Transaction FACET appName, plan SINCE ${BEGIN} UNTIL ${BEGIN + 600_000}`,
  `SELECT percentage(count(*), WHERE error IS TRUE), latest(http.statusCode) FROM Transaction FACET appName TIMESERIES 1 minute SINCE ${BEGIN} UNTIL ${BEGIN + 300_000}`,
  `SELECT sum(newrelic.timeslice.value), average(newrelic.timeslice.value), max(newrelic.timeslice.value) FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' FACET appName TIMESERIES 1 minute SINCE ${BEGIN} UNTIL ${BEGIN + 300_000}`,
  `SELECT apdex(newrelic.timeslice.value) FROM Metric WHERE metricTimesliceName = 'Apdex' FACET appName SINCE ${BEGIN} UNTIL ${BEGIN + 300_000}`,
  `SELECT count(newrelic.timeslice.value) FROM Metric FACET metricTimesliceName, scope SINCE ${BEGIN} UNTIL ${BEGIN + 300_000} LIMIT 20`,
  `SELECT name, duration, plan FROM Transaction WHERE appName = 'charlie' ORDER BY duration DESC, timestamp LIMIT 4 SINCE ${BEGIN} UNTIL ${BEGIN + 600_000}`,
];

describe('a two-shard ClickHouse cluster answers as the embedded DuckDB store does', { skip }, () => {
  let cluster: Awaited<ReturnType<typeof startClickHouseCluster>>;
  let chNode: TestServer;
  let duckNode: TestServer;
  const clock = new ManualClock(BEGIN + 3_600_000);
  const agents = new Map<TestServer, AgentHandle[]>();
  const shardCount = async (shard: ClickHouseServer, table: string) => Number((await shard.query(`SELECT count() FROM cl.${table}_local FORMAT TSV`)).trim());

  const send = async (node: TestServer, method: string, body: (runId: string) => unknown, app: number) => {
    const runId = agents.get(node)![app]!.runId;
    return invoke(node.server, { query: agentQuery(method, TEST_LICENSE_KEY, runId), body: body(runId) });
  };
  const nrql = async (node: TestServer, query: string) => node.server.api.inject({
    method: 'POST', url: '/timeslice/v1/nrql', headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' }, payload: { query },
  });

  before(async () => {
    cluster = await startClickHouseCluster('timeslice_test');
    const [a, b] = cluster.shards;
    chNode = await startTestServer({ TIMESLICE_STORE: `clickhouse://127.0.0.1:${a!.httpPort},127.0.0.1:${b!.httpPort}/cl?cluster=timeslice_test` }, { clock });
    duckNode = await startTestServer({}, { clock });
    for (const node of [chNode, duckNode]) {
      const list: AgentHandle[] = [];
      for (const [i, name] of APPS.entries()) list.push(await connectApp(node, name, `host-${i}`));
      agents.set(node, list);
      for (let minute = 0; minute < 5; minute++) {
        for (let app = 0; app < APPS.length; app++) {
          for (const [method, body] of [['metric_data', (r: string) => metricData(r, minute, app)], ['analytic_event_data', (r: string) => transactions(r, minute, app)]] as const) {
            const reply = await send(node, method, body, app);
            assert.equal(reply.status, 200, reply.text);
          }
        }
      }
    }
  });
  after(async () => {
    await chNode?.stop();
    await duckNode?.stop();
    await cluster?.stop();
  });

  it('refuses to start on a cluster the servers do not know, naming it', async () => {
    const [a, b] = cluster.shards;
    await assert.rejects(
      startTestServer({ TIMESLICE_STORE: `clickhouse://127.0.0.1:${a!.httpPort},127.0.0.1:${b!.httpPort}/cl?cluster=nope` }),
      (e: Error) => e.message === `ClickHouse at http://127.0.0.1:${a!.httpPort} has no cluster 'nope' in its remote_servers`,
    );
  });

  it('spreads the rows over both shards through the Distributed tables', async () => {
    const [a, b] = cluster.shards;
    const perShard = [await shardCount(a!, 'timeslices'), await shardCount(b!, 'timeslices')];
    assert.ok(perShard[0]! > 0 && perShard[1]! > 0, `rows per shard: ${perShard.join(', ')}`);
    // 4 applications × 5 minutes × 5 metrics, each row on exactly one shard.
    assert.equal(perShard[0]! + perShard[1]!, 100);
  });

  for (const query of QUERIES) {
    it(`NRQL gives DuckDB's answer: ${query}`, async () => {
      const [ch, duck] = [await nrql(chNode, query), await nrql(duckNode, query)];
      assert.equal(ch.statusCode, 200, ch.body);
      assert.equal(duck.statusCode, 200, duck.body);
      assert.deepEqual(normalize(ch.json().results), normalize(duck.json().results));
      assert.deepEqual(normalize(ch.json().totalResult ?? null), normalize(duck.json().totalResult ?? null));
    });
  }

  it('REST metric data gives DuckDB\'s answer, value for value', async () => {
    const url = (id: number) => `/v2/applications/${id}/metrics/data.json?names[]=HttpDispatcher&names[]=Apdex&names[]=Datastore/all&values[]=call_count&values[]=average_response_time&values[]=score&values[]=max_response_time&from=${new Date(BEGIN).toISOString()}&to=${new Date(BEGIN + 300_000).toISOString()}&period=60`;
    for (const app of agents.get(chNode)!.keys()) {
      const id = app + 1;
      const [ch, duck] = [await rest(chNode, 'GET', url(id)), await rest(duckNode, 'GET', url(id))];
      assert.equal(ch.status, 200, ch.text);
      assert.deepEqual(normalize(ch.json()), normalize(duck.json()));
      assert.deepEqual(ch.headers['x-timeslice-nrql'], duck.headers['x-timeslice-nrql']);
    }
  });

  it('a stopped shard: agents get 503 and keep their data, readers a 503; both resume when it is back', async () => {
    const shard = cluster.shards[1]!;
    const minute = 7;
    await shard.pause();
    try {
      // Every application: at least one of them hashes to the stopped shard.
      const replies = [];
      for (let app = 0; app < APPS.length; app++) replies.push(await send(chNode, 'metric_data', (r) => metricData(r, minute, app), app));
      assert.ok(replies.some((r) => r.status === 503), replies.map((r) => r.status).join(','));
      for (const r of replies) assert.ok(r.status === 200 || r.status === 503, r.text);
      const read = await nrql(chNode, QUERIES[0]!);
      assert.equal(read.statusCode, 503, read.body);
      assert.match(read.json().error.title, /^The data store is unavailable/);
    } finally {
      await shard.resume();
    }
    // The agents send what was refused again; the DuckDB node gets the same traffic once.
    for (let app = 0; app < APPS.length; app++) {
      assert.equal((await send(duckNode, 'metric_data', (r) => metricData(r, minute, app), app)).status, 200);
    }
    const query = `SELECT sum(newrelic.timeslice.value) FROM Metric FACET appName SINCE ${BEGIN + minute * 60_000} UNTIL ${BEGIN + (minute + 1) * 60_000}`;
    let ch = await nrql(chNode, query);
    // Resend only what was refused (503): what was acknowledged is stored and must not be doubled.
    for (let app = 0; app < APPS.length; app++) {
      const results = ch.json().results as { facet: string }[];
      if (!results.some((r) => r.facet === APPS[app])) assert.equal((await send(chNode, 'metric_data', (r) => metricData(r, minute, app), app)).status, 200);
    }
    ch = await nrql(chNode, query);
    assert.deepEqual(normalize(ch.json().results), normalize((await nrql(duckNode, query)).json().results));
  });
});
