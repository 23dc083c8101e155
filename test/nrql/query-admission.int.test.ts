import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock, connectApp, sendMetrics } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * Query admission on every query surface, over real HTTP: with the node's one query slot held
 * (as a long query holds it) and a 1.5 s queue deadline, a query on the NRQL route, on the graph
 * (`actor.account.nrql`) and REST metric data waits its turn and is then refused in each API's
 * own shape (429 with Retry-After, REST's error body; NerdGraph's TOO_MANY_REQUESTS, which clients
 * retry); a query that gets its turn within the deadline runs and answers in full.
 */

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const MINUTE = 60_000;
const QUEUE_MS = 1500;
const REFUSED = 'Too many queries: 1 queries run at once on this server and 1 per account; this one waited 1.5 s for its turn and was not run; retry shortly';

describe('query admission: a limit of one query at a time, 1.5 s queue', () => {
  let ts: TestServer;
  let appId: number;

  before(async () => {
    ts = await startTestServer({ TIMESLICE_QUERY_CONCURRENCY: '1', TIMESLICE_QUERY_QUEUE_MS: String(QUEUE_MS) }, { clock: new ManualClock(NOW) });
    const agent = await connectApp(ts, 'Admission');
    appId = agent.appId;
    // 7 calls of HttpDispatcher in the minute before now.
    await sendMetrics(ts, agent.runId, NOW - 2 * MINUTE, NOW - MINUTE, [['HttpDispatcher', '', [7, 0.7, 0.7, 0.1, 0.1, 0.07]]]);
  });
  after(() => ts?.stop());

  const nrqlText = "SELECT sum(newrelic.timeslice.value['count']) AS calls FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' SINCE 10 minutes ago";
  const headers = { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' };

  const nrqlRoute = () => fetch(`${ts.server.apiUrl}/timeslice/v1/nrql`, { method: 'POST', headers, body: JSON.stringify({ query: nrqlText }) });
  const graphNrql = () => fetch(`${ts.server.apiUrl}/graphql`, {
    method: 'POST', headers,
    body: JSON.stringify({ query: `{ actor { account(id: 1) { nrql(query: ${JSON.stringify(nrqlText)}) { results } } } }` }),
  });
  const restData = () => fetch(
    `${ts.server.apiUrl}/v2/applications/${appId}/metrics/data.json?names[]=HttpDispatcher&values[]=call_count&summarize=true&from=${new Date(NOW - 10 * MINUTE).toISOString()}&to=${new Date(NOW).toISOString()}`,
    { headers },
  );

  /** Holds the node's only slot until `release()` is called, as a long query would. */
  async function holdTheSlot() {
    let release!: () => void;
    const held = ts.server.admission.run([1], () => new Promise<void>((resolve) => { release = resolve; }));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(ts.server.admission.state, { running: 1, waiting: 0 });
    return { release: async () => { release(); await held; } };
  }

  async function untilWaiting(n: number) {
    while (ts.server.admission.state.waiting < n) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  it('past the queue deadline: 429 on the NRQL route and REST, TOO_MANY_REQUESTS on the graph; nothing is left queued', async () => {
    const slot = await holdTheSlot();
    try {
      const started = performance.now();
      const [nrql, graph, rest] = await Promise.all([nrqlRoute(), graphNrql(), restData()]);
      const waited = performance.now() - started;
      assert.ok(waited >= QUEUE_MS - 50, `answered after ${waited} ms, before the queue deadline`);

      assert.equal(nrql.status, 429);
      assert.equal(nrql.headers.get('retry-after'), '2');
      assert.deepEqual(await nrql.json(), { error: { title: REFUSED } });

      assert.equal(rest.status, 429);
      assert.equal(rest.headers.get('retry-after'), '2');
      assert.deepEqual(await rest.json(), { error: { title: REFUSED } });

      assert.equal(graph.status, 200);
      const body = await graph.json() as { data: unknown; errors: { message: string; path: string[]; extensions: Record<string, unknown> }[] };
      assert.deepEqual(body.data, { actor: { account: { nrql: null } } });
      assert.equal(body.errors.length, 1);
      assert.equal(body.errors[0]!.message, REFUSED);
      assert.deepEqual(body.errors[0]!.path, ['actor', 'account', 'nrql']);
      assert.deepEqual(body.errors[0]!.extensions, { errorClass: 'TOO_MANY_REQUESTS', retryAfterSeconds: 2 });
      assert.deepEqual(ts.server.admission.state, { running: 1, waiting: 0 });
    } finally {
      await slot.release();
    }
  });

  it('a query that gets its turn within the deadline runs to its full answer, on every surface', async () => {
    const slot = await holdTheSlot();
    const answers = Promise.all([nrqlRoute(), graphNrql(), restData()]);
    await untilWaiting(3);
    await slot.release();
    const [nrql, graph, rest] = await answers;
    assert.equal(nrql.status, 200);
    assert.deepEqual((await nrql.json() as { results: unknown }).results, [{ calls: 7 }]);
    assert.deepEqual(await graph.json(), { data: { actor: { account: { nrql: { results: [{ calls: 7 }] } } } } });
    assert.equal(rest.status, 200);
    const data = await rest.json() as { metric_data: { metrics: { name: string; timeslices: { values: Record<string, number> }[] }[] } };
    assert.deepEqual(data.metric_data.metrics.map((m) => [m.name, m.timeslices.map((t) => t.values)]), [['HttpDispatcher', [{ call_count: 7 }]]]);
    assert.deepEqual(ts.server.admission.state, { running: 0, waiting: 0 });
  });
});
