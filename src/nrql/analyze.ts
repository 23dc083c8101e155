import type { Query } from './ast.js';
import type { AnalyzeContext, AnalyzedQuery } from './analyze/analyzed-query.js';
import { SelectAnalyzer } from './analyze/select.js';
import { resolveTimeWindow } from './time-window.js';

/*
 * The analyzer, by concern: analyze/bindings (attribute names → fields, catalog ids, the timeslice
 * value; row expressions), analyze/conditions (conditions → predicates), analyze/select (SELECT,
 * FACET, TIMESERIES, ordering and limits; aggregates through the function table of functions.ts).
 */

export type * from './analyze/analyzed-query.js';
export { jsonText, SPEC_TIMESLICE_VALUE } from './analyze/bindings.js';
export { likeRegex } from './analyze/conditions.js';
export { ALL_CUSTOM_EVENTS, DEFAULT_FACET_LIMIT, DEFAULT_ROW_LIMIT, lowerFormula, MAX_FACETS, MAX_LIMIT } from './analyze/select.js';

/** Checks a parsed query against the data model and resolves it into what the planner needs. */
export function analyze(query: Query, ctx: AnalyzeContext): AnalyzedQuery {
  if (query.kind === 'showEventTypes') {
    const window = resolveTimeWindow({ ...(query.since ? { since: query.since } : {}), ...(query.until ? { until: query.until } : {}) }, ctx.nowMs);
    return { kind: 'showEventTypes', accountIds: ctx.accountIds, window };
  }
  return new SelectAnalyzer(query, ctx).analyze();
}

