import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apmMetricQuery } from './apm-metric-nrql.js';

// The translations docs/alerts.md lists, character for character: each value is the REST value table's
// text (rest-values.ts), so a change there shows here.

const TAIL = 'AND scope IS NULL FACET appName';
const of = (metric: string, entities: number[] = [7], userDefined: { metric: string; valueFunction: string } | null = null) =>
  apmMetricQuery({ metric, entities, conditionScope: 'application', userDefined });

test('each apm_app_metric metric reads its timeslices through its REST value', () => {
  assert.equal(of('apdex'), `SELECT apdex(newrelic.timeslice.value) FROM Metric WHERE appId IN (7) AND metricTimesliceName = 'Apdex' ${TAIL}`);
  assert.equal(of('response_time_web'), `SELECT average(newrelic.timeslice.value) FROM Metric WHERE appId IN (7) AND metricTimesliceName = 'HttpDispatcher' ${TAIL}`);
  assert.equal(of('response_time_background'), `SELECT average(newrelic.timeslice.value) FROM Metric WHERE appId IN (7) AND metricTimesliceName = 'OtherTransaction/all' ${TAIL}`);
  assert.equal(of('throughput_web', [7, 9]), `SELECT rate(count(newrelic.timeslice.value), 1 minute) FROM Metric WHERE appId IN (7, 9) AND metricTimesliceName = 'HttpDispatcher' ${TAIL}`);
  assert.equal(of('throughput_background'), `SELECT rate(count(newrelic.timeslice.value), 1 minute) FROM Metric WHERE appId IN (7) AND metricTimesliceName = 'OtherTransaction/all' ${TAIL}`);
  assert.equal(
    of('error_percentage'),
    "SELECT filter(count(newrelic.timeslice.value), WHERE metricTimesliceName = 'Errors/all') * 100 / "
      + "filter(count(newrelic.timeslice.value), WHERE metricTimesliceName IN ('HttpDispatcher', 'OtherTransaction/all')) "
      + `FROM Metric WHERE appId IN (7) AND metricTimesliceName IN ('Errors/all', 'HttpDispatcher', 'OtherTransaction/all') ${TAIL}`,
  );
});

test('user_defined: the value function picks the aggregate; the metric name is quoted as an NRQL string', () => {
  const expected: Array<[string, string]> = [
    ['average', 'average(newrelic.timeslice.value)'], ['min', 'min(newrelic.timeslice.value)'], ['max', 'max(newrelic.timeslice.value)'],
    ['total', 'sum(newrelic.timeslice.value)'], ['sample_size', 'count(newrelic.timeslice.value)'],
  ];
  for (const [fn, aggregate] of expected) {
    assert.equal(of('user_defined', [7], { metric: 'Custom/queue', valueFunction: fn }), `SELECT ${aggregate} FROM Metric WHERE appId IN (7) AND metricTimesliceName = 'Custom/queue' ${TAIL}`);
  }
  assert.equal(
    of('user_defined', [7], { metric: "Custom/it's \\ odd", valueFunction: 'max' }),
    `SELECT max(newrelic.timeslice.value) FROM Metric WHERE appId IN (7) AND metricTimesliceName = 'Custom/it\\'s \\\\ odd' ${TAIL}`,
  );
});
