/**
 * One REST v2 value name: the NRQL function over the timeslice value it is (spec §4.5 and the
 * reference's migration table), whether it is a count, and its unit. New Relic prints counts
 * exactly, Apdex scores with 2 decimals (as on the application overview), and other values to 3
 * significant figures (`restRounding`).
 */
export interface RestValue {
  readonly name: string;
  /** The NRQL aggregate expression over the timeslice value (`newrelic.timeslice.value`). */
  readonly nrql: string;
  readonly isCount: boolean;
  readonly unit: 'ms' | 's' | 'count' | 'per minute' | 'per second' | 's per minute' | 'percent' | 'score' | 'MB' | 'bytes';
}

/**
 * The table. REST and NRQL derive each value from this one entry: its text is parsed and lowered
 * by the NRQL analyzer's function table into REST's plan (`nrql/formula`), and the
 * `X-Timeslice-NRQL` header prints the same tree. Spec §4.5 rows first, then the Apdex slots,
 * then the values other metric families list (rest-v2 reference §3.1, §5.2).
 */
const ENTRIES: readonly RestValue[] = [
  { name: 'average_response_time', nrql: 'average(newrelic.timeslice.value) * 1000', isCount: false, unit: 'ms' },
  { name: 'calls_per_minute', nrql: 'rate(count(newrelic.timeslice.value), 1 minute)', isCount: false, unit: 'per minute' },
  { name: 'call_count', nrql: 'count(newrelic.timeslice.value)', isCount: true, unit: 'count' },
  { name: 'min_response_time', nrql: 'min(newrelic.timeslice.value) * 1000', isCount: false, unit: 'ms' },
  { name: 'max_response_time', nrql: 'max(newrelic.timeslice.value) * 1000', isCount: false, unit: 'ms' },
  { name: 'average_exclusive_time', nrql: "average(newrelic.timeslice.value['totalExclusive'] / newrelic.timeslice.value['count']) * 1000", isCount: false, unit: 'ms' },
  { name: 'average_value', nrql: 'average(newrelic.timeslice.value)', isCount: false, unit: 's' },
  { name: 'total_call_time_per_minute', nrql: 'rate(sum(newrelic.timeslice.value), 1 minute)', isCount: false, unit: 's per minute' },
  { name: 'requests_per_minute', nrql: 'rate(count(newrelic.timeslice.value), 1 minute)', isCount: false, unit: 'per minute' },
  { name: 'standard_deviation', nrql: 'stddev(newrelic.timeslice.value) * 1000', isCount: false, unit: 'ms' },
  { name: 'error_count', nrql: 'count(newrelic.timeslice.value)', isCount: true, unit: 'count' },
  { name: 'errors_per_minute', nrql: 'rate(count(newrelic.timeslice.value), 1 minute)', isCount: false, unit: 'per minute' },
  { name: 'throughput', nrql: 'rate(count(newrelic.timeslice.value), 1 second)', isCount: false, unit: 'per second' },
  { name: 'as_percentage', nrql: 'average(newrelic.timeslice.value) * 100', isCount: false, unit: 'percent' },
  { name: 'average_call_time', nrql: 'average(newrelic.timeslice.value) * 1000', isCount: false, unit: 'ms' },

  // Apdex metrics reuse the slots: count = satisfied, total = tolerating, totalExclusive = frustrated,
  // min and max = the apdex_t in force.
  { name: 'score', nrql: 'apdex(newrelic.timeslice.value)', isCount: false, unit: 'score' },
  { name: 'value', nrql: 'apdex(newrelic.timeslice.value)', isCount: false, unit: 'score' },
  { name: 's', nrql: 'count(newrelic.timeslice.value)', isCount: true, unit: 'count' },
  { name: 't', nrql: 'sum(newrelic.timeslice.value)', isCount: true, unit: 'count' },
  { name: 'f', nrql: "sum(newrelic.timeslice.value['totalExclusive'])", isCount: true, unit: 'count' },
  { name: 'count', nrql: "count(newrelic.timeslice.value) + sum(newrelic.timeslice.value) + sum(newrelic.timeslice.value['totalExclusive'])", isCount: true, unit: 'count' },
  { name: 'threshold', nrql: 'max(newrelic.timeslice.value)', isCount: false, unit: 's' },
  { name: 'threshold_min', nrql: 'min(newrelic.timeslice.value)', isCount: false, unit: 's' },

  { name: 'min_call_time', nrql: 'min(newrelic.timeslice.value) * 1000', isCount: false, unit: 'ms' },
  { name: 'max_call_time', nrql: 'max(newrelic.timeslice.value) * 1000', isCount: false, unit: 'ms' },
  { name: 'total_call_time', nrql: 'sum(newrelic.timeslice.value) * 1000', isCount: false, unit: 'ms' },
  { name: 'average_time', nrql: 'average(newrelic.timeslice.value) * 1000', isCount: false, unit: 'ms' },
  { name: 'total_time', nrql: 'sum(newrelic.timeslice.value) * 1000', isCount: false, unit: 'ms' },
  { name: 'min_value', nrql: 'min(newrelic.timeslice.value)', isCount: false, unit: 's' },
  { name: 'max_value', nrql: 'max(newrelic.timeslice.value)', isCount: false, unit: 's' },
  { name: 'total_value', nrql: 'sum(newrelic.timeslice.value)', isCount: false, unit: 's' },
  { name: 'percent', nrql: 'average(newrelic.timeslice.value) * 100', isCount: false, unit: 'percent' },
  { name: 'utilization', nrql: 'rate(sum(newrelic.timeslice.value), 1 second) * 100', isCount: false, unit: 'percent' },
  { name: 'used_mb_by_host', nrql: 'average(newrelic.timeslice.value)', isCount: false, unit: 'MB' },
  { name: 'used_bytes_by_host', nrql: 'average(newrelic.timeslice.value) * 1048576', isCount: false, unit: 'bytes' },
  { name: 'total_used_mb', nrql: 'sum(newrelic.timeslice.value)', isCount: false, unit: 'MB' },
];

export const REST_VALUES: ReadonlyMap<string, RestValue> = new Map(ENTRIES.map((e) => [e.name, e]));

export type RestRounding = 'exact' | 'twoDecimals' | 'threeSignificant';

/** How REST prints the value unless `raw=true`. */
export function restRounding(value: RestValue): RestRounding {
  return value.isCount ? 'exact' : value.unit === 'score' ? 'twoDecimals' : 'threeSignificant';
}

const GENERIC = [
  'average_response_time', 'calls_per_minute', 'call_count', 'min_response_time', 'max_response_time',
  'average_exclusive_time', 'average_value', 'total_call_time_per_minute', 'requests_per_minute', 'standard_deviation',
];

interface Family {
  readonly matches: (name: string) => boolean;
  readonly values: readonly string[];
  /** Values whose meaning differs for this family. */
  readonly overrides?: Readonly<Record<string, RestValue>>;
}

/** Value names by metric family, first match wins (rest-v2 reference §3.1). */
const FAMILIES: readonly Family[] = [
  { matches: (n) => n === 'Apdex' || n.startsWith('Apdex/') || n === 'EndUser/Apdex' || n.startsWith('EndUser/Apdex/'),
    values: ['s', 't', 'f', 'count', 'score', 'value', 'threshold', 'threshold_min'] },
  { matches: (n) => n === 'Errors/all' || n.startsWith('Errors/'), values: ['errors_per_minute', 'error_count'] },
  { matches: (n) => n === 'HttpDispatcher', values: [...GENERIC, 'average_call_time'] },
  { matches: (n) => n === 'WebTransaction' || n === 'OtherTransaction',
    values: ['average_call_time', 'average_response_time', 'requests_per_minute', 'call_count', 'min_call_time',
      'max_call_time', 'total_call_time', 'throughput', 'standard_deviation'] },
  { matches: (n) => n.startsWith('GC/'),
    values: ['as_percentage', 'average_time', 'calls_per_minute', 'max_value', 'total_call_time_per_minute', 'utilization'] },
  { matches: (n) => n === 'CPU/User/Utilization', values: ['percent'] },
  // CPU time is a share of wall-clock time: the slice's seconds, not the calls, are the denominator.
  { matches: (n) => n === 'CPU/User Time', values: ['percent', 'average_time', 'total_time', 'utilization'],
    overrides: { percent: { name: 'percent', nrql: 'rate(sum(newrelic.timeslice.value), 1 second) * 100', isCount: false, unit: 'percent' } } },
  { matches: (n) => n.startsWith('Memory/'), values: ['used_mb_by_host', 'used_bytes_by_host', 'total_used_mb'] },
  // Page loads (browser ingest): EndUser is [1, load, front end, load, load, app time] per page,
  // EndUser/RB [1, DOM content loaded, queue, …]; per-call parts of the slots, in ms.
  { matches: (n) => n === 'EndUser' || n.startsWith('EndUser/WebTransaction/') || n.startsWith('EndUser/UserAgent/'),
    values: [...GENERIC, 'average_fe_response_time', 'average_be_response_time', 'average_app_time'],
    overrides: {
      average_fe_response_time: { name: 'average_fe_response_time', nrql: "average(newrelic.timeslice.value['totalExclusive'] / newrelic.timeslice.value['count']) * 1000", isCount: false, unit: 'ms' },
      average_be_response_time: {
        name: 'average_be_response_time', isCount: false, unit: 'ms',
        nrql: "average((newrelic.timeslice.value['total'] - newrelic.timeslice.value['totalExclusive']) / newrelic.timeslice.value['count']) * 1000",
      },
      average_app_time: { name: 'average_app_time', nrql: "average(newrelic.timeslice.value['sumOfSquares'] / newrelic.timeslice.value['count']) * 1000", isCount: false, unit: 'ms' },
    } },
  { matches: (n) => n === 'EndUser/RB', values: [...GENERIC, 'average_dom_content_load_time', 'average_queue_time'],
    overrides: {
      average_dom_content_load_time: { name: 'average_dom_content_load_time', nrql: 'average(newrelic.timeslice.value) * 1000', isCount: false, unit: 'ms' },
      average_queue_time: { name: 'average_queue_time', nrql: "average(newrelic.timeslice.value['totalExclusive'] / newrelic.timeslice.value['count']) * 1000", isCount: false, unit: 'ms' },
    } },
  { matches: () => true, values: GENERIC },
];

const familyOf = (metricName: string): Family => FAMILIES.find((f) => f.matches(metricName))!;

/** The value names a metric offers (the `values` list of the metric names endpoint). */
export function valueNamesOf(metricName: string): readonly string[] {
  return familyOf(metricName).values;
}

/** A value of a metric, or undefined when the metric does not offer it. */
export function restValueOf(metricName: string, valueName: string): RestValue | undefined {
  const family = familyOf(metricName);
  if (!family.values.includes(valueName)) return undefined;
  return family.overrides?.[valueName] ?? REST_VALUES.get(valueName);
}
