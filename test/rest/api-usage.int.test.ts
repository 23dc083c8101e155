import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashKey } from '../../src/security/keys.js';
import { TEST_API_KEY, TEST_LICENSE_KEY } from '../helpers/test-server.js';
import { rest, startScenario, type Scenario } from './rest-scenario.js';

/*
 * Every REST v2 and Deployments v0 call is a TimesliceApiCall event in custom_events, so that
 * `SELECT count(*) FROM TimesliceApiCall FACET route` finds what still calls REST before the end
 * of life. The rows are written in batches after the responses; the test flushes the batch.
 */

let s: Scenario;
let keyIds: { user: number; license: number };
before(async () => {
  s = await startScenario();
  const keys = await s.ts.server.db.all<{ id: number; key_hash: string }>('SELECT id, key_hash FROM api_keys');
  const idOf = (key: string) => keys.find((k) => k.key_hash === hashKey(key))!.id;
  keyIds = { user: idOf(TEST_API_KEY), license: idOf(TEST_LICENSE_KEY) };
});
after(() => s?.ts.stop());

/** The User-Agent Fastify's inject sends unless told otherwise. */
const INJECT_AGENT = 'lightMyRequest';

interface CallRow {
  account_id: number;
  app_id: number;
  host_id: number;
  instance_id: number;
  ms: bigint;
  attributes: string;
}

async function calls(): Promise<{ accountId: number; appId: number; ms: number; attributes: Record<string, unknown> }[]> {
  await s.ts.server.apiUsage.flush();
  const rows = await s.ts.server.db.all<CallRow>(
    "SELECT account_id, app_id, host_id, instance_id, epoch_ms(timestamp) AS ms, attributes FROM custom_events WHERE event_type = 'TimesliceApiCall'",
  );
  for (const r of rows) assert.deepEqual([r.host_id, r.instance_id], [0, 0]);
  return rows.map((r) => ({ accountId: r.account_id, appId: r.app_id, ms: Number(r.ms), attributes: JSON.parse(r.attributes) }));
}

/** The attributes without the measured duration, which is checked on its own. */
function withoutDuration(attributes: Record<string, unknown>): Record<string, unknown> {
  const { durationMs, ...rest } = attributes;
  assert.equal(typeof durationMs, 'number');
  assert.ok((durationMs as number) >= 0 && (durationMs as number) < 10_000, `durationMs ${durationMs}`);
  return rest;
}

describe('TimesliceApiCall events', () => {
  it('records each call with its route, status, key id, application and source, never the key', async () => {
    const agent = { 'user-agent': 'nightly-report/2.1' };
    assert.equal((await rest(s.ts, 'GET', '/v2/applications.json', { headers: agent })).status, 200);
    assert.equal((await rest(s.ts, 'GET', `/v2/applications/${s.checkout}/metrics/data.xml?names[]=Apdex&summarize=true`)).status, 200);
    assert.equal((await rest(s.ts, 'GET', '/v2/applications/999.json')).status, 404);
    assert.equal((await rest(s.ts, 'GET', '/v2/nothing.json', { headers: agent })).status, 404);
    assert.equal((await rest(s.ts, 'GET', '/v2/applications.json', { key: null })).status, 401);
    // A key the catalog knows but REST v2 does not take: refused, so it authenticated nothing.
    assert.equal((await rest(s.ts, 'GET', '/v2/applications.xml', { key: TEST_LICENSE_KEY })).status, 401);
    assert.equal((await rest(s.ts, 'POST', '/deployments.xml', {
      key: null,
      headers: { 'x-license-key': TEST_LICENSE_KEY, 'content-type': 'application/octet-stream' },
      body: 'deployment[application_id]=billing-worker&deployment[revision]=r1',
    })).status, 201);
    // Not REST: neither is recorded.
    await s.ts.server.api.inject({ method: 'GET', url: '/healthz' });
    await s.ts.server.api.inject({ method: 'POST', url: '/v1/accounts/1/events', headers: { 'x-insert-key': TEST_LICENSE_KEY }, payload: '[]' });

    const recorded = await calls();
    assert.equal(recorded.length, 7);
    const byPath = (path: string, status: number) => recorded.find((c) => c.attributes.path === path && c.attributes.status === status)!;
    const source = 'timeslice:rest-v2';

    const list = byPath('/v2/applications.json', 200);
    assert.deepEqual([list.accountId, list.appId, list.ms], [1, 0, s.clock.ms]);
    assert.deepEqual(withoutDuration(list.attributes), {
      api: 'REST v2', method: 'GET', route: '/v2/applications.json', path: '/v2/applications.json', format: 'json', status: 200,
      apiKeyId: keyIds.user, 'service.source': source, userAgent: 'nightly-report/2.1',
    });
    const data = byPath(`/v2/applications/${s.checkout}/metrics/data.xml`, 200);
    assert.deepEqual([data.accountId, data.appId], [1, s.checkout]);
    assert.deepEqual(withoutDuration(data.attributes), {
      api: 'REST v2', method: 'GET', route: '/v2/applications/{id}/metrics/data.xml', path: `/v2/applications/${s.checkout}/metrics/data.xml`,
      format: 'xml', status: 200, apiKeyId: keyIds.user, 'service.source': source, userAgent: INJECT_AGENT, appId: s.checkout,
    });
    assert.deepEqual(withoutDuration(byPath('/v2/applications/999.json', 404).attributes), {
      api: 'REST v2', method: 'GET', route: '/v2/applications/{id}.json', path: '/v2/applications/999.json', format: 'json', status: 404,
      apiKeyId: keyIds.user, 'service.source': source, userAgent: INJECT_AGENT,
    });
    assert.deepEqual(withoutDuration(byPath('/v2/nothing.json', 404).attributes), {
      api: 'REST v2', method: 'GET', route: '(no route)', path: '/v2/nothing.json', format: 'json', status: 404,
      apiKeyId: keyIds.user, 'service.source': source, userAgent: 'nightly-report/2.1',
    });
    const anonymous = byPath('/v2/applications.json', 401);
    assert.equal(anonymous.accountId, 0, 'no key: no account to file it under');
    assert.deepEqual(withoutDuration(anonymous.attributes), {
      api: 'REST v2', method: 'GET', route: '/v2/applications.json', path: '/v2/applications.json', format: 'json', status: 401,
      'service.source': source, userAgent: INJECT_AGENT,
    });
    const licenseOnRest = byPath('/v2/applications.xml', 401);
    assert.equal(licenseOnRest.accountId, 0, 'a refused key files the call under no account');
    assert.deepEqual(withoutDuration(licenseOnRest.attributes), {
      api: 'REST v2', method: 'GET', route: '/v2/applications.xml', path: '/v2/applications.xml', format: 'xml', status: 401,
      'service.source': source, userAgent: INJECT_AGENT,
    });
    const v0 = byPath('/deployments.xml', 201);
    assert.deepEqual([v0.accountId, v0.appId], [1, s.billing]);
    assert.deepEqual(withoutDuration(v0.attributes), {
      api: 'Deployments v0', method: 'POST', route: '/deployments.xml', path: '/deployments.xml', format: 'xml', status: 201,
      apiKeyId: keyIds.license, 'service.source': 'timeslice:deployments-v0', userAgent: INJECT_AGENT, appId: s.billing,
    });

    const stored = (await s.ts.server.db.all<{ attributes: string }>("SELECT attributes FROM custom_events WHERE event_type = 'TimesliceApiCall'"))
      .map((r) => r.attributes).join('\n');
    assert.ok(!stored.includes(TEST_API_KEY) && !stored.includes(TEST_LICENSE_KEY), 'a key was stored');
  });

  it('counted by route as `SELECT count(*) FROM TimesliceApiCall FACET route` would', async () => {
    for (let i = 0; i < 3; i++) await rest(s.ts, 'GET', `/v2/applications/${s.billing}.json`);
    const facets = await (async () => {
      await s.ts.server.apiUsage.flush();
      return s.ts.server.db.all<{ route: string; n: bigint }>(
        `SELECT json_extract_string(attributes, '$.route') AS route, count(*) AS n FROM custom_events
         WHERE event_type = 'TimesliceApiCall' AND account_id = 1 GROUP BY route ORDER BY n DESC, route`,
      );
    })();
    assert.deepEqual(facets.map((f) => [f.route, Number(f.n)]), [
      ['/v2/applications/{id}.json', 4],
      ['(no route)', 1],
      ['/deployments.xml', 1],
      ['/v2/applications.json', 1],
      ['/v2/applications/{id}/metrics/data.xml', 1],
    ]);
  });

  it('records the calls answered 410 after the end of life', async () => {
    const before = (await calls()).length;
    s.clock.ms = Date.UTC(2027, 7, 1);
    assert.equal((await rest(s.ts, 'GET', `/v2/applications/${s.checkout}/deployments.json`)).status, 410);
    const after = await calls();
    assert.equal(after.length, before + 1);
    const gone = after.find((c) => c.attributes.status === 410)!;
    assert.deepEqual([gone.accountId, gone.appId, gone.ms], [1, s.checkout, Date.UTC(2027, 7, 1)]);
    assert.equal(gone.attributes.route, '/v2/applications/{id}/deployments.json');
    assert.equal(gone.attributes.apiKeyId, keyIds.user);
  });
});
