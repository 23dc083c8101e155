import type { RestRounding } from '../../domain/aggregate/rest-values.js';
import { AggregateSet, bucketsFor, type AggregatePlan, type PlanSource } from '../../plan/aggregate-plan.js';
import { and, evaluateOutput, literal, out, type OutputExpr, type Predicate, type RowExpr } from '../../plan/expressions.js';
import { formula, formulaQueryText, nrql, type Formula } from '../../nrql/formula.js';
import type { MobileApplication } from '../../store/mobile-applications.js';
import type { PlanExecutor } from '../../store/plan-executor.js';
import { REPORTING_TIMEOUT_MS } from '../../applications/application-summary.js';
import type { MetricDataPlan, MetricDataWindow, MetricOutputs } from './metric-data/metric-data-plan.js';

/*
 * Mobile applications are measured from their `Mobile` events (spec §4.5 rule 5: `FROM Mobile`
 * by `appName`), which the Event API stores as custom events. New Relic's mobile agents file
 * each such event under a `category`: `Session` when the app is launched, `Crash`,
 * `Interaction` (with its `duration` in seconds) or `Custom`; `deviceUuid` names the installation.
 */

const MOBILE: PlanSource = { kind: 'events', eventTypes: ['Mobile'] };
const appName: RowExpr = { kind: 'field', name: 'appName', type: 'string' };
const category: RowExpr = { kind: 'field', name: 'category', type: 'string' };
const isCategory = (value: string): Predicate => ({ kind: 'compare', op: '=', left: category, right: literal(value) });
const inStrings = (expr: RowExpr, values: readonly string[]): Predicate => ({ kind: 'in', expr, values, negated: false });

/** The summary window (reference §10: "last 30 minutes"), ending with the current minute as the application summary's does. */
export const MOBILE_SUMMARY_WINDOW_MINUTES = 30;

export interface MobileSummary {
  /** Epoch ms of the newest event in the window. */
  readonly lastEventMs: number;
  readonly activeUsers: number;
  readonly launchCount: number;
  /** Seconds: the mean `duration` of the window's interactions. */
  readonly interactionTime: number;
  readonly crashCount: number;
  /** Percent of launches that crashed. */
  readonly crashRate: number;
}

/**
 * Summaries of mobile applications over the last 30 minutes, in one query; an application
 * without an event in the last 10 minutes (as REST counts an APM application reporting) has none.
 */
export async function mobileSummaries(
  executor: PlanExecutor,
  accountId: number,
  apps: readonly MobileApplication[],
  nowMs: number,
): Promise<Map<number, MobileSummary>> {
  const set = new AggregateSet();
  const launches = set.add({ fn: 'countRows', where: isCategory('Session') });
  const crashes = set.add({ fn: 'countRows', where: isCategory('Crash') });
  const duration: RowExpr = { kind: 'field', name: 'duration', type: 'number' };
  const interactionTotal = set.add({ fn: 'sum', arg: duration, where: isCategory('Interaction') });
  const interactions = set.add({ fn: 'count', arg: duration, where: isCategory('Interaction') });
  const users = set.add({ fn: 'countDistinct', arg: { kind: 'field', name: 'deviceUuid', type: 'any' } });
  const last = set.add({ fn: 'max', arg: { kind: 'field', name: 'timestamp', type: 'number' } });
  const count = (index: number) => out.zeroIfNull(out.aggregate(index));
  const outputs: { name: string; expr: OutputExpr }[] = [
    { name: 'launch_count', expr: count(launches) },
    { name: 'crash_count', expr: count(crashes) },
    { name: 'interaction_time', expr: out.arith('/', out.aggregate(interactionTotal), out.aggregate(interactions)) },
    { name: 'crash_rate', expr: out.arith('*', out.arith('/', count(crashes), count(launches)), out.number(100)) },
    { name: 'active_users', expr: count(users) },
    { name: 'last_event', expr: out.aggregate(last) },
  ];
  const endMs = Math.floor(nowMs / 60_000) * 60_000 + 60_000;
  const plan: AggregatePlan = {
    kind: 'aggregate',
    source: MOBILE,
    accountId,
    window: { beginMs: endMs - MOBILE_SUMMARY_WINDOW_MINUTES * 60_000, endMs },
    where: inStrings(appName, apps.map((a) => a.name)),
    groupBy: [appName],
    aggregates: set.all,
    outputs,
  };
  const summaries = new Map<number, MobileSummary>();
  if (apps.length === 0) return summaries;
  const result = await executor.aggregate(plan);
  const seconds = MOBILE_SUMMARY_WINDOW_MINUTES * 60;
  for (let row = 0; row < result.rowCount; row++) {
    const vector = result.aggregates.map((column) => column[row] ?? null);
    const value = (name: string) => evaluateOutput(outputs.find((o) => o.name === name)!.expr, vector, seconds) ?? 0;
    const lastEventMs = value('last_event');
    if (nowMs - lastEventMs >= REPORTING_TIMEOUT_MS) continue;
    const app = apps.find((a) => a.name === result.groups[0]![row]);
    if (!app) continue;
    summaries.set(app.id, {
      lastEventMs,
      activeUsers: value('active_users'),
      launchCount: value('launch_count'),
      interactionTime: value('interaction_time'),
      crashCount: value('crash_count'),
      crashRate: value('crash_rate'),
    });
  }
  return summaries;
}

interface MobileValue {
  readonly name: string;
  readonly rounding: RestRounding;
  /** Over the events of the metric's category. */
  readonly formula: Formula;
}

const CALL_COUNT: MobileValue = { name: 'call_count', rounding: 'exact', formula: formula('count(*)', 'Mobile') };
const CALLS_PER_MINUTE: MobileValue = { name: 'calls_per_minute', rounding: 'threeSignificant', formula: formula('rate(count(*), 1 minute)', 'Mobile') };

/**
 * The metrics a mobile application has, each the count of one category of its events: New
 * Relic's names for launches and crashes (crash rate = `Mobile/Crash/All` / `Session/Start`,
 * reference §5.3), with `launch_count` beside `call_count` for launches as its docs show.
 */
export const MOBILE_METRICS: readonly { readonly name: string; readonly category: string; readonly values: readonly MobileValue[] }[] = [
  { name: 'Mobile/Crash/All', category: 'Crash', values: [CALL_COUNT, CALLS_PER_MINUTE] },
  { name: 'Session/Start', category: 'Session', values: [CALL_COUNT, CALLS_PER_MINUTE, { ...CALL_COUNT, name: 'launch_count' }] },
];

/** One metric per group: the index of its category in MOBILE_METRICS. */
const metricIndex: RowExpr = { kind: 'cases', cases: MOBILE_METRICS.map((m, i) => ({ when: isCategory(m.category), then: literal(i) })) };

/** Names of the mobile metrics the application ever had events for, at any time up to `nowMs`. */
export async function mobileMetricNames(executor: PlanExecutor, accountId: number, app: MobileApplication, nowMs: number): Promise<string[]> {
  const set = new AggregateSet();
  set.add({ fn: 'countRows' });
  const plan: AggregatePlan = {
    kind: 'aggregate',
    source: MOBILE,
    accountId,
    window: { beginMs: 0, endMs: Math.floor(nowMs / 60_000) * 60_000 + 60_000 },
    where: and(inStrings(appName, [app.name]), inStrings(category, MOBILE_METRICS.map((m) => m.category))),
    groupBy: [metricIndex],
    aggregates: set.all,
    outputs: [],
  };
  const result = await executor.aggregate(plan);
  const known = new Set(result.groups[0]!.map(Number));
  return MOBILE_METRICS.filter((_, i) => known.has(i)).map((m) => m.name);
}

/**
 * Metric data for a mobile application as a metric-data plan, so that `shapeMetricData` makes
 * the same `metric_data` body as for APM metrics: each metric's events counted per slice (or
 * over the window), each requested value it offers derived from that count.
 */
export function planMobileMetricData(query: {
  readonly accountId: number;
  readonly app: MobileApplication;
  /** Names of MOBILE_METRICS, in request order. */
  readonly metrics: readonly string[];
  readonly values: readonly string[] | undefined;
  readonly window: MetricDataWindow;
}): MetricDataPlan {
  const set = new AggregateSet();
  // Every metric's events are counted, whether or not a value of it was asked for.
  set.add({ fn: 'countRows' });
  const outputs: { name: string; expr: OutputExpr }[] = [];
  const outputIndex = new Map<MobileValue, number>();
  const metrics = query.metrics.map((name): MetricOutputs => {
    const index = MOBILE_METRICS.findIndex((m) => m.name === name);
    const metric = MOBILE_METRICS[index]!;
    const offered = new Map(metric.values.map((v) => [v.name, v]));
    const selected = [...new Set(query.values ?? metric.values.map((v) => v.name))].flatMap((n) => offered.get(n) ?? []);
    const values = selected.map((v) => {
      let output = outputIndex.get(v);
      if (output === undefined) {
        output = outputs.length;
        outputs.push({ name: v.name, expr: v.formula.lower(set) });
        outputIndex.set(v, output);
      }
      return { name: v.name, output, rounding: v.rounding };
    });
    const nrqlText = selected.length === 0
      ? undefined
      : formulaQueryText({
        select: selected.map((v) => ({ formula: v.formula, alias: v.name })),
        from: 'Mobile',
        where: [nrql.eq('appName', query.app.name), nrql.eq('category', metric.category)],
        beginMs: query.window.beginMs,
        endMs: query.window.endMs,
        ...(query.window.summarize ? {} : { timeseriesSeconds: query.window.periodSeconds }),
      });
    return { name, id: index, values, nrql: nrqlText };
  });
  const window = { beginMs: query.window.beginMs, endMs: query.window.endMs };
  const categories = query.metrics.map((name) => MOBILE_METRICS.find((m) => m.name === name)!.category);
  const plan: AggregatePlan = {
    kind: 'aggregate',
    source: MOBILE,
    accountId: query.accountId,
    window,
    where: and(inStrings(appName, [query.app.name]), inStrings(category, categories)),
    groupBy: [metricIndex],
    ...(query.window.summarize ? {} : { buckets: bucketsFor(window, query.window.periodSeconds * 1000) }),
    aggregates: set.all,
    outputs,
  };
  return { plan, metrics };
}
