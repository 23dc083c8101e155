import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock, rest, startTestServer } from '../../../test/helpers/rest-fixture.js';
import { TEST_LICENSE_KEY, type TestServer } from '../../../test/helpers/test-server.js';
import type { MobileApplication } from '../../store/mobile-applications.js';
import { DuckDbPlanExecutor } from '../../store/duckdb/duckdb-plan-executor.js';
import { lastEventTimes } from './event-summaries.js';
import { MOBILE_REPORTING_EVENT_TYPES, mobileAppSummaries, type MobileAppSummaryData } from './mobile-summary.js';

/*
 * Mobile summaries from events sent through the Event API, as New Relic's mobile agents name
 * them. The clock stands at 14:30:20: the window is 14:01–14:31, and an application is reporting
 * with a `Mobile` event after 14:20:20.
 *
 *   Field App    4 launches (one at 14:05), 3 crashes on 2 devices, an interaction, a custom event
 *                without a session; 4 requests, 3 HTTP errors, 1 network failure; some events
 *                outside the window
 *   Launch App   one launch at 14:29 without a session id, nothing else
 *   Quiet App    its last Mobile event at 14:15 (a request at 14:29 does not make it reporting)
 *   Empty App    no events
 */

const NOW = Date.UTC(2024, 2, 5, 14, 30, 20);
const at = (m: number, s = 0) => Date.UTC(2024, 2, 5, 14, m, s);

let ts: TestServer;
let executor: DuckDbPlanExecutor;
const apps: Record<string, MobileApplication> = {};

async function sendEvents(events: readonly Record<string, unknown>[]): Promise<void> {
  const reply = await ts.server.api.inject({
    method: 'POST', url: '/v1/accounts/1/events', headers: { 'api-key': TEST_LICENSE_KEY, 'content-type': 'application/json' }, payload: events,
  });
  assert.equal(reply.statusCode, 200, reply.body);
}

before(async () => {
  ts = await startTestServer({}, { clock: new ManualClock(NOW) });
  executor = new DuckDbPlanExecutor(ts.server.db);
  for (const name of ['Field App', 'Launch App', 'Quiet App', 'Empty App']) {
    apps[name] = await ts.server.entities.mobileApplications.create(1, name);
  }
  const mobile = (appName: string, category: string, time: number, extra: Record<string, unknown> = {}) =>
    ({ eventType: 'Mobile', appName, category, timestamp: time, ...extra });
  const request = (appName: string, responseTime: number, time: number) =>
    ({ eventType: 'MobileRequest', appName, responseTime, statusCode: 200, timestamp: time });
  const requestError = (appName: string, errorType: string, time: number) =>
    ({ eventType: 'MobileRequestError', appName, errorType, responseTime: 0.3, timestamp: time });
  await sendEvents([
    mobile('Field App', 'Session', at(5), { sessionId: 's4', deviceUuid: 'd3' }),
    mobile('Field App', 'Session', at(24), { sessionId: 's1', deviceUuid: 'd1' }),
    mobile('Field App', 'Crash', at(24, 30), { sessionId: 's1', deviceUuid: 'd1' }),
    mobile('Field App', 'Session', at(25), { sessionId: 's2', deviceUuid: 'd2' }),
    mobile('Field App', 'Interaction', at(25, 40), { sessionId: 's2', deviceUuid: 'd2', duration: 2 }),
    mobile('Field App', 'Crash', at(26), { sessionId: 's2', deviceUuid: 'd2' }),
    mobile('Field App', 'Custom', at(26, 10), { deviceUuid: 'd2' }),
    mobile('Field App', 'Session', at(27), { sessionId: 's3', deviceUuid: 'd1' }),
    mobile('Field App', 'Crash', at(27, 10), { sessionId: 's3', deviceUuid: 'd1' }),
    // Before the window (13:59) and after its end (14:31:05): not counted.
    mobile('Field App', 'Session', at(-1), { sessionId: 's0', deviceUuid: 'd9' }),
    mobile('Field App', 'Crash', at(31, 5), { sessionId: 's9', deviceUuid: 'd9' }),
    request('Field App', 0.2, at(20)),
    request('Field App', 0.4, at(22)),
    request('Field App', 0.6, at(26)),
    request('Field App', 1.0, at(28)),
    request('Field App', 5.0, at(-10)),
    requestError('Field App', 'HTTPError', at(21)),
    requestError('Field App', 'HTTPError', at(23)),
    requestError('Field App', 'HTTPError', at(29)),
    requestError('Field App', 'NetworkFailure', at(29, 30)),
    mobile('Launch App', 'Session', at(29), { deviceUuid: 'e1' }),
    mobile('Quiet App', 'Session', at(15), { sessionId: 'q1', deviceUuid: 'q1' }),
    request('Quiet App', 0.5, at(29)),
    // Another application's events, with the same session and device ids.
    mobile('Other App', 'Crash', at(27), { sessionId: 's1', deviceUuid: 'd1' }),
    request('Other App', 9.0, at(27)),
  ]);
});
after(async () => {
  executor?.close();
  await ts?.stop();
});

const summaries = () => mobileAppSummaries(executor, 1, Object.values(apps), NOW);

describe('mobileAppSummaries', () => {
  it('launches, sessions, crashes and requests of an application with all of them', async () => {
    // Launches s4, s1, s2, s3 = 4 (s0 is before the window); crashes 3 (the 14:31:05 one is after
    // it) on devices d1 and d2; sessions s1–s4 (the custom event has none); 3 crashes / 4 launches.
    // Requests: 0.2 + 0.4 + 0.6 + 1.0 = 2.2 s over 4, 4 in 30 minutes; of 4 + 4 = 8 requests,
    // 3 HTTP errors (37.5 %) and 1 network failure (12.5 %).
    const expected: MobileAppSummaryData = {
      appLaunchCount: 4,
      crashCount: 3,
      crashRate: 75,
      httpErrorRate: 37.5,
      httpRequestCount: 4,
      httpRequestRate: 4 / 30,
      httpResponseTimeAverage: 0.55,
      mobileSessionCount: 4,
      networkFailureRate: 12.5,
      usersAffectedCount: 2,
    };
    const actual = (await summaries()).get(apps['Field App']!.id)!;
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort());
    for (const [key, want] of Object.entries(expected) as [keyof MobileAppSummaryData, number][]) {
      assert.ok(Math.abs(actual[key]! - want) <= 1e-12, `${key}: ${actual[key]} ≠ ${want}`);
    }
  });

  it('rates of nothing are null, counts of nothing 0; an event without a session id is not a session', async () => {
    assert.deepEqual((await summaries()).get(apps['Launch App']!.id), {
      appLaunchCount: 1,
      crashCount: 0,
      crashRate: 0,
      httpErrorRate: null,
      httpRequestCount: 0,
      httpRequestRate: 0,
      httpResponseTimeAverage: null,
      mobileSessionCount: 0,
      networkFailureRate: null,
      usersAffectedCount: 0,
    });
  });

  it('an application without a Mobile event in 10 minutes, or without events, has no summary', async () => {
    const map = await summaries();
    assert.deepEqual([...map.keys()].sort((a, b) => a - b), [apps['Field App']!.id, apps['Launch App']!.id].sort((a, b) => a - b));
    assert.deepEqual(await mobileAppSummaries(executor, 1, [], NOW), new Map());
  });

  it('REST v2 reports the same launches, crashes and reporting', async () => {
    const field = (await rest(ts, 'GET', `/v2/mobile_applications/${apps['Field App']!.id}.json`)).json().application;
    assert.equal(field.reporting, true);
    assert.equal(field.mobile_summary.launch_count, 4);
    assert.deepEqual(field.crash_summary, { supports_crash_data: true, unresolved_crash_count: 3, crash_count: 3, crash_rate: 75 });
    const quiet = (await rest(ts, 'GET', `/v2/mobile_applications/${apps['Quiet App']!.id}.json`)).json().application;
    assert.equal(quiet.reporting, false);
  });

  it('lastEventTimes: the newest Mobile event of each reporting application', async () => {
    const times = await lastEventTimes(executor, 1, MOBILE_REPORTING_EVENT_TYPES, Object.values(apps).map((a) => a.name), NOW);
    assert.deepEqual(times, new Map([['Field App', at(27, 10)], ['Launch App', at(29)]]));
  });
});
