/**
 * Key transactions reach the agents and leave with their application: the connect reply hands
 * out each key transaction's Apdex T by transaction metric name (`web_transactions_apdex`, which
 * the agents classify `Apdex/…` by), and deleting the application deletes its key transactions
 * and its browser side.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectAgent } from '../helpers/collector-client.js';
import { sample } from '../helpers/samples.js';
import { ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

const connectBody = (appName: string) => {
  const body = structuredClone(sample('connect-request').body) as [Record<string, unknown>];
  body[0] = { ...body[0], app_name: [appName] };
  return body;
};

describe('key transactions and the agent protocol', () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 22, 9));
  let ts: TestServer;
  before(async () => { ts = await startTestServer({}, { clock }); });
  after(async () => { await ts?.stop(); });

  it('the connect reply carries each key transaction Apdex T; an app without any gets {}', async () => {
    const first = await connectAgent(ts.server, TEST_LICENSE_KEY, connectBody('shop'));
    assert.deepEqual(first.connectReply.web_transactions_apdex, {});
    const app = ts.server.catalog.application(Number(first.connectReply.application_id))!;
    await ts.server.entities.keyTransactions.create({ application: app, name: 'Checkout', metricName: 'WebTransaction/Expressjs/POST//checkout', apdexT: 0.1 });
    await ts.server.entities.keyTransactions.create({ application: app, name: 'Search', metricName: 'WebTransaction/Expressjs/GET//search' });
    const again = await connectAgent(ts.server, TEST_LICENSE_KEY, connectBody('shop'));
    assert.deepEqual(again.connectReply.web_transactions_apdex, {
      'WebTransaction/Expressjs/POST//checkout': 0.1,
      'WebTransaction/Expressjs/GET//search': 0.5, // the application's T: New Relic's default, never changed here
    });
    const other = await connectAgent(ts.server, TEST_LICENSE_KEY, connectBody('other'));
    assert.deepEqual(other.connectReply.web_transactions_apdex, {});
  });

  it('deleting the application deletes its key transactions and its browser side, not a standalone browser app', async () => {
    const app = ts.server.catalog.applications(1).find((a) => a.name === 'other')!;
    await ts.server.entities.keyTransactions.create({ application: app, name: 'Gone', metricName: 'WebTransaction/Custom/gone' });
    await ts.server.entities.browserApplications.create({ accountId: 1, name: 'other (browser)', apmApplicationId: app.id });
    await ts.server.entities.browserApplications.create({ accountId: 1, name: 'standalone' });
    const rows = async () => (await ts.server.db.all<{ kt: bigint; side: bigint; all: bigint }>(
      `SELECT (SELECT count(*) FROM key_transactions WHERE app_id = $1) AS kt,
              (SELECT count(*) FROM browser_applications WHERE apm_app_id = $1) AS side,
              (SELECT count(*) FROM browser_applications) AS "all"`, [app.id]))
      .map((r) => [Number(r.kt), Number(r.side), Number(r.all)]);
    assert.deepEqual(await rows(), [[1, 1, 2]]);
    clock.ms += 60 * 60_000; // no longer reporting
    await ts.server.catalog.deleteApplication(app.id);
    assert.deepEqual(await rows(), [[0, 0, 1]]);
  });
});
