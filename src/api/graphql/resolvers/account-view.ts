import type { GraphContext } from '../graph-context.js';
import { checkedWindow } from '../time-window-input.js';
import { AiIssuesAccountView, AlertsAccountView } from './alert-resolvers.js';
import { AiNotificationsAccountView, AiWorkflowsAccountView } from './notification-resolvers.js';
import { graphErrorOf, nrqlQueryProgress, runNrql, type NrqlArgs } from './nrql-resolvers.js';


/**
 * An account the key may read: `actor.account(id)` (NerdGraph's `Account`), `actor.accounts` and an
 * entity's `account` (its `AccountOutline`).
 */
export class AccountView {
  constructor(readonly id: number, readonly name: string | null) {}

  nrql(args: NrqlArgs, ctx: GraphContext) {
    return runNrql(ctx, [this.id], args);
  }

  nrqlQueryProgress(args: { queryId: string }, ctx: GraphContext) {
    return nrqlQueryProgress(ctx, [this.id], args.queryId);
  }

  alerts() {
    return new AlertsAccountView(this.id);
  }

  aiIssues() {
    return new AiIssuesAccountView(this.id);
  }

  aiNotifications() {
    return new AiNotificationsAccountView(this.id);
  }

  aiWorkflows() {
    return new AiWorkflowsAccountView(this.id);
  }

  reportingEventTypes(args: { filter?: string[] | null; timeWindow?: { startTime: number; endTime: number } | null }, ctx: GraphContext) {
    return reportingEventTypes(ctx, this.id, args);
  }
}

/**
 * Event types with data in a window (the last 24 hours unless given), through NRQL's own
 * `SHOW EVENT TYPES`, optionally narrowed to the names in `filter`.
 */
async function reportingEventTypes(
  ctx: GraphContext,
  accountId: number,
  args: { filter?: readonly string[] | null; timeWindow?: { startTime: number; endTime: number } | null },
): Promise<string[]> {
  const window = args.timeWindow;
  if (window) checkedWindow(window.startTime, window.endTime, 'timeWindow');
  const text = window ? `SHOW EVENT TYPES SINCE ${window.startTime} UNTIL ${window.endTime}` : 'SHOW EVENT TYPES SINCE 1 day ago';
  let types;
  try {
    types = await ctx.loaders.eventTypes(accountId, text);
  } catch (error) {
    throw graphErrorOf(error, text);
  }
  const filter = args.filter ? new Set(args.filter) : undefined;
  return filter ? types.filter((t) => filter.has(t)) : types;
}

