import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { graphData } from '../helpers/graph-client.js';
import { rest } from '../helpers/rest-fixture.js';
import {
  apmGuid, browserGuid, connect, mobileGuid, refusal, reportingApp, secondAccount, startGraphFixture, type GraphFixture,
} from './mutations-fixture.js';

/*
 * Creating mobile and browser applications, turning browser monitoring on for an APM
 * application, and deleting applications, checked through the graph, REST v2 and the stores.
 */

let f: GraphFixture;
before(async () => {
  f = await startGraphFixture();
});
after(() => f?.ts.stop());

const CREATE_MOBILE = `mutation($accountId: Int!, $name: String!) {
  agentApplicationCreateMobile(accountId: $accountId, name: $name) { accountId applicationToken guid name entityOutline { __typename guid name } }
}`;
const CREATE_BROWSER = `mutation($accountId: Int!, $name: String!, $settings: AgentApplicationBrowserSettingsInput) {
  agentApplicationCreateBrowser(accountId: $accountId, name: $name, settings: $settings) { guid name settings { cookiesEnabled distributedTracingEnabled loaderScript loaderType } }
}`;
const ENABLE = `mutation($guid: EntityGuid!, $settings: AgentApplicationBrowserSettingsInput) {
  agentApplicationEnableApmBrowser(guid: $guid, settings: $settings) { name settings { cookiesEnabled distributedTracingEnabled loaderType } }
}`;
const DELETE = 'mutation($guid: EntityGuid!) { agentApplicationDelete(guid: $guid) { success } }';

const idOf = (guid: string) => Number(Buffer.from(guid, 'base64').toString('utf8').split('|')[3]);

describe('agentApplicationCreateMobile', () => {
  it('creates a mobile application with a token; REST and the entity show it', async () => {
    const created = (await graphData(f.ts, CREATE_MOBILE, { accountId: 1, name: 'shop-android' })).agentApplicationCreateMobile;
    const id = idOf(created.guid);
    const stored = f.ts.server.entities.mobileApplications.get(id)!;
    assert.match(created.applicationToken, /^AA[0-9a-f]{40}-NRMA$/);
    assert.deepEqual(created, {
      accountId: 1,
      applicationToken: stored.applicationToken,
      guid: mobileGuid(id),
      name: 'shop-android',
      entityOutline: { __typename: 'MobileApplicationEntityOutline', guid: mobileGuid(id), name: 'shop-android' },
    });
    const shown = (await rest(f.ts, 'GET', `/v2/mobile_applications/${id}.json`)).json().application;
    assert.equal(shown.name, 'shop-android');
    assert.equal(shown.application_token, created.applicationToken);
    const entity = await graphData(f.ts, 'query($g: EntityGuid!) { actor { entity(guid: $g) { ... on MobileApplicationEntity { mobileProperties { applicationToken } } } } }', { g: created.guid });
    assert.equal(entity.actor.entity.mobileProperties.applicationToken, created.applicationToken);
  });

  it('refuses an empty or taken name, and another account; nothing is stored', async () => {
    const count = () => f.ts.server.entities.mobileApplications.list(1).length;
    const before = count();
    assert.deepEqual(await refusal(f.ts, CREATE_MOBILE, { accountId: 1, name: '   ' }), {
      message: 'a mobile application name is 1 to 255 characters', errorClass: 'INVALID_INPUT', data: { agentApplicationCreateMobile: null }, path: ['agentApplicationCreateMobile'],
    });
    assert.equal((await refusal(f.ts, CREATE_MOBILE, { accountId: 1, name: 'shop-android' })).message, "a mobile application named 'shop-android' already exists");
    assert.deepEqual(await refusal(f.ts, CREATE_MOBILE, { accountId: 2, name: 'elsewhere' }), {
      message: 'Access denied: this API key cannot reach account 2', errorClass: 'FORBIDDEN', data: { agentApplicationCreateMobile: null }, path: ['agentApplicationCreateMobile'],
    });
    assert.equal(count(), before);
  });
});

describe('agentApplicationCreateBrowser', () => {
  it('defaults: SPA, cookies and distributed tracing on; the loader script comes JSON-encoded and is REST\'s snippet', async () => {
    const created = (await graphData(f.ts, CREATE_BROWSER, { accountId: 1, name: 'marketing-site' })).agentApplicationCreateBrowser;
    const id = idOf(created.guid);
    assert.equal(created.guid, browserGuid(id));
    assert.equal(created.name, 'marketing-site');
    assert.deepEqual({ ...created.settings, loaderScript: undefined }, { cookiesEnabled: true, distributedTracingEnabled: true, loaderType: 'SPA', loaderScript: undefined });
    assert.ok(created.settings.loaderScript.startsWith('"<script type=\\"text/javascript\\">'), 'a JSON string holding the snippet');
    const script = JSON.parse(created.settings.loaderScript) as string;
    assert.ok(script.includes('nr-loader-spa.min.js'));
    assert.ok(script.includes('distributed_tracing:{enabled:true}'));
    const listed = (await rest(f.ts, 'GET', `/v2/browser_applications.json?filter[ids]=${id}`)).json().browser_applications;
    assert.equal(listed[0].loader_script, script);
  });

  it('FULL is PRO; settings not given keep their defaults', async () => {
    const created = (await graphData(f.ts, CREATE_BROWSER, { accountId: 1, name: 'docs-site', settings: { loaderType: 'FULL', cookiesEnabled: false } })).agentApplicationCreateBrowser;
    assert.equal(created.settings.loaderType, 'PRO');
    assert.equal(created.settings.cookiesEnabled, false);
    assert.equal(created.settings.distributedTracingEnabled, true);
    assert.ok(JSON.parse(created.settings.loaderScript).includes('nr-loader-full.min.js'));
    const stored = f.ts.server.entities.browserApplications.get(idOf(created.guid))!;
    assert.deepEqual(stored.settings, { cookiesEnabled: false, distributedTracingEnabled: true, loaderType: 'PRO' });
  });

  it('refuses NONE, a taken name and another account; nothing is stored', async () => {
    const count = () => f.ts.server.entities.browserApplications.list(1).length;
    const before = count();
    assert.deepEqual(await refusal(f.ts, CREATE_BROWSER, { accountId: 1, name: 'no-agent', settings: { loaderType: 'NONE' } }), {
      message: "settings.loaderType NONE installs no agent: Timeslice's browser applications load the SPA, PRO (FULL) or LITE agent",
      errorClass: 'INVALID_INPUT', data: { agentApplicationCreateBrowser: null }, path: ['agentApplicationCreateBrowser'],
    });
    assert.equal((await refusal(f.ts, CREATE_BROWSER, { accountId: 1, name: 'marketing-site' })).message, "a browser application named 'marketing-site' already exists");
    assert.equal((await refusal(f.ts, CREATE_BROWSER, { accountId: 7, name: 'x' })).errorClass, 'FORBIDDEN');
    assert.equal(count(), before);
  });
});

describe('agentApplicationEnableApmBrowser', () => {
  let appId: number;
  before(async () => {
    appId = Number((await connect(f.ts, 'billing-api')).application_id);
  });

  it('makes the browser side of the APM application, named after it', async () => {
    const data = await graphData(f.ts, ENABLE, { guid: apmGuid(appId), settings: { loaderType: 'PRO' } });
    assert.deepEqual(data.agentApplicationEnableApmBrowser, { name: 'billing-api', settings: { cookiesEnabled: true, distributedTracingEnabled: true, loaderType: 'PRO' } });
    const sides = f.ts.server.entities.browserApplications.list(1).filter((b) => b.apmApplicationId === appId);
    assert.equal(sides.length, 1);
    const entity = await graphData(f.ts, 'query($g: EntityGuid!) { actor { entity(guid: $g) { name ... on BrowserApplicationEntity { servingApmApplicationId agentInstallType } } } }', { g: browserGuid(sides[0]!.id) });
    assert.deepEqual(entity.actor.entity, { name: 'billing-api', servingApmApplicationId: appId, agentInstallType: 'PRO' });
  });

  it('when it is on already: the same settings (or none) answer them; other settings are refused', async () => {
    const again = await graphData(f.ts, ENABLE, { guid: apmGuid(appId) });
    assert.deepEqual(again.agentApplicationEnableApmBrowser, { name: 'billing-api', settings: { cookiesEnabled: true, distributedTracingEnabled: true, loaderType: 'PRO' } });
    const side = f.ts.server.entities.browserApplications.list(1).find((b) => b.apmApplicationId === appId)!;
    const refused = await refusal(f.ts, ENABLE, { guid: apmGuid(appId), settings: { loaderType: 'SPA', cookiesEnabled: true } });
    assert.deepEqual(refused, {
      message: `Application ${appId} already has browser monitoring (browser application ${side.id}) with loaderType PRO; change its settings with agentApplicationSettingsUpdate`,
      errorClass: 'INVALID_INPUT', data: { agentApplicationEnableApmBrowser: null }, path: ['agentApplicationEnableApmBrowser'],
    });
    assert.equal(f.ts.server.entities.browserApplications.list(1).filter((b) => b.apmApplicationId === appId).length, 1);
    assert.equal(f.ts.server.entities.browserApplications.get(side.id)!.settings.loaderType, 'PRO');
  });

  it('a browser GUID is refused, saying it is one; an unknown one is NOT_FOUND', async () => {
    const side = f.ts.server.entities.browserApplications.list(1).find((b) => b.apmApplicationId === appId)!;
    assert.equal((await refusal(f.ts, ENABLE, { guid: browserGuid(side.id) })).message,
      `agentApplicationEnableApmBrowser takes the GUID of an APM application; ${browserGuid(side.id)} is a browser application (BROWSER_APPLICATION_ENTITY)`);
    assert.equal((await refusal(f.ts, ENABLE, { guid: apmGuid(4242) })).errorClass, 'NOT_FOUND');
  });
});

describe('agentApplicationDelete', () => {
  it('refuses an APM application while it reports, as REST does, then deletes it with its browser side', async () => {
    const appId = await reportingApp(f, 'checkout-web');
    await graphData(f.ts, ENABLE, { guid: apmGuid(appId) });
    const side = f.ts.server.entities.browserApplications.list(1).find((b) => b.apmApplicationId === appId)!;

    assert.deepEqual(await refusal(f.ts, DELETE, { guid: apmGuid(appId) }), {
      message: `Application ${appId} is still reporting and cannot be deleted: stop its agents; it can be deleted 10 minutes after its last data (about 10 more minutes)`,
      errorClass: 'INVALID_INPUT', data: { agentApplicationDelete: null }, path: ['agentApplicationDelete'],
    });
    f.clock.ms += 6 * 60_000;
    assert.match((await refusal(f.ts, DELETE, { guid: apmGuid(appId) })).message, /\(about 4 more minutes\)$/);
    assert.equal((await rest(f.ts, 'GET', `/v2/applications/${appId}.json`)).status, 200);

    f.clock.ms += 5 * 60_000;
    assert.deepEqual(await graphData(f.ts, DELETE, { guid: apmGuid(appId) }), { agentApplicationDelete: { success: true } });
    assert.equal((await rest(f.ts, 'GET', `/v2/applications/${appId}.json`)).status, 404);
    assert.equal(f.ts.server.entities.browserApplications.get(side.id), undefined, 'the browser side goes with it');
    const entity = await graphData(f.ts, 'query($g: EntityGuid!) { actor { entity(guid: $g) { name } } }', { g: apmGuid(appId) });
    assert.deepEqual(entity, { actor: { entity: null } });
    assert.equal((await refusal(f.ts, DELETE, { guid: apmGuid(appId) })).errorClass, 'NOT_FOUND', 'a second delete finds nothing');
  });

  it('deletes browser and mobile applications', async () => {
    const browser = (await graphData(f.ts, CREATE_BROWSER, { accountId: 1, name: 'to-delete' })).agentApplicationCreateBrowser.guid;
    const mobile = (await graphData(f.ts, CREATE_MOBILE, { accountId: 1, name: 'to-delete' })).agentApplicationCreateMobile.guid;
    for (const guid of [browser, mobile]) assert.deepEqual(await graphData(f.ts, DELETE, { guid }), { agentApplicationDelete: { success: true } });
    assert.equal(f.ts.server.entities.browserApplications.get(idOf(browser)), undefined);
    assert.equal(f.ts.server.entities.mobileApplications.get(idOf(mobile)), undefined);
    assert.equal((await rest(f.ts, 'GET', `/v2/mobile_applications/${idOf(mobile)}.json`)).status, 404);
  });

  it('another account\'s key gets NOT_FOUND for this account\'s applications, which stay', async () => {
    const other = await secondAccount(f.ts);
    const mobile = (await graphData(f.ts, CREATE_MOBILE, { accountId: 1, name: 'kept' })).agentApplicationCreateMobile.guid;
    const appId = Number((await connect(f.ts, 'kept-api')).application_id);
    for (const guid of [mobile, apmGuid(appId)]) {
      assert.deepEqual(await refusal(f.ts, DELETE, { guid }, other.userKey), {
        message: `No entity with GUID '${guid}' in the accounts this API key can reach`, errorClass: 'NOT_FOUND',
        data: { agentApplicationDelete: null }, path: ['agentApplicationDelete'],
      });
    }
    assert.notEqual(f.ts.server.entities.mobileApplications.get(idOf(mobile)), undefined);
    assert.notEqual(f.ts.server.catalog.application(appId), undefined);
    // Nor can it create in account 1 or turn on browser monitoring there.
    assert.equal((await refusal(f.ts, CREATE_MOBILE, { accountId: 1, name: 'intruder' }, other.userKey)).errorClass, 'FORBIDDEN');
    assert.equal((await refusal(f.ts, ENABLE, { guid: apmGuid(appId) }, other.userKey)).errorClass, 'NOT_FOUND');
    assert.equal(f.ts.server.entities.browserApplications.list(1).some((b) => b.apmApplicationId === appId), false);
    // Its own account works with its own key.
    const own = (await graphData(f.ts, CREATE_MOBILE, { accountId: other.accountId, name: 'kept' }, { key: other.userKey })).agentApplicationCreateMobile;
    assert.equal(own.guid, mobileGuid(idOf(own.guid), other.accountId));
    assert.equal(own.accountId, other.accountId);
  });
});
