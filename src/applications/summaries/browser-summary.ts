import type { BrowserApplication } from '../../store/browser-applications.js';
import type { PlanExecutor } from '../../store/plan-executor.js';
import { countWhere, eventSummaries, typeIs } from './event-summaries.js';
import { MOBILE_SUMMARY_WINDOW_MINUTES } from './mobile-summary.js';

/**
 * NerdGraph's `ApmBrowserApplicationSummaryData`: the browser side of an APM application.
 * Throughputs are per minute and 0 without events; an average or rate of nothing is null.
 */
export interface ApmBrowserApplicationSummaryData {
  /** `AjaxRequest` events per minute. */
  readonly ajaxRequestThroughput: number;
  /** Seconds: the mean `timeToLoadEventStart` of `AjaxRequest` events (request start to response loaded). */
  readonly ajaxResponseTimeAverage: number | null;
  /** `JavaScriptError` events per 100 page views (a percentage of `PageView` events); null without page views. */
  readonly jsErrorRate: number | null;
  /** `PageView` events per minute. */
  readonly pageLoadThroughput: number;
  /** Seconds: the mean `duration` of `PageView` events. */
  readonly pageLoadTimeAverage: number | null;
}

/** NerdGraph's `BrowserApplicationSummaryData`. */
export interface BrowserApplicationSummaryData extends ApmBrowserApplicationSummaryData {
  /** Seconds: the median `duration` of `PageView` events (NRQL `median(duration)`). */
  readonly pageLoadTimeMedian: number | null;
  /** Seconds: the mean `duration` of single-page-app interactions (`BrowserInteraction`, initial page loads and route changes). */
  readonly spaResponseTimeAverage: number | null;
  /** Seconds: their median `duration`. */
  readonly spaResponseTimeMedian: number | null;
}

/**
 * The event types the browser agent sends; an event of any of them in the last 10 minutes makes
 * a browser application reporting.
 */
export const BROWSER_EVENT_TYPES: readonly string[] = ['PageView', 'PageViewTiming', 'PageAction', 'AjaxRequest', 'JavaScriptError', 'BrowserInteraction'];

/** The window of browser summaries: the 30 minutes of mobile applications' (REST v2 has no browser summary). */
export const BROWSER_SUMMARY_WINDOW_MINUTES = MOBILE_SUMMARY_WINDOW_MINUTES;

const PAGE_VIEW = typeIs('PageView');
const AJAX = typeIs('AjaxRequest');
/** `BrowserInteraction` events of a page or route being shown (not custom interactions). */
const SPA = `${typeIs('BrowserInteraction')} AND category IN ('Initial page load', 'Route change')`;

/** The numbers of an APM application's browser side, as NRQL over the custom events of the window. */
const APM_BROWSER_FORMULAS: Readonly<Record<ApmBrowserKey, string>> = {
  ajaxRequestThroughput: `rate(${countWhere(AJAX)}, 1 minute)`,
  ajaxResponseTimeAverage: `filter(average(timeToLoadEventStart), WHERE ${AJAX})`,
  jsErrorRate: `${countWhere(typeIs('JavaScriptError'))} / ${countWhere(PAGE_VIEW)} * 100`,
  pageLoadThroughput: `rate(${countWhere(PAGE_VIEW)}, 1 minute)`,
  pageLoadTimeAverage: `filter(average(duration), WHERE ${PAGE_VIEW})`,
};

/** A browser application's: the medians cost a sort each. */
const BROWSER_FORMULAS = {
  ...APM_BROWSER_FORMULAS,
  pageLoadTimeMedian: `filter(median(duration), WHERE ${PAGE_VIEW})`,
  spaResponseTimeAverage: `filter(average(duration), WHERE ${SPA})`,
  spaResponseTimeMedian: `filter(median(duration), WHERE ${SPA})`,
};

/**
 * Summaries of browser applications over the last 30 minutes, in one query, from their events
 * by `appName`; an application without a browser event in the last 10 minutes is absent.
 */
export async function browserSummaries(
  executor: PlanExecutor,
  accountId: number,
  browserApps: readonly BrowserApplication[],
  nowMs: number,
): Promise<Map<number, BrowserApplicationSummaryData>> {
  const byName = await eventSummaries(executor, {
    accountId,
    eventTypes: BROWSER_EVENT_TYPES,
    reportingTypes: BROWSER_EVENT_TYPES,
    appNames: browserApps.map((a) => a.name),
    windowMinutes: BROWSER_SUMMARY_WINDOW_MINUTES,
    nowMs,
    formulas: BROWSER_FORMULAS,
  });
  const summaries = new Map<number, BrowserApplicationSummaryData>();
  for (const app of browserApps) {
    const v = byName.get(app.name)?.values;
    if (!v) continue;
    summaries.set(app.id, {
      ...apmBrowserSummary(v),
      pageLoadTimeMedian: v.pageLoadTimeMedian,
      spaResponseTimeAverage: v.spaResponseTimeAverage,
      spaResponseTimeMedian: v.spaResponseTimeMedian,
    });
  }
  return summaries;
}

/**
 * The browser sides of APM applications (browser applications with an `apmApplicationId`),
 * keyed by that APM application's id: the same numbers as `browserSummaries` without the
 * medians, which cost a sort each.
 */
export async function apmBrowserSummaries(
  executor: PlanExecutor,
  accountId: number,
  browserSides: readonly BrowserApplication[],
  nowMs: number,
): Promise<Map<number, ApmBrowserApplicationSummaryData>> {
  const sides = browserSides.filter((b) => b.apmApplicationId !== null);
  const byName = await eventSummaries(executor, {
    accountId,
    eventTypes: BROWSER_EVENT_TYPES,
    reportingTypes: BROWSER_EVENT_TYPES,
    appNames: sides.map((a) => a.name),
    windowMinutes: BROWSER_SUMMARY_WINDOW_MINUTES,
    nowMs,
    formulas: APM_BROWSER_FORMULAS,
  });
  const summaries = new Map<number, ApmBrowserApplicationSummaryData>();
  for (const side of sides) {
    const v = byName.get(side.name)?.values;
    if (v) summaries.set(side.apmApplicationId!, apmBrowserSummary(v));
  }
  return summaries;
}

type ApmBrowserKey = keyof ApmBrowserApplicationSummaryData;

function apmBrowserSummary(v: Readonly<Record<ApmBrowserKey, number | null>>): ApmBrowserApplicationSummaryData {
  return {
    ajaxRequestThroughput: v.ajaxRequestThroughput ?? 0,
    ajaxResponseTimeAverage: v.ajaxResponseTimeAverage,
    jsErrorRate: v.jsErrorRate,
    pageLoadThroughput: v.pageLoadThroughput ?? 0,
    pageLoadTimeAverage: v.pageLoadTimeAverage,
  };
}
