import { planMetricData, type MetricDataQuery } from '../src/api/rest/metric-data/metric-data-plan.js';

/*
 * The CPU cost of turning a REST metric-data request into its plan and its X-Timeslice-NRQL
 * headers (no I/O): the part of a request the value table's formulas take part in. The SQL a
 * plan renders to is pinned by test/golden/sql, so this is what a change of the formula path can
 * make slower. Run: `node dist/bench/metric-data-plan.js [rounds] [iterations]`.
 */

const begin = Date.parse('2026-11-22T10:00:00Z');
const series: MetricDataQuery = {
  accountId: 1,
  scope: { appId: 7 },
  metrics: [{ name: 'HttpDispatcher', id: 3 }, { name: 'Apdex', id: 5 }, { name: 'WebTransaction', id: 8 }, { name: 'Errors/all', id: 9 }],
  values: undefined,
  window: { beginMs: begin, endMs: begin + 30 * 60_000, periodSeconds: 60, summarize: false },
};
const summary: MetricDataQuery = { ...series, values: ['call_count', 'average_response_time', 'score'], window: { ...series.window, summarize: true, periodSeconds: 1800 } };

const rounds = Number(process.argv[2] ?? 15);
const iterations = Number(process.argv[3] ?? 2000);

/** CPU time (µs) per request: on a shared machine, wall time mostly measures the neighbours. */
function time(query: MetricDataQuery): number {
  const start = process.cpuUsage();
  let sink = 0;
  for (let i = 0; i < iterations; i++) sink += planMetricData(query).plan.outputs.length;
  if (sink < 0) throw new Error('unreachable');
  const used = process.cpuUsage(start);
  return (used.user + used.system) / iterations;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, query] of [['30-minute series, 4 metrics, all values', series], ['summary, 3 values', summary]] as const) {
  time(query);
  const samples = Array.from({ length: rounds }, () => time(query));
  console.log(`${name}: CPU median ${median(samples).toFixed(1)} µs per request (min ${Math.min(...samples).toFixed(1)}, ${rounds} rounds × ${iterations})`);
}
