import type { Condition } from '../../../nrql/ast.js';
import { MAX_LIMIT } from '../../../nrql/analyze.js';
import { format } from '../../../nrql/format.js';
import { listingQuery, nrql } from '../../../nrql/formula.js';
import { NrqlError } from '../../../nrql/nrql-error.js';
import { parseCondition } from '../../../nrql/parser.js';
import { CHANGE_TRACKING_EVENT_TYPE, DEPLOYMENT_CATEGORY } from '../../../store/deployments.js';
import { deploymentView } from '../change-tracking.js';
import type { GraphEntity } from '../entity-model.js';
import type { GraphContext } from '../graph-context.js';
import { GraphError } from '../graph-errors.js';
import { checkedWindow } from '../time-window-input.js';
import { graphErrorOf } from './nrql-resolvers.js';

/*
 * An entity's deployments, read through the NRQL engine as `FROM ChangeTrackingEvent WHERE
 * category = 'Deployment' AND entity.guid = …`: the records NerdGraph promises are immutable, so
 * the graph shows every deployment the entity had, whichever API made it, including those a REST
 * v2 DELETE took out of REST's list (NRQL still finds them too). REST keeps its own view.
 */

/** The window when none is given: the week up to and including now (the spec's deployment listing reads `SINCE 1 WEEK AGO`). */
export const DEFAULT_DEPLOYMENT_WINDOW_MS = 7 * 24 * 60 * 60_000;
/** `deploymentSearch` results when `filter.limit` is not given (the spec's listing reads `LIMIT 100`). */
export const DEFAULT_DEPLOYMENT_LIMIT = 100;

interface Window {
  readonly startTime?: number | null;
  readonly endTime?: number | null;
}

/** `[start, end)` in epoch ms. NRQL's UNTIL is exclusive, so the default end is just past now, taking in what was made this very millisecond. */
function windowOf(ctx: GraphContext, given: Window | null | undefined, argument: string): { start: number; end: number; argument: string } {
  const end = given?.endTime ?? ctx.nowMs + 1;
  const start = given?.startTime ?? Math.max(0, end - DEFAULT_DEPLOYMENT_WINDOW_MS);
  return { ...checkedWindow(start, end, argument), argument };
}

/** The NRQL condition of `filter.query`: a WHERE clause's condition and nothing else. */
function filterCondition(query: string): Condition {
  try {
    return parseCondition(query);
  } catch (error) {
    if (error instanceof NrqlError) {
      throw GraphError.invalidInput(`filter.query is the condition of a WHERE clause only (e.g. "version LIKE '2.%'"; the window is filter.timeWindow and the count filter.limit): ${error.message}`);
    }
    throw error;
  }
}

/** The entity's Deployment events in the window, newest first, as NRQL rows. */
async function deploymentRows(
  ctx: GraphContext, entity: GraphEntity, window: { start: number; end: number; argument: string }, limit: number, where?: Condition,
) {
  const text = format(listingQuery({
    from: CHANGE_TRACKING_EVENT_TYPE,
    where: [nrql.eq('category', DEPLOYMENT_CATEGORY), nrql.eq('entity.guid', entity.guid)],
    beginMs: window.start,
    endMs: window.end,
    limit,
  }));
  try {
    ctx.spendQuery();
    const answer = await ctx.services.nrql.run(text, { accountIds: [entity.accountId], ...(where ? { where } : {}) });
    return answer.results as Record<string, unknown>[];
  } catch (error) {
    // The window was checked and the rest of the text is this file's: a refusal is about filter.query's
    // condition; a timeout is a timeout.
    if (error instanceof NrqlError && error.code !== 'NRQL_TIMEOUT' && where) throw GraphError.invalidInput(`filter.query: ${error.message}`);
    throw graphErrorOf(error, text);
  }
}

interface SearchFilter {
  readonly limit?: number | null;
  readonly query?: string | null;
  readonly timeWindow?: Window | null;
}

/** `deploymentSearch(filter)` of every full entity: `ChangeTrackingDeployment`s, newest first. */
async function deploymentSearch(entity: GraphEntity, args: { filter?: SearchFilter | null }, ctx: GraphContext) {
  const filter = args.filter ?? {};
  const limit = filter.limit ?? DEFAULT_DEPLOYMENT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw GraphError.invalidInput(`filter.limit must be 1 to ${MAX_LIMIT}, not ${limit}`);
  const where = filter.query !== undefined && filter.query !== null && filter.query.trim() !== '' ? filterCondition(filter.query) : undefined;
  const rows = await deploymentRows(ctx, entity, windowOf(ctx, filter.timeWindow, 'filter.timeWindow'), limit, where);
  return { results: rows.map((row) => deploymentView({ timestamp: Number(row.timestamp), attributes: row })) };
}

/**
 * `ApmApplicationEntity.deployments(timeWindow)`: the application's deployments in REST's terms
 * (`revision` is the version), newest first, at most NRQL's 5000. The permalink is the
 * application's, with the deployment's change tracking id.
 */
async function apmDeployments(entity: GraphEntity, args: { timeWindow?: Window | null }, ctx: GraphContext) {
  const rows = await deploymentRows(ctx, entity, windowOf(ctx, args.timeWindow, 'timeWindow'), MAX_LIMIT);
  return rows.map((row) => {
    const text = (name: string) => (row[name] === undefined || row[name] === null ? null : String(row[name]));
    return {
      changelog: text('changelog'),
      description: text('description'),
      permalink: `${ctx.origin}/redirect/entity/${entity.guid}?changeTrackingId=${encodeURIComponent(String(row.changeTrackingId))}`,
      revision: text('version'),
      timestamp: Number(row.timestamp),
      user: text('user'),
    };
  });
}

/** Deployment fields of the full entity types; graphql-tools merges them with `entity-resolvers.ts`'s maps. */
export const deploymentResolvers = {
  ApmApplicationEntity: { deployments: apmDeployments, deploymentSearch },
  BrowserApplicationEntity: { deploymentSearch },
  MobileApplicationEntity: { deploymentSearch },
  KeyTransactionEntity: { deploymentSearch },
};
