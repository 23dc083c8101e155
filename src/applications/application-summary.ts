import { restValueOf, type RestValue } from '../domain/aggregate/rest-values.js';
import { formula } from '../nrql/formula.js';
import { AggregateSet, type AggregatePlan, type TimeWindow } from '../plan/aggregate-plan.js';
import { and, evaluateOutput, field, isIn, eq, type OutputExpr, type Predicate } from '../plan/expressions.js';
import type { Application, Catalog, Host, Instance } from '../store/catalog.js';
import type { KeyTransaction } from '../store/key-transactions.js';
import type { MetricIndex } from '../store/metric-index.js';
import type { PlanExecutor } from '../store/plan-executor.js';

/** The rolling window of `application_summary` (the REST v2 swagger says "last 10 minutes"). */
export const SUMMARY_WINDOW_MINUTES = 10;
/** An application that sent no metric data for this long is not reporting (REST v2 docs: ~10 minutes). */
export const REPORTING_TIMEOUT_MS = 10 * 60_000;

/** Whether something last reported at `last` (epoch ms, or never) is reporting at `now`. */
export function isReporting(last: number | undefined, now: number): boolean {
  return last !== undefined && now - last < REPORTING_TIMEOUT_MS;
}

/**
 * The window of a summary: `minutes` whole minutes ending with the minute `nowMs` is in, so the
 * data of the current minute counts as soon as it is stored.
 */
export function summaryWindow(nowMs: number, minutes: number): TimeWindow {
  const endMs = Math.floor(nowMs / 60_000) * 60_000 + 60_000;
  return { beginMs: endMs - minutes * 60_000, endMs };
}

/** An application's hosts and instances, and those of them reporting now. */
export interface ApplicationParts {
  readonly hosts: readonly Host[];
  readonly instances: readonly Instance[];
  /** REST's `host_count` and NerdGraph's `hostCount` are their number. */
  readonly liveHosts: readonly Host[];
  readonly liveInstances: readonly Instance[];
}

/** The hosts and instances of `appId`; a host or instance is live while it sends the application metric data. */
export function applicationParts(
  deps: { readonly catalog: Pick<Catalog, 'hostsOf' | 'instancesOf'>; readonly metrics: Pick<MetricIndex, 'lastReportedAt'> },
  appId: number,
  now: number,
): ApplicationParts {
  const hosts = deps.catalog.hostsOf(appId);
  const instances = deps.catalog.instancesOf(appId);
  return {
    hosts,
    instances,
    liveHosts: hosts.filter((h) => isReporting(deps.metrics.lastReportedAt({ appId, hostId: h.id }), now)),
    liveInstances: instances.filter((i) => isReporting(deps.metrics.lastReportedAt({ appId, instanceId: i.id }), now)),
  };
}

/**
 * Why an application cannot be deleted yet, or undefined when it can: REST v2's DELETE and the
 * graph's agentApplicationDelete refuse one that is still reporting, until 10 minutes after its
 * last data.
 */
export function deletionRefusal(appId: number, last: number | undefined, now: number): { readonly title: string; readonly detail: string } | undefined {
  if (last === undefined || !isReporting(last, now)) return undefined;
  const wait = Math.ceil((last + REPORTING_TIMEOUT_MS - now) / 60_000);
  return {
    title: `Application ${appId} is still reporting and cannot be deleted`,
    detail: `Stop its agents; it can be deleted ${REPORTING_TIMEOUT_MS / 60_000} minutes after its last data (about ${wait} more minute${wait === 1 ? '' : 's'})`,
  };
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
  /** Web transactions (`HttpDispatcher`), absent when the window has none: ms with queue time as `responseTime`, requests per minute. */
  readonly web?: TransactionKindSummary;
  /** Background transactions (`OtherTransaction/all`), absent when the window has none: their average ms, calls per minute. */
  readonly nonWeb?: TransactionKindSummary;
}

export interface TransactionKindSummary {
  /** ms. */
  readonly responseTime: number;
  /** Per minute. */
  readonly throughput: number;
}

type SummaryDeps = { readonly metrics: MetricIndex; readonly executor: PlanExecutor };

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

/**
 * Summaries for a set of applications over the rolling window ending with the current minute,
 * in one query through the same plan and value table as metric data: the overview numbers
 * and `metrics/data` over the same minutes cannot disagree.
 */
export async function applicationSummaries(
  deps: SummaryDeps,
  accountId: number,
  apps: readonly Application[],
  nowMs: number,
): Promise<Map<number, ApplicationSummary>> {
  const ids = apps.map((a) => a.id);
  const values = await readWindow(deps, accountId, { groupBy: 'appId', keys: ids, where: isIn('appId', ids) }, INPUTS, nowMs);
  return new Map(ids.map((id) => [id, apmSummary(values.of(id))]));
}

/**
 * The same summary for some hosts or some instances of one application: the application's
 * rows narrowed to each host or instance, so a host's numbers are those of `…/hosts/{id}/metrics/data`.
 */
export async function partSummaries(
  deps: SummaryDeps,
  accountId: number,
  appId: number,
  part: { readonly by: 'hostId' | 'instanceId'; readonly ids: readonly number[] },
  nowMs: number,
): Promise<Map<number, ApplicationSummary>> {
  const where = and(eq('appId', appId), isIn(part.by, part.ids));
  const values = await readWindow(deps, accountId, { groupBy: part.by, keys: part.ids, where }, INPUTS, nowMs);
  return new Map(part.ids.map((id) => [id, apmSummary(values.of(id))]));
}

/**
 * The metrics of one transaction (`WebTransaction/Expressjs/GET//users` or `OtherTransaction/…`):
 * the Node, Java and Python agents record the transaction's own timing under its name, its
 * errors under `Errors/` + its name, and a web transaction's Apdex under `Apdex/` + its name
 * without the `WebTransaction/` prefix.
 */
export function transactionMetrics(metricName: string): { readonly time: string; readonly errors: string; readonly apdex: string | undefined } {
  const web = metricName.startsWith('WebTransaction/');
  return { time: metricName, errors: `Errors/${metricName}`, apdex: web ? `Apdex/${metricName.slice('WebTransaction/'.length)}` : undefined };
}

/**
 * Key transaction summaries from each transaction's own metrics in its application, over the
 * same window as application summaries: response time is the transaction's average, throughput
 * its calls per minute, the error rate its errors over its calls, Apdex its own Apdex metric.
 */
export async function keyTransactionSummaries(
  deps: SummaryDeps,
  accountId: number,
  keyTransactions: readonly KeyTransaction[],
  nowMs: number,
): Promise<Map<number, ApplicationSummary>> {
  const inputs = keyTransactions.flatMap((kt) => {
    const m = transactionMetrics(kt.metricName);
    return [
      [m.time, 'average_response_time'], [m.time, 'call_count'], [m.time, 'requests_per_minute'], [m.errors, 'error_count'],
      ...(m.apdex ? [[m.apdex, 'score'] as const] : []),
    ] as const;
  });
  const appIds = [...new Set(keyTransactions.map((kt) => kt.appId))];
  const values = await readWindow(deps, accountId, { groupBy: 'appId', keys: appIds, where: isIn('appId', appIds) }, inputs, nowMs);
  return new Map(keyTransactions.map((kt) => {
    const { value, has } = values.of(kt.appId);
    const m = transactionMetrics(kt.metricName);
    const calls = value(m.time, 'call_count');
    return [kt.id, {
      responseTime: value(m.time, 'average_response_time'),
      throughput: value(m.time, 'requests_per_minute'),
      errorRate: errorPercent(value(m.errors, 'error_count'), calls),
      apdexScore: m.apdex ? value(m.apdex, 'score') : 0,
      hasApdex: m.apdex !== undefined && has(m.apdex),
    }];
  }));
}

/** Errors as a percentage of calls (0 without calls): the error rate of applications and key transactions. */
function errorPercent(errors: number, calls: number): number {
  return calls > 0 ? (100 * errors) / calls : 0;
}

/** Reads one group's values: a value of a metric with no rows in the window is 0. */
interface GroupValues {
  value(metric: string, valueName: string): number;
  has(metric: string): boolean;
}

/**
 * The overview numbers: response time and throughput are those of web transactions, or of
 * background ones for an application without web requests; both kinds are also kept apart.
 */
function apmSummary({ value, has }: GroupValues): ApplicationSummary {
  const webCalls = value('HttpDispatcher', 'call_count');
  const otherCalls = value('OtherTransaction/all', 'call_count');
  const queueCalls = value('WebFrontend/QueueTime', 'call_count');
  const web: TransactionKindSummary | undefined = webCalls > 0
    ? {
      responseTime: value('HttpDispatcher', 'average_call_time') + (queueCalls * value('WebFrontend/QueueTime', 'average_response_time')) / webCalls,
      throughput: value('HttpDispatcher', 'requests_per_minute'),
    }
    : undefined;
  const nonWeb: TransactionKindSummary | undefined = otherCalls > 0
    ? { responseTime: value('OtherTransaction/all', 'average_response_time'), throughput: value('OtherTransaction/all', 'requests_per_minute') }
    : undefined;
  const calls = webCalls + otherCalls;
  const errorRate = errorPercent(value('Errors/all', 'error_count'), calls);
  const hasEndUser = has('EndUser') || has('EndUser/Apdex');
  return {
    responseTime: (web ?? nonWeb)?.responseTime ?? 0,
    throughput: (web ?? nonWeb)?.throughput ?? 0,
    errorRate,
    apdexScore: value('Apdex', 'score'),
    hasApdex: has('Apdex'),
    ...(hasEndUser
      ? { endUser: { responseTime: value('EndUser', 'average_value'), throughput: value('EndUser', 'calls_per_minute'), apdexScore: value('EndUser/Apdex', 'score') } }
      : {}),
    ...(web ? { web } : {}),
    ...(nonWeb ? { nonWeb } : {}),
  };
}

/**
 * One query for `inputs` over the summary window ending with the current minute: the rows
 * `where` selects, unscoped, grouped by `groupBy` and metric, each value lowered from the value
 * table as metric data lowers it.
 */
async function readWindow(
  deps: SummaryDeps,
  accountId: number,
  group: { readonly groupBy: 'appId' | 'hostId' | 'instanceId'; readonly keys: readonly number[]; readonly where: Predicate },
  inputs: readonly (readonly [string, string])[],
  nowMs: number,
): Promise<{ of(key: number): GroupValues }> {
  const metricNames = [...new Set(inputs.map(([metric]) => metric))];
  const ids = metricNames.flatMap((name) => {
    const id = deps.metrics.metricId(name);
    return id === undefined ? [] : [[id, name] as const];
  });
  const set = new AggregateSet();
  const outputs: { name: string; expr: OutputExpr }[] = [];
  const outputOf = new Map<RestValue, number>();
  const outputIndex = new Map<string, number>();
  for (const [metric, valueName] of inputs) {
    const value = restValueOf(metric, valueName)!;
    let index = outputOf.get(value);
    if (index === undefined) {
      index = outputs.length;
      outputs.push({ name: value.name, expr: formula(value.nrql).lower(set) });
      outputOf.set(value, index);
    }
    outputIndex.set(`${metric}:${valueName}`, index);
  }
  const window = summaryWindow(nowMs, SUMMARY_WINDOW_MINUTES);
  const plan: AggregatePlan = {
    kind: 'aggregate',
    source: { kind: 'timeslices' },
    accountId,
    window,
    where: and(group.where, isIn('metricId', ids.map(([id]) => id)), eq('scopeId', 0)),
    groupBy: [field(group.groupBy), field('metricId')],
    aggregates: set.all,
    outputs,
  };
  // Nothing to read when no group is asked for or none of the metrics was ever stored: every
  // summary is then the summary of no rows.
  const result = group.keys.length > 0 && ids.length > 0 ? await deps.executor.aggregate(plan) : undefined;
  const nameOfId = new Map(ids);
  const vectors = new Map<string, (number | null)[]>();
  for (let row = 0; row < (result?.rowCount ?? 0); row++) {
    const key = `${result!.groups[0]![row]}:${nameOfId.get(Number(result!.groups[1]![row]))}`;
    vectors.set(key, result!.aggregates.map((column) => column[row] ?? null));
  }
  const seconds = SUMMARY_WINDOW_MINUTES * 60;
  return {
    of: (key) => ({
      value: (metric, valueName) => {
        const vector = vectors.get(`${key}:${metric}`);
        if (vector === undefined) return 0;
        return evaluateOutput(outputs[outputIndex.get(`${metric}:${valueName}`)!]!.expr, vector, seconds) ?? 0;
      },
      has: (metric) => vectors.has(`${key}:${metric}`),
    }),
  };
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
