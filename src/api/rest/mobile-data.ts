import type { RestRounding } from '../../domain/aggregate/rest-values.js';
import { AggregateSet, bucketsFor, type AggregatePlan, type PlanSource } from '../../plan/aggregate-plan.js';
import { and, literal, type OutputExpr, type Predicate, type RowExpr } from '../../plan/expressions.js';
import { formula, formulaQueryText, nrql, type Formula } from '../../nrql/formula.js';
import type { MobileApplication } from '../../store/mobile-applications.js';
import type { PlanExecutor } from '../../store/plan-executor.js';
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
