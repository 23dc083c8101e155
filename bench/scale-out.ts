/**
 * The ClickHouse store against the embedded DuckDB one, side by side in one run:
 *
 * - ingest: `--agents` agents (each its own application) post `metric_data` of `--metrics`
 *   metrics, each harvest a new minute, for `--seconds`, to (1) an embedded DuckDB node, (2) a node
 *   on one ClickHouse server, (3) a node on a two-shard cluster (Distributed tables,
 *   insert_distributed_sync) and (4) two nodes on that cluster, half the agents each — (3) and (4)
 *   with their catalog on one PostgreSQL, as the scale-out setup runs. Then the DuckDB case and both
 *   cluster cases again against `timeslice serve` processes over HTTPS (`--processes=0` skips them). Posts go
 *   through the collector in process (`inject`: no TLS, no sockets), `--concurrency` in flight per
 *   node; figures are acknowledged timeslices per second. Every acknowledged timeslice is then
 *   counted in the store (the run fails if one is missing).
 * - queries: REST metric data (HttpDispatcher, every value, summarized and as a 1-minute series)
 *   and three NRQL queries over the DuckDB node's, the single ClickHouse node's and the cluster
 *   node's data (the same traffic), `--rounds` each after a warm-up; the answers are checked equal
 *   first (12 significant digits); median and p90 per engine.
 *
 * Run: `npm run bench -- scale-out [--seconds=10] [--agents=8] [--metrics=50] [--concurrency=4] [--rounds=20]`
 * or `node dist/bench/scale-out.js`. Needs Debian's clickhouse-server and postgresql (as the tests do).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentQuery, invoke } from '../test/helpers/collector-client.js';
import { startClickHouse, startClickHouseCluster } from '../test/helpers/clickhouse.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { connectApp, ManualClock, rest, type AgentHandle } from '../test/helpers/rest-fixture.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../test/helpers/test-server.js';
import { runAlone } from './run-alone.js';
import { BENCH_API_KEY, BenchAgent, startServe, stopServe, type ServeProcess } from './serve-process.js';

const BEGIN = Date.UTC(2025, 7, 11, 0, 0);

interface IngestFigure { readonly label: string; readonly timeslices: number; readonly seconds: number; readonly perSecond: number; readonly stored: number }
interface QueryFigure {
  readonly label: string;
  readonly duckdbMedianMs: number; readonly duckdbP90Ms: number;
  readonly clickhouseMedianMs: number; readonly clickhouseP90Ms: number;
  readonly clusterMedianMs: number; readonly clusterP90Ms: number;
}

function flag(flags: ReadonlyMap<string, string>, name: string, fallback: number): number {
  const v = flags.get(name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got '${v}'`);
  return n;
}

function payload(runId: string, minute: number, metrics: number, agent: number): unknown {
  const rows = Array.from({ length: metrics }, (_, m) => {
    const calls = 1 + ((agent + m + minute) % 7);
    const t = 0.01 * (1 + ((m * 3 + minute) % 11));
    const name = m === 0 ? 'HttpDispatcher' : m === 1 ? 'WebFrontend/QueueTime' : m === 2 ? 'Errors/all' : `Custom/bench/metric${m}`;
    return [{ name }, [calls, calls * t, calls * t, t, t, calls * t * t]];
  });
  return [runId, (BEGIN + minute * 60_000) / 1000, (BEGIN + (minute + 1) * 60_000) / 1000, rows];
}

/** A minute's Transaction events: 20, over 12 names, durations fixed by (minute, i). */
function transactions(runId: string, minute: number): unknown {
  const events = Array.from({ length: 20 }, (_, i) => [
    { type: 'Transaction', name: `WebTransaction/Expressjs/GET//route${i % 12}`, timestamp: BEGIN + minute * 60_000 + i * 2_000, duration: 0.001 * (1 + ((minute * 7 + i * 13) % 97)) },
    {}, {},
  ]);
  return [runId, { reservoir_size: 100, events_seen: events.length }, events];
}

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
function normalize(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number(value.toPrecision(12));
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]));
  return value;
}

/** Posts harvests from `agents` (split over `nodes`) for `seconds`; returns acknowledged timeslices and each agent's minutes. */
async function ingest(nodes: readonly TestServer[], agentCount: number, metrics: number, seconds: number, concurrency: number, prefix = 'bench-app'): Promise<{ acked: number; elapsedMs: number; minutes: number[] }> {
  const agents: { node: TestServer; handle: AgentHandle; index: number }[] = [];
  for (let i = 0; i < agentCount; i++) {
    const node = nodes[i % nodes.length]!;
    agents.push({ node, handle: await connectApp(node, `${prefix}-${i}`, `host-${i}`), index: i });
  }
  const minutes = agents.map(() => 0);
  let acked = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  let next = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const a = agents[next++ % agents.length]!;
      const minute = minutes[a.index]!;
      minutes[a.index] = minute + 1;
      const reply = await invoke(a.node.server, { query: agentQuery('metric_data', TEST_LICENSE_KEY, a.handle.runId), body: payload(a.handle.runId, minute, metrics, a.index) });
      if (reply.status !== 200) throw new Error(`metric_data answered ${reply.status}: ${reply.text}`);
      acked += metrics;
    }
  };
  await Promise.all(Array.from({ length: concurrency * nodes.length }, worker));
  return { acked, elapsedMs: performance.now() - start, minutes };
}

/**
 * The same ingest against `timeslice serve` processes, over HTTPS from this process (one keep-alive
 * connection per agent), each process with the cores it gets: timeslices a minute apart from
 * `beginMs`. Every acknowledged call count is then found by NRQL through the first process.
 */
async function ingestProcesses(serves: readonly ServeProcess[], prefix: string, agentCount: number, metrics: number, seconds: number, concurrency: number, beginMs: number): Promise<{ acked: number; elapsedMs: number }> {
  const agents: { agent: BenchAgent; index: number; minute: number }[] = [];
  for (let i = 0; i < agentCount; i++) {
    const serve = serves[i % serves.length]!;
    const agent = new BenchAgent(serve, `${prefix}-${i}`, `host-${i}`);
    await agent.connect();
    agents.push({ agent, index: i, minute: 0 });
  }
  let acked = 0;
  let calls = 0;
  let next = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const a = agents[next++ % agents.length]!;
      const minute = a.minute++;
      const body = payload(a.agent.runId, minute, metrics, a.index) as [string, number, number, [unknown, number[]][]];
      body[1] = (beginMs + minute * 60_000) / 1000;
      body[2] = (beginMs + (minute + 1) * 60_000) / 1000;
      const reply = await a.agent.invoke('metric_data', body, a.agent.runId);
      if (reply.status !== 200) throw new Error(`metric_data answered ${reply.status}: ${reply.text}`);
      acked += metrics;
      calls += body[3].reduce((n, [, stats]) => n + stats[0]!, 0);
    }
  };
  await Promise.all(Array.from({ length: concurrency * serves.length }, worker));
  const elapsedMs = performance.now() - start;
  for (const a of agents) a.agent.close();
  const until = beginMs + (Math.max(...agents.map((a) => a.minute)) + 1) * 60_000;
  const res = await fetch(`http://127.0.0.1:${serves[0]!.apiPort}/timeslice/v1/nrql`, {
    method: 'POST', headers: { 'x-api-key': BENCH_API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ query: `SELECT count(newrelic.timeslice.value) AS calls FROM Metric WHERE appName LIKE '${prefix}-%' SINCE ${beginMs} UNTIL ${until}` }),
  });
  const stored = ((await res.json()) as { results: { calls: number }[] }).results[0]?.calls;
  if (stored !== calls) throw new Error(`${prefix}: ${calls} calls acknowledged, ${String(stored)} stored`);
  return { acked, elapsedMs };
}

async function nrql(node: TestServer, query: string): Promise<unknown> {
  const res = await node.server.api.inject({ method: 'POST', url: '/timeslice/v1/nrql', headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' }, payload: { query } });
  if (res.statusCode !== 200) throw new Error(`NRQL answered ${res.statusCode}: ${res.body}`);
  return (res.json() as { results: unknown }).results;
}

export async function scaleOutBench(flags: ReadonlyMap<string, string>): Promise<{ ingest: IngestFigure[]; queries: QueryFigure[] }> {
  const seconds = flag(flags, 'seconds', 10);
  const agentCount = Math.round(flag(flags, 'agents', 8));
  const metrics = Math.round(flag(flags, 'metrics', 50));
  const concurrency = Math.round(flag(flags, 'concurrency', 4));
  const rounds = Math.round(flag(flags, 'rounds', 20));
  const clock = new ManualClock(BEGIN + 30 * 86_400_000);
  const single = await startClickHouse();
  const cluster = await startClickHouseCluster('bench_cluster');
  // The catalog of the cluster's nodes: PostgreSQL, shared by both (the scale-out setup).
  const pgServer = await startPostgres();
  const servers: TestServer[] = [];
  const figures: IngestFigure[] = [];
  const queries: QueryFigure[] = [];
  try {
    const start = async (env: NodeJS.ProcessEnv) => {
      const ts = await startTestServer({ TIMESLICE_INGEST_WORKERS: '0', ...env }, { clock });
      servers.push(ts);
      return ts;
    };
    const [a, b] = cluster.shards;
    const clusterUrl = `clickhouse://127.0.0.1:${a!.httpPort},127.0.0.1:${b!.httpPort}/bench?cluster=bench_cluster`;
    const duck = await start({});
    const ch = await start({ TIMESLICE_STORE: `clickhouse://127.0.0.1:${single.httpPort}/bench` });
    const catalog = await pgServer.createDatabase('bench');
    const onCluster = await start({ TIMESLICE_STORE: clusterUrl, TIMESLICE_CATALOG: catalog });
    const cases: [string, TestServer[], () => Promise<number>][] = [
      ['embedded DuckDB, one node', [duck], async () => Number((await duck.server.db.all<{ n: bigint }>('SELECT count(*) AS n FROM timeslices'))[0]!.n)],
      ['ClickHouse, one server, one node', [ch], async () => Number((await single.query('SELECT count() FROM bench.timeslices FORMAT TSV')).trim())],
      ['ClickHouse, two shards, one node, PostgreSQL catalog', [onCluster], async () => Number((await a!.query('SELECT count() FROM bench.timeslices FORMAT TSV')).trim())],
    ];
    for (const [label, nodes, count] of cases) {
      const { acked, elapsedMs } = await ingest(nodes, agentCount, metrics, seconds, concurrency);
      await Promise.all(nodes.map((n) => n.server.writer.flush()));
      const stored = await count();
      if (stored < acked) throw new Error(`${label}: ${acked} timeslices acknowledged, ${stored} stored`);
      figures.push({ label, timeslices: acked, seconds: elapsedMs / 1000, perSecond: acked / (elapsedMs / 1000), stored });
    }
    // Two nodes on the cluster: a second node joins, on the same PostgreSQL catalog (docs/scale-out.md);
    // applications of their own, so the first case's minutes are not sent again.
    const second = await start({ TIMESLICE_STORE: clusterUrl, TIMESLICE_CATALOG: catalog });
    const before = Number((await a!.query('SELECT count() FROM bench.timeslices FORMAT TSV')).trim());
    const { acked, elapsedMs } = await ingest([onCluster, second], agentCount, metrics, seconds, concurrency, 'bench-pair');
    const stored = Number((await a!.query('SELECT count() FROM bench.timeslices FORMAT TSV')).trim()) - before;
    if (stored < acked) throw new Error(`two nodes: ${acked} timeslices acknowledged, ${stored} stored`);
    figures.push({ label: 'ClickHouse, two shards, two nodes, PostgreSQL catalog', timeslices: acked, seconds: elapsedMs / 1000, perSecond: acked / (elapsedMs / 1000), stored });

    // The same traffic on both engines for the query cases: app 1's first 60 minutes, agents 0…
    const minutes = 60;
    const engines = [duck, ch, onCluster] as const;
    const feed = await Promise.all(engines.map(async (node) => {
      const handle = await connectApp(node, 'bench-query-app', 'host-q');
      for (let minute = 0; minute < minutes; minute++) {
        const reply = await invoke(node.server, { query: agentQuery('metric_data', TEST_LICENSE_KEY, handle.runId), body: payload(handle.runId, minute, metrics, 99) });
        if (reply.status !== 200) throw new Error(`metric_data answered ${reply.status}`);
        const events = await invoke(node.server, { query: agentQuery('analytic_event_data', TEST_LICENSE_KEY, handle.runId), body: transactions(handle.runId, minute) });
        if (events.status !== 200) throw new Error(`analytic_event_data answered ${events.status}`);
      }
      return appIdOf(node, handle);
    }));
    const window = `SINCE ${BEGIN} UNTIL ${BEGIN + minutes * 60_000}`;
    const span = `from=${new Date(BEGIN).toISOString()}&to=${new Date(BEGIN + minutes * 60_000).toISOString()}`;
    const queryCases: [string, (node: TestServer, appId: number) => Promise<unknown>][] = [
      ['REST metric data, summarized, 60 min', async (node, id) => (await rest(node, 'GET', `/v2/applications/${id}/metrics/data.json?names[]=HttpDispatcher&${span}&summarize=true`)).json()],
      ['REST metric data, 1-minute series, 60 min', async (node, id) => (await rest(node, 'GET', `/v2/applications/${id}/metrics/data.json?names[]=HttpDispatcher&${span}&period=60`)).json()],
      ['NRQL average FACET metric TIMESERIES', async (node) => nrql(node, `SELECT average(newrelic.timeslice.value) FROM Metric WHERE appName = 'bench-query-app' FACET metricTimesliceName TIMESERIES 5 minutes ${window} LIMIT 10`)],
      // Every application's first 10 minutes (each agent of the ingest cases sent at least that many).
      ['NRQL count over every application, 10 min', async (node) => nrql(node, `SELECT count(newrelic.timeslice.value), max(newrelic.timeslice.value) FROM Metric WHERE appName LIKE 'bench-app-%' FACET appName SINCE ${BEGIN} UNTIL ${BEGIN + 600_000} LIMIT 20`)],
      ['NRQL uniques(metricTimesliceName)', async (node) => nrql(node, `SELECT uniqueCount(metricTimesliceName) FROM Metric WHERE appName = 'bench-query-app' ${window}`)],
      // The shapes of the REST and NRQL sections' cases (their large stores are DuckDB files; here 60 minutes of one application).
      ['REST §: HttpDispatcher + QueueTime, all values, 30 min', async (node, id) => (await rest(node, 'GET', `/v2/applications/${id}/metrics/data.json?names[]=HttpDispatcher&names[]=WebFrontend/QueueTime&from=${new Date(BEGIN + 30 * 60_000).toISOString()}&to=${new Date(BEGIN + 60 * 60_000).toISOString()}`)).json()],
      ['NRQL §1 facet: average(duration) FACET name TIMESERIES AUTO', async (node) => nrql(node, `SELECT average(duration) FROM Transaction WHERE appName = 'bench-query-app' FACET name TIMESERIES AUTO ${window}`)],
      ['NRQL §2 uniques(metricTimesliceName) LIMIT MAX', async (node) => nrql(node, `SELECT uniques(metricTimesliceName) FROM Metric WHERE appName = 'bench-query-app' ${window} LIMIT MAX`)],
      ['NRQL §3 filter(…) TIMESERIES', async (node) => nrql(node, `SELECT filter(average(newrelic.timeslice.value) * 1000, WHERE metricTimesliceName = 'HttpDispatcher') AS rt, filter(count(newrelic.timeslice.value), WHERE metricTimesliceName = 'Errors/all') AS errors FROM Metric WHERE appName = 'bench-query-app' ${window} TIMESERIES`)],
    ];
    for (const [label, run] of queryCases) {
      // REST answers carry the application's id, which differs between catalogs: compared without it.
      const comparable = (v: unknown) => JSON.stringify(normalize(v)).replace(/appId = \d+/g, 'appId = ?');
      const answers = await Promise.all(engines.map((node, i) => run(node, feed[i]!)));
      for (const [i, answer] of answers.entries()) {
        if (comparable(answer) !== comparable(answers[0])) throw new Error(`${label}: engine ${i} answers differently from DuckDB`);
      }
      const times: number[][] = engines.map(() => []);
      for (let r = 0; r < rounds + 3; r++) {
        for (const [i, node] of engines.entries()) {
          const t0 = performance.now();
          await run(node, feed[i]!);
          if (r >= 3) times[i]!.push(performance.now() - t0);
        }
      }
      const [ds, cs, ks] = times.map((t) => [...t].sort((x, y) => x - y)) as [number[], number[], number[]];
      queries.push({
        label, duckdbMedianMs: quantile(ds, 0.5), duckdbP90Ms: quantile(ds, 0.9), clickhouseMedianMs: quantile(cs, 0.5), clickhouseP90Ms: quantile(cs, 0.9),
        clusterMedianMs: quantile(ks, 0.5), clusterP90Ms: quantile(ks, 0.9),
      });
    }

    // Separate `serve` processes over HTTPS (the collector as agents reach it): DuckDB, one and two cluster nodes.
    if (flags.get('processes') !== '0') {
      const beginMs = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3 * 86_400_000;
      const processCatalog = await pgServer.createDatabase('bench_processes');
      const env = { TIMESLICE_UPKEEP_EVERY_MS: '0', TIMESLICE_MEMORY_LIMIT: '512MB' };
      const dirs: string[] = [];
      const serves: ServeProcess[] = [];
      const serve = async (extra: Record<string, string>) => {
        const dir = await mkdtemp(join(tmpdir(), 'timeslice-bench-serve-'));
        dirs.push(dir);
        const p = await startServe({ dataDir: dir, env: { ...env, ...extra } });
        serves.push(p);
        return p;
      };
      try {
        const duckProcess = await serve({});
        let r = await ingestProcesses([duckProcess], 'proc-duck', agentCount, metrics, seconds, concurrency, beginMs);
        figures.push({ label: 'processes: embedded DuckDB, one process', timeslices: r.acked, seconds: r.elapsedMs / 1000, perSecond: r.acked / (r.elapsedMs / 1000), stored: r.acked });
        await stopServe(duckProcess);
        const shared = { TIMESLICE_STORE: clusterUrl.replace('/bench?', '/bench_processes?'), TIMESLICE_CATALOG: processCatalog };
        const first = await serve(shared);
        r = await ingestProcesses([first], 'proc-one', agentCount, metrics, seconds, concurrency, beginMs);
        figures.push({ label: 'processes: two shards, one process, PostgreSQL', timeslices: r.acked, seconds: r.elapsedMs / 1000, perSecond: r.acked / (r.elapsedMs / 1000), stored: r.acked });
        const secondProcess = await serve(shared);
        r = await ingestProcesses([first, secondProcess], 'proc-two', agentCount, metrics, seconds, concurrency, beginMs);
        figures.push({ label: 'processes: two shards, two processes, PostgreSQL', timeslices: r.acked, seconds: r.elapsedMs / 1000, perSecond: r.acked / (r.elapsedMs / 1000), stored: r.acked });
      } finally {
        for (const p of serves) await stopServe(p).catch(() => undefined);
        for (const d of dirs) await rm(d, { recursive: true, force: true });
      }
    }
  } finally {
    for (const s of servers) await s.stop().catch(() => undefined);
    await single.stop();
    await cluster.stop();
    await pgServer.stop();
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end`);
  console.log(`scale-out: ${agentCount} agents × ${metrics} metrics, ${concurrency} posts in flight per node, ${seconds} s per case`);
  for (const f of figures) console.log(`  ingest  ${f.label.padEnd(54)} ${Math.round(f.perSecond).toString().padStart(8)} timeslices/s  (${f.timeslices} acknowledged, all stored)`);
  for (const q of queries) {
    console.log(`  query   ${q.label.padEnd(60)} DuckDB p50 ${q.duckdbMedianMs.toFixed(1)} ms p90 ${q.duckdbP90Ms.toFixed(1)} ms | ClickHouse p50 ${q.clickhouseMedianMs.toFixed(1)} ms p90 ${q.clickhouseP90Ms.toFixed(1)} ms | two shards + PostgreSQL p50 ${q.clusterMedianMs.toFixed(1)} ms p90 ${q.clusterP90Ms.toFixed(1)} ms`);
  }
  return { ingest: figures, queries };
}

function appIdOf(node: TestServer, handle: AgentHandle): number {
  return node.server.catalog.run(handle.runId)!.targets[0]!.appId;
}

runAlone(import.meta.url, scaleOutBench);
