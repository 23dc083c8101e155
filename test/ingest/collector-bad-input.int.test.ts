import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { constants, deflateSync, gzipSync } from 'node:zlib';
import { MAX_PAYLOAD_BYTES } from '../../src/ingest/agent/collector.js';
import { MAX_INFLATED_BYTES } from '../../src/ingest/agent/decode-body.js';
import { agentQuery, connectAgent, invoke, replyJson, type CollectorReply, type InvokeOptions } from '../helpers/collector-client.js';
import { sample, withRunId } from '../helpers/samples.js';
import { startTestServer, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

type Obj = Record<string, unknown>;
type MetricEntry = [{ name: string; scope?: string }, number[]];

let ts: TestServer;
let runId: string;

const metricSample = sample('metric_data');
const metricList = (metricSample.body as [string, number, number, MetricEntry[]])[3];
const eventSample = sample('analytic_event_data');
const events = (eventSample.body as [string, Obj, [Obj, Obj, Obj][]])[2];

const call = (options: InvokeOptions) => invoke(ts.server, options);
const data = (method: string, body: unknown, extra: Partial<InvokeOptions> = {}) =>
  call({ query: agentQuery(method, TEST_LICENSE_KEY, runId), body, ...extra });

/** A refusal: the status, and a JSON body naming the problem in `exception.message`. */
function assertRefused(reply: CollectorReply, status: number, message?: RegExp): void {
  assert.equal(reply.status, status, `expected ${status}, got ${reply.status}: ${reply.text}`);
  const body = replyJson(reply) as { exception?: { message?: unknown; error_type?: unknown } };
  assert.equal(typeof body.exception?.message, 'string', reply.text);
  assert.ok((body.exception!.message as string).length > 0);
  assert.equal(typeof body.exception?.error_type, 'string', reply.text);
  if (message) assert.match(body.exception!.message as string, message);
  assert.match(String(reply.headers['content-type']), /^application\/json/);
}

function assertOk(reply: CollectorReply, returnValue: unknown = null): void {
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(replyJson(reply), { return_value: returnValue });
}

const num = (v: unknown) => (typeof v === 'bigint' ? Number(v) : v);

/** Every timeslice stored, as [name, scope, six numbers, ts ms, app id], sorted. */
async function storedTimeslices(): Promise<unknown[][]> {
  const rows = await ts.server.db.all<Obj>(`
    SELECT n.name, coalesce(s.name, '') AS scope, t.call_count, t.total, t.exclusive, t.min, t.max, t.sum_of_squares,
           epoch_ms(t.ts) AS ts, t.app_id, t.scope_id
    FROM timeslices t JOIN metric_names n ON n.id = t.metric_id LEFT JOIN metric_names s ON s.id = t.scope_id
    ORDER BY n.name, scope`);
  for (const r of rows) if (r.scope === '') assert.equal(r.scope_id, 0);
  return rows.map((r) => [r.name, r.scope, r.call_count, r.total, r.exclusive, r.min, r.max, r.sum_of_squares, num(r.ts), r.app_id]);
}

const byNameScope = (a: unknown[], b: unknown[]) =>
  String(a[0]).localeCompare(String(b[0]), 'en') || String(a[1]).localeCompare(String(b[1]), 'en');

async function count(table: string): Promise<number> {
  const [row] = await ts.server.db.all<{ n: bigint }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(row!.n);
}

let appId: number;

before(async () => {
  ts = await startTestServer();
  const connect = sample('connect-request');
  const result = await connectAgent(ts.server, TEST_LICENSE_KEY, connect.body);
  runId = result.runId;
  appId = Number(result.connectReply.application_id);
  assertOk(await data('metric_data', withRunId(metricSample.body, runId)));
  assertOk(await data('analytic_event_data', withRunId(eventSample.body, runId)));
});

after(async () => {
  await ts?.stop();
});

/** The good data stored in `before`, exactly: every timeslice and every transaction event. */
async function assertGoodDataIntact(): Promise<void> {
  const expected = metricList
    .map(([spec, v]) => [spec.name, spec.scope ?? '', ...v, 1795318920000, appId])
    .sort(byNameScope);
  const stored = (await storedTimeslices()).sort(byNameScope);
  assert.equal(stored.length, 126);
  assert.deepEqual(stored, expected);
  assert.equal(await count('metric_names'), 98);
  const [apdex] = await ts.server.db.all<Obj>(`
    SELECT t.call_count, t.total, t.exclusive, t.min, t.max, t.sum_of_squares
    FROM timeslices t JOIN metric_names n ON n.id = t.metric_id WHERE n.name = 'Apdex'`);
  assert.deepEqual(apdex, { call_count: 129, total: 41, exclusive: 45, min: 0.05, max: 0.05, sum_of_squares: 0 });

  const tx = await ts.server.db.all<Obj>(`
    SELECT epoch_ms(timestamp) AS ts, name, duration, total_time, error, http_status_code, guid, trace_id, intrinsics
    FROM transaction_events ORDER BY guid`);
  assert.equal(tx.length, 61);
  const expectedTx = events.map(([i, , agent]) => [
    i.timestamp, i.name, i.duration, i.totalTime, i.error, Number(agent['http.statusCode']), i.guid, i.traceId, i,
  ]).sort((a, b) => String(a[6]).localeCompare(String(b[6]), 'en'));
  assert.deepEqual(
    tx.map((r) => [num(r.ts), r.name, r.duration, r.total_time, r.error, r.http_status_code, r.guid, r.trace_id, JSON.parse(r.intrinsics as string)]),
    expectedTx,
  );
}

test('the agent handshake: preconnect redirects to this collector, connect opens a run', async () => {
  const pre = await call({ query: agentQuery('preconnect', TEST_LICENSE_KEY), body: [{ high_security: false }] });
  assertOk(pre, { redirect_host: `localhost:${ts.server.collectorPort}` });
  assert.ok(runId.length >= 16);
  const runs = await ts.server.db.all<Obj>('SELECT run_id, shutdown_at FROM agent_runs');
  assert.deepEqual(runs, [{ run_id: runId, shutdown_at: null }]);
});

test('the good data is stored exactly before any bad input', async () => {
  await assertGoodDataIntact();
});

test('malformed JSON is 400', async () => {
  assertRefused(await data('metric_data', Buffer.from(`["${runId}", 1795318934.645, 1795318994.657, [[{"name":"Custom/Trunc"}, [1,`)), 400, /JSON/);
  assertRefused(await data('analytic_event_data', Buffer.from('not json at all')), 400, /JSON/);
  assertRefused(await data('metric_data', Buffer.alloc(0)), 400);
});

test('a GET (or other verb agents never use) is 405', async () => {
  for (const verb of ['GET', 'DELETE', 'PATCH']) {
    const reply = await call({ verb, query: agentQuery('metric_data', TEST_LICENSE_KEY, runId), headers: { 'content-length': undefined, 'content-type': undefined } });
    assertRefused(reply, 405);
    assert.equal(reply.headers.allow, 'POST, PUT');
  }
});

test('a protocol version other than 17 is 410; a missing or non-numeric one is 400', async () => {
  const body = withRunId(metricSample.body, runId);
  assertRefused(await call({ query: { ...agentQuery('metric_data', TEST_LICENSE_KEY, runId), protocol_version: '16' }, body }), 410, /16/);
  assertRefused(await call({ query: { ...agentQuery('connect', TEST_LICENSE_KEY), protocol_version: '18' }, body: sample('connect-request').body }), 410);
  assertRefused(await call({ query: { ...agentQuery('metric_data', TEST_LICENSE_KEY, runId), protocol_version: undefined }, body }), 400, /protocol_version/);
  assertRefused(await call({ query: { ...agentQuery('metric_data', TEST_LICENSE_KEY, runId), protocol_version: 'seventeen' }, body }), 400, /protocol_version/);
});

test('a marshal format other than json, or no method, is 400', async () => {
  const body = withRunId(metricSample.body, runId);
  assertRefused(await call({ query: { ...agentQuery('metric_data', TEST_LICENSE_KEY, runId), marshal_format: 'xml' }, body }), 400, /marshal_format/);
  assertRefused(await call({ query: { ...agentQuery('metric_data', TEST_LICENSE_KEY, runId), method: undefined }, body }), 400, /method/);
});

test('a truncated gzip body is 400', async () => {
  const gz = gzipSync(Buffer.from(JSON.stringify(withRunId(metricSample.body, runId))));
  assertRefused(await data('metric_data', gz.subarray(0, gz.length - 100), { headers: { 'content-encoding': 'gzip' } }), 400);
  assertRefused(await data('metric_data', gz.subarray(0, gz.length >> 1), { headers: { 'content-encoding': 'identity' } }), 400);
  const zd = deflateSync(Buffer.from(JSON.stringify(withRunId(eventSample.body, runId))));
  assertRefused(await data('analytic_event_data', zd.subarray(0, zd.length - 50), { headers: { 'content-encoding': 'deflate' } }), 400);
});

test('a 2 MB body is 413', async () => {
  // A well-formed metric_data payload of new metrics, 2 MB on the wire: were it accepted, it would show in the store.
  const metrics: MetricEntry[] = [];
  let text = '';
  for (let i = 0; text.length < 2 * 1024 * 1024; i++) {
    metrics.push([{ name: `Custom/Big/${'x'.repeat(64)}/${i}` }, [1, 0.5, 0.5, 0.5, 0.5, 0.25]]);
    if (i % 1000 === 999) text = JSON.stringify([runId, 1795318934.645, 1795318994.657, metrics]);
  }
  const raw = Buffer.from(JSON.stringify([runId, 1795318934.645, 1795318994.657, metrics]));
  assert.ok(raw.length > 2 * MAX_PAYLOAD_BYTES);
  assertRefused(await data('metric_data', raw), 413);
  // Just over the limit is refused too; compressed bodies are measured on the wire.
  assertRefused(await data('metric_data', raw.subarray(0, MAX_PAYLOAD_BYTES + 1)), 413);
});

test('a missing, empty or unknown license key is 401', async () => {
  const body = withRunId(metricSample.body, runId);
  const q = agentQuery('metric_data', TEST_LICENSE_KEY, runId);
  assertRefused(await call({ query: { ...q, license_key: undefined }, body }), 401);
  assertRefused(await call({ query: { ...q, license_key: '' }, body }), 401);
  assertRefused(await call({ query: { ...q, license_key: '   ' }, body }), 401);
  assertRefused(await call({ query: { ...q, license_key: 'ffffffffffffffffffffffffffffffffffffffff' }, body }), 401, /license/i);
  // The user (API) key is not a license key.
  assertRefused(await call({ query: { ...q, license_key: 'NRAK-TESTKEY0000000000000000000' }, body }), 401);
  // At the handshake too.
  assertRefused(await call({ query: agentQuery('preconnect', 'ffffffffffffffffffffffffffffffffffffffff'), body: [{ high_security: false }] }), 401);
  assertRefused(await call({ query: agentQuery('connect', 'ffffffffffffffffffffffffffffffffffffffff'), body: sample('connect-request').body }), 401);
});

test('an unknown or missing run id is 409', async () => {
  const body = metricSample.body; // still carrying the lab's run id
  assertRefused(await call({ query: agentQuery('metric_data', TEST_LICENSE_KEY, 'lab-run-1'), body }), 409, /lab-run-1/);
  assertRefused(await call({ query: agentQuery('analytic_event_data', TEST_LICENSE_KEY, 'lab-run-1'), body: eventSample.body }), 409);
  assertRefused(await call({ query: agentQuery('metric_data', TEST_LICENSE_KEY), body }), 409, /run_id/);
  assertRefused(await call({ query: agentQuery('shutdown', TEST_LICENSE_KEY, 'lab-run-1'), body: [] }), 409);
});

test('an unsupported Content-Encoding is 415', async () => {
  const gz = gzipSync(Buffer.from(JSON.stringify(withRunId(metricSample.body, runId))));
  assertRefused(await data('metric_data', gz, { headers: { 'content-encoding': 'br' } }), 415, /br/);
  assertRefused(await data('metric_data', gz, { headers: { 'content-encoding': 'compress' } }), 415);
});

test('a gzip bomb (small on the wire, over 64 MB inflated) is 413', async () => {
  const text = Buffer.alloc(MAX_INFLATED_BYTES + 1024, 0x20);
  text[0] = 0x5b;
  text[text.length - 1] = 0x5d;
  const bomb = gzipSync(text, { level: 1, strategy: constants.Z_RLE });
  assert.ok(bomb.length < MAX_PAYLOAD_BYTES);
  assertRefused(await data('metric_data', bomb, { headers: { 'content-encoding': 'gzip' } }), 413);
});

test('metric_data with a wrong-shape metric is 400 and none of its rows are stored', async () => {
  const [, begin, end] = metricSample.body as [string, number, number];
  const good: MetricEntry[] = [
    [{ name: 'Custom/Shape/Good' }, [1, 2, 3, 4, 5, 6]],
    [{ name: 'Custom/Shape/Scoped', scope: 'WebTransaction/Custom/Shape' }, [1, 2, 3, 4, 5, 6]],
    [{ name: 'HttpDispatcher' }, [1, 1, 1, 1, 1, 1]],
  ];
  const bad: unknown[] = [
    [{ name: 'Custom/Shape/Bad' }, [1, 2, 3, 4, 5]],
    [{ name: 'Custom/Shape/Bad' }, ['1', 2, 3, 4, 5, 6]],
    [{ name: 'Custom/Shape/Bad' }, [1, 2, null, 4, 5, 6]],
    [{ name: 'Custom/Shape/Bad' }, 'six numbers'],
    [{ name: 42 }, [1, 2, 3, 4, 5, 6]],
  ];
  for (const metric of bad) {
    assertRefused(await data('metric_data', [runId, begin, end, [...good, metric, ...good]]), 400);
  }
  // Nothing new: no names, no timeslices.
  const names = await ts.server.db.all<Obj>("SELECT name FROM metric_names WHERE name LIKE '%Shape%' OR name LIKE 'Custom/%'");
  assert.deepEqual(names, []);
  assert.equal(await count('timeslices'), 126);
});

test('an event payload with one bad event is 400 and none of its events are stored', async () => {
  const body = withRunId(eventSample.body, runId) as [string, Obj, unknown[]];
  body[2].push([{ type: 'Transaction', name: 'WebTransaction/Bad' }, 'not an object', {}]);
  assertRefused(await data('analytic_event_data', body), 400);
  assertRefused(await data('custom_event_data', [runId, [[{ type: 'LabEvent', timestamp: 1795318959517 }, { n: 1 }], [{ timestamp: 1 }, {}]]]), 400);
  assertRefused(await data('log_event_data', [{ logs: [{ message: 'ok' }, 'not a log'] }]), 400);
  assert.equal(await count('transaction_events'), 61);
  assert.equal(await count('custom_events'), 0);
  assert.equal(await count('log_events'), 0);
});

test('a timestamp that is no time is 400 (discard), not 503 (resend forever), and spoils no other write', async () => {
  const [, begin] = metricSample.body as [string, number];
  const poisoned = [
    data('custom_event_data', [runId, [[{ type: 'LabEvent', timestamp: 1795318959517 }, { n: 1 }], [{ type: 'LabEvent', timestamp: 1e300 }, { n: 2 }]]]),
    data('error_data', [runId, [[1e16, 'WebTransaction/Expressjs/GET//error', 'm', 'Error', {}, 'g']]]),
    data('metric_data', [runId, begin, 1e300, [[{ name: 'Custom/Time/Bad' }, [1, 2, 3, 4, 5, 6]]]]),
  ];
  // Sent alongside, so that it would share a commit with the bad rows if they reached the store.
  const good = data('log_event_data', withRunId(sample('log_event_data').body, runId));
  const replies = await Promise.all(poisoned);
  for (const reply of replies) assertRefused(reply, 400, /begin|timestamp/);
  assertOk(await good);
  assert.equal(await count('custom_events'), 0);
  assert.equal(await count('error_traces'), 0);
  assert.equal(await count('log_events'), 15);
  assert.deepEqual(await ts.server.db.all("SELECT name FROM metric_names WHERE name LIKE 'Custom/%'"), []);
});

test('after all the bad input the good data is all still there, exactly', async () => {
  await assertGoodDataIntact();
  for (const table of ['error_events', 'span_events', 'custom_events', 'error_traces', 'transaction_traces', 'sql_traces']) {
    assert.equal(await count(table), 0, table);
  }
  assert.equal(await count('log_events'), 15);
});

test('good requests still succeed afterwards: gzip spans, deflate custom events over PUT, another harvest', async () => {
  const spans = sample('span_event_data-gzip');
  const gz = gzipSync(Buffer.from(JSON.stringify(withRunId(spans.body, runId))));
  assertOk(await data('span_event_data', gz, { headers: { 'content-encoding': spans.headers['content-encoding'] } }));
  assert.equal(await count('span_events'), 250);

  const custom = sample('custom_event_data');
  const zd = deflateSync(Buffer.from(JSON.stringify(withRunId(custom.body, runId))));
  assertOk(await data('custom_event_data', zd, { verb: 'PUT', headers: { 'content-encoding': 'deflate' } }));
  const stored = await ts.server.db.all<Obj>('SELECT event_type, epoch_ms(timestamp) AS ts, attributes FROM custom_events ORDER BY ts');
  const expected = (custom.body as [string, [Obj, Obj][]])[1]
    .map(([head, attributes]) => ({ event_type: head.type, ts: head.timestamp, attributes }))
    .sort((a, b) => (a.ts as number) - (b.ts as number));
  assert.deepEqual(stored.map((r) => ({ event_type: r.event_type, ts: num(r.ts), attributes: JSON.parse(r.attributes as string) })), expected);

  const final = sample('metric_data-final-harvest');
  const finalList = (final.body as [string, number, number, MetricEntry[]])[3];
  assertOk(await data('metric_data', withRunId(final.body, runId)));
  assert.equal(await count('timeslices'), 126 + finalList.length);
  const [minute] = await ts.server.db.all<{ n: bigint }>('SELECT count(*) AS n FROM timeslices WHERE ts = make_timestamp(1795318980000000)');
  assert.equal(Number(minute!.n), finalList.length);
  assertOk(await data('get_agent_commands', [runId]), []);
  assertOk(await data('agent_settings', sample('agent_settings').body));
});
