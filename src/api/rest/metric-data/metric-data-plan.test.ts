import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderAggregatePlan } from '../../../sql/render-plan.js';
import { duckdbDialect } from '../../../store/duckdb/duckdb-dialect.js';
import { duckdbSchema } from '../../../store/duckdb/sources.js';
import { assertGolden } from '../../../../test/helpers/golden.js';
import { planMetricData, type MetricDataQuery } from './metric-data-plan.js';

const begin = Date.parse('2026-11-22T10:00:00Z');
const base: MetricDataQuery = {
  accountId: 1,
  scope: { appId: 7 },
  metrics: [{ name: 'HttpDispatcher', id: 3 }, { name: 'Apdex', id: 5 }],
  values: undefined,
  window: { beginMs: begin, endMs: begin + 30 * 60_000, periodSeconds: 60, summarize: false },
};

function golden(name: string, query: MetricDataQuery): void {
  const planned = planMetricData(query);
  const sql = renderAggregatePlan(planned.plan, duckdbDialect, duckdbSchema);
  const text = [
    '-- SQL', sql.sql, '', '-- params', JSON.stringify(sql.params), '',
    '-- NRQL per metric', ...planned.metrics.map((m) => `${m.name}: ${m.nrql}`), '',
  ].join('\n');
  assertGolden(`test/golden/sql/${name}.duckdb.sql`, text);
}

test('metric data, series of two metrics, all values', () => golden('metric-data-series', base));
test('metric data, summarized, chosen values', () =>
  golden('metric-data-summarize', { ...base, values: ['score', 'call_count', 'average_call_time'], window: { ...base.window, summarize: true, periodSeconds: 1800 } }));
test('metric data for one host and instance, with a quote in the host name', () =>
  golden('metric-data-instance', {
    ...base,
    scope: { appId: 7, host: { id: 2, name: "o'brien" }, instance: { id: 9 } },
    metrics: [{ name: 'WebFrontend/QueueTime', id: 11 }],
    values: ['call_count', 'average_response_time'],
    window: { ...base.window, periodSeconds: 600, beginMs: begin, endMs: begin + 12 * 600_000 },
  }));

test('a value no requested metric offers yields no output and no NRQL', () => {
  const planned = planMetricData({ ...base, values: ['nonsense'] });
  assert.equal(planned.plan.outputs.length, 0);
  assert.deepEqual(planned.metrics.map((m) => m.nrql), [undefined, undefined]);
});
