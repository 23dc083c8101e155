import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Rows, CUSTOM_EVENTS, TIMESLICES } from '../../src/store/append-tables.js';
import { StoreBusyError } from '../../src/store/batch-writer.js';
import { agentQuery, invoke } from '../helpers/collector-client.js';
import { clickhouseMissing, startClickHouse, type ClickHouseServer } from '../helpers/clickhouse.js';
import { connectApp, ManualClock, rest } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

const skip = clickhouseMissing();
const MINUTE = Date.UTC(2025, 7, 11, 11, 0);

/** metric_data for one minute: HttpDispatcher with `calls` calls of 0.25 s each. */
function metricData(runId: string, beginMs: number, calls: number): unknown {
  return [runId, beginMs / 1000, (beginMs + 60_000) / 1000, [[{ name: 'HttpDispatcher' }, [calls, calls * 0.25, calls * 0.25, 0.25, 0.25, calls * 0.0625]]]];
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('ingest into ClickHouse: acknowledged once stored, 503 while it is away, whole or not at all', { skip }, () => {
  let clickhouse: ClickHouseServer;
  let ts: TestServer;
  const clock = new ManualClock(Date.UTC(2025, 7, 11, 12));
  const db = 'ingest_test';
  const count = async (sql: string) => Number((await clickhouse.query(`${sql} FORMAT TSV`)).trim());

  before(async () => {
    clickhouse = await startClickHouse();
    ts = await startTestServer({ TIMESLICE_STORE: `clickhouse://127.0.0.1:${clickhouse.httpPort}/${db}` }, { clock });
  });
  after(async () => {
    await ts?.stop();
    await clickhouse?.stop();
  });

  it('refuses to start against a server that is not there, naming it', async () => {
    await assert.rejects(
      startTestServer({ TIMESLICE_STORE: 'clickhouse://127.0.0.1:1/nowhere' }),
      (e: Error) => e.message.startsWith('TIMESLICE_STORE clickhouse://127.0.0.1:1/nowhere: cannot reach ClickHouse at http://127.0.0.1:1'),
    );
  });

  it('creates the MergeTree tables ordered by account, application, metric and time, partitioned by day', async () => {
    const ddl = await clickhouse.query(`SHOW CREATE TABLE ${db}.timeslices FORMAT TSVRaw`);
    assert.match(ddl, /ENGINE = MergeTree(?:\(\))? PARTITION BY toYYYYMMDD\(toDateTime\(intDiv\(ts, 1000\), 'UTC'\)\) ORDER BY \(account_id, app_id, metric_id, ts\)/);
  });

  it('acknowledges metric_data once ClickHouse has the rows, and NRQL and REST read them back', async () => {
    const agent = await connectApp(ts, 'ch-ingest', 'h1');
    const reply = await invoke(ts.server, { query: agentQuery('metric_data', TEST_LICENSE_KEY, agent.runId), body: metricData(agent.runId, MINUTE, 8) });
    assert.equal(reply.status, 200);
    // Acknowledged means stored: read at once, no flush.
    assert.equal(await count(`SELECT sum(call_count) FROM ${db}.timeslices WHERE ts = ${MINUTE}`), 8);
    const nrql = await ts.server.api.inject({
      method: 'POST', url: '/timeslice/v1/nrql', headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' },
      payload: { query: `SELECT sum(newrelic.timeslice.value) FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' SINCE ${MINUTE} UNTIL ${MINUTE + 60_000}` },
    });
    assert.equal(nrql.statusCode, 200, nrql.body);
    assert.deepEqual(nrql.json().results, [{ 'sum.newrelic.timeslice.value': 2 }]);
    const apps = (await rest(ts, 'GET', '/v2/applications.json')).json().applications as { id: number; name: string }[];
    const app = apps.find((a) => a.name === 'ch-ingest')!;
    const data = await rest(ts, 'GET', `/v2/applications/${app.id}/metrics/data.json?names[]=HttpDispatcher&values[]=call_count&values[]=average_response_time&from=${new Date(MINUTE).toISOString()}&to=${new Date(MINUTE + 60_000).toISOString()}&summarize=true`);
    assert.equal(data.status, 200, data.text);
    assert.deepEqual(data.json().metric_data.metrics[0].timeslices[0].values, { call_count: 8, average_response_time: 250 });
  });

  it('4000 metric names in one payload: stored, and a FACET and a LIKE over them (4000 ids as literals) answered', async () => {
    const agent = await connectApp(ts, 'ch-many-names', 'h3');
    const names = Array.from({ length: 4000 }, (_, i) => `Custom/a/rather/long/metric/name/to/fill/the/statement/number/${String(i).padStart(5, '0')}`);
    const body = [agent.runId, MINUTE / 1000, (MINUTE + 60_000) / 1000, names.map((name, i) => [{ name }, [i + 1, 1, 1, 1, 1, 1]])];
    assert.equal((await invoke(ts.server, { query: agentQuery('metric_data', TEST_LICENSE_KEY, agent.runId), body })).status, 200);
    const nrql = await ts.server.api.inject({
      method: 'POST', url: '/timeslice/v1/nrql', headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' },
      payload: { query: `SELECT count(newrelic.timeslice.value) FROM Metric WHERE appName = 'ch-many-names' FACET metricTimesliceName SINCE ${MINUTE} UNTIL ${MINUTE + 60_000} LIMIT 2` },
    });
    assert.equal(nrql.statusCode, 200, nrql.body.slice(0, 500));
    assert.deepEqual(nrql.json().results.map((r: { facet: string; count: number }) => [r.facet, r['count.newrelic.timeslice.value' as 'count']]), [[names[3999], 4000], [names[3998], 3999]]);
    const like = await ts.server.api.inject({
      method: 'POST', url: '/timeslice/v1/nrql', headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' },
      payload: { query: `SELECT sum(newrelic.timeslice.value) AS s FROM Metric WHERE metricTimesliceName LIKE 'Custom/a/rather/%' SINCE ${MINUTE} UNTIL ${MINUTE + 60_000}` },
    });
    assert.equal(like.statusCode, 200, like.body.slice(0, 500));
    assert.deepEqual(like.json().results, [{ s: 4000 }]);
  });

  it('records deployments as events in ClickHouse: REST lists them, deletes one by id, and lists it no more', async () => {
    const apps = (await rest(ts, 'GET', '/v2/applications.json')).json().applications as { id: number; name: string }[];
    const app = apps.find((a) => a.name === 'ch-ingest')!;
    const created = await rest(ts, 'POST', `/v2/applications/${app.id}/deployments.json`, { body: { deployment: { revision: 'r-1', user: 'ann' } } });
    assert.equal(created.status, 201, created.text);
    const id = created.json().deployment.id as number;
    assert.equal(await count(`SELECT count() FROM ${db}.custom_events WHERE event_type = 'Deployment' AND app_id = ${app.id}`), 1);
    const listed = await rest(ts, 'GET', `/v2/applications/${app.id}/deployments.json`);
    assert.deepEqual((listed.json().deployments as { id: number; revision: string }[]).map((d) => [d.id, d.revision]), [[id, 'r-1']]);
    const deleted = await rest(ts, 'DELETE', `/v2/applications/${app.id}/deployments/${id}.json`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await rest(ts, 'DELETE', `/v2/applications/${app.id}/deployments/${id}.json`)).status, 404);
    assert.deepEqual((await rest(ts, 'GET', `/v2/applications/${app.id}/deployments.json`)).json().deployments, []);
  });

  it('answers 503 while ClickHouse is stopped (agents keep the data), readers get a 503 naming it, and the resent payload is stored once', async () => {
    const agent = await connectApp(ts, 'ch-outage', 'h2');
    const second = MINUTE + 60_000;
    await clickhouse.pause();
    try {
      const refused = await invoke(ts.server, { query: agentQuery('metric_data', TEST_LICENSE_KEY, agent.runId), body: metricData(agent.runId, second, 5) });
      assert.equal(refused.status, 503, refused.text);
      assert.match(refused.text, /ServiceUnavailable/);
      const nrql = await ts.server.api.inject({
        method: 'POST', url: '/timeslice/v1/nrql', headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' },
        payload: { query: 'SELECT count(*) FROM Transaction SINCE 1 hour ago' },
      });
      assert.equal(nrql.statusCode, 503);
      assert.match(nrql.json().error.title, /^The data store is unavailable: ClickHouse at http:\/\/127\.0\.0\.1:\d+ is unavailable/);
      const graph = await ts.server.api.inject({
        method: 'POST', url: '/graphql', headers: { 'api-key': TEST_API_KEY, 'content-type': 'application/json' },
        payload: { query: '{ actor { account(id: 1) { nrql(query: "SELECT count(*) FROM Transaction SINCE 1 hour ago") { results } } } }' },
      });
      const error = graph.json().errors[0];
      assert.equal(error.extensions.errorClass, 'SERVER_ERROR');
      assert.match(error.message, /^The data store is unavailable: ClickHouse at/);
    } finally {
      await clickhouse.resume();
    }
    const accepted = await invoke(ts.server, { query: agentQuery('metric_data', TEST_LICENSE_KEY, agent.runId), body: metricData(agent.runId, second, 5) });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(await count(`SELECT sum(call_count) FROM ${db}.timeslices WHERE ts = ${second}`), 5);
  });

  it('deleting an application deletes its rows in ClickHouse', async () => {
    const agent = await connectApp(ts, 'ch-doomed', 'h9');
    assert.equal((await invoke(ts.server, { query: agentQuery('metric_data', TEST_LICENSE_KEY, agent.runId), body: metricData(agent.runId, MINUTE, 2) })).status, 200);
    const id = ts.server.catalog.run(agent.runId)!.targets[0]!.appId;
    assert.equal(await count(`SELECT count() FROM ${db}.timeslices WHERE app_id = ${id}`), 1);
    // What REST's DELETE and the graph's mutation call (REST refuses while the application reports).
    await ts.server.catalog.deleteApplication(id);
    await waitFor('the application\'s rows to go', async () => (await count(`SELECT count() FROM ${db}.timeslices WHERE app_id = ${id}`)) === 0);
  });

  it('takes back a batch whose second INSERT failed: none of its rows stay, and the writer goes on', async () => {
    const at = MINUTE + 5 * 60_000;
    const good = new Rows(TIMESLICES);
    good.push(1, 77, 1, 1, 1, 0, at, 3, 1, 1, 0.5, 0.5, 0.5);
    // ClickHouse refuses this one: text where the account id (Int32) goes.
    const bad = new Rows(CUSTOM_EVENTS);
    bad.push('one' as unknown as number, 77, 0, 0, at, 'Broken', '{}');
    await assert.rejects(ts.server.writer.write([good, bad]), (e: Error) => !(e instanceof StoreBusyError));
    await waitFor('the failed batch to be deleted', async () => (await count(`SELECT count() FROM ${db}.timeslices WHERE app_id = 77`)) === 0);
    const again = new Rows(TIMESLICES);
    again.push(1, 77, 1, 1, 1, 0, at, 4, 1, 1, 0.5, 0.5, 0.5);
    await ts.server.writer.write([again]);
    assert.equal(await count(`SELECT sum(call_count) FROM ${db}.timeslices WHERE app_id = 77`), 4);
  });
});
