import { evaluateOutput } from '../../../plan/expressions.js';
import type { AggregateColumns } from '../../../store/plan-executor.js';
import { formatRestTime } from '../../../domain/time/iso8601.js';
import { threeSignificant, twoDecimals } from '../number-format.js';
import type { MetricDataPlan } from './metric-data-plan.js';
import type { RestRounding } from '../../../domain/aggregate/rest-values.js';

export interface MetricDataShapeInput {
  readonly planned: MetricDataPlan;
  readonly result: AggregateColumns;
  /** The request window as given (or defaulted), echoed in `metric_data.from`/`to`. */
  readonly requestFromMs: number;
  readonly requestToMs: number;
  readonly slices: readonly { readonly beginMs: number; readonly endMs: number }[];
  readonly summarize: boolean;
  readonly notFound: readonly string[];
  /** `raw=true`: numbers as computed; otherwise each value's rounding (`restRounding`). */
  readonly raw: boolean;
}

/**
 * Columns → the REST `metric_data` model. Every slice of the window is present for every
 * found metric: a slice without data has zeros (New Relic's rule for a metric the
 * application knows but did not report in the slice), where NRQL would give null.
 */
export function shapeMetricData(input: MetricDataShapeInput): Record<string, unknown> {
  const { planned, result } = input;
  const aggregateCount = planned.plan.aggregates.length;
  const rowsByMetric = new Map<number, Map<number, number>>();
  const metricIds = result.groups[0] ?? [];
  for (let row = 0; row < result.rowCount; row++) {
    const id = Number(metricIds[row]);
    let bySlice = rowsByMetric.get(id);
    if (!bySlice) rowsByMetric.set(id, (bySlice = new Map()));
    bySlice.set(result.buckets ? result.buckets[row]! : 0, row);
  }
  const vector = (row: number | undefined): (number | null)[] => {
    const v: (number | null)[] = new Array(aggregateCount);
    for (let i = 0; i < aggregateCount; i++) v[i] = row === undefined ? null : result.aggregates[i]![row] ?? null;
    return v;
  };
  const format = (value: number | null, rounding: RestRounding): number => {
    const n = value ?? 0;
    if (input.raw || rounding === 'exact') return n;
    return rounding === 'twoDecimals' ? twoDecimals(n) : threeSignificant(n);
  };

  const metrics = planned.metrics.map((metric) => {
    const bySlice = rowsByMetric.get(metric.id);
    const timeslices = input.slices.map((slice, k) => {
      const aggregates = vector(bySlice?.get(k));
      const seconds = (slice.endMs - slice.beginMs) / 1000;
      const values: Record<string, number> = {};
      for (const value of metric.values) {
        values[value.name] = format(evaluateOutput(planned.plan.outputs[value.output]!.expr, aggregates, seconds), value.rounding);
      }
      return {
        from: formatRestTime(slice.beginMs),
        to: formatRestTime(input.summarize ? slice.endMs - 1000 : slice.endMs),
        values,
      };
    });
    return { name: metric.name, timeslices };
  });

  return {
    metric_data: {
      from: formatRestTime(input.requestFromMs),
      to: formatRestTime(input.requestToMs),
      metrics_not_found: input.notFound,
      metrics_found: planned.metrics.map((m) => m.name),
      metrics,
    },
  };
}
