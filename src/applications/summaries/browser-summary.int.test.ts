import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock, startTestServer } from '../../../test/helpers/rest-fixture.js';
import { TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../../../test/helpers/test-server.js';
import type { BrowserApplication } from '../../store/browser-applications.js';
import { DuckDbPlanExecutor } from '../../store/duckdb/duckdb-plan-executor.js';
import { apmBrowserSummaries, BROWSER_EVENT_TYPES, browserSummaries, type BrowserApplicationSummaryData } from './browser-summary.js';
import { lastEventTimes } from './event-summaries.js';

/*
 * Browser summaries from events sent through the Event API with the browser agent's event types
 * and attribute names. The clock stands at 14:30:20: the window is 14:01–14:31, and an
 * application is reporting with a browser event after 14:20:20.
 *
 *   shop-browser   5 page views, 3 Ajax requests, 2 JS errors, SPA interactions (and a custom
 *                  one), a PageViewTiming; some events outside the window
 *   checkout-web   the browser side of APM application 7: 2 page views, 1 JS error
 *   spa-only       route changes only
 *   old-browser    its last event at 14:18
 *   no-events      nothing
 */

const NOW = Date.UTC(2024, 2, 5, 14, 30, 20);
const at = (m: number, s = 0) => Date.UTC(2024, 2, 5, 14, m, s);

let ts: TestServer;
let executor: DuckDbPlanExecutor;
const apps: Record<string, BrowserApplication> = {};

async function sendEvents(events: readonly Record<string, unknown>[]): Promise<void> {
  const reply = await ts.server.api.inject({
    method: 'POST', url: '/v1/accounts/1/events', headers: { 'api-key': TEST_LICENSE_KEY, 'content-type': 'application/json' }, payload: events,
  });
  assert.equal(reply.statusCode, 200, reply.body);
}

before(async () => {
  ts = await startTestServer({}, { clock: new ManualClock(NOW) });
  executor = new DuckDbPlanExecutor(ts.server.db);
  const store = ts.server.entities.browserApplications;
  for (const name of ['shop-browser', 'spa-only', 'old-browser', 'no-events']) apps[name] = await store.create({ accountId: 1, name });
  apps['checkout-web'] = await store.create({ accountId: 1, name: 'checkout-web', apmApplicationId: 7 });
  const event = (eventType: string, appName: string, time: number, extra: Record<string, unknown> = {}) =>
    ({ eventType, appName, timestamp: time, ...extra });
  const pageView = (appName: string, duration: number, time: number) => event('PageView', appName, time, { duration, pageUrl: 'https://shop.example/' });
  const ajax = (appName: string, timeToLoadEventStart: number, time: number) =>
    event('AjaxRequest', appName, time, { timeToLoadEventStart, timeToSettle: timeToLoadEventStart + 0.05, httpResponseCode: 200 });
  const interaction = (appName: string, category: string, duration: number, time: number) => event('BrowserInteraction', appName, time, { category, duration });
  await sendEvents([
    pageView('shop-browser', 1.0, at(21)),
    pageView('shop-browser', 2.0, at(22)),
    pageView('shop-browser', 4.0, at(24)),
    pageView('shop-browser', 3.0, at(26)),
    pageView('shop-browser', 10.0, at(29)),
    pageView('shop-browser', 50.0, at(-5)),
    ajax('shop-browser', 0.1, at(22)),
    ajax('shop-browser', 0.3, at(25)),
    ajax('shop-browser', 0.2, at(28)),
    ajax('shop-browser', 9.0, at(31, 1)),
    event('JavaScriptError', 'shop-browser', at(23), { errorClass: 'TypeError', errorMessage: 'x is undefined' }),
    event('JavaScriptError', 'shop-browser', at(27), { errorClass: 'Error', errorMessage: 'boom' }),
    interaction('shop-browser', 'Initial page load', 2.0, at(21)),
    interaction('shop-browser', 'Route change', 0.5, at(23)),
    interaction('shop-browser', 'Route change', 1.5, at(25)),
    interaction('shop-browser', 'Custom', 9.0, at(26)),
    event('PageViewTiming', 'shop-browser', at(29, 30), { timingName: 'largestContentfulPaint', largestContentfulPaint: 1.2 }),
    pageView('checkout-web', 2.0, at(25)),
    pageView('checkout-web', 3.0, at(26)),
    event('JavaScriptError', 'checkout-web', at(26), { errorClass: 'Error' }),
    interaction('spa-only', 'Route change', 0.8, at(29)),
    pageView('old-browser', 1.0, at(18)),
    // The same event types from an APM application's own name, and a custom event named like a browser app.
    pageView('another-app', 100.0, at(25)),
    event('Purchase', 'shop-browser', at(25), { duration: 100.0 }),
  ]);
});
after(async () => {
  executor?.close();
  await ts?.stop();
});

const summaries = () => browserSummaries(executor, 1, Object.values(apps), NOW);

function assertNumbers<T extends object>(actual: T | undefined, expected: T): void {
  assert.ok(actual, 'a summary');
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort());
  for (const [key, want] of Object.entries(expected) as [keyof T & string, number | null][]) {
    const got = actual[key] as number | null;
    if (want === null || got === null) assert.equal(got, want, key);
    else assert.ok(Math.abs(got - want) <= 1e-12 * Math.max(1, Math.abs(want)), `${key}: ${got} ≠ ${want}`);
  }
}

describe('browserSummaries', () => {
  it('page views, Ajax, JS errors and SPA interactions', async () => {
    // Page views 1, 2, 4, 3, 10 s (the 13:55 one is outside): mean 4, median 3, 5 in 30 minutes.
    // Ajax 0.1, 0.3, 0.2 s (the 14:31:01 one is after the window): mean 0.2, 3 in 30 minutes.
    // 2 JS errors per 5 page views = 40 %. Initial page load and route changes 2, 0.5, 1.5 s
    // (not the custom interaction): mean 4/3, median 1.5.
    assertNumbers<BrowserApplicationSummaryData>((await summaries()).get(apps['shop-browser']!.id), {
      ajaxRequestThroughput: 0.1,
      ajaxResponseTimeAverage: 0.2,
      jsErrorRate: 40,
      pageLoadThroughput: 5 / 30,
      pageLoadTimeAverage: 4,
      pageLoadTimeMedian: 3,
      spaResponseTimeAverage: 4 / 3,
      spaResponseTimeMedian: 1.5,
    });
  });

  it('an application with route changes only: nothing per page view', async () => {
    assert.deepEqual((await summaries()).get(apps['spa-only']!.id), {
      ajaxRequestThroughput: 0,
      ajaxResponseTimeAverage: null,
      jsErrorRate: null,
      pageLoadThroughput: 0,
      pageLoadTimeAverage: null,
      pageLoadTimeMedian: null,
      spaResponseTimeAverage: 0.8,
      spaResponseTimeMedian: 0.8,
    });
  });

  it('an application without a browser event in 10 minutes, or without events, has no summary', async () => {
    const map = await summaries();
    assert.deepEqual(
      [...map.keys()].sort((a, b) => a - b),
      [apps['shop-browser']!.id, apps['checkout-web']!.id, apps['spa-only']!.id].sort((a, b) => a - b),
    );
    assert.deepEqual(await browserSummaries(executor, 1, [], NOW), new Map());
  });

  it('the median is NRQL median(duration) over the same events', async () => {
    const reply = await ts.server.api.inject({
      method: 'POST', url: '/timeslice/v1/nrql', headers: { 'api-key': TEST_API_KEY },
      payload: { query: `SELECT median(duration) FROM PageView WHERE appName = 'checkout-web' SINCE ${at(1)} UNTIL ${at(31)}` },
    });
    assert.equal(reply.statusCode, 200, reply.body);
    const median = (JSON.parse(reply.body).results as Record<string, Record<string, number>>[])[0]!['median.duration']!['50'];
    assert.equal((await summaries()).get(apps['checkout-web']!.id)!.pageLoadTimeMedian, median);
    assert.ok(median === 2 || median === 3, `a median of 2 and 3 s is one of them (quantile_disc): ${median}`);
  });
});

describe('apmBrowserSummaries', () => {
  it('the browser side of an APM application, by the APM application id, without medians', async () => {
    // 2 page views of 2 and 3 s: mean 2.5, 2 in 30 minutes; 1 JS error per 2 page views; no Ajax.
    const map = await apmBrowserSummaries(executor, 1, Object.values(apps), NOW);
    assert.deepEqual([...map.keys()], [7]);
    assertNumbers(map.get(7), {
      ajaxRequestThroughput: 0,
      ajaxResponseTimeAverage: null,
      jsErrorRate: 50,
      pageLoadThroughput: 2 / 30,
      pageLoadTimeAverage: 2.5,
    });
  });
});

describe('lastEventTimes', () => {
  it('the newest browser event of each application reporting now', async () => {
    const times = await lastEventTimes(executor, 1, BROWSER_EVENT_TYPES, Object.values(apps).map((a) => a.name), NOW);
    assert.deepEqual(times, new Map([['shop-browser', at(29, 30)], ['checkout-web', at(26)], ['spa-only', at(29)]]));
    assert.deepEqual(await lastEventTimes(executor, 1, ['PageView'], ['spa-only', 'old-browser'], NOW), new Map());
  });
});
