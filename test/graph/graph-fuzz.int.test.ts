/**
 * The graph API under generated operations: queries and mutations read off the schema
 * (test/helpers/graph-operation-generator.ts) with valid, broken and hostile values, sent to a
 * real server holding two accounts' data, plus raw HTTP requests (corrupt and compressed bodies,
 * other content types, GET, bad keys). Whatever a client sends, the answer is JSON in GraphQL's
 * envelope with an allowed status, every error carries a documented errorClass and none is
 * INTERNAL_SERVER_ERROR, `data` holds exactly what was selected, and nothing is lost or corrupted:
 * every mutation runs with account 2's key, so account 1 must come out exactly as it went in; a
 * request no mutation answered must leave account 2's stores as they were; every change tracking
 * mutation that answered stored one event holding what was sent, and a refused one none; and a
 * restart must give back what was in memory. The server's error log is captured: any line in it
 * is a defect, reported with the request that caused it. Defects are collected over the whole run
 * and reported together, grouped by kind, with the seed to replay them.
 *
 * Replay with FC_SEED; GRAPH_FUZZ_RUNS changes the size (1500 by default, scaled by TIMESLICE_FUZZ_SCALE).
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import fc from 'fast-check';
import { buildSchema, getArgumentValues, Kind, parse, validate, type FieldNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import pino from 'pino';
import { schemaSdl } from '../../src/api/graphql/graph-schema.js';
import { graph, graphData } from '../helpers/graph-client.js';
import {
  graphOperations, jsonText, rawRequestPlans, resolveDynamic,
  type GeneratedOperation, type GraphFuzzPools, type RawRequestPlan, type ShapeNode,
} from '../helpers/graph-operation-generator.js';
import { ManualClock, startTestServer, TEST_API_KEY } from '../helpers/rest-fixture.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';
import { scaledRuns } from '../helpers/fuzz-scale.js';
import { connect, EXPECTED, handGuid, harvest, httpRequest, loadApmScenario, minute, nearly, NOW, nrqlTime, type ScenarioIds } from './graph-scenario.js';

const SEED = process.env.FC_SEED === undefined ? 20_260_511 : Number(process.env.FC_SEED);
const RUNS = Number(process.env.GRAPH_FUZZ_RUNS ?? scaledRuns(1500));

/** What a client may see: GraphQL answers 200; the transport refuses with these. */
const ALLOWED_STATUSES = new Set([200, 400, 401, 405, 413, 415, 429]);
/** docs/graph-api.md's error classes, without the one that means a bug. */
const DOCUMENTED_CLASSES = new Set(['INVALID_INPUT', 'BAD_USER_INPUT', 'NOT_FOUND', 'FORBIDDEN', 'UNAUTHORIZED', 'TIMEOUT', 'TOO_MANY_REQUESTS']);

/** HttpDispatcher calls of account 1's applications in 14:25–14:27 (graph-scenario.ts): 10 + 6 + 24. */
const CALLS_QUERY = `SELECT count(newrelic.timeslice.value) AS calls FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' SINCE ${nrqlTime(25)} UNTIL ${nrqlTime(27)}`;
const WEB_CALLS = 40;
/** Account 2's HttpDispatcher calls: one harvest of 7 at 14:26. */
const B_CALLS = 7;
/** Change tracking events lie within a day of the clock either way. */
const CHANGE_WINDOW = `SINCE ${NOW - 25 * 3_600_000} UNTIL ${NOW + 25 * 3_600_000}`;

interface LogEntry {
  readonly level: number;
  readonly msg?: string;
  readonly err?: { type?: string; message?: string; stack?: string };
  readonly [key: string]: unknown;
}

/** The server's error log, kept in memory: every entry is looked at. */
const logEntries: LogEntry[] = [];
const logger = pino({ level: 'error' }, { write: (line: string) => void logEntries.push(JSON.parse(line) as LogEntry) }) as unknown as FastifyBaseLogger;

let ts: TestServer;
let schema: GraphQLSchema;
let ids: ScenarioIds;
let accountB: number;
let keyB: string;
/** Every entity made for the run, by account. */
const guidsA: string[] = [];
const guidsB: string[] = [];
/** Change tracking events made in setup in account 2: its deployment. */
const SETUP_EVENTS_B = 1;

async function sendEvents(accountId: number, licenseKey: string, events: readonly Record<string, unknown>[]): Promise<void> {
  const reply = await ts.server.api.inject({
    method: 'POST', url: `/v1/accounts/${accountId}/events`, headers: { 'api-key': licenseKey, 'content-type': 'application/json' }, payload: events,
  });
  assert.equal(reply.statusCode, 200, reply.body);
}

/** Mobile, browser and key transaction entities and a deployment through the graph itself, and their events through the Event API. */
async function loadGraphEntities(key: string, accountId: number, licenseKey: string, apmGuid: string, prefix: string, into: string[]): Promise<void> {
  const made = await graphData(ts, `mutation($a: Int!, $g: EntityGuid!, $m: String!, $b: String!) {
    mobile: agentApplicationCreateMobile(accountId: $a, name: $m) { guid }
    browser: agentApplicationCreateBrowser(accountId: $a, name: $b, settings: {loaderType: SPA}) { guid }
    side: agentApplicationEnableApmBrowser(guid: $g) { name }
    kt: keyTransactionCreate(applicationGuid: $g, name: "Checkout", metricName: "WebTransaction/Expressjs/GET//checkout", apdexTarget: 0.5, browserApdexTarget: 2) { guid }
    deployment: changeTrackingCreateDeployment(deployment: {entityGuid: $g, version: "1.2.3", user: "ana", timestamp: ${NOW - 3_600_000}}) { deploymentId }
  }`, { a: accountId, g: apmGuid, m: `${prefix}-ios`, b: `${prefix}-site` }, { key });
  into.push(made.mobile.guid, made.browser.guid, made.kt.guid);
  const side = ts.server.entities.browserApplications.list(accountId).find((b) => b.apmApplicationId !== null);
  into.push(handGuid(accountId, 'BROWSER|APPLICATION', side!.id));
  const at = (m: number) => Date.UTC(2024, 2, 5, 14, m);
  await sendEvents(accountId, licenseKey, [
    { eventType: 'Mobile', appName: `${prefix}-ios`, category: 'Session', sessionId: 's1', deviceUuid: 'd1', timestamp: at(25) },
    { eventType: 'Mobile', appName: `${prefix}-ios`, category: 'Crash', sessionId: 's1', deviceUuid: 'd1', timestamp: at(26) },
    { eventType: 'MobileRequest', appName: `${prefix}-ios`, responseTime: 0.25, statusCode: 200, timestamp: at(27) },
    { eventType: 'PageView', appName: `${prefix}-site`, duration: 1.5, pageUrl: 'https://shop.example/', timestamp: at(28) },
    { eventType: 'AjaxRequest', appName: `${prefix}-site`, timeToLoadEventStart: 0.2, httpResponseCode: 200, timestamp: at(28) },
    { eventType: 'PageView', appName: side!.name, duration: 0.9, pageUrl: 'https://shop.example/cart', timestamp: at(29) },
  ]);
}

before(async () => {
  const clock = new ManualClock(NOW);
  ts = await startTestServer({ TIMESLICE_LOG_LEVEL: 'error' }, { clock, logger });
  schema = buildSchema(schemaSdl());
  ids = await loadApmScenario(ts, clock);
  guidsA.push(handGuid(1, 'APM|APPLICATION', ids.webShop), handGuid(1, 'APM|APPLICATION', ids.batchWorker), handGuid(1, 'APM|APPLICATION', ids.staleApp));
  await loadGraphEntities(TEST_API_KEY, 1, TEST_LICENSE_KEY, guidsA[0]!, 'shop', guidsA);

  const b = await ts.server.catalog.createAccount('Second');
  accountB = b.id;
  keyB = await ts.server.catalog.createUserKey(accountB);
  const licenseB = await ts.server.catalog.createLicenseKey(accountB);
  // Both of B's applications keep reporting (the clock stands still), so neither can be deleted.
  const api = await connect(ts, 'b-api', { host: 'b-host', pid: 700, licenseKey: licenseB });
  await harvest(ts, api.runId, minute(26), minute(27), [['HttpDispatcher', '', [B_CALLS, 0.7, 0.7, 0.05, 0.2, 0.09]], ['Apdex', '', [5, 1, 1, 0.5, 0.5, 0]]], licenseB);
  const worker = await connect(ts, 'b-worker', { host: 'b-host', pid: 701, licenseKey: licenseB });
  await harvest(ts, worker.runId, minute(27), minute(28), [['OtherTransaction/all', '', [3, 0.9, 0.9, 0.2, 0.4, 0.3]]], licenseB);
  guidsB.push(handGuid(accountB, 'APM|APPLICATION', api.appId), handGuid(accountB, 'APM|APPLICATION', worker.appId));
  await loadGraphEntities(keyB, accountB, licenseB, guidsB[0]!, 'b', guidsB);
});
after(async () => {
  await ts?.stop();
});

// --- Snapshots ---------------------------------------------------------------------------------------

/** An account's records in the stores, as plain JSON. */
function storeState(accountId: number): string {
  const byId = <T extends { id: number }>(items: readonly T[]) => [...items].sort((x, y) => x.id - y.id);
  return JSON.stringify({
    account: ts.server.catalog.account(accountId),
    applications: byId(ts.server.catalog.applications(accountId)),
    browser: byId(ts.server.entities.browserApplications.list(accountId)),
    mobile: byId(ts.server.entities.mobileApplications.list(accountId)),
    keyTransactions: byId(ts.server.entities.keyTransactions.list(accountId)),
  });
}

/** Which records differ between two `storeState`s: `mobile 3 changed`, `browser 7 added`. */
function storeChanges(before: string, after: string): string {
  const was = JSON.parse(before) as Record<string, unknown>;
  const now = JSON.parse(after) as Record<string, unknown>;
  const changes: string[] = [];
  for (const [kind, list] of Object.entries(now)) {
    if (!Array.isArray(list)) {
      if (JSON.stringify(list) !== JSON.stringify(was[kind])) changes.push(`${kind} changed`);
      continue;
    }
    const old = new Map((was[kind] as { id: number }[]).map((r) => [r.id, JSON.stringify(r)]));
    for (const record of list as { id: number }[]) {
      const previous = old.get(record.id);
      if (previous === undefined) changes.push(`${kind} ${record.id} added`);
      else if (previous !== JSON.stringify(record)) changes.push(`${kind} ${record.id} changed: ${previous.slice(0, 300)} → ${JSON.stringify(record).slice(0, 300)}`);
      old.delete(record.id);
    }
    for (const id of old.keys()) changes.push(`${kind} ${id} removed`);
  }
  return changes.join('; ');
}

/** Everything the graph shows of an account's entities, settings, summaries and events. */
async function graphState(key: string, accountId: number, guids: readonly string[]): Promise<unknown> {
  return graphData(ts, `query($g: [EntityGuid]!, $a: Int!, $q: String!) { actor {
    entities(guids: $g) { guid name accountId domain type entityType reporting permalink alertSeverity indexedAt lastReportingChangeAt tags { key values }
      ... on ApmApplicationEntity { applicationId language settings { apdexTarget serverSideConfig } runningAgentVersions { minVersion maxVersion }
        apmSettings { alias originalName apdexTarget useServerSideConfig apmConfig { apdexTarget useServerSideConfig } captureMemcacheKeys tracerType
          errorCollector { enabled expectedErrorClasses expectedErrorCodes ignoredErrorClasses ignoredErrorCodes } jfr { enabled } slowSql { enabled } threadProfiler { enabled }
          applicationLogging { enabled forwarding { enabled maxSamplesStored } localDecorating { enabled } metrics { enabled } }
          transactionTracer { enabled explainEnabled explainThresholdType explainThresholdValue logSql recordSql stackTraceThreshold transactionThresholdType transactionThresholdValue } }
        apmSummary { apdexScore errorRate throughput responseTimeAverage hostCount instanceCount webThroughput nonWebThroughput }
        apmBrowserSummary { pageLoadThroughput pageLoadTimeAverage }
        deployments { revision user timestamp changelog description }
        deploymentSearch { results { deploymentId version user timestamp deploymentType entityGuid } } }
      ... on BrowserApplicationEntity { applicationId servingApmApplicationId agentInstallType settings { apdexTarget }
        browserProperties { jsConfig jsLoaderScript }
        browserSettings { browserConfig { apdexTarget } sessionReplay { enabled samplingRate errorSamplingRate } sessionTrace { enabled samplingRate errorSamplingRate }
          browserMonitoring { loader pinnedVersion privacy { cookiesEnabled } ajax { denyList }
            distributedTracing { enabled allowedOrigins corsEnabled corsUseNewrelicHeader corsUseTracecontextHeaders excludeNewrelicHeader } } }
        browserSummary { pageLoadThroughput pageLoadTimeAverage pageLoadTimeMedian ajaxRequestThroughput ajaxResponseTimeAverage } }
      ... on MobileApplicationEntity { applicationId mobileProperties { applicationToken }
        mobileSettings { useCrashReports applicationExitInfo { enabled }
          networkSettings { filterMode hideList showList aliases { alias hosts } ignoredStatusCodeRules { hosts statusCodes } } }
        mobileSummary { appLaunchCount crashCount crashRate mobileSessionCount httpRequestCount httpResponseTimeAverage } }
      ... on KeyTransactionEntity { apdexTarget browserApdexTarget metricName application { guid } }
    }
    entitySearch(query: $q) { count types { domain type count } results { entities { guid name } } }
    account(id: $a) { name
      events: nrql(query: "SELECT count(*), uniqueCount(changeTrackingId) FROM ChangeTrackingEvent, Mobile, PageView FACET eventType() ${CHANGE_WINDOW} LIMIT MAX") { results }
      calls: nrql(query: "SELECT count(newrelic.timeslice.value) FROM Metric FACET appName, metricTimesliceName SINCE ${nrqlTime(0)} UNTIL ${nrqlTime(30)} LIMIT MAX") { results } }
  } }`, { g: guids, a: accountId, q: `accountId = ${accountId}` }, { key });
}

/** The GUIDs of every entity an account has now. */
function accountGuids(accountId: number): string[] {
  const { browserApplications, mobileApplications, keyTransactions } = ts.server.entities;
  return [
    ...ts.server.catalog.applications(accountId).map((a) => handGuid(accountId, 'APM|APPLICATION', a.id)),
    ...browserApplications.list(accountId).map((a) => handGuid(accountId, 'BROWSER|APPLICATION', a.id)),
    ...mobileApplications.list(accountId).map((a) => handGuid(accountId, 'MOBILE|APPLICATION', a.id)),
    ...keyTransactions.list(accountId).map((a) => handGuid(accountId, 'APM|KEY_TRANSACTION', a.id)),
  ];
}

/**
 * The state without `lastReportingChangeAt`: in memory it follows when data arrived, after a
 * restart the end of the last minute stored (the store keeps no arrival times), by design.
 */
function acrossRestart(state: unknown): unknown {
  return JSON.parse(JSON.stringify(state, (key, value) => (key === 'lastReportingChangeAt' ? undefined : value)));
}

/** Account 2's change tracking events as NRQL reads them, by id. */
async function changeEvents(): Promise<Map<string, Record<string, unknown>>> {
  const data = await graphData(ts, 'query($a: Int!, $q: Nrql!) { actor { account(id: $a) { nrql(query: $q) { results } } } }',
    { a: accountB, q: `SELECT * FROM ChangeTrackingEvent ${CHANGE_WINDOW} LIMIT MAX` }, { key: keyB });
  return new Map((data.actor.account.nrql.results as Record<string, unknown>[]).map((row) => [String(row.changeTrackingId), row]));
}

/** The arguments a root field was sent with, as the server read them (variables as JSON carried them). */
function sentArguments(text: string, operationName: string | undefined, variables: unknown, responseKey: string): Record<string, any> | undefined {
  const operations = parse(text).definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName === undefined ? operations[0] : operations.find((o) => o.name?.value === operationName);
  const node = operation?.selectionSet.selections.find((s): s is FieldNode => s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === responseKey);
  const definition = node && schema.getMutationType()!.getFields()[node.name.value];
  return node && definition ? getArgumentValues(definition, node, (variables ?? {}) as Record<string, unknown>) : undefined;
}

/**
 * The attributes a change tracking mutation must have stored: its text fields as sent (up to the
 * 4096-character limit; empty text is not stored) and its custom attributes.
 */
function sentAttributes(field: string, args: Record<string, any>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const text = (name: string, value: unknown) => {
    if (typeof value === 'string' && value !== '' && [...value].length <= 4096) out[name] = value;
  };
  const deployment = field === 'changeTrackingCreateDeployment';
  const input = (deployment ? args.deployment : args.changeTrackingEvent) ?? {};
  if (deployment) {
    for (const name of ['version', 'changelog', 'commit', 'deepLink', 'description', 'user', 'groupId']) text(name, input[name]);
  } else {
    for (const name of ['description', 'shortDescription', 'user', 'groupId']) text(name, input[name]);
    const fields = input.categoryAndTypeData?.categoryFields;
    for (const name of ['version', 'changelog', 'commit', 'deepLink']) text(name, fields?.deployment?.[name]);
    text('featureFlagId', fields?.featureFlag?.featureFlagId);
  }
  for (const [name, value] of Object.entries(input.customAttributes ?? {})) {
    if (typeof value === 'string') text(`customAttributes.${name}`, value);
    else if (typeof value === 'number' || typeof value === 'boolean') out[`customAttributes.${name}`] = value;
  }
  return out;
}

/**
 * Change tracking events an operation made, against what it sent: one new event per mutation that
 * answered, each holding what was sent, and none for a refusal.
 */
function storedEventProblems(sent: readonly { field: string; attributes: Record<string, unknown> }[], added: Record<string, unknown>[]): string[] {
  if (added.length !== sent.length) return [`${sent.length} change tracking mutation(s) answered, ${added.length} event(s) were stored`];
  const problems: string[] = [];
  const left = [...added];
  for (const { field, attributes } of sent) {
    const at = left.findIndex((row) => Object.entries(attributes).every(([name, value]) => row[name] === value));
    if (at >= 0) {
      left.splice(at, 1);
      continue;
    }
    const row = left[0]!;
    const differing = Object.entries(attributes).filter(([name, value]) => row[name] !== value)
      .map(([name, value]) => `${name}: sent ${JSON.stringify(value).slice(0, 60)}, stored ${JSON.stringify(row[name] ?? null).slice(0, 60)}`);
    problems.push(`${field} did not store what was sent (${differing.join('; ')})`);
  }
  return problems;
}

async function changeEventCount(key: string, accountId: number): Promise<number> {
  const data = await graphData(ts, `{ actor { account(id: ${accountId}) { nrql(query: "SELECT uniqueCount(changeTrackingId) AS n FROM ChangeTrackingEvent ${CHANGE_WINDOW}") { results } } } }`, undefined, { key });
  return data.actor.account.nrql.results[0].n;
}

// --- Checking answers ------------------------------------------------------------------------------

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly body: any;
}

/** Problems of one answer; empty when it is as the contract says. */
function problemsOf(answer: Answer, op: GeneratedOperation | undefined, locallyValid: boolean | undefined): string[] {
  const problems: string[] = [];
  if (!ALLOWED_STATUSES.has(answer.status)) problems.push(`status ${answer.status}`);
  const body = answer.body;
  if (body === undefined) return [...problems, 'the body is not JSON'];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [...problems, 'the body is not a JSON object'];
  const errors = body.errors;
  if (errors !== undefined) {
    if (!Array.isArray(errors) || errors.length === 0) problems.push('errors is not a non-empty list');
    for (const e of Array.isArray(errors) ? errors : []) {
      if (typeof e?.message !== 'string' || e.message === '') problems.push('an error without a message');
      const errorClass = e?.extensions?.errorClass;
      if (errorClass === 'INTERNAL_SERVER_ERROR') problems.push(`INTERNAL_SERVER_ERROR at ${JSON.stringify(e.path ?? null)}`);
      else if (!DOCUMENTED_CLASSES.has(errorClass)) problems.push(`errorClass ${JSON.stringify(errorClass)}: ${e?.message}`);
    }
  }
  if (answer.status !== 200) {
    if (body.data !== undefined) problems.push(`data with status ${answer.status}`);
    if (errors === undefined) problems.push(`status ${answer.status} without errors`);
    return problems;
  }
  if (body.data === undefined && errors === undefined) problems.push('neither data nor errors');
  if (op && locallyValid === false && body.data !== undefined) problems.push('an invalid document answered with data');
  if (op && body.data !== undefined && body.data !== null) {
    const keys = Object.keys(body.data).sort();
    const expected = Object.keys(op.topLevel).sort();
    if (JSON.stringify(keys) !== JSON.stringify(expected)) problems.push(`data has ${JSON.stringify(keys)}, selected ${JSON.stringify(expected)}`);
    shapeProblems(body.data, [op.shape], 'data', problems);
  }
  return problems;
}

/** Every object in the answer has the keys its selection set asks for, and no others. */
function shapeProblems(value: unknown, nodes: readonly ShapeNode[], path: string, problems: string[]): void {
  if (value === null || value === undefined || problems.length > 5) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => shapeProblems(item, nodes, `${path}[${i}]`, problems));
    return;
  }
  if (typeof value !== 'object') return;
  const always = new Set(nodes.flatMap((n) => [...n.always]));
  const allowed = new Set([...always, ...nodes.flatMap((n) => [...n.sometimes])]);
  const keys = Object.keys(value);
  for (const key of keys) if (!allowed.has(key)) problems.push(`${path}.${key} was not selected`);
  for (const key of always) if (!keys.includes(key)) problems.push(`${path}.${key} is missing`);
  for (const key of keys) {
    const children = nodes.flatMap((n) => n.children.get(key) ?? []);
    if (children.length > 0) shapeProblems((value as Record<string, unknown>)[key], children, `${path}.${key}`, problems);
  }
}

function locallyValid(text: string): boolean {
  try {
    return validate(schema, parse(text)).length === 0;
  } catch {
    return false;
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Values for later operations found anywhere in an answer: cursors (also by paged search, under
 * `page<n>_…` keys), GUIDs and async query ids.
 */
/** Paged searches that followed a cursor and got a page: the cursor was a real one, read back. */
function followedCursors(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, item) => n + followedCursors(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  return Object.entries(value).reduce((n, [k, v]) =>
    n + (/^page\d+_c/.test(k) && (v as { results?: unknown } | null)?.results ? 1 : followedCursors(v)), 0);
}

function harvestValues(value: unknown, pools: Record<string, string[]>, key?: string, page?: string): void {
  if (Array.isArray(value)) {
    for (const item of value) harvestValues(item, pools, key, page);
    return;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) harvestValues(v, pools, k, /^page(\d+)_/.exec(k)?.[1] ?? page);
    return;
  }
  if (typeof value !== 'string' || key === undefined) return;
  const add = (name: string) => {
    const pool = (pools[name] ??= []);
    if (!pool.includes(value) && pool.length < 200) pool.push(value);
  };
  if (key === 'nextCursor') {
    add('cursor');
    if (page !== undefined) add(`cursor${page}`);
  } else if (key === 'guid' || key === 'entityGuid') add('guid');
  else if (key === 'queryId') add('queryId');
}

// --- The run ---------------------------------------------------------------------------------------

interface Defect {
  readonly problems: readonly string[];
  readonly request: string;
  readonly status: number;
  readonly response: string;
  readonly log: readonly string[];
}

type Job =
  | { readonly kind: 'query'; readonly key: string; readonly op: GeneratedOperation }
  | { readonly kind: 'mutation'; readonly op: GeneratedOperation }
  | { readonly kind: 'raw'; readonly plan: RawRequestPlan; readonly op: GeneratedOperation; readonly key: string };

describe(`${RUNS} generated graph requests (seed ${SEED})`, () => {
  it('answer in the envelope with documented error classes, never a 500, and lose or corrupt nothing', async (t) => {
    const own = (accountId: number): GraphFuzzPools => ({
      ownAccountId: accountId,
      otherAccountId: accountId === 1 ? accountB : 1,
      ownGuids: accountId === 1 ? guidsA : guidsB,
      otherGuids: accountId === 1 ? guidsB : guidsA,
      nrql: [
        CALLS_QUERY, 'SELECT count(*) FROM Metric SINCE 1 hour ago', "SELECT average(duration) FROM PageView FACET appName SINCE 1 hour ago",
        'SELECT count(*) FROM Mobile FACET category TIMESERIES 5 minutes SINCE 1 hour ago', 'SHOW EVENT TYPES SINCE 1 day ago',
        `SELECT * FROM ChangeTrackingEvent ${CHANGE_WINDOW}`, "SELECT uniques(appName) FROM Metric SINCE 1 day ago",
        "SELECT sum(newrelic.timeslice.value) FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' FACET appName SINCE 1 hour ago COMPARE WITH 1 hour ago",
        'SELECT percentile(duration, 50, 95) FROM PageView SINCE 1 hour ago', 'SELECT latest(timestamp), earliest(timestamp) FROM MobileRequest SINCE 1 hour ago',
        "SELECT apdex(newrelic.timeslice.value) FROM Metric WHERE metricTimesliceName = 'Apdex' SINCE 1 hour ago",
      ],
      appNames: ['web-shop', 'batch-worker', 'stale-app', 'shop-ios', 'shop-site', 'b-api', 'b-worker', 'b-ios', 'b-site', 'Checkout'],
      metricNames: ['HttpDispatcher', 'WebTransaction/Expressjs/GET//checkout', 'OtherTransaction/all', 'Apdex', 'Errors/all'],
      nowMs: NOW,
    });
    const sizes = { queryA: Math.round(RUNS * 0.52), queryB: Math.round(RUNS * 0.1), mutation: Math.round(RUNS * 0.28) };
    const rawCount = RUNS - sizes.queryA - sizes.queryB - sizes.mutation;
    const jobs: Job[] = [
      ...fc.sample(graphOperations(schema, own(1), { root: 'query' }), { numRuns: sizes.queryA, seed: SEED }).map((op): Job => ({ kind: 'query', key: TEST_API_KEY, op })),
      ...fc.sample(graphOperations(schema, own(accountB), { root: 'query' }), { numRuns: sizes.queryB, seed: SEED + 1 }).map((op): Job => ({ kind: 'query', key: keyB, op })),
      ...fc.sample(graphOperations(schema, own(accountB), { root: 'mutation' }), { numRuns: sizes.mutation, seed: SEED + 2 }).map((op): Job => ({ kind: 'mutation', op })),
      ...fc.sample(fc.tuple(rawRequestPlans(TEST_API_KEY), rawRequestPlans(keyB), graphOperations(schema, own(accountB), { root: 'mutation' }), graphOperations(schema, own(1), { root: 'query' }), fc.boolean()),
        { numRuns: rawCount, seed: SEED + 3 })
        .map(([planA, planB, mutation, query, useB]): Job => (useB ? { kind: 'raw', plan: planB, op: mutation, key: keyB } : { kind: 'raw', plan: planA, op: query, key: TEST_API_KEY })),
    ];
    // Interleaved, so that queries see what mutations made and mutations use what queries found.
    const random = seededRandom(SEED);
    const order = jobs.map((job) => ({ job, at: random() })).sort((x, y) => x.at - y.at).map((x) => x.job);

    const beforeA = { store: storeState(1), graph: await graphState(TEST_API_KEY, 1, guidsA) };
    assert.equal(await changeEventCount(keyB, accountB), SETUP_EVENTS_B);
    let eventsB = await changeEvents();

    const dynamic: Record<string, string[]> = { cursor: [], guid: [], queryId: [] };
    const outcomes = new Map<string, number>();
    const count = (name: string) => outcomes.set(name, (outcomes.get(name) ?? 0) + 1);
    const defects: Defect[] = [];
    let createdEventsB = 0;
    const started = performance.now();
    let slowest = { ms: 0, request: '' };

    for (const job of order) {
      const key = job.kind === 'mutation' ? keyB : job.key;
      dynamic.ownGuid = accountGuids(key === keyB ? accountB : 1);
      const { text, variables, usedDynamic } = resolveDynamic(job.op, dynamic);
      if (usedDynamic) count('usedDynamicValue');
      const valid = locallyValid(text);
      const json = jsonText({ query: text, ...(variables ? { variables } : {}), ...(job.op.operationName !== undefined ? { operationName: job.op.operationName } : {}) });
      const logMark = logEntries.length;
      const stores = { a: storeState(1), b: storeState(accountB) };
      const t0 = performance.now();
      let answer: Answer;
      let request: string;
      if (job.kind === 'raw') {
        const variablesJson = variables === undefined ? undefined : jsonText(variables);
        const path = job.plan.path(text, variablesJson);
        const body = job.plan.body(json, text);
        request = `${job.plan.method} ${path.slice(0, 300)} (${job.plan.label}) headers ${JSON.stringify(job.plan.headers).slice(0, 200)} body ${body === undefined ? 'none' : JSON.stringify(body.subarray(0, 400).toString('latin1'))}${body && body.length > 400 ? ` … (${body.length} bytes)` : ''}`;
        const reply = await httpRequest(ts, { method: job.plan.method, path, headers: { ...job.plan.headers }, ...(body ? { body } : {}) });
        answer = { status: reply.status, text: reply.text, body: parsed(reply.text) };
        count(`raw:${reply.status}`);
      } else {
        request = `${job.kind} with ${key === keyB ? "account 2's" : "account 1's"} key: ${json.length > 3000 ? `${json.slice(0, 3000)} … (${json.length} characters)` : json}`;
        if (job.op.operationName === undefined && !job.op.hasRawNumbers) {
          // As clients send it, through the shared helper, which fails on a body that is not JSON:
          // a query is then sent again to see the body; a mutation is not repeated.
          try {
            const reply = await graph(ts, text, variables, { key });
            answer = { status: reply.status, text: JSON.stringify(reply.body), body: reply.body };
          } catch (error) {
            if (job.kind === 'mutation') answer = { status: 0, text: `the answer is not JSON (${String(error)})`, body: undefined };
            else {
              const res = await ts.server.api.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', 'api-key': key }, payload: json });
              answer = { status: res.statusCode, text: res.body, body: parsed(res.body) };
            }
          }
        } else {
          const res = await ts.server.api.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', 'api-key': key }, payload: json });
          answer = { status: res.statusCode, text: res.body, body: parsed(res.body) };
        }
      }
      const ms = performance.now() - t0;
      if (ms > slowest.ms) slowest = { ms, request: request.slice(0, 300) };

      const problems = problemsOf(answer, job.kind === 'raw' ? undefined : job.op, job.kind === 'raw' ? undefined : valid);
      const logged = logEntries.slice(logMark);
      if (logged.length > 0) problems.push(`the server logged ${logged.length} error(s)`);
      // Only a mutation that answered may have changed anything, and only in account 2.
      const data = answer.status === 200 && job.op.root === 'mutation' ? answer.body?.data ?? {} : {};
      const succeeded = Object.entries(job.op.topLevel).filter(([k]) => data[k] !== null && data[k] !== undefined);
      const nowA = storeState(1);
      if (nowA !== stores.a) problems.push(`account 1's stores changed: ${storeChanges(stores.a, nowA)}`);
      const nowB = storeState(accountB);
      if (succeeded.length === 0 && nowB !== stores.b) problems.push(`a request no mutation answered changed account 2's stores: ${storeChanges(stores.b, nowB)}`);
      const sentEvents: { field: string; attributes: Record<string, unknown> }[] = [];
      for (const [responseKey, field] of succeeded) {
        count(`mutation:${field}`);
        if (field === 'changeTrackingCreateEvent' || field === 'changeTrackingCreateDeployment') {
          createdEventsB++;
          const args = sentArguments(text, job.op.operationName, variables && JSON.parse(jsonText(variables)), responseKey);
          sentEvents.push({ field, attributes: args ? sentAttributes(field, args) : {} });
        }
      }
      if (job.op.root === 'mutation') {
        const now = await changeEvents();
        problems.push(...storedEventProblems(sentEvents, [...now].filter(([id]) => !eventsB.has(id)).map(([, row]) => row)));
        eventsB = now;
      }
      if (problems.length > 0) {
        defects.push({
          problems, request, status: answer.status, response: answer.text.slice(0, 1500),
          log: logged.map((e) => `${e.msg}: ${e.err?.stack ?? e.err?.message ?? JSON.stringify(e).slice(0, 500)}`),
        });
      }

      const body = answer.body;
      if (answer.status !== 200) count(`status:${answer.status}`);
      else if (body?.data === undefined) count('requestError');
      else if (body.errors) count('partial');
      else count('data');
      if (job.kind !== 'raw' && !valid) count('locallyInvalid');
      for (const feature of job.op.features) count(`uses:${feature}`);
      for (const e of Array.isArray(body?.errors) ? body.errors : []) count(`class:${e?.extensions?.errorClass}`);
      if (body?.data) {
        harvestValues(body.data, dynamic);
        for (let n = followedCursors(body.data); n > 0; n--) count('followedCursor');
      }
    }
    const elapsed = performance.now() - started;
    const summary = Object.fromEntries([...outcomes].sort(([a], [b]) => a.localeCompare(b)));
    t.diagnostic(`seed ${SEED}: ${order.length} requests in ${(elapsed / 1000).toFixed(1)} s (slowest ${slowest.ms.toFixed(0)} ms: ${slowest.request})`);
    t.diagnostic(`outcomes ${JSON.stringify(summary)}; harvested ${dynamic.cursor!.length} cursors, ${dynamic.guid!.length} GUIDs, ${dynamic.queryId!.length} query ids`);

    // After the run (and again after a restart): the server answers the known query with the known
    // numbers; account 1, which only ever saw account 2's key in mutations, is exactly as it was;
    // every change tracking event a mutation said it made is stored, and no other; what was in memory
    // is what was written.
    const stateFailures: string[] = [];
    const check = async (label: string, body: () => Promise<void> | void) => {
      try {
        await body();
      } catch (error) {
        stateFailures.push(`${label}: ${error instanceof Error ? error.message.slice(0, 2000) : String(error)}`);
      }
    };
    const knownAnswers = async () => {
      const known = await graphData(ts, `{ actor { account(id: 1) { nrql(query: ${JSON.stringify(CALLS_QUERY)}) { results } } entity(guid: "${guidsA[0]}") {
        ... on ApmApplicationEntity { apmSummary { apdexScore errorRate hostCount instanceCount responseTimeAverage throughput } } } } }`);
      assert.deepEqual(known.actor.account.nrql.results, [{ calls: WEB_CALLS }]);
      const knownB = await graphData(ts, `{ actor { account(id: ${accountB}) { nrql(query: ${JSON.stringify(CALLS_QUERY)}) { results } } } }`, undefined, { key: keyB });
      assert.deepEqual(knownB.actor.account.nrql.results, [{ calls: B_CALLS }]);
      for (const [field, value] of Object.entries(known.actor.entity.apmSummary)) {
        assert.ok(nearly(value, EXPECTED.webShop[field as keyof typeof EXPECTED.webShop]), `web-shop ${field}: ${String(value)}`);
      }
    };
    await check('the known query', knownAnswers);
    await check("account 1's stores", () => assert.deepEqual(JSON.parse(storeState(1)), JSON.parse(beforeA.store)));
    await check("account 1's entities", async () => assert.deepEqual(await graphState(TEST_API_KEY, 1, guidsA), beforeA.graph));
    await check("account 2's change tracking events", async () => assert.equal(await changeEventCount(keyB, accountB), SETUP_EVENTS_B + createdEventsB));
    // `entities` takes at most 25.
    const guidsNowB = accountGuids(accountB).slice(0, 25);
    const beforeRestart = { a: storeState(1), b: storeState(accountB), graphB: await graphState(keyB, accountB, guidsNowB).catch((e: Error) => e.message) };
    await ts.restart();
    await check('the known query after a restart', knownAnswers);
    await check('account 1 after a restart', () => assert.deepEqual(JSON.parse(storeState(1)), JSON.parse(beforeRestart.a)));
    await check('account 2 after a restart', () => assert.deepEqual(JSON.parse(storeState(accountB)), JSON.parse(beforeRestart.b)));
    await check("account 1's entities after a restart", async () => assert.deepEqual(acrossRestart(await graphState(TEST_API_KEY, 1, guidsA)), acrossRestart(beforeA.graph)));
    await check("account 2's entities after a restart", async () =>
      assert.deepEqual(acrossRestart(await graphState(keyB, accountB, guidsNowB).catch((e: Error) => e.message)), acrossRestart(beforeRestart.graphB)));

    // The run tested something: valid reads answered, invalid documents were refused, resolvers
    // refused values, mutations went through, real cursors were followed. Each floor is about half
    // the least that ten seeds gave.
    const at = (name: string) => outcomes.get(name) ?? 0;
    const sum = (prefix: string) => Object.keys(summary).filter((k) => k.startsWith(prefix)).reduce((s, k) => s + at(k), 0);
    const floor = (share: number) => Math.floor(RUNS * share);
    const floors: [string, number, number][] = [
      ['answered with data alone', at('data'), floor(0.2)],
      ['answered with data and resolver errors', at('partial'), floor(0.2)],
      ['refused before running (parse, validation, variables)', at('requestError'), floor(0.1)],
      ['NOT_FOUND errors', at('class:NOT_FOUND'), floor(0.05)],
      ['FORBIDDEN errors', at('class:FORBIDDEN'), floor(0.04)],
      ['mutations that went through', sum('mutation:'), floor(0.04)],
      ['change tracking events made', at('mutation:changeTrackingCreateEvent') + at('mutation:changeTrackingCreateDeployment'), floor(0.003)],
      ['transport refusals (4xx)', sum('status:4'), floor(0.025)],
      ['cursors of earlier answers followed', at('followedCursor'), floor(0.006)],
      ['operations with values of earlier answers', at('usedDynamicValue'), floor(0.15)],
    ];
    const tooFew = floors.filter(([, got, least]) => got < least).map(([what, got, least]) => `too few ${what}: ${got} < ${least}`);

    if (defects.length > 0 || stateFailures.length > 0 || tooFew.length > 0) {
      const bySignature = new Map<string, Defect[]>();
      for (const d of defects) {
        // The same fault under other aliases and paths is one kind.
        const signature = d.log[0]?.split('\n')[0] ?? d.problems[0]!.replace(/ at \[.*\]$| \(.*\)$|: .*$/, '').replace(/\d+/g, 'N');
        bySignature.set(signature, [...(bySignature.get(signature) ?? []), d]);
      }
      const report = [...bySignature].map(([signature, list]) => {
        const d = list[0]!;
        return `■ ${list.length}× ${signature}\n  problems: ${d.problems.join('; ')}\n  request: ${d.request}\n  status ${d.status}: ${d.response}\n  log:\n    ${d.log.join('\n    ').slice(0, 3000)}`;
      });
      assert.fail(`seed ${SEED} (replay with FC_SEED=${SEED}): ${defects.length} requests broke the contract, ${bySignature.size} kinds:\n${report.join('\n')}` +
        (stateFailures.length > 0 ? `\nafter the run:\n${stateFailures.join('\n')}` : '') +
        (tooFew.length > 0 ? `\nthe run tested too little:\n${tooFew.join('\n')}\n${JSON.stringify(summary)}` : ''));
    }
  });
});
