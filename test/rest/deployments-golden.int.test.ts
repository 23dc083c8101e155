import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FORM, golden, rest, startScenario, type Scenario } from './rest-scenario.js';
import { withoutSuccessorTitle } from '../helpers/rest-fixture.js';

/*
 * REST v2 deployments: GET and POST /v2/applications/{id}/deployments, DELETE …/deployments/{id},
 * JSON and XML, on the scenario's applications (rest-scenario.ts; the clock stands at
 * 2024-03-05 14:30:20 UTC). Bodies are pinned in test/golden/rest/deployments/; the stored
 * Deployment event rows are read from DuckDB and compared with attributes written out here.
 */

let s: Scenario;
before(async () => {
  s = await startScenario();
});
after(() => s?.ts.stop());

const deployments = (app: number) => `/v2/applications/${app}/deployments`;

/** New Relic's entity GUID, spelled out: base64 of `account|APM|APPLICATION|id` without padding. */
const guidOf = (appId: number) => Buffer.from(`1|APM|APPLICATION|${appId}`).toString('base64').replace(/=+$/, '');

interface EventRow {
  account_id: number;
  app_id: number;
  host_id: number;
  instance_id: number;
  ms: bigint;
  event_type: string;
  attributes: string;
}

async function changeTrackingRows(): Promise<EventRow[]> {
  return s.ts.server.db.all<EventRow>(
    `SELECT account_id, app_id, host_id, instance_id, epoch_ms(timestamp) AS ms, event_type, attributes FROM custom_events
     WHERE event_type = 'Deployment' ORDER BY CAST(json_extract(attributes, '$.deploymentId') AS BIGINT)`,
  );
}

describe('REST v2 deployments of one application', () => {
  it('lists none before the first', async () => {
    const reply = await golden(s.ts, 'deployments/list-empty', 'GET', `${deployments(s.checkout)}.json`);
    assert.deepEqual(reply.json().deployments, []);
  });

  it('creates one from a JSON body: 201 with the deployment, the receipt time as its time', async () => {
    const reply = await golden(s.ts, 'deployments/create', 'POST', `${deployments(s.checkout)}.json`, {
      body: { deployment: { revision: '9f1c2ab', changelog: 'Fix cart rounding', description: 'release 2024.03.05', user: 'ci-bot' } },
    });
    assert.equal(reply.status, 201);
    assert.deepEqual(reply.json().deployment, {
      id: 1, revision: '9f1c2ab', changelog: 'Fix cart rounding', description: 'release 2024.03.05', user: 'ci-bot',
      timestamp: '2024-03-05T14:30:20+00:00', links: { application: s.checkout },
    });
  });

  it('creates one as XML, with a given time; one from form fields; text fields may be left out', async () => {
    s.clock.ms += 60_000; // 14:31:20
    const xml = await golden(s.ts, 'deployments/create-xml', 'POST', `${deployments(s.checkout)}.xml`, {
      body: { deployment: { revision: 'v2.0.0', timestamp: '2024-03-05T14:31:05Z', description: 'a <b> & "c"' } },
    });
    assert.equal(xml.status, 201);
    s.clock.ms += 60_000; // 14:32:20
    const form = await golden(s.ts, 'deployments/create-form', 'POST', `${deployments(s.checkout)}.json`, {
      body: 'deployment[revision]=4d0e771&deployment[user]=deployer',
      headers: FORM,
      note: 'body (application/x-www-form-urlencoded): deployment[revision]=4d0e771&deployment[user]=deployer',
    });
    assert.deepEqual(form.json().deployment, {
      id: 3, revision: '4d0e771', changelog: null, description: null, user: 'deployer',
      timestamp: '2024-03-05T14:32:20+00:00', links: { application: s.checkout },
    });
  });

  it('lists them newest first, JSON and XML; another application has none', async () => {
    const reply = await golden(s.ts, 'deployments/list', 'GET', `${deployments(s.checkout)}.json`);
    assert.deepEqual(reply.json().deployments.map((d: { id: number }) => d.id), [3, 2, 1]);
    await golden(s.ts, 'deployments/list-xml', 'GET', `${deployments(s.checkout)}.xml`);
    await golden(s.ts, 'deployments/list-other-app', 'GET', `${deployments(s.billing)}.json`);
  });

  it('stores each as a Deployment event row of custom_events, attributes named as NRQL names them', async () => {
    const rows = await changeTrackingRows();
    assert.equal(rows.length, 3);
    const [first, second, third] = rows.map((r) => ({ ...r, attributes: JSON.parse(r.attributes) as Record<string, unknown> }));
    for (const row of [first!, second!, third!]) {
      assert.deepEqual([row.account_id, row.app_id, row.host_id, row.instance_id, row.event_type], [1, s.checkout, 0, 0, 'Deployment']);
      assert.match(String(row.attributes.changeTrackingId), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    assert.equal(Number(first!.ms), Date.UTC(2024, 2, 5, 14, 30, 20));
    assert.deepEqual(first!.attributes, {
      changeTrackingId: first!.attributes.changeTrackingId,
      deploymentId: 1,
      category: 'Deployment',
      type: 'Basic',
      version: '9f1c2ab',
      changelog: 'Fix cart rounding',
      description: 'release 2024.03.05',
      user: 'ci-bot',
      shortDescription: 'ci-bot deployed version 9f1c2ab to checkout-web',
      'entity.guid': guidOf(s.checkout),
      'entity.name': 'checkout-web',
      appId: s.checkout,
      appName: 'checkout-web',
      'service.source': 'timeslice:rest-v2',
    });
    assert.equal(Number(second!.ms), Date.UTC(2024, 2, 5, 14, 31, 5));
    assert.deepEqual(second!.attributes, {
      changeTrackingId: second!.attributes.changeTrackingId,
      deploymentId: 2, category: 'Deployment', type: 'Basic', version: 'v2.0.0', description: 'a <b> & "c"',
      shortDescription: 'Deployed version v2.0.0 to checkout-web',
      'entity.guid': guidOf(s.checkout), 'entity.name': 'checkout-web', appId: s.checkout, appName: 'checkout-web',
      'service.source': 'timeslice:rest-v2',
    });
    assert.equal(third!.attributes.user, 'deployer');
    assert.notEqual(first!.attributes.changeTrackingId, second!.attributes.changeTrackingId);
  });

  it('DELETE answers the deployment as it was and hides it from the list; the event stays', async () => {
    const reply = await golden(s.ts, 'deployments/delete', 'DELETE', `${deployments(s.checkout)}/2.json`);
    assert.equal(reply.json().deployment.id, 2);
    const list = await golden(s.ts, 'deployments/list-after-delete', 'GET', `${deployments(s.checkout)}.json`);
    assert.deepEqual(list.json().deployments.map((d: { id: number }) => d.id), [3, 1]);
    assert.deepEqual((await changeTrackingRows()).map((r) => JSON.parse(r.attributes).deploymentId), [1, 2, 3]);
    const deleted = await s.ts.server.db.all<{ account_id: number; app_id: number; deployment_id: bigint; ms: bigint }>(
      'SELECT account_id, app_id, deployment_id, epoch_ms(deleted_at) AS ms FROM deleted_deployments',
    );
    assert.deepEqual(deleted.map((d) => [d.account_id, d.app_id, Number(d.deployment_id), Number(d.ms)]), [[1, s.checkout, 2, s.clock.ms]]);
    await golden(s.ts, 'deployments/delete-again-xml', 'DELETE', `${deployments(s.checkout)}/2.xml`);
  });

  it('never reuses an id: the next deployment after a deletion gets a new one, also after a restart', async () => {
    s.clock.ms += 60_000;
    const next = await rest(s.ts, 'POST', `${deployments(s.checkout)}.json`, { body: { deployment: { revision: 'r4' } } });
    assert.equal(next.json().deployment.id, 4);
    await s.ts.restart();
    s.clock.ms += 60_000;
    const afterRestart = await rest(s.ts, 'POST', `${deployments(s.billing)}.json`, { body: { deployment: { revision: 'r5' } } });
    assert.equal(afterRestart.json().deployment.id, 5);
    const list = await rest(s.ts, 'GET', `${deployments(s.checkout)}.json`);
    assert.deepEqual(list.json().deployments.map((d: { id: number }) => d.id), [4, 3, 1]);
  });
});

describe('refusals', () => {
  const app = () => deployments(s.checkout);
  type Case = readonly [name: string, method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: () => string, status: number, options?: Parameters<typeof golden>[4]];
  const cases: readonly Case[] = [
    ['401-no-key', 'GET', () => `${app()}.json`, 401, { key: null }],
    ['401-bad-key-xml', 'POST', () => `${app()}.xml`, 401, { key: 'NRAK-NOTAKEY', body: { deployment: { revision: 'x' } }, note: 'X-Api-Key: NRAK-NOTAKEY' }],
    ['404-unknown-app', 'GET', () => '/v2/applications/999/deployments.json', 404],
    ['404-unknown-app-post-xml', 'POST', () => '/v2/applications/999/deployments.xml', 404, { body: { deployment: { revision: 'x' } } }],
    ['404-unknown-deployment', 'DELETE', () => `${app()}/77.json`, 404],
    ['404-deployment-of-other-app', 'DELETE', () => `${deployments(s.billing)}/1.json`, 404],
    ['404-non-numeric-deployment', 'DELETE', () => `${app()}/latest.json`, 404],
    ['405-put', 'PUT', () => `${app()}.json`, 405, { body: { deployment: { revision: 'x' } } }],
    ['405-get-one', 'GET', () => `${app()}/1.json`, 405],
    ['400-malformed-json', 'POST', () => `${app()}.json`, 400, { body: '{"deployment": {"revision": ', headers: { 'content-type': 'application/json' }, note: 'body: {"deployment": {"revision": ' }],
    ['422-no-body', 'POST', () => `${app()}.json`, 422],
    ['422-no-deployment-member', 'POST', () => `${app()}.json`, 422, { body: { revision: 'x' } }],
    ['422-deployment-not-object-xml', 'POST', () => `${app()}.xml`, 422, { body: { deployment: 'x' } }],
    ['422-missing-revision', 'POST', () => `${app()}.json`, 422, { body: { deployment: { description: 'no revision' } } }],
    ['422-empty-revision', 'POST', () => `${app()}.json`, 422, { body: { deployment: { revision: '' } } }],
    ['422-revision-object', 'POST', () => `${app()}.json`, 422, { body: { deployment: { revision: { sha: 'x' } } } }],
    ['422-revision-too-long', 'POST', () => `${app()}.json`, 422, { body: { deployment: { revision: 'r'.repeat(128) } }, note: 'revision: 128 × r' }],
    ['422-user-too-long', 'POST', () => `${app()}.json`, 422, { body: { deployment: { revision: 'x', user: 'u'.repeat(32) } }, note: 'user: 32 × u' }],
    ['422-emoji', 'POST', () => `${app()}.json`, 422, { body: { deployment: { revision: 'x', changelog: 'ship it 🚀' } } }],
    ['422-timestamp-unparseable', 'POST', () => `${app()}.json`, 422, { body: { deployment: { revision: 'x', timestamp: 'yesterday' } } }],
    ['422-timestamp-number', 'POST', () => `${app()}.json`, 422, { body: { deployment: { revision: 'x', timestamp: 1709648000 } } }],
    ['422-timestamp-future', 'POST', () => `${app()}.json`, 422, { body: { deployment: { revision: 'x', timestamp: '2024-03-06T00:00:00Z' } } }],
    ['422-timestamp-before-latest', 'POST', () => `${app()}.json`, 422, { body: { deployment: { revision: 'x', timestamp: '2024-03-05T14:00:00Z' } } }],
    ['422-page-abc', 'GET', () => `${app()}.json?page=abc`, 422],
  ];

  it('each in the error shape with its status, JSON and XML', async () => {
    const before = (await changeTrackingRows()).length;
    for (const [name, method, url, status, options] of cases) {
      const reply = await golden(s.ts, `deployments/errors/${name}`, method, url(), options);
      assert.equal(reply.status, status, name);
    }
    assert.equal((await changeTrackingRows()).length, before, 'no refused request stored anything');
  });
});

describe('pages of 200, newest first', () => {
  it('a third page past 201 deployments is empty; Link names next and last before the successor', async () => {
    const ts = s.ts;
    const app = deployments(s.billing);
    const existing = (await rest(ts, 'GET', `${app}.json`)).json().deployments.length;
    for (let i = existing; i < 201; i++) {
      const reply = await rest(ts, 'POST', `${app}.json`, { body: { deployment: { revision: `r${i}` } } });
      assert.equal(reply.status, 201);
    }
    const first = await rest(ts, 'GET', `${app}.json`);
    assert.equal(first.json().deployments.length, 200);
    assert.equal(
      withoutSuccessorTitle(first.headers.link),
      `<http://localhost:80${app}.json?page=2>;rel="next", <http://localhost:80${app}.json?page=2>;rel="last", <http://localhost:80/graphql>;rel="successor-version"`,
    );
    const ids = first.json().deployments.map((d: { id: number }) => d.id) as number[];
    assert.deepEqual(ids, [...ids].sort((a, b) => b - a));
    const second = await golden(ts, 'deployments/page-2', 'GET', `${app}.json?page=2`);
    assert.equal(second.json().deployments.length, 1);
    assert.equal(second.json().deployments[0].id, 5);
    const third = await rest(ts, 'GET', `${app}.json?page=3`);
    assert.deepEqual(third.json().deployments, []);
  });
});
