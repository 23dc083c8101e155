/**
 * The REST value → NRQL function table of the service interface (spec §4.5), transcribed by hand
 * (V = the timeslice value). Tests compare the code's table and its answers with this, so it
 * must never be generated from `src/domain/aggregate/rest-values.ts`.
 */
export const SPEC_VALUE_FUNCTIONS: Readonly<Record<string, string>> = {
  average_response_time: 'average(V) * 1000',
  calls_per_minute: 'rate(count(V), 1 minute)',
  call_count: 'count(V)',
  min_response_time: 'min(V) * 1000',
  max_response_time: 'max(V) * 1000',
  average_exclusive_time: "average(V['totalExclusive'] / V['count']) * 1000",
  average_value: 'average(V)',
  total_call_time_per_minute: 'rate(sum(V), 1 minute)',
  requests_per_minute: 'rate(count(V), 1 minute)',
  standard_deviation: 'stddev(V) * 1000',
  error_count: 'count(V)',
  errors_per_minute: 'rate(count(V), 1 minute)',
  throughput: 'rate(count(V), 1 second)',
  as_percentage: 'average(V) * 100',
};

/**
 * Apdex values, from the reference's migration table (rest-v2.md §5.1–§5.2): the agents' Apdex
 * slots are s = count, t = total, f = totalExclusive, threshold = max, threshold_min = min.
 */
export const APDEX_VALUE_FUNCTIONS: Readonly<Record<string, string>> = {
  score: 'apdex(V)',
  s: 'count(V)',
  t: 'sum(V)',
  f: "sum(V['totalExclusive'])",
  count: "count(V) + sum(V) + sum(V['totalExclusive'])",
  threshold: 'max(V)',
  threshold_min: 'min(V)',
};
