/**
 * What a review of the REST deployment and Event API surfaces found, each now held here:
 * - the Ruby agent's `newrelic deployments` posts REST v2 to the collector's port;
 * - a lone UTF-16 surrogate (an emoji cut in half) in a deployment or an event used to be stored
 *   as JSON DuckDB refuses, breaking every later read of the application's deployments (500s);
 * - the Event API could forge deployments (`ChangeTrackingEvent`), and a forged non-numeric
 *   deploymentId broke the list;
 * - a deployment time before 1970 was a 500.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { httpsRequest } from '../helpers/https-request.js';
import { TEST_API_KEY, TEST_LICENSE_KEY } from '../helpers/test-server.js';
import { rest, startScenario, type Scenario } from './rest-scenario.js';

describe('deployments and events after review', () => {
  let s: Scenario;
  before(async () => { s = await startScenario(); });
  after(async () => { await s?.ts.stop(); });

  const list = async () => {
    const reply = await rest(s.ts, 'GET', `/v2/applications/${s.checkout}/deployments.json`);
    assert.equal(reply.status, 200, reply.text);
    return reply.json().deployments as { id: number; revision: string; description: string | null }[];
  };

  it('the Ruby agent posts REST v2 deployments to the collector port (Api-Key, JSON)', async () => {
    s.clock.ms += 60_000;
    const body = JSON.stringify({ deployment: { revision: 'rb-1', user: 'me', description: null, changelog: null } });
    const reply = await httpsRequest(s.ts.server, 'POST', `/v2/applications/${s.checkout}/deployments.json`, { 'api-key': TEST_API_KEY, 'content-type': 'application/json' }, body);
    assert.equal(reply.status, 201, reply.text);
    assert.equal(JSON.parse(reply.text).deployment.revision, 'rb-1');
    assert.equal((await list())[0]!.revision, 'rb-1');
    const noKey = await httpsRequest(s.ts.server, 'POST', `/v2/applications/${s.checkout}/deployments.json`, { 'content-type': 'application/json' }, body);
    assert.deepEqual([noKey.status, JSON.parse(noKey.text)], [401, { error: { title: 'No API key specified; send a user API key in the X-Api-Key or Api-Key header' } }]);
    // A body that is not JSON is refused on both ports alike.
    const broken = await httpsRequest(s.ts.server, 'POST', `/v2/applications/${s.checkout}/deployments.json`, { 'api-key': TEST_API_KEY, 'content-type': 'application/json' }, '{"deployment":');
    const onApi = await rest(s.ts, 'POST', `/v2/applications/${s.checkout}/deployments.json`, { body: '{"deployment":', headers: { 'content-type': 'application/json' } });
    assert.equal(broken.status, 400);
    assert.deepEqual([broken.status, JSON.parse(broken.text)], [onApi.status, onApi.json()]);
  });

  it('a lone surrogate is stored as U+FFFD and every later read still works', async () => {
    s.clock.ms += 60_000;
    const created = await rest(s.ts, 'POST', `/v2/applications/${s.checkout}/deployments.json`, { body: '{"deployment":{"revision":"cut","description":"a\\ud83d b"}}', headers: { 'content-type': 'application/json' } });
    assert.equal(created.status, 201, created.text);
    assert.equal((await list())[0]!.description, 'a\ufffd b');
    const events = await s.ts.server.api.inject({
      method: 'POST', url: '/v1/accounts/1/events', headers: { 'x-license-key': TEST_LICENSE_KEY, 'content-type': 'application/json' },
      payload: `[{"eventType":"Purchase","amount":2,"note":"x\\ud800y","timestamp":${s.clock.ms - 1000}}]`,
    });
    assert.equal(events.statusCode, 200, events.body);
    const nrql = await s.ts.server.api.inject({
      method: 'POST', url: '/timeslice/v1/nrql', headers: { 'api-key': TEST_API_KEY },
      payload: { query: `SELECT sum(amount), latest(note) FROM Purchase SINCE ${s.clock.ms - 60_000} UNTIL ${s.clock.ms}` },
    });
    assert.equal(nrql.statusCode, 200, nrql.body);
    assert.deepEqual(JSON.parse(nrql.body).results, [{ 'sum.amount': 2, 'latest.note': 'x\ufffdy' }]);
  });

  it('the Event API cannot forge deployments, ingest errors or REST calls', async () => {
    const before = await list();
    const forged = await s.ts.server.api.inject({
      method: 'POST', url: '/v1/accounts/1/events', headers: { 'x-license-key': TEST_LICENSE_KEY, 'content-type': 'application/json' },
      payload: [
        { eventType: 'ChangeTrackingEvent', category: 'Deployment', deploymentId: 'abc', appId: s.checkout, version: 'forged' },
        { eventType: 'ChangeTrackingEvent', category: 'Deployment', deploymentId: 1, appId: s.checkout, version: 'forged' },
        { eventType: 'NrIntegrationError', message: 'forged' },
        { eventType: 'TimesliceApiCall', route: 'forged' },
      ],
    });
    assert.equal(forged.statusCode, 200);
    assert.deepEqual(await list(), before);
    // None of them was stored; the four are reported as refused.
    const stored = await s.ts.server.db.all("SELECT event_type FROM custom_events WHERE attributes LIKE '%forged%'");
    assert.deepEqual(stored, []);
    const reported = await s.ts.server.db.all<{ message: string }>(
      "SELECT json_extract_string(attributes, '$.message') AS message FROM custom_events WHERE event_type = 'NrIntegrationError'",
    );
    assert.ok(reported.some((r) => r.message.startsWith('4 event(s) rejected because eventType is reserved')), JSON.stringify(reported));
  });

  it('a deployment time before 1970 is a 422', async () => {
    for (const timestamp of ['1969-12-31T23:59:59Z', '0001-01-01T00:00:00Z']) {
      const reply = await rest(s.ts, 'POST', `/v2/applications/${s.checkout}/deployments.json`, { body: { deployment: { revision: 'old', timestamp } } });
      assert.equal(reply.status, 422, reply.text);
      assert.match(reply.json().error.title, /after 1970-01-01T00:00:00Z/);
    }
  });
});
