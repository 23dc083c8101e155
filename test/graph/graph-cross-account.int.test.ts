import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { graph, graphData, type GraphReply } from '../helpers/graph-client.js';
import { ManualClock, startTestServer, TEST_API_KEY } from '../helpers/rest-fixture.js';
import type { TestServer } from '../helpers/test-server.js';
import { connect, handGuid, harvest, loadApmScenario, minute, NOW, nrqlTime, type ScenarioIds } from './graph-scenario.js';

/*
 * Two accounts. A (1) holds the scenario's applications (graph-scenario.ts) plus a key
 * transaction, a mobile and a browser application; B holds one application of its own, `b-api`,
 * whose agent reports with B's license key. B's user key must not reach anything of A's: an
 * account or NRQL naming A is FORBIDDEN (and null), A's entities are as absent as ones that never
 * existed (null or left out, no error), entity search never finds them, and an entity's NRQL
 * cannot be reached through one B cannot see. A's key reads the same things and gets them.
 */

let ts: TestServer;
let ids: ScenarioIds;
let accountB: number;
let keyB: string;
let bApp: number;
let aGuids: { apm: string; keyTransaction: string; mobile: string; browser: string };

/** `SELECT count(…)` of HttpDispatcher calls, over the minutes the data lies in. */
const CALLS = `SELECT count(newrelic.timeslice.value) AS calls FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' SINCE ${nrqlTime(20)} UNTIL ${nrqlTime(30)}`;
/** A's HttpDispatcher calls (10 + 6 + 24; stale-app's are at 14:15, outside the window). */
const A_CALLS = 40;
/** B's: one harvest of 7. */
const B_CALLS = 7;

before(async () => {
  const clock = new ManualClock(NOW);
  ts = await startTestServer({}, { clock });
  ids = await loadApmScenario(ts, clock);
  const webShop = ts.server.catalog.application(ids.webShop)!;
  const kt = await ts.server.entities.keyTransactions.create({ application: webShop, name: 'Checkout', metricName: 'WebTransaction/Expressjs/GET//checkout' });
  const mobile = await ts.server.entities.mobileApplications.create(1, 'shop-ios');
  const browser = await ts.server.entities.browserApplications.create({ accountId: 1, name: 'shop-site' });
  aGuids = {
    apm: handGuid(1, 'APM|APPLICATION', ids.webShop),
    keyTransaction: handGuid(1, 'APM|KEY_TRANSACTION', kt.id),
    mobile: handGuid(1, 'MOBILE|APPLICATION', mobile.id),
    browser: handGuid(1, 'BROWSER|APPLICATION', browser.id),
  };

  const b = await ts.server.catalog.createAccount('Second');
  accountB = b.id;
  keyB = await ts.server.catalog.createUserKey(accountB);
  const licenseB = await ts.server.catalog.createLicenseKey(accountB);
  const run = await connect(ts, 'b-api', { host: 'b-host', pid: 700, licenseKey: licenseB });
  bApp = run.appId;
  await harvest(ts, run.runId, minute(26), minute(27), [['HttpDispatcher', '', [B_CALLS, 0.7, 0.7, 0.05, 0.2, 0.09]]], licenseB);
});
after(() => ts?.stop());

/** A FORBIDDEN error on `path`, the field null, nothing else wrong. */
function assertForbidden(reply: GraphReply, path: (string | number)[], accountId: number): void {
  assert.equal(reply.status, 200);
  const errors = reply.body.errors ?? [];
  assert.equal(errors.length, 1, JSON.stringify(errors));
  assert.deepEqual(errors[0]!.path, path);
  assert.equal(errors[0]!.extensions?.errorClass, 'FORBIDDEN');
  assert.equal(errors[0]!.message, `Access denied: this API key cannot reach account ${accountId}`);
  let value: any = reply.body.data;
  for (const step of path.slice(0, -1)) value = value[step];
  assert.equal(value[path.at(-1)!], null);
}

describe("account B's key cannot read account A", () => {
  it('account(id: A) is FORBIDDEN and null; so is an account that does not exist', async () => {
    assertForbidden(await graph(ts, `{ actor { account(id: 1) { id name nrql(query: "${CALLS}") { results } } } }`, undefined, { key: keyB }), ['actor', 'account'], 1);
    assertForbidden(await graph(ts, '{ actor { account(id: 424242) { id name } } }', undefined, { key: keyB }), ['actor', 'account'], 424242);
  });

  it('actor.nrql with accounts [A] or [B, A] is FORBIDDEN and null; other fields still answer', async () => {
    assertForbidden(await graph(ts, `{ actor { nrql(accounts: [1], query: "${CALLS}") { results } } }`, undefined, { key: keyB }), ['actor', 'nrql'], 1);
    const mixed = await graph(ts, `{ actor { user { id } nrql(accounts: [${accountB}, 1], query: "${CALLS}") { results } } }`, undefined, { key: keyB });
    assertForbidden(mixed, ['actor', 'nrql'], 1);
    assert.equal(typeof mixed.body.data.actor.user.id, 'number');
    // The same with the accounts as a variable, as clients send them.
    assertForbidden(await graph(ts, 'query($a: [Int!]!, $q: Nrql!) { actor { nrql(accounts: $a, query: $q) { results } } }', { a: [1, accountB], q: CALLS }, { key: keyB }), ['actor', 'nrql'], 1);
  });

  it("NRQL over B's own account sees none of A's data, even naming A's application", async () => {
    const data = await graphData(ts, `{ actor { own: nrql(accounts: [${accountB}], query: "${CALLS}") { results }
      aApp: nrql(accounts: [${accountB}], query: "SELECT count(*) FROM Metric WHERE appId = ${ids.webShop} OR appName = 'web-shop' SINCE 1 day ago") { results }
      names: account(id: ${accountB}) { nrql(query: "SELECT uniques(appName) FROM Metric SINCE 1 day ago") { results } } } }`, undefined, { key: keyB });
    assert.deepEqual(data.actor.own.results, [{ calls: B_CALLS }]);
    assert.deepEqual(data.actor.aApp.results, [{ count: 0 }]);
    assert.deepEqual(data.actor.names.nrql.results, [{ 'uniques.appName': ['b-api'] }]);
  });

  it("entity(guid) of each of A's entities is null, with no error", async () => {
    for (const [kind, guid] of Object.entries(aGuids)) {
      const reply = await graph(ts, 'query($g: EntityGuid!) { actor { entity(guid: $g) { guid name } } }', { g: guid }, { key: keyB });
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.body, { data: { actor: { entity: null } } }, kind);
    }
  });

  it("entities([A's GUIDs]) is empty; with B's GUID among them only B's comes back", async () => {
    const all = Object.values(aGuids);
    assert.deepEqual(await graphData(ts, 'query($g: [EntityGuid]!) { actor { entities(guids: $g) { guid } } }', { g: all }, { key: keyB }), { actor: { entities: [] } });
    const bGuid = handGuid(accountB, 'APM|APPLICATION', bApp);
    const mixed = await graphData(ts, 'query($g: [EntityGuid]!) { actor { entities(guids: $g) { guid name accountId } } }', { g: [all[0], bGuid, all[1]] }, { key: keyB });
    assert.deepEqual(mixed, { actor: { entities: [{ guid: bGuid, name: 'b-api', accountId: accountB }] } });
  });

  it("a GUID naming A's application under B's account id finds nothing", async () => {
    // The entity exists, but not in the account the GUID names.
    const forged = handGuid(accountB, 'APM|APPLICATION', ids.webShop);
    assert.deepEqual(await graphData(ts, `{ actor { entity(guid: "${forged}") { guid } entities(guids: ["${forged}"]) { guid } } }`, undefined, { key: keyB }), { actor: { entity: null, entities: [] } });
  });

  it("entitySearch never returns A's entities, whatever the query names", async () => {
    const bGuid = handGuid(accountB, 'APM|APPLICATION', bApp);
    const search = async (query: string) =>
      (await graphData(ts, 'query($q: String) { actor { entitySearch(query: $q) { count results { nextCursor entities { guid accountId } } types { domain type count } } } }', { q: query }, { key: keyB })).actor.entitySearch;
    const nothing = { count: 0, results: { nextCursor: null, entities: [] }, types: [] };
    assert.deepEqual(await search("domain = 'APM'"), { count: 1, results: { nextCursor: null, entities: [{ guid: bGuid, accountId: accountB }] }, types: [{ domain: 'APM', type: 'APPLICATION', count: 1 }] });
    assert.deepEqual(await search('accountId = 1'), nothing);
    assert.deepEqual(await search(`accountId IN (1, ${accountB})`), { count: 1, results: { nextCursor: null, entities: [{ guid: bGuid, accountId: accountB }] }, types: [{ domain: 'APM', type: 'APPLICATION', count: 1 }] });
    assert.deepEqual(await search("name = 'web-shop'"), nothing);
    assert.deepEqual(await search(`id = '${aGuids.apm}'`), nothing);
    assert.deepEqual(await search(`domainId = '${ids.webShop}' AND domain = 'APM'`), nothing);
    assert.deepEqual(await search("domain IN ('MOBILE', 'BROWSER') OR type = 'KEY_TRANSACTION'"), nothing);
    assert.deepEqual(await search("tags.accountId = '1'"), nothing);
    const built = await graphData(ts, '{ actor { entitySearch(queryBuilder: {domain: APM, type: APPLICATION, tags: [{key: "accountId", value: "1"}]}) { count results { entities { guid } } } } }', undefined, { key: keyB });
    assert.deepEqual(built, { actor: { entitySearch: { count: 0, results: { entities: [] } } } });
  });

  it("an entity's nrdbQuery cannot be reached through an entity B cannot see", async () => {
    const reply = await graph(ts, `{ actor { entity(guid: "${aGuids.apm}") { ... on ApmApplicationEntity { nrdbQuery(nrql: "SELECT count(*) FROM Metric SINCE 1 day ago") { results } } } } }`, undefined, { key: keyB });
    assert.deepEqual(reply.body, { data: { actor: { entity: null } } });
    // B's own entity's nrdbQuery is limited to that entity, even asked for A's application.
    const own = await graphData(ts, `{ actor { entity(guid: "${handGuid(accountB, 'APM|APPLICATION', bApp)}") { ... on ApmApplicationEntity {
      all: nrdbQuery(nrql: "SELECT count(newrelic.timeslice.value) AS calls FROM Metric SINCE 1 day ago") { results }
      theirs: nrdbQuery(nrql: "SELECT count(*) FROM Metric WHERE appId = ${ids.webShop} SINCE 1 day ago") { results } } } } }`, undefined, { key: keyB });
    assert.deepEqual(own, { actor: { entity: { all: { results: [{ calls: B_CALLS }] }, theirs: { results: [{ count: 0 }] } } } });
  });

  it('actor.accounts lists only B; requestContext and user are B’s key', async () => {
    const data = await graphData(ts, '{ requestContext { userId apiKey } actor { accounts { id name } user { id } } }', undefined, { key: keyB });
    assert.deepEqual(data.actor.accounts, [{ id: accountB, name: 'Second' }]);
    assert.equal(data.requestContext.apiKey, `NRAK-…${keyB.slice(-4)}`);
    assert.equal(data.requestContext.userId, String(data.actor.user.id));
    const a = await graphData(ts, '{ actor { user { id } } }');
    assert.notEqual(data.actor.user.id, a.actor.user.id);
  });
});

describe("account A's key reads the same things", () => {
  it('account(id: A) with NRQL, actor.nrql, entity, entities and search answer', async () => {
    const data = await graphData(ts, `query($g: [EntityGuid]!) { actor {
      account(id: 1) { id name nrql(query: "${CALLS}") { results } }
      nrql(accounts: [1], query: "${CALLS}") { results }
      entity(guid: "${aGuids.apm}") { guid name ... on ApmApplicationEntity { nrdbQuery(nrql: "SELECT count(newrelic.timeslice.value) AS calls FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' SINCE 1 day ago") { results } } }
      entities(guids: $g) { __typename guid }
      entitySearch(query: "accountId = 1 AND domain = 'APM' AND type = 'APPLICATION'") { count }
      accounts { id } } }`, { g: Object.values(aGuids) });
    assert.deepEqual(data.actor.account, { id: 1, name: 'Default', nrql: { results: [{ calls: A_CALLS }] } });
    assert.deepEqual(data.actor.nrql, { results: [{ calls: A_CALLS }] });
    assert.deepEqual(data.actor.entity, { guid: aGuids.apm, name: 'web-shop', nrdbQuery: { results: [{ calls: A_CALLS }] } });
    assert.deepEqual(data.actor.entities, [
      { __typename: 'ApmApplicationEntity', guid: aGuids.apm },
      { __typename: 'KeyTransactionEntity', guid: aGuids.keyTransaction },
      { __typename: 'MobileApplicationEntity', guid: aGuids.mobile },
      { __typename: 'BrowserApplicationEntity', guid: aGuids.browser },
    ]);
    assert.deepEqual(data.actor.entitySearch, { count: 3 });
    assert.deepEqual(data.actor.accounts, [{ id: 1 }]);
  });

  it("and A's key cannot read B", async () => {
    assertForbidden(await graph(ts, `{ actor { account(id: ${accountB}) { id } } }`), ['actor', 'account'], accountB);
    assertForbidden(await graph(ts, `{ actor { nrql(accounts: [${accountB}], query: "${CALLS}") { results } } }`), ['actor', 'nrql'], accountB);
    assert.deepEqual(await graphData(ts, `{ actor { entity(guid: "${handGuid(accountB, 'APM|APPLICATION', bApp)}") { guid } } }`), { actor: { entity: null } });
    assert.deepEqual((await graphData(ts, "{ actor { entitySearch(query: \"name = 'b-api'\") { count } } }", undefined, { key: TEST_API_KEY })).actor.entitySearch, { count: 0 });
  });
});
