import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { httpGraphData as graphData, httpRest as rest } from '../helpers/http-client.js';
import { TEST_LICENSE_KEY } from '../helpers/test-server.js';
import { startScenario, type Scenario } from './rest-scenario.js';

/*
 * Issue 19: New Relic stores deployments made through REST v2, deployments.xml and
 * changeTrackingCreateDeployment as `Deployment` events and changeTrackingCreateEvent's as
 * `ChangeTrackingEvent`s. The spec's listing (§4.4 note 7) finds each deployment once whichever
 * way it was made, and a deployment deleted through REST leaves the graph's `deployments` and
 * `deploymentSearch` as it leaves REST's list. Every call goes over HTTP to the listening service.
 */

let s: Scenario;
before(async () => {
  s = await startScenario();
});
after(async () => {
  await s?.ts.stop();
});

const guidOf = (appId: number) => Buffer.from(`1|APM|APPLICATION|${appId}`).toString('base64').replace(/=+$/, '');

async function nrql(query: string): Promise<Record<string, unknown>[]> {
  const data = await graphData(s.ts, 'query($q: Nrql!) { actor { nrql(accounts: [1], query: $q) { results } } }', { q: query });
  return data.actor.nrql.results;
}

/** The spec's deployment listing (§4.4 note 7), verbatim but for the GUID. */
const listing = (guid: string) =>
  `SELECT eventType(), deploymentId, changeTrackingId, version FROM ChangeTrackingEvent, Deployment ` +
  `WHERE (eventType() = 'Deployment' OR (eventType() = 'ChangeTrackingEvent' AND category = 'Deployment')) ` +
  `AND entity.guid = '${guid}' SINCE 1 WEEK AGO LIMIT 100`;

describe('deployments as Deployment and ChangeTrackingEvent events', () => {
  it('each API stores the event type New Relic does, and the listing finds every deployment once', async () => {
    const guid = guidOf(s.checkout);
    assert.deepEqual(await nrql('SELECT count(*) FROM Deployment SINCE 1 week ago'), [{ count: 0 }]);

    const v2 = await rest(s.ts, 'POST', `/v2/applications/${s.checkout}/deployments.json`, { body: { deployment: { revision: 'r-rest' } } });
    assert.equal(v2.status, 201);
    s.clock.ms += 1000;
    const v0 = await rest(s.ts, 'POST', '/deployments.xml', {
      key: null,
      headers: { 'x-license-key': TEST_LICENSE_KEY, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'deployment%5Bapplication_id%5D=checkout-web&deployment%5Brevision%5D=r-xml',
    });
    assert.equal(v0.status, 201);
    s.clock.ms += 1000;
    await graphData(s.ts, `mutation { changeTrackingCreateDeployment(deployment: {entityGuid: "${guid}", version: "r-legacy"}) { version } }`);
    s.clock.ms += 1000;
    await graphData(s.ts, `mutation { changeTrackingCreateEvent(changeTrackingEvent: {
      categoryAndTypeData: {kind: {category: "deployment", type: "basic"}, categoryFields: {deployment: {version: "r-event"}}},
      entitySearch: {query: "id = '${guid}'"}}) { changeTrackingEvent { changeTrackingId } } }`);
    s.clock.ms += 1000;
    await graphData(s.ts, `mutation { changeTrackingCreateEvent(changeTrackingEvent: {
      categoryAndTypeData: {kind: {category: "feature flag", type: "basic"}, categoryFields: {featureFlag: {featureFlagId: "ff-1"}}},
      entitySearch: {query: "id = '${guid}'"}}) { changeTrackingEvent { changeTrackingId } } }`);
    s.clock.ms += 1000;

    assert.deepEqual(await nrql('SELECT count(*) FROM Deployment SINCE 1 week ago'), [{ count: 3 }]);
    assert.deepEqual(await nrql('SELECT count(*) FROM ChangeTrackingEvent SINCE 1 week ago'), [{ count: 2 }]);
    const rows = await nrql(listing(guid));
    // Newest first: the graph's event, then the three Deployment events. Deployment ids 1–3 are REST's, the graph's
    // changeTrackingCreateEvent deployment (a ChangeTrackingEvent) has id 4.
    assert.deepEqual(rows.map((r) => [r['eventType'], r.deploymentId, r.version]), [
      ['ChangeTrackingEvent', 4, 'r-event'],
      ['Deployment', 3, 'r-legacy'],
      ['Deployment', 2, 'r-xml'],
      ['Deployment', 1, 'r-rest'],
    ]);
    assert.equal(new Set(rows.map((r) => r.changeTrackingId)).size, 4);
  });

  it('a deployment deleted through REST leaves REST, deployments and deploymentSearch alike; NRQL keeps its event', async () => {
    const guid = guidOf(s.checkout);
    assert.equal((await rest(s.ts, 'DELETE', `/v2/applications/${s.checkout}/deployments/2.json`)).status, 200);
    s.clock.ms += 1000;

    const restList = (await rest(s.ts, 'GET', `/v2/applications/${s.checkout}/deployments.json`)).json().deployments;
    assert.deepEqual(restList.map((d: { revision: string }) => d.revision), ['r-event', 'r-legacy', 'r-rest']);

    const data = await graphData(s.ts, `{ actor { entity(guid: "${guid}") { ... on ApmApplicationEntity {
      deployments { revision }
      deploymentSearch { results { version } } } } } }`);
    assert.deepEqual(data.actor.entity.deployments.map((d: { revision: string }) => d.revision), ['r-event', 'r-legacy', 'r-rest']);
    assert.deepEqual(data.actor.entity.deploymentSearch.results.map((d: { version: string }) => d.version), ['r-event', 'r-legacy', 'r-rest']);

    assert.deepEqual((await nrql(listing(guid))).map((r) => r.version), ['r-event', 'r-legacy', 'r-xml', 'r-rest']);
  });
});
