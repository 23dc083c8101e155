/**
 * Starvation benchmark: do heavy queries starve ingest and the other surfaces?
 *
 * A real `timeslice serve` runs in a child process on a fresh data directory holding `--events`
 * Transaction events (default 200,000, loaded through the collector as `analytic_event_data`, each
 * with its own `guid` and `traceId`, spread over the last 6 days). Then, phase by phase, each on a
 * freshly started service over the same directory:
 *
 * - steady ingest: `--agents` agents (default 20), each posting a 50-metric `metric_data` every
 *   2 s on its own keep-alive HTTPS connection (it waits for the answer, then for its next tick);
 *   the acknowledgement latency of each post is recorded;
 * - REST reads, each path by its own client every 200 ms (same discipline; 600 a minute together,
 *   under REST's 1,000 per key): `GET /v2/applications/{id}/metrics.json`, answered from memory
 *   (the metric index), and `GET /v2/applications.json`, whose application summaries are a
 *   DuckDB query over the last minutes of timeslices;
 * - heavy queries, closed loop: `--queries` clients (default 30) each sending, one after the
 *   other, `SELECT percentile(duration, 99), uniqueCount(guid), uniqueCount(traceId) FROM
 *   Transaction FACET guid SINCE 1 week ago LIMIT MAX` through the NRQL route (`nrql` phase) or
 *   through GraphQL's `actor.account.nrql` (`graph` phase, at most 25 in flight: the graph's limit
 *   per key), with a 120 s timeout.
 *
 * Phases: `idle` (ingest and REST reads only), `nrql`, `graph`; each lasts `--seconds` (default 30),
 * then no new query is sent and the ones in flight get `--drain` seconds (default 90) to finish.
 * Ingest and REST latencies are counted over the phase's `--seconds` only. Every answer is counted
 * by status; an admitted query must answer 200 with 5,000 facets, a refused one 429.
 *
 * Target (issue 12): with the queries in flight, ingest acknowledgement p99 ≤ 2 × idle p99 + 50 ms,
 * REST read answered from memory p99 < 50 ms, and admitted queries finish.
 *
 *   npm run bench -- starvation [--seconds=30] [--drain=90] [--queries=30] [--events=200000]
 *                               [--phases=idle,nrql,graph] [--server-node-args=--cpu-prof] [--keep]
 */
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../test/helpers/seeded-random.js';
import { machineFacts, type MachineFacts } from './machine.js';
import { BENCH_API_KEY, BenchAgent, quantile, request, startServe, type Reply, type ServeProcess } from './serve-process.js';
import { runAlone } from './run-alone.js';

export const HEAVY_QUERY = 'SELECT percentile(duration, 99), uniqueCount(guid), uniqueCount(traceId) FROM Transaction FACET guid SINCE 1 week ago LIMIT MAX';

export type Phase = 'idle' | 'nrql' | 'graph';
const PHASES: readonly Phase[] = ['idle', 'nrql', 'graph'];

export interface StarvationOptions {
  readonly seconds: number;
  readonly drainSeconds: number;
  readonly queries: number;
  readonly events: number;
  readonly agents: number;
  readonly phases: readonly Phase[];
  readonly serverNodeArgs: readonly string[];
  readonly serverEnv: Readonly<Record<string, string>>;
  readonly keep: boolean;
}

export const DEFAULT_STARVATION_OPTIONS: StarvationOptions = {
  seconds: 30, drainSeconds: 90, queries: 30, events: 200_000, agents: 20, phases: PHASES, serverNodeArgs: [], serverEnv: {}, keep: false,
};

interface Latencies { readonly count: number; readonly p50: number; readonly p99: number; readonly max: number; readonly failed: number }

export interface PhaseResult {
  readonly phase: Phase;
  readonly queriesInFlight: number;
  readonly ingest: Latencies;
  /** `GET /v2/applications/{id}/metrics.json`: the metric index, in memory. */
  readonly restMemory: Latencies;
  /** `GET /v2/applications.json`: the list with its summaries (a DuckDB query). */
  readonly rest: Latencies;
  /** Heavy query answers by status (200 with 5,000 facets counted as `ok`). */
  readonly queryAnswers: Readonly<Record<string, number>>;
  /** Latency of the heavy queries answered 200. */
  readonly queryP50Ms: number;
  readonly queryMaxMs: number;
  /** Queries still without an answer when the drain ended. */
  readonly unfinished: number;
  readonly loadAverage: readonly number[];
}

export interface StarvationResult {
  readonly machine: MachineFacts;
  readonly options: StarvationOptions;
  readonly loadSeconds: number;
  readonly phases: readonly PhaseResult[];
}

const SECOND = 1000;
const EVENTS_PER_POST = 5000;
const METRICS_PER_POST = 50;
const INGEST_PERIOD_MS = 2000;
// 10 reads a second: under REST's 1,000 requests per minute per key.
const REST_CLIENTS = 1;
const REST_PERIOD_MS = 200;
const GRAPH_MAX_IN_FLIGHT = 25;
const QUERY_TIMEOUT_S = 120;

function summarize(values: readonly number[], failed: number): Latencies {
  const round = (n: number) => Math.round(n * 10) / 10;
  return { count: values.length, p50: round(quantile(values, 0.5)), p99: round(quantile(values, 0.99)), max: round(values.length ? Math.max(...values) : Number.NaN), failed };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Loads the Transaction events through the collector, `EVENTS_PER_POST` per `analytic_event_data`. */
async function loadEvents(serve: ServeProcess, events: number): Promise<void> {
  const agent = new BenchAgent(serve, 'starvation-events', 'events-1', 4000);
  await agent.connect();
  const random = seededRandom(12);
  const now = Date.now();
  for (let first = 0; first < events; first += EVENTS_PER_POST) {
    const batch = [];
    for (let i = first; i < Math.min(events, first + EVENTS_PER_POST); i++) {
      const duration = Math.round(-Math.log(1 - random()) * 0.2 * 1e6) / 1e6;
      batch.push([{
        type: 'Transaction', timestamp: now - Math.floor(random() * 6 * 86_400_000), name: `WebTransaction/Expressjs/GET//r${i % 40}`,
        duration, totalTime: duration, error: false, guid: i.toString(16).padStart(16, '0'), traceId: `t${i.toString(16).padStart(31, '0')}`,
        priority: random(), sampled: false,
      }, {}, { 'http.statusCode': 200 }]);
    }
    const reply = await agent.invoke('analytic_event_data', [agent.runId, { reservoir_size: batch.length, events_seen: batch.length }, batch], agent.runId);
    if (reply.status !== 200) throw new Error(`analytic_event_data answered ${reply.status}: ${reply.text}`);
  }
  agent.close();
}

function queryRequest(phase: 'nrql' | 'graph'): { path: string; body: Buffer; facets: (text: string) => number | undefined } {
  if (phase === 'nrql') {
    return {
      path: '/timeslice/v1/nrql',
      body: Buffer.from(JSON.stringify({ query: HEAVY_QUERY, timeout: QUERY_TIMEOUT_S })),
      facets: (text) => (JSON.parse(text) as { results?: unknown[] }).results?.length,
    };
  }
  const query = `{ actor { account(id: 1) { nrql(query: ${JSON.stringify(HEAVY_QUERY)}, timeout: ${QUERY_TIMEOUT_S}) { results } } } }`;
  return {
    path: '/graphql',
    body: Buffer.from(JSON.stringify({ query })),
    facets: (text) => (JSON.parse(text) as { data?: { actor?: { account?: { nrql?: { results?: unknown[] } | null } } } }).data?.actor?.account?.nrql?.results?.length,
  };
}

/** A graph answer's error class (NerdGraph puts errors in a 200 body), or undefined. */
function graphErrorClass(text: string): string | undefined {
  try {
    const errors = (JSON.parse(text) as { errors?: { extensions?: { errorClass?: string } }[] }).errors;
    return errors?.[0]?.extensions?.errorClass ?? (errors?.length ? 'error' : undefined);
  } catch {
    return undefined;
  }
}

async function runPhase(phase: Phase, dataDir: string, options: StarvationOptions): Promise<PhaseResult> {
  const serve = await startServe({ dataDir, nodeArgs: options.serverNodeArgs, env: options.serverEnv });
  try {
    const agents = Array.from({ length: options.agents }, (_, i) => new BenchAgent(serve, `starvation-${i % 4}`, `ingest-${i}`, 5000 + i));
    for (const a of agents) await a.connect();
    const restAgent = new http.Agent({ keepAlive: true, maxSockets: 2 * REST_CLIENTS });
    const queryAgent = new http.Agent({ keepAlive: true, maxSockets: options.queries });
    // Warm both paths before the clock starts (first connections, prepared statements).
    await Promise.all(agents.map((a) => a.metricData(Date.now() / 1000 - 60, Date.now() / 1000, [['Custom/warm', 1]])));
    const list = await request('http', restAgent, serve.apiPort, 'GET', '/v2/applications.json', { 'x-api-key': BENCH_API_KEY });
    const appId = (JSON.parse(list.text) as { applications: { id: number; name: string }[] }).applications.find((a) => a.name === 'starvation-0')?.id;
    if (appId === undefined) throw new Error(`no application starvation-0 in ${list.text.slice(0, 200)}`);
    const memoryPath = `/v2/applications/${appId}/metrics.json`;
    const names = await request('http', restAgent, serve.apiPort, 'GET', memoryPath, { 'x-api-key': BENCH_API_KEY });
    if (names.status !== 200) throw new Error(`${memoryPath} answered ${names.status}: ${names.text.slice(0, 200)}`);

    const t0 = performance.now();
    const end = t0 + options.seconds * SECOND;
    const ingest: number[] = [];
    const rest: number[] = [];
    const restMemory: number[] = [];
    let ingestFailed = 0;
    let restFailed = 0;
    let restMemoryFailed = 0;
    const answers: Record<string, number> = {};
    const queryMs: number[] = [];
    let outstanding = 0;

    const periodic = async (periodMs: number, offsetMs: number, tick: () => Promise<void>) => {
      for (let next = t0 + offsetMs; next < end; next += periodMs) {
        await sleep(next - performance.now());
        if (performance.now() >= end) break;
        await tick();
      }
    };
    const ingestLoops = agents.map((a, i) => periodic(INGEST_PERIOD_MS, (i * INGEST_PERIOD_MS) / agents.length, async () => {
      const nowS = Date.now() / 1000;
      const metrics = Array.from({ length: METRICS_PER_POST }, (_, m) => [`Custom/starvation/m${m}`, 1 + m] as const);
      try {
        const reply = await a.metricData(nowS - 60, nowS, metrics);
        if (reply.status === 200) ingest.push(reply.ms);
        else ingestFailed++;
      } catch {
        ingestFailed++;
      }
    }));
    const restLoops = Array.from({ length: 2 * REST_CLIENTS }, (_, i) => periodic(REST_PERIOD_MS, (i * REST_PERIOD_MS) / (2 * REST_CLIENTS), async () => {
      const fromMemory = i % 2 === 0;
      try {
        const reply = await request('http', restAgent, serve.apiPort, 'GET', fromMemory ? memoryPath : '/v2/applications.json', { 'x-api-key': BENCH_API_KEY });
        if (reply.status === 200) (fromMemory ? restMemory : rest).push(reply.ms);
        else if (fromMemory) restMemoryFailed++;
        else restFailed++;
      } catch {
        if (fromMemory) restMemoryFailed++;
        else restFailed++;
      }
    }));
    const inFlight = phase === 'idle' ? 0 : phase === 'graph' ? Math.min(GRAPH_MAX_IN_FLIGHT, options.queries) : options.queries;
    const queryLoops = phase === 'idle' ? [] : Array.from({ length: inFlight }, async () => {
      const q = queryRequest(phase);
      while (performance.now() < end) {
        outstanding++;
        let reply: Reply;
        try {
          reply = await request('http', queryAgent, serve.apiPort, 'POST', q.path, { 'api-key': BENCH_API_KEY, 'content-type': 'application/json' }, q.body);
        } catch (error) {
          answers[`failed: ${(error as Error).message}`] = (answers[`failed: ${(error as Error).message}`] ?? 0) + 1;
          outstanding--;
          return;
        }
        outstanding--;
        const errorClass = phase === 'graph' && reply.status === 200 ? graphErrorClass(reply.text) : undefined;
        const facets = reply.status === 200 && !errorClass ? q.facets(reply.text) : undefined;
        const key = errorClass ? `graph ${errorClass}` : reply.status === 200 ? (facets === 5000 ? 'ok' : `200 with ${facets} facets`) : String(reply.status);
        answers[key] = (answers[key] ?? 0) + 1;
        if (key === 'ok') queryMs.push(reply.ms);
        // A refused query is sent again after a pause, as a client honouring Retry-After would.
        if (key !== 'ok') await sleep(1000);
      }
    });
    await Promise.all([...ingestLoops, ...restLoops]);
    const loadAverage = machineFacts().loadAverage;
    const drained = Promise.all(queryLoops);
    const drainEnd = performance.now() + options.drainSeconds * SECOND;
    while (outstanding > 0 && performance.now() < drainEnd) await Promise.race([drained, sleep(250)]);
    const unfinished = outstanding;
    for (const a of agents) a.close();
    restAgent.destroy();
    queryAgent.destroy();
    return {
      phase, queriesInFlight: inFlight,
      ingest: summarize(ingest, ingestFailed), restMemory: summarize(restMemory, restMemoryFailed), rest: summarize(rest, restFailed),
      queryAnswers: answers, queryP50Ms: Math.round(quantile(queryMs, 0.5)), queryMaxMs: Math.round(queryMs.length ? Math.max(...queryMs) : Number.NaN),
      unfinished, loadAverage,
    };
  } finally {
    // Stopped gracefully (a --cpu-prof profile is written then); killed when queries still hold it after 10 s.
    serve.child.kill('SIGTERM');
    const killer = setTimeout(() => serve.child.kill('SIGKILL'), 10 * SECOND);
    await serve.exited;
    clearTimeout(killer);
  }
}

export async function runStarvation(options: StarvationOptions = DEFAULT_STARVATION_OPTIONS): Promise<StarvationResult> {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-starvation-'));
  try {
    const t0 = performance.now();
    const loader = await startServe({ dataDir, env: options.serverEnv });
    try {
      await loadEvents(loader, options.events);
    } finally {
      loader.child.kill('SIGTERM');
      await loader.exited;
    }
    const loadSeconds = Math.round((performance.now() - t0) / 100) / 10;
    const phases: PhaseResult[] = [];
    for (const phase of options.phases) {
      const result = await runPhase(phase, dataDir, options);
      phases.push(result);
      console.error(formatPhase(result));
    }
    return { machine: machineFacts(), options, loadSeconds, phases };
  } finally {
    if (options.keep) console.error(`data kept in ${dataDir}`);
    else await rm(dataDir, { recursive: true, force: true });
  }
}

function formatPhase(p: PhaseResult): string {
  const l = (x: Latencies) => `p50 ${x.p50} ms, p99 ${x.p99} ms, max ${x.max} ms (${x.count} answered${x.failed ? `, ${x.failed} failed` : ''})`;
  const answers = Object.entries(p.queryAnswers).map(([k, v]) => `${k}: ${v}`).join(', ') || 'none';
  return [
    `phase ${p.phase} (${p.queriesInFlight} heavy queries in flight; load average ${p.loadAverage.join(' ')})`,
    `  ingest ack   ${l(p.ingest)}`,
    `  REST memory  ${l(p.restMemory)}   (metrics.json)`,
    `  REST list    ${l(p.rest)}   (applications.json, summaries from DuckDB)`,
    ...(p.phase === 'idle' ? [] : [`  queries      ${answers}; answered ok p50 ${p.queryP50Ms} ms, max ${p.queryMaxMs} ms; ${p.unfinished} unfinished after the drain`]),
  ].join('\n');
}

export function formatStarvation(r: StarvationResult): string {
  const idle = r.phases.find((p) => p.phase === 'idle');
  const lines = [
    `starvation: ${r.options.events} Transaction events loaded in ${r.loadSeconds} s; ${r.options.agents} agents × 1 metric_data / 2 s, REST reads of metrics.json and applications.json × 5/s each; ${r.options.seconds} s per phase`,
    `machine: ${r.machine.cpus} cpus (${r.machine.cpuModel}), node ${r.machine.node}, duckdb ${r.machine.duckdb}`,
    ...r.phases.map(formatPhase),
  ];
  if (idle) {
    const limit = 2 * idle.ingest.p99 + 50;
    for (const p of r.phases.filter((x) => x.phase !== 'idle')) {
      const ok = p.ingest.p99 <= limit && p.restMemory.p99 < 50 && p.unfinished === 0;
      lines.push(`target ${p.phase}: ingest p99 ${p.ingest.p99} ≤ ${limit} ms, REST from memory p99 ${p.restMemory.p99} < 50 ms, 0 unfinished → ${ok ? 'met' : 'NOT met'}`);
    }
  }
  return lines.join('\n');
}

export async function starvationBench(flags: ReadonlyMap<string, string>): Promise<StarvationResult> {
  const number = (name: string, fallback: number) => {
    const v = flags.get(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got '${v}'`);
    return n;
  };
  const phases = flags.get('phases')?.split(',').filter(Boolean) as Phase[] | undefined;
  const unknown = phases?.filter((p) => !PHASES.includes(p)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown phase ${unknown.join(', ')}; known: ${PHASES.join(', ')}`);
  const d = DEFAULT_STARVATION_OPTIONS;
  const env: Record<string, string> = {};
  for (const pair of flags.get('server-env')?.split(',').filter(Boolean) ?? []) {
    const [k, v] = pair.split('=');
    if (k && v !== undefined) env[k] = v;
  }
  const options: StarvationOptions = {
    seconds: number('seconds', d.seconds), drainSeconds: number('drain', d.drainSeconds),
    queries: Math.round(number('queries', d.queries)), events: Math.round(number('events', d.events)), agents: Math.round(number('agents', d.agents)),
    phases: phases ?? d.phases, serverNodeArgs: flags.get('server-node-args')?.split(' ').filter(Boolean) ?? [], serverEnv: env, keep: flags.has('keep'),
  };
  const result = await runStarvation(options);
  console.log(formatStarvation(result));
  return result;
}

// Runnable alone: `node dist/bench/starvation.js [--seconds=N …]`.
runAlone(import.meta.url, starvationBench);
