import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertGolden } from '../helpers/golden.js';
import { ManualClock, startTestServer, withoutSuccessorTitle, type RestReply } from '../helpers/rest-fixture.js';
import type { TestServer } from '../helpers/test-server.js';
import { goldenText, NOW_MS, rest } from './rest-scenario.js';

/*
 * Paging of GET /v2/applications: 200 per page, the Link header (rel next/last, and first/prev
 * on later pages) carrying the request's filters, and an empty 200 past the end. 401
 * applications that never reported: pages 1 and 2 are full, page 3 holds one.
 *
 * A full page is 200 application objects; its golden file shows the first one whole and the
 * others as a count and an id range (the object's shape is pinned by applications/show-*).
 */

const TOTAL = 401;
let ts: TestServer;

before(async () => {
  ts = await startTestServer({}, { clock: new ManualClock(NOW_MS) });
  for (let i = 1; i <= TOTAL; i++) {
    await ts.server.catalog.connect(1, {
      appNames: [`bulk-${String(i).padStart(3, '0')}`],
      language: i % 2 === 0 ? 'python' : 'nodejs',
      agentVersion: '14.5.1',
      host: `host-${i % 7}`,
      displayHost: null,
      pid: 1000 + i,
      port: null,
      userAgent: null,
    });
  }
});
after(() => ts?.stop());

function abridged(reply: RestReply): RestReply {
  if (reply.status !== 200 || !String(reply.headers['content-type']).startsWith('application/json')) return reply;
  const body = reply.json() as { applications: { id: number; name: string }[] };
  const apps = body.applications;
  if (apps.length <= 1) return reply;
  const rest = apps.slice(1);
  const text = JSON.stringify({
    ...body,
    applications: [apps[0], `… and ${rest.length} more: ids ${rest[0]!.id}–${rest.at(-1)!.id}, ${rest[0]!.name} to ${rest.at(-1)!.name}`],
  });
  return { ...reply, text, json: () => JSON.parse(text) };
}

async function page(name: string, url: string): Promise<RestReply> {
  const reply = await rest(ts, 'GET', url);
  assertGolden(`test/golden/rest/applications/paging/${name}.txt`, goldenText('GET', url, abridged(reply)));
  return reply;
}

describe('GET /v2/applications paging', () => {
  it('page 1 has rel next and last, no first or prev', async () => {
    const reply = await page('page-1', '/v2/applications.json?exclude_links=true');
    assert.equal(reply.json().applications.length, 200);
    assert.equal(withoutSuccessorTitle(reply.headers.link), '<http://localhost:80/v2/applications.json?exclude_links=true&page=2>;rel="next", <http://localhost:80/v2/applications.json?exclude_links=true&page=3>;rel="last", <http://localhost:80/graphql>;rel="successor-version"');
  });

  it('a middle page links every way; page 3 holds the last application', async () => {
    const middle = await page('page-2', '/v2/applications.json?page=2&exclude_links=true');
    assert.equal(middle.json().applications[0].name, 'bulk-201');
    const last = await page('page-3', '/v2/applications.json?page=3&exclude_links=true');
    assert.deepEqual(last.json().applications.map((a: { name: string }) => a.name), ['bulk-401']);
  });

  it('past the end: 200 with an empty list, still linking back', async () => {
    const reply = await page('page-4-past-end', '/v2/applications.json?page=4&exclude_links=true');
    assert.deepEqual(reply.json().applications, []);
    await page('page-9-past-end-xml', '/v2/applications.xml?page=9&exclude_links=true');
  });

  it("the Link targets keep the filters (comma escaped) and the page parameter's place", async () => {
    const reply = await page('filtered', '/v2/applications.json?filter[language]=python,nodejs&page=1&exclude_links=true');
    assert.match(String(reply.headers.link), /<http:\/\/localhost:80\/v2\/applications\.json\?filter\[language\]=python%2Cnodejs&page=2&exclude_links=true>;rel="next"/);
    const odd = await page('filtered-nodejs-page-2', '/v2/applications.json?filter[language]=nodejs&exclude_links=true&page=2');
    // 201 nodejs applications (the odd ones): page 2 has one.
    assert.deepEqual(odd.json().applications.map((a: { name: string }) => a.name), ['bulk-401']);
  });

  it('filters sent in a GET body (curl -X GET -d) are carried into the Link targets', async () => {
    const reply = await rest(ts, 'GET', '/v2/applications.json?exclude_links=true', {
      body: 'filter[language]=nodejs', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(reply.status, 200);
    const next = /<([^>]+)>;rel="next"/.exec(String(reply.headers.link))?.[1];
    assert.equal(next, 'http://localhost:80/v2/applications.json?exclude_links=true&filter%5Blanguage%5D=nodejs&page=2');
    // Requested as it is, without a body, the next page is still the filtered list's: its one last application.
    const second = await rest(ts, 'GET', next!.replace('http://localhost:80', ''));
    assert.deepEqual(second.json().applications.map((a: { name: string }) => a.name), ['bulk-401']);
  });

  it('following rel="next" from page 1 visits every application once', async () => {
    const seen = new Set<number>();
    let url: string | undefined = '/v2/applications.json?exclude_links=true';
    let requests = 0;
    while (url !== undefined && requests++ < 10) {
      const reply = await rest(ts, 'GET', url);
      assert.equal(reply.status, 200);
      for (const app of reply.json().applications as { id: number }[]) {
        assert.ok(!seen.has(app.id), `application ${app.id} on two pages`);
        seen.add(app.id);
      }
      url = /<([^>]+)>;rel="next"/.exec(String(reply.headers.link ?? ''))?.[1];
    }
    assert.equal(seen.size, TOTAL);
  });
});
