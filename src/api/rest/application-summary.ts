import { restValueOf } from '../../domain/aggregate/rest-values.js';
import { lowerTimesliceFunction } from '../../domain/aggregate/timeslice-function.js';
import { AggregateSet, type AggregatePlan } from '../../plan/aggregate-plan.js';
import { and, evaluateOutput, field, isIn, eq, type OutputExpr } from '../../plan/expressions.js';
import type { Application } from '../../store/catalog.js';
import type { MetricIndex } from '../../store/metric-index.js';
import type { PlanExecutor } from '../../store/plan-executor.js';

/** The rolling window of `application_summary` (the REST v2 swagger says "last 10 minutes"). */
export const SUMMARY_WINDOW_MINUTES = 10;
/** An application that sent no metric data for this long is not reporting (REST v2 docs: ~10 minutes). */
export const REPORTING_TIMEOUT_MS = 10 * 60_000;

/** Whether something last reported at `last` (epoch ms, or never) is reporting at `now`. */
export function isReporting(last: number | undefined, now: number): boolean {
  return last !== undefined && now - last < REPORTING_TIMEOUT_MS;
}

export interface ApplicationSummary {
  /** ms: HttpDispatcher average + queue time spread over the requests (spec §1 formula). */
  readonly responseTime: number;
  /** Requests per minute (web; background transactions for an application without web requests). */
  readonly throughput: number;
  /** Percent of transactions with an error. */
  readonly errorRate: number;
  readonly apdexScore: number;
  /** Whether the window has Apdex data at all (background-only applications have none). */
  readonly hasApdex: boolean;
  readonly endUser?: { readonly responseTime: number; readonly throughput: number; readonly apdexScore: number };
}

/** The metric values the summaries read: (metric, REST value). */
const INPUTS = [
  ['HttpDispatcher', 'average_call_time'],
  ['HttpDispatcher', 'call_count'],
  ['HttpDispatcher', 'requests_per_minute'],
  ['WebFrontend/QueueTime', 'call_count'],
  ['WebFrontend/QueueTime', 'average_response_time'],
  ['OtherTransaction/all', 'average_response_time'],
  ['OtherTransaction/all', 'call_count'],
  ['OtherTransaction/all', 'requests_per_minute'],
  ['Errors/all', 'error_count'],
  ['Apdex', 'score'],
  ['EndUser', 'average_value'],
  ['EndUser', 'calls_per_minute'],
  ['EndUser/Apdex', 'score'],
] as const;
const METRICS = [...new Set(INPUTS.map(([metric]) => metric))];

/**
 * Summaries for a set of applications over the rolling window ending with the current minute,
 * in one query through the same plan and value table as metric data: the overview numbers
 * and `metrics/data` over the same minutes cannot disagree.
 */
export async function applicationSummaries(
  deps: { readonly metrics: MetricIndex; readonly executor: PlanExecutor },
  accountId: number,
  apps: readonly Application[],
  nowMs: number,
): Promise<Map<number, ApplicationSummary>> {
  const ids = METRICS.flatMap((name) => {
    const id = deps.metrics.metricId(name);
    return id === undefined ? [] : [[id, name] as const];
  });
  const set = new AggregateSet();
  const outputIndex = new Map<string, number>();
  const outputs: { name: string; expr: OutputExpr }[] = INPUTS.map(([metric, value], i) => {
    outputIndex.set(`${metric}:${value}`, i);
    return { name: `${metric}:${value}`, expr: lowerTimesliceFunction(restValueOf(metric, value)!.fn, set) };
  });
  const endMs = Math.floor(nowMs / 60_000) * 60_000 + 60_000;
  const window = { beginMs: endMs - SUMMARY_WINDOW_MINUTES * 60_000, endMs };
  const plan: AggregatePlan = {
    kind: 'aggregate',
    source: { kind: 'timeslices' },
    accountId,
    window,
    where: and(isIn('appId', apps.map((a) => a.id)), isIn('metricId', ids.map(([id]) => id)), eq('scopeId', 0)),
    groupBy: [field('appId'), field('metricId')],
    aggregates: set.all,
    outputs,
  };
  // Nothing to read when no application is asked for or none of the metrics was ever stored: every
  // summary is then the summary of no rows.
  const result = apps.length > 0 && ids.length > 0 ? await deps.executor.aggregate(plan) : undefined;
  const nameOfId = new Map(ids);
  const vectors = new Map<string, (number | null)[]>();
  for (let row = 0; row < (result?.rowCount ?? 0); row++) {
    const key = `${result!.groups[0]![row]}:${nameOfId.get(Number(result!.groups[1]![row]))}`;
    vectors.set(key, result!.aggregates.map((column) => column[row] ?? null));
  }
  const seconds = SUMMARY_WINDOW_MINUTES * 60;

  const summaries = new Map<number, ApplicationSummary>();
  for (const app of apps) {
    const value = (metric: string, valueName: string): number => {
      const vector = vectors.get(`${app.id}:${metric}`);
      if (vector === undefined) return 0;
      return evaluateOutput(outputs[outputIndex.get(`${metric}:${valueName}`)!]!.expr, vector, seconds) ?? 0;
    };
    const webCalls = value('HttpDispatcher', 'call_count');
    const otherCalls = value('OtherTransaction/all', 'call_count');
    const queueCalls = value('WebFrontend/QueueTime', 'call_count');
    const responseTime = webCalls > 0
      ? value('HttpDispatcher', 'average_call_time') + (queueCalls * value('WebFrontend/QueueTime', 'average_response_time')) / webCalls
      : value('OtherTransaction/all', 'average_response_time');
    const throughput = webCalls > 0 ? value('HttpDispatcher', 'requests_per_minute') : value('OtherTransaction/all', 'requests_per_minute');
    const calls = webCalls + otherCalls;
    const errorRate = calls > 0 ? (100 * value('Errors/all', 'error_count')) / calls : 0;
    const hasEndUser = vectors.has(`${app.id}:EndUser`) || vectors.has(`${app.id}:EndUser/Apdex`);
    summaries.set(app.id, {
      responseTime,
      throughput,
      errorRate,
      apdexScore: value('Apdex', 'score'),
      hasApdex: vectors.has(`${app.id}:Apdex`),
      ...(hasEndUser
        ? { endUser: { responseTime: value('EndUser', 'average_value'), throughput: value('EndUser', 'calls_per_minute'), apdexScore: value('EndUser/Apdex', 'score') } }
        : {}),
    });
  }
  return summaries;
}

/**
 * Timeslice has no alert policies yet; health stands in for one default condition per
 * application: gray when not reporting (no summary), red when Apdex < 0.5 or errors ≥ 10 %,
 * orange when Apdex < 0.7 or errors ≥ 5 %, green otherwise (an application with no requests is green).
 */
export function healthStatus(summary: ApplicationSummary | undefined): 'green' | 'orange' | 'red' | 'gray' {
  if (!summary) return 'gray';
  const apdex = summary.hasApdex ? summary.apdexScore : 1;
  if (apdex < 0.5 || summary.errorRate >= 10) return 'red';
  if (apdex < 0.7 || summary.errorRate >= 5) return 'orange';
  return 'green';
}
