import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ManualClock, startTestServer, TEST_API_KEY } from '../helpers/rest-fixture.js';
import { repoRoot } from '../helpers/samples.js';
import type { TestServer } from '../helpers/test-server.js';
import { connect, EXPECTED, handGuid, harvest, httpRequest, loadApmScenario, minute, nearly, NOW, nrqlTime, type ScenarioIds } from './graph-scenario.js';

/*
 * The graph API as real clients use it: the documents newrelic-client-go (behind newrelic-cli and
 * the terraform provider) and New Relic's own docs send, replayed verbatim from
 * test/golden/graph/clients/ (each file names its source repository, path and commit) over real
 * HTTP, with the variables, headers and gzip bodies those clients send, against the APM scenario
 * of graph-scenario.ts plus a few applications named as the docs name theirs.
 *
 * A reply passes when the client would take it: HTTP 200, no entry in `errors` (client-go turns any
 * one, other than a deprecation notice, into the call's error), `__typename` on every interface
 * value, whole numbers where the Go types hold ints and epoch milliseconds, and the stored values.
 * A document that fails here is a defect of the server, not of the test: the assertions say what
 * the client needs.
 */

const CLIENTS_DIR = join(repoRoot(), 'test/golden/graph/clients');

/** A fixture's document as the client sends it: the file without its leading `#` source lines and final newline. */
function clientDocument(name: string): string {
  return readFileSync(join(CLIENTS_DIR, `${name}.graphql`), 'utf8').replace(/^(#[^\n]*\n)+/, '').replace(/\n$/, '');
}

/** A docs example with its placeholders filled in, as a reader does before running it. */
function docsDocument(name: string, fill: Record<string, string | number> = {}): string {
  let text = clientDocument(name);
  for (const [placeholder, value] of Object.entries(fill)) {
    assert.ok(text.includes(placeholder), `${name} has no ${placeholder}`);
    text = text.split(placeholder).join(String(value));
  }
  return text;
}

/** Object keys sorted at every level, as Go's encoding/json writes a map[string]interface{}. */
function goJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(goJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, goJson((value as Record<string, unknown>)[k])]));
  }
  return value;
}

interface ClientOptions {
  /** The terraform provider's service name and capability header on top of client-go's. */
  readonly terraform?: boolean;
  /** client-go's opt-in gzip request compression. */
  readonly gzip?: boolean;
}

/**
 * One request as newrelic-client-go sends it: `POST /graphql`, JSON `{query, variables}` with the
 * variables' keys sorted, the user key in `Api-Key`, its user agent and requesting-service header.
 */
async function clientGo(ts: TestServer, document: string, variables: Record<string, unknown>, options: ClientOptions = {}) {
  const json = Buffer.from(JSON.stringify({ query: document, variables: goJson(variables) }), 'utf8');
  const headers: Record<string, string> = {
    'Api-Key': TEST_API_KEY,
    'Content-Type': 'application/json',
    'User-Agent': 'newrelic/newrelic-client-go/2.55.0 (https://github.com/newrelic/newrelic-client-go)',
    'NewRelic-Requesting-Services': options.terraform ? 'terraform-provider-newrelic|newrelic-client-go' : 'newrelic-client-go',
  };
  if (options.terraform) headers['X-Query-Source-Capability-Id'] = 'TERRAFORM';
  if (options.gzip) headers['Content-Encoding'] = 'gzip';
  return httpRequest(ts, { headers, body: options.gzip ? gzipSync(json) : json });
}

/** A plain script's request: `{"query": …}` and the key in `API-Key`, as the docs' curl examples send it. */
async function script(ts: TestServer, document: string, variables?: Record<string, unknown>) {
  const body = JSON.stringify({ query: document, ...(variables ? { variables } : {}) });
  return httpRequest(ts, { headers: { 'API-Key': TEST_API_KEY, 'Content-Type': 'application/json' }, body });
}

/**
 * What the client makes of a reply: the data when the status is 200 and `errors` holds nothing but
 * deprecation notices (client-go's rule; scripts treat any error as failure, which is stricter
 * only for those notices, and the server sends none).
 */
function accepted(reply: { status: number; text: string }): any {
  assert.equal(reply.status, 200, reply.text.slice(0, 1000));
  const body = JSON.parse(reply.text);
  const errors = (body.errors ?? []) as { message: string }[];
  assert.deepEqual(errors.filter((e) => !e.message.startsWith('This field is deprecated!')).map((e) => e.message), [], 'client-go returns these messages as the call\'s error');
  return body.data;
}

/** Null, an empty list, or an object of such: what a field of something Timeslice does not track must answer. */
function emptyish(value: unknown): boolean {
  if (value === null || (Array.isArray(value) && value.length === 0)) return true;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value).every(([k, v]) => k === '__typename' || emptyish(v));
  }
  return false;
}

/** Every listed field of `actual` is emptyish; returns `actual` without them. */
function withoutUntracked(actual: Record<string, unknown>, fields: readonly string[], label: string): Record<string, unknown> {
  const rest = { ...actual };
  for (const field of fields) {
    assert.ok(field in actual, `${label}: ${field} is selected and must be in the reply`);
    assert.ok(emptyish(actual[field]), `${label}: ${field} = ${JSON.stringify(actual[field])}`);
    delete rest[field];
  }
  return rest;
}

/** Summary numbers agree with the hand-worked ones (see graph-scenario.ts). */
function assertSummary(actual: Record<string, unknown> | null, expected: Record<string, number | null>, label: string): void {
  assert.ok(actual, `${label}: no summary`);
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), label);
  for (const [key, value] of Object.entries(expected)) assert.ok(nearly(actual[key], value), `${label}.${key}: ${String(actual[key])} ≠ ${String(value)}`);
}

/** One minute of web traffic at 14:28: 2 calls, 0.4 s. */
const SMALL_HARVEST = [['HttpDispatcher', '', [2, 0.4, 0.4, 0.1, 0.3, 0.1]]] as const;
/** Its summary: 0.4 s over 2 calls, 2 calls in 10 minutes, no errors, no Apdex data. */
const SMALL_SUMMARY = {
  apdexScore: null, errorRate: 0, hostCount: 1, instanceCount: 1, nonWebResponseTimeAverage: null, nonWebThroughput: null,
  responseTimeAverage: 0.2, throughput: 0.2, webResponseTimeAverage: 0.2, webThroughput: 0.2,
};

/** The tags every APM application of the scenario carries (docs/graph-api.md, Entities). */
const APM_TAGS = [
  { key: 'accountId', values: ['1'] },
  { key: 'trustedAccountId', values: ['1'] },
  { key: 'account', values: ['Default'] },
  { key: 'language', values: ['nodejs'] },
];
const byKey = (tags: { key: string }[]) => [...tags].sort((a, b) => a.key.localeCompare(b.key));

let ts: TestServer;
let clock: ManualClock;
let ids: ScenarioIds & Record<string, number>;
let origin: string;
const apm = (id: number) => handGuid(1, 'APM|APPLICATION', id);
/** Entities the before hook creates through plain mutations, for the documents that read them. */
const made = { mobileGuid: '', mobileId: 0, browserGuid: '', browserId: 0, keyTransactionGuid: '' };

/** Applications named as the docs name theirs; each sends one small harvest at 14:28 unless `quiet`. */
const EXTRA_APPS = [
  { name: 'nerdgraph-demo', host: 'demo-1' },
  { name: 'nerd-graph-api', host: 'api-1' },
  { name: 'ecommerce-app', host: 'shop-1' },
  { name: "Bob's Shop", host: 'bob-1' },
  { name: 'settings-target', host: 'settings-1' },
  { name: 'retired-app', host: 'retired-1', quiet: true },
] as const;

before(async () => {
  clock = new ManualClock(NOW);
  ts = await startTestServer({}, { clock });
  ids = { ...(await loadApmScenario(ts, clock)) };
  for (const [i, app] of EXTRA_APPS.entries()) {
    const run = await connect(ts, app.name, { host: app.host, pid: 500 + i });
    if (!('quiet' in app)) await harvest(ts, run.runId, minute(28), minute(29), SMALL_HARVEST);
    ids[app.name] = run.appId;
  }
  origin = new URL(ts.server.apiUrl).origin;
  const setup = accepted(await script(ts, `mutation {
    mobile: agentApplicationCreateMobile(accountId: 1, name: "shop-ios") { guid }
    browser: agentApplicationCreateBrowser(accountId: 1, name: "marketing-site") { guid }
    kt: keyTransactionCreate(applicationGuid: "${apm(ids.webShop)}", name: "Checkout", metricName: "WebTransaction/Expressjs/GET//checkout", apdexTarget: 0.4, browserApdexTarget: 3) { guid }
  }`));
  made.mobileGuid = setup.mobile.guid;
  made.mobileId = Number(Buffer.from(made.mobileGuid, 'base64').toString().split('|')[3]);
  made.browserGuid = setup.browser.guid;
  made.browserId = Number(Buffer.from(made.browserGuid, 'base64').toString().split('|')[3]);
  made.keyTransactionGuid = setup.kt.guid;
  assert.equal(made.mobileGuid, handGuid(1, 'MOBILE|APPLICATION', made.mobileId));
  assert.equal(made.browserGuid, handGuid(1, 'BROWSER|APPLICATION', made.browserId));
});
after(() => ts?.stop());

/** Fields of client-go's entity documents that name things Timeslice does not keep (alerts, relationships, golden metrics…). */
const UNTRACKED_ENTITY_FIELDS = ['goldenMetrics', 'goldenTags', 'recentAlertViolations', 'relatedEntities', 'relationships', 'serviceLevel', 'metricNormalizationRules'];

/** web-shop as client-go's GetEntity/GetEntities selection must show it (ApmApplicationEntity fields, tracked ones). */
function expectedWebShopEntity() {
  const guid = apm(ids.webShop);
  return {
    __typename: 'ApmApplicationEntity',
    account: { id: 1, name: 'Default', reportingEventTypes: ['Metric'] },
    accountId: 1,
    alertSeverity: 'NOT_CONFIGURED',
    apmBrowserSummary: null,
    applicationId: ids.webShop,
    deployments: [],
    domain: 'APM',
    entityType: 'APM_APPLICATION_ENTITY',
    guid,
    language: 'nodejs',
    name: 'web-shop',
    permalink: `${origin}/redirect/entity/${guid}`,
    reporting: true,
    runningAgentVersions: { maxVersion: '13.2.0', minVersion: '9.8.1' },
    settings: { apdexTarget: 0.5, serverSideConfig: false },
    tags: byKey(APM_TAGS),
    // The same tags with their metadata: every one comes from the entity itself, so none is mutable.
    tagsWithMetadata: byKey(APM_TAGS.map(({ key, values }) => ({ key, values: values.map((value) => ({ mutable: false, value })) }))),
    type: 'APPLICATION',
  };
}

/** Checks one ApmApplicationEntity of client-go's GetEntity/GetEntities reply against the scenario. */
function assertWebShopEntity(entity: Record<string, any>, label: string): void {
  const tracked = withoutUntracked(entity, UNTRACKED_ENTITY_FIELDS, label);
  assertSummary(tracked.apmSummary as Record<string, unknown>, EXPECTED.webShop, `${label} apmSummary`);
  const indexedAt = tracked.indexedAt;
  assert.ok(Number.isSafeInteger(indexedAt) && (indexedAt as number) <= NOW, `${label}: indexedAt is epoch milliseconds (a Go int64), got ${String(indexedAt)}`);
  const { apmSummary: _s, indexedAt: _i, ...rest } = tracked;
  assert.deepEqual(
    { ...rest, tags: byKey(rest.tags as { key: string }[]), tagsWithMetadata: byKey(rest.tagsWithMetadata as { key: string }[]) },
    expectedWebShopEntity(),
    label,
  );
}

describe('newrelic-client-go entities (pkg/entities)', () => {
  it('GetEntitySearch with the query builder newrelic-cli `apm application search --name web-shop --accountId 1` sends', async () => {
    const data = accepted(await clientGo(ts, clientDocument('client-go-get-entity-search'), {
      options: {}, query: '', queryBuilder: { domain: 'APM', name: 'web-shop', tags: [{ key: 'accountId', value: '1' }], type: 'APPLICATION' }, sortBy: [],
    }, { gzip: true }));
    const search = data.actor.entitySearch;
    assert.equal(search.count, 1);
    assert.equal(typeof search.query, 'string');
    assert.deepEqual(search.types, [{ count: 1, domain: 'APM', entityType: 'APM_APPLICATION_ENTITY', type: 'APPLICATION' }]);
    const guid = apm(ids.webShop);
    assert.deepEqual(search.results, {
      entities: [{
        __typename: 'ApmApplicationEntityOutline', accountId: 1, alertSeverity: 'NOT_CONFIGURED', domain: 'APM', entityType: 'APM_APPLICATION_ENTITY',
        guid, indexedAt: search.results.entities[0]?.indexedAt, name: 'web-shop', permalink: `${origin}/redirect/entity/${guid}`, reporting: true, type: 'APPLICATION',
        applicationId: ids.webShop, language: 'nodejs',
      }],
      nextCursor: null,
    });
    assert.ok(Number.isSafeInteger(search.results.entities[0].indexedAt), 'indexedAt: epoch milliseconds');
  });

  it('GetEntitySearchByQuery as the terraform newrelic_entity data source sends it (name, domain, type; a tag; a quote in the name)', async () => {
    const document = clientDocument('client-go-get-entity-search-by-query');
    // dataSourceNewRelicEntityRead: buildEntitySearchQuery(name, "APM", "APPLICATION", tags), names escaped by escapeSingleQuote.
    for (const [query, appName] of [
      ["name = 'web-shop' AND domain = 'APM' AND type = 'APPLICATION'", 'web-shop'],
      ["name = 'web-shop' AND domain = 'APM' AND type = 'APPLICATION' AND tags.`language` = 'nodejs'", 'web-shop'],
      ["name = 'Bob\\'s Shop' AND domain = 'APM' AND type = 'APPLICATION'", "Bob's Shop"],
      // ignore_case = true: the provider compares names with EqualFold, so the server must match regardless of case.
      ["name = 'WEB-SHOP' AND domain = 'APM' AND type = 'APPLICATION'", 'web-shop'],
    ] as const) {
      const data = accepted(await clientGo(ts, document, { options: {}, query, sortBy: [] }, { terraform: true }));
      const search = data.actor.entitySearch;
      const guid = apm(ids[appName === 'web-shop' ? 'webShop' : appName]!);
      assert.equal(search.count, 1, query);
      assert.equal(search.query, query);
      assert.deepEqual(search.types, [{ count: 1, domain: 'APM', entityType: 'APM_APPLICATION_ENTITY', type: 'APPLICATION' }], query);
      const [entity, ...others] = search.results.entities;
      assert.deepEqual(others, [], query);
      assert.deepEqual({ ...entity, tags: byKey(entity.tags) }, {
        __typename: 'ApmApplicationEntityOutline', accountId: 1, alertSeverity: 'NOT_CONFIGURED', domain: 'APM', entityType: 'APM_APPLICATION_ENTITY',
        guid, indexedAt: entity.indexedAt, name: appName, permalink: `${origin}/redirect/entity/${guid}`, reporting: true, tags: byKey(APM_TAGS), type: 'APPLICATION',
        applicationId: guid === apm(ids.webShop) ? ids.webShop : ids[appName], language: 'nodejs',
      }, query);
      assert.ok(Number.isSafeInteger(entity.indexedAt), `${query}: indexedAt is epoch milliseconds`);
      assert.equal(search.results.nextCursor, null);
    }
  });

  it('GetEntitySearchByQueryWithCursor: the same text with $cursor, first page with a null cursor', async () => {
    // client-go's addCursorArg: "\t$cursor: String,\n" before ") { actor { entitySearch(", results(cursor: $cursor).
    const base = clientDocument('client-go-get-entity-search-by-query');
    const document = base.replace(') { actor { entitySearch(', '\t$cursor: String,\n) { actor { entitySearch(').replace('\n\tresults {\n', '\n\tresults(cursor: $cursor) {\n');
    assert.notEqual(document, base);
    const data = accepted(await clientGo(ts, document, { cursor: null, options: {}, query: "domain = 'APM' AND type = 'APPLICATION'", sortBy: [] }));
    const search = data.actor.entitySearch;
    const names = ['stale-app', 'web-shop', 'batch-worker', ...EXTRA_APPS.map((a) => a.name)];
    assert.equal(search.count, names.length);
    assert.deepEqual(search.results.entities.map((e: { name: string }) => e.name).sort(), [...names].sort());
    assert.ok(search.results.entities.every((e: { __typename: string }) => e.__typename === 'ApmApplicationEntityOutline'));
    assert.equal(search.results.nextCursor, null);
  });

  it('GetEntity for an APM application, as `newrelic apm application get` and terraform\'s application settings read send it', async () => {
    const data = accepted(await clientGo(ts, clientDocument('client-go-get-entity'), { guid: apm(ids.webShop) }, { terraform: true }));
    assertWebShopEntity(data.actor.entity, 'GetEntity web-shop');
  });

  it('GetEntity for a browser application: browserSettings and browserProperties.jsLoaderScript are answered', async () => {
    const data = accepted(await clientGo(ts, clientDocument('client-go-get-entity'), { guid: made.browserGuid }, { terraform: true }));
    const entity = withoutUntracked(data.actor.entity, UNTRACKED_ENTITY_FIELDS, 'GetEntity marketing-site');
    assert.equal(entity.__typename, 'BrowserApplicationEntity');
    assert.equal(entity.name, 'marketing-site');
    assert.equal(entity.applicationId, made.browserId);
    assert.equal(entity.entityType, 'BROWSER_APPLICATION_ENTITY');
    assert.equal(entity.reporting, false);
    assert.equal(entity.browserSummary, null);
    assert.equal(typeof (entity.browserProperties as { jsLoaderScript: unknown }).jsLoaderScript, 'string');
    assert.equal((entity.browserSettings as { browserMonitoring: { loader: string } }).browserMonitoring.loader, 'SPA');
    // BrowserApplicationRunningAgentVersions are Ints in the Go type; a browser application without events has none.
    assert.ok(emptyish(entity.runningAgentVersions), JSON.stringify(entity.runningAgentVersions));
  });

  it('the account block every client-go entity document selects (account { id name reportingEventTypes }) answers as actor.accounts does', async () => {
    // A part of getEntityQuery on its own, so that this value is checked whatever else the whole document meets.
    const data = accepted(await clientGo(ts, 'query($guid: EntityGuid!) { actor { accounts { id name reportingEventTypes } entity(guid: $guid) { account { id name reportingEventTypes } } } }', { guid: apm(ids.webShop) }));
    assert.deepEqual(data.actor.accounts, [{ id: 1, name: 'Default', reportingEventTypes: ['Metric'] }]);
    assert.deepEqual(data.actor.entity.account, { id: 1, name: 'Default', reportingEventTypes: ['Metric'] });
  });

  it('GetEntities with two applications and a GUID that names nothing (left out, order kept)', async () => {
    const data = accepted(await clientGo(ts, clientDocument('client-go-get-entities'), { guids: [apm(ids.webShop), apm(999), apm(ids.batchWorker)] }));
    const [webShop, batchWorker, ...rest] = data.actor.entities;
    assert.deepEqual(rest, []);
    assertWebShopEntity(webShop, 'GetEntities web-shop');
    assert.equal(batchWorker.__typename, 'ApmApplicationEntity');
    assert.equal(batchWorker.name, 'batch-worker');
    assertSummary(batchWorker.apmSummary, EXPECTED.batchWorker, 'GetEntities batch-worker apmSummary');
  });
});

/** HttpDispatcher calls at 14:25–14:29 per application: web-shop 10 + 6 + 24, ecommerce-app 2. */
const CALLS_QUERY = `SELECT count(newrelic.timeslice.value) AS calls FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' AND appName IN ('web-shop', 'ecommerce-app') FACET appName SINCE ${nrqlTime(25)} UNTIL ${nrqlTime(29)}`;
const CALLS_RESULTS = [{ facet: 'web-shop', appName: 'web-shop', calls: 40 }, { facet: 'ecommerce-app', appName: 'ecommerce-app', calls: 2 }];

/** The container fields every client-go NRQL document selects, checked against CALLS_QUERY. */
function assertCallsContainer(nrql: Record<string, any>): void {
  assert.deepEqual(nrql.results, CALLS_RESULTS);
  assert.deepEqual(nrql.totalResult, { calls: 42 });
  assert.deepEqual(nrql.otherResult, { calls: 0 });
  assert.equal(nrql.currentResults, null);
  assert.equal(nrql.previousResults, null);
  assert.deepEqual(nrql.metadata.eventTypes, ['Metric']);
  assert.deepEqual(nrql.metadata.facets, ['appName']);
  assert.deepEqual(nrql.metadata.messages, []);
  // NRDBMetadataTimeWindow.Begin/End are EpochMilliseconds: digits only, or client-go fails to decode.
  assert.equal(nrql.metadata.timeWindow.begin, minute(25));
  assert.equal(nrql.metadata.timeWindow.end, minute(29));
  assert.equal(nrql.metadata.timeWindow.compareWith, null);
}

describe('newrelic-client-go NRQL (pkg/nrdb)', () => {
  it('Query (newrelic-cli `nrql query`)', async () => {
    const data = accepted(await clientGo(ts, clientDocument('client-go-nrql-query'), { accountId: 1, query: CALLS_QUERY }));
    assertCallsContainer(data.actor.account.nrql);
  });

  it('QueryExtended', async () => {
    const data = accepted(await clientGo(ts, clientDocument('client-go-nrql-query-extended'), { accountId: 1, query: CALLS_QUERY }, { gzip: true }));
    const nrql = data.actor.account.nrql;
    assertCallsContainer(nrql);
    assert.equal(nrql.nrql, CALLS_QUERY);
    assert.deepEqual(nrql.queryProgress, { completed: true, queryId: null, retryAfter: null, resultExpiration: null, retryDeadline: null });
    assert.deepEqual(nrql.suggestedFacets, []);
    assert.deepEqual(nrql.eventDefinitions, []);
    assert.deepEqual(nrql.rawResponse.results.length > 0, true);
    for (const field of ['embeddedChartUrl', 'staticChartUrl']) assert.ok(nrql[field] === null || typeof nrql[field] === 'string', field);
  });

  it('QueryWithAdditionalOptions: timeout as a number (int Seconds) and as text (string Seconds of the generated types)', async () => {
    for (const timeout of [30, '30']) {
      const data = accepted(await clientGo(ts, clientDocument('client-go-nrql-query-with-timeout'), { accountId: 1, async: false, query: CALLS_QUERY, timeout }));
      const nrql = data.actor.account.nrql;
      assertCallsContainer(nrql);
      assert.deepEqual(nrql.queryProgress, { completed: true, queryId: null, retryAfter: null, resultExpiration: null, retryDeadline: null });
    }
  });

  it('a bad query: an error client-go reads and does not retry (errorClass INVALID_INPUT, path of strings), nrql null', async () => {
    const reply = await clientGo(ts, clientDocument('client-go-nrql-query'), { accountId: 1, query: 'SELECT count(*) FROM' });
    assert.equal(reply.status, 200);
    const body = reply.json();
    assert.deepEqual(body.data, { actor: { account: { nrql: null } } });
    assert.equal(body.errors.length, 1);
    const [error] = body.errors;
    assert.equal(error.extensions.errorClass, 'INVALID_INPUT');
    assert.deepEqual(error.path, ['actor', 'account', 'nrql']);
    assert.equal(typeof error.message, 'string');
    assert.ok(error.message.length > 0);
  });
});

/** What each APM application's list entry in the migration guide's "List applications" must say. */
function expectedApmListing(): Record<string, unknown>[] {
  const summary = (s: Record<string, number | null> | null) => s && { responseTimeAverage: s.responseTimeAverage, throughput: s.throughput, errorRate: s.errorRate, apdexScore: s.apdexScore };
  const rows: [string, number, boolean, Record<string, number | null> | null][] = [
    ['stale-app', ids.staleApp, false, null],
    ['web-shop', ids.webShop, true, EXPECTED.webShop],
    ['batch-worker', ids.batchWorker, true, EXPECTED.batchWorker],
    ...EXTRA_APPS.map((a): [string, number, boolean, Record<string, number | null> | null] => ('quiet' in a ? [a.name, ids[a.name]!, false, null] : [a.name, ids[a.name]!, true, SMALL_SUMMARY])),
  ];
  return rows.map(([name, id, reporting, s]) => ({ guid: apm(id), name, reporting, alertSeverity: 'NOT_CONFIGURED', applicationId: id, language: 'nodejs', apmSummary: summary(s) }));
}

/** Rows compared by GUID, summaries to 12 significant digits. */
function assertSameEntities(actual: Record<string, any>[], expected: Record<string, any>[], label: string): void {
  const byGuid = (rows: Record<string, any>[]) => [...rows].sort((a, b) => String(a.guid).localeCompare(String(b.guid)));
  const a = byGuid(actual);
  const e = byGuid(expected);
  assert.deepEqual(a.map((r) => r.guid), e.map((r) => r.guid), label);
  for (const [i, row] of a.entries()) {
    const { apmSummary, ...rest } = row;
    const { apmSummary: expectedSummary, ...expectedRest } = e[i]!;
    assert.deepEqual(rest, expectedRest, `${label}: ${row.name}`);
    if (expectedSummary === undefined || expectedSummary === null) assert.equal(apmSummary, expectedSummary, `${label}: ${row.name} apmSummary`);
    else assertSummary(apmSummary, expectedSummary, `${label}: ${row.name} apmSummary`);
  }
}

describe('docs: REST API v2 → NerdGraph migration guide (reads)', () => {
  it('List applications', async () => {
    const data = accepted(await script(ts, docsDocument('docs-migrate-list-applications', { YOUR_ACCOUNT_ID: 1 })));
    assert.equal(data.actor.entitySearch.results.nextCursor, null);
    assertSameEntities(data.actor.entitySearch.results.entities, expectedApmListing(), 'List applications');
  });

  it('List applications filtered by name (LIKE is a word match: "shop")', async () => {
    const data = accepted(await script(ts, docsDocument('docs-migrate-filter-applications-by-name', { YOUR_ACCOUNT_ID: 1, MyApp: 'shop' })));
    assertSameEntities(data.actor.entitySearch.results.entities, [
      { guid: apm(ids.webShop), name: 'web-shop' }, { guid: apm(ids["Bob's Shop"]!), name: "Bob's Shop" },
    ], 'name LIKE shop');
  });

  it('Show application', async () => {
    const data = accepted(await script(ts, docsDocument('docs-migrate-show-application', { YOUR_ENTITY_GUID: apm(ids.webShop) })));
    const { apmSummary, ...entity } = data.actor.entity;
    assert.deepEqual(entity, { name: 'web-shop', alertSeverity: 'NOT_CONFIGURED', reporting: true, applicationId: ids.webShop, language: 'nodejs', settings: { apdexTarget: 0.5, serverSideConfig: false } });
    const { nonWebResponseTimeAverage: _a, nonWebThroughput: _b, webResponseTimeAverage: _c, webThroughput: _d, ...selected } = EXPECTED.webShop;
    assertSummary(apmSummary, selected, 'Show application apmSummary');
  });

  it('The entity GUID from a REST application, mobile and browser ID', async () => {
    for (const [name, fill, expected] of [
      ['docs-migrate-application-guid-from-id', { APP_ID: ids.webShop }, { guid: apm(ids.webShop), name: 'web-shop' }],
      ['docs-migrate-mobile-guid-from-id', { MOBILE_APP_ID: made.mobileId }, { guid: made.mobileGuid, name: 'shop-ios' }],
      ['docs-migrate-browser-guid-from-id', { BROWSER_APP_ID: made.browserId }, { guid: made.browserGuid, name: 'marketing-site' }],
    ] as const) {
      const data = accepted(await script(ts, docsDocument(name, fill)));
      assert.deepEqual(data.actor.entitySearch.results.entities, [expected], name);
    }
  });

  it('List metric names of an application', async () => {
    const data = accepted(await script(ts, docsDocument('docs-migrate-list-metric-names', { YOUR_ACCOUNT_ID: 1, YOUR_APP_ID: ids.webShop })));
    const [row, ...more] = data.actor.nrql.results;
    assert.deepEqual(more, []);
    assert.deepEqual([...row['uniques.metricTimesliceName']].sort(), ['Apdex', 'Errors/all', 'HttpDispatcher', 'WebFrontend/QueueTime']);
  });

  it('Get metric data: call_count and average_call_time per minute add up to the harvests (40 calls, 7.3 s)', async () => {
    const data = accepted(await script(ts, docsDocument('docs-migrate-get-metric-data', { YOUR_ACCOUNT_ID: 1, YOUR_APP_ID: ids.webShop })));
    const rows = data.actor.nrql.results as { beginTimeSeconds: number; endTimeSeconds: number; call_count: number; average_call_time: number | null }[];
    assert.ok(rows.every((r) => Number.isSafeInteger(r.beginTimeSeconds) && r.endTimeSeconds - r.beginTimeSeconds === 60), 'one-minute buckets');
    assert.equal(rows.reduce((n, r) => n + r.call_count, 0), 40);
    assert.ok(nearly(rows.reduce((t, r) => t + (r.call_count ? r.call_count * (r.average_call_time ?? 0) : 0), 0) / 1000, 7.3));
  });

  it('Application host metric data: web-shop on web-1 (16 calls, 3.3 s)', async () => {
    const data = accepted(await script(ts, docsDocument('docs-migrate-host-metric-data', { YOUR_ACCOUNT_ID: 1, YourAppName: 'web-shop', 'your-host.example.com': 'web-1' })));
    assert.equal(data.actor.nrql.results.length, 1);
    assert.ok(nearly(data.actor.nrql.results[0].avg_response_time, 3.3 / 16 * 1000));
  });

  it('List and show key transactions', async () => {
    const list = accepted(await script(ts, docsDocument('docs-migrate-list-key-transactions', { YOUR_ACCOUNT_ID: 1 })));
    assert.deepEqual(list.actor.entitySearch.results, {
      entities: [{ guid: made.keyTransactionGuid, name: 'Checkout', reporting: true, alertSeverity: 'NOT_CONFIGURED' }], nextCursor: null,
    });
    const shown = accepted(await script(ts, docsDocument('docs-migrate-show-key-transaction', { KEY_TRANSACTION_ENTITY_GUID: made.keyTransactionGuid })));
    assert.deepEqual(shown.actor.entity, {
      name: 'Checkout', apdexTarget: 0.4, metricName: 'WebTransaction/Expressjs/GET//checkout', application: { guid: apm(ids.webShop), entity: { name: 'web-shop' } },
    });
  });

  it('List and show mobile applications (no events: not reporting, no summary)', async () => {
    const list = accepted(await script(ts, docsDocument('docs-migrate-list-mobile-applications', { YOUR_ACCOUNT_ID: 1 })));
    assert.deepEqual(list.actor.entitySearch.results, {
      entities: [{ guid: made.mobileGuid, name: 'shop-ios', reporting: false, applicationId: made.mobileId, mobileSummary: null }], nextCursor: null,
    });
    const shown = accepted(await script(ts, docsDocument('docs-migrate-show-mobile-application', { MOBILE_APP_ENTITY_GUID: made.mobileGuid })));
    assert.deepEqual(shown.actor.entity, { name: 'shop-ios', applicationId: made.mobileId, mobileSummary: null });
  });

  it('List browser applications', async () => {
    const list = accepted(await script(ts, docsDocument('docs-migrate-list-browser-applications', { YOUR_ACCOUNT_ID: 1 })));
    assert.deepEqual(list.actor.entitySearch.results, {
      entities: [{ guid: made.browserGuid, name: 'marketing-site', reporting: false, applicationId: made.browserId, browserSummary: null }], nextCursor: null,
    });
  });
});

describe('docs: NerdGraph entities tutorial', () => {
  it('Search by attribute, with the tutorial\'s variables', async () => {
    const data = accepted(await script(ts, clientDocument('docs-entities-search-by-attribute'), { query: "name LIKE 'nerd-graph' AND type IN ('APPLICATION')" }));
    assert.deepEqual(data.actor.entitySearch, {
      count: 1, results: { entities: [{ name: 'nerd-graph-api', entityType: 'APM_APPLICATION_ENTITY', guid: apm(ids['nerd-graph-api']!) }] },
    });
  });

  it('Search by entity GUID: one GUID in a variable declared EntityGuid! for the [EntityGuid]! argument, as the tutorial writes it', async () => {
    const data = accepted(await script(ts, clientDocument('docs-entities-search-by-guid'), { guids: apm(ids.webShop) }));
    assert.deepEqual(data.actor.entities, [{ entityType: 'APM_APPLICATION_ENTITY', name: 'web-shop' }]);
  });

  it('Alert information, APM summary, per-type data and tags of "name like \'nerdgraph\'"', async () => {
    const entities = async (name: string) => accepted(await script(ts, clientDocument(name))).actor.entitySearch.results.entities;
    assert.deepEqual(await entities('docs-entities-alert-information'), [{ reporting: true, alertSeverity: 'NOT_CONFIGURED' }]);
    const [summary] = await entities('docs-entities-apm-summary');
    assert.equal(summary.name, 'nerdgraph-demo');
    assertSummary(summary.apmSummary, { errorRate: 0, apdexScore: null, webResponseTimeAverage: 0.2, responseTimeAverage: 0.2 }, 'apm-summary');
    assert.deepEqual(await entities('docs-entities-per-type-data'), [{ name: 'nerdgraph-demo', apmSummary: { errorRate: 0 } }]);
    const [tagged] = await entities('docs-entities-tags');
    assert.deepEqual({ ...tagged, tags: byKey(tagged.tags) }, { name: 'nerdgraph-demo', tags: byKey(APM_TAGS) });
  });

  it('The nextCursor of a single page is null', async () => {
    const data = accepted(await script(ts, clientDocument('docs-entities-next-cursor')));
    assert.deepEqual(data.actor.entitySearch.results, { nextCursor: null, entities: [{ name: 'nerd-graph-api' }] });
  });
});

describe('docs: APM configuration and change tracking (reads)', () => {
  const EXAMPLE_GUID = 'ZjY1ODgxfEFQTXxBUFBYSUNBVElPTnz0ODEwMTY3NzZ';

  it('Read the server-side configuration flag and the transaction tracer settings', async () => {
    const flag = accepted(await script(ts, docsDocument('docs-apm-config-server-side-config', { [EXAMPLE_GUID]: apm(ids.webShop) })));
    assert.deepEqual(flag.actor.entity, { apmSettings: { apmConfig: { useServerSideConfig: false } } });
    // New Relic's agent defaults: tracer on, explain plans on above 0.5 s.
    const tracer = accepted(await script(ts, docsDocument('docs-apm-config-transaction-tracer', { [EXAMPLE_GUID]: apm(ids.webShop) })));
    assert.deepEqual(tracer.actor.entity, {
      guid: apm(ids.webShop), name: 'web-shop', apmSettings: { transactionTracer: { enabled: true, explainEnabled: true, explainThresholdType: 'VALUE', explainThresholdValue: 0.5 } },
    });
  });

  it('The GUID from an application ID, written without spaces or quotes (domainId=N)', async () => {
    const data = accepted(await script(ts, docsDocument('docs-change-tracking-guid-from-app-id', { INSERT_YOUR_APPID: ids.webShop })));
    assert.deepEqual(data.actor.entitySearch, {
      count: 1, query: `domainId=${ids.webShop}`, results: { entities: [{ entityType: 'APM_APPLICATION_ENTITY', name: 'web-shop', guid: apm(ids.webShop) }] },
    });
  });
});

describe('newrelic-client-go agent applications, change tracking, key transactions', () => {
  it('AgentApplicationCreateBrowser (terraform newrelic_browser_application)', async () => {
    const data = accepted(await clientGo(ts, clientDocument('client-go-agent-application-create-browser'), {
      accountId: 1, name: 'checkout-web', settings: { cookiesEnabled: true, distributedTracingEnabled: true, loaderType: 'SPA' },
    }, { terraform: true }));
    const created = data.agentApplicationCreateBrowser;
    const id = Number(Buffer.from(created.guid, 'base64').toString().split('|')[3]);
    assert.equal(created.guid, handGuid(1, 'BROWSER|APPLICATION', id));
    assert.equal(created.name, 'checkout-web');
    assert.deepEqual({ ...created.settings, loaderScript: typeof created.settings.loaderScript }, {
      cookiesEnabled: true, distributedTracingEnabled: true, loaderScript: 'string', loaderType: 'SPA',
    });
  });

  it('AgentApplicationEnableApmBrowser', async () => {
    const data = accepted(await clientGo(ts, clientDocument('client-go-agent-application-enable-apm-browser'), {
      guid: apm(ids['nerdgraph-demo']!), settings: { cookiesEnabled: true, distributedTracingEnabled: false, loaderType: 'PRO' },
    }));
    assert.deepEqual(data.agentApplicationEnableApmBrowser, { name: 'nerdgraph-demo', settings: { cookiesEnabled: true, distributedTracingEnabled: false, loaderType: 'PRO' } });
  });

  it('AgentApplicationSettingsUpdate with its whole selection (terraform newrelic_application_settings), then read back with GetEntity', async () => {
    const guid = apm(ids['settings-target']!);
    const data = accepted(await clientGo(ts, clientDocument('client-go-agent-application-settings-update'), {
      guid,
      settings: {
        alias: 'settings-target',
        apmConfig: { apdexTarget: 0.7, useServerSideConfig: true },
        errorCollector: { expectedErrorClasses: ['TimeoutError'], expectedErrorCodes: ['404'], ignoredErrorClasses: [], ignoredErrorCodes: ['401'] },
        threadProfiler: { enabled: false },
        tracerType: { value: 'DISTRIBUTED_TRACING' },
        transactionTracer: { transactionThresholdType: 'VALUE', transactionThresholdValue: 1.5, recordSql: 'RAW', stackTraceThreshold: 0.7 },
      },
    }, { terraform: true }));
    const result = data.agentApplicationSettingsUpdate;
    assert.deepEqual(result.errors, []);
    assert.equal(result.guid, guid);
    assert.equal(result.alias, 'settings-target');
    assert.deepEqual(result.apmSettings.apmConfig, { apdexTarget: 0.7, useServerSideConfig: true });
    assert.equal(result.apmSettings.tracerType, 'DISTRIBUTED_TRACING');
    assert.deepEqual(result.apmSettings.threadProfiler, { enabled: false });
    assert.deepEqual(result.apmSettings.errorCollector, {
      enabled: true, expectedErrorClasses: ['TimeoutError'], expectedErrorCodes: ['404'], ignoredErrorClasses: [], ignoredErrorCodes: ['401'],
    });
    assert.equal(result.apmSettings.transactionTracer.transactionThresholdType, 'VALUE');
    assert.equal(result.apmSettings.transactionTracer.transactionThresholdValue, 1.5);
    assert.equal(result.apmSettings.transactionTracer.recordSql, 'RAW');
    assert.equal(result.apmSettings.transactionTracer.stackTraceThreshold, 0.7);
    // resourceNewRelicApplicationSettingsRead: GetEntity, then the entity's settings.
    const read = accepted(await clientGo(ts, clientDocument('client-go-get-entity'), { guid }, { terraform: true }));
    assert.deepEqual(read.actor.entity.settings, { apdexTarget: 0.7, serverSideConfig: true });
  });

  it('AgentApplicationDelete of an application that does not report', async () => {
    const data = accepted(await clientGo(ts, clientDocument('client-go-agent-application-delete'), { guid: apm(ids['retired-app']!) }, { terraform: true }));
    assert.deepEqual(data.agentApplicationDelete, { success: true });
    const gone = accepted(await script(ts, `{ actor { entity(guid: "${apm(ids['retired-app']!)}") { guid } } }`));
    assert.deepEqual(gone, { actor: { entity: null } });
  });

  it('ChangeTrackingCreateDeployment with the deployment client-go sends (timestamp in milliseconds, empty data handling rules)', async () => {
    const timestamp = NOW - 60_000 + 100;
    const data = accepted(await clientGo(ts, clientDocument('client-go-change-tracking-create-deployment'), {
      dataHandlingRules: {},
      deployment: {
        changelog: 'https://example.test/changelog', commit: '9f1c2ab', deepLink: 'https://ci.example.test/42', deploymentType: 'ROLLING',
        description: 'rolling out 2.14.0', entityGuid: apm(ids.batchWorker), groupId: 'rel-77', timestamp, user: 'ci-bot', version: '2.14.0',
      },
    }));
    const deployment = data.changeTrackingCreateDeployment;
    assert.match(deployment.deploymentId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.deepEqual({ ...deployment, deploymentId: 'uuid' }, {
      changelog: 'https://example.test/changelog', commit: '9f1c2ab', customAttributes: null, deepLink: 'https://ci.example.test/42', deploymentId: 'uuid',
      deploymentType: 'ROLLING', description: 'rolling out 2.14.0', entityGuid: apm(ids.batchWorker), groupId: 'rel-77', timestamp, user: 'ci-bot', version: '2.14.0',
    });
    // ChangeTrackingDeploymentInput.CustomAttributes (*map[string]string) is sent when the caller sets it.
    const withAttributes = accepted(await clientGo(ts, clientDocument('client-go-change-tracking-create-deployment'), {
      dataHandlingRules: { validationFlags: ['FAIL_ON_FIELD_LENGTH'] },
      deployment: { customAttributes: { environment: 'production', region: 'eu-west-1' }, entityGuid: apm(ids.batchWorker), timestamp, version: '2.14.1' },
    })).changeTrackingCreateDeployment;
    assert.deepEqual([withAttributes.version, withAttributes.customAttributes], ['2.14.1', { environment: 'production', region: 'eu-west-1' }]);
  });

  it('KeyTransactionCreate, Update and Delete (terraform newrelic_key_transaction)', async () => {
    const guid = apm(ids.webShop);
    const created = accepted(await clientGo(ts, clientDocument('client-go-key-transaction-create'), {
      apdexTarget: 0.5, applicationGuid: guid, browserApdexTarget: 7, metricName: 'WebTransaction/Expressjs/POST//cart', name: 'Cart',
    }, { terraform: true })).keyTransactionCreate;
    const id = Number(Buffer.from(created.guid, 'base64').toString().split('|')[3]);
    assert.equal(created.guid, handGuid(1, 'APM|KEY_TRANSACTION', id));
    assert.deepEqual([created.apdexTarget, created.browserApdexTarget, created.metricName, created.name], [0.5, 7, 'WebTransaction/Expressjs/POST//cart', 'Cart']);
    assert.equal(created.application.guid, guid);
    const entity = withoutUntracked(created.application.entity, ['goldenMetrics', 'goldenTags', 'serviceLevel'], 'application.entity');
    assert.equal(entity.__typename, 'ApmApplicationEntityOutline');
    assert.equal(entity.name, 'web-shop');
    assert.deepEqual(entity.runningAgentVersions, { maxVersion: '13.2.0', minVersion: '9.8.1' });
    const updated = accepted(await clientGo(ts, clientDocument('client-go-key-transaction-update'), {
      apdexTarget: 0.6, browserApdexTarget: 8, guid: created.guid, name: 'Cart (renamed)',
    }, { terraform: true })).keyTransactionUpdate;
    assert.deepEqual([updated.apdexTarget, updated.browserApdexTarget, updated.name, updated.application.guid], [0.6, 8, 'Cart (renamed)', guid]);
    const deleted = accepted(await clientGo(ts, clientDocument('client-go-key-transaction-delete'), { guid: created.guid }, { terraform: true }));
    assert.deepEqual(deleted, { keyTransactionDelete: { success: true } });
  });
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The change tracking docs' selection, with the generated id and (when unspecified) short description checked and set aside. */
function changeEvent(reply: any): Record<string, unknown> {
  const { changeTrackingEvent, messages } = reply.changeTrackingCreateEvent;
  assert.deepEqual(messages, []);
  assert.match(changeTrackingEvent.changeTrackingId, UUID);
  assert.equal(typeof changeTrackingEvent.shortDescription, 'string');
  assert.ok(changeTrackingEvent.shortDescription.length > 0);
  return { ...changeTrackingEvent, changeTrackingId: 'uuid' };
}

/** changeTrackingIds of the Deployment events the docs' mutations record, for the guide's "List deployments". */
const recordedDeployments: string[] = [];

describe('docs: migration guide and change tracking (writes)', () => {
  it('Update application settings (the guide selects apmSettings { apdexTarget useServerSideConfig })', async () => {
    const guid = apm(ids['nerd-graph-api']!);
    const data = accepted(await script(ts, docsDocument('docs-migrate-update-application-settings', { YOUR_ENTITY_GUID: guid })));
    assert.deepEqual(data.agentApplicationSettingsUpdate, { alias: 'My App Display Name', guid, apmSettings: { apdexTarget: 0.5, useServerSideConfig: true } });
  });

  it('Delete application (not reporting)', async () => {
    const data = accepted(await script(ts, docsDocument('docs-migrate-delete-application', { YOUR_ENTITY_GUID: apm(ids.staleApp) })));
    assert.deepEqual(data, { agentApplicationDelete: { success: true } });
  });

  it('Create mobile and browser applications; enable browser monitoring on an APM application', async () => {
    const mobile = accepted(await script(ts, docsDocument('docs-migrate-create-mobile-application', { YOUR_ACCOUNT_ID: 1 }))).agentApplicationCreateMobile;
    const mobileId = Number(Buffer.from(mobile.guid, 'base64').toString().split('|')[3]);
    assert.match(mobile.applicationToken, /^AA[0-9a-f]{40}-NRMA$/);
    assert.deepEqual({ ...mobile, applicationToken: 'token' }, { accountId: 1, applicationToken: 'token', guid: handGuid(1, 'MOBILE|APPLICATION', mobileId), name: 'My New Mobile App' });
    const browser = accepted(await script(ts, docsDocument('docs-migrate-create-browser-application', { YOUR_ACCOUNT_ID: 1 }))).agentApplicationCreateBrowser;
    const browserId = Number(Buffer.from(browser.guid, 'base64').toString().split('|')[3]);
    assert.deepEqual(browser, {
      guid: handGuid(1, 'BROWSER|APPLICATION', browserId), name: 'My New Browser App', settings: { cookiesEnabled: true, distributedTracingEnabled: true, loaderType: 'SPA' },
    });
    const enabled = accepted(await script(ts, docsDocument('docs-migrate-enable-apm-browser', { YOUR_APM_ENTITY_GUID: apm(ids['ecommerce-app']!) })));
    assert.deepEqual(enabled.agentApplicationEnableApmBrowser, { name: 'ecommerce-app', settings: { cookiesEnabled: true, distributedTracingEnabled: true, loaderType: 'SPA' } });
  });

  it('Create deployment with changeTrackingCreateEvent, the entity found by name and account', async () => {
    const data = accepted(await script(ts, docsDocument('docs-migrate-create-deployment', { YOUR_ENTITY_NAME: 'web-shop', YOUR_ACCOUNT_ID: 1 })));
    const event = data.changeTrackingCreateEvent.changeTrackingEvent;
    assert.match(event.changeTrackingId, UUID);
    recordedDeployments.push(event.changeTrackingId);
    assert.deepEqual({ ...event, changeTrackingId: 'uuid' }, {
      changeTrackingId: 'uuid', timestamp: NOW, user: 'deployer@example.com', description: 'Production deployment of auth fix',
      entity: { guid: apm(ids.webShop), domain: 'APM', name: 'web-shop' },
      customAttributes: { cloud_vendor: 'vendor_name', region: 'us-east-1', environment: 'commerce_prod' },
    });
  });

  it('The change tracking docs\' sample mutations', async () => {
    const guid = apm(ids.webShop);
    const entity = { name: 'web-shop', guid };
    const required = await script(ts, docsDocument('docs-change-tracking-required-fields', { 'ENTER YOUR ENTITY GUID HERE': guid }));
    const requiredEvent = accepted(required).changeTrackingCreateEvent.changeTrackingEvent;
    recordedDeployments.push(requiredEvent.changeTrackingId);
    assert.deepEqual(changeEvent(accepted(required)), {
      category: 'Deployment', categoryAndType: 'DEPLOYMENT__BASIC', changeTrackingId: 'uuid', customAttributes: null, description: null, entity,
      groupId: null, shortDescription: requiredEvent.shortDescription, timestamp: NOW, user: null, type: 'Basic',
    });
    assert.deepEqual(changeEvent(accepted(await script(ts, docsDocument('docs-change-tracking-optional-fields', { 'YOUR ENTITY GUID HERE': guid })))), {
      category: 'Business Event', categoryAndType: 'BUSINESS_EVENT__CONVENTION', changeTrackingId: 'uuid',
      customAttributes: { isProduction: true, region: 'us-east-1', instances: 2, deployTimeMs: 10.5 }, description: 'sample event description', entity,
      groupId: 'testGroup123', shortDescription: 'sample activity event description', timestamp: NOW, user: 'testUser', type: 'Convention',
    });
    const custom = changeEvent(accepted(await script(ts, docsDocument('docs-change-tracking-custom-category', { 'YOUR ENTITY GUID HERE': guid }))));
    assert.deepEqual({ ...custom, shortDescription: 'auto' }, {
      category: 'External Event', categoryAndType: 'CUSTOMER_DEFINED__CUSTOM', changeTrackingId: 'uuid', customAttributes: null,
      description: 'Cloud Provider outage for US-East for Production customer database', entity, groupId: null, shortDescription: 'auto', timestamp: NOW,
      user: 'product@example.com', type: 'Cloud Provider Outage',
    });
    assert.deepEqual(changeEvent(accepted(await script(ts, docsDocument('docs-change-tracking-business-event')))), {
      category: 'Business Event', categoryAndType: 'BUSINESS_EVENT__MARKETING_CAMPAIGN', changeTrackingId: 'uuid',
      customAttributes: { campaignType: 'seasonal', discountPercent: 30, targetAudience: 'premium_customers' },
      description: 'Launched Black Friday marketing campaign with 30% discount', entity: { name: 'ecommerce-app', guid: apm(ids['ecommerce-app']!) },
      groupId: 'blackfriday2024', shortDescription: 'Black Friday campaign launch', timestamp: NOW, user: 'marketing@example.com', type: 'Marketing Campaign',
    });
    assert.deepEqual(changeEvent(accepted(await script(ts, docsDocument('docs-change-tracking-feature-flag', { 'YOUR ENTITY GUID HERE': guid })))), {
      category: 'Feature Flag', categoryAndType: 'FEATURE_FLAG__BASIC', changeTrackingId: 'uuid', customAttributes: null,
      description: 'Rolled out new streamlined checkout process to 25% of users', entity, groupId: null, shortDescription: 'Enabled new checkout flow',
      timestamp: NOW, user: 'product@example.com', type: 'Basic',
    });
  });

  it('List deployments: the guide\'s NRQL finds the Deployment events just recorded for the entity', async () => {
    assert.equal(recordedDeployments.length, 2, 'both deployment events were recorded');
    // A second later, as a person running the next query; the events are stamped with the clock's 14:30:20.
    clock.ms = NOW + 1000;
    const data = accepted(await script(ts, docsDocument('docs-migrate-list-deployments', { YOUR_ACCOUNT_ID: 1, YOUR_ENTITY_GUID: apm(ids.webShop) })));
    const rows = data.actor.nrql.results as Record<string, unknown>[];
    assert.deepEqual(rows.map((r) => r.changeTrackingId).sort(), [...recordedDeployments].sort());
    assert.ok(rows.every((r) => r.eventType === 'ChangeTrackingEvent' && r.category === 'Deployment' && r['entity.guid'] === apm(ids.webShop)));
  });
});
