import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REST_VALUES, restValueNrql, restValueOf, valueNamesOf } from './rest-values.js';

// Spec §4.5, transcribed: REST value → NRQL function, V = the timeslice value.
const SPEC_TABLE: Record<string, string> = {
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

// The reference's Apdex mapping (migrate-to-nrql): s ↔ count, t ↔ sum, f ↔ totalExclusive,
// threshold ↔ max, threshold_min ↔ min, score ↔ apdex.
const APDEX_TABLE: Record<string, string> = {
  score: 'apdex(V)',
  s: 'count(V)',
  t: 'sum(V)',
  f: "sum(V['totalExclusive'])",
  count: "count(V) + sum(V) + sum(V['totalExclusive'])",
  threshold: 'max(V)',
  threshold_min: 'min(V)',
};

test('every value of spec §4.5 maps to the function the spec names', () => {
  for (const [name, nrql] of Object.entries(SPEC_TABLE)) {
    const value = REST_VALUES.get(name);
    assert.ok(value, name);
    assert.equal(restValueNrql(value, 'V'), nrql, name);
  }
});

test('Apdex values map to the slots the agents fill', () => {
  for (const [name, nrql] of Object.entries(APDEX_TABLE)) assert.equal(restValueNrql(REST_VALUES.get(name)!, 'V'), nrql, name);
});

test('value names by metric family', () => {
  assert.deepEqual(valueNamesOf('Apdex'), ['s', 't', 'f', 'count', 'score', 'value', 'threshold', 'threshold_min']);
  assert.deepEqual(valueNamesOf('EndUser/Apdex'), valueNamesOf('Apdex'));
  assert.deepEqual(valueNamesOf('Apdex/Expressjs/GET//users'), valueNamesOf('Apdex'));
  assert.deepEqual(valueNamesOf('Errors/all'), ['errors_per_minute', 'error_count']);
  assert.equal(valueNamesOf('HttpDispatcher').at(-1), 'average_call_time');
  assert.equal(valueNamesOf('HttpDispatcher').length, 11);
  assert.equal(valueNamesOf('WebFrontend/QueueTime').length, 10);
  assert.ok(valueNamesOf('Datastore/all').includes('average_response_time'));
});

test('a value the metric does not offer is undefined; CPU percent is a share of wall-clock time', () => {
  assert.equal(restValueOf('Apdex', 'call_count'), undefined);
  assert.equal(restValueOf('HttpDispatcher', 'score'), undefined);
  assert.equal(restValueNrql(restValueOf('CPU/User Time', 'percent')!, 'V'), 'rate(sum(V), 1 second) * 100');
});
