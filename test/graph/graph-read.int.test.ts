import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock, startTestServer, TEST_API_KEY } from '../helpers/rest-fixture.js';
import type { TestServer } from '../helpers/test-server.js';
import type { BrowserApplication } from '../../src/store/browser-applications.js';
import type { KeyTransaction } from '../../src/store/key-transactions.js';
import type { MobileApplication } from '../../src/store/mobile-applications.js';
import { EXPECTED, handGuid, httpGraph, loadApmScenario, minute, nearly, NOW, nrqlTime, type ScenarioIds } from './graph-scenario.js';

/*
 * The spec's read operations (§4.4) over plain HTTP, on data agents sent through the real
 * collector (graph-scenario.ts: web-shop web with queue time on two hosts, batch-worker
 * background only, stale-app not reporting) plus entities made through the stores: a key
 * transaction of web-shop, the mobile application shop-ios, the standalone browser application
 * shop-site (LITE loader), web-shop's browser side web-shop-browser, and 205 mobile
 * applications fleet-000…fleet-204 for paging. Every field is checked against values worked out
 * here: GUIDs by hand (handGuid), times from the clock, summaries and NRQL values from the
 * timeslices sent.
 */

let ts: TestServer;
let ids: ScenarioIds;
let kt: KeyTransaction;
let shopIos: MobileApplication;
let shopSite: BrowserApplication;
let webShopBrowser: BrowserApplication;
const fleet: MobileApplication[] = [];
const FLEET = 205;

before(async () => {
  const clock = new ManualClock(NOW);
  ts = await startTestServer({}, { clock });
  ids = await loadApmScenario(ts, clock);
  const webShop = ts.server.catalog.application(ids.webShop)!;
  kt = await ts.server.entities.keyTransactions.create({ application: webShop, name: 'Checkout submit', metricName: 'WebTransaction/Expressjs/POST//checkout', apdexT: 0.3 });
  shopIos = await ts.server.entities.mobileApplications.create(1, 'shop-ios');
  shopSite = await ts.server.entities.browserApplications.create({ accountId: 1, name: 'shop-site', settings: { loaderType: 'LITE' } });
  webShopBrowser = await ts.server.entities.browserApplications.create({ accountId: 1, name: 'web-shop-browser', apmApplicationId: ids.webShop });
  for (let i = 0; i < FLEET; i++) fleet.push(await ts.server.entities.mobileApplications.create(1, `fleet-${String(i).padStart(3, '0')}`));
});
after(() => ts?.stop());

/** The data of a request that must succeed, sent over HTTP with the test key. */
async function data(query: string, variables?: Record<string, unknown>): Promise<any> {
  const reply = await httpGraph(ts, TEST_API_KEY, query, variables);
  assert.equal(reply.status, 200, reply.text);
  const body = reply.json();
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data;
}

const COMMON = 'guid name accountId account { id name } domain type entityType alertSeverity reporting permalink tags { key values } lastReportingChangeAt';
const INDEXED = 'firstIndexedAt indexedAt';

type Kind = 'apm' | 'keyTransaction' | 'mobile' | 'browser';
const KINDS: Record<Kind, { guidPart: Parameters<typeof handGuid>[1]; domain: string; type: string; entityType: string; outline: string; entity: string }> = {
  apm: { guidPart: 'APM|APPLICATION', domain: 'APM', type: 'APPLICATION', entityType: 'APM_APPLICATION_ENTITY', outline: 'ApmApplicationEntityOutline', entity: 'ApmApplicationEntity' },
  keyTransaction: { guidPart: 'APM|KEY_TRANSACTION', domain: 'APM', type: 'KEY_TRANSACTION', entityType: 'KEY_TRANSACTION_ENTITY', outline: 'KeyTransactionEntityOutline', entity: 'KeyTransactionEntity' },
  mobile: { guidPart: 'MOBILE|APPLICATION', domain: 'MOBILE', type: 'APPLICATION', entityType: 'MOBILE_APPLICATION_ENTITY', outline: 'MobileApplicationEntityOutline', entity: 'MobileApplicationEntity' },
  browser: { guidPart: 'BROWSER|APPLICATION', domain: 'BROWSER', type: 'APPLICATION', entityType: 'BROWSER_APPLICATION_ENTITY', outline: 'BrowserApplicationEntityOutline', entity: 'BrowserApplicationEntity' },
};

/** The common fields as worked out by hand; tags sorted by key (their order is not part of the contract). */
function common(kind: Kind, id: number, name: string, reporting: boolean, lastReportingChangeAt: number | null, extraTags: Record<string, string> = {}) {
  const guid = handGuid(1, KINDS[kind].guidPart, id);
  const tags = { account: 'Default', accountId: '1', trustedAccountId: '1', ...extraTags };
  return {
    guid,
    name,
    accountId: 1,
    account: { id: 1, name: 'Default' },
    domain: KINDS[kind].domain,
    type: KINDS[kind].type,
    entityType: KINDS[kind].entityType,
    alertSeverity: 'NOT_CONFIGURED',
    reporting,
    permalink: `${ts.server.apiUrl}/redirect/entity/${guid}`,
    tags: Object.entries(tags).sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, value]) => ({ key, values: [value] })),
    lastReportingChangeAt,
  };
}

/** An entity or outline as answered, with its tags sorted by key. */
function sortedTags<T extends { tags?: { key: string }[] }>(entity: T): T {
  return entity.tags ? { ...entity, tags: [...entity.tags].sort((a, b) => (a.key < b.key ? -1 : 1)) } : entity;
}

/** stale-app last reported at 14:15:20 (the clock when its harvest came); it stopped reporting 10 minutes later. */
const STALE_CHANGE = NOW - 15 * 60_000 + 10 * 60_000;

const apmOutline = (which: 'webShop' | 'batchWorker' | 'staleApp') => {
  const names = { webShop: 'web-shop', batchWorker: 'batch-worker', staleApp: 'stale-app' } as const;
  const id = ids[which];
  return {
    __typename: 'ApmApplicationEntityOutline',
    ...common('apm', id, names[which], which !== 'staleApp', which === 'staleApp' ? STALE_CHANGE : null, { language: 'nodejs' }),
    applicationId: id,
    language: 'nodejs',
    settings: { apdexTarget: 0.5, serverSideConfig: false },
  };
};
const APM_OUTLINE = `__typename ${COMMON} ... on ApmApplicationEntityOutline { applicationId language settings { apdexTarget serverSideConfig } }`;

describe('GUIDs by hand', () => {
  it('handGuid gives the reference’s verified GUIDs (§5), unpadded', () => {
    assert.equal(handGuid(3806526, 'APM|APPLICATION', 553448202), 'MzgwNjUyNnxBUE18QVBQTElDQVRJT058NTUzNDQ4MjAy');
    assert.equal(handGuid(2508259, 'BROWSER|APPLICATION', 204261628), 'MjUwODI1OXxCUk9XU0VSfEFQUExJQ0FUSU9OfDIwNDI2MTYyOA');
    assert.equal(handGuid(3806526, 'MOBILE|APPLICATION', 601483762), 'MzgwNjUyNnxNT0JJTEV8QVBQTElDQVRJT058NjAxNDgzNzYy');
    assert.equal(handGuid(10047936, 'APM|APPLICATION', 11704297), 'MTAwNDc5MzZ8QVBNfEFQUExJQ0FUSU9OfDExNzA0Mjk3');
  });
});

describe('entitySearch', () => {
  it("domain = 'APM' AND type = 'APPLICATION': every field of each outline, by name", async () => {
    const q = "domain = 'APM' AND type = 'APPLICATION'";
    const search = (await data(`query($q: String) { actor { entitySearch(query: $q) { count query results { nextCursor entities { ${APM_OUTLINE} } } } } }`, { q })).actor.entitySearch;
    assert.equal(search.count, 3);
    assert.equal(search.query, q);
    assert.equal(search.results.nextCursor, null);
    assert.deepEqual(search.results.entities.map(sortedTags), [apmOutline('batchWorker'), apmOutline('staleApp'), apmOutline('webShop')]);
  });

  it("type = 'KEY_TRANSACTION': the key transaction's outline, reporting as its application does", async () => {
    const search = (await data(`{ actor { entitySearch(query: "type = 'KEY_TRANSACTION'") { count results { entities { __typename ${COMMON} ${INDEXED} } } } } }`)).actor.entitySearch;
    assert.equal(search.count, 1);
    assert.deepEqual(search.results.entities.map(sortedTags), [{
      __typename: 'KeyTransactionEntityOutline', ...common('keyTransaction', kt.id, 'Checkout submit', true, null), firstIndexedAt: NOW, indexedAt: NOW,
    }]);
  });

  it('accountId and domain: the browser and mobile outlines', async () => {
    const browsers = (await data(`{ actor { entitySearch(query: "accountId = 1 AND domain IN ('BROWSER')") { count results { entities { __typename ${COMMON} ${INDEXED}
      ... on BrowserApplicationEntityOutline { applicationId servingApmApplicationId agentInstallType browserSummary { pageLoadThroughput } } } } } } }`)).actor.entitySearch;
    // Browser applications without events are not reporting and have no summary.
    assert.deepEqual(browsers.results.entities.map(sortedTags), [
      { __typename: 'BrowserApplicationEntityOutline', ...common('browser', shopSite.id, 'shop-site', false, null), firstIndexedAt: NOW, indexedAt: NOW, applicationId: shopSite.id, servingApmApplicationId: null, agentInstallType: 'LITE', browserSummary: null },
      { __typename: 'BrowserApplicationEntityOutline', ...common('browser', webShopBrowser.id, 'web-shop-browser', false, null), firstIndexedAt: NOW, indexedAt: NOW, applicationId: webShopBrowser.id, servingApmApplicationId: ids.webShop, agentInstallType: 'PRO_SPA', browserSummary: null },
    ]);
    assert.equal(browsers.count, 2);
    const mobile = (await data(`{ actor { entitySearch(query: "accountId = 1 AND domain = 'MOBILE' AND name = 'shop-ios'") { count results { entities { __typename ${COMMON} ${INDEXED}
      ... on MobileApplicationEntityOutline { applicationId mobileSummary { appLaunchCount crashCount httpRequestRate } } } } } } }`)).actor.entitySearch;
    assert.equal(mobile.count, 1);
    assert.deepEqual(mobile.results.entities.map(sortedTags), [
      { __typename: 'MobileApplicationEntityOutline', ...common('mobile', shopIos.id, 'shop-ios', false, null), firstIndexedAt: NOW, indexedAt: NOW, applicationId: shopIos.id, mobileSummary: null },
    ]);
  });

  it("domainId: the same number across domains; with domain = 'APM', the one application", async () => {
    const id = ids.webShop;
    const known: [Kind, number, string][] = [
      ['apm', ids.webShop, 'web-shop'], ['apm', ids.batchWorker, 'batch-worker'], ['apm', ids.staleApp, 'stale-app'],
      ['keyTransaction', kt.id, 'Checkout submit'], ['mobile', shopIos.id, 'shop-ios'],
      ['browser', shopSite.id, 'shop-site'], ['browser', webShopBrowser.id, 'web-shop-browser'],
      ...fleet.map((f): [Kind, number, string] => ['mobile', f.id, f.name]),
    ];
    const expected = known.filter(([, n]) => n === id).map(([kind, n, name]) => ({ guid: handGuid(1, KINDS[kind].guidPart, n), name, domain: KINDS[kind].domain })).sort((a, b) => (a.name < b.name ? -1 : 1));
    assert.ok(expected.length >= 2, 'the scenario has other entities with the same id');
    const all = (await data(`{ actor { entitySearch(query: "domainId = '${id}'") { count results { entities { guid name domain } } } } }`)).actor.entitySearch;
    assert.deepEqual(all, { count: expected.length, results: { entities: expected } });
    for (const q of [`domainId = '${id}' AND domain = 'APM'`, `domainId = ${id} and domain = 'APM'`, `domain = 'APM' AND domainId IN ('${id}')`]) {
      const one = (await data('query($q: String) { actor { entitySearch(query: $q) { count results { entities { guid name ... on ApmApplicationEntityOutline { applicationId } } } } } }', { q })).actor.entitySearch;
      assert.deepEqual(one, { count: 1, results: { entities: [{ guid: handGuid(1, 'APM|APPLICATION', id), name: 'web-shop', applicationId: id }] } }, q);
    }
  });

  it('name LIKE is a case-insensitive match on words; name = is exact', async () => {
    const names = async (q: string) => (await data('query($q: String) { actor { entitySearch(query: $q) { count results { entities { name } } } } }', { q })).actor.entitySearch;
    assert.deepEqual(await names("name LIKE 'shop'"), { count: 4, results: { entities: [{ name: 'shop-ios' }, { name: 'shop-site' }, { name: 'web-shop' }, { name: 'web-shop-browser' }] } });
    assert.deepEqual(await names("name LIKE 'web shop'"), { count: 2, results: { entities: [{ name: 'web-shop' }, { name: 'web-shop-browser' }] } });
    assert.deepEqual(await names("name like 'SHOP.IOS'"), { count: 1, results: { entities: [{ name: 'shop-ios' }] } });
    assert.deepEqual(await names("name LIKE 'shop' AND domain = 'APM'"), { count: 1, results: { entities: [{ name: 'web-shop' }] } });
    assert.deepEqual(await names("name LIKE 'checkout'"), { count: 1, results: { entities: [{ name: 'Checkout submit' }] } });
    assert.deepEqual(await names("name = 'web-shop'"), { count: 1, results: { entities: [{ name: 'web-shop' }] } });
    assert.deepEqual(await names("name LIKE 'hop'"), { count: 0, results: { entities: [] } });
  });

  it('what clients send: duplicated clauses, backticked tag keys, lower-case keywords, reporting as text', async () => {
    const names = async (q: string) => (await data('query($q: String) { actor { entitySearch(query: $q) { count results { entities { name } } } } }', { q })).actor.entitySearch.results.entities.map((e: any) => e.name);
    assert.deepEqual(await names("name LIKE 'web' AND domain = 'APM' AND domain = 'APM'"), ['web-shop']);
    assert.deepEqual(await names("domain = 'APM' and tags.`accountId` = '1' and type in ('APPLICATION')"), ['batch-worker', 'stale-app', 'web-shop']);
    assert.deepEqual(await names("domain = 'APM' AND reporting = 'true'"), ['batch-worker', 'Checkout submit', 'web-shop']);
    assert.deepEqual(await names("domain = 'APM' AND reporting = 'false'"), ['stale-app']);
    assert.deepEqual(await names("tags.language = 'nodejs'"), ['batch-worker', 'stale-app', 'web-shop']);
  });

  it('options.tagFilter: only the tags named come back; the entities are not filtered', async () => {
    const search = (await data(`{ actor { entitySearch(query: "domain = 'APM' AND type = 'APPLICATION'", options: {tagFilter: ["language", "accountId"]}) { count results { entities { name tags { key values } } } } } }`)).actor.entitySearch;
    assert.equal(search.count, 3);
    assert.deepEqual(search.results.entities.map(sortedTags), ['batch-worker', 'stale-app', 'web-shop'].map((name) => ({
      name, tags: [{ key: 'accountId', values: ['1'] }, { key: 'language', values: ['nodejs'] }],
    })));
  });

  it('queryBuilder: the query text it stands for, and newrelic-cli’s accountId tag', async () => {
    const search = (await data(`{ actor {
      a: entitySearch(queryBuilder: {domain: APM, type: APPLICATION, reporting: true}) { count query results { entities { name } } }
      b: entitySearch(queryBuilder: {domain: APM, type: APPLICATION, tags: [{key: "accountId", value: "1"}]}) { count query }
      c: entitySearch(queryBuilder: {name: "shop", domain: MOBILE}) { count query results { entities { name } } } } }`)).actor;
    assert.deepEqual(search.a, { count: 2, query: "domain = 'APM' AND type = 'APPLICATION' AND reporting = 'true'", results: { entities: [{ name: 'batch-worker' }, { name: 'web-shop' }] } });
    assert.deepEqual(search.b, { count: 3, query: "domain = 'APM' AND type = 'APPLICATION' AND tags.accountId = '1'" });
    assert.deepEqual(search.c, { count: 1, query: "domain = 'MOBILE' AND name LIKE 'shop'", results: { entities: [{ name: 'shop-ios' }] } });
  });

  it('types and counts over the account', async () => {
    const search = (await data('{ actor { entitySearch(query: "accountId = 1") { count types { domain type entityType count } domains: counts(facet: [DOMAIN]) { count facet } reporting: counts(facet: [REPORTING]) { count facet } } } }')).actor.entitySearch;
    const mobiles = FLEET + 1;
    assert.equal(search.count, mobiles + 3 + 1 + 2);
    assert.deepEqual(search.types, [
      { domain: 'MOBILE', type: 'APPLICATION', entityType: 'MOBILE_APPLICATION_ENTITY', count: mobiles },
      { domain: 'APM', type: 'APPLICATION', entityType: 'APM_APPLICATION_ENTITY', count: 3 },
      { domain: 'BROWSER', type: 'APPLICATION', entityType: 'BROWSER_APPLICATION_ENTITY', count: 2 },
      { domain: 'APM', type: 'KEY_TRANSACTION', entityType: 'KEY_TRANSACTION_ENTITY', count: 1 },
    ]);
    assert.deepEqual(search.domains, [{ count: mobiles, facet: { domain: 'MOBILE' } }, { count: 4, facet: { domain: 'APM' } }, { count: 2, facet: { domain: 'BROWSER' } }]);
    // Reporting: web-shop, batch-worker and the key transaction.
    assert.deepEqual(search.reporting, [{ count: mobiles + 1 + 2, facet: { reporting: false } }, { count: 3, facet: { reporting: true } }]);
  });

  it('pages of 200: the cursor walks all 206 mobile applications once each, nextCursor null at the end', async () => {
    const expected = [...fleet.map((f) => f.name), 'shop-ios'];
    const page = async (cursor: string | null, extra = '') =>
      (await data(`query($c: String) { actor { entitySearch(query: "domain = 'MOBILE'"${extra}) { count results(cursor: $c) { nextCursor entities { guid name } } } } }`, { c: cursor })).actor.entitySearch;
    const first = await page(null);
    assert.equal(first.count, FLEET + 1);
    assert.equal(first.results.entities.length, 200);
    assert.equal(typeof first.results.nextCursor, 'string');
    const second = await page(first.results.nextCursor);
    assert.equal(second.count, FLEET + 1);
    assert.equal(second.results.nextCursor, null);
    const walked = [...first.results.entities, ...second.results.entities];
    assert.deepEqual(walked.map((e: any) => e.name), expected);
    assert.deepEqual(walked.map((e: any) => e.guid), [...fleet.map((f) => handGuid(1, 'MOBILE|APPLICATION', f.id)), handGuid(1, 'MOBILE|APPLICATION', shopIos.id)]);

    // options.limit lowers the page; sortByWithDirection turns the order round.
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const p: any = await page(cursor, ', options: {limit: 100}, sortByWithDirection: [{attribute: NAME, direction: DESC}]');
      seen.push(...p.results.entities.map((e: any) => e.name));
      cursor = p.results.nextCursor;
      pages++;
    } while (cursor !== null);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...expected].reverse());
  });

  it('a cursor is bound to its query; a bad query is INVALID_INPUT on the entitySearch path', async () => {
    const first = (await data(`{ actor { entitySearch(query: "domain = 'MOBILE'") { results { nextCursor } } } }`)).actor.entitySearch.results.nextCursor;
    const reply = await httpGraph(ts, TEST_API_KEY, 'query($c: String) { actor { entitySearch(query: "domain = \'APM\'") { results(cursor: $c) { nextCursor } } } }', { c: first });
    const body = reply.json();
    assert.equal(body.errors.length, 1);
    assert.equal(body.errors[0].extensions.errorClass, 'INVALID_INPUT');
    assert.match(body.errors[0].message, /^Invalid cursor: it was issued for a different query or sort/);
    const bad = (await httpGraph(ts, TEST_API_KEY, `{ actor { entitySearch(query: "domain = ") { count } } }`)).json();
    assert.deepEqual(bad.data, { actor: { entitySearch: null } });
    assert.deepEqual(bad.errors[0].path, ['actor', 'entitySearch']);
    assert.equal(bad.errors[0].extensions.errorClass, 'INVALID_INPUT');
    const both = (await httpGraph(ts, TEST_API_KEY, `{ actor { entitySearch(query: "domain = 'APM'", queryBuilder: {domain: APM}) { count } } }`)).json();
    assert.equal(both.errors[0].message, 'entitySearch takes exactly one of query and queryBuilder');
  });
});

describe('entity(guid) of each kind', () => {
  it('an APM application: the full entity', async () => {
    const guid = handGuid(1, 'APM|APPLICATION', ids.webShop);
    const entity = (await data(`query($g: EntityGuid!) { actor { entity(guid: $g) { __typename ${COMMON}
      ... on ApmApplicationEntity { applicationId language settings { apdexTarget serverSideConfig } } } } }`, { g: guid })).actor.entity;
    assert.deepEqual(sortedTags(entity), { ...apmOutline('webShop'), __typename: 'ApmApplicationEntity' });
    const stale = (await data(`{ actor { entity(guid: "${handGuid(1, 'APM|APPLICATION', ids.staleApp)}") { __typename ${COMMON} ... on ApmApplicationEntity { applicationId language settings { apdexTarget serverSideConfig } } } } }`)).actor.entity;
    assert.deepEqual(sortedTags(stale), { ...apmOutline('staleApp'), __typename: 'ApmApplicationEntity' });
  });

  it('a key transaction: Apdex targets, metric, and its application', async () => {
    const entity = (await data(`{ actor { entity(guid: "${handGuid(1, 'APM|KEY_TRANSACTION', kt.id)}") { __typename ${COMMON} ${INDEXED}
      ... on KeyTransactionEntity { apdexTarget browserApdexTarget metricName application { guid entity { __typename guid name } } } } } }`)).actor.entity;
    const appGuid = handGuid(1, 'APM|APPLICATION', ids.webShop);
    assert.deepEqual(sortedTags(entity), {
      __typename: 'KeyTransactionEntity',
      ...common('keyTransaction', kt.id, 'Checkout submit', true, null),
      firstIndexedAt: NOW,
      indexedAt: NOW,
      apdexTarget: 0.3,
      // Not given: the application's end-user Apdex T, New Relic's default 7 s.
      browserApdexTarget: 7,
      metricName: 'WebTransaction/Expressjs/POST//checkout',
      application: { guid: appGuid, entity: { __typename: 'ApmApplicationEntityOutline', guid: appGuid, name: 'web-shop' } },
    });
  });

  it('a mobile application: its token', async () => {
    const entity = (await data(`{ actor { entity(guid: "${handGuid(1, 'MOBILE|APPLICATION', shopIos.id)}") { __typename ${COMMON} ${INDEXED}
      ... on MobileApplicationEntity { applicationId mobileSummary { crashCount } mobileProperties { applicationToken } } } } }`)).actor.entity;
    assert.match(shopIos.applicationToken, /^AA[0-9a-f]{40}-NRMA$/);
    assert.deepEqual(sortedTags(entity), {
      __typename: 'MobileApplicationEntity', ...common('mobile', shopIos.id, 'shop-ios', false, null), firstIndexedAt: NOW, indexedAt: NOW,
      applicationId: shopIos.id, mobileSummary: null, mobileProperties: { applicationToken: shopIos.applicationToken },
    });
  });

  it('browser applications: standalone and an APM application’s browser side', async () => {
    const read = async (app: BrowserApplication) => sortedTags((await data(`{ actor { entity(guid: "${handGuid(1, 'BROWSER|APPLICATION', app.id)}") { __typename ${COMMON} ${INDEXED}
      ... on BrowserApplicationEntity { applicationId servingApmApplicationId agentInstallType browserSummary { jsErrorRate } } } } }`)).actor.entity);
    assert.deepEqual(await read(shopSite), {
      __typename: 'BrowserApplicationEntity', ...common('browser', shopSite.id, 'shop-site', false, null), firstIndexedAt: NOW, indexedAt: NOW,
      applicationId: shopSite.id, servingApmApplicationId: null, agentInstallType: 'LITE', browserSummary: null,
    });
    assert.deepEqual(await read(webShopBrowser), {
      __typename: 'BrowserApplicationEntity', ...common('browser', webShopBrowser.id, 'web-shop-browser', false, null), firstIndexedAt: NOW, indexedAt: NOW,
      applicationId: webShopBrowser.id, servingApmApplicationId: ids.webShop, agentInstallType: 'PRO_SPA', browserSummary: null,
    });
  });

  it('an unknown well-formed GUID is null without an error; a malformed one is INVALID_INPUT', async () => {
    assert.deepEqual(await data(`{ actor { entity(guid: "${handGuid(1, 'APM|APPLICATION', 999_999)}") { guid } } }`), { actor: { entity: null } });
    assert.deepEqual(await data(`{ actor { entity(guid: "${handGuid(1, 'MOBILE|APPLICATION', 999_999)}") { guid } } }`), { actor: { entity: null } });
    const padded = `${handGuid(1, 'APM|APPLICATION', ids.webShop)}=`;
    assert.equal(Buffer.from(padded, 'base64').toString('latin1'), `1|APM|APPLICATION|${ids.webShop}`, 'the same text, padded');
    for (const guid of [padded, 'not a guid', Buffer.from('1|APM|APPLICATION').toString('base64')]) {
      const body = (await httpGraph(ts, TEST_API_KEY, 'query($g: EntityGuid!) { actor { entity(guid: $g) { guid } } }', { g: guid })).json();
      assert.deepEqual(body.data, { actor: { entity: null } }, guid);
      assert.equal(body.errors.length, 1, guid);
      assert.deepEqual(body.errors[0].path, ['actor', 'entity']);
      assert.equal(body.errors[0].extensions.errorClass, 'INVALID_INPUT');
    }
  });

  it('entities(guids): the order given, unknown GUIDs left out, at most 25', async () => {
    const guids = [
      handGuid(1, 'BROWSER|APPLICATION', shopSite.id),
      handGuid(1, 'APM|APPLICATION', 999_999),
      handGuid(1, 'APM|APPLICATION', ids.batchWorker),
      handGuid(1, 'APM|KEY_TRANSACTION', kt.id),
      handGuid(1, 'MOBILE|APPLICATION', shopIos.id),
      handGuid(1, 'APM|APPLICATION', ids.staleApp),
    ];
    const entities = (await data('query($g: [EntityGuid]!) { actor { entities(guids: $g) { __typename guid name entityType } } }', { g: guids })).actor.entities;
    assert.deepEqual(entities, [
      { __typename: 'BrowserApplicationEntity', guid: guids[0], name: 'shop-site', entityType: 'BROWSER_APPLICATION_ENTITY' },
      { __typename: 'ApmApplicationEntity', guid: guids[2], name: 'batch-worker', entityType: 'APM_APPLICATION_ENTITY' },
      { __typename: 'KeyTransactionEntity', guid: guids[3], name: 'Checkout submit', entityType: 'KEY_TRANSACTION_ENTITY' },
      { __typename: 'MobileApplicationEntity', guid: guids[4], name: 'shop-ios', entityType: 'MOBILE_APPLICATION_ENTITY' },
      { __typename: 'ApmApplicationEntity', guid: guids[5], name: 'stale-app', entityType: 'APM_APPLICATION_ENTITY' },
    ]);
    const many = fleet.slice(0, 26).map((f) => handGuid(1, 'MOBILE|APPLICATION', f.id));
    assert.equal((await data('query($g: [EntityGuid]!) { actor { entities(guids: $g) { guid } } }', { g: many.slice(0, 25) })).actor.entities.length, 25);
    const refused = (await httpGraph(ts, TEST_API_KEY, 'query($g: [EntityGuid]!) { actor { entities(guids: $g) { guid } } }', { g: many })).json();
    assert.equal(refused.errors[0].message, 'entities takes at most 25 GUIDs; 26 were given');
    assert.equal(refused.errors[0].extensions.errorClass, 'INVALID_INPUT');
  });
});

describe('summaries and what the summary code adds', () => {
  const SUMMARY = 'apdexScore errorRate hostCount instanceCount nonWebResponseTimeAverage nonWebThroughput responseTimeAverage throughput webResponseTimeAverage webThroughput';

  it('apmSummary in search and in entity(guid): the hand-worked numbers; null when not reporting', async () => {
    const result = (await data(`query($g: [EntityGuid]!) { actor {
      entitySearch(query: "domain = 'APM' AND type = 'APPLICATION'") { results { entities { name ... on ApmApplicationEntityOutline { apmSummary { ${SUMMARY} } } } } }
      entities(guids: $g) { name ... on ApmApplicationEntity { apmSummary { ${SUMMARY} } } } } }`, {
      g: [ids.webShop, ids.batchWorker, ids.staleApp].map((id) => handGuid(1, 'APM|APPLICATION', id)),
    })).actor;
    const byName = new Map<string, any>(result.entitySearch.results.entities.map((e: any) => [e.name, e.apmSummary]));
    const full = new Map<string, any>(result.entities.map((e: any) => [e.name, e.apmSummary]));
    for (const [name, expected] of [['web-shop', EXPECTED.webShop], ['batch-worker', EXPECTED.batchWorker]] as const) {
      for (const [where, summary] of [['entitySearch', byName.get(name)], ['entities', full.get(name)]] as const) {
        assert.ok(summary, `${where} ${name}`);
        for (const [key, want] of Object.entries(expected)) assert.ok(nearly(summary[key], want), `${where} ${name} ${key}: ${summary[key]} ≠ ${want}`);
      }
    }
    assert.equal(byName.get('stale-app'), null);
    assert.equal(full.get('stale-app'), null);
    // Seconds carry fractions: 0.19875 s, not a whole number.
    assert.equal(full.get('web-shop').responseTimeAverage, 0.19875);
  });

  it('runningAgentVersions: the oldest and newest agent of the live instances (of all, when none is live)', async () => {
    const entities = (await data(`query($g: [EntityGuid]!) { actor { entities(guids: $g) { name ... on ApmApplicationEntity { runningAgentVersions { minVersion maxVersion } } } } }`, {
      g: [ids.webShop, ids.batchWorker, ids.staleApp].map((id) => handGuid(1, 'APM|APPLICATION', id)),
    })).actor.entities;
    assert.deepEqual(entities, [
      // web-1 runs 13.2.0, web-2 9.8.1: compared as numbers, 9.8.1 is the older.
      { name: 'web-shop', runningAgentVersions: { minVersion: '9.8.1', maxVersion: '13.2.0' } },
      // The captured connect request's version.
      { name: 'batch-worker', runningAgentVersions: { minVersion: '14.5.1', maxVersion: '14.5.1' } },
      // No instance is live: the versions it last ran.
      { name: 'stale-app', runningAgentVersions: { minVersion: '14.5.1', maxVersion: '14.5.1' } },
    ]);
  });

  it('a browser application’s settings.apdexTarget: its own Apdex T, or its APM application’s end-user one', async () => {
    const entities = (await data(`query($g: [EntityGuid]!) { actor { entities(guids: $g) { name ... on BrowserApplicationEntity { settings { apdexTarget } } } } }`, {
      g: [shopSite, webShopBrowser].map((b) => handGuid(1, 'BROWSER|APPLICATION', b.id)),
    })).actor.entities;
    // Both New Relic's default 7 s: shop-site's own, web-shop-browser's from web-shop's endUserApdexT.
    assert.deepEqual(entities, [{ name: 'shop-site', settings: { apdexTarget: 7 } }, { name: 'web-shop-browser', settings: { apdexTarget: 7 } }]);
  });

  it('an APM application’s firstIndexedAt is when its first agent connected', async () => {
    const entities = (await data(`query($g: [EntityGuid]!) { actor { entities(guids: $g) { name firstIndexedAt } } }`, {
      g: [ids.webShop, ids.staleApp].map((id) => handGuid(1, 'APM|APPLICATION', id)),
    })).actor.entities;
    assert.deepEqual(entities, [{ name: 'web-shop', firstIndexedAt: NOW }, { name: 'stale-app', firstIndexedAt: NOW - 15 * 60_000 }]);
  });
});

describe('NRQL: actor.nrql and account.nrql', () => {
  const V = 'service.timeslice.value';
  const WEB = `FROM Metric WHERE appId = ${'${id}'} AND metricTimesliceName = 'HttpDispatcher' SINCE ${nrqlTime(25)} UNTIL ${nrqlTime(27)}`;
  const web = (id: number) => WEB.replace('${id}', String(id));
  const nrql = async (query: string) => (await data('query($q: Nrql!) { actor { nrql(accounts: [1], query: $q) { results totalResult otherResult currentResults previousResults nrql metadata { eventTypes facets messages timeWindow { begin end since until compareWith } } } } }', { q: query })).actor.nrql;

  it('the REST v2 value names through their NRQL functions (spec §4.5), each worked out from the timeslices', async () => {
    // web-shop's HttpDispatcher points in 14:25–14:27: [10, 2.1, 1.6, …, 0.1, 0.4, 0.5], [6, 1.2, 0.9, 0.05, 0.5, 0.3], [24, 4.0, 3.0, 0.02, 0.6, 1.0].
    const answer = await nrql(`SELECT average(${V}) * 1000 AS average_response_time, rate(count(${V}), 1 minute) AS calls_per_minute, count(${V}) AS call_count,
      min(${V}) * 1000 AS min_response_time, max(${V}) * 1000 AS max_response_time, average(${V}['totalExclusive'] / ${V}['count']) * 1000 AS average_exclusive_time,
      average(${V}) AS average_value, rate(sum(${V}), 1 minute) AS total_call_time_per_minute, rate(count(${V}), 1 minute) AS requests_per_minute,
      stddev(${V}) * 1000 AS standard_deviation, rate(count(${V}), 1 second) AS throughput, average(${V}) * 100 AS as_percentage ${web(ids.webShop)}`);
    const expected: Record<string, number> = {
      average_response_time: (7.3 / 40) * 1000, // 182.5
      calls_per_minute: 40 / 2,
      call_count: 40,
      min_response_time: 0.02 * 1000,
      max_response_time: 0.6 * 1000,
      average_exclusive_time: ((1.6 / 10 + 0.9 / 6 + 3.0 / 24) / 3) * 1000, // the mean of the points' ratios: 145
      average_value: 7.3 / 40,
      total_call_time_per_minute: 7.3 / 2,
      requests_per_minute: 20,
      standard_deviation: Math.sqrt(1.8 / 40 - (7.3 / 40) ** 2) * 1000, // population: √(Σ sumOfSquares / Σ count − mean²)
      throughput: 40 / 120,
      as_percentage: (7.3 / 40) * 100,
    };
    assert.equal(answer.results.length, 1);
    assert.deepEqual(Object.keys(answer.results[0]).sort(), Object.keys(expected).sort());
    for (const [key, want] of Object.entries(expected)) assert.ok(nearly(answer.results[0][key], want), `${key}: ${answer.results[0][key]} ≠ ${want}`);
    assert.deepEqual(answer.metadata, {
      eventTypes: ['Metric'], facets: null, messages: [],
      timeWindow: { begin: minute(25), end: minute(27), since: "'2024-03-05 14:25:00Z'", until: "'2024-03-05 14:27:00Z'", compareWith: null },
    });
    assert.equal(answer.totalResult, null);
    assert.equal(answer.otherResult, null);
  });

  it('response time from HttpDispatcher and WebFrontend/QueueTime (spec §1), errors, Apdex, a host, metric names', async () => {
    const data1 = await nrql(`SELECT count(${V}) AS calls, average(${V}) * 1000 AS avg FROM Metric WHERE appId = ${ids.webShop} AND metricTimesliceName = 'WebFrontend/QueueTime' SINCE ${nrqlTime(25)} UNTIL ${nrqlTime(27)}`);
    // Queue: 10 + 6 + 4 calls, 0.3 + 0.12 + 0.23 s → 32.5 ms on average.
    assert.ok(nearly(data1.results[0].avg, 32.5));
    assert.equal(data1.results[0].calls, 20);
    // 182.5 + 20 × 32.5 / 40 = 198.75 ms: the summary's response time.
    assert.ok(nearly(182.5 + (data1.results[0].calls * data1.results[0].avg) / 40, EXPECTED.webShop.responseTimeAverage * 1000));

    const errors = await nrql(`SELECT count(${V}) AS error_count, rate(count(${V}), 1 minute) AS errors_per_minute FROM Metric WHERE appName = 'web-shop' AND metricTimesliceName = 'Errors/all' SINCE ${nrqlTime(25)} UNTIL ${nrqlTime(27)}`);
    assert.deepEqual(errors.results, [{ error_count: 3, errors_per_minute: 1.5 }]);

    const apdex = await nrql(`SELECT apdex(${V}) FROM Metric WHERE appId = ${ids.webShop} AND metricTimesliceName = 'Apdex' SINCE ${nrqlTime(25)} UNTIL ${nrqlTime(27)}`);
    assert.deepEqual(apdex.results, [{ [`apdex.${V}`]: { score: 33.5 / 40, s: 30, t: 7, f: 3, count: 40 } }]);

    const host = await nrql(`SELECT count(${V}) AS calls FROM Metric WHERE appId = ${ids.webShop} AND host = 'web-2' AND metricTimesliceName = 'HttpDispatcher' SINCE ${nrqlTime(25)} UNTIL ${nrqlTime(27)}`);
    assert.deepEqual(host.results, [{ calls: 24 }]);

    const names = await nrql(`SELECT uniques(metricTimesliceName) FROM Metric WHERE appId = ${ids.webShop} AND ${V} IS NOT NULL SINCE 1 hour ago LIMIT MAX`);
    assert.deepEqual(names.results, [{ 'uniques.metricTimesliceName': ['Apdex', 'Errors/all', 'HttpDispatcher', 'WebFrontend/QueueTime'] }]);
  });

  it('FACET: rows per facet, totalResult and otherResult single objects', async () => {
    const answer = await nrql(`SELECT count(${V}) FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' FACET host SINCE ${nrqlTime(20)} UNTIL ${nrqlTime(30)} LIMIT 1`);
    // web-2 24 calls, web-1 10 + 6; stale-1's 14:15 lies outside.
    assert.deepEqual(answer.results, [{ facet: 'web-2', host: 'web-2', [`count.${V}`]: 24 }]);
    assert.deepEqual(answer.totalResult, { [`count.${V}`]: 40 });
    assert.deepEqual(answer.otherResult, { [`count.${V}`]: 16 });
    assert.deepEqual(answer.metadata.facets, ['host']);
    assert.equal(answer.currentResults, null);
  });

  it('FACET with TIMESERIES: totalResult and otherResult are arrays per bucket', async () => {
    const answer = await nrql(`SELECT count(${V}) FROM Metric WHERE metricTimesliceName IN ('HttpDispatcher', 'OtherTransaction/all') FACET appName SINCE ${nrqlTime(22)} UNTIL ${nrqlTime(27)} TIMESERIES 1 minute LIMIT 1`);
    const key = `count.${V}`;
    const bucket = (m: number) => ({ beginTimeSeconds: minute(m) / 1000, endTimeSeconds: minute(m + 1) / 1000 });
    // web-shop: 0, 0, 0, 10, 6 + 24 a minute from 14:22; batch-worker: 6, 6, 6, 0, 0.
    const web = [0, 0, 0, 10, 30];
    const batch = [6, 6, 6, 0, 0];
    assert.deepEqual(answer.results, web.map((n, i) => ({ facet: 'web-shop', appName: 'web-shop', ...bucket(22 + i), [key]: n })));
    assert.deepEqual(answer.otherResult, batch.map((n, i) => ({ ...bucket(22 + i), [key]: n })));
    assert.deepEqual(answer.totalResult, web.map((n, i) => ({ ...bucket(22 + i), [key]: n + batch[i]! })));
    assert.deepEqual(answer.metadata.facets, ['appName']);
  });

  it('TIMESERIES: one row per bucket; COMPARE WITH: current and previous', async () => {
    const key = `count.${V}`;
    const series = await nrql(`SELECT count(${V}) ${web(ids.webShop)} TIMESERIES 1 minute`);
    assert.deepEqual(series.results, [
      { beginTimeSeconds: minute(25) / 1000, endTimeSeconds: minute(26) / 1000, [key]: 10 },
      { beginTimeSeconds: minute(26) / 1000, endTimeSeconds: minute(27) / 1000, [key]: 30 },
    ]);
    const compared = await nrql(`SELECT count(${V}) FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' SINCE ${nrqlTime(26)} UNTIL ${nrqlTime(27)} COMPARE WITH 1 minute ago`);
    assert.deepEqual(compared.results, [{ [key]: 30, comparison: 'current' }, { [key]: 10, comparison: 'previous' }]);
    assert.deepEqual(compared.currentResults, [{ [key]: 30 }]);
    assert.deepEqual(compared.previousResults, [{ [key]: 10 }]);
    assert.equal(compared.metadata.timeWindow.compareWith, '1 MINUTES AGO');
  });

  it('account.nrql answers as actor.nrql does; the default window is the last 60 minutes', async () => {
    const q = `SELECT count(${V}) FROM Metric`;
    const both = (await data(`query($q: Nrql!) { actor { account(id: 1) { nrql(query: $q) { results nrql metadata { timeWindow { begin end since until } } } } nrql(accounts: 1, query: $q) { results nrql metadata { timeWindow { begin end since until } } } } }`, { q })).actor;
    // Every count of the scenario: web-1 28 + 17, web-2 48, batch-worker 3 × 6 + 1, stale-app 10 (14:15, within the hour).
    const expected = { results: [{ [`count.${V}`]: 28 + 17 + 48 + 19 + 10 }], nrql: q, metadata: { timeWindow: { begin: NOW - 3_600_000, end: NOW, since: '60 MINUTES AGO', until: 'NOW' } } };
    assert.deepEqual(both.account.nrql, expected);
    assert.deepEqual(both.nrql, expected);
  });

  it("an entity's nrdbQuery reads only that entity's data", async () => {
    const guid = handGuid(1, 'APM|APPLICATION', ids.webShop);
    const entity = (await data(`{ actor { entity(guid: "${guid}") { ... on ApmApplicationEntity { nrdbQuery(nrql: "SELECT count(${V}) AS calls FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' SINCE 1 hour ago") { results } } } } }`)).actor.entity;
    // web-shop's 40; stale-app's 10 HttpDispatcher calls of the same hour are another entity's.
    assert.deepEqual(entity, { nrdbQuery: { results: [{ calls: 40 }] } });
  });
});
