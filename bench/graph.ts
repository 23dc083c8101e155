/**
 * Graph API benchmark: requests per second of `actor.nrql` and `actor.entitySearch` through
 * `POST /graphql` on the real service over loopback HTTP, against the same work called in the
 * service's process without HTTP or GraphQL.
 *
 * - `nrql-count`: `SELECT count(*) FROM Metric WHERE appName = '…' SINCE 30 minutes ago` and
 *   `nrql-facet`: `SELECT average(newrelic.timeslice.value) * 1000 FROM Metric WHERE
 *   metricTimesliceName = 'HttpDispatcher' FACET appName SINCE 3 hours ago TIMESERIES`, on the NRQL
 *   benchmark's cached store (`fixtures/nrql-store.ts`: 20 M timeslices, 10 M events). In process:
 *   `NrqlEngine.run` with the options the resolver passes.
 * - `entity-search`: `domain = 'APM' AND name LIKE 'api'`, the first page of 200 with the outline
 *   fields and `apmSummary`, and the count, on `fixtures/graph-entities.ts` (640 applications made
 *   through the collector). In process: the resolvers' own functions — `entitySearch` (the
 *   search language, `matchingEntities`, `searchPage`) and each outline field's resolver, the
 *   summaries batched through the request's loaders — over a fresh `GraphContext` per call.
 * - `floor`: `GET /healthz` (HTTP and Fastify alone) and `{ requestContext { userId } }` (the
 *   graph route's transport: authentication, the body, the document cache, a trivial execution).
 *
 * Variants of each case, interleaved in rounds with the order rotated each round:
 * - `graph ×1`, `graph ×8`: a separate process (`http-load.ts`) keeps 1 or 8 keep-alive
 *   connections busy, one request in flight on each; every response must equal the body checked
 *   before timing;
 * - `execute ×1`: `graphql.execute` of the cached document with a fresh `GraphContext`, and
 *   `JSON.stringify` of `{data}` — the route without HTTP, transport and document cache;
 * - `in-process ×1`, `in-process ×8`: the work itself, 1 or 8 calls in flight.
 *
 * Checked before timing: the HTTP answer equals the in-process answer (NRQL: `results`,
 * `totalResult`, `otherResult`; search: the whole `data`) and `execute`'s JSON, numbers within
 * 1e-9 relative (DuckDB's parallel sums vary in their last bits from run to run);
 * the count query's count equals a hand-written SQL count; the search's count, page, reporting
 * flags and host counts equal what the fixture's plan says.
 */
import assert from 'node:assert/strict';
import { execute, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { isReporting } from '../src/applications/application-summary.js';
import { resolveServeConfig } from '../src/config.js';
import { AsyncNrqlQueries } from '../src/api/graphql/async-nrql.js';
import { GraphContext, type Principal } from '../src/api/graphql/graph-context.js';
import type { GraphServices } from '../src/api/graphql/graph-services.js';
import { buildGraphSchema } from '../src/api/graphql/graph-schema.js';
import { entitySearch } from '../src/api/graphql/resolvers/entity-search-resolvers.js';
import { entityTypeResolvers } from '../src/api/graphql/resolvers/entity-resolvers.js';
import type { GraphEntity } from '../src/api/graphql/entity-model.js';
import { storeDictionaries } from '../src/nrql/dictionaries.js';
import { NrqlEngine } from '../src/nrql/nrql-engine.js';
import { keyHint } from '../src/security/keys.js';
import { startServer, type RunningServer } from '../src/server.js';
import { DuckDbChangeTrackingRecords } from '../src/store/duckdb/duckdb-change-tracking.js';
import { Deployments } from '../src/store/deployments.js';
import { DuckDbPlanExecutor } from '../src/store/duckdb/duckdb-plan-executor.js';
import { DEFAULT_ENTITY_STORE_SHAPE, ensureEntityStore, entityStoreConfig, ENTITY_STORE_API_KEY, type EntityStore } from './fixtures/graph-entities.js';
import { DEFAULT_NRQL_STORE_SHAPE, ensureNrqlStore, type NrqlStore } from './fixtures/nrql-store.js';
import { ALL_TIMESLICES } from './fixtures/timeslice-store.js';
import { HttpLoad, type LoadSpec } from './http-load.js';
import { jsonDifference } from './same-json.js';
import { machineFacts, type MachineFacts } from './machine.js';

// ── options ─────────────────────────────────────────────────────────────────────────────────

export type CaseLabel = 'nrql-count' | 'nrql-facet' | 'entity-search' | 'floor';
export const CASE_LABELS: readonly CaseLabel[] = ['nrql-count', 'nrql-facet', 'entity-search', 'floor'];

export interface GraphBenchOptions {
  /** Timed rounds; each runs every variant of a case once, for `seconds`. */
  readonly rounds: number;
  /** Warm-up rounds before them, each variant for half of `seconds`. */
  readonly warmup: number;
  readonly seconds: number;
  readonly cases: readonly CaseLabel[];
  /** Applications of the entity-search store. */
  readonly apps: number;
  readonly rebuild: boolean;
}

export const DEFAULT_GRAPH_OPTIONS: GraphBenchOptions = {
  rounds: 5, warmup: 1, seconds: 1, cases: CASE_LABELS, apps: DEFAULT_ENTITY_STORE_SHAPE.apps, rebuild: false,
};

const ACCOUNT_ID = 1;
const NRQL_API_KEY = 'NRAK-BENCHNRQL00000000000000000';
/** The timeout the resolver gives a query when the client names none (NerdGraph's least, 5 s). */
const RESOLVER_TIMEOUT_MS = 5_000;
const COUNT_APP_ID = 7;
const SEARCH_QUERY = "domain = 'APM' AND name LIKE 'api'";
const SEARCH_WORD = 'api';
const PAGE_SIZE = 200;

const NRQL_DOCUMENT = `query BenchNrql($accounts: [Int!]!, $nrql: Nrql!) {
  actor { nrql(accounts: $accounts, query: $nrql) { results totalResult otherResult } }
}`;

const SUMMARY_FIELDS = [
  'apdexScore', 'errorRate', 'hostCount', 'instanceCount', 'responseTimeAverage', 'throughput',
  'webResponseTimeAverage', 'webThroughput', 'nonWebResponseTimeAverage', 'nonWebThroughput',
] as const;
const OUTLINE_FIELDS = ['guid', 'name', 'accountId', 'domain', 'type', 'entityType', 'reporting', 'alertSeverity', 'tags'] as const;
const APM_FIELDS = ['applicationId', 'language', 'apmSummary'] as const;

const SEARCH_DOCUMENT = `query BenchSearch($query: String!) {
  actor {
    entitySearch(query: $query) {
      count
      results {
        nextCursor
        entities {
          ${OUTLINE_FIELDS.filter((f) => f !== 'tags').join(' ')}
          tags { key values }
          ... on ApmApplicationEntityOutline {
            applicationId language
            apmSummary { ${SUMMARY_FIELDS.join(' ')} }
          }
        }
      }
    }
  }
}`;

const FLOOR_DOCUMENT = '{ requestContext { userId } }';

// ── measuring ───────────────────────────────────────────────────────────────────────────────

/** One way of doing a case's work: over HTTP from the load process, or called in this process. */
interface Variant {
  readonly name: string;
  readonly concurrency: number;
  readonly http?: Omit<LoadSpec, 'durationMs' | 'concurrency'>;
  readonly call?: () => Promise<unknown>;
}

/** One timed run of a variant. */
interface Sample {
  readonly requests: number;
  readonly elapsedMs: number;
  readonly latenciesMs: readonly number[];
  /** CPU time of this process (the service, DuckDB's threads included) during the run. */
  readonly serviceCpuMs: number;
  readonly clientCpuMs: number;
}

export interface VariantResult {
  readonly name: string;
  readonly concurrency: number;
  readonly overHttp: boolean;
  /** Requests per second: median over the timed rounds, and the range. */
  readonly rps: number;
  readonly rpsMin: number;
  readonly rpsMax: number;
  /** Over every request of the timed rounds. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  /** CPU ms per request of the service's process, and of the load process. */
  readonly serviceCpuMsPerRequest: number;
  readonly clientCpuMsPerRequest: number;
}

/** The in-flight calls of one in-process variant, for as long as the clock runs. */
async function closedLoop(call: () => Promise<unknown>, concurrency: number, durationMs: number): Promise<Sample> {
  const latenciesMs: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      await call();
      latenciesMs.push(performance.now() - started);
    }
  }));
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { requests: latenciesMs.length, elapsedMs, latenciesMs, serviceCpuMs: (cpu.user + cpu.system) / 1000, clientCpuMs: 0 };
}

async function measure(load: HttpLoad, variant: Variant, durationMs: number): Promise<Sample> {
  if (variant.call) return closedLoop(variant.call, variant.concurrency, durationMs);
  const cpu0 = process.cpuUsage();
  const r = await load.run({ ...variant.http!, concurrency: variant.concurrency, durationMs });
  const cpu = process.cpuUsage(cpu0);
  if (r.socketsOpened > 0) throw new Error(`${variant.name}: ${r.socketsOpened} connections were opened while timing; keep-alive did not hold`);
  return { requests: r.requests, elapsedMs: r.elapsedMs, latenciesMs: r.latenciesMs, serviceCpuMs: (cpu.user + cpu.system) / 1000, clientCpuMs: r.clientCpuMs };
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length / 2;
  return s.length % 2 === 1 ? s[Math.floor(mid)]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Every variant once per round, the order rotated each round; warm-up rounds are not kept. */
async function timeVariants(load: HttpLoad, variants: readonly Variant[], options: GraphBenchOptions, label: string): Promise<VariantResult[]> {
  const samples = new Map<string, Sample[]>(variants.map((v) => [v.name, []]));
  for (let round = 0; round < options.warmup + options.rounds; round++) {
    const warm = round < options.warmup;
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(round + k) % variants.length]!;
      const sample = await measure(load, variant, options.seconds * 1000 * (warm ? 0.5 : 1));
      if (!warm) samples.get(variant.name)!.push(sample);
    }
    if (!warm) log(`${label}: round ${round - options.warmup + 1} of ${options.rounds} done`);
  }
  return variants.map((v) => {
    const runs = samples.get(v.name)!;
    const rates = runs.map((s) => (s.requests / s.elapsedMs) * 1000);
    const latencies = runs.flatMap((s) => s.latenciesMs).sort((a, b) => a - b);
    const requests = runs.reduce((n, s) => n + s.requests, 0);
    return {
      name: v.name, concurrency: v.concurrency, overHttp: v.http !== undefined,
      rps: median(rates), rpsMin: Math.min(...rates), rpsMax: Math.max(...rates),
      p50Ms: quantile(latencies, 0.5), p99Ms: quantile(latencies, 0.99), requests,
      serviceCpuMsPerRequest: runs.reduce((n, s) => n + s.serviceCpuMs, 0) / requests,
      clientCpuMsPerRequest: runs.reduce((n, s) => n + s.clientCpuMs, 0) / requests,
    };
  });
}

/**
 * Median time of `JSON.stringify(value)`, in ms: the serialization share of `execute ×1`. Given
 * GraphQL's own result (its objects have no prototype, which V8 stringifies more slowly than the
 * same data parsed back from JSON).
 */
function stringifyMs(value: unknown): number {
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    JSON.stringify(value);
    times.push(performance.now() - t);
  }
  return median(times);
}

// ── the service and the graph pieces ────────────────────────────────────────────────────────

/** The service on a store, with what the benchmark calls in its process. */
interface Harness {
  readonly server: RunningServer;
  readonly services: GraphServices;
  readonly principal: Principal;
  readonly apiKey: string;
  /** What the route makes a permalink's origin from: the Host the load process sends. */
  readonly origin: string;
  readonly schema: GraphQLSchema;
  readonly documents: Map<string, DocumentNode>;
  readonly executor: DuckDbPlanExecutor;
  readonly upSeconds: number;
}

async function startHarness(config: ReturnType<typeof resolveServeConfig>, nowMs: number, apiKey: string): Promise<Harness> {
  const clock = { now: () => nowMs };
  const t0 = performance.now();
  const server = await startServer(config, { clock });
  const upSeconds = (performance.now() - t0) / 1000;
  // The engine and services as `buildApiApp` builds them, over an executor of the same database.
  const executor = new DuckDbPlanExecutor(server.db);
  const nrql = new NrqlEngine({ executor, dictionaries: storeDictionaries(server.catalog, server.metrics), clock });
  const services: GraphServices = {
    catalog: server.catalog, metrics: server.metrics, executor, clock, entities: server.entities,
    deployments: new Deployments(new DuckDbChangeTrackingRecords(server.db, server.writer), clock), nrql, asyncQueries: new AsyncNrqlQueries(() => clock.now()),
  };
  const accountId = server.catalog.accountForUserKey(apiKey);
  const user = server.catalog.userOfKey(apiKey);
  if (accountId === undefined || !user) throw new Error('the service does not know the benchmark\'s API key');
  const principal: Principal = { accountId, keyHint: keyHint(apiKey), userId: user.id, userName: user.name, createdAt: user.createdAt };
  const port = new URL(server.apiUrl).port;
  const schema = buildGraphSchema();
  const documents = new Map<string, DocumentNode>();
  for (const text of [NRQL_DOCUMENT, SEARCH_DOCUMENT, FLOOR_DOCUMENT]) {
    const document = parse(text);
    const errors = validate(schema, document);
    if (errors.length > 0) throw new Error(`the benchmark's document does not validate: ${errors.map((e) => e.message).join('; ')}`);
    documents.set(text, document);
  }
  return { server, services, principal, apiKey, origin: `http://127.0.0.1:${port}`, schema, documents, executor, upSeconds };
}

async function stopHarness(h: Harness): Promise<void> {
  h.executor.close();
  await h.server.close();
}

function graphHttp(h: Harness, query: string, variables: Record<string, unknown>): Omit<LoadSpec, 'durationMs' | 'concurrency' | 'expectedBody'> {
  return {
    port: Number(new URL(h.server.apiUrl).port),
    method: 'POST', path: '/graphql',
    headers: { 'content-type': 'application/json', 'api-key': h.apiKey },
    body: JSON.stringify({ query, variables }),
    expectedStatus: 200,
  };
}

/** `POST /graphql` once, as the load process sends it: the body text. */
async function graphOnce(h: Harness, query: string, variables: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${h.server.apiUrl}/graphql`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'api-key': h.apiKey }, body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST /graphql answered ${res.status}: ${text.slice(0, 500)}`);
  return text;
}

/** What the route sends, before JSON: the validated document executed with a fresh context. */
async function executeDocument(h: Harness, query: string, variables: Record<string, unknown>): Promise<{ data: unknown }> {
  const result = await execute({
    schema: h.schema, document: h.documents.get(query)!, contextValue: new GraphContext(h.services, h.principal, h.origin), variableValues: variables,
  });
  if (result.errors?.length) throw new Error(`execute failed: ${result.errors.map((e) => e.message).join('; ')}`);
  return { data: result.data };
}

/** The route's work without HTTP: execute, then the JSON it sends. */
async function executeToJson(h: Harness, query: string, variables: Record<string, unknown>): Promise<string> {
  return JSON.stringify(await executeDocument(h, query, variables));
}

/** Fails with where two JSON values differ (numbers within the tolerance of parallel sums). */
function sameJson(what: string, got: unknown, expected: unknown): void {
  const difference = jsonDifference(got, expected);
  if (difference) throw new Error(`${what} differ at ${difference}`);
}

type Resolver = (entity: GraphEntity, args: Record<string, never>, ctx: GraphContext) => unknown;

/**
 * The search's answer through the resolvers' functions, as GraphQL would call them for the
 * document (every field of every entity started before any is awaited, so the loaders batch the
 * page's summaries into one query), in the shape of the document's `data`.
 */
async function searchInProcess(h: Harness, query: string): Promise<unknown> {
  const ctx = new GraphContext(h.services, h.principal, h.origin);
  // The schema's default for `sortBy` is [NAME].
  const search = entitySearch(ctx, { query, sortBy: ['NAME'] });
  const [count, page] = await Promise.all([search.count(), search.results({ cursor: null })]);
  const resolvers = entityTypeResolvers.ApmApplicationEntityOutline as Record<string, Resolver>;
  const entities = await Promise.all(page.entities.map(async (entity) => {
    if (entity.kind !== 'apm') throw new Error(`the search found a ${entity.kind} entity; the store has only APM applications`);
    const fields = [...OUTLINE_FIELDS, ...APM_FIELDS];
    const values = await Promise.all(fields.map((f) => resolvers[f]!(entity, {}, ctx)));
    const outline: Record<string, unknown> = Object.fromEntries(fields.map((f, i) => [f, values[i] ?? null]));
    const summary = outline.apmSummary as Record<string, unknown> | null;
    outline.apmSummary = summary === null ? null : Object.fromEntries(SUMMARY_FIELDS.map((f) => [f, summary[f] ?? null]));
    return outline;
  }));
  return { actor: { entitySearch: { count, results: { nextCursor: page.nextCursor, entities } } } };
}

// ── cases ───────────────────────────────────────────────────────────────────────────────────

export interface CaseResult {
  readonly label: CaseLabel;
  readonly title: string;
  readonly request: string;
  /** What was checked before timing. */
  readonly checks: readonly string[];
  readonly responseBytes: number;
  readonly variants: readonly VariantResult[];
  /** In-process requests/s ÷ graph requests/s at 1 and at 8 in flight. */
  readonly ratio1: number | undefined;
  readonly ratio8: number | undefined;
  /**
   * Graph ÷ in-process service CPU per request at 1 in flight: steadier than requests/s on a
   * machine shared with other work, since time spent waiting for a core is not counted.
   */
  readonly cpuRatio1: number | undefined;
  /**
   * Where a request's time goes at 1 in flight, by the differences of medians (latency) and of
   * service CPU per request: HTTP and the route's transport (graph − execute), GraphQL execution
   * and the JSON (execute − in-process), and the work itself (in-process).
   */
  readonly split: { readonly latencyMs: Split; readonly cpuMs: Split } | undefined;
  /** Median ms of `JSON.stringify` of the response (part of `execute ×1`). */
  readonly stringifyMs: number | undefined;
}

export interface Split {
  readonly http: number;
  readonly graphql: number;
  readonly work: number;
}

function caseResult(label: CaseLabel, title: string, request: string, checks: string[], responseBytes: number, variants: VariantResult[], stringify?: number): CaseResult {
  const v = (name: string) => variants.find((x) => x.name === name);
  const ratio = (inProcess: string, graph: string) => {
    const a = v(inProcess)?.rps;
    const b = v(graph)?.rps;
    return a !== undefined && b !== undefined ? a / b : undefined;
  };
  const graph = v('graph ×1');
  const executed = v('execute ×1');
  const inProcess = v('in-process ×1');
  const split = graph && executed && inProcess
    ? {
      latencyMs: { http: graph.p50Ms - executed.p50Ms, graphql: executed.p50Ms - inProcess.p50Ms, work: inProcess.p50Ms },
      cpuMs: {
        http: graph.serviceCpuMsPerRequest - executed.serviceCpuMsPerRequest,
        graphql: executed.serviceCpuMsPerRequest - inProcess.serviceCpuMsPerRequest,
        work: inProcess.serviceCpuMsPerRequest,
      },
    }
    : undefined;
  return {
    label, title, request, checks, responseBytes, variants,
    ratio1: ratio('in-process ×1', 'graph ×1'), ratio8: ratio('in-process ×8', 'graph ×8'),
    cpuRatio1: graph && inProcess ? graph.serviceCpuMsPerRequest / inProcess.serviceCpuMsPerRequest : undefined,
    split, stringifyMs: stringify,
  };
}

const NRQL_CASES: Record<'nrql-count' | 'nrql-facet', (appName: string) => { title: string; nrql: string }> = {
  'nrql-count': (appName) => ({
    title: 'count(*) of one application\'s timeslices, 30 minutes',
    nrql: `SELECT count(*) FROM Metric WHERE appName = '${appName}' SINCE 30 minutes ago`,
  }),
  'nrql-facet': () => ({
    title: 'HttpDispatcher response time FACET appName TIMESERIES, 3 hours',
    nrql: "SELECT average(newrelic.timeslice.value) * 1000 FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' FACET appName SINCE 3 hours ago TIMESERIES",
  }),
};

async function nrqlCase(h: Harness, load: HttpLoad, label: 'nrql-count' | 'nrql-facet', store: NrqlStore, options: GraphBenchOptions): Promise<CaseResult> {
  const appName = h.server.catalog.application(COUNT_APP_ID)?.name;
  if (!appName) throw new Error(`the NRQL store has no application ${COUNT_APP_ID}`);
  const { title, nrql } = NRQL_CASES[label](appName);
  const variables = { accounts: [ACCOUNT_ID], nrql };
  const runOptions = { accountIds: [ACCOUNT_ID], timeoutMs: RESOLVER_TIMEOUT_MS };

  // ── correctness first ──
  const body = await graphOnce(h, NRQL_DOCUMENT, variables);
  const got = JSON.parse(body) as { data?: { actor: { nrql: Record<string, unknown> } }; errors?: unknown };
  if (got.errors || !got.data) throw new Error(`${label}: the graph answered errors: ${body.slice(0, 500)}`);
  const answer = await h.services.nrql.run(nrql, runOptions);
  const inProcess = JSON.parse(JSON.stringify({ results: answer.results, totalResult: answer.totalResult, otherResult: answer.otherResult }));
  sameJson(`${label}: the graph's answer and NrqlEngine.run's`, got.data.actor.nrql, inProcess);
  sameJson(`${label}: execute's JSON and the HTTP body`, JSON.parse(await executeToJson(h, NRQL_DOCUMENT, variables)), got);
  const checks = ['graph answer = NrqlEngine.run answer', 'execute JSON = HTTP body'];
  if (label === 'nrql-count') {
    // Each timeslice is one Metric data point: the count is the store's rows for the app and window.
    const [row] = await h.server.db.all<{ n: bigint }>(
      `SELECT count(*) AS n FROM ${ALL_TIMESLICES} WHERE account_id = ${ACCOUNT_ID} AND app_id = ${COUNT_APP_ID}
       AND ts >= epoch_ms(${store.nowMs - 30 * 60_000}) AND ts < epoch_ms(${store.nowMs})`,
    );
    const counted = (answer.results[0] as Record<string, unknown>)['count'];
    assert.equal(counted, Number(row!.n), `${label}: NRQL counted ${String(counted)}, SQL ${row!.n}`);
    checks.push(`count = hand-written SQL count (${Number(row!.n).toLocaleString('en-US')})`);
  } else {
    const facets = new Set(answer.results.map((r) => r.facet));
    if (facets.size !== 10 || !Array.isArray(answer.totalResult) || answer.otherResult === null) {
      throw new Error(`${label}: expected 10 facets with totals and the rest, got ${facets.size}`);
    }
    checks.push(`10 facets × ${answer.results.length / 10} buckets, totalResult and otherResult`);
  }
  log(`${label}: checked (${checks.join('; ')}); timing…`);

  const http = { ...graphHttp(h, NRQL_DOCUMENT, variables), expectedBody: body };
  const run = () => h.services.nrql.run(nrql, runOptions);
  const variants = await timeVariants(load, [
    { name: 'graph ×1', concurrency: 1, http },
    { name: 'graph ×8', concurrency: 8, http },
    { name: 'execute ×1', concurrency: 1, call: () => executeToJson(h, NRQL_DOCUMENT, variables) },
    { name: 'in-process ×1', concurrency: 1, call: run },
    { name: 'in-process ×8', concurrency: 8, call: run },
  ], options, label);
  return caseResult(label, title, nrql, checks, Buffer.byteLength(body), variants, stringifyMs(await executeDocument(h, NRQL_DOCUMENT, variables)));
}

async function floorCase(h: Harness, load: HttpLoad, options: GraphBenchOptions): Promise<CaseResult> {
  const body = await graphOnce(h, FLOOR_DOCUMENT, {});
  assert.equal(body, JSON.stringify({ data: { requestContext: { userId: String(h.principal.userId) } } }), 'floor: unexpected requestContext');
  assert.equal(await executeToJson(h, FLOOR_DOCUMENT, {}), body, 'floor: execute\'s JSON differs from the HTTP body');
  const port = Number(new URL(h.server.apiUrl).port);
  const health = await (await fetch(`${h.server.apiUrl}/healthz`)).text();
  log('floor: checked; timing…');
  const graph = { ...graphHttp(h, FLOOR_DOCUMENT, {}), expectedBody: body };
  const variants = await timeVariants(load, [
    { name: 'GET /healthz ×1', concurrency: 1, http: { port, method: 'GET', path: '/healthz', headers: {}, expectedStatus: 200, expectedBody: health } },
    { name: 'graph ×1', concurrency: 1, http: graph },
    { name: 'graph ×8', concurrency: 8, http: graph },
    { name: 'execute ×1', concurrency: 1, call: () => executeToJson(h, FLOOR_DOCUMENT, {}) },
  ], options, 'floor');
  return caseResult('floor', 'HTTP and the graph route with no work', `GET /healthz; ${FLOOR_DOCUMENT}`, ['requestContext answers the key\'s user'], Buffer.byteLength(body), variants);
}

async function searchCase(h: Harness, load: HttpLoad, store: EntityStore, options: GraphBenchOptions): Promise<CaseResult> {
  const variables = { query: SEARCH_QUERY };
  const body = await graphOnce(h, SEARCH_DOCUMENT, variables);
  const got = JSON.parse(body) as { data?: { actor: { entitySearch: { count: number; results: { nextCursor: string | null; entities: Record<string, any>[] } } } }; errors?: unknown };
  if (got.errors || !got.data) throw new Error(`entity-search: the graph answered errors: ${body.slice(0, 500)}`);
  sameJson('entity-search: the graph\'s answer and the resolvers\'', got.data, JSON.parse(JSON.stringify(await searchInProcess(h, SEARCH_QUERY))));
  sameJson('entity-search: execute\'s JSON and the HTTP body', JSON.parse(await executeToJson(h, SEARCH_DOCUMENT, variables)), got);

  // What the fixture's plan says: the applications with the word, by name; who reports; how many hosts.
  const matching = store.apps.filter((a) => a.name.split('-').includes(SEARCH_WORD)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const search = got.data.actor.entitySearch;
  assert.equal(search.count, matching.length, 'entity-search: count');
  assert.deepStrictEqual(search.results.entities.map((e) => e.name), matching.slice(0, PAGE_SIZE).map((a) => a.name), 'entity-search: the page');
  assert.equal(search.results.nextCursor !== null, matching.length > PAGE_SIZE, 'entity-search: nextCursor');
  const reporting = matching.slice(0, PAGE_SIZE).filter((a) => a.status === 'reporting').length;
  search.results.entities.forEach((e, i) => {
    const app = matching[i]!;
    assert.equal(e.reporting, app.status === 'reporting', `entity-search: ${app.name} reporting`);
    if (app.status === 'reporting') {
      assert.equal(e.apmSummary?.hostCount, app.hosts.length, `entity-search: ${app.name} hostCount`);
      assert.equal(e.apmSummary?.instanceCount, app.hosts.length, `entity-search: ${app.name} instanceCount`);
      assert.ok(e.apmSummary?.throughput > 0, `entity-search: ${app.name} reports but has no throughput`);
      assert.equal(e.apmSummary.webThroughput === null, app.background, `entity-search: ${app.name} web throughput`);
      assert.equal(e.apmSummary.nonWebThroughput === null, !app.background, `entity-search: ${app.name} background throughput`);
    } else {
      assert.equal(e.apmSummary, null, `entity-search: ${app.name} has a summary but is not reporting`);
    }
  });
  const checks = [
    'graph answer = the resolvers\' answer', 'execute JSON = HTTP body',
    `count ${matching.length}, page of ${PAGE_SIZE} names, nextCursor, reporting (${reporting} of ${PAGE_SIZE}), host and instance counts, web or background throughput as the fixture planned`,
  ];
  log(`entity-search: checked (${checks.join('; ')}); timing…`);

  const http = { ...graphHttp(h, SEARCH_DOCUMENT, variables), expectedBody: body };
  const run = () => searchInProcess(h, SEARCH_QUERY);
  const variants = await timeVariants(load, [
    { name: 'graph ×1', concurrency: 1, http },
    { name: 'graph ×8', concurrency: 8, http },
    { name: 'execute ×1', concurrency: 1, call: () => executeToJson(h, SEARCH_DOCUMENT, variables) },
    { name: 'in-process ×1', concurrency: 1, call: run },
    { name: 'in-process ×8', concurrency: 8, call: run },
  ], options, 'entity-search');
  return caseResult('entity-search', `entitySearch ${SEARCH_QUERY}: count and the first page of ${PAGE_SIZE} with apmSummary`, SEARCH_QUERY, checks, Buffer.byteLength(body), variants, stringifyMs(await executeDocument(h, SEARCH_DOCUMENT, variables)));
}

// ── the benchmark ───────────────────────────────────────────────────────────────────────────

export interface GraphBenchResult {
  readonly date: string;
  readonly machine: MachineFacts;
  /** The load average when the run started (`machine` has it at the end). */
  readonly loadAtStart: readonly number[];
  readonly options: GraphBenchOptions;
  readonly nrqlStore?: { readonly dataDir: string; readonly timeslices: number; readonly events: number; readonly upSeconds: number };
  readonly entityStore?: { readonly dataDir: string; readonly apps: number; readonly reporting: number; readonly timeslices: number; readonly buildSeconds: number | undefined; readonly upSeconds: number };
  readonly cases: readonly CaseResult[];
  readonly totalSeconds: number;
}

function log(message: string): void {
  process.stderr.write(`[graph] ${message}\n`);
}

export async function runGraphBench(options: GraphBenchOptions = DEFAULT_GRAPH_OPTIONS): Promise<GraphBenchResult> {
  const t0 = performance.now();
  const loadAtStart = machineFacts().loadAverage;
  const load = HttpLoad.start();
  const cases: CaseResult[] = [];
  let nrqlStore: GraphBenchResult['nrqlStore'];
  let entityStore: GraphBenchResult['entityStore'];
  try {
    const nrqlLabels = options.cases.filter((c): c is 'nrql-count' | 'nrql-facet' => c === 'nrql-count' || c === 'nrql-facet');
    if (nrqlLabels.length > 0 || options.cases.includes('floor')) {
      const store = await ensureNrqlStore(DEFAULT_NRQL_STORE_SHAPE, { log });
      const config = resolveServeConfig({ host: '127.0.0.1', port: '0', 'collector-port': '0', data: store.dataDir }, {
        ...process.env, TIMESLICE_API_KEY: NRQL_API_KEY, TIMESLICE_COMPACT_EVERY_MS: '0', TIMESLICE_LOG_LEVEL: process.env.TIMESLICE_LOG_LEVEL ?? 'warn',
      });
      const h = await startHarness(config, store.nowMs, NRQL_API_KEY);
      log(`service up on the NRQL store in ${h.upSeconds.toFixed(1)} s`);
      nrqlStore = { dataDir: store.dataDir, timeslices: store.timeslices, events: store.events, upSeconds: h.upSeconds };
      try {
        if (options.cases.includes('floor')) cases.push(await floorCase(h, load, options));
        for (const label of nrqlLabels) cases.push(await nrqlCase(h, load, label, store, options));
      } finally {
        await stopHarness(h);
      }
    }
    if (options.cases.includes('entity-search')) {
      const store = await ensureEntityStore({ apps: options.apps }, { rebuild: options.rebuild, log });
      const h = await startHarness(entityStoreConfig(store.dataDir), store.nowMs, ENTITY_STORE_API_KEY);
      log(`service up on the entity store in ${h.upSeconds.toFixed(1)} s`);
      try {
        const apps = h.server.catalog.applications(ACCOUNT_ID);
        if (apps.length !== store.apps.length) throw new Error(`the entity store holds ${apps.length} applications, expected ${store.apps.length}: run with --rebuild`);
        const reporting = apps.filter((a) => isReporting(h.services.metrics.lastReportedAt({ appId: a.id }), store.nowMs)).length;
        entityStore = { dataDir: store.dataDir, apps: apps.length, reporting, timeslices: store.timeslices, buildSeconds: store.buildSeconds, upSeconds: h.upSeconds };
        cases.push(await searchCase(h, load, store, options));
      } finally {
        await stopHarness(h);
      }
    }
  } finally {
    await load.close();
  }
  return {
    date: new Date().toISOString().slice(0, 10), machine: machineFacts(), loadAtStart, options,
    ...(nrqlStore ? { nrqlStore } : {}), ...(entityStore ? { entityStore } : {}),
    cases, totalSeconds: (performance.now() - t0) / 1000,
  };
}

// ── flags and reporting ─────────────────────────────────────────────────────────────────────

function positiveNumber(values: ReadonlyMap<string, string>, name: string, fallback: number, integer: boolean): number {
  const v = values.get(name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) throw new Error(`--${name} must be a ${integer ? 'whole ' : ''}number above 0, got '${v}'`);
  return n;
}

/** `npm run bench -- graph [--rounds=N] [--warmup=N] [--seconds=S] [--cases=…] [--apps=N] [--rebuild]`. */
export async function graphBench(values: ReadonlyMap<string, string>): Promise<GraphBenchResult> {
  const cases = values.get('cases')?.split(',').filter(Boolean) as CaseLabel[] | undefined;
  const unknown = cases?.filter((c) => !CASE_LABELS.includes(c)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown case ${unknown.join(', ')}; known: ${CASE_LABELS.join(', ')}`);
  const d = DEFAULT_GRAPH_OPTIONS;
  const warmup = values.has('warmup') ? Number(values.get('warmup')) : d.warmup;
  if (!Number.isInteger(warmup) || warmup < 0) throw new Error(`--warmup must be a whole number, got '${values.get('warmup')}'`);
  const result = await runGraphBench({
    rounds: positiveNumber(values, 'rounds', d.rounds, true),
    warmup,
    seconds: positiveNumber(values, 'seconds', d.seconds, false),
    cases: cases ?? d.cases,
    apps: positiveNumber(values, 'apps', d.apps, true),
    rebuild: values.has('rebuild'),
  });
  console.log(formatGraphResult(result));
  return result;
}

const ms = (n: number) => (n < 1 ? n.toFixed(3) : n < 10 ? n.toFixed(2) : n.toFixed(1));
const int = (n: number) => Math.round(n).toLocaleString('en-US');

export function formatGraphResult(r: GraphBenchResult): string {
  const m = r.machine;
  const lines = [
    `Graph API (${r.date}): ${r.options.rounds} rounds of ${r.options.seconds} s per variant after ${r.options.warmup} warm-up, variants interleaved; ${r.totalSeconds.toFixed(0)} s in all`,
    `  machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, DuckDB ${m.duckdb} (@duckdb/node-api ${m.duckdbNodeApi}), load average ${r.loadAtStart.join(' ')} at the start, ${m.loadAverage.join(' ')} at the end`,
  ];
  if (r.nrqlStore) lines.push(`  NRQL store: ${int(r.nrqlStore.timeslices)} timeslices, ${int(r.nrqlStore.events)} Transaction events, ${r.nrqlStore.dataDir} (service up in ${r.nrqlStore.upSeconds.toFixed(1)} s)`);
  if (r.entityStore) {
    const e = r.entityStore;
    lines.push(`  entity store: ${e.apps} applications (${e.reporting} reporting), ${int(e.timeslices)} timeslices, ${e.dataDir}${e.buildSeconds === undefined ? '' : `, built in ${e.buildSeconds.toFixed(0)} s`} (service up in ${e.upSeconds.toFixed(1)} s)`);
  }
  lines.push('');
  for (const c of r.cases) {
    lines.push(`  ${c.label}: ${c.title} (${int(c.responseBytes)} B response)`);
    lines.push(`    ${c.request}`);
    lines.push(`    checked: ${c.checks.join('; ')}`);
    lines.push(`    ${'variant'.padEnd(18)} ${'req/s'.padStart(8)}  ${'(range)'.padEnd(15)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}  ${'service CPU ms/req'.padStart(18)}  ${'client CPU ms/req'.padStart(17)}`);
    for (const v of c.variants) {
      lines.push(`    ${v.name.padEnd(18)} ${int(v.rps).padStart(8)}  ${`(${int(v.rpsMin)}–${int(v.rpsMax)})`.padEnd(15)} ${ms(v.p50Ms).padStart(8)} ${ms(v.p99Ms).padStart(8)}  ${ms(v.serviceCpuMsPerRequest).padStart(18)}  ${(v.overHttp ? ms(v.clientCpuMsPerRequest) : '–').padStart(17)}`);
    }
    if (c.ratio1 !== undefined && c.ratio8 !== undefined && c.cpuRatio1 !== undefined) {
      lines.push(`    ratio in-process ÷ graph (req/s): ×1 ${c.ratio1.toFixed(2)}, ×8 ${c.ratio8.toFixed(2)}; service CPU per request graph ÷ in-process ×1: ${c.cpuRatio1.toFixed(2)}`);
    }
    if (c.split) {
      const parts = (s: Split) => `HTTP + transport ${ms(s.http)}, GraphQL + JSON ${ms(s.graphql)}, work ${ms(s.work)}`;
      lines.push(`    split at ×1, ms: latency medians ${parts(c.split.latencyMs)}; service CPU ${parts(c.split.cpuMs)}`);
    }
    if (c.stringifyMs !== undefined) lines.push(`    JSON.stringify of the response: ${ms(c.stringifyMs)} ms`);
  }
  return lines.join('\n');
}
