/**
 * Issue 20's whole setup: two ClickHouse servers as the two shards of a cluster (Distributed tables
 * over each one's MergeTree tables), one PostgreSQL catalog, and two `timeslice serve` processes on
 * them. Apps under the real `newrelic` agent report to node 1 through a small TLS tee (node 1's own
 * certificate) that hands every collector call to node 1 and, once node 1 acknowledged it, the same
 * call to an embedded DuckDB Timeslice (its run ids swapped in). REST v2 metric data, NRQL and the
 * graph API read through node 2 must give the DuckDB node's answers, value for value (sums to 12
 * significant digits: rows are summed per shard, then across shards; exact for counts, ids, names).
 *
 * Then the faults on that same setup: a stopped shard gives agents 503 and readers a clear error,
 * and what was refused is stored once when it returns (collector calls, then the real agent: its
 * refused harvest kept and sent again); `kill -9` of the node holding the background
 * lease moves the lease to the other node within seconds, and the survivor still answers the same.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, inflateSync } from 'node:zlib';
import { test } from 'node:test';
import pg from 'pg';
import { withAgentApp } from '../helpers/agent-app.js';
import { clickhouseMissing, startClickHouseCluster } from '../helpers/clickhouse.js';
import { startPostgres } from '../helpers/postgres.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const APPS = [
  { name: 'shard-app-one', paths: ['/fast/1', '/fast/2', '/fast/3', '/error/1', '/tolerating/1'] },
  { name: 'shard-app-two', paths: ['/fast/1', '/error/1', '/error/2', '/exception/1'] },
];

interface Reply { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }
interface Target { port: number; ca: string }

function send(target: Target, path: string, headers: Record<string, string>, body: Buffer): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', servername: 'localhost', port: target.port, method: 'POST', path, headers: { ...headers, 'content-length': String(body.length) }, ca: target.ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The tee: what a load balancer in front of node 1 would be, plus a copy of every acknowledged call
 * to the DuckDB node. Connects go through one at a time, so both stores hand out ids in the same
 * order; preconnect's redirect names the tee, not node 1's own port.
 */
async function startTee(primary: Target, copy: Target, tls: { key: string; cert: string }) {
  const runIds = new Map<string, string>();
  const problems: string[] = [];
  /** Node 1's status for every call, in the order of its replies. */
  const replies: { method: string | null; status: number }[] = [];
  let connects: Promise<unknown> = Promise.resolve();
  let port = 0;
  // Calls of a run still being handled: a shutdown the agent sends beside its last harvests is
  // copied after them, as node 1 (which waits for a run's calls in progress) ordered them.
  const inFlight = new Map<string, Set<Promise<unknown>>>();
  const handle = async (path: string, headers: Record<string, string>, body: Buffer): Promise<Reply> => {
    const url = new URL(path, 'https://localhost');
    const method = url.searchParams.get('method');
    const run = url.searchParams.get('run_id');
    if (run === null || method === 'shutdown') return forward(url, method, path, headers, body);
    const calls = inFlight.get(run) ?? new Set();
    inFlight.set(run, calls);
    const work = forward(url, method, path, headers, body);
    calls.add(work);
    try {
      return await work;
    } finally {
      calls.delete(work);
    }
  };
  const forward = async (url: URL, method: string | null, path: string, headers: Record<string, string>, body: Buffer): Promise<Reply> => {
    const reply = await send(primary, path, headers, body);
    replies.push({ method, status: reply.status });
    if (reply.status !== 200) return reply;
    if (method === 'preconnect') {
      return { ...reply, body: Buffer.from(JSON.stringify({ return_value: { redirect_host: `localhost:${port}` } })) };
    }
    const encoding = headers['content-encoding'];
    let text = (encoding === 'gzip' ? gunzipSync(body) : encoding === 'deflate' ? inflateSync(body) : body).toString('utf8');
    const runId = url.searchParams.get('run_id');
    if (method === 'shutdown' && runId !== null) await Promise.allSettled([...inFlight.get(runId) ?? []]);
    if (runId !== null) {
      const theirs = runIds.get(runId);
      if (theirs === undefined) {
        problems.push(`${method}: no DuckDB run for ${runId}`);
        return reply;
      }
      url.searchParams.set('run_id', theirs);
      text = text.replaceAll(runId, theirs);
    }
    const copied = await send(copy, `${url.pathname}${url.search}`, { ...headers, 'content-encoding': 'identity' }, Buffer.from(text, 'utf8'));
    if (copied.status !== 200) problems.push(`${method}: the DuckDB node answered ${copied.status} ${copied.body.toString('utf8').slice(0, 200)}`);
    if (method === 'connect' && copied.status === 200) {
      const ours = (JSON.parse(reply.body.toString('utf8')) as { return_value: { agent_run_id: string } }).return_value.agent_run_id;
      runIds.set(ours, (JSON.parse(copied.body.toString('utf8')) as { return_value: { agent_run_id: string } }).return_value.agent_run_id);
    }
    return reply;
  };
  const server: Server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (typeof v === 'string' && !['connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(k)) headers[k] = v;
      }
      const body = Buffer.concat(chunks);
      const isConnect = new URL(req.url!, 'https://localhost').searchParams.get('method') === 'connect';
      const work = isConnect ? (connects = connects.then(() => handle(req.url!, headers, body))) as Promise<Reply> : handle(req.url!, headers, body);
      work.then((reply) => {
        res.statusCode = reply.status;
        for (const h of ['content-type', 'content-encoding', 'retry-after']) if (reply.headers[h] !== undefined) res.setHeader(h, reply.headers[h]!);
        res.end(reply.body);
      }, (error: Error) => {
        problems.push(`tee: ${error.message}`);
        res.statusCode = 503;
        res.end();
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
  return { port, problems, replies, close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

interface Node { child: ChildProcess; apiUrl: string; collectorPort: number; certPath: string; dataDir: string }

async function serveNode(env: Record<string, string>): Promise<Node> {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-shard-node-'));
  const child = spawn(process.execPath, ['bin/timeslice.js', 'serve', '--host', '127.0.0.1', '--port', '0', '--collector-port', '0', '--data', dataDir], {
    cwd: repoRoot,
    env: { ...process.env, ...env, TIMESLICE_LICENSE_KEY: TEST_LICENSE_KEY, TIMESLICE_API_KEY: TEST_API_KEY, TIMESLICE_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  while (!/NODE_EXTRA_CA_CERTS=\S+/.test(out)) {
    assert.equal(child.exitCode, null, out);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    dataDir,
    apiUrl: /API:\s+(http:\/\/\S+)/.exec(out)![1]!.replace(/\/$/, ''),
    collectorPort: Number(/NEW_RELIC_PORT=(\d+)/.exec(out)![1]),
    certPath: /NODE_EXTRA_CA_CERTS=(\S+)/.exec(out)![1]!,
  };
}

function normalize(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number(value.toPrecision(12));
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]));
  return value;
}

async function call(base: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': TEST_API_KEY, 'api-key': TEST_API_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown;
  try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.status, json, headers: res.headers };
}

test('two shards, one PostgreSQL, two nodes: the real agent on node 1, node 2 answers as an embedded DuckDB node; faults', { skip: clickhouseMissing(), timeout: 300_000 }, async (t) => {
  const [pgServer, cluster] = await Promise.all([startPostgres(), startClickHouseCluster('two')]);
  const nodes: Node[] = [];
  let duck: TestServer | undefined;
  let tee: Awaited<ReturnType<typeof startTee>> | undefined;
  const admin = new pg.Client({ connectionString: await pgServer.createDatabase('shards') });
  t.after(async () => {
    await tee?.close();
    for (const n of nodes) {
      if (n.child.exitCode === null && n.child.signalCode === null) {
        n.child.kill('SIGTERM');
        await Promise.race([once(n.child, 'exit'), new Promise((r) => setTimeout(r, 15_000))]);
        if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
      }
      await rm(n.dataDir, { recursive: true, force: true });
    }
    await duck?.stop();
    await admin.end().catch(() => undefined);
    await cluster.stop();
    await pgServer.stop();
  });
  const [a, b] = cluster.shards as [typeof cluster.shards[0], typeof cluster.shards[0]];
  const catalog = pgServer.url('shards');
  // Node 1 talks to shard 1's server, node 2 to shard 2's: both write and read through the Distributed tables.
  const env = (first: number, second: number) => ({
    TIMESLICE_STORE: `clickhouse://127.0.0.1:${first},127.0.0.1:${second}/data?cluster=two`,
    TIMESLICE_CATALOG: catalog,
    TIMESLICE_EVENT_HARVEST_MS: '5000',
  });
  nodes.push(await serveNode(env(a!.httpPort, b!.httpPort)));
  nodes.push(await serveNode(env(b!.httpPort, a!.httpPort)));
  const [one, two] = nodes as [Node, Node];
  duck = await startTestServer({ TIMESLICE_EVENT_HARVEST_MS: '5000' }, { alertIntervalMs: 0 });
  const tls = { key: readFileSync(join(one.dataDir, 'tls', 'key.pem'), 'utf8'), cert: readFileSync(one.certPath, 'utf8') };
  tee = await startTee({ port: one.collectorPort, ca: tls.cert }, { port: duck.server.collectorPort, ca: readFileSync(duck.server.certPath, 'utf8') }, tls);

  const started = Date.now();
  await Promise.all(APPS.map((app) => withAgentApp({ appName: app.name, licenseKey: TEST_LICENSE_KEY, collectorPort: tee!.port, certPath: one.certPath, logDir: one.dataDir }, async ({ port }) => {
    for (const path of app.paths) await (await fetch(`http://127.0.0.1:${port}${path}`)).text();
  })));
  assert.deepEqual(tee.problems, [], 'every call node 1 acknowledged reached the DuckDB node too');

  const since = Math.floor(started / 60_000) * 60_000 - 60_000;
  const until = Math.ceil(Date.now() / 60_000) * 60_000 + 60_000;
  const window = `SINCE ${since} UNTIL ${until}`;
  const apps = `appName IN (${APPS.map((a) => `'${a.name}'`).join(', ')})`;
  const queries = [
    `SELECT count(newrelic.timeslice.value), sum(newrelic.timeslice.value), average(newrelic.timeslice.value), max(newrelic.timeslice.value), min(newrelic.timeslice.value) FROM Metric WHERE ${apps} FACET appName, metricTimesliceName ${window} LIMIT MAX`,
    `SELECT apdex(newrelic.timeslice.value) FROM Metric WHERE ${apps} AND metricTimesliceName = 'Apdex' FACET appName ${window}`,
    `SELECT sum(newrelic.timeslice.value) FROM Metric WHERE ${apps} AND metricTimesliceName = 'HttpDispatcher' FACET appName TIMESERIES 1 minute ${window}`,
    `SELECT count(*), average(duration), max(duration), percentile(duration, 50, 95), uniqueCount(name) FROM Transaction WHERE ${apps} FACET appName ${window}`,
    `SELECT count(*) FROM Transaction WHERE ${apps} FACET appName, http.statusCode, name ${window} LIMIT MAX`,
    `SELECT count(*) FROM TransactionError WHERE ${apps} FACET appName, error.class, error.message ${window}`,
    `SELECT appName, name, duration, request.uri FROM Transaction WHERE ${apps} ORDER BY timestamp ${window} LIMIT 50`,
    `SELECT count(*), uniqueCount(traceId) FROM Span WHERE ${apps} FACET appName ${window}`,
  ];
  const graphNrql = (query: string) => ({ query: `{ actor { account(id: 1) { nrql(query: ${JSON.stringify(query)}) { results totalResult } } } }` });
  const appIds = async (base: string) => {
    const list = await call(base, 'GET', '/v2/applications.json');
    assert.equal(list.status, 200, JSON.stringify(list.json));
    return (list.json.applications as { id: number; name: string }[])
      .filter((x) => APPS.some((app) => app.name === x.name)).map((x) => ({ id: x.id, name: x.name })).sort((p, q) => p.id - q.id);
  };
  const from = new Date(since).toISOString();
  const to = new Date(until).toISOString();
  const metricNames = ['HttpDispatcher', 'Apdex', 'WebTransaction', 'Errors/all', 'WebTransactionTotalTime', 'WebTransaction/NormalizedUri/*'];
  const values = ['call_count', 'average_response_time', 'max_response_time', 'min_response_time', 'total_call_time', 'score', 's', 't', 'f', 'error_count', 'errors_per_minute', 'requests_per_minute'];
  const dataPath = (id: number, summarize: boolean) => `/v2/applications/${id}/metrics/data.json?${metricNames.map((n) => `names[]=${encodeURIComponent(n)}`).join('&')}&${values.map((v) => `values[]=${v}`).join('&')}&from=${from}&to=${to}&period=60${summarize ? '&summarize=true' : ''}`;

  /** Every answer compared: REST metric names and data (both forms), NRQL on its route and in the graph, entities. */
  const answers = async (base: string) => {
    const ids = await appIds(base);
    const rest: unknown[] = [];
    for (const { id } of ids) {
      const names = await call(base, 'GET', `/v2/applications/${id}/metrics.json`);
      assert.equal(names.status, 200, JSON.stringify(names.json));
      rest.push((names.json.metrics as { name: string; values: string[] }[]).sort((p, q) => p.name.localeCompare(q.name)));
      for (const summarize of [false, true]) {
        const data = await call(base, 'GET', dataPath(id, summarize));
        assert.equal(data.status, 200, JSON.stringify(data.json));
        rest.push({ data: normalize(data.json), nrql: data.headers.get('x-timeslice-nrql') });
      }
    }
    const nrql: unknown[] = [];
    const graph: unknown[] = [];
    for (const query of queries) {
      const direct = await call(base, 'POST', '/timeslice/v1/nrql', { query });
      assert.equal(direct.status, 200, `${query}: ${JSON.stringify(direct.json)}`);
      nrql.push(normalize({ results: direct.json.results, totalResult: direct.json.totalResult ?? null }));
      const viaGraph = await call(base, 'POST', '/graphql', graphNrql(query));
      assert.equal(viaGraph.status, 200, JSON.stringify(viaGraph.json));
      assert.equal(viaGraph.json.errors, undefined, JSON.stringify(viaGraph.json.errors));
      graph.push(normalize(viaGraph.json.data.actor.account.nrql));
    }
    const search = await call(base, 'POST', '/graphql', { query: '{ actor { entitySearch(query: "domain = \'APM\' AND type = \'APPLICATION\'") { count results { entities { name guid entityType ... on ApmApplicationEntityOutline { applicationId language } } } } } }' });
    assert.equal(search.json.errors, undefined, JSON.stringify(search.json.errors));
    const entities = (search.json.data.actor.entitySearch.results.entities as { name: string }[]).filter((e) => APPS.some((app) => app.name === e.name)).sort((p, q) => p.name.localeCompare(q.name));
    return { ids, rest, nrql, graph, entities };
  };

  // Node 2 learns node 1's applications and metric names through PostgreSQL (within a second), and
  // reads the data node 1 stored from the cluster. REST's series end at the current minute, so both
  // nodes are asked together, again (for at most 10 s) while a minute boundary fell between them.
  const sameAs = async (base: string) => {
    let pair = [await answers(duck!.server.apiUrl), await answers(base)] as const;
    for (let tries = 0; tries < 20 && JSON.stringify(pair[0]) !== JSON.stringify(pair[1]); tries++) {
      await new Promise((r) => setTimeout(r, 500));
      pair = [await answers(duck!.server.apiUrl), await answers(base)] as const;
    }
    const [want, got] = pair;
    assert.deepEqual(got.ids, want.ids, 'the same application ids');
    assert.deepEqual(got.entities, want.entities, 'the same entities and GUIDs');
    assert.deepEqual(got.rest, want.rest, 'REST v2 metric names and data');
    assert.deepEqual(got.nrql, want.nrql, 'NRQL');
    assert.deepEqual(got.graph, want.graph, 'NRQL in the graph API');
    assert.deepEqual(got.graph, got.nrql, 'the graph API gives the NRQL route\'s results');
    return want;
  };
  const expected = await sameAs(two.apiUrl);
  assert.deepEqual(expected.ids.map((x) => x.name).sort(), APPS.map((x) => x.name).sort());
  const requests = (expected.nrql[3] as { results: { facet: string; count: number }[] }).results.map((r) => [r.facet, r.count]).sort();
  assert.deepEqual(requests, APPS.map((app) => [app.name, app.paths.length]).sort(), 'every request the apps served is a Transaction');
  const perShard = await Promise.all([a!, b!].map(async (s) => Number((await s.query('SELECT count() FROM data.timeslices_local FORMAT TSV')).trim())));
  const total = Number((await a!.query('SELECT count() FROM data.timeslices FORMAT TSV')).trim());
  assert.equal(perShard[0]! + perShard[1]!, total, `each timeslice on one shard: ${perShard.join(' + ')}`);

  // A stopped shard: agents posting to node 1 get 503 for what goes to it (they keep it and send it
  // again), readers on node 2 a 503 naming the store; once it is back, what was refused is stored once.
  await t.test('a stopped shard: 503 to agents and readers, then everything resumes', async () => {
    const cert = readFileSync(one.certPath, 'utf8');
    const target = { port: one.collectorPort, ca: cert };
    const q = (method: string, runId?: string) => `/agent_listener/invoke_raw_method?marshal_format=json&protocol_version=17&license_key=${TEST_LICENSE_KEY}&method=${method}${runId ? `&run_id=${runId}` : ''}`;
    const headers = { 'content-type': 'application/json', 'user-agent': 'NewRelic-NodeAgent/12.0.0 (nodejs 20 linux-x64)' };
    const json = (v: unknown) => Buffer.from(JSON.stringify(v));
    const probes: { name: string; runId: string; calls: number }[] = [];
    for (let i = 0; i < 4; i++) {
      const connect = await send(target, q('connect'), headers, json([{ app_name: [`probe-${i}`], host: `probe-host-${i}`, pid: 200 + i, language: 'nodejs' }]));
      assert.equal(connect.status, 200, connect.body.toString());
      probes.push({ name: `probe-${i}`, runId: JSON.parse(connect.body.toString()).return_value.agent_run_id, calls: 11 + i * 10 });
    }
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const post = (p: typeof probes[0]) => send(target, q('metric_data', p.runId), headers, json([p.runId, minute / 1000 - 60, minute / 1000, [[{ name: 'Custom/probe' }, [p.calls, 1, 1, 0.5, 0.5, 1]]]]));
    const stopped = b!;
    await stopped.pause();
    let refused: typeof probes;
    try {
      const statuses: number[] = [];
      for (const p of probes) statuses.push((await post(p)).status);
      assert.ok(statuses.every((s) => s === 200 || s === 503), statuses.join(','));
      refused = probes.filter((_, i) => statuses[i] === 503);
      assert.ok(refused.length > 0, `no probe application hashed to the stopped shard: ${statuses.join(',')}`);
      const read = await call(two.apiUrl, 'POST', '/timeslice/v1/nrql', { query: queries[0] });
      assert.equal(read.status, 503, JSON.stringify(read.json));
      assert.match(read.json.error.title, /^The data store is unavailable: ClickHouse at http:\/\/127\.0\.0\.1:\d+ /);
      const graph = await call(two.apiUrl, 'POST', '/graphql', graphNrql(queries[0]!));
      assert.equal(graph.json.errors?.[0]?.extensions?.errorClass, 'SERVER_ERROR', JSON.stringify(graph.json));
      assert.match(graph.json.errors[0].message, /^The data store is unavailable/);
      const rest = await call(two.apiUrl, 'GET', dataPath(expected.ids[0]!.id, true));
      assert.equal(rest.status, 503, JSON.stringify(rest.json));
      assert.match(rest.json.error.title, /^The data store is unavailable/);
    } finally {
      await stopped.resume();
    }
    for (const p of refused) assert.equal((await post(p)).status, 200, `${p.name} sent again`);
    const probeQuery = `SELECT count(newrelic.timeslice.value) AS calls FROM Metric WHERE metricTimesliceName = 'Custom/probe' FACET appName SINCE ${minute - 120_000} UNTIL ${minute + 60_000}`;
    const stored = await call(two.apiUrl, 'POST', '/timeslice/v1/nrql', { query: probeQuery });
    assert.equal(stored.status, 200, JSON.stringify(stored.json));
    // Each probe's call count once: acknowledged ones not doubled, refused ones stored on their resend.
    assert.deepEqual((stored.json.results as { facet: string; calls: number }[]).map((r) => [r.facet, r.calls]).sort(), probes.map((p) => [p.name, p.calls]).sort());
    const again = await call(two.apiUrl, 'POST', '/timeslice/v1/nrql', { query: queries[0] });
    assert.deepEqual(normalize({ results: again.json.results, totalResult: again.json.totalResult ?? null }), expected.nrql[0], 'the agents\' data as before');
  });

  // The real agent against a stopped shard: its harvests get 503, it keeps them and sends them again
  // once the shard is back; the DuckDB node gets what node 1 finally acknowledged, and both agree.
  await t.test('the real agent through a stopped shard: 503, kept, sent again; node 2 still answers as DuckDB', async () => {
    const app = APPS[0]!;
    const id = expected.ids.find((x) => x.name === app.name)!.id;
    const rowsOn = async (s: typeof a) => Number((await s!.query(`SELECT count() FROM data.timeslices_local WHERE app_id = ${id} FORMAT TSV`)).trim());
    const shard = (await rowsOn(a)) > 0 ? a! : b!;
    let resumed = false;
    try {
      await withAgentApp({ appName: app.name, licenseKey: TEST_LICENSE_KEY, collectorPort: tee!.port, certPath: one.certPath, logDir: one.dataDir }, async ({ port }) => {
        const from = tee!.replies.length;
        await shard.pause();
        for (const path of ['/fast/9', '/error/9', '/fast/10']) await (await fetch(`http://127.0.0.1:${port}${path}`)).text();
        const harvest = (status: number, after: number) => tee!.replies.slice(after).findIndex((r) => r.method === 'analytic_event_data' && r.status === status);
        const deadline = Date.now() + 30_000;
        while (harvest(503, from) < 0) {
          assert.ok(Date.now() < deadline, `no event harvest was refused: ${JSON.stringify(tee!.replies.slice(from))}`);
          await new Promise((r) => setTimeout(r, 250));
        }
        await shard.resume();
        resumed = true;
        const refusedAt = from + harvest(503, from);
        while (harvest(200, refusedAt) < 0) {
          assert.ok(Date.now() < deadline + 30_000, `no event harvest went through after the shard came back: ${JSON.stringify(tee!.replies.slice(refusedAt))}`);
          await new Promise((r) => setTimeout(r, 250));
        }
      });
    } finally {
      if (!resumed) await shard.resume();
    }
    assert.deepEqual(tee!.problems, []);
    const again = await sameAs(two.apiUrl);
    const counts = (again.nrql[3] as { results: { facet: string; count: number }[] }).results.map((r) => [r.facet, r.count]).sort();
    // The three requests made while the shard was down are stored once, on both stores.
    assert.deepEqual(counts, APPS.map((x) => [x.name, x.paths.length + (x === app ? 3 : 0)]).sort());
  });

  await t.test('kill -9 of the node holding the background lease: the other takes it and answers the same', async () => {
    await admin.connect();
    const holder = async () => (await admin.query("SELECT holder FROM background_leases WHERE name = 'background' AND expires_at > now()")).rows[0]?.holder as string | undefined;
    const pidOf = (h: string | undefined) => (h === undefined ? undefined : Number(h.split('/')[1]));
    let held = await holder();
    for (let i = 0; i < 50 && held === undefined; i++) { await new Promise((r) => setTimeout(r, 200)); held = await holder(); }
    const victim = nodes.find((n) => n.child.pid === pidOf(held));
    assert.ok(victim, `the lease holder ${held} is one of the nodes (${nodes.map((n) => n.child.pid).join(', ')})`);
    const survivor = victim === one ? two : one;
    victim.child.kill('SIGKILL');
    await once(victim.child, 'exit');
    const killed = performance.now();
    while (pidOf(await holder()) !== survivor.child.pid) {
      assert.ok(performance.now() - killed < 10_000, `the lease did not move to the survivor: ${await holder()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    t.diagnostic(`lease moved ${Math.round(performance.now() - killed)} ms after kill -9`);
    await sameAs(survivor.apiUrl);
  });
});
