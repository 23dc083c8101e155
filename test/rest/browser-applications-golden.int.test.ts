import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserApplication } from '../../src/store/browser-applications.js';
import { assertGolden } from '../helpers/golden.js';
import { ManualClock, startTestServer, type RestReply } from '../helpers/rest-fixture.js';
import type { TestServer } from '../helpers/test-server.js';
import { FORM, goldenText, NOW_MS, rest } from './rest-scenario.js';

/*
 * GET and POST /v2/browser_applications, JSON and XML. Three applications exist before the
 * test creates more: two standalone and the browser side of APM application 4 (as NerdGraph's
 * agentApplicationEnableApmBrowser will make). The browser key is random, so the golden files
 * show it as NRJS-<key>; the test checks its shape and that it is one key per account.
 */

let ts: TestServer;
let existing: BrowserApplication[];

before(async () => {
  ts = await startTestServer({}, { clock: new ManualClock(NOW_MS) });
  const store = ts.server.entities.browserApplications;
  existing = [
    await store.create({ accountId: 1, name: 'marketing-site' }),
    await store.create({ accountId: 1, name: 'docs-site', settings: { loaderType: 'PRO', cookiesEnabled: false, distributedTracingEnabled: false } }),
    await store.create({ accountId: 1, name: 'checkout-web', apmApplicationId: 4 }),
  ];
});
after(() => ts?.stop());

const KEY = /NRJS-[0-9a-f]{19}/g;

/** `golden` with every browser key in the reply shown as NRJS-<key>. */
async function masked(name: string, method: 'GET' | 'POST', url: string, options: Parameters<typeof rest>[3] & { note?: string } = {}): Promise<RestReply> {
  const reply = await rest(ts, method, url, options);
  const text = reply.text.replace(KEY, 'NRJS-<key>');
  assertGolden(`test/golden/rest/${name}.txt`, goldenText(method, url, { ...reply, text, json: () => JSON.parse(text) }, options.note));
  return reply;
}

describe('GET /v2/browser_applications', () => {
  it('lists them by name, each with its key and loader snippet', async () => {
    await masked('browser-applications/list', 'GET', '/v2/browser_applications.json');
    await masked('browser-applications/list-xml', 'GET', '/v2/browser_applications.xml');
    const list = (await rest(ts, 'GET', '/v2/browser_applications.json')).json().browser_applications as Record<string, string>[];
    assert.deepEqual(list.map((b) => b.name), ['checkout-web', 'docs-site', 'marketing-site']);
    assert.equal(new Set(list.map((b) => b.browser_monitoring_key)).size, 1, 'one browser key per account');
    assert.match(list[0]!.browser_monitoring_key!, /^NRJS-[0-9a-f]{19}$/);
  });

  it('filters by name and ids, also from a form body', async () => {
    await masked('browser-applications/filter-name', 'GET', '/v2/browser_applications.json?filter[name]=SITE');
    await masked('browser-applications/filter-ids', 'GET', `/v2/browser_applications.json?filter[ids]=${existing[1]!.id},999`);
    await masked('browser-applications/filter-form-body', 'GET', '/v2/browser_applications.xml', {
      body: 'filter[name]=checkout', headers: FORM, note: 'body (application/x-www-form-urlencoded): filter[name]=checkout',
    });
    await masked('browser-applications/page-past-end', 'GET', '/v2/browser_applications.json?page=2');
  });
});

describe('POST /v2/browser_applications', () => {
  it('creates a standalone application with the Lite loader and answers it with 201', async () => {
    const reply = await masked('browser-applications/create', 'POST', '/v2/browser_applications.json', { body: { browser_application: { name: 'shop-frontend' } } });
    const created = reply.json().browser_application;
    const stored = ts.server.entities.browserApplications.get(created.id)!;
    assert.deepEqual(
      { name: stored.name, settings: stored.settings, apm: stored.apmApplicationId, key: stored.browserMonitoringKey },
      { name: 'shop-frontend', settings: { cookiesEnabled: true, distributedTracingEnabled: true, loaderType: 'LITE' }, apm: null, key: existing[0]!.browserMonitoringKey },
    );
    assert.ok(created.loader_script.includes(`applicationID:"${created.id}"`));
  });

  it('takes the name as form fields too, and answers XML', async () => {
    await masked('browser-applications/create-form-xml', 'POST', '/v2/browser_applications.xml', {
      body: 'browser_application[name]=landing-pages', headers: FORM, note: 'body (application/x-www-form-urlencoded): browser_application[name]=landing-pages',
    });
    assert.ok(ts.server.entities.browserApplications.list(1).some((b) => b.name === 'landing-pages'));
  });

  it('points the loader at the host and scheme the client used, behind a proxy too', async () => {
    const reply = await rest(ts, 'GET', `/v2/browser_applications.json?filter[ids]=${existing[0]!.id}`, {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'apm.example.com' },
    });
    const script = reply.json().browser_applications[0].loader_script as string;
    assert.ok(script.includes('e.src="https://apm.example.com/browser-agent/nr-loader-spa.min.js"'), script);
    assert.ok(script.includes('NREUM.info={beacon:"apm.example.com",errorBeacon:"apm.example.com"'));
    assert.ok(!script.includes('ssl:false'));
  });
});
