import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeDictionaries } from '../../src/nrql/dictionaries.js';
import { NrqlEngine } from '../../src/nrql/nrql-engine.js';
import { DuckDbPlanExecutor } from '../../src/store/duckdb/duckdb-plan-executor.js';
import { TEST_LICENSE_KEY } from '../helpers/test-server.js';
import { rest, startScenario, type Scenario } from './rest-scenario.js';

/*
 * Deployments made by REST v2 and by deployments.xml are what NRQL reads over ChangeTrackingEvent
 * (spec §4.4 note 7), each stamped with the service.source of the API that made it; a deployment
 * deleted through REST is gone from REST and still there for NRQL. REST calls are countable with
 * `SELECT count(*) FROM TimesliceApiCall FACET route`. Queries run on the service's own NRQL
 * engine over its store.
 */

let s: Scenario;
let executor: DuckDbPlanExecutor;
before(async () => {
  s = await startScenario();
  executor = new DuckDbPlanExecutor(s.ts.server.db);
});
after(async () => {
  executor?.close();
  await s?.ts.stop();
});

const guidOf = (appId: number) => Buffer.from(`1|APM|APPLICATION|${appId}`).toString('base64').replace(/=+$/, '');

async function nrql(query: string): Promise<Record<string, unknown>[]> {
  const engine = new NrqlEngine({ executor, dictionaries: storeDictionaries(s.ts.server.catalog, s.ts.server.metrics), clock: s.clock });
  const answer = await engine.run(query, { accountIds: [1] });
  return answer.results as Record<string, unknown>[];
}

describe('deployments in NRQL', () => {
  it('REST v2 and deployments.xml deployments are ChangeTrackingEvents with their service.source; a REST-deleted one stays', async () => {
    const v2 = await rest(s.ts, 'POST', `/v2/applications/${s.checkout}/deployments.json`, {
      body: { deployment: { revision: '9f1c2ab', user: 'ci-bot', description: 'release 42' } },
    });
    assert.equal(v2.status, 201);
    s.clock.ms += 60_000;
    const v0 = await rest(s.ts, 'POST', '/deployments.xml', {
      key: null,
      headers: { 'x-license-key': TEST_LICENSE_KEY, 'content-type': 'application/octet-stream' },
      body: 'deployment%5Bapplication_id%5D=checkout-web&deployment%5Brevision%5D=4d0e771&deployment%5Buser%5D=deploy',
    });
    assert.equal(v0.status, 201);
    s.clock.ms += 60_000;
    await rest(s.ts, 'POST', `/v2/applications/${s.billing}/deployments.json`, { body: { deployment: { revision: 'other-app' } } });
    s.clock.ms += 60_000;
    assert.equal((await rest(s.ts, 'DELETE', `/v2/applications/${s.checkout}/deployments/1.json`)).status, 200);
    s.clock.ms += 60_000;

    const listed = (await rest(s.ts, 'GET', `/v2/applications/${s.checkout}/deployments.json`)).json().deployments;
    assert.deepEqual(listed.map((d: { id: number; revision: string }) => [d.id, d.revision]), [[2, '4d0e771']]);

    const rows = await nrql(
      `SELECT deploymentId, version, user, service.source, shortDescription FROM ChangeTrackingEvent
       WHERE (eventType() = 'Deployment' OR (eventType() = 'ChangeTrackingEvent' AND category = 'Deployment'))
       AND entity.guid = '${guidOf(s.checkout)}' SINCE 1 WEEK AGO LIMIT 100`,
    );
    assert.deepEqual(rows.map(({ timestamp, ...rest }) => rest).sort((a, b) => Number(a.deploymentId) - Number(b.deploymentId)), [
      { deploymentId: 1, version: '9f1c2ab', user: 'ci-bot', 'service.source': 'timeslice:rest-v2', shortDescription: 'ci-bot deployed version 9f1c2ab to checkout-web' },
      { deploymentId: 2, version: '4d0e771', user: 'deploy', 'service.source': 'timeslice:deployments-v0', shortDescription: 'deploy deployed version 4d0e771 to checkout-web' },
    ]);
    assert.deepEqual(rows.map((r) => r.timestamp).sort(), [Date.UTC(2024, 2, 5, 14, 30, 20), Date.UTC(2024, 2, 5, 14, 31, 20)]);

    const bySource = await nrql(`SELECT count(*) FROM ChangeTrackingEvent WHERE category = 'Deployment' FACET service.source SINCE 1 week ago`);
    assert.deepEqual(bySource.map((r) => [r.facet, r.count]), [['timeslice:rest-v2', 2], ['timeslice:deployments-v0', 1]]);
  });

  it('REST calls are found with SELECT count(*) FROM TimesliceApiCall FACET route', async () => {
    await s.ts.server.apiUsage.flush();
    // NRQL's window ends at now, exclusive: the last call, made at this very millisecond, needs a tick.
    s.clock.ms += 1000;
    const routes = await nrql('SELECT count(*) FROM TimesliceApiCall FACET route SINCE 1 week ago');
    assert.deepEqual(routes.map((r) => [r.facet, r.count]), [
      ['/v2/applications/{id}/deployments.json', 3],
      ['/deployments.xml', 1],
      ['/v2/applications/{id}/deployments/{deploymentId}.json', 1],
    ]);
    const sources = await nrql("SELECT count(*) FROM TimesliceApiCall WHERE status < 300 FACET api, service.source SINCE 1 week ago");
    assert.deepEqual(sources.map((r) => [r.facet, r.count]), [[['REST v2', 'timeslice:rest-v2'], 4], [['Deployments v0', 'timeslice:deployments-v0'], 1]]);
  });
});
