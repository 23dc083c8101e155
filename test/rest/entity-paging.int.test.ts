import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertGolden } from '../helpers/golden.js';
import { ManualClock, startTestServer, type RestReply } from '../helpers/rest-fixture.js';
import type { TestServer } from '../helpers/test-server.js';
import { goldenText, NOW_MS, rest } from './rest-scenario.js';

/*
 * Paging of the entity lists: 200 per page, as applications. One application runs on 201
 * hosts (one instance each) and has 201 key transactions; the account has 201 browser
 * applications. Page 1 is full and links next/last; page 2 holds one object and links
 * first/prev. Full pages are abridged in the golden files: the first object whole, the rest
 * as a count and an id range.
 */

const TOTAL = 201;
let ts: TestServer;
let appId: number;

before(async () => {
  ts = await startTestServer({}, { clock: new ManualClock(NOW_MS) });
  for (let i = 1; i <= TOTAL; i++) {
    const { primary } = await ts.server.catalog.connect(1, {
      appNames: ['fleet'], language: 'nodejs', agentVersion: '13.20.0', host: `node-${String(i).padStart(3, '0')}`,
      displayHost: null, pid: 1000 + i, port: null, userAgent: null,
    });
    appId = primary.id;
  }
  const application = ts.server.catalog.application(appId)!;
  for (let i = 1; i <= TOTAL; i++) {
    const n = String(i).padStart(3, '0');
    await ts.server.entities.keyTransactions.create({ application, name: `route ${n}`, metricName: `WebTransaction/Expressjs/GET//r${n}` });
    await ts.server.entities.browserApplications.create({ accountId: 1, name: `site-${n}` });
  }
});
after(() => ts?.stop());

function abridged(reply: RestReply, key: string): RestReply {
  if (reply.status !== 200 || !String(reply.headers['content-type']).startsWith('application/json')) return reply;
  const body = reply.json() as Record<string, { id: number }[]>;
  const items = body[key]!;
  if (items.length <= 1) return reply;
  const others = items.slice(1);
  const text = JSON.stringify({ ...body, [key]: [items[0], `… and ${others.length} more: ids ${others[0]!.id}–${others.at(-1)!.id}`] });
  return { ...reply, text, json: () => JSON.parse(text) };
}

async function page(name: string, url: string, key: string): Promise<RestReply> {
  const reply = await rest(ts, 'GET', url);
  const shown = abridged(reply, key);
  // Browser keys are random.
  const text = shown.text.replace(/NRJS-[0-9a-f]{19}/g, 'NRJS-<key>');
  assertGolden(`test/golden/rest/entity-paging/${name}.txt`, goldenText('GET', url, { ...shown, text }));
  return reply;
}

const LISTS = [
  ['hosts', () => `/v2/applications/${appId}/hosts.json`, 'application_hosts'],
  ['instances', () => `/v2/applications/${appId}/instances.json`, 'application_instances'],
  ['key-transactions', () => '/v2/key_transactions.json', 'key_transactions'],
  ['browser-applications', () => '/v2/browser_applications.json', 'browser_applications'],
] as const;

describe('entity lists page by 200 with Link', () => {
  for (const [name, url, key] of LISTS) {
    it(`${name}: 200, then 1, then none`, async () => {
      const first = await page(`${name}-page-1`, url(), key);
      assert.equal(first.json()[key].length, 200);
      assert.match(String(first.headers.link), new RegExp(`<http://localhost:80${url().replace(/[.?[\]]/g, '\\$&')}\\?page=2>;rel="next", <[^>]+\\?page=2>;rel="last"`));
      const second = await page(`${name}-page-2`, `${url()}?page=2`, key);
      assert.equal(second.json()[key].length, 1);
      assert.match(String(second.headers.link), /rel="first"/);
      assert.doesNotMatch(String(second.headers.link), /rel="next"/);
      const past = await rest(ts, 'GET', `${url()}?page=3`);
      assert.deepEqual([past.status, past.json()[key]], [200, []]);
      const ids = [...first.json()[key], ...second.json()[key]].map((o: { id: number }) => o.id);
      assert.equal(new Set(ids).size, TOTAL, 'every object once over the two pages');
    });
  }

  it('a filter travels in the Link targets', async () => {
    const reply = await page('hosts-filtered', `/v2/applications/${appId}/hosts.json?filter[hostname]=node-`, 'application_hosts');
    assert.match(String(reply.headers.link), /hosts\.json\?filter\[hostname\]=node-&page=2>;rel="next"/);
  });
});
