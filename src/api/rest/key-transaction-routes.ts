import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { formatRestTime } from '../../domain/time/iso8601.js';
import type { Catalog } from '../../store/catalog.js';
import type { KeyTransaction, KeyTransactions } from '../../store/key-transactions.js';
import type { MetricIndex } from '../../store/metric-index.js';
import type { PlanExecutor } from '../../store/plan-executor.js';
import { healthStatus, isReporting, keyTransactionSummaries } from '../../applications/application-summary.js';
import { entityListPage } from './entity-list.js';
import { pathId } from './id-params.js';
import { threeSignificant, twoDecimals } from './number-format.js';
import { RestError } from './rest-error.js';
import { RestParams } from './rest-params.js';
import { restRoute, type RestContext } from './rest-plugin.js';

export interface KeyTransactionRouteDeps {
  readonly catalog: Catalog;
  readonly metrics: MetricIndex;
  readonly executor: PlanExecutor;
  readonly clock: Clock;
  readonly keyTransactions: KeyTransactions;
}

const KEY_TRANSACTION_LINKS = { 'key_transaction.application': '/v2/applications/{application_id}' };

/** `GET /v2/key_transactions` (filters `filter[name]`, `filter[ids]`, paged) and `GET /v2/key_transactions/{id}`. */
export function registerKeyTransactionRoutes(app: FastifyInstance, deps: KeyTransactionRouteDeps): void {
  restRoute(app, 'GET', '/v2/key_transactions', async (request, ctx) => {
    const params = RestParams.from(request.query, request.body);
    const { pageItems, pagination } = entityListPage(visibleKeyTransactions(deps, ctx), params, { what: 'key transaction', nameOf: (kt) => kt.name });
    return { body: { key_transactions: await keyTransactionObjects(deps, ctx, pageItems), links: KEY_TRANSACTION_LINKS }, pagination };
  });

  restRoute(app, 'GET', '/v2/key_transactions/:id', async (request, ctx) => {
    const id = pathId(request, 'id', 'key transaction');
    const kt = visibleKeyTransactions(deps, ctx).find((k) => k.id === id);
    if (!kt) throw RestError.notFound(`No key transaction with id ${id}`);
    const [object] = await keyTransactionObjects(deps, ctx, [kt]);
    return { body: { key_transaction: object, links: KEY_TRANSACTION_LINKS } };
  });
}

/** The account's key transactions whose application still exists (a deleted application takes its transactions with it). */
function visibleKeyTransactions(deps: KeyTransactionRouteDeps, ctx: RestContext): KeyTransaction[] {
  return deps.keyTransactions.list(ctx.accountId).filter((kt) => deps.catalog.application(kt.appId)?.accountId === ctx.accountId);
}

/**
 * Key transaction objects (reference §9). A key transaction reports while its application does;
 * then it has `last_reported_at` (the application's) and `application_summary` from the
 * transaction's own metrics over the last 10 minutes, with its own Apdex T. No
 * `end_user_summary`: browser data per transaction is not collected.
 */
async function keyTransactionObjects(deps: KeyTransactionRouteDeps, ctx: RestContext, kts: readonly KeyTransaction[]): Promise<Record<string, unknown>[]> {
  const now = deps.clock.now();
  const lastOf = (kt: KeyTransaction) => deps.metrics.lastReportedAt({ appId: kt.appId });
  const reporting = kts.filter((kt) => isReporting(lastOf(kt), now));
  const summaries = await keyTransactionSummaries(deps, ctx.accountId, reporting, now);
  return kts.map((kt) => {
    const summary = summaries.get(kt.id);
    return {
      id: kt.id,
      name: kt.name,
      transaction_name: kt.metricName,
      health_status: healthStatus(summary),
      reporting: summary !== undefined,
      ...(summary
        ? {
          last_reported_at: formatRestTime(lastOf(kt)!),
          application_summary: {
            response_time: threeSignificant(summary.responseTime),
            throughput: threeSignificant(summary.throughput),
            error_rate: threeSignificant(summary.errorRate),
            apdex_target: kt.apdexT,
            apdex_score: twoDecimals(summary.apdexScore),
          },
        }
        : {}),
      links: { application: kt.appId },
    };
  });
}
