import { isReporting, REPORTING_TIMEOUT_MS, summaryWindow } from '../application-summary.js';
import { AggregateSet, type AggregatePlan, type TimeWindow } from '../../plan/aggregate-plan.js';
import { and, evaluateOutput, type OutputExpr, type Predicate, type RowExpr } from '../../plan/expressions.js';
import { ALL_CUSTOM_EVENTS } from '../../nrql/analyze.js';
import { formula } from '../../nrql/formula.js';
import { quoteNrqlString } from '../../nrql/literals.js';
import type { PlanExecutor } from '../../store/plan-executor.js';

/*
 * Browser and mobile applications are measured from the events their agents send (stored by
 * the Event API as custom events), matched by `appName`. One query per batch of applications:
 * every number is an aggregate filtered to the events it counts, grouped by application.
 */

export const appName: RowExpr = { kind: 'field', name: 'appName', type: 'string' };

const eventType: RowExpr = { kind: 'field', name: 'eventType', type: 'string' };
const number = (name: string): RowExpr => ({ kind: 'field', name, type: 'number' });

/** Rows of these event types. */
const ofTypes = (...types: readonly string[]): Predicate => ({ kind: 'in', expr: eventType, values: types, negated: false });

/** Rows whose text attribute `name` is one of `values`. */
const textIn = (name: string, values: readonly string[]): Predicate => ({
  kind: 'in', expr: { kind: 'field', name, type: 'string' }, values, negated: false,
});

/** NRQL text: a condition on the event type (`eventType() = 'PageView'`, `eventType() IN (…)`). */
export function typeIs(...types: readonly string[]): string {
  return types.length === 1 ? `eventType() = ${quoteNrqlString(types[0]!)}` : `eventType() IN (${types.map(quoteNrqlString).join(', ')})`;
}

/** NRQL text: the number of rows matching `where`. */
export const countWhere = (where: string): string => `filter(count(*), WHERE ${where})`;

export interface EventSummaryQuery<K extends string> {
  readonly accountId: number;
  /** Every event type an aggregate reads. */
  readonly eventTypes: readonly string[];
  /** Events of these types make an application reporting. */
  readonly reportingTypes: readonly string[];
  readonly appNames: readonly string[];
  readonly windowMinutes: number;
  readonly nowMs: number;
  /**
   * The numbers wanted, each an NRQL aggregate expression over the custom events of the window
   * (`filter(count(*), WHERE eventType() = 'PageView')`), parsed and lowered once.
   */
  readonly formulas: Readonly<Record<K, string>>;
}

/** One application's numbers, and its newest event of a reporting type (epoch ms). */
export interface EventSummary<K extends string> {
  readonly lastEventMs: number;
  readonly values: Readonly<Record<K, number | null>>;
}

/**
 * The numbers of each reporting application (one with an event of a reporting type in the last
 * 10 minutes, the rule REST applies to APM applications and mobile ones) over the window of
 * `windowMinutes` ending with the current minute, by application name; the others are absent.
 */
export async function eventSummaries<K extends string>(
  executor: PlanExecutor,
  query: EventSummaryQuery<K>,
): Promise<Map<string, EventSummary<K>>> {
  const summaries = new Map<string, EventSummary<K>>();
  if (query.appNames.length === 0) return summaries;
  const set = new AggregateSet();
  const last = set.add({ fn: 'max', arg: number('timestamp'), where: ofTypes(...query.reportingTypes) });
  const named = (Object.entries(query.formulas) as [K, string][]).map(([name, text]) => [name, formula(text, ALL_CUSTOM_EVENTS).lower(set)] as const);
  const window = summaryWindow(query.nowMs, query.windowMinutes);
  const result = await executor.aggregate(eventPlan(query.accountId, query.eventTypes, query.appNames, window, set, named));
  const seconds = query.windowMinutes * 60;
  for (let row = 0; row < result.rowCount; row++) {
    const vector = result.aggregates.map((column) => column[row] ?? null);
    const lastEventMs = vector[last];
    if (typeof lastEventMs !== 'number' || !isReporting(lastEventMs, query.nowMs)) continue;
    const values = Object.fromEntries(named.map(([name, expr]) => [name, evaluateOutput(expr, vector, seconds)])) as Record<K, number | null>;
    summaries.set(String(result.groups[0]![row]), { lastEventMs, values });
  }
  return summaries;
}

/**
 * The newest event of `eventTypes` of each application named, among the events recent enough
 * to make it reporting (the last 10 minutes, up to the end of the current minute): an
 * application absent from the map is not reporting. Cheaper than a summary: one aggregate over
 * a 10-minute window.
 */
export async function lastEventTimes(
  executor: PlanExecutor,
  accountId: number,
  eventTypes: readonly string[],
  appNames: readonly string[],
  nowMs: number,
): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  if (appNames.length === 0 || eventTypes.length === 0) return times;
  const set = new AggregateSet();
  set.add({ fn: 'max', arg: number('timestamp') });
  // Reporting means `now - last < 10 min`: the window starts just after `now - 10 min`.
  const window = { beginMs: nowMs - REPORTING_TIMEOUT_MS + 1, endMs: summaryWindow(nowMs, 1).endMs };
  const result = await executor.aggregate(eventPlan(accountId, eventTypes, appNames, window, set, []));
  for (let row = 0; row < result.rowCount; row++) {
    const last = result.aggregates[0]![row];
    if (typeof last === 'number') times.set(String(result.groups[0]![row]), last);
  }
  return times;
}

/**
 * The events of `eventTypes` of the applications named. Browser and mobile event types are all
 * custom events (no agent table of their own), so the plan reads the custom events once,
 * filtered by type, rather than a union of one read per type.
 */
function eventPlan(
  accountId: number,
  eventTypes: readonly string[],
  appNames: readonly string[],
  window: TimeWindow,
  set: AggregateSet,
  named: readonly (readonly [string, OutputExpr])[],
): AggregatePlan {
  return {
    kind: 'aggregate',
    source: { kind: 'allCustomEvents' },
    accountId,
    window,
    where: and(ofTypes(...eventTypes), textIn('appName', appNames)),
    groupBy: [appName],
    aggregates: set.all,
    outputs: named.map(([name, expr]) => ({ name, expr })),
  };
}
