import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { graphData } from '../helpers/graph-client.js';
import { ManualClock, rest, startTestServer } from '../helpers/rest-fixture.js';
import type { TestServer } from '../helpers/test-server.js';
import { EXPECTED, handGuid, loadApmScenario, nearly, NOW, significant, type ScenarioIds } from './graph-scenario.js';

/*
 * One application read three ways: REST `GET /v2/applications/{id}.json`, the graph's
 * `entity(guid)` and `entitySearch(query: "domainId = '<id>' AND domain = 'APM'")`. They must
 * agree on the name, the ids (REST id = applicationId = the GUID's domainId), reporting, and the
 * summary (graph seconds × 1000 to REST's 3-figure ms, fractions × 100 to REST's percent, Apdex
 * to 2 decimals), and each graph number must equal the one worked out by hand from the sent
 * timeslices (graph-scenario.ts). Three applications: web with queue time, background only, and
 * one that stopped reporting (graph summary null, REST summary absent).
 */

const SUMMARY_FIELDS = 'apdexScore errorRate hostCount instanceCount nonWebResponseTimeAverage nonWebThroughput responseTimeAverage throughput webResponseTimeAverage webThroughput';
const ENTITY = `query($guid: EntityGuid!) { actor { entity(guid: $guid) { __typename guid name accountId domain type entityType reporting
  ... on ApmApplicationEntity { applicationId language apmSummary { ${SUMMARY_FIELDS} } } } } }`;
const SEARCH = `query($q: String) { actor { entitySearch(query: $q) { count query results { nextCursor entities { __typename guid name accountId domain type entityType reporting
  ... on ApmApplicationEntityOutline { applicationId language apmSummary { ${SUMMARY_FIELDS} } } } } } } }`;

let ts: TestServer;
let ids: ScenarioIds;

before(async () => {
  const clock = new ManualClock(NOW);
  ts = await startTestServer({}, { clock });
  ids = await loadApmScenario(ts, clock);
});
after(() => ts?.stop());

interface ThreeWays {
  readonly restApp: Record<string, any>;
  readonly entity: Record<string, any>;
  readonly outline: Record<string, any>;
}

async function readThreeWays(id: number): Promise<ThreeWays> {
  const reply = await rest(ts, 'GET', `/v2/applications/${id}.json`);
  assert.equal(reply.status, 200, reply.text);
  const guid = handGuid(1, 'APM|APPLICATION', id);
  const entity = (await graphData(ts, ENTITY, { guid })).actor.entity;
  const query = `domainId = '${id}' AND domain = 'APM'`;
  const search = (await graphData(ts, SEARCH, { q: query })).actor.entitySearch;
  assert.equal(search.count, 1, `one entity has domainId ${id}`);
  assert.equal(search.query, query);
  assert.equal(search.results.nextCursor, null);
  assert.equal(search.results.entities.length, 1);
  return { restApp: reply.json().application, entity, outline: search.results.entities[0] };
}

/** What both graph reads must show besides the summary, from the REST object and the hand-made GUID. */
function assertIdentity(three: ThreeWays, id: number, name: string, reporting: boolean): void {
  const { restApp, entity, outline } = three;
  assert.equal(restApp.id, id);
  assert.equal(restApp.name, name);
  assert.equal(restApp.reporting, reporting);
  const guid = handGuid(1, 'APM|APPLICATION', id);
  // The GUID's last part is the REST id (Node reads unpadded base64).
  assert.equal(Buffer.from(guid, 'base64').toString('latin1'), `1|APM|APPLICATION|${id}`);
  assert.ok(!guid.endsWith('='), 'no padding');
  for (const [label, read, typename] of [['entity', entity, 'ApmApplicationEntity'], ['entitySearch', outline, 'ApmApplicationEntityOutline']] as const) {
    assert.deepEqual(
      { __typename: read.__typename, guid: read.guid, name: read.name, accountId: read.accountId, domain: read.domain, type: read.type, entityType: read.entityType, reporting: read.reporting, applicationId: read.applicationId, language: read.language },
      { __typename: typename, guid, name, accountId: 1, domain: 'APM', type: 'APPLICATION', entityType: 'APM_APPLICATION_ENTITY', reporting, applicationId: id, language: 'nodejs' },
      label,
    );
  }
}

/** Every summary field equal to the hand-worked value; both graph reads the same object. */
function assertGraphSummary(three: ThreeWays, expected: Record<string, number | null>): void {
  assert.deepEqual(three.outline.apmSummary, three.entity.apmSummary, 'entitySearch and entity(guid) show the same summary');
  const summary = three.entity.apmSummary as Record<string, unknown>;
  assert.ok(summary, 'a reporting application has a summary');
  assert.deepEqual(Object.keys(summary).sort(), Object.keys(expected).sort());
  for (const [key, want] of Object.entries(expected)) assert.ok(nearly(summary[key], want), `apmSummary.${key}: ${summary[key]} ≠ ${want}`);
}

/** The graph's numbers in REST's units and roundings equal REST's. */
function assertRestAgrees(three: ThreeWays, restApdex: number): void {
  const s = three.entity.apmSummary;
  const r = three.restApp.application_summary;
  assert.equal(significant(s.responseTimeAverage * 1000, 3), r.response_time, 'response time: seconds × 1000 to 3 figures');
  assert.equal(significant(s.throughput, 3), r.throughput, 'throughput per minute');
  assert.equal(significant(s.errorRate * 100, 3), r.error_rate, 'error rate: fraction × 100');
  assert.equal(r.apdex_score, restApdex);
  assert.equal(s.hostCount, r.host_count);
  assert.equal(s.instanceCount, r.instance_count);
  assert.equal(s.hostCount, three.restApp.links.application_hosts.length);
  assert.equal(s.instanceCount, three.restApp.links.application_instances.length);
}

describe('one application, three ways', () => {
  it('web with queue time: REST, entity(guid) and entitySearch(domainId) agree, and on the hand-worked numbers', async () => {
    const three = await readThreeWays(ids.webShop);
    assertIdentity(three, ids.webShop, 'web-shop', true);
    assertGraphSummary(three, EXPECTED.webShop);
    // REST by hand: 198.75 ms → 199; 4; 7.5 %; 0.8375 → 0.84.
    assert.deepEqual(three.restApp.application_summary, {
      response_time: 199, throughput: 4, error_rate: 7.5, apdex_target: 0.5, apdex_score: 0.84, host_count: 2, instance_count: 2, concurrent_instance_count: 2,
    });
    assertRestAgrees(three, Math.round(three.entity.apmSummary.apdexScore * 100) / 100);
  });

  it('background only: response time and throughput are the background ones; no Apdex in the graph, 0 in REST', async () => {
    const three = await readThreeWays(ids.batchWorker);
    assertIdentity(three, ids.batchWorker, 'batch-worker', true);
    assertGraphSummary(three, EXPECTED.batchWorker);
    // REST by hand: 550 ms; 1.8; 1/18 = 5.555… % → 5.56; REST has no null and shows Apdex 0.
    assert.deepEqual(three.restApp.application_summary, {
      response_time: 550, throughput: 1.8, error_rate: 5.56, apdex_target: 0.5, apdex_score: 0, host_count: 1, instance_count: 1, concurrent_instance_count: 1,
    });
    assertRestAgrees(three, 0);
  });

  it('not reporting: the graph summary is null, REST has no summary, all three say not reporting', async () => {
    const three = await readThreeWays(ids.staleApp);
    assertIdentity(three, ids.staleApp, 'stale-app', false);
    assert.equal(three.entity.apmSummary, null);
    assert.equal(three.outline.apmSummary, null);
    assert.equal(three.restApp.application_summary, undefined);
    assert.equal(three.restApp.last_reported_at, undefined);
    assert.equal(three.restApp.health_status, 'gray');
  });

  it('REST’s application list and the graph’s APM search hold the same applications under the same names and ids', async () => {
    const list = (await rest(ts, 'GET', '/v2/applications.json')).json().applications as { id: number; name: string; reporting: boolean }[];
    const search = (await graphData(ts, SEARCH, { q: "domain = 'APM' AND type = 'APPLICATION'" })).actor.entitySearch;
    const fromRest = list.map((a) => [a.id, a.name, a.reporting, handGuid(1, 'APM|APPLICATION', a.id)]).sort();
    const fromGraph = (search.results.entities as any[]).map((e) => [e.applicationId, e.name, e.reporting, e.guid]).sort();
    assert.deepEqual(fromGraph, fromRest);
    assert.deepEqual(fromRest, [
      [ids.webShop, 'web-shop', true, handGuid(1, 'APM|APPLICATION', ids.webShop)],
      [ids.batchWorker, 'batch-worker', true, handGuid(1, 'APM|APPLICATION', ids.batchWorker)],
      [ids.staleApp, 'stale-app', false, handGuid(1, 'APM|APPLICATION', ids.staleApp)],
    ].sort());
    assert.equal(search.count, 3);
  });
});
