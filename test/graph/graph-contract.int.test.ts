import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  buildClientSchema, buildSchema, getIntrospectionQuery, isEnumType, isInterfaceType, isObjectType, lexicographicSortSchema, parse, printSchema, validate,
  type GraphQLSchema, type IntrospectionQuery,
} from 'graphql';
import { ManualClock, startTestServer, TEST_API_KEY } from '../helpers/rest-fixture.js';
import { repoRoot } from '../helpers/samples.js';
import type { TestServer } from '../helpers/test-server.js';
import { handGuid, httpGraph, httpRequest, loadApmScenario, NOW, type ScenarioIds } from './graph-scenario.js';

/*
 * The graph API's contract as a standard tool sees it: graphql-js's own introspection query over
 * HTTP, `buildClientSchema` on the answer, and the printed schema compared with the checked-in
 * SDL, src/api/graphql/schema.graphql (what the server serves is what the contract says). Then the facts of the NerdGraph reference's
 * compatibility checklist (§11), and the documents real clients send, validated against the
 * introspected schema: newrelic-client-go's NRQL queries (Query, QueryExtended,
 * QueryWithAdditionalOptions), its AgentApplicationSettingsUpdate selection, and both spellings
 * of `apmSettings` (the schema's `apmConfig { … }` and the REST v2 migration guide's flat one).
 */

let ts: TestServer;
let ids: ScenarioIds;
let introspection: IntrospectionQuery;
let schema: GraphQLSchema;

before(async () => {
  const clock = new ManualClock(NOW);
  ts = await startTestServer({}, { clock });
  ids = await loadApmScenario(ts, clock);
  const reply = await httpGraph(ts, TEST_API_KEY, getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, specifiedByUrl: true }));
  assert.equal(reply.status, 200, reply.text.slice(0, 500));
  const body = reply.json();
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  introspection = body.data;
  schema = buildClientSchema(introspection);
});
after(() => ts?.stop());

const sdl = (s: GraphQLSchema) => printSchema(lexicographicSortSchema(s));

/** Validation errors of a document against the introspected schema, as text (empty when it validates). */
function validationErrors(document: string): string[] {
  return validate(schema, parse(document)).map((e) => e.message);
}

describe('introspection with graphql-js', () => {
  it('the introspected schema is the checked-in SDL, src/api/graphql/schema.graphql', () => {
    const contract = buildSchema(readFileSync(join(repoRoot(), 'src/api/graphql/schema.graphql'), 'utf8'));
    assert.equal(sdl(schema), sdl(contract));
  });

  it('introspection over GET answers the same', async () => {
    const reply = await httpRequest(ts, { method: 'GET', path: `/graphql?${new URLSearchParams({ query: getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, specifiedByUrl: true }) })}`, headers: { 'api-key': TEST_API_KEY } });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json().data, introspection);
  });

  it('the root types are NerdGraph’s', () => {
    assert.equal(schema.getQueryType()?.name, 'RootQueryType');
    assert.equal(schema.getMutationType()?.name, 'RootMutationType');
    assert.equal(schema.getSubscriptionType(), null);
  });
});

describe('the compatibility checklist (reference §11)', () => {
  it('entity type names: KeyTransactionEntity(Outline), no ApmKeyTransaction…', () => {
    const names = Object.keys(schema.getTypeMap());
    assert.deepEqual(names.filter((n) => /KeyTransaction/.test(n) && !/^KeyTransaction(Create|Update|Delete)Result$/.test(n)).sort(), [
      'KeyTransactionApplication', 'KeyTransactionEntity', 'KeyTransactionEntityOutline',
    ]);
    assert.deepEqual(names.filter((n) => n.startsWith('ApmKeyTransaction')), []);
    const possible = (name: string) => schema.getPossibleTypes(schema.getType(name) as never).map((t) => t.name).sort();
    // Timeslice's four kinds, and the kinds it never returns that clients' fragments name (schema.graphql, "What Timeslice does not keep").
    const kinds = [
      'ApmApplication', 'ApmDatabaseInstance', 'ApmExternalService', 'BrowserApplication', 'Dashboard', 'External', 'Generic', 'GenericInfrastructure',
      'InfrastructureAwsLambdaFunction', 'InfrastructureHost', 'KeyTransaction', 'MobileApplication', 'SecureCredential', 'SyntheticMonitor', 'Team',
      'ThirdPartyService', 'Unavailable', 'Workload',
    ];
    assert.deepEqual(possible('EntityOutline'), kinds.map((k) => `${k}EntityOutline`));
    assert.deepEqual(possible('Entity'), kinds.filter((k) => k !== 'Team').map((k) => `${k}Entity`));
    assert.deepEqual(possible('AlertableEntityOutline'), possible('EntityOutline'));
    assert.deepEqual(possible('AlertableEntity'), possible('Entity'));
    assert.deepEqual(possible('ChangeTrackingEvent'), ['ChangeTrackingDeploymentEvent', 'ChangeTrackingFeatureFlagEvent', 'ChangeTrackingGenericEvent']);
  });

  it('the entity types NerdGraph names, and the enums clients send', () => {
    const enumValues = (name: string) => {
      const type = schema.getType(name);
      assert.ok(isEnumType(type), name);
      return type.getValues().map((v) => v.name);
    };
    for (const t of ['APM_APPLICATION_ENTITY', 'BROWSER_APPLICATION_ENTITY', 'MOBILE_APPLICATION_ENTITY', 'KEY_TRANSACTION_ENTITY']) assert.ok(enumValues('EntityType').includes(t), t);
    assert.deepEqual(enumValues('EntityAlertSeverity'), ['CRITICAL', 'NOT_ALERTING', 'NOT_CONFIGURED', 'WARNING']);
    assert.deepEqual(enumValues('EntitySearchQueryBuilderDomain'), ['APM', 'BROWSER', 'EXT', 'INFRA', 'MOBILE', 'SYNTH']);
    assert.deepEqual(enumValues('EntitySearchSortCriteria'), ['ALERT_SEVERITY', 'DOMAIN', 'MOST_RELEVANT', 'NAME', 'REPORTING', 'TYPE']);
    assert.deepEqual(enumValues('RegionScope'), ['GLOBAL', 'IN_REGION']);
  });

  it('argument shapes clients rely on: lists, defaults, nullability', () => {
    const actor = schema.getType('Actor');
    assert.ok(isObjectType(actor));
    const args = (field: string) => Object.fromEntries(actor.getFields()[field]!.args.map((a) => [a.name, `${a.type}${a.defaultValue === undefined ? '' : ` = ${JSON.stringify(a.defaultValue)}`}`]));
    assert.deepEqual(args('nrql'), { accounts: '[Int!]!', async: 'Boolean = false', options: 'NrqlQueryOptions', query: 'Nrql!', timeout: 'Seconds' });
    assert.deepEqual(args('entities'), { guids: '[EntityGuid]!' });
    assert.deepEqual(args('entity'), { guid: 'EntityGuid!' });
    assert.deepEqual(args('account'), { id: 'Int!' });
    assert.deepEqual(args('entitySearch'), {
      options: 'EntitySearchOptions', query: 'String', queryBuilder: 'EntitySearchQueryBuilder', sortBy: '[EntitySearchSortCriteria] = ["NAME"]', sortByWithDirection: '[SortCriterionWithDirection]',
    });
  });

  it('Seconds-typed summary fields are the Seconds scalar (they carry fractions: see graph-read)', () => {
    const summary = schema.getType('ApmApplicationSummaryData');
    assert.ok(isObjectType(summary));
    const types = Object.fromEntries(Object.values(summary.getFields()).map((f) => [f.name, String(f.type)]));
    assert.deepEqual(types, {
      apdexScore: 'Float', errorRate: 'Float', hostCount: 'Int', instanceCount: 'Int', nonWebResponseTimeAverage: 'Seconds', nonWebThroughput: 'Float',
      responseTimeAverage: 'Seconds', throughput: 'Float', webResponseTimeAverage: 'Seconds', webThroughput: 'Float',
    });
  });

  it('every outline and entity type has the fields of its interfaces', () => {
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) && !isInterfaceType(type)) continue;
      for (const iface of type.getInterfaces()) {
        for (const name of Object.keys(iface.getFields())) assert.ok(type.getFields()[name], `${type.name}.${name} (from ${iface.name})`);
      }
    }
  });
});

/** newrelic-client-go `Nrdb.Query`: the selection reference §6.2 gives. */
const CLIENT_GO_QUERY = `query($query: Nrql!, $accountId: Int!) { actor { account(id: $accountId) { nrql(query: $query) {
  currentResults otherResult previousResults results totalResult
  metadata { eventTypes facets messages timeWindow { begin compareWith end since until } }
} } } }`;

/** The fields client-go's extended queries add (reference §6.2). */
const EXTENDED_FIELDS = `currentResults nrql otherResult previousResults
  queryProgress { completed queryId retryAfter resultExpiration retryDeadline }
  rawResponse results totalResult
  metadata { eventTypes facets messages timeWindow { begin compareWith end since until } }
  suggestedFacets { attributes nrql }
  eventDefinitions { definition label name attributes { definition documentationUrl label name } }`;

/** `Nrdb.QueryExtended` as client-go sends it: the reference's list plus the two chart URLs. */
const CLIENT_GO_EXTENDED = `query($query: Nrql!, $accountId: Int!) { actor { account(id: $accountId) { nrql(query: $query) {
  ${EXTENDED_FIELDS}
  embeddedChartUrl staticChartUrl
} } } }`;

/** `Nrdb.QueryWithAdditionalOptions`: the same with timeout and async. */
const CLIENT_GO_WITH_TIMEOUT = `query($query: Nrql!, $accountId: Int!, $timeout: Seconds, $async: Boolean) { actor { account(id: $accountId) {
  nrql(query: $query, timeout: $timeout, async: $async) {
  ${EXTENDED_FIELDS}
  embeddedChartUrl staticChartUrl
} } } }`;

/** client-go `AgentApplicationSettingsUpdate`: its whole result selection (reference §9.1). */
const CLIENT_GO_SETTINGS_UPDATE = `mutation($guid: EntityGuid!, $settings: AgentApplicationSettingsUpdateInput!) {
  agentApplicationSettingsUpdate(guid: $guid, settings: $settings) {
    alias
    apmSettings {
      alias
      apmConfig { apdexTarget useServerSideConfig }
      captureMemcacheKeys
      errorCollector { enabled expectedErrorClasses expectedErrorCodes ignoredErrorClasses ignoredErrorCodes }
      jfr { enabled }
      originalName
      slowSql { enabled }
      threadProfiler { enabled }
      tracerType
      transactionTracer {
        captureMemcacheKeys enabled explainEnabled explainThresholdType explainThresholdValue logSql recordSql
        stackTraceThreshold transactionThresholdType transactionThresholdValue
      }
    }
    browserProperties { jsConfig jsConfigScript jsLoaderScript }
    browserSettings {
      browserConfig { apdexTarget }
      browserMonitoring {
        ajax { denyList }
        distributedTracing { allowedOrigins corsEnabled corsUseNewrelicHeader corsUseTracecontextHeaders enabled excludeNewrelicHeader }
        loader
        pinnedVersion
        privacy { cookiesEnabled }
      }
    }
    errors { description errorClass field }
    guid
    mobileSettings {
      networkSettings { aliases { alias hosts } filterMode hideList ignoredStatusCodeRules { hosts statusCodes } showList }
      useCrashReports
    }
    name
  }
}`;

describe('client documents validate against the introspected schema', () => {
  it('client-go’s NRQL query (reference §6.2), and it runs', async () => {
    assert.deepEqual(validationErrors(CLIENT_GO_QUERY), []);
    const reply = await httpGraph(ts, TEST_API_KEY, CLIENT_GO_QUERY, {
      accountId: 1,
      query: "SELECT count(newrelic.timeslice.value) FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' SINCE '2024-03-05 14:25:00Z' UNTIL '2024-03-05 14:27:00Z'",
    });
    const body = reply.json();
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    // HttpDispatcher calls of web-shop at 14:25 and 14:26: 10 + 6 + 24.
    assert.deepEqual(body.data.actor.account.nrql.results, [{ 'count.newrelic.timeslice.value': 40 }]);
    assert.equal(body.data.actor.account.nrql.currentResults, null);
  });

  it('the reference’s extended selection (§6.2 list), and it runs', async () => {
    const document = `query($query: Nrql!, $accountId: Int!) { actor { account(id: $accountId) { nrql(query: $query) { ${EXTENDED_FIELDS} } } } }`;
    assert.deepEqual(validationErrors(document), []);
    const body = (await httpGraph(ts, TEST_API_KEY, document, { accountId: 1, query: "SELECT count(*) FROM Metric WHERE appName = 'stale-app' SINCE 1 hour ago" })).json();
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    const nrql = body.data.actor.account.nrql;
    // stale-app sent one harvest of one metric: one timeslice.
    assert.deepEqual(nrql.results, [{ count: 1 }]);
    assert.deepEqual(nrql.queryProgress, { completed: true, queryId: null, retryAfter: null, resultExpiration: null, retryDeadline: null });
    assert.deepEqual(nrql.suggestedFacets, []);
    assert.deepEqual(nrql.eventDefinitions, []);
    assert.equal(nrql.nrql, "SELECT count(*) FROM Metric WHERE appName = 'stale-app' SINCE 1 hour ago");
  });

  it('client-go’s QueryExtended and QueryWithAdditionalOptions as sent, with embeddedChartUrl and staticChartUrl', () => {
    // newrelic-client-go pkg/nrdb/nrdb_query.go selects both chart URLs in these two documents;
    // reference §6.1 lists them on NrdbResultContainer. Without them `newrelic nrql query` style
    // calls fail validation.
    assert.deepEqual(validationErrors(CLIENT_GO_EXTENDED), []);
    assert.deepEqual(validationErrors(CLIENT_GO_WITH_TIMEOUT), []);
  });

  it('client-go’s agentApplicationSettingsUpdate selection (reference §9.1)', () => {
    assert.deepEqual(validationErrors(CLIENT_GO_SETTINGS_UPDATE), []);
  });

  it('apmSettings both ways: { apdexTarget useServerSideConfig } and { apmConfig { apdexTarget useServerSideConfig } }', () => {
    for (const selection of ['apdexTarget useServerSideConfig', 'apmConfig { apdexTarget useServerSideConfig }']) {
      assert.deepEqual(validationErrors(`query($guid: EntityGuid!) { actor { entity(guid: $guid) { ... on ApmApplicationEntity { apmSettings { ${selection} } } } } }`), [], selection);
      assert.deepEqual(validationErrors(`mutation($guid: EntityGuid!) { agentApplicationSettingsUpdate(guid: $guid, settings: {apmConfig: {apdexTarget: 0.4}}) { guid apmSettings { ${selection} } } }`), [], selection);
    }
  });

  it('a field the subset lacks fails validation rather than answering null', () => {
    assert.deepEqual(validationErrors('{ actor { entity(guid: "x") { tracingSummary { errorTraceCount } } } }'), ['Cannot query field "tracingSummary" on type "Entity".']);
  });

  it('the reference’s own examples validate (entity with type conditions, key transaction, entities, search, account NRQL)', () => {
    const guid = handGuid(1, 'APM|APPLICATION', ids.webShop);
    for (const document of [
      `{ actor { entity(guid: "${guid}") { __typename guid name reporting alertSeverity ... on ApmApplicationEntity { applicationId language apmSummary { responseTimeAverage throughput errorRate apdexScore hostCount instanceCount } settings { apdexTarget serverSideConfig } } } } }`,
      `{ actor { entity(guid: "${guid}") { name ... on KeyTransactionEntity { apdexTarget metricName application { guid entity { name } } } } } }`,
      `{ actor { entities(guids: ["${guid}"]) { name entityType ... on MobileApplicationEntity { applicationId mobileSummary { crashCount crashRate } } } } }`,
      'query($q: String) { actor { entitySearch(query: $q) { count query results { nextCursor entities { __typename guid name entityType domain type accountId reporting alertSeverity ... on ApmApplicationEntityOutline { applicationId language apmSummary { apdexScore errorRate responseTimeAverage throughput hostCount instanceCount } } } } } } }',
      'query($accountId: Int!, $query: Nrql!) { actor { account(id: $accountId) { nrql(query: $query) { results totalResult otherResult metadata { eventTypes facets messages timeWindow { begin end since until compareWith } } nrql } } } }',
      '{ actor { user { email name } } requestContext { userId } }',
    ]) {
      assert.deepEqual(validationErrors(document), [], document);
    }
  });
});
