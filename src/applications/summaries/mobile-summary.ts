import type { MobileApplication } from '../../store/mobile-applications.js';
import type { PlanExecutor } from '../../store/plan-executor.js';
import { countWhere, eventSummaries, typeIs } from './event-summaries.js';

/** The summary window (reference §10: "last 30 minutes"), ending with the current minute as the application summary's does. */
export const MOBILE_SUMMARY_WINDOW_MINUTES = 30;

/**
 * A mobile application's summary over the last 30 minutes: NerdGraph's `MobileAppSummaryData`
 * and what REST v2's `mobile_summary` and `crash_summary` show besides, from one query.
 */
export interface MobileSummary {
  readonly data: MobileAppSummaryData;
  /** Epoch ms of the newest `Mobile` event in the window. */
  readonly lastEventMs: number;
  /** Distinct `deviceUuid` of `Mobile` events. */
  readonly activeUsers: number;
  /** Seconds: the mean `duration` of the window's interactions (`Mobile` events of category `Interaction`). */
  readonly interactionTime: number | null;
}

/** NerdGraph's `MobileAppSummaryData`: counts are 0 when nothing happened; a rate or average of nothing is null. */
export interface MobileAppSummaryData {
  /** Launches: `Mobile` events of category `Session`. */
  readonly appLaunchCount: number;
  /** `Mobile` events of category `Crash`. */
  readonly crashCount: number;
  /** Percent of launches that crashed (REST's `crash_rate`, unrounded). */
  readonly crashRate: number | null;
  /** Percent of requests answered with an HTTP error (status 400 or more). */
  readonly httpErrorRate: number | null;
  /** Completed requests: `MobileRequest` events. */
  readonly httpRequestCount: number;
  /** `MobileRequest` events per minute. */
  readonly httpRequestRate: number;
  /** Seconds: the mean `responseTime` of `MobileRequest` events. */
  readonly httpResponseTimeAverage: number | null;
  /** Distinct `sessionId` of `Mobile` events; events without one are not a session of their own. */
  readonly mobileSessionCount: number;
  /** Percent of requests that got no response (network failures). */
  readonly networkFailureRate: number | null;
  /** Distinct `deviceUuid` among crashes. */
  readonly usersAffectedCount: number;
}

/** The event types the summary reads. */
export const MOBILE_EVENT_TYPES: readonly string[] = ['Mobile', 'MobileRequest', 'MobileRequestError'];
/** A mobile application is reporting while it sends `Mobile` events (REST v2's rule). */
export const MOBILE_REPORTING_EVENT_TYPES: readonly string[] = ['Mobile'];

/*
 * Requests: New Relic's mobile agents record a request answered below 400 as a `MobileRequest`
 * (`responseTime` in seconds) and one answered with 400 or more, or not answered at all, as a
 * `MobileRequestError` with `errorType` `HTTPError` or `NetworkFailure`. New Relic's mobile
 * summary page gives HTTP errors and network failures each as a percentage of requests, and its
 * entity definitions give the HTTP error rate the unit PERCENTAGE; so both rates here are
 * percentages of every request made (both event types), and with the successful share they add
 * up to 100.
 */

const MOBILE = typeIs('Mobile');
const LAUNCH = `${MOBILE} AND category = 'Session'`;
const CRASH = `${MOBILE} AND category = 'Crash'`;
const REQUEST = typeIs('MobileRequest');
const ANY_REQUEST = typeIs('MobileRequest', 'MobileRequestError');
const REQUEST_ERROR = (errorType: string) => `${typeIs('MobileRequestError')} AND errorType = '${errorType}'`;

/** Each number of the summary as NRQL over the custom events of the window. */
const FORMULAS = {
  appLaunchCount: countWhere(LAUNCH),
  crashCount: countWhere(CRASH),
  crashRate: `${countWhere(CRASH)} / ${countWhere(LAUNCH)} * 100`,
  httpErrorRate: `${countWhere(REQUEST_ERROR('HTTPError'))} / ${countWhere(ANY_REQUEST)} * 100`,
  httpRequestCount: countWhere(REQUEST),
  httpRequestRate: `rate(${countWhere(REQUEST)}, 1 minute)`,
  httpResponseTimeAverage: `filter(average(responseTime), WHERE ${REQUEST})`,
  mobileSessionCount: `filter(uniqueCount(sessionId), WHERE ${MOBILE})`,
  networkFailureRate: `${countWhere(REQUEST_ERROR('NetworkFailure'))} / ${countWhere(ANY_REQUEST)} * 100`,
  usersAffectedCount: `filter(uniqueCount(deviceUuid), WHERE ${CRASH})`,
  activeUsers: `filter(uniqueCount(deviceUuid), WHERE ${MOBILE})`,
  interactionTime: `filter(average(duration), WHERE ${MOBILE} AND category = 'Interaction')`,
};

/**
 * Summaries of mobile applications, in one query, for REST v2 and the graph API alike: an
 * application without a `Mobile` event in the last 10 minutes (REST v2's mobile `reporting`)
 * is absent.
 */
export async function mobileSummaries(
  executor: PlanExecutor,
  accountId: number,
  mobileApps: readonly MobileApplication[],
  nowMs: number,
): Promise<Map<number, MobileSummary>> {
  const byName = await eventSummaries(executor, {
    accountId,
    eventTypes: MOBILE_EVENT_TYPES,
    reportingTypes: MOBILE_REPORTING_EVENT_TYPES,
    appNames: mobileApps.map((a) => a.name),
    windowMinutes: MOBILE_SUMMARY_WINDOW_MINUTES,
    nowMs,
    formulas: FORMULAS,
  });
  const summaries = new Map<number, MobileSummary>();
  for (const app of mobileApps) {
    const summary = byName.get(app.name);
    if (!summary) continue;
    const v = summary.values;
    summaries.set(app.id, {
      lastEventMs: summary.lastEventMs,
      activeUsers: v.activeUsers ?? 0,
      interactionTime: v.interactionTime,
      data: {
        appLaunchCount: v.appLaunchCount ?? 0,
        crashCount: v.crashCount ?? 0,
        crashRate: v.crashRate,
        httpErrorRate: v.httpErrorRate,
        httpRequestCount: v.httpRequestCount ?? 0,
        httpRequestRate: v.httpRequestRate ?? 0,
        httpResponseTimeAverage: v.httpResponseTimeAverage,
        mobileSessionCount: v.mobileSessionCount ?? 0,
        networkFailureRate: v.networkFailureRate,
        usersAffectedCount: v.usersAffectedCount ?? 0,
      },
    });
  }
  return summaries;
}

/** NerdGraph's view of `mobileSummaries`. */
export async function mobileAppSummaries(
  executor: PlanExecutor,
  accountId: number,
  mobileApps: readonly MobileApplication[],
  nowMs: number,
): Promise<Map<number, MobileAppSummaryData>> {
  const summaries = await mobileSummaries(executor, accountId, mobileApps, nowMs);
  return new Map([...summaries].map(([id, summary]) => [id, summary.data]));
}

/**
 * Health stands in for a default condition, as for APM applications: red at a crash rate of
 * 10 % or more, orange at 5 %, else green (also without launches); gray when not reporting.
 */
export function mobileHealthStatus(summary: MobileSummary | undefined): 'green' | 'orange' | 'red' | 'gray' {
  if (!summary) return 'gray';
  const crashRate = summary.data.crashRate ?? 0;
  return crashRate >= 10 ? 'red' : crashRate >= 5 ? 'orange' : 'green';
}
