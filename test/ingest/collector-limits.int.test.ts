import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { agentQuery, connectAgent, invoke, replyJson, type CollectorReply, type InvokeOptions } from '../helpers/collector-client.js';
import { httpsRequest } from '../helpers/https-request.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

// Agent ingest limits (issue 12): each case here was acknowledged with 200 and stored whole, or answered 503
// ("accepted on retry", so agents resend it forever), before the limits were checked where the data enters.

type Obj = Record<string, unknown>;

let ts: TestServer;
let runId: string;
let appId: number;
const MiB = 1024 * 1024;
const now = Date.now();

const call = (options: InvokeOptions) => invoke(ts.server, options);
const data = (method: string, body: unknown) => call({ query: agentQuery(method, TEST_LICENSE_KEY, runId), body });
const connect = (facts: Obj) => call({ query: agentQuery('connect', TEST_LICENSE_KEY), body: [facts] });

function assertOk(reply: CollectorReply, returnValue: unknown = null): void {
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(replyJson(reply), { return_value: returnValue });
}

function assertRefused(reply: CollectorReply, status: number, message: RegExp): void {
  assert.equal(reply.status, status, reply.text);
  assert.match((replyJson(reply) as { exception: { message: string } }).exception.message, message);
}

const rows = (sql: string) => ts.server.db.all<Obj>(sql);
const encode = (tree: unknown) => deflateSync(Buffer.from(JSON.stringify(tree))).toString('base64');
/** `{"a":{"a":…1…}}` nested `depth` deep, as text: JSON.stringify itself overflows the stack on it. */
const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

async function nrql(query: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${ts.server.apiUrl}/timeslice/v1/nrql`, {
    method: 'POST',
    headers: { 'api-key': TEST_API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: await res.json() };
}

async function graphNrql(query: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${ts.server.apiUrl}/graphql`, {
    method: 'POST',
    headers: { 'api-key': TEST_API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'query($q: Nrql!) { actor { account(id: 1) { nrql(query: $q) { results } } } }', variables: { q: query } }),
  });
  return { status: res.status, body: await res.json() };
}

before(async () => {
  ts = await startTestServer();
  const result = await connectAgent(ts.server, TEST_LICENSE_KEY, [{ app_name: ['Limits'], language: 'nodejs', host: 'limits-host', pid: 7 }]);
  runId = result.runId;
  appId = Number(result.connectReply.application_id);
});

after(async () => {
  await ts?.stop();
});

test('transaction traces: 20 kept per payload; a tree inflating past 4 MiB, or past the payload\'s 8 MiB, is kept as sent', async () => {
  const trace = (i: number, encoded: unknown) => [now, 12.5, 'WebTransaction/Limits/trace', '/u', encoded, `guid-${String(i).padStart(2, '0')}`, null, false, null, null];
  assertOk(await data('transaction_sample_data', [runId, Array.from({ length: 25 }, (_, i) => trace(i, encode({ i })))]));
  const kept = await rows('SELECT transaction_guid, trace FROM transaction_traces ORDER BY transaction_guid');
  assert.deepEqual(kept.map((r) => r.transaction_guid), Array.from({ length: 20 }, (_, i) => `guid-${String(i).padStart(2, '0')}`));
  assert.deepEqual(kept.map((r) => JSON.parse(r.trace as string)), Array.from({ length: 20 }, (_, i) => ({ i })));

  // One tree of 4 MiB and a little more: about 4 KB on the wire, stored as the agent sent it.
  const big = encode(['x'.repeat(4 * MiB)]);
  assertOk(await data('transaction_sample_data', [runId, [trace(50, big)]]));
  const [bigRow] = await rows("SELECT trace FROM transaction_traces WHERE transaction_guid = 'guid-50'");
  assert.equal(bigRow!.trace, JSON.stringify(big));

  // Three trees of 3 MiB: two fit the payload's 8 MiB decoded, the third is kept as sent.
  const trees = [0, 1, 2].map((i) => [String(i).repeat(3 * MiB - 10)]);
  assertOk(await data('transaction_sample_data', [runId, trees.map((tree, i) => trace(60 + i, encode(tree)))]));
  const stored = await rows("SELECT transaction_guid, trace FROM transaction_traces WHERE transaction_guid >= 'guid-60' ORDER BY transaction_guid");
  assert.deepEqual(stored.map((r) => JSON.parse(r.trace as string)), [trees[0], trees[1], encode(trees[2])]);
});

test('SQL traces: 50 kept per payload', async () => {
  const sqlTrace = (i: number) => ['WebTransaction/Limits/sql', '/u', i, 'SELECT 1', 'Datastore/statement/Postgres/t/select', 1, 0.5, 0.5, 0.5, encode({ i })];
  assertOk(await data('sql_trace_data', [runId, Array.from({ length: 55 }, (_, i) => sqlTrace(i))]));
  const kept = await rows('SELECT sql_id, params FROM sql_traces ORDER BY CAST(sql_id AS INTEGER)');
  assert.deepEqual(kept.map((r) => [Number(r.sql_id), JSON.parse(r.params as string)]), Array.from({ length: 50 }, (_, i) => [i, { i }]));
});

test('a trace entry too short to be one, or parameters nested 50,000 deep, is 400 (discard), not 503 (resend forever)', async () => {
  assertRefused(await data('transaction_sample_data', [runId, [[now, 1, 'WebTransaction/Limits/short', '/u']]]), 400, /at least 5 fields, this one 4/);
  assertRefused(await data('sql_trace_data', [runId, [['WebTransaction/Limits/short', '/u', 1, 'SELECT 1', 'Datastore/x', 1, 1, 1]]]), 400, /at least 9 fields, this one 8/);
  assertRefused(await data('error_data', [runId, [[0, 'WebTransaction/Limits/short', 'message']]]), 400, /at least 5 fields, this one 3/);
  const deep = Buffer.from(`["${runId}",[[0,"WebTransaction/Limits/deep","m","Error",${nestedText(50_000)},"g"]]]`);
  assertRefused(await data('error_data', deep), 400, /nest more than 1000 levels/);
  assert.deepEqual(await rows('SELECT count(*)::INTEGER AS n FROM error_traces'), [{ n: 0 }]);
  const simple = Buffer.from(`["${runId}",[[${now},1,"WebTransaction/Limits/deep","/u",${nestedText(50_000).replace('1', '[]')},"g"]]]`);
  assertRefused(await data('transaction_sample_data', simple), 400, /nests more than 1000 levels/);
});

test('a method named after an Object.prototype member is an unknown method: 200 null, nothing stored', async () => {
  for (const method of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf']) {
    assertOk(await data(method, [runId, [[{ type: 'Transaction', timestamp: now }, {}, {}]]]));
  }
  assert.deepEqual(await rows('SELECT count(*)::INTEGER AS n FROM transaction_events'), [{ n: 0 }]);
});

test('connect: a pid of 2^31 or a port past 65535 is stored as unknown; the run connects', async () => {
  const big = await connect({ app_name: ['Limits-Pid'], host: 'pid-host', pid: 2 ** 31, port: 2 ** 31 });
  assert.equal(big.status, 200, big.text);
  const fits = await connect({ app_name: ['Limits-Pid'], host: 'pid-host', pid: 2 ** 31 - 1, port: 65_535 });
  assert.equal(fits.status, 200, fits.text);
  const text = await connect({ app_name: ['Limits-Pid'], host: 'pid-host', pid: '99999999999999999999', port: 65_536 });
  assert.equal(text.status, 200, text.text);
  const stored = await rows(`SELECT pid, port FROM instances i JOIN hosts h ON h.id = i.host_id WHERE h.name = 'pid-host' ORDER BY pid NULLS FIRST`);
  assert.deepEqual(stored, [{ pid: null, port: null }, { pid: 2 ** 31 - 1, port: 65_535 }]);
});

test('connect: at most 3 application names (the rest ignored), names, host and language cut to 255 characters', async () => {
  const names = Array.from({ length: 5_000 }, (_, i) => `Limits-Rollup-${i}`);
  const started = Date.now();
  const reply = await connect({ app_name: names, host: 'h'.repeat(10_000), language: 'l'.repeat(10_000), agent_version: 'v'.repeat(10_000) });
  assert.equal(reply.status, 200, reply.text);
  assert.ok(Date.now() - started < 2_000, `connect took ${Date.now() - started} ms`);
  const apps = await rows("SELECT name, language FROM applications WHERE name LIKE 'Limits-Rollup-%' ORDER BY id");
  assert.deepEqual(apps, ['Limits-Rollup-0', 'Limits-Rollup-1', 'Limits-Rollup-2'].map((name) => ({ name, language: 'l'.repeat(255) })));
  const run = ts.server.catalog.run((replyJson(reply) as { return_value: { agent_run_id: string } }).return_value.agent_run_id);
  assert.equal(run?.targets.length, 3);
  const hosts = await rows("SELECT DISTINCT name FROM hosts WHERE name LIKE 'hhh%'");
  assert.deepEqual(hosts, [{ name: 'h'.repeat(255) }]);
  const [instance] = await rows(`SELECT DISTINCT agent_version FROM instances WHERE agent_version LIKE 'vvv%'`);
  assert.deepEqual(instance, { agent_version: 'v'.repeat(255) });

  const long = await connect({ app_name: `${'N'.repeat(300)};Limits-Short`, host: 'long-name-host' });
  assert.equal(long.status, 200, long.text);
  assert.deepEqual(await rows("SELECT name FROM applications WHERE name LIKE 'NNN%' OR name = 'Limits-Short' ORDER BY id"), [{ name: 'N'.repeat(255) }, { name: 'Limits-Short' }]);
});

test('metric and transaction names are cut to 255 characters', async () => {
  const metric = `Custom/${'M'.repeat(10_000)}`;
  const tx = `WebTransaction/${'W'.repeat(10_000)}`;
  assertOk(await data('metric_data', [runId, now / 1000 - 60, now / 1000, [[{ name: metric, scope: tx }, [1, 1, 1, 1, 1, 1]], [{ name: metric }, [1, 1, 1, 1, 1, 1]]]]));
  assert.deepEqual(await rows("SELECT name FROM metric_names WHERE name LIKE 'Custom/MMM%' OR name LIKE 'WebTransaction/WWW%' ORDER BY name"), [
    { name: metric.slice(0, 255) }, { name: tx.slice(0, 255) },
  ]);
  assertOk(await data('analytic_event_data', [runId, {}, [[{ type: 'Transaction', name: tx, timestamp: now, duration: 0.1 }, {}, {}]]]));
  const [event] = await rows("SELECT name, intrinsics FROM transaction_events WHERE name LIKE 'WebTransaction/WWW%'");
  assert.equal(event!.name, tx.slice(0, 255));
  assert.equal(JSON.parse(event!.intrinsics as string).name, tx.slice(0, 255));
});

test('an attribute nested 50,000 or 8,000 deep is dropped from the event; SELECT * over the window still answers', async () => {
  const events = `[[{"type":"Transaction","name":"WebTransaction/Limits/deep","timestamp":${now},"duration":0.5},{"deep":${nestedText(50_000)},"kept":"yes"},{}],`
    + `[{"type":"Transaction","name":"WebTransaction/Limits/deep","timestamp":${now},"duration":0.25},{"deep":${nestedText(8_000)},"list":[1,2]},{}]]`;
  assertOk(await data('analytic_event_data', Buffer.from(`["${runId}",{"reservoir_size":10,"events_seen":2},${events}]`)));
  const stored = await rows("SELECT duration, user_attributes FROM transaction_events WHERE name = 'WebTransaction/Limits/deep' ORDER BY duration");
  assert.deepEqual(stored.map((r) => [r.duration, JSON.parse(r.user_attributes as string)]), [[0.25, {}], [0.5, { kept: 'yes' }]]);

  const query = "SELECT * FROM Transaction WHERE name = 'WebTransaction/Limits/deep' SINCE 1 day ago";
  const viaNrql = await nrql(query);
  assert.equal(viaNrql.status, 200, JSON.stringify(viaNrql.body));
  assert.deepEqual(viaNrql.body.results.map((e: Obj) => [e.duration, e.kept ?? null]).sort(), [[0.25, null], [0.5, 'yes']]);
  const viaGraph = await graphNrql(query);
  assert.equal(viaGraph.status, 200);
  assert.equal(viaGraph.body.errors, undefined, JSON.stringify(viaGraph.body.errors));
  assert.equal(viaGraph.body.data.actor.account.nrql.results.length, 2);
});

test('a value of 1e308 cannot make a window\'s sum overflow: such timeslices and event attributes are dropped and reported', async () => {
  // Two minutes back: REST's default window (the last 30 minutes) ends at the current minute.
  const harvest = (...stats: number[][]) => [runId, now / 1000 - 180, now / 1000 - 120, stats.map((v, i) => [{ name: i === 0 ? 'Custom/Overflow' : 'Custom/Beside' }, v])];
  assertOk(await data('metric_data', harvest([1, 1e308, 1e308, 1e308, 1e308, 0], [4, 1, 1, 1, 1, 1])));
  assertOk(await data('metric_data', harvest([1, 0.5, 0.5, 0.5, 0.5, -1e101])));
  assertOk(await data('metric_data', harvest([2, 3, 3, 1, 2, 5])));
  assertOk(await data('metric_data', harvest([1, 1e100, 1e100, 1e100, 1e100, 1e100])));
  const beside = await nrql("SELECT count(newrelic.timeslice.value) FROM Metric WHERE metricTimesliceName = 'Custom/Beside' SINCE 1 day ago");
  assert.deepEqual(beside.body.results, [{ 'count.newrelic.timeslice.value': 4 }]);
  const reported = await nrql("SELECT message, metricNameSample, newRelicFeature, appName FROM NrIntegrationError WHERE newRelicFeature = 'Metrics' SINCE 1 day ago");
  assert.deepEqual(reported.body.results.map(({ timestamp: _t, ...e }: Obj) => e), [1, 1].map(() => ({
    message: '1 metric(s) dropped because a value exceeded the maximum magnitude (1e100)',
    metricNameSample: 'Custom/Overflow',
    newRelicFeature: 'Metrics',
    appName: 'Limits',
  })));

  const viaNrql = await nrql("SELECT count(newrelic.timeslice.value), max(newrelic.timeslice.value) FROM Metric WHERE metricTimesliceName = 'Custom/Overflow' SINCE 1 day ago");
  assert.equal(viaNrql.status, 200, JSON.stringify(viaNrql.body));
  assert.deepEqual(viaNrql.body.results, [{ 'count.newrelic.timeslice.value': 3, 'max.newrelic.timeslice.value': 1e100 }]);

  const res = await fetch(`${ts.server.apiUrl}/v2/applications/${appId}/metrics/data.json?names[]=Custom/Overflow&summarize=true&raw=true`, { headers: { 'x-api-key': TEST_API_KEY } });
  assert.equal(res.status, 200);
  const values = ((await res.json()) as any).metric_data.metrics[0].timeslices[0].values;
  for (const [name, value] of Object.entries(values)) assert.ok(Number.isFinite(value), `${name}: ${value}`);
  assert.deepEqual(
    [values.call_count, values.average_value, values.min_response_time, values.max_response_time],
    [3, (3 + 1e100) / 3, 1000, 1e100 * 1000],
  );

  const events = [
    [{ type: 'Transaction', name: 'WebTransaction/Limits/overflow', timestamp: now, duration: 0.25 }, { big: 2 }, {}],
    [{ type: 'Transaction', name: 'WebTransaction/Limits/overflow', timestamp: now, duration: 1e308 }, { big: -1e308 }, {}],
  ];
  assertOk(await data('analytic_event_data', [runId, {}, events]));
  const sums = await nrql("SELECT sum(duration), count(duration), sum(big), count(*) FROM Transaction WHERE name = 'WebTransaction/Limits/overflow' SINCE 1 day ago");
  assert.equal(sums.status, 200, JSON.stringify(sums.body));
  assert.deepEqual(Object.values(sums.body.results[0]), [0.25, 1, 2, 2]);
});

test('Event API: an event with a number past 1e100 or an attribute nested 8,000 deep is dropped and reported; the others stored', async () => {
  const body = `[{"eventType":"LimitsOverflow","v":1e308},{"eventType":"LimitsOverflow","v":3},{"eventType":"LimitsOverflow","deep":${nestedText(8_000)}}]`;
  const reply = await httpsRequest(ts.server, 'POST', '/v1/accounts/1/events', { 'x-insert-key': TEST_LICENSE_KEY, 'content-type': 'application/json' }, body);
  assert.equal(reply.status, 200, reply.text);
  const sum = await nrql('SELECT sum(v), count(*) FROM LimitsOverflow SINCE 1 day ago');
  assert.deepEqual(Object.values(sum.body.results[0]), [3, 1]);
  const errors = await nrql("SELECT message FROM NrIntegrationError WHERE eventTypeSample = 'LimitsOverflow' SINCE 1 day ago");
  assert.deepEqual(errors.body.results.map((e: Obj) => e.message).sort(), [
    '1 event(s) rejected because a numeric attribute value exceeded the maximum magnitude (1e100)',
    '1 event(s) rejected because an attribute value was an object or array (values are strings, numbers or booleans)',
  ]);
});

test('a run stored with more than 3 applications (before connects were capped) writes to its first 3', async () => {
  const targets: number[][] = [];
  for (const name of ['Old-1', 'Old-2', 'Old-3', 'Old-4', 'Old-5']) {
    const { runId: run } = await connectAgent(ts.server, TEST_LICENSE_KEY, [{ app_name: [name], host: 'old-host' }]);
    const t = ts.server.catalog.run(run)!.targets[0]!;
    targets.push([t.appId, t.hostId, t.instanceId]);
  }
  await ts.server.db.all(`INSERT INTO agent_runs SELECT 'old-run-with-five', 1, ${targets[0]![0]}, '${JSON.stringify(targets)}', NULL, NULL, NULL, now(), NULL`);
  await ts.restart();
  const reply = await invoke(ts.server, {
    query: agentQuery('metric_data', TEST_LICENSE_KEY, 'old-run-with-five'),
    body: ['old-run-with-five', now / 1000 - 60, now / 1000, [[{ name: 'Custom/OldRun' }, [1, 1, 1, 1, 1, 1]]]],
  });
  assertOk(reply);
  const apps = await rows("SELECT t.app_id FROM timeslices t JOIN metric_names n ON n.id = t.metric_id WHERE n.name = 'Custom/OldRun' ORDER BY t.app_id");
  assert.deepEqual(apps.map((r) => r.app_id), targets.slice(0, 3).map((t) => t[0]));
});

test('one write larger than the store\'s queue cap is 413 (discard), even with nothing queued; within it, 200', async () => {
  const small = await startTestServer({}, { maxQueuedRows: 100 });
  try {
    const { runId: run } = await connectAgent(small.server, TEST_LICENSE_KEY, [{ app_name: ['Cap-A', 'Cap-B', 'Cap-C'], host: 'cap-host' }]);
    const harvest = (metrics: number) => [run, now / 1000 - 60, now / 1000, Array.from({ length: metrics }, (_, i) => [{ name: `Custom/Cap/${i}` }, [1, 1, 1, 1, 1, 1]])];
    const send = (body: unknown) => invoke(small.server, { query: agentQuery('metric_data', TEST_LICENSE_KEY, run), body });
    // 34 metrics × 3 applications = 102 rows: more than the 100 the store queues at once.
    assertRefused(await send(harvest(34)), 413, /one write of 102 rows is more than the 100 rows/);
    const events = [run, {}, Array.from({ length: 34 }, () => [{ type: 'Transaction', name: 'WebTransaction/Cap', timestamp: now }, {}, {}])];
    assertRefused(await invoke(small.server, { query: agentQuery('analytic_event_data', TEST_LICENSE_KEY, run), body: events }), 413, /102 rows/);
    assert.deepEqual(await small.server.db.all('SELECT count(*)::INTEGER AS n FROM timeslices UNION ALL SELECT count(*)::INTEGER FROM transaction_events'), [{ n: 0 }, { n: 0 }]);
    // 30 × 3 = 90 timeslice rows, and their 30 names and 90 presence rows in the same write: 210 rows.
    assertRefused(await send(harvest(30)), 413, /one write of 210 rows/);
    assertOk(await send(harvest(10)));
    assert.deepEqual(await small.server.db.all('SELECT count(*)::INTEGER AS n FROM timeslices'), [{ n: 30 }]);
  } finally {
    await small.stop();
  }
});
