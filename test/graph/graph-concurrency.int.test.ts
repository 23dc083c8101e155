import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { graph } from '../helpers/graph-client.js';
import { connectApp } from '../helpers/rest-fixture.js';
import { apmGuid, startGraphFixture, type GraphFixture } from './mutations-fixture.js';

/*
 * Mutations racing on one application. Deleting an application while a key transaction or its
 * browser side is being created for it must not leave either behind — neither in memory nor in
 * the store, where a restart would bring it back — and two concurrent "enable browser" calls end
 * with one browser side that both answer.
 */

describe('mutations racing on one application', () => {
  let f: GraphFixture;
  before(async () => {
    f = await startGraphFixture();
  });
  after(() => f?.ts.stop());

  it('delete against key transaction and browser creates: nothing survives the application, also after a restart', async () => {
    const appIds: number[] = [];
    for (let i = 0; i < 8; i++) appIds.push((await connectApp(f.ts, `racing-${i}`, 'web-1', 5000 + i)).appId);
    // Never reported metric data, so deletion is allowed at once. 8 × 3 requests: within the 25 a key may have in flight.
    const outcomes = await Promise.all(appIds.flatMap((id) => [
      graph(f.ts, `mutation { agentApplicationDelete(guid: "${apmGuid(id)}") { success } }`),
      graph(f.ts, `mutation { agentApplicationEnableApmBrowser(guid: "${apmGuid(id)}") { name } }`),
      graph(f.ts, `mutation { keyTransactionCreate(applicationGuid: "${apmGuid(id)}", apdexTarget: 0.5, browserApdexTarget: 7, metricName: "WebTransaction/Expressjs/GET//r", name: "kt-${id}") { name } }`),
    ]));
    // Every call answered, either way: success, or NOT_FOUND for a create that came after the delete.
    for (const reply of outcomes) {
      assert.equal(reply.status, 200);
      for (const error of reply.body.errors ?? []) assert.equal(error.extensions?.errorClass, 'NOT_FOUND', error.message);
    }
    const orphans = async () => ({
      browser: f.ts.server.entities.browserApplications.list(1).filter((b) => b.apmApplicationId !== null && appIds.includes(b.apmApplicationId)).length,
      keyTransactions: f.ts.server.entities.keyTransactions.list(1).filter((kt) => appIds.includes(kt.appId)).length,
      rows: Number((await f.ts.server.db.all<{ n: bigint }>(
        `SELECT (SELECT count(*) FROM key_transactions WHERE app_id IN (${appIds.join(',')})) +
                (SELECT count(*) FROM browser_applications WHERE apm_app_id IN (${appIds.join(',')})) AS n`,
      ))[0]!.n),
    });
    assert.deepEqual(await orphans(), { browser: 0, keyTransactions: 0, rows: 0 });
    await f.ts.restart();
    assert.deepEqual(await orphans(), { browser: 0, keyTransactions: 0, rows: 0 });
  });

  it('two concurrent enable-browser calls make one browser side, and both answer it', async () => {
    const { appId } = await connectApp(f.ts, 'enable-twice', 'web-1', 6000);
    const [a, b] = await Promise.all([0, 1].map(() => graph(f.ts, `mutation { agentApplicationEnableApmBrowser(guid: "${apmGuid(appId)}") { name settings { loaderType } } }`)));
    assert.deepEqual([a!.body, b!.body], [0, 1].map(() => ({ data: { agentApplicationEnableApmBrowser: { name: 'enable-twice', settings: { loaderType: 'SPA' } } } })));
    assert.equal(f.ts.server.entities.browserApplications.list(1).filter((s) => s.apmApplicationId === appId).length, 1);
  });
});
