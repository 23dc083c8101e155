import { REST_VALUES, restValueOf } from '../aggregate/rest-values.js';
import type { ApmMetricCondition } from './alert-model.js';

/*
 * REST v2's APM application metric conditions (alerts.md §1.5, §4.8) as the NRQL the engine runs over
 * the applications' timeslices. Every value is an entry of the REST value table
 * (domain/aggregate/rest-values.ts), the one REST metric data and `X-Timeslice-NRQL` use, so a
 * condition watches exactly the number REST shows for the same metric: there is no second formula.
 * One signal per application (FACET appName); application-level metrics only (`scope IS NULL`).
 */

export const APM_APP_METRICS = [
  'apdex', 'error_percentage', 'response_time_web', 'response_time_background', 'throughput_web', 'throughput_background', 'user_defined',
] as const;
export type ApmAppMetric = (typeof APM_APP_METRICS)[number];

/** user_defined's `value_function` → the REST value it reads. */
export const USER_DEFINED_VALUES: Readonly<Record<string, string>> = {
  average: 'average_value',
  min: 'min_value',
  max: 'max_value',
  total: 'total_value',
  sample_size: 'call_count',
};

/** Each metric: the timeslice metric(s) it reads and the REST value over them. Response times are seconds. */
const METRICS: Readonly<Record<Exclude<ApmAppMetric, 'user_defined' | 'error_percentage'>, { readonly metric: string; readonly value: string }>> = {
  apdex: { metric: 'Apdex', value: 'score' },
  response_time_web: { metric: 'HttpDispatcher', value: 'average_value' },
  response_time_background: { metric: 'OtherTransaction/all', value: 'average_value' },
  throughput_web: { metric: 'HttpDispatcher', value: 'requests_per_minute' },
  throughput_background: { metric: 'OtherTransaction/all', value: 'requests_per_minute' },
};

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function valueText(metric: string, value: string): string {
  const entry = restValueOf(metric, value);
  if (entry === undefined) throw new Error(`the REST value table has no ${value} for ${metric}`);
  return entry.nrql;
}

/** The NRQL a condition runs: one aggregate over the applications' timeslices, one signal per application. */
export function apmMetricQuery(condition: ApmMetricCondition): string {
  const apps = `appId IN (${condition.entities.join(', ')})`;
  const tail = 'AND scope IS NULL FACET appName';
  if (condition.metric === 'error_percentage') {
    // The application summary's error rate: Errors/all over the web and background transactions.
    const errors = valueText('Errors/all', 'error_count');
    const calls = valueText('HttpDispatcher', 'call_count');
    return `SELECT filter(${errors}, WHERE metricTimesliceName = 'Errors/all') * 100 / `
      + `filter(${calls}, WHERE metricTimesliceName IN ('HttpDispatcher', 'OtherTransaction/all')) `
      + `FROM Metric WHERE ${apps} AND metricTimesliceName IN ('Errors/all', 'HttpDispatcher', 'OtherTransaction/all') ${tail}`;
  }
  if (condition.metric === 'user_defined') {
    const u = condition.userDefined!;
    // Any metric an agent reports: the value by its name in the table, whatever family the metric is in.
    const value = REST_VALUES.get(USER_DEFINED_VALUES[u.valueFunction]!)!.nrql;
    return `SELECT ${value} FROM Metric WHERE ${apps} AND metricTimesliceName = ${quote(u.metric)} ${tail}`;
  }
  const m = METRICS[condition.metric as keyof typeof METRICS];
  return `SELECT ${valueText(m.metric, m.value)} FROM Metric WHERE ${apps} AND metricTimesliceName = ${quote(m.metric)} ${tail}`;
}
