import { MOBILE_SUMMARY_WINDOW_MINUTES } from '../../api/rest/mobile-data.js';
import { and } from '../../plan/expressions.js';
import type { MobileApplication } from '../../store/mobile-applications.js';
import type { PlanExecutor } from '../../store/plan-executor.js';
import { eventSummaries, number, ofTypes, outputs, textIs } from './event-summaries.js';

/**
 * NerdGraph's `MobileAppSummaryData`, over the 30 minutes REST's mobile summary covers. Counts
 * are 0 when nothing happened; a rate or average of nothing is null.
 */
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

/**
 * Summaries of mobile applications, in one query: an application without a `Mobile` event in
 * the last 10 minutes (REST v2's mobile `reporting`) is absent.
 */
export async function mobileAppSummaries(
  executor: PlanExecutor,
  accountId: number,
  mobileApps: readonly MobileApplication[],
  nowMs: number,
): Promise<Map<number, MobileAppSummaryData>> {
  const mobile = ofTypes('Mobile');
  const crash = and(mobile, textIs('category', 'Crash'));
  const request = ofTypes('MobileRequest');
  const requestError = ofTypes('MobileRequestError');
  const byName = await eventSummaries(executor, {
    accountId,
    eventTypes: MOBILE_EVENT_TYPES,
    reportingTypes: MOBILE_REPORTING_EVENT_TYPES,
    appNames: mobileApps.map((a) => a.name),
    windowMinutes: MOBILE_SUMMARY_WINDOW_MINUTES,
    nowMs,
    outputs: (set) => {
      const launches = outputs.count(set, and(mobile, textIs('category', 'Session')));
      const crashes = outputs.count(set, crash);
      const requests = outputs.count(set, request);
      const allRequests = outputs.count(set, ofTypes('MobileRequest', 'MobileRequestError'));
      return {
        appLaunchCount: launches,
        crashCount: crashes,
        crashRate: outputs.percent(crashes, launches),
        httpErrorRate: outputs.percent(outputs.count(set, and(requestError, textIs('errorType', 'HTTPError'))), allRequests),
        httpRequestCount: requests,
        httpRequestRate: outputs.perMinute(requests),
        httpResponseTimeAverage: outputs.average(set, number('responseTime'), request),
        mobileSessionCount: outputs.uniqueCount(set, 'sessionId', mobile),
        networkFailureRate: outputs.percent(outputs.count(set, and(requestError, textIs('errorType', 'NetworkFailure'))), allRequests),
        usersAffectedCount: outputs.uniqueCount(set, 'deviceUuid', crash),
      };
    },
  });
  const summaries = new Map<number, MobileAppSummaryData>();
  for (const app of mobileApps) {
    const v = byName.get(app.name);
    if (!v) continue;
    summaries.set(app.id, {
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
    });
  }
  return summaries;
}
