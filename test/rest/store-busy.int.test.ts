import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TEST_LICENSE_KEY } from '../helpers/test-server.js';
import { rest, startScenario, type Scenario } from './rest-scenario.js';

/*
 * When the store cannot take a write (closing, or too far behind), the write endpoints of
 * deployments and events say so with 503, in their API's shape, and store nothing: the client
 * may send it again. The test closes the batch writer under a running server.
 */

let s: Scenario;
before(async () => {
  s = await startScenario();
  await s.ts.server.writer.close();
});
after(() => s?.ts.stop());

describe('a store that cannot take writes', () => {
  it('REST v2 deployments, deployments.xml and the Event API answer 503', async () => {
    const v2 = await rest(s.ts, 'POST', `/v2/applications/${s.checkout}/deployments.json`, { body: { deployment: { revision: 'x' } } });
    assert.equal(v2.status, 503);
    assert.deepEqual(v2.json(), { error: { title: 'The store cannot take the deployment now (the store is closing); send it again shortly' } });
    const v0 = await rest(s.ts, 'POST', '/deployments.xml', {
      key: null, headers: { 'x-license-key': TEST_LICENSE_KEY, 'content-type': 'application/x-www-form-urlencoded' }, body: 'deployment[app_name]=checkout-web',
    });
    assert.equal(v0.status, 503);
    assert.equal(v0.text, '<?xml version="1.0" encoding="UTF-8"?>\n<errors>\n  <error>The store cannot take the deployment now (the store is closing); send it again shortly</error>\n</errors>\n');
    const events = await s.ts.server.api.inject({ method: 'POST', url: '/v1/accounts/1/events', headers: { 'x-insert-key': TEST_LICENSE_KEY }, payload: '[{"eventType":"X"}]' });
    assert.equal(events.statusCode, 503);
    assert.deepEqual(JSON.parse(events.body), { success: false, error: 'Service temporarily unavailable: the store is closing; retry the request' });
    const [count] = await s.ts.server.db.all<{ n: bigint }>("SELECT count(*) AS n FROM custom_events WHERE event_type IN ('ChangeTrackingEvent', 'X')");
    assert.equal(Number(count?.n), 0);
  });
});
