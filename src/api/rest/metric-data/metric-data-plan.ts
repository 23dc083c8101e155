import { restRounding, restValueOf, valueNamesOf, type RestRounding, type RestValue } from '../../../domain/aggregate/rest-values.js';
import { AggregateSet, bucketsFor, type AggregatePlan } from '../../../plan/aggregate-plan.js';
import { and, eq, field, isIn, type OutputExpr } from '../../../plan/expressions.js';
import { formula, formulaQueryText, nrql } from '../../../nrql/formula.js';

/** Whose metrics: an application, or one host or one instance of it. */
export interface MetricScope {
  readonly appId: number;
  readonly host?: { readonly id: number; readonly name: string };
  readonly instance?: { readonly id: number };
}

export interface MetricDataWindow {
  readonly beginMs: number;
  readonly endMs: number;
  readonly periodSeconds: number;
  readonly summarize: boolean;
}

export interface MetricDataQuery {
  readonly accountId: number;
  readonly scope: MetricScope;
  /** The requested metrics that exist for the scope, in request order, with their dictionary ids. */
  readonly metrics: readonly { readonly name: string; readonly id: number }[];
  /** Requested value names; undefined means every value the metric offers. */
  readonly values: readonly string[] | undefined;
  readonly window: MetricDataWindow;
}

/** For each metric, which plan output gives which value. */
export interface MetricOutputs {
  readonly name: string;
  readonly id: number;
  readonly values: readonly { readonly name: string; readonly output: number; readonly rounding: RestRounding }[];
  /** The NRQL query that computes this metric's values over the same data; none when no value applies. */
  readonly nrql: string | undefined;
}

export interface MetricDataPlan {
  readonly plan: AggregatePlan;
  readonly metrics: readonly MetricOutputs[];
}

/**
 * Translates a metric-data request into the aggregate plan (group by metric, and by slice
 * unless summarized) and, per metric, the NRQL query that means the same thing. Both come
 * from the value table, so the REST answer and the NRQL answer are the same arithmetic.
 */
export function planMetricData(query: MetricDataQuery): MetricDataPlan {
  const set = new AggregateSet();
  const outputs: { name: string; expr: OutputExpr }[] = [];
  const outputIndex = new Map<RestValue, number>();
  const outputOf = (value: RestValue): number => {
    let index = outputIndex.get(value);
    if (index === undefined) {
      index = outputs.length;
      outputs.push({ name: value.name, expr: formula(value.nrql).lower(set) });
      outputIndex.set(value, index);
    }
    return index;
  };

  const metrics = query.metrics.map((metric): MetricOutputs => {
    const selected = selectValues(metric.name, query.values);
    return {
      name: metric.name,
      id: metric.id,
      values: selected.map((value) => ({ name: value.name, output: outputOf(value), rounding: restRounding(value) })),
      nrql: metricNrql(query, metric.name, selected),
    };
  });

  const window = { beginMs: query.window.beginMs, endMs: query.window.endMs };
  const where = and(
    eq('appId', query.scope.appId),
    ...(query.scope.host ? [eq('hostId', query.scope.host.id)] : []),
    ...(query.scope.instance ? [eq('instanceId', query.scope.instance.id)] : []),
    isIn('metricId', query.metrics.map((m) => m.id)),
    eq('scopeId', 0),
  );
  const plan: AggregatePlan = {
    kind: 'aggregate',
    source: { kind: 'timeslices' },
    accountId: query.accountId,
    window,
    where,
    groupBy: [field('metricId')],
    ...(query.window.summarize ? {} : { buckets: bucketsFor(window, query.window.periodSeconds * 1000) }),
    aggregates: set.all,
    outputs,
  };
  return { plan, metrics };
}

/**
 * The values to return for a metric: those requested that the metric offers, in request
 * order; all it offers when none were requested. A requested value the metric does not offer
 * is left out for that metric (so one request can ask for `call_count` and `score` across
 * `HttpDispatcher` and `Apdex`).
 */
function selectValues(metricName: string, requested: readonly string[] | undefined): RestValue[] {
  const names = requested ?? valueNamesOf(metricName);
  const seen = new Set<string>();
  const selected: RestValue[] = [];
  for (const name of names) {
    if (seen.has(name)) continue;
    seen.add(name);
    const value = restValueOf(metricName, name);
    if (value) selected.push(value);
  }
  return selected;
}

function metricNrql(query: MetricDataQuery, metricName: string, values: readonly RestValue[]): string | undefined {
  if (values.length === 0) return undefined;
  return formulaQueryText({
    select: values.map((v) => ({ formula: formula(v.nrql), alias: v.name })),
    from: 'Metric',
    where: [
      nrql.eq('appId', query.scope.appId),
      ...(query.scope.host ? [nrql.eq('host', query.scope.host.name)] : []),
      ...(query.scope.instance ? [nrql.eq('realAgentId', query.scope.instance.id)] : []),
      nrql.eq('metricTimesliceName', metricName),
      nrql.isNull('scope'),
    ],
    beginMs: query.window.beginMs,
    endMs: query.window.endMs,
    ...(query.window.summarize ? {} : { timeseriesSeconds: query.window.periodSeconds }),
  });
}
