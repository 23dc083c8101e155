import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Clock } from '../../src/clock.js';
import { withAgentApp } from '../helpers/agent-app.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * Issue 19, as a user meets it with the real `newrelic` agent (13.x) and NRQL over HTTP:
 *
 * - Harvest limits: New Relic's collector scales its per-minute event limits to the 5 s harvest, so
 *   an agent keeps 100 / 12 ≈ 8 error events per harvest. Timeslice hands the agent the limits it
 *   asks for (its own `max_event_samples_stored`…), so ten errors in one harvest are ten events.
 * - Hosts across applications: two applications on one machine report one host name; NRQL counts,
 *   groups and compares it as one host whatever ids the catalog keeps per application.
 *
 * Both processes run as the dyno `box.1`, which the agent reports as its host (see hosts-agent.int.test.ts).
 */

class ShiftedClock implements Clock {
  offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
}

const ERRORS = 10;
const FAST = 4;

let ts: TestServer;
const clock = new ShiftedClock();

async function nrql(query: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${ts.server.apiUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'api-key': TEST_API_KEY },
    body: JSON.stringify({ query: 'query($q: Nrql!) { actor { nrql(accounts: [1], query: $q) { results } } }', variables: { q: query } }),
  });
  const body = await res.json() as { data?: { actor: { nrql: { results: Record<string, unknown>[] } } }; errors?: unknown };
  assert.equal(res.status, 200);
  assert.equal(body.errors, undefined, `${query}: ${JSON.stringify(body.errors)}`);
  return body.data!.actor.nrql.results;
}

/** The message of the one GraphQL error an NRQL query answers. */
async function nrqlError(query: string): Promise<string> {
  const res = await fetch(`${ts.server.apiUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'api-key': TEST_API_KEY },
    body: JSON.stringify({ query: 'query($q: Nrql!) { actor { nrql(accounts: [1], query: $q) { results } } }', variables: { q: query } }),
  });
  const body = await res.json() as { errors?: { message: string }[] };
  assert.equal(body.errors?.length, 1, JSON.stringify(body));
  return body.errors![0]!.message;
}

async function serve(appName: string, kind: 'error' | 'fast', n: number): Promise<Readonly<Record<string, number>>> {
  const { collectorPort, certPath } = ts.server;
  return withAgentApp({
    appName, licenseKey: TEST_LICENSE_KEY, collectorPort, certPath, logDir: ts.dataDir,
    env: { DYNO: 'box.1', NEW_RELIC_LOG: join(ts.dataDir, `${appName}.log`) },
  }, async (ready) => {
    // All at once: well inside one 5 s harvest.
    const statuses = await Promise.all(Array.from({ length: n }, async (_, i) => {
      const res = await fetch(`http://127.0.0.1:${ready.port}/${kind}/${i + 1}`);
      await res.text();
      return res.status;
    }));
    assert.deepEqual(statuses, Array.from({ length: n }, () => (kind === 'error' ? 500 : 200)));
    return ready.harvestLimits;
  });
}

let limits: Readonly<Record<string, number>>;
before(async () => {
  ts = await startTestServer({}, { clock });
  [limits] = await Promise.all([serve('errors-e2e', 'error', ERRORS), serve('fast-e2e', 'fast', FAST)]);
  // The minutes the harvests landed in are complete.
  clock.offsetMs = 2 * 60_000;
}, { timeout: 120_000 });
after(async () => {
  await ts?.stop();
});

describe('the first hour with a real agent', () => {
  it('hands the agent the limits it asks for, so ten errors in one harvest are ten TransactionError events', async () => {
    // The Node agent's own defaults (transaction_events, custom_insights_events, error_collector, application_logging).
    assert.deepEqual(limits, { analytic_event_data: 10_000, custom_event_data: 3_000, error_event_data: 100, log_event_data: 10_000 });
    assert.deepEqual(await nrql("SELECT count(*) FROM TransactionError WHERE appName = 'errors-e2e' SINCE 10 minutes ago"), [{ count: ERRORS }]);
    assert.deepEqual(await nrql("SELECT count(*) FROM Transaction WHERE appName = 'errors-e2e' SINCE 10 minutes ago"), [{ count: ERRORS }]);
  });

  it('runs the queries New Relic\'s UI shows: apm.service.* metrics, histogram(), funnel(); bucketPercentile() is refused by name', async () => {
    const fast = "appName = 'fast-e2e'";
    const [dimensional] = await nrql(`SELECT count(apm.service.transaction.duration) AS 'calls', average(apm.service.transaction.duration) AS 'avg' FROM Metric WHERE ${fast} SINCE 10 minutes ago`);
    const [timeslices] = await nrql(`SELECT average(newrelic.timeslice.value) AS 'avg' FROM Metric WHERE ${fast} AND metricTimesliceName = 'WebTransaction' SINCE 10 minutes ago`);
    assert.equal(dimensional!.calls, FAST, 'every request once');
    assert.equal(typeof dimensional!.avg, 'number');
    assert.equal(dimensional!.avg, timeslices!.avg, 'the web transactions\' average: the app has no other transactions');
    // Each fast request takes about 5 ms: all in the first of two 1-second bins.
    assert.deepEqual(await nrql(`SELECT histogram(duration, 2, 2) FROM Transaction WHERE ${fast} SINCE 10 minutes ago`), [{ 'histogram.duration': [FAST, 0] }]);
    // Of the two applications, one served fast requests, the other failed ones: none did both.
    assert.deepEqual(await nrql("SELECT funnel(appName, WHERE name LIKE '%/error' AS 'Failed', WHERE error IS TRUE AS 'Errored', WHERE name LIKE '%/fast' AS 'Fast') FROM Transaction SINCE 10 minutes ago"),
      [{ 'funnel.appName': { Failed: 1, Errored: 1, Fast: 0 } }]);
    assert.equal(await nrqlError('SELECT bucketPercentile(duration) FROM Transaction'), "bucketPercentile() is not supported by Timeslice's NRQL subset");
  });

  it('two applications on one machine are one host to NRQL: counted, grouped and compared by its name', async () => {
    const both = "appName IN ('errors-e2e', 'fast-e2e')";
    assert.notEqual(
      ts.server.catalog.applications(1).find((a) => a.name === 'errors-e2e')!.id,
      ts.server.catalog.applications(1).find((a) => a.name === 'fast-e2e')!.id,
    );
    assert.deepEqual(await nrql(`SELECT uniqueCount(host), uniqueCount(appName), count(*) / uniqueCount(host) AS 'perHost' FROM Transaction WHERE ${both} SINCE 10 minutes ago`),
      [{ 'uniqueCount.host': 1, 'uniqueCount.appName': 2, perHost: ERRORS + FAST }]);
    assert.deepEqual(await nrql(`SELECT uniques(host) FROM Transaction WHERE ${both} SINCE 10 minutes ago`), [{ 'uniques.host': ['box.1'] }]);
    assert.deepEqual((await nrql(`SELECT count(*) FROM Transaction WHERE ${both} FACET host SINCE 10 minutes ago`)).map((r) => [r.facet, r.count]),
      [['box.1', ERRORS + FAST]]);
    assert.deepEqual(await nrql(`SELECT count(*) FROM Transaction WHERE host = 'box.1' AND ${both} SINCE 10 minutes ago`), [{ count: ERRORS + FAST }]);
    assert.deepEqual(await nrql(`SELECT uniqueCount(host) FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' AND ${both} SINCE 10 minutes ago`),
      [{ 'uniqueCount.host': 1 }]);
  });

  it('apm.service.* metrics by transactionName: the transactions the Transaction events name, with their calls and errors', async () => {
    const both = "appName IN ('errors-e2e', 'fast-e2e')";
    // One route per application: the events name each transaction (WebTransaction/Expressjs/GET//…).
    const events = await nrql(`SELECT count(*) FROM Transaction WHERE ${both} FACET name SINCE 10 minutes ago`);
    assert.deepEqual(events.map((r) => r.count), [ERRORS, FAST]);
    const [errorsName, fastName] = events.map((r) => r.facet as string);
    assert.match(fastName!, /^WebTransaction\//);
    const byName = await nrql(`SELECT count(apm.service.transaction.duration) AS 'calls', count(apm.service.transaction.error.count) AS 'errors' FROM Metric WHERE ${both} FACET transactionName SINCE 10 minutes ago`);
    assert.deepEqual(byName.map((r) => [r.facet, r.calls, r.errors]), [[errorsName, ERRORS, ERRORS], [fastName, FAST, 0]]);
    assert.deepEqual(await nrql(`SELECT count(apm.service.transaction.duration) AS 'calls' FROM Metric WHERE transactionName = '${fastName}' AND transactionType = 'Web' SINCE 10 minutes ago`),
      [{ calls: FAST }]);
  });
});
