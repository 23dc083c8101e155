import type { Condition } from '../../nrql/ast.js';
import { format } from '../../nrql/format.js';
import { formula, formulaQuery, listingQuery, nrql } from '../../nrql/formula.js';
import type { NrqlRunOptions } from '../../nrql/nrql-engine.js';
import { CHANGE_TRACKING_EVENT_TYPE, DEPLOYMENT_CATEGORY, type Deployment } from '../../store/deployments.js';

/*
 * REST's view of deployments, read through the NRQL engine as the graph API reads them:
 * `FROM ChangeTrackingEvent WHERE category = 'Deployment' AND appId = … AND deploymentId IS NOT NULL
 * AND service.source LIKE 'timeslice:%'` (made by this service's REST v2, v0 or graph API), newest
 * first. What REST adds is its DELETE: deployments it deleted are left out, a condition on ids
 * the store keeps beside the events (`deleted_deployments`).
 */

export interface DeploymentReadDeps {
  readonly nrql: { run(text: string, options: NrqlRunOptions): Promise<{ readonly results: readonly unknown[] }> };
  /** Ids of the application's deployments deleted through REST. */
  deletedDeploymentIds(accountId: number, appId: number): Promise<readonly number[]>;
}

/** Every time a deployment can have: from the epoch to the end of year 9999 (NRQL's UNTIL is exclusive). */
const ALL_TIME = { beginMs: 0, endMs: Date.UTC(10000, 0, 1) };

function conditions(appId: number, id?: number): Condition[] {
  return [
    nrql.eq('category', DEPLOYMENT_CATEGORY),
    nrql.eq('appId', appId),
    ...(id === undefined ? [nrql.isNotNull('deploymentId')] : [nrql.eq('deploymentId', id)]),
    nrql.like('service.source', 'timeslice:%'),
  ];
}

async function notDeleted(deps: DeploymentReadDeps, accountId: number, appId: number): Promise<NrqlRunOptions> {
  const deleted = await deps.deletedDeploymentIds(accountId, appId);
  // A condition beside the text: the list of ids can outgrow a query's text.
  return { accountIds: [accountId], ...(deleted.length > 0 ? { where: nrql.notIn('deploymentId', deleted) } : {}) };
}

/** An application's deployments not deleted through REST, newest first (then highest id), a page at a time. */
export async function listDeployments(
  deps: DeploymentReadDeps, accountId: number, appId: number, page: number, perPage: number,
): Promise<{ deployments: Deployment[]; total: number }> {
  const options = await notDeleted(deps, accountId, appId);
  const where = conditions(appId);
  const counted = await deps.nrql.run(format(formulaQuery({
    select: [{ formula: formula('count(*)', CHANGE_TRACKING_EVENT_TYPE), alias: 'total' }], from: CHANGE_TRACKING_EVENT_TYPE, where, ...ALL_TIME,
  })), options);
  const total = Number((counted.results[0] as { total?: unknown } | undefined)?.total ?? 0);
  const offset = (page - 1) * perPage;
  if (offset >= total) return { deployments: [], total };
  const listed = await deps.nrql.run(format(listingQuery({
    from: CHANGE_TRACKING_EVENT_TYPE, where, ...ALL_TIME, limit: perPage, offset, orderByDescending: ['timestamp', 'deploymentId'],
  })), options);
  return { deployments: listed.results.map((row) => deploymentOf(accountId, appId, row as Record<string, unknown>)), total };
}

/** The time of the application's most recent deployment (deleted ones too: they happened). */
export async function latestDeploymentTime(deps: DeploymentReadDeps, accountId: number, appId: number): Promise<number | undefined> {
  const answer = await deps.nrql.run(format(formulaQuery({
    select: [{ formula: formula('max(timestamp)', CHANGE_TRACKING_EVENT_TYPE), alias: 'latest' }], from: CHANGE_TRACKING_EVENT_TYPE, where: conditions(appId), ...ALL_TIME,
  })), { accountIds: [accountId] });
  const latest = (answer.results[0] as { latest?: unknown } | undefined)?.latest;
  return typeof latest === 'number' ? latest : undefined;
}

/** One deployment of the application, unless deleted through REST. */
export async function findDeployment(deps: DeploymentReadDeps, accountId: number, appId: number, id: number): Promise<Deployment | undefined> {
  const options = await notDeleted(deps, accountId, appId);
  const found = await deps.nrql.run(format(listingQuery({ from: CHANGE_TRACKING_EVENT_TYPE, where: conditions(appId, id), ...ALL_TIME, limit: 1 })), options);
  const row = found.results[0] as Record<string, unknown> | undefined;
  return row && deploymentOf(accountId, appId, row);
}

function deploymentOf(accountId: number, appId: number, row: Record<string, unknown>): Deployment {
  const text = (v: unknown) => (v === undefined || v === null ? null : String(v));
  return {
    id: Number(row.deploymentId),
    appId,
    accountId,
    changeTrackingId: String(row.changeTrackingId),
    timestamp: Number(row.timestamp),
    revision: text(row.version),
    changelog: text(row.changelog),
    description: text(row.description),
    user: text(row.user),
    source: String(row['service.source'] ?? ''),
  };
}
