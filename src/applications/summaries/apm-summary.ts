import {
  applicationParts, applicationSummaries, isReporting, type ApplicationSummary, type TransactionKindSummary,
} from '../application-summary.js';
import type { Application, Catalog } from '../../store/catalog.js';
import type { MetricIndex } from '../../store/metric-index.js';
import type { PlanExecutor } from '../../store/plan-executor.js';

/**
 * NerdGraph's `ApmApplicationSummaryData`: REST v2's `application_summary` (the same query over
 * the same 10 minutes, `applicationSummaries`) in NerdGraph's units and at full precision, where
 * REST rounds to three significant figures.
 */
export interface ApmApplicationSummaryData {
  /** REST's `apdex_score` unrounded; null when the window has no Apdex data (background transactions only). */
  readonly apdexScore: number | null;
  /** A fraction of all transactions (REST's `error_rate` / 100). */
  readonly errorRate: number;
  /** Live hosts: REST's `host_count`. */
  readonly hostCount: number;
  /** Live instances: REST's `instance_count`. */
  readonly instanceCount: number;
  /** Seconds: the mean of `OtherTransaction/all`; null without background transactions. */
  readonly nonWebResponseTimeAverage: number | null;
  /** Background transactions per minute; null without any. */
  readonly nonWebThroughput: number | null;
  /** Seconds: REST's `response_time` / 1000 (web with queue time, else background). */
  readonly responseTimeAverage: number;
  /** Per minute: REST's `throughput`. */
  readonly throughput: number;
  /** Seconds: `HttpDispatcher`'s mean plus queue time spread over the requests; null without web transactions. */
  readonly webResponseTimeAverage: number | null;
  /** Web requests per minute (`HttpDispatcher`); null without any. */
  readonly webThroughput: number | null;
}

export interface ApmSummaryDeps {
  readonly catalog: Pick<Catalog, 'hostsOf' | 'instancesOf'>;
  readonly metrics: MetricIndex;
  readonly executor: PlanExecutor;
}

/**
 * Summaries of APM applications of one account, in one query. An application that is not
 * reporting (no metric data for 10 minutes, REST's rule) has no summary: it is absent.
 */
export async function apmSummaries(
  deps: ApmSummaryDeps,
  accountId: number,
  apps: readonly Application[],
  nowMs: number,
): Promise<Map<number, ApmApplicationSummaryData>> {
  const reporting = apps.filter((a) => isReporting(deps.metrics.lastReportedAt({ appId: a.id }), nowMs));
  const summaries = await applicationSummaries(deps, accountId, reporting, nowMs);
  return new Map(reporting.map((app) => {
    const parts = applicationParts(deps, app.id, nowMs);
    return [app.id, graphSummary(summaries.get(app.id)!, parts.liveHosts.length, parts.liveInstances.length)];
  }));
}

function graphSummary(summary: ApplicationSummary, hostCount: number, instanceCount: number): ApmApplicationSummaryData {
  const seconds = (kind: TransactionKindSummary | undefined) => (kind ? kind.responseTime / 1000 : null);
  return {
    apdexScore: summary.hasApdex ? summary.apdexScore : null,
    errorRate: summary.errorRate / 100,
    hostCount,
    instanceCount,
    nonWebResponseTimeAverage: seconds(summary.nonWeb),
    nonWebThroughput: summary.nonWeb?.throughput ?? null,
    responseTimeAverage: summary.responseTime / 1000,
    throughput: summary.throughput,
    webResponseTimeAverage: seconds(summary.web),
    webThroughput: summary.web?.throughput ?? null,
  };
}
