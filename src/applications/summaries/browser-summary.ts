import { MOBILE_SUMMARY_WINDOW_MINUTES } from '../../api/rest/mobile-data.js';
import type { AggregateSet } from '../../plan/aggregate-plan.js';
import { and, type OutputExpr } from '../../plan/expressions.js';
import type { BrowserApplication } from '../../store/browser-applications.js';
import type { PlanExecutor } from '../../store/plan-executor.js';
import { eventSummaries, number, ofTypes, outputs, textIn } from './event-summaries.js';

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

/** The `BrowserInteraction` categories that are a page or route being shown (not custom interactions). */
const SPA_CATEGORIES = ['Initial page load', 'Route change'];

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
    outputs: (set) => {
      const pageView = ofTypes('PageView');
      const spa = and(ofTypes('BrowserInteraction'), textIn('category', SPA_CATEGORIES));
      return {
        ...apmBrowserOutputs(set),
        pageLoadTimeMedian: outputs.median(set, number('duration'), pageView),
        spaResponseTimeAverage: outputs.average(set, number('duration'), spa),
        spaResponseTimeMedian: outputs.median(set, number('duration'), spa),
      };
    },
  });
  const summaries = new Map<number, BrowserApplicationSummaryData>();
  for (const app of browserApps) {
    const v = byName.get(app.name);
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
    outputs: apmBrowserOutputs,
  });
  const summaries = new Map<number, ApmBrowserApplicationSummaryData>();
  for (const side of sides) {
    const v = byName.get(side.name);
    if (v) summaries.set(side.apmApplicationId!, apmBrowserSummary(v));
  }
  return summaries;
}

type ApmBrowserKey = keyof ApmBrowserApplicationSummaryData;

function apmBrowserOutputs(set: AggregateSet): Record<ApmBrowserKey, OutputExpr> {
  const pageView = ofTypes('PageView');
  const ajax = ofTypes('AjaxRequest');
  const pageViews = outputs.count(set, pageView);
  return {
    ajaxRequestThroughput: outputs.perMinute(outputs.count(set, ajax)),
    ajaxResponseTimeAverage: outputs.average(set, number('timeToLoadEventStart'), ajax),
    jsErrorRate: outputs.percent(outputs.count(set, ofTypes('JavaScriptError')), pageViews),
    pageLoadThroughput: outputs.perMinute(pageViews),
    pageLoadTimeAverage: outputs.average(set, number('duration'), pageView),
  };
}

function apmBrowserSummary(v: Readonly<Record<ApmBrowserKey, number | null>>): ApmBrowserApplicationSummaryData {
  return {
    ajaxRequestThroughput: v.ajaxRequestThroughput ?? 0,
    ajaxResponseTimeAverage: v.ajaxResponseTimeAverage,
    jsErrorRate: v.jsErrorRate,
    pageLoadThroughput: v.pageLoadThroughput ?? 0,
    pageLoadTimeAverage: v.pageLoadTimeAverage,
  };
}
