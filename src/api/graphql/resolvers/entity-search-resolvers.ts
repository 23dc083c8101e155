import type { SearchCondition } from '../entity-search/ast.js';
import { EntitySearchError } from '../entity-search/entity-search-error.js';
import { matches } from '../entity-search/matches.js';
import { parseEntitySearch } from '../entity-search/parser.js';
import { queryFromBuilder, type EntitySearchQueryBuilder } from '../entity-search/query-builder.js';
import { searchCounts, searchPage, searchTypes, type SearchSort, type SortAttribute } from '../entity-search/search-page.js';
import type { SearchableEntity } from '../entity-search/searchable-entity.js';
import { accountEntities, ENTITY_KINDS, type GraphEntity } from '../entity-model.js';
import type { GraphContext } from '../graph-context.js';
import { GraphError } from '../graph-errors.js';
import { entityAlertSeverity, entityReporting, entityTags, lastReportingChangeAt } from './entity-resolvers.js';

export interface EntitySearchArgs {
  readonly query?: string | null;
  readonly queryBuilder?: EntitySearchQueryBuilder | null;
  readonly options?: { readonly limit?: number | null; readonly caseSensitiveTagMatching?: boolean | null; readonly tagFilter?: readonly string[] | null } | null;
  readonly sortBy?: readonly (string | null)[] | null;
  readonly sortByWithDirection?: readonly ({ attribute?: string | null; direction?: string | null; tag?: string | null } | null)[] | null;
}

/** An entity-search error as the graph shows it: invalid input, with where in the query it is. */
export function searchError(error: unknown): unknown {
  if (!(error instanceof EntitySearchError)) return error;
  return GraphError.invalidInput(error.message, { entitySearchErrorCode: error.code, ...(error.offset !== null ? { offset: error.offset } : {}) });
}

/** The query text and its parsed condition: exactly one of `query` and `queryBuilder`. */
export function searchCondition(args: Pick<EntitySearchArgs, 'query' | 'queryBuilder'>): { text: string; condition: SearchCondition } {
  const hasQuery = args.query !== undefined && args.query !== null;
  const hasBuilder = args.queryBuilder !== undefined && args.queryBuilder !== null;
  if (hasQuery === hasBuilder) throw GraphError.invalidInput('entitySearch takes exactly one of query and queryBuilder');
  try {
    const text = hasQuery ? args.query! : queryFromBuilder(args.queryBuilder!);
    return { text, condition: parseEntitySearch(text) };
  } catch (error) {
    throw searchError(error);
  }
}

/** What search reads of an entity. */
export async function searchableEntity(entity: GraphEntity, ctx: GraphContext): Promise<SearchableEntity> {
  const created = entity.record.createdAt;
  return {
    guid: entity.guid,
    name: entity.record.name,
    accountId: entity.accountId,
    domain: ENTITY_KINDS[entity.kind].domain,
    type: ENTITY_KINDS[entity.kind].type,
    domainId: String(entity.record.id),
    alertSeverity: entityAlertSeverity(entity, ctx),
    reporting: await entityReporting(entity, ctx),
    indexedAt: created,
    firstIndexedAt: created,
    lastReportingChangeAt: await lastReportingChangeAt(entity, ctx),
    tags: entityTags(entity, ctx),
  };
}

/** The entities of the readable accounts that match, each with what search read of it. */
export async function matchingEntities(ctx: GraphContext, condition: SearchCondition, caseSensitiveTagMatching = false) {
  const all = ctx.readableAccounts().flatMap((id) => accountEntities(ctx.services, id));
  const searchable = await Promise.all(all.map(async (entity) => ({ entity, searchable: await searchableEntity(entity, ctx) })));
  return searchable.filter((s) => matches(condition, s.searchable, { caseSensitiveTagMatching }));
}

/** NerdGraph's two ways to sort: `sortByWithDirection` wins over `sortBy`; the page checks each criterion. */
function sortOf(args: EntitySearchArgs): SearchSort[] {
  const withDirection = (args.sortByWithDirection ?? []).filter((s) => s !== null) as SearchSort[];
  if (withDirection.length > 0) return withDirection;
  return (args.sortBy ?? []).filter((s): s is string => s !== null).map((attribute) => ({ attribute: attribute as SortAttribute }));
}

/** `actor.entitySearch`: the query is checked at once; the search runs once, when a field needs it. */
export function entitySearch(ctx: GraphContext, args: EntitySearchArgs) {
  ctx.spendQuery();
  const { text, condition } = searchCondition(args);
  const sort = sortOf(args);
  // A cursor belongs to the query and everything that decides its matches: tag case too.
  const cursorBinding = args.options?.caseSensitiveTagMatching ? `${text}\u0000caseSensitiveTagMatching` : text;
  let found: ReturnType<typeof matchingEntities> | undefined;
  const run = () => (found ??= matchingEntities(ctx, condition, args.options?.caseSensitiveTagMatching ?? false));
  return {
    query: () => text,
    count: async () => (await run()).length,
    types: async () => searchTypes((await run()).map((s) => s.searchable)),
    counts: async ({ facet }: { facet?: readonly string[] | null }) => searchCounts((await run()).map((s) => s.searchable), facet ?? []),
    results: async ({ cursor }: { cursor?: string | null }) => {
      const hits = await run();
      const byGuid = new Map(hits.map((h) => [h.searchable.guid, h.entity]));
      try {
        const page = searchPage(hits.map((h) => h.searchable), { sort, limit: args.options?.limit ?? undefined, cursor: cursor ?? undefined, queryText: cursorBinding });
        // `options.tagFilter` picks the tags shown; it does not filter entities.
        const tagFilter = args.options?.tagFilter ? new Set(args.options.tagFilter) : undefined;
        const entities = page.entities.map((s) => byGuid.get(s.guid)!);
        return { entities: tagFilter ? entities.map((e) => ({ ...e, tagFilter })) : entities, nextCursor: page.nextCursor };
      } catch (error) {
        throw searchError(error);
      }
    },
  };
}
