import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Clock } from '../../src/clock.js';
import { withAgentApp } from '../helpers/agent-app.js';
import { connectApp, rest } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * The unmodified browser agent in Debian's Chromium reporting to Timeslice: (a) pages of an app
 * under the real Node agent carrying getBrowserTimingHeader(), (b) a standalone page carrying the
 * snippet of a browser application created with agentApplicationCreateBrowser. Each scenario loads
 * pages the test makes fast, tolerating and slow against a browser Apdex T of 1 s (the load
 * waits for an image the server holds back), and one fast page where the test makes an AJAX call,
 * a PageAction and a JavaScript error. Expected numbers come from that plan and from the load times
 * the pages measured themselves (Navigation Timing), never from the code under test.
 */

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const APDEX_T = 1;
/** Image delays (ms) per planned zone: fast pages have none (well under T on a loaded machine); 2 s is within 4T; 4.6 s is past it. */
const PLAN: readonly { kind: string; delay: number; zone: 's' | 't' | 'f'; interactive?: boolean }[] = [
  { kind: 'fast-1', delay: 0, zone: 's' },
  { kind: 'fast-2', delay: 0, zone: 's' },
  { kind: 'interactive', delay: 0, zone: 's', interactive: true },
  { kind: 'tolerating', delay: 2000, zone: 't' },
  { kind: 'slow', delay: 4600, zone: 'f' },
];
const planned = (zone: 's' | 't' | 'f') => PLAN.filter((p) => p.zone === zone).length;

/** The real time, moved forward on demand: REST reads whole minutes before the current one. */
class ShiftedClock implements Clock {
  shiftMs = 0;
  now(): number {
    return Date.now() + this.shiftMs;
  }
}

let browser: Browser;
before(async () => {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
});
after(async () => browser?.close());

/**
 * Loads `url` in a fresh context (the agent caches its flags per session), waits for the RUM call,
 * does the interactive page's actions, then navigates away so the agent sends its final harvest.
 * Returns the load time the page measured (s).
 */
async function visit(url: string, interactive: boolean): Promise<number> {
  const context = await browser.newContext();
  try {
    const page: Page = await context.newPage();
    // The page's initial-load interaction (a BrowserInteraction) leaves in a querypack harvest, on the
    // agent's timer or on unload: noted whenever it goes, so leaving the page can wait for it.
    let interactionSent = false;
    page.on('request', (r) => {
      if (/\/events\/1\//.test(r.url()) && (r.postData() ?? '').includes('initialPageLoad')) interactionSent = true;
    });
    const rum = page.waitForResponse((r) => /\/1\/NRJS-/.test(r.url()), { timeout: 30_000 });
    await page.goto(url, { waitUntil: 'load' });
    const rumReply = await rum;
    assert.equal(rumReply.status(), 200, `RUM call of ${url}`);
    // Page code runs in the browser: written as text (this project compiles without the DOM's types).
    const loadMs = await page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd") as number;
    if (interactive) {
      const ajax = page.waitForRequest((r) => r.url().endsWith('/api/data'));
      await page.evaluate(`(async () => {
        await fetch('/api/data');
        newrelic.addPageAction('checkout', { step: 2 });
        setTimeout(() => { throw new Error('e2e boom'); }, 0);
      })()`);
      await ajax;
      await page.waitForTimeout(300);
    }
    const finalHarvest = page.waitForRequest((r) => /\/jserrors\/1\//.test(r.url()) && (r.postData() ?? '').includes('"sm"'), { timeout: 5_000 }).catch(() => undefined);
    await page.goto('about:blank');
    await finalHarvest;
    // Under a loaded machine the unload harvest of the interaction can lag the error beacon's.
    for (const until = Date.now() + 5_000; !interactionSent && Date.now() < until;) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    return loadMs / 1000;
  } finally {
    await context.close();
  }
}

async function nrql(ts: TestServer, query: string): Promise<any[]> {
  const res = await fetch(`${ts.server.apiUrl}/timeslice/v1/nrql`, {
    method: 'POST', headers: { 'api-key': TEST_API_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ query }),
  });
  const body = await res.json() as { results?: any[] };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.results!;
}

async function graphql(ts: TestServer, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const res = await fetch(`${ts.server.apiUrl}/graphql`, {
    method: 'POST', headers: { 'api-key': TEST_API_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }),
  });
  const body = await res.json() as { data?: any; errors?: unknown };
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data;
}

/** Waits until every event type has its expected count for `appName` (beacons arrive after the page is gone). */
async function eventCounts(ts: TestServer, appName: string, expected: Record<string, number>): Promise<Record<string, number>> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const counts: Record<string, number> = {};
    for (const key of Object.keys(expected)) {
      // `Type` or `Type/timingName`: PageViewTiming counted by the timing it carries.
      const [type, timing] = key.split('/');
      const where = timing ? ` AND timingName = '${timing}'` : '';
      const [row] = await nrql(ts, `SELECT count(*) FROM ${type} WHERE appName = '${appName}'${where} SINCE 1 hour ago`);
      counts[key] = row.count;
    }
    if (JSON.stringify(counts) === JSON.stringify(expected) || Date.now() > deadline) return counts;
    await new Promise((r) => setTimeout(r, 500));
  }
}

const EXPECTED_EVENTS = {
  PageView: PLAN.length,
  'PageViewTiming/load': PLAN.length, // each page's window load timing
  BrowserInteraction: PLAN.length, // one initial page load each (SPA loader)
  AjaxRequest: 1,
  PageAction: 1,
  JavaScriptError: 1,
};

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const threeSignificant = (x: number) => Number(x.toPrecision(3));

describe('the real browser agent in Chromium', { timeout: 240_000 }, () => {
  it('(a) reports pages of an app under the Node agent to that APM application', async () => {
    const clock = new ShiftedClock();
    const ts = await startTestServer({}, { clock });
    const logDir = await mkdtemp(join(tmpdir(), 'timeslice-browser-e2e-'));
    try {
      const appName = 'browser-e2e-store';
      const { appId } = await connectApp(ts, appName);
      const guid = Buffer.from(`1|APM|APPLICATION|${appId}`).toString('base64').replace(/=+$/, '');
      await graphql(ts, 'mutation($guid: EntityGuid!) { agentApplicationEnableApmBrowser(guid: $guid) { name } }', { guid });
      const put = await rest(ts, 'PUT', `/v2/applications/${appId}.json`, { body: { application: { settings: { end_user_apdex_threshold: APDEX_T } } } });
      assert.equal(put.status, 200, put.text);

      const loads: number[] = [];
      await withAgentApp({
        appName, licenseKey: TEST_LICENSE_KEY, collectorPort: ts.server.collectorPort, certPath: ts.server.certPath, logDir, fixture: 'browser-app.cjs',
      }, async ({ port, appId: agentAppId }) => {
        assert.equal(Number(agentAppId), appId);
        for (const p of PLAN) loads.push(await visit(`http://127.0.0.1:${port}/page/${p.kind}?delay=${p.delay}`, p.interactive === true));
      });
      // Each planned zone held in the browser's own measure.
      PLAN.forEach((p, i) => assert.equal(p.zone === 's' ? loads[i]! <= APDEX_T : p.zone === 't' ? loads[i]! > APDEX_T && loads[i]! <= 4 * APDEX_T : loads[i]! > 4 * APDEX_T, true, `${p.kind} loaded in ${loads[i]} s`));

      assert.deepEqual(await eventCounts(ts, appName, EXPECTED_EVENTS), EXPECTED_EVENTS);
      clock.shiftMs = 120_000;

      // Spec rule 3: server Apdex and browser Apdex side by side.
      const data = await rest(ts, 'GET', `/v2/applications/${appId}/metrics/data.json?names[]=Apdex&names[]=EndUser/Apdex&values[]=score&values[]=s&values[]=t&values[]=f&summarize=true`);
      assert.equal(data.status, 200, data.text);
      const metrics = data.json().metric_data.metrics as { name: string; timeslices: { values: Record<string, number> }[] }[];
      const browserApdex = metrics.find((m) => m.name === 'EndUser/Apdex')!.timeslices[0]!.values;
      const [s, t, f] = [planned('s'), planned('t'), planned('f')];
      assert.deepEqual(browserApdex, { score: Math.round(((s + t / 2) / PLAN.length) * 100) / 100, s, t, f });
      // The server side: one transaction per page, image and AJAX call .
      const serverApdex = metrics.find((m) => m.name === 'Apdex')!.timeslices[0]!.values;
      const requests = PLAN.length + PLAN.filter((p) => p.delay > 0).length + 1;
      assert.equal(serverApdex.s! + serverApdex.t! + serverApdex.f!, requests);

      // The interactive page's error, in the browser error count REST's error_percentage reads.
      const [errors] = await nrql(ts, `SELECT sum(newrelic.timeslice.value['count']) AS n FROM Metric WHERE appId = ${appId} AND metricTimesliceName = 'EndUser/errors' SINCE 1 hour ago`);
      assert.equal(errors.n, 1);
      // Injected pages are named after their APM transaction.
      const perTxn = await nrql(ts, "SELECT count(newrelic.timeslice.value) FROM Metric WHERE metricTimesliceName = 'EndUser/WebTransaction/WebTransaction/Custom/page-slow' SINCE 1 hour ago");
      assert.deepEqual(perTxn, [{ 'count.newrelic.timeslice.value': 1 }]);

      const summary = (await rest(ts, 'GET', `/v2/applications/${appId}.json`)).json().application.end_user_summary;
      const clamped = loads.map((l) => Math.min(l, Math.max(4.5 * APDEX_T, 13.5)));
      assert.equal(summary.apdex_target, APDEX_T);
      assert.equal(summary.apdex_score, Math.round(((s + t / 2) / PLAN.length) * 100) / 100);
      assert.ok(Math.abs(summary.response_time - threeSignificant(mean(clamped))) <= 0.01, `${summary.response_time} vs ${mean(clamped)}`);

      const entity = await graphql(ts, `{ actor { entity(guid: "${guid}") { ... on ApmApplicationEntity { apmBrowserSummary { jsErrorRate pageLoadThroughput ajaxRequestThroughput pageLoadTimeAverage } } } } }`);
      const b = entity.actor.entity.apmBrowserSummary;
      assert.equal(b.jsErrorRate, (1 / PLAN.length) * 100);
      assert.ok(Math.abs(b.pageLoadTimeAverage - mean(loads)) < 0.01, `${b.pageLoadTimeAverage} vs ${mean(loads)}`);
      assert.ok(b.pageLoadThroughput > 0 && b.ajaxRequestThroughput > 0);
    } finally {
      await ts.stop();
      await rm(logDir, { recursive: true, force: true });
    }
  });

  it('(b) reports a standalone page carrying the snippet of agentApplicationCreateBrowser', async () => {
    const ts = await startTestServer();
    let site: Server | undefined;
    try {
      const created = await graphql(ts, 'mutation { agentApplicationCreateBrowser(accountId: 1, name: "browser-e2e-site") { guid settings { loaderScript } } }');
      const snippet = JSON.parse(created.agentApplicationCreateBrowser.settings.loaderScript) as string;
      const browserId = Number(Buffer.from(created.agentApplicationCreateBrowser.guid, 'base64').toString('utf8').split('|')[3]);
      await ts.server.entities.browserApplications.update(browserId, { apdexT: APDEX_T });

      // The page's own server, on another host name than the beacons (127.0.0.1 there, localhost here).
      site = createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://x');
        const [, kind, arg] = url.pathname.split('/');
        if (kind === 'page') {
          const delay = Number(url.searchParams.get('delay') ?? 0);
          res.setHeader('content-type', 'text/html; charset=utf-8');
          res.end(`<!doctype html><html><head><link rel="icon" href="data:,">${snippet}<title>${arg}</title></head><body>${delay > 0 ? `<img src="/asset/${delay}" alt="">` : ''}</body></html>`);
        } else if (kind === 'asset') {
          setTimeout(() => { res.setHeader('content-type', 'image/gif'); res.end(Buffer.from('R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAUwAOw==', 'base64')); }, Number(arg));
        } else if (kind === 'api') {
          res.end('{"ok":true}');
        } else {
          res.statusCode = 404;
          res.end();
        }
      });
      await new Promise<void>((r) => site!.listen(0, '127.0.0.1', r));
      const port = (site.address() as { port: number }).port;
      const loads: number[] = [];
      // The snippet loads the agent asynchronously: the interactive page waits for it before acting.
      for (const p of PLAN) loads.push(await visit(`http://localhost:${port}/page/${p.kind}?delay=${p.delay}`, p.interactive === true));
      PLAN.forEach((p, i) => assert.equal(p.zone === 's' ? loads[i]! <= APDEX_T : p.zone === 't' ? loads[i]! > APDEX_T && loads[i]! <= 4 * APDEX_T : loads[i]! > 4 * APDEX_T, true, `${p.kind} loaded in ${loads[i]} s`));

      assert.deepEqual(await eventCounts(ts, 'browser-e2e-site', EXPECTED_EVENTS), EXPECTED_EVENTS);
      const [zones] = await nrql(ts, "SELECT filter(count(*), WHERE apdexPerfZone = 'S') AS s, filter(count(*), WHERE apdexPerfZone = 'T') AS t, filter(count(*), WHERE apdexPerfZone = 'F') AS f FROM PageView SINCE 1 hour ago");
      assert.deepEqual({ s: zones.s, t: zones.t, f: zones.f }, { s: planned('s'), t: planned('t'), f: planned('f') });

      const entity = await graphql(ts, `{ actor { entity(guid: "${created.agentApplicationCreateBrowser.guid}") { ... on BrowserApplicationEntity { browserSummary { jsErrorRate pageLoadThroughput pageLoadTimeAverage ajaxRequestThroughput } } } } }`);
      const b = entity.actor.entity.browserSummary;
      assert.equal(b.jsErrorRate, (1 / PLAN.length) * 100);
      assert.ok(Math.abs(b.pageLoadTimeAverage - mean(loads)) < 0.01, `${b.pageLoadTimeAverage} vs ${mean(loads)}`);
      assert.ok(b.pageLoadThroughput > 0 && b.ajaxRequestThroughput > 0);
    } finally {
      await new Promise((r) => (site ? site.close(r) : r(undefined)));
      await ts.stop();
    }
  });
});
