/**
 * Ingest benchmark: `metric_data` over HTTPS, end to end, against raw DuckDB Appender rows/s.
 *
 * End to end: the real service runs in this process (`startServer`); a separate child process
 * plays a fleet of agents. Each simulated agent preconnects, connects and then posts
 * `metric_data` harvests back to back on its own keep-alive HTTPS connection, exactly as the
 * Node agent frames them (protocol 17 query parameters, gzip above 64 KiB). A post counts once
 * the collector acknowledged it, which it does only after the rows are committed, so
 * rows acknowledged / elapsed is timeslices committed per second. Each agent cycles through a
 * fixed set of distinct harvests (so their content repeats, the per-row cost does not change).
 *
 * Raw: the very same rows (the ids the service gave the names, the same values and timestamps,
 * the same number of times) are appended to a fresh DuckDB file with the same schema, once per
 * Appender method, and committed. The best method is the baseline. A diagnostic replay with the
 * service's own transaction sizes (`chunk-typed-txn`) shows what the commit pattern alone costs.
 *
 * Both stores are compared at the end by row count and an order-independent fingerprint of
 * every column; any difference fails the benchmark.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import { seededRandom } from '../test/helpers/seeded-random.js';
import { machineFacts, type MachineFacts } from './machine.js';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import duckdb from '@duckdb/node-bindings';
import { DuckDBDataChunk, DuckDBTimestampValue, type DuckDBAppender, type DuckDBValue } from '@duckdb/node-api';
import { resolveServeConfig } from '../src/config.js';
import { parseMetricData, timesliceRows } from '../src/ingest/agent/payloads.js';
import { startServer, type RunningServer } from '../src/server.js';
import { TIMESLICES, type Cell, type Rows } from '../src/store/append-tables.js';
import type { BatchWriter } from '../src/store/batch-writer.js';
import { Database } from '../src/store/duckdb/database.js';
import { DUCKDB_TYPES, timestampValue } from '../src/store/duckdb/duckdb-values.js';

// ── options ─────────────────────────────────────────────────────────────────────────────────

export interface IngestBenchOptions {
  /** Simulated agents, each with its own keep-alive connection and one request in flight. */
  readonly agents: number;
  /** How long the agents keep posting. */
  readonly seconds: number;
  /** Distinct harvests generated per agent; agents cycle through them. */
  readonly harvestsPerAgent: number;
  /** Raw Appender methods to measure (all by default). */
  readonly rawMethods: readonly RawMethod[];
  readonly seed: number;
  /** Keep the temporary data directory (both DuckDB files) for inspection. */
  readonly keep: boolean;
}

export const DEFAULT_INGEST_OPTIONS: IngestBenchOptions = {
  agents: 8,
  seconds: 20,
  harvestsPerAgent: 24,
  rawMethods: ['chunk-typed', 'chunk-values', 'row-wise', 'chunk-typed-txn'],
  seed: 20261122,
  keep: false,
};

/**
 * The baseline candidates, each one Appender over all rows and one commit. `chunk-typed-txn` is
 * not a candidate: it replays the service's own transaction sizes, to show how much of the gap
 * is the cost of many small durable commits rather than of HTTP, JSON and row building.
 */
export type RawMethod = 'chunk-typed' | 'chunk-values' | 'row-wise' | 'chunk-typed-txn';

const RAW_METHOD_DESCRIPTIONS: Record<RawMethod, string> = {
  'chunk-typed': 'one Appender, appendDataChunk with 2048-row chunks filled from typed arrays (Int32Array/BigInt64Array/Float64Array) by copy_data_to_vector, one commit',
  'chunk-values': 'one Appender, appendDataChunk with 2048-row chunks filled by DuckDBDataChunk.setColumns from DuckDBValue arrays (the API BatchWriter uses), one commit',
  'row-wise': 'one Appender, appendInteger ×6, appendTimestamp, appendDouble ×6, endRow per row, one commit',
  'chunk-typed-txn': 'as chunk-typed, but BEGIN / Appender / flush / COMMIT per transaction with the row counts the service committed (diagnostic, not a baseline)',
};
const BASELINE_CANDIDATES: readonly RawMethod[] = ['chunk-typed', 'chunk-values', 'row-wise'];
export const RAW_METHODS = Object.keys(RAW_METHOD_DESCRIPTIONS) as RawMethod[];

// ── realistic metric_data payloads ──────────────────────────────────────────────────────────

/** The fleet: four services, two hosts each by default; the agents of a service share its routes. */
const SERVICES = [
  { name: 'checkout-api', transactions: 30, db: 'Postgres', externals: ['payments.internal:8443', 'tax.internal:8080'] },
  { name: 'catalog-api', transactions: 60, db: 'Postgres', externals: ['search.internal:9200'] },
  { name: 'identity-api', transactions: 100, db: 'MySQL', externals: ['ldap.internal:8636', 'mailer.internal:8025'] },
  { name: 'billing-api', transactions: 150, db: 'Postgres', externals: ['ledger.internal:7000', 'fx.internal:443', 'payments.internal:8443'] },
] as const;

const RESOURCES = [
  'users', 'orders', 'carts', 'products', 'payments', 'invoices', 'sessions', 'search', 'inventory', 'shipments',
  'reviews', 'coupons', 'accounts', 'reports', 'notifications', 'prices', 'categories', 'addresses', 'refunds', 'subscriptions',
  'webhooks', 'tokens', 'audits', 'exports', 'imports', 'ledgers', 'plans', 'quotes', 'returns', 'warehouses',
];
const ROUTE_SHAPES = [
  ['GET', (r: string) => `/api/v1/${r}`], ['GET', (r: string) => `/api/v1/${r}/:id`], ['POST', (r: string) => `/api/v1/${r}`],
  ['PUT', (r: string) => `/api/v1/${r}/:id`], ['DELETE', (r: string) => `/api/v1/${r}/:id`], ['GET', (r: string) => `/api/v1/${r}/:id/history`],
] as const;

/** Runtime and supportability metrics every Node agent harvest carries (names as in the lab capture). */
const PROCESS_METRICS = [
  'Memory/Physical', 'Memory/Heap/Used', 'Memory/Heap/Max', 'Memory/Heap/Free', 'Memory/NonHeap/Used',
  'CPU/User Time', 'CPU/System Time', 'CPU/User/Utilization', 'CPU/System/Utilization', 'Events/wait',
  'Logging/lines', 'Logging/lines/INFO', 'Logging/lines/WARN', 'Logging/lines/ERROR',
  'Nodejs/GC/MarkSweepCompact', 'Nodejs/GC/Scavenge', 'Nodejs/GC/IncrementalMarking', 'Nodejs/GC/ProcessWeakCallbacks',
  'Nodejs/EventLoop/usage', 'Nodejs/EventLoop/lag',
];
const SUPPORTABILITY_METHODS = ['metric_data', 'analytic_event_data', 'span_event_data', 'error_event_data', 'custom_event_data', 'log_event_data', 'error_data', 'transaction_sample_data', 'sql_trace_data'];
const SUPPORTABILITY_METRICS = [
  'Supportability/Nodejs/Collector/Output/Bytes',
  ...SUPPORTABILITY_METHODS.map((m) => `Supportability/Nodejs/Collector/${m}/Output/Bytes`),
  'Supportability/Features/Instrumentation/SubscriberUsed/pino/10', 'Supportability/Features/Instrumentation/SubscriberUsed/pino',
  'Supportability/Logging/Nodejs/pino/enabled', 'Supportability/Nodejs/Transactions/Segments',
  'Supportability/SpanEvent/TotalEventsSeen', 'Supportability/SpanEvent/TotalEventsSent', 'Supportability/SpanEvent/Discarded',
  'Supportability/Logging/Forwarding/Seen', 'Supportability/Logging/Forwarding/Sent', 'Supportability/Logging/Forwarding/Dropped',
  'Supportability/AnalyticsEvents/TotalEventsSeen', 'Supportability/AnalyticsEvents/TotalEventsSent',
  'Supportability/Events/TransactionError/Seen', 'Supportability/Events/TransactionError/Sent',
  'Supportability/Events/Customer/Seen', 'Supportability/Events/Customer/Sent',
  'Supportability/EventHarvest/ReportPeriod', 'Supportability/EventHarvest/AnalyticEventData/HarvestLimit',
  'Supportability/EventHarvest/CustomEventData/HarvestLimit', 'Supportability/EventHarvest/ErrorEventData/HarvestLimit',
  'Supportability/EventHarvest/LogEventData/HarvestLimit', 'Supportability/EventHarvest/SpanEventData/HarvestLimit',
  'Supportability/API/noticeError', 'Supportability/API/recordCustomEvent', 'Supportability/API/addCustomAttribute',
  'Supportability/API/setTransactionName', 'Supportability/API/getTraceMetadata',
  'Supportability/TraceContext/Create/Success', 'Supportability/TraceContext/Accept/Success',
  'Supportability/DistributedTrace/CreatePayload/Success', 'Supportability/DistributedTrace/AcceptPayload/Success',
  'Supportability/Features/Certificates', 'Supportability/Registration/Attempts',
  'Supportability/Nodejs/Version/20', 'Supportability/Features/ESM/Loader', 'Supportability/Features/ESM/UnsupportedLoader',
  'Supportability/Nodejs/FeatureFlag/promise_segments/enabled', 'Supportability/Nodejs/FeatureFlag/await_support/enabled',
  'Supportability/Utilization/docker/error', 'Supportability/Utilization/aws/error',
];


interface Transaction {
  readonly name: string;
  readonly partial: string;
  readonly route: string;
  readonly verb: string;
  readonly tables: readonly string[];
  readonly external: string | undefined;
  readonly meanSeconds: number;
}

function serviceTransactions(serviceIndex: number, seed: number): Transaction[] {
  const service = SERVICES[serviceIndex % SERVICES.length]!;
  const rnd = seededRandom(seed ^ (serviceIndex * 7919 + 1));
  const out: Transaction[] = [];
  for (let i = 0; out.length < service.transactions; i++) {
    const resource = RESOURCES[(i + serviceIndex * 7) % RESOURCES.length]!;
    const [verb, shape] = ROUTE_SHAPES[Math.floor(i / RESOURCES.length) % ROUTE_SHAPES.length]!;
    const version = Math.floor(i / (RESOURCES.length * ROUTE_SHAPES.length));
    const route = shape(resource).replace('/v1/', `/v${version + 1}/`);
    const partial = `Expressjs/${verb}/${route}`;
    const tables = [resource, ...(rnd() < 0.5 ? [RESOURCES[Math.floor(rnd() * RESOURCES.length)]!] : []), ...(rnd() < 0.2 ? ['audit_log'] : [])];
    out.push({
      name: `WebTransaction/${partial}`, partial, route, verb, tables: [...new Set(tables)],
      external: rnd() < 0.35 ? service.externals[Math.floor(rnd() * service.externals.length)] : undefined,
      meanSeconds: 0.002 + rnd() * rnd() * 0.8,
    });
  }
  return out;
}

type Stats = [number, number, number, number, number, number];
type MetricEntry = [{ name: string; scope?: string }, Stats];

/** `[count, total, exclusive, min, max, sumOfSquares]` with the full-precision floats the agent sends. */
function timing(rnd: () => number, count: number, mean: number, exclusiveShare = 1): Stats {
  const total = count * mean * (0.6 + rnd() * 0.8);
  const min = mean * (0.05 + rnd() * 0.4);
  const max = mean * (1.5 + rnd() * 6);
  const avg = total / count;
  return [count, total, total * exclusiveShare, Math.min(min, avg), Math.max(max, avg), count * avg * avg * (1 + rnd())];
}

export interface AgentSpec {
  readonly index: number;
  readonly service: number;
  readonly appName: string;
  readonly host: string;
}

export function agentSpecs(agents: number): AgentSpec[] {
  return Array.from({ length: agents }, (_, index) => {
    const service = index % SERVICES.length;
    const replica = Math.floor(index / SERVICES.length);
    return { index, service, appName: SERVICES[service]!.name, host: `${SERVICES[service]!.name}-${replica + 1}.prod.internal` };
  });
}

/** Harvest j of an agent: `[run_id, begin_s, end_s, [[spec, stats], …]]` as the Node agent frames it. */
export function buildHarvest(agent: AgentSpec, harvest: number, runId: string, seed: number): unknown[] {
  const rnd = seededRandom(seed ^ Math.imul(agent.index + 1, 0x9e3779b1) ^ Math.imul(harvest + 1, 0x85ebca6b));
  const service = SERVICES[agent.service]!;
  const db = service.db;
  const metrics: MetricEntry[] = [];
  const unscoped = new Map<string, Stats>();
  const roll = (name: string, stats: Stats) => {
    const prior = unscoped.get(name);
    if (!prior) {
      unscoped.set(name, [...stats]);
      return;
    }
    prior[0] += stats[0]; prior[1] += stats[1]; prior[2] += stats[2];
    prior[3] = Math.min(prior[3], stats[3]); prior[4] = Math.max(prior[4], stats[4]); prior[5] += stats[5];
  };
  const apdex = (s: number, t: number, f: number): Stats => [s, t, f, 0.5, 0.5, 0];

  let transactions = 0;
  let errors = 0;
  const apdexAll: Stats = apdex(0, 0, 0);
  for (const tx of serviceTransactions(agent.service, seed)) {
    if (rnd() < 0.08) continue; // not every route is hit in every minute
    const count = 1 + Math.floor(rnd() * rnd() * 900);
    transactions += count;
    const web = timing(rnd, count, tx.meanSeconds, 0.05 + rnd() * 0.2);
    roll(tx.name, web);
    roll(`WebTransactionTotalTime/${tx.partial}`, [web[0], web[1] * 1.07, web[1] * 1.07, web[3], web[4] * 1.1, web[5] * 1.15]);
    roll('WebTransaction', web);
    roll('HttpDispatcher', web);
    roll('WebTransactionTotalTime', web);
    roll('DurationByCaller/Unknown/Unknown/Unknown/Unknown/all', web);
    roll('DurationByCaller/Unknown/Unknown/Unknown/Unknown/allWeb', web);
    const s = Math.floor(count * (0.5 + rnd() * 0.5));
    const t = Math.floor((count - s) * rnd());
    roll(`Apdex/${tx.partial}`, apdex(s, t, count - s - t));
    apdexAll[0] += s; apdexAll[1] += t; apdexAll[2] += count - s - t;

    const scoped = (name: string, stats: Stats) => {
      metrics.push([{ name, scope: tx.name }, stats]);
      roll(name, stats);
    };
    const share = tx.meanSeconds / 20;
    scoped('Nodejs/Middleware/Expressjs/query//', timing(rnd, count, share * 0.05));
    scoped('Nodejs/Middleware/Expressjs/expressInit//', timing(rnd, count, share * 0.04));
    scoped('Nodejs/Middleware/Expressjs/authenticate//', timing(rnd, count, share * 0.8));
    if (tx.verb === 'POST' || tx.verb === 'PUT') scoped('Nodejs/Middleware/Expressjs/jsonParser//', timing(rnd, count, share * 0.3));
    scoped(`Nodejs/Middleware/Expressjs/<anonymous>/${tx.route}`, timing(rnd, count, share * 2));
    for (const table of tx.tables) {
      const operation = tx.verb === 'GET' ? 'select' : tx.verb === 'POST' ? 'insert' : tx.verb === 'PUT' ? 'update' : 'delete';
      const calls = count * (1 + Math.floor(rnd() * 4));
      const q = timing(rnd, calls, tx.meanSeconds * 0.1);
      scoped(`Datastore/statement/${db}/${table}/${operation}`, q);
      roll(`Datastore/operation/${db}/${operation}`, q);
      roll(`Datastore/instance/${db}/db-primary.prod.internal/5432`, q);
      for (const r of ['Datastore/all', 'Datastore/allWeb', `Datastore/${db}/all`, `Datastore/${db}/allWeb`]) roll(r, q);
    }
    if (tx.external) {
      const ext = timing(rnd, count, tx.meanSeconds * 0.3);
      scoped(`External/${tx.external}/http`, ext);
      for (const r of ['External/all', 'External/allWeb', `External/${tx.external}/all`]) roll(r, ext);
    }
    if (rnd() < 0.15) {
      const n = 1 + Math.floor(rnd() * Math.min(count, 40));
      errors += n;
      roll(`Errors/${tx.name}`, [n, 0, 0, 0, 0, 0]);
      roll('ErrorsByCaller/Unknown/Unknown/Unknown/Unknown/all', timing(rnd, n, tx.meanSeconds));
      roll('ErrorsByCaller/Unknown/Unknown/Unknown/Unknown/allWeb', timing(rnd, n, tx.meanSeconds));
    }
  }
  if (errors > 0) {
    roll('Errors/all', [errors, 0, 0, 0, 0, 0]);
    roll('Errors/allWeb', [errors, 0, 0, 0, 0, 0]);
  }
  roll('Apdex', apdexAll);
  if (rnd() < 0.6) roll('WebFrontend/QueueTime', timing(rnd, Math.max(1, Math.floor(transactions / 3)), 0.004));
  for (const name of PROCESS_METRICS) roll(name, timing(rnd, 12, 50 + rnd() * 400));
  for (const name of SUPPORTABILITY_METRICS) {
    if (rnd() < 0.85) roll(name, name.includes('Output/Bytes') ? timing(rnd, 1 + Math.floor(rnd() * 20), 20_000 + rnd() * 90_000) : [1 + Math.floor(rnd() * 200), 0, 0, 0, 0, 0]);
  }
  const all: MetricEntry[] = [...[...unscoped].map(([name, stats]): MetricEntry => [{ name }, stats]), ...metrics];
  const begin = HARVEST_EPOCH_S + harvest * 60 + agent.index * 0.731 + 0.123;
  return [runId, begin, begin + 60 + rnd() * 0.05, all];
}

/** 2026-11-22T00:00:00Z: harvests are filed a minute apart from here. */
const HARVEST_EPOCH_S = Date.UTC(2026, 10, 22) / 1000;

/** What the agent puts on the wire: JSON, gzipped above 64 KiB (Node and Python agents). */
export function encodeBody(body: unknown): { wire: Buffer; encoding: 'gzip' | 'identity'; jsonBytes: number } {
  const json = Buffer.from(JSON.stringify(body), 'utf8');
  if (json.length > 65_536) return { wire: gzipSync(json), encoding: 'gzip', jsonBytes: json.length };
  return { wire: json, encoding: 'identity', jsonBytes: json.length };
}

// ── the agent fleet (child process) ─────────────────────────────────────────────────────────

const CLIENT_FLAG = '--timeslice-bench-ingest-client';

interface ClientStart {
  readonly kind: 'start';
  readonly port: number;
  readonly cert: string;
  readonly licenseKey: string;
  readonly options: IngestBenchOptions;
}

interface PayloadStat { readonly metrics: number; readonly jsonBytes: number; readonly wireBytes: number; readonly gzip: boolean }

interface ClientConnected {
  readonly kind: 'connected';
  readonly runIds: string[];
  readonly payloads: PayloadStat[][];
}

interface ClientDone {
  readonly kind: 'done';
  /** sent[agent][harvest]: how many times each distinct harvest was posted and acknowledged. */
  readonly sent: number[][];
  readonly rows: number;
  readonly posts: number;
  readonly wireBytes: number;
  readonly jsonBytes: number;
  readonly elapsedMs: number;
  readonly latenciesMs: number[];
  readonly clientCpuMs: number;
}

type ClientMessage = ClientConnected | ClientDone | { readonly kind: 'error'; readonly message: string };

const USER_AGENT = `NewRelic-NodeAgent/13.20.0 (nodejs ${process.versions.node} ${process.platform}-${process.arch})`;

function invoke(agent: https.Agent, port: number, query: Record<string, string>, body: Buffer, encoding: string): Promise<unknown> {
  const path = `/agent_listener/invoke_raw_method?${new URLSearchParams(query).toString()}`;
  return new Promise((resolve, reject) => {
    const req = https.request({
      host: 'localhost', family: 4, port, method: 'POST', path, agent,
      headers: {
        'user-agent': USER_AGENT, connection: 'Keep-Alive', 'content-type': 'application/json',
        'content-encoding': encoding, 'content-length': body.length,
      },
    }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        if (res.statusCode !== 200) {
          reject(new Error(`${query.method} answered ${res.statusCode}: ${text}`));
          return;
        }
        try {
          resolve((JSON.parse(text) as { return_value: unknown }).return_value);
        } catch (error) {
          reject(new Error(`${query.method} answered non-JSON: ${text}`, { cause: error }));
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function clientMain(): Promise<void> {
  const send = (m: ClientMessage) => new Promise<void>((resolve) => process.send!(m, () => resolve()));
  try {
    const [start] = (await once(process, 'message')) as [ClientStart];
    const { options, port, cert, licenseKey } = start;
    const base = { marshal_format: 'json', protocol_version: '17', license_key: licenseKey };
    const specs = agentSpecs(options.agents);
    const agents = specs.map(() => new https.Agent({ keepAlive: true, maxSockets: 1, ca: cert }));
    const runIds: string[] = [];
    const pools: { wire: Buffer; encoding: string; jsonBytes: number; metrics: number }[][] = [];
    for (const spec of specs) {
      const agent = agents[spec.index]!;
      const empty = Buffer.from('[]');
      const pre = (await invoke(agent, port, { ...base, method: 'preconnect' }, empty, 'identity')) as { redirect_host: string };
      const redirectPort = Number(pre.redirect_host.split(':')[1] ?? 443);
      const facts = [{
        pid: 10_000 + spec.index, language: 'nodejs', agent_version: '13.20.0', host: spec.host, display_host: spec.host,
        app_name: [spec.appName], identifier: spec.appName, labels: [], settings: {}, utilization: {}, environment: [],
        high_security: false, event_harvest_config: { harvest_limits: {} },
      }];
      const reply = (await invoke(agent, redirectPort, { ...base, method: 'connect' }, Buffer.from(JSON.stringify(facts)), 'identity')) as { agent_run_id: string };
      runIds.push(reply.agent_run_id);
      const pool = [];
      for (let h = 0; h < options.harvestsPerAgent; h++) {
        const body = buildHarvest(spec, h, reply.agent_run_id, options.seed);
        const encoded = encodeBody(body);
        pool.push({ ...encoded, metrics: (body[3] as unknown[]).length });
      }
      pools.push(pool);
    }
    await send({
      kind: 'connected', runIds,
      payloads: pools.map((p) => p.map((b) => ({ metrics: b.metrics, jsonBytes: b.jsonBytes, wireBytes: b.wire.length, gzip: b.encoding === 'gzip' }))),
    });
    await once(process, 'message'); // go

    const sent = pools.map((p) => p.map(() => 0));
    const latenciesMs: number[] = [];
    let rows = 0, posts = 0, wireBytes = 0, jsonBytes = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const deadline = t0 + options.seconds * 1000;
    await Promise.all(specs.map(async (spec) => {
      const pool = pools[spec.index]!;
      const query = { ...base, method: 'metric_data', run_id: runIds[spec.index]! };
      for (let k = 0; performance.now() < deadline; k++) {
        const h = k % pool.length;
        const body = pool[h]!;
        const started = performance.now();
        await invoke(agents[spec.index]!, port, query, body.wire, body.encoding);
        latenciesMs.push(performance.now() - started);
        sent[spec.index]![h]! += 1;
        rows += body.metrics;
        posts += 1;
        wireBytes += body.wire.length;
        jsonBytes += body.jsonBytes;
      }
    }));
    const elapsedMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    for (const a of agents) a.destroy();
    await send({ kind: 'done', sent, rows, posts, wireBytes, jsonBytes, elapsedMs, latenciesMs, clientCpuMs: (cpu.user + cpu.system) / 1000 });
  } catch (error) {
    await send({ kind: 'error', message: (error as Error).stack ?? String(error) });
    process.exitCode = 1;
  }
  process.disconnect();
}

if (process.argv.includes(CLIENT_FLAG)) void clientMain();

// ── raw DuckDB Appender baseline ────────────────────────────────────────────────────────────

const CHUNK_ROWS = 2048;
const INT_COLUMNS = 6; // account_id, app_id, host_id, instance_id, metric_id, scope_id
const DOUBLE_COLUMNS = 6; // call_count … sum_of_squares

/** One harvest's rows, column-major, in both representations the raw methods read. */
interface BodyRows {
  readonly length: number;
  readonly ints: Int32Array[];
  readonly ts: BigInt64Array;
  readonly doubles: Float64Array[];
  readonly values: DuckDBValue[][];
  readonly tsValue: DuckDBTimestampValue;
}

/** `columns` as the service's `Rows` hold them: plain numbers, the timestamp as epoch ms. */
function toBodyRows(columns: Cell[][]): BodyRows {
  const length = columns[0]!.length;
  const ints = columns.slice(0, INT_COLUMNS).map((c) => Int32Array.from(c as number[]));
  const tsMs = columns[INT_COLUMNS] as number[];
  if (new Set(tsMs).size > 1) throw new Error('a harvest maps to one minute');
  const tsValue = timestampValue(tsMs[0]!);
  const ts = new BigInt64Array(length).fill(tsValue.micros);
  const doubles = columns.slice(INT_COLUMNS + 1).map((c) => Float64Array.from(c as number[]));
  const values: DuckDBValue[][] = columns.map((c, i) => (i === INT_COLUMNS ? new Array<DuckDBValue>(length).fill(tsValue) : (c as DuckDBValue[])));
  return { length, ints, ts, doubles, values, tsValue };
}

/** Appends every body of `sequence` in order and commits; returns elapsed ms including the commit(s). */
async function appendRaw(db: Database, method: RawMethod, sequence: readonly BodyRows[], commitSizes: readonly number[]): Promise<number> {
  const connection = db.appendConnection;
  if (method === 'chunk-typed-txn') {
    const t0 = performance.now();
    let body = 0, offset = 0;
    for (const size of commitSizes) {
      await connection.run('BEGIN TRANSACTION');
      const appender = await connection.createAppender(TIMESLICES.name);
      const slices: BodyRows[] = [];
      for (let need = size; need > 0;) {
        const b = sequence[body]!;
        const take = Math.min(need, b.length - offset);
        slices.push(take === b.length ? b : sliceBody(b, offset, take));
        need -= take;
        offset += take;
        if (offset === b.length) { body += 1; offset = 0; }
      }
      appendChunkTyped(appender, slices);
      appender.flushSync();
      appender.closeSync();
      await connection.run('COMMIT');
    }
    if (body !== sequence.length) throw new Error('the commit sizes do not add up to the rows sent');
    return performance.now() - t0;
  }
  const t0 = performance.now();
  const appender = await connection.createAppender(TIMESLICES.name);
  if (method === 'row-wise') appendRowWise(appender, sequence);
  else if (method === 'chunk-values') appendChunkValues(appender, sequence);
  else appendChunkTyped(appender, sequence);
  appender.flushSync(); // commits: the appender runs in auto-commit mode
  appender.closeSync();
  return performance.now() - t0;
}

function sliceBody(b: BodyRows, offset: number, length: number): BodyRows {
  return {
    length,
    ints: b.ints.map((c) => c.subarray(offset, offset + length)),
    ts: b.ts.subarray(offset, offset + length),
    doubles: b.doubles.map((c) => c.subarray(offset, offset + length)),
    values: b.values.map((c) => c.slice(offset, offset + length)),
    tsValue: b.tsValue,
  };
}

function appendRowWise(appender: DuckDBAppender, sequence: readonly BodyRows[]): void {
  for (const body of sequence) {
    const [account, app, host, instance, metric, scope] = body.ints as [Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array];
    const [count, total, exclusive, min, max, sumsq] = body.doubles as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
    for (let r = 0; r < body.length; r++) {
      appender.appendInteger(account[r]!); appender.appendInteger(app[r]!); appender.appendInteger(host[r]!);
      appender.appendInteger(instance[r]!); appender.appendInteger(metric[r]!); appender.appendInteger(scope[r]!);
      appender.appendTimestamp(body.tsValue);
      appender.appendDouble(count[r]!); appender.appendDouble(total[r]!); appender.appendDouble(exclusive[r]!);
      appender.appendDouble(min[r]!); appender.appendDouble(max[r]!); appender.appendDouble(sumsq[r]!);
      appender.endRow();
    }
  }
}

function appendChunkValues(appender: DuckDBAppender, sequence: readonly BodyRows[]): void {
  const chunk = DuckDBDataChunk.create(TIMESLICES.columns.map((c) => DUCKDB_TYPES[c.type]));
  const width = TIMESLICES.columns.length;
  let columns: DuckDBValue[][] = Array.from({ length: width }, () => []);
  let filled = 0;
  const emit = () => {
    chunk.reset();
    chunk.setColumns(columns);
    appender.appendDataChunk(chunk);
    columns = Array.from({ length: width }, () => []);
    filled = 0;
  };
  for (const body of sequence) {
    for (let offset = 0; offset < body.length;) {
      const take = Math.min(CHUNK_ROWS - filled, body.length - offset);
      for (let c = 0; c < width; c++) {
        const source = body.values[c]!;
        const target = columns[c]!;
        for (let r = offset; r < offset + take; r++) target.push(source[r]!);
      }
      filled += take;
      offset += take;
      if (filled === CHUNK_ROWS) emit();
    }
  }
  if (filled > 0) emit();
}

function appendChunkTyped(appender: DuckDBAppender, sequence: readonly BodyRows[]): void {
  const chunk = DuckDBDataChunk.create(TIMESLICES.columns.map((c) => DUCKDB_TYPES[c.type]));
  const ints = Array.from({ length: INT_COLUMNS }, () => new Int32Array(CHUNK_ROWS));
  const ts = new BigInt64Array(CHUNK_ROWS);
  const doubles = Array.from({ length: DOUBLE_COLUMNS }, () => new Float64Array(CHUNK_ROWS));
  const staged: (Int32Array | BigInt64Array | Float64Array)[] = [...ints, ts, ...doubles];
  let filled = 0;
  const emit = () => {
    duckdb.data_chunk_reset(chunk.chunk);
    duckdb.data_chunk_set_size(chunk.chunk, filled);
    for (let c = 0; c < staged.length; c++) {
      const a = staged[c]!;
      duckdb.copy_data_to_vector(duckdb.data_chunk_get_vector(chunk.chunk, c), 0, a.buffer as ArrayBuffer, a.byteOffset, filled * a.BYTES_PER_ELEMENT);
    }
    appender.appendDataChunk(chunk);
    filled = 0;
  };
  for (const body of sequence) {
    for (let offset = 0; offset < body.length;) {
      const take = Math.min(CHUNK_ROWS - filled, body.length - offset);
      for (let c = 0; c < INT_COLUMNS; c++) ints[c]!.set(body.ints[c]!.subarray(offset, offset + take), filled);
      ts.set(body.ts.subarray(offset, offset + take), filled);
      for (let c = 0; c < DOUBLE_COLUMNS; c++) doubles[c]!.set(body.doubles[c]!.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      if (filled === CHUNK_ROWS) emit();
    }
  }
  if (filled > 0) emit();
}

// ── the benchmark ───────────────────────────────────────────────────────────────────────────

/**
 * A ceiling for any front end that parses JSON on one thread: the distinct harvests as sent,
 * decoded three times over, first `toString` + `JSON.parse` only (what the event loop must do;
 * the service inflates on libuv's pool), then with a synchronous gunzip in front.
 */
function decodeCeiling(specs: readonly AgentSpec[], runIds: readonly string[], options: IngestBenchOptions): { parseRowsPerSecond: number; gunzipParseRowsPerSecond: number } {
  const bodies = specs.flatMap((spec) => Array.from({ length: options.harvestsPerAgent }, (_, h) => {
    const body = buildHarvest(spec, h, runIds[spec.index]!, options.seed);
    return { ...encodeBody(body), metrics: (body[3] as unknown[]).length };
  }));
  const plain = bodies.map((b) => (b.encoding === 'gzip' ? gunzipSync(b.wire) : b.wire));
  const rounds = 3;
  const rows = rounds * bodies.reduce((n, b) => n + b.metrics, 0);
  let sink = 0;
  let t0 = performance.now();
  for (let r = 0; r < rounds; r++) for (const text of plain) sink += (JSON.parse(text.toString('utf8')) as unknown[]).length;
  const parseMs = performance.now() - t0;
  t0 = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const b of bodies) sink += (JSON.parse((b.encoding === 'gzip' ? gunzipSync(b.wire) : b.wire).toString('utf8')) as unknown[]).length;
  }
  const bothMs = performance.now() - t0;
  if (sink !== 2 * rounds * 4 * bodies.length) throw new Error('decode ceiling: unexpected body shape');
  return { parseRowsPerSecond: rows / (parseMs / 1000), gunzipParseRowsPerSecond: rows / (bothMs / 1000) };
}

/**
 * Records how many timeslice rows each of the writer's group commits held, by wrapping its
 * (private) commit step on this one instance. Diagnostic only: if the writer changes shape, the
 * list stays empty and the benchmark runs without it.
 */
function observeCommits(writer: BatchWriter): number[] {
  const sizes: number[] = [];
  const w = writer as unknown as { commit?: (batch: readonly { readonly rows: readonly Rows[] }[]) => Promise<void> };
  const commit = w.commit;
  if (typeof commit !== 'function') return sizes;
  w.commit = async (batch) => {
    let n = 0;
    for (const write of batch) for (const rows of write.rows) if (rows.table === TIMESLICES) n += rows.length;
    await commit.call(writer, batch);
    if (n > 0) sizes.push(n);
  };
  return sizes;
}

/** Row count and an order-independent fingerprint of every column of every row. */
const FINGERPRINT_SQL = `SELECT count(*)::BIGINT AS n, sum(hash(account_id, app_id, host_id, instance_id, metric_id, scope_id, ts,
  call_count, total, exclusive, min, max, sum_of_squares))::VARCHAR AS fp FROM timeslices`;

async function fingerprint(db: Database): Promise<{ rows: number; fp: string }> {
  const [r] = await db.all<{ n: bigint; fp: string }>(FINGERPRINT_SQL);
  return { rows: Number(r!.n), fp: r!.fp };
}

export interface RawResult {
  readonly method: RawMethod;
  readonly description: string;
  readonly seconds: number;
  readonly rowsPerSecond: number;
}

export interface IngestBenchResult {
  readonly date: string;
  readonly machine: MachineFacts;
  readonly options: IngestBenchOptions;
  readonly payloads: {
    distinct: number;
    metrics: Summary;
    jsonBytes: Summary;
    wireBytes: Summary;
    gzipShare: number;
    distinctNames: number;
  };
  readonly endToEnd: {
    rows: number;
    posts: number;
    seconds: number;
    rowsPerSecond: number;
    postsPerSecond: number;
    wireMiBPerSecond: number;
    jsonMiBPerSecond: number;
    latencyMs: Summary;
    serverCpuCores: number;
    /** Process CPU (all threads: event loop, DuckDB, zlib) per timeslice. */
    serverCpuMicrosPerRow: number;
    clientCpuCores: number;
    /** Group commits the service made for timeslices, and their sizes; absent if not observable. */
    commits: number;
    rowsPerCommit: Summary | undefined;
  };
  readonly storedRows: number;
  /** One-thread ceilings: metrics per second through toString + JSON.parse, and through gunzip + both. */
  readonly decode: { parseRowsPerSecond: number; gunzipParseRowsPerSecond: number };
  readonly raw: readonly RawResult[];
  readonly best: RawResult;
  readonly ratio: number;
}

export interface Summary { readonly min: number; readonly p50: number; readonly p99: number; readonly max: number; readonly mean: number }

function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { min: sorted[0]!, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1]!, mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
}

function nextMessage(child: ChildProcess): Promise<ClientMessage> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: ClientMessage) => { cleanup(); resolve(m); };
    const onExit = (code: number | null) => { cleanup(); reject(new Error(`the agent fleet process exited (${code}) before reporting`)); };
    const cleanup = () => { child.off('message', onMessage); child.off('exit', onExit); };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

async function expectMessage<K extends ClientMessage['kind']>(child: ChildProcess, kind: K): Promise<Extract<ClientMessage, { kind: K }>> {
  const m = await nextMessage(child);
  if (m.kind === 'error') throw new Error(`agent fleet failed:\n${m.message}`);
  if (m.kind !== kind) throw new Error(`agent fleet sent '${m.kind}', expected '${kind}'`);
  return m as Extract<ClientMessage, { kind: K }>;
}

function log(message: string): void {
  process.stderr.write(`[ingest-metric-data] ${message}\n`);
}

export async function runIngestMetricData(options: IngestBenchOptions = DEFAULT_INGEST_OPTIONS): Promise<IngestBenchResult> {
  const dataDir = await mkdtemp(join(os.tmpdir(), 'timeslice-bench-'));
  const licenseKey = 'be7c4a1d2f3e4b5c6d7e8f9012345678abcdef01';
  let server: RunningServer | undefined;
  let child: ChildProcess | undefined;
  try {
    // ── end to end ──
    server = await startServer(resolveServeConfig({ port: '0', 'collector-port': '0', data: join(dataDir, 'service') }, {
      ...process.env, TIMESLICE_LICENSE_KEY: licenseKey, TIMESLICE_API_KEY: 'NRAK-BENCH0000000000000000000000',
    }));
    const commitSizes = observeCommits(server.writer);
    const cert = await readFile(server.certPath, 'utf8');
    child = fork(fileURLToPath(import.meta.url), [CLIENT_FLAG], { execArgv: ['--enable-source-maps'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.send({ kind: 'start', port: server.collectorPort, cert, licenseKey, options } satisfies ClientStart);
    log(`${options.agents} agents connecting and generating ${options.agents * options.harvestsPerAgent} distinct harvests…`);
    const connected = await expectMessage(child, 'connected');
    log(`posting metric_data for ${options.seconds} s…`);
    const cpu0 = process.cpuUsage();
    const done = expectMessage(child, 'done');
    child.send({ kind: 'go' });
    const report = await done;
    const cpu = process.cpuUsage(cpu0);
    await once(child, 'exit');
    child = undefined;

    const stored = await fingerprint(server.db);
    if (stored.rows !== report.rows) {
      throw new Error(`the agents had ${report.rows} timeslices acknowledged but the store holds ${stored.rows}`);
    }
    log(`${report.rows.toLocaleString('en-US')} timeslices acknowledged and stored in ${(report.elapsedMs / 1000).toFixed(2)} s`);

    // The rows the service stored, rebuilt from the same harvests with the ids it gave the names.
    const ids = new Map((await server.db.all<{ id: number; name: string }>('SELECT id, name FROM metric_names')).map((r) => [r.name, r.id]));
    const specs = agentSpecs(options.agents);
    const sequence: BodyRows[] = [];
    for (const spec of specs) {
      const runId = connected.runIds[spec.index]!;
      const run = server.catalog.run(runId);
      if (!run) throw new Error(`run ${runId} unknown to the catalog`);
      const bodies = Array.from({ length: options.harvestsPerAgent }, (_, h) => {
        // Through JSON, as the service saw it.
        const payload = parseMetricData(JSON.parse(JSON.stringify(buildHarvest(spec, h, runId, options.seed))));
        return toBodyRows(timesliceRows(payload, { accountId: run.accountId, targets: run.targets, receivedAt: 0 }, ids).columns);
      });
      // Interleave as the posts did: round after round through the pool.
      const sent = report.sent[spec.index]!;
      for (let round = 0; ; round++) {
        let any = false;
        for (let h = 0; h < bodies.length; h++) {
          if (sent[h]! > round) { sequence.push(bodies[h]!); any = true; }
        }
        if (!any) break;
      }
    }
    const rawRows = sequence.reduce((n, b) => n + b.length, 0);
    const decode = decodeCeiling(specs, connected.runIds, options);
    if (rawRows !== report.rows) throw new Error(`rebuilt ${rawRows} rows for the raw side, expected ${report.rows}`);
    const distinctNames = ids.size;
    await server.close();
    server = undefined;

    // ── raw Appender, same rows, fresh store per method ──
    const raw: RawResult[] = [];
    for (const method of options.rawMethods) {
      const path = join(dataDir, `raw-${method}.duckdb`);
      const db = await Database.open({ path });
      try {
        log(`raw ${method}: appending ${rawRows.toLocaleString('en-US')} rows…`);
        if (method === 'chunk-typed-txn' && commitSizes.length === 0) {
          log('raw chunk-typed-txn skipped: the service\'s commit sizes could not be observed');
          continue;
        }
        const ms = await appendRaw(db, method, sequence, commitSizes);
        const check = await fingerprint(db);
        if (check.rows !== stored.rows || check.fp !== stored.fp) {
          throw new Error(`raw ${method} stored ${check.rows} rows (fingerprint ${check.fp}); the service stored ${stored.rows} (${stored.fp})`);
        }
        raw.push({ method, description: RAW_METHOD_DESCRIPTIONS[method], seconds: ms / 1000, rowsPerSecond: rawRows / (ms / 1000) });
      } finally {
        await db.close();
      }
      if (!options.keep) await rm(path, { force: true });
    }
    const candidates = raw.filter((m) => BASELINE_CANDIDATES.includes(m.method));
    if (candidates.length === 0) throw new Error(`no baseline measured: choose at least one of ${BASELINE_CANDIDATES.join(', ')}`);
    const best = candidates.reduce((a, b) => (b.rowsPerSecond > a.rowsPerSecond ? b : a));

    const flat = connected.payloads.flat();
    const seconds = report.elapsedMs / 1000;
    const rowsPerSecond = report.rows / seconds;
    return {
      date: new Date().toISOString().slice(0, 10),
      machine: machineFacts(),
      options,
      payloads: {
        distinct: flat.length,
        metrics: summarize(flat.map((p) => p.metrics)),
        jsonBytes: summarize(flat.map((p) => p.jsonBytes)),
        wireBytes: summarize(flat.map((p) => p.wireBytes)),
        gzipShare: flat.filter((p) => p.gzip).length / flat.length,
        distinctNames,
      },
      endToEnd: {
        rows: report.rows,
        posts: report.posts,
        seconds,
        rowsPerSecond,
        postsPerSecond: report.posts / seconds,
        wireMiBPerSecond: report.wireBytes / 2 ** 20 / seconds,
        jsonMiBPerSecond: report.jsonBytes / 2 ** 20 / seconds,
        latencyMs: summarize(report.latenciesMs),
        serverCpuCores: (cpu.user + cpu.system) / 1000 / report.elapsedMs,
        serverCpuMicrosPerRow: (cpu.user + cpu.system) / report.rows,
        clientCpuCores: report.clientCpuMs / report.elapsedMs,
        commits: commitSizes.length,
        rowsPerCommit: commitSizes.length > 0 ? summarize(commitSizes) : undefined,
      },
      storedRows: stored.rows,
      decode,
      raw,
      best,
      ratio: rowsPerSecond / best.rowsPerSecond,
    };
  } finally {
    child?.kill();
    await server?.close().catch(() => undefined);
    if (!options.keep) await rm(dataDir, { recursive: true, force: true });
    else log(`data kept in ${dataDir}`);
  }
}

// ── reporting ───────────────────────────────────────────────────────────────────────────────

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const fixed = (n: number, d = 1) => n.toFixed(d);

export function formatIngestResult(r: IngestBenchResult): string {
  const e = r.endToEnd;
  const p = r.payloads;
  const lines = [
    `metric_data ingest (${r.date}): ${r.options.agents} agents, ${r.options.seconds} s`,
    `  machine: ${r.machine.cpus} CPUs (${r.machine.cpuModel}), ${r.machine.memoryGiB} GiB, Node ${r.machine.node}, DuckDB ${r.machine.duckdb} (@duckdb/node-api ${r.machine.duckdbNodeApi})`,
    `  payloads: ${p.distinct} distinct harvests, metrics/payload ${p.metrics.min}–${p.metrics.max} (median ${p.metrics.p50}), JSON ${int(p.jsonBytes.min)}–${int(p.jsonBytes.max)} B (median ${int(p.jsonBytes.p50)}), wire ${int(p.wireBytes.min)}–${int(p.wireBytes.max)} B (median ${int(p.wireBytes.p50)}), gzipped ${fixed(p.gzipShare * 100, 0)}%, ${int(p.distinctNames)} distinct names`,
    `  end to end: ${int(e.rows)} timeslices in ${int(e.posts)} posts over ${fixed(e.seconds, 2)} s = ${int(e.rowsPerSecond)} timeslices/s (${fixed(e.postsPerSecond)} posts/s, ${fixed(e.wireMiBPerSecond)} MiB/s wire, ${fixed(e.jsonMiBPerSecond)} MiB/s JSON)`,
    `    post latency ms: p50 ${fixed(e.latencyMs.p50)}, p99 ${fixed(e.latencyMs.p99)}, max ${fixed(e.latencyMs.max)}; CPU: server ${fixed(e.serverCpuCores, 2)} cores (${fixed(e.serverCpuMicrosPerRow, 2)} µs per timeslice), agents ${fixed(e.clientCpuCores, 2)} cores`,
    ...(e.rowsPerCommit ? [`    group commits: ${int(e.commits)}, timeslices per commit median ${int(e.rowsPerCommit.p50)} (mean ${int(e.rowsPerCommit.mean)}, max ${int(e.rowsPerCommit.max)})`] : []),
    `  stored and verified: ${int(r.storedRows)} rows, identical fingerprint in every store`,
    `  one-thread decode ceiling: JSON.parse ${int(r.decode.parseRowsPerSecond)} metrics/s, gunzip + JSON.parse ${int(r.decode.gunzipParseRowsPerSecond)} metrics/s`,
    ...r.raw.map((m) => `  raw ${m.method}: ${int(m.rowsPerSecond)} rows/s (${fixed(m.seconds, 2)} s)${m === r.best ? '  ← baseline' : BASELINE_CANDIDATES.includes(m.method) ? '' : '  (diagnostic)'}`),
    `  ratio end to end / raw ${r.best.method}: ${r.ratio.toFixed(3)} (target ≥ 0.7)`,
  ];
  return lines.join('\n');
}
