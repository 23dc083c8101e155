import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { graphData } from '../helpers/graph-client.js';
import { rest } from '../helpers/rest-fixture.js';
import { apmGuid, connect, keyTransactionGuid, mobileGuid, refusal, secondAccount, startGraphFixture, type GraphFixture } from './mutations-fixture.js';

/* keyTransactionCreate / Update / Delete over the key transaction store, checked through the graph and REST v2. */

let f: GraphFixture;
let appId: number;
before(async () => {
  f = await startGraphFixture();
  appId = Number((await connect(f.ts, 'checkout-web')).application_id);
});
after(() => f?.ts.stop());

const CREATE = `mutation($app: EntityGuid!, $name: String!, $metric: String!, $t: Float!, $bt: Float!) {
  keyTransactionCreate(applicationGuid: $app, name: $name, metricName: $metric, apdexTarget: $t, browserApdexTarget: $bt) {
    apdexTarget browserApdexTarget guid metricName name application { guid entity { __typename guid name } }
  }
}`;
const UPDATE = `mutation($guid: EntityGuid!, $name: String, $t: Float, $bt: Float) {
  keyTransactionUpdate(guid: $guid, name: $name, apdexTarget: $t, browserApdexTarget: $bt) { apdexTarget browserApdexTarget name application { guid } }
}`;
const DELETE = 'mutation($guid: EntityGuid!) { keyTransactionDelete(guid: $guid) { success } }';

const idOf = (guid: string) => Number(Buffer.from(guid, 'base64').toString('utf8').split('|')[3]);

describe('key transaction mutations', () => {
  let ktGuid: string;

  it('keyTransactionCreate: the result, the entity, REST and the next connect show it', async () => {
    const created = (await graphData(f.ts, CREATE, { app: apmGuid(appId), name: 'Checkout submit', metric: 'WebTransaction/Expressjs/POST//checkout', t: 0.3, bt: 2 })).keyTransactionCreate;
    ktGuid = created.guid;
    const id = idOf(created.guid);
    assert.deepEqual(created, {
      apdexTarget: 0.3, browserApdexTarget: 2, guid: keyTransactionGuid(id), metricName: 'WebTransaction/Expressjs/POST//checkout', name: 'Checkout submit',
      application: { guid: apmGuid(appId), entity: { __typename: 'ApmApplicationEntityOutline', guid: apmGuid(appId), name: 'checkout-web' } },
    });
    const entity = await graphData(f.ts, 'query($g: EntityGuid!) { actor { entity(guid: $g) { name ... on KeyTransactionEntity { apdexTarget browserApdexTarget metricName application { guid } } } } }', { g: ktGuid });
    assert.deepEqual(entity.actor.entity, { name: 'Checkout submit', apdexTarget: 0.3, browserApdexTarget: 2, metricName: 'WebTransaction/Expressjs/POST//checkout', application: { guid: apmGuid(appId) } });
    const shown = (await rest(f.ts, 'GET', `/v2/key_transactions/${id}.json`)).json().key_transaction;
    assert.equal(shown.name, 'Checkout submit');
    assert.equal(shown.transaction_name, 'WebTransaction/Expressjs/POST//checkout');
    assert.deepEqual((await connect(f.ts, 'checkout-web')).web_transactions_apdex, { 'WebTransaction/Expressjs/POST//checkout': 0.3 });
  });

  it('keyTransactionCreate refuses what the store refuses, a non-APM GUID and an unknown one; nothing is stored', async () => {
    const count = () => f.ts.server.entities.keyTransactions.list(1).length;
    const before = count();
    const variables = { app: apmGuid(appId), name: 'Another', metric: 'WebTransaction/Expressjs/POST//checkout', t: 0.5, bt: 7 };
    assert.deepEqual(await refusal(f.ts, CREATE, variables), {
      message: `WebTransaction/Expressjs/POST//checkout of application ${appId} already is key transaction ${idOf(ktGuid)}`,
      errorClass: 'INVALID_INPUT', data: { keyTransactionCreate: null }, path: ['keyTransactionCreate'],
    });
    assert.equal((await refusal(f.ts, CREATE, { ...variables, metric: 'Datastore/all' })).message,
      "'Datastore/all' is not a transaction metric: expected WebTransaction/… or OtherTransaction/…");
    assert.equal((await refusal(f.ts, CREATE, { ...variables, metric: 'OtherTransaction/Job/sync', t: 0 })).message, 'apdexT must be a positive number of seconds');
    assert.equal((await refusal(f.ts, CREATE, { ...variables, metric: 'OtherTransaction/Job/sync', name: 'Checkout submit' })).message,
      "a key transaction named 'Checkout submit' already exists");
    const mobile = (await graphData(f.ts, 'mutation { agentApplicationCreateMobile(accountId: 1, name: "shop") { guid } }')).agentApplicationCreateMobile.guid;
    assert.equal((await refusal(f.ts, CREATE, { ...variables, app: mobile })).message,
      `keyTransactionCreate takes the GUID of an APM application; ${mobileGuid(idOf(mobile))} is a mobile application (MOBILE_APPLICATION_ENTITY)`);
    assert.equal((await refusal(f.ts, CREATE, { ...variables, app: apmGuid(999) })).errorClass, 'NOT_FOUND');
    assert.equal((await refusal(f.ts, CREATE, { ...variables, app: 'bad' })).message,
      "applicationGuid 'bad' is not an entity GUID: expected unpadded base64 of accountId|DOMAIN|TYPE|domainId");
    assert.equal(count(), before);
  });

  it('keyTransactionUpdate changes what is given and keeps the rest', async () => {
    const data = await graphData(f.ts, UPDATE, { guid: ktGuid, t: 0.2 });
    assert.deepEqual(data.keyTransactionUpdate, { apdexTarget: 0.2, browserApdexTarget: 2, name: 'Checkout submit', application: { guid: apmGuid(appId) } });
    const renamed = await graphData(f.ts, UPDATE, { guid: ktGuid, name: 'Checkout', bt: 3.5 });
    assert.deepEqual(renamed.keyTransactionUpdate, { apdexTarget: 0.2, browserApdexTarget: 3.5, name: 'Checkout', application: { guid: apmGuid(appId) } });
    const stored = f.ts.server.entities.keyTransactions.get(idOf(ktGuid))!;
    assert.deepEqual([stored.name, stored.apdexT, stored.browserApdexT], ['Checkout', 0.2, 3.5]);
    assert.equal((await refusal(f.ts, UPDATE, { guid: ktGuid, bt: -1 })).message, 'browserApdexT must be a positive number of seconds');
    assert.equal((await refusal(f.ts, UPDATE, { guid: apmGuid(appId), t: 1 })).message,
      `keyTransactionUpdate takes the GUID of a key transaction; ${apmGuid(appId)} is an APM application (APM_APPLICATION_ENTITY)`);
    assert.equal(f.ts.server.entities.keyTransactions.get(idOf(ktGuid))!.browserApdexT, 3.5);
  });

  it('another account\'s key cannot update or delete it: NOT_FOUND, nothing changes', async () => {
    const other = await secondAccount(f.ts);
    for (const [query, variables] of [[UPDATE, { guid: ktGuid, name: 'Hijacked' }], [DELETE, { guid: ktGuid }]] as const) {
      const refused = await refusal(f.ts, query, variables, other.userKey);
      assert.equal(refused.errorClass, 'NOT_FOUND');
      assert.equal(refused.message, `No entity with GUID '${ktGuid}' in the accounts this API key can reach`);
    }
    assert.equal((await refusal(f.ts, CREATE, { app: apmGuid(appId), name: 'Theirs', metric: 'OtherTransaction/Job/x', t: 1, bt: 1 }, other.userKey)).errorClass, 'NOT_FOUND');
    assert.equal(f.ts.server.entities.keyTransactions.get(idOf(ktGuid))!.name, 'Checkout');
    assert.equal(f.ts.server.entities.keyTransactions.list(other.accountId).length, 0);
  });

  it('keyTransactionDelete removes it; a second delete is NOT_FOUND', async () => {
    assert.deepEqual(await graphData(f.ts, DELETE, { guid: ktGuid }), { keyTransactionDelete: { success: true } });
    assert.equal(f.ts.server.entities.keyTransactions.get(idOf(ktGuid)), undefined);
    assert.equal((await rest(f.ts, 'GET', `/v2/key_transactions/${idOf(ktGuid)}.json`)).status, 404);
    assert.equal((await refusal(f.ts, DELETE, { guid: ktGuid })).errorClass, 'NOT_FOUND');
  });
});
