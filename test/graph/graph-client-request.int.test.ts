import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ClientError, gql, GraphQLClient } from 'graphql-request';
import { ManualClock, startTestServer, TEST_API_KEY } from '../helpers/rest-fixture.js';
import type { TestServer } from '../helpers/test-server.js';
import { EXPECTED, handGuid, loadApmScenario, nearly, NOW, nrqlTime, type ScenarioIds } from './graph-scenario.js';

/*
 * The spec's graph operations through an unmodified third-party client: graphql-request 7's
 * `GraphQLClient`, pointed at the server's real HTTP address with the key in `Api-Key`, as a
 * script migrating from REST v2 would use it. Answers are checked against the scenario's
 * hand-worked values (graph-scenario.ts); errors come back as the client's `ClientError` with
 * the server's `errors` and status. (A mutation over GET is refused, graph-transport tests it; this
 * client sends mutations by POST even in its GET mode.)
 */

let ts: TestServer;
let ids: ScenarioIds;
let client: GraphQLClient;
let endpoint: string;

before(async () => {
  const clock = new ManualClock(NOW);
  ts = await startTestServer({}, { clock });
  ids = await loadApmScenario(ts, clock);
  endpoint = `${ts.server.apiUrl}/graphql`;
  client = new GraphQLClient(endpoint, { headers: { 'Api-Key': TEST_API_KEY } });
});
after(() => ts?.stop());

const FIND_APPLICATION = gql`
  query FindApplication($query: String!) {
    actor {
      entitySearch(query: $query) {
        count
        results {
          nextCursor
          entities { __typename guid name reporting ... on ApmApplicationEntityOutline { applicationId language apmSummary { responseTimeAverage throughput errorRate apdexScore } } }
        }
      }
    }
  }
`;

const SHOW_APPLICATION = gql`
  query ShowApplication($guid: EntityGuid!) {
    actor {
      entity(guid: $guid) {
        __typename guid name reporting alertSeverity
        ... on ApmApplicationEntity {
          applicationId language
          apmSummary { responseTimeAverage throughput errorRate apdexScore hostCount instanceCount }
          settings { apdexTarget serverSideConfig }
        }
      }
    }
  }
`;

const METRIC_DATA = gql`
  query MetricData($accounts: [Int!]!, $query: Nrql!) {
    actor { nrql(accounts: $accounts, query: $query) { results metadata { eventTypes facets timeWindow { begin end } } } }
  }
`;

interface FindApplication {
  actor: { entitySearch: { count: number; results: { nextCursor: string | null; entities: Record<string, any>[] } } };
}

describe('graphql-request against the graph API', () => {
  it('list applications, then find one by its REST id (entitySearch by domainId)', async () => {
    const list = await client.request<FindApplication>(FIND_APPLICATION, { query: "domain = 'APM' AND type = 'APPLICATION'" });
    assert.deepEqual(list.actor.entitySearch.results.entities.map((e) => [e.name, e.applicationId, e.reporting]), [
      ['batch-worker', ids.batchWorker, true], ['stale-app', ids.staleApp, false], ['web-shop', ids.webShop, true],
    ]);
    const found = await client.request<FindApplication>(FIND_APPLICATION, { query: `domainId = '${ids.webShop}' AND domain = 'APM'` });
    assert.equal(found.actor.entitySearch.count, 1);
    assert.equal(found.actor.entitySearch.results.nextCursor, null);
    const [app] = found.actor.entitySearch.results.entities;
    assert.equal(app!.__typename, 'ApmApplicationEntityOutline');
    assert.equal(app!.guid, handGuid(1, 'APM|APPLICATION', ids.webShop));
    for (const key of ['responseTimeAverage', 'throughput', 'errorRate', 'apdexScore'] as const) {
      assert.ok(nearly(app!.apmSummary[key], EXPECTED.webShop[key]), `${key}: ${app!.apmSummary[key]}`);
    }
  });

  it('show an application by GUID', async () => {
    const guid = handGuid(1, 'APM|APPLICATION', ids.batchWorker);
    const shown = await client.request<{ actor: { entity: Record<string, any> } }>(SHOW_APPLICATION, { guid });
    const { apmSummary, ...rest } = shown.actor.entity;
    assert.deepEqual(rest, {
      __typename: 'ApmApplicationEntity', guid, name: 'batch-worker', reporting: true, alertSeverity: 'NOT_CONFIGURED',
      applicationId: ids.batchWorker, language: 'nodejs', settings: { apdexTarget: 0.5, serverSideConfig: false },
    });
    assert.deepEqual(Object.keys(apmSummary).sort(), ['apdexScore', 'errorRate', 'hostCount', 'instanceCount', 'responseTimeAverage', 'throughput']);
    for (const [key, value] of Object.entries(apmSummary)) assert.ok(nearly(value, EXPECTED.batchWorker[key as keyof typeof EXPECTED.batchWorker]), `${key}: ${value}`);
  });

  it('metric data through NRQL, accounts as a single value the client sends as given', async () => {
    const answer = await client.request<{ actor: { nrql: any } }>(METRIC_DATA, {
      accounts: 1,
      query: `SELECT count(service.timeslice.value) AS call_count, average(service.timeslice.value) * 1000 AS average_response_time FROM Metric WHERE appName = 'web-shop' AND metricTimesliceName = 'HttpDispatcher' SINCE ${nrqlTime(25)} UNTIL ${nrqlTime(27)}`,
    });
    // 10 + 6 + 24 calls taking 2.1 + 1.2 + 4.0 s: 182.5 ms on average.
    assert.equal(answer.actor.nrql.results.length, 1);
    assert.equal(answer.actor.nrql.results[0].call_count, 40);
    assert.ok(nearly(answer.actor.nrql.results[0].average_response_time, 182.5));
    assert.deepEqual(answer.actor.nrql.metadata, { eventTypes: ['Metric'], facets: null, timeWindow: { begin: Date.UTC(2024, 2, 5, 14, 25), end: Date.UTC(2024, 2, 5, 14, 27) } });
  });

  it('account.nrql with client-go’s selection and entities(guids) in one document', async () => {
    const answer = await client.request<any>(gql`
      query Both($accountId: Int!, $query: Nrql!, $guids: [EntityGuid]!) {
        actor {
          account(id: $accountId) { nrql(query: $query) { currentResults otherResult previousResults results totalResult metadata { eventTypes facets messages timeWindow { begin compareWith end since until } } } }
          entities(guids: $guids) { __typename name }
        }
      }
    `, {
      accountId: 1,
      query: `SELECT count(service.timeslice.value) AS calls FROM Metric WHERE metricTimesliceName = 'OtherTransaction/all' FACET appName SINCE ${nrqlTime(20)} UNTIL ${nrqlTime(30)}`,
      guids: [ids.staleApp, ids.webShop].map((id) => handGuid(1, 'APM|APPLICATION', id)),
    });
    // batch-worker: three harvests of 6.
    assert.deepEqual(answer.actor.account.nrql.results, [{ facet: 'batch-worker', appName: 'batch-worker', calls: 18 }]);
    assert.deepEqual(answer.actor.account.nrql.totalResult, { calls: 18 });
    assert.deepEqual(answer.actor.account.nrql.otherResult, { calls: 0 });
    assert.deepEqual(answer.actor.entities, [{ __typename: 'ApmApplicationEntity', name: 'stale-app' }, { __typename: 'ApmApplicationEntity', name: 'web-shop' }]);
  });

  it('rawRequest: status, headers and data', async () => {
    const raw = await client.rawRequest<{ requestContext: { userId: string } }>('{ requestContext { userId } }');
    assert.equal(raw.status, 200);
    assert.match(raw.headers.get('content-type') ?? '', /^application\/json/);
    assert.match(raw.data.requestContext.userId, /^\d+$/);
    assert.equal(raw.errors, undefined);
  });

  it('the client’s GET mode: queries go as GET parameters and are answered', async () => {
    const methods: string[] = [];
    const viaGet = new GraphQLClient(endpoint, {
      method: 'GET',
      headers: { 'Api-Key': TEST_API_KEY },
      fetch: (url, init) => {
        methods.push(`${init?.method} ${new URL(String(url)).search.startsWith('?query=') ? 'query-in-url' : 'no-query-in-url'}`);
        return fetch(url, init);
      },
    });
    const found = await viaGet.request<FindApplication>(FIND_APPLICATION, { query: "name = 'stale-app'" });
    assert.deepEqual(found.actor.entitySearch.results.entities.map((e) => [e.name, e.reporting, e.apmSummary]), [['stale-app', false, null]]);
    assert.deepEqual(methods, ['GET query-in-url']);
  });

  it('errors: a ClientError carrying the response’s errors and data', async () => {
    const error = await client.request(METRIC_DATA, { accounts: [1], query: 'SELECT count(*) FRM Metric' }).then(
      () => assert.fail('bad NRQL must fail'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ClientError);
    assert.equal(error.response.status, 200);
    assert.equal(error.response.errors?.length, 1);
    const [first] = error.response.errors!;
    assert.deepEqual(first!.path, ['actor', 'nrql']);
    assert.equal(first!.extensions?.errorClass, 'INVALID_INPUT');
    assert.equal(first!.extensions?.nrqlErrorCode, 'NRQL_SYNTAX');
    assert.deepEqual(error.response.data, { actor: { nrql: null } });
    assert.equal(error.request.variables && (error.request.variables as { query: string }).query, 'SELECT count(*) FRM Metric');

    // errorPolicy 'all' hands over both.
    const lenient = new GraphQLClient(endpoint, { headers: { 'Api-Key': TEST_API_KEY }, errorPolicy: 'all' });
    const both = await lenient.rawRequest<any>('{ actor { user { id } account(id: 999) { id } } }');
    assert.equal(typeof both.data.actor.user.id, 'number');
    assert.equal(both.data.actor.account, null);
    assert.equal(both.errors?.[0]?.extensions?.errorClass, 'FORBIDDEN');
  });

  it('a wrong key: a ClientError with status 401 and error_code BAD_API_KEY', async () => {
    const stranger = new GraphQLClient(endpoint, { headers: { 'Api-Key': 'NRAK-WRONGKEY00000000000000000' } });
    const error = await stranger.request('{ actor { user { id } } }').then(() => assert.fail('a wrong key must fail'), (e: unknown) => e);
    assert.ok(error instanceof ClientError);
    assert.equal(error.response.status, 401);
    assert.equal(error.response.errors?.[0]?.extensions?.error_code, 'BAD_API_KEY');
  });

  it('a validation error: a ClientError with the location of the unknown field', async () => {
    const error = await client.request('{ actor { entity(guid: "x") { nope } } }').then(() => assert.fail('must fail validation'), (e: unknown) => e);
    assert.ok(error instanceof ClientError);
    assert.equal(error.response.status, 200);
    assert.equal(error.response.errors?.[0]?.message, 'Cannot query field "nope" on type "Entity". Did you mean "name" or "type"?');
    assert.deepEqual(error.response.errors?.[0]?.locations, [{ line: 1, column: 31 }]);
  });
});
