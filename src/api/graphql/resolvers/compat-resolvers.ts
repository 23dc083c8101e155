import type { GraphEntity } from '../entity-model.js';
import type { GraphContext } from '../graph-context.js';
import { entityTags } from './entity-resolvers.js';

/*
 * Entity fields of NerdGraph that real clients select but Timeslice does not track (golden
 * metrics and tags, service levels, relationships, metric normalization rules).
 * Each answers what NerdGraph answers for an entity that has none of it: an empty list, or, where
 * the field's type holds a non-null list, an object around an empty one. The entity types
 * Timeslice never returns (dashboards, hosts, workloads, …) need no resolvers: they exist in the
 * schema only so that clients' fragments on them validate.
 */

/** No context was asked for (the fields take none here), so none is echoed back. */
const NO_CONTEXT = { account: null, guid: null };

/** Fields of both outline and full entity types. */
const OUTLINE = {
  // Timeslice defines no golden metrics for any entity type.
  goldenMetrics: () => ({ context: NO_CONTEXT, metrics: [] }),
  // Timeslice defines no golden tags for any entity type.
  goldenTags: () => ({ context: NO_CONTEXT, tags: [] }),
  // Timeslice has no service level indicators.
  serviceLevel: () => ({ indicators: [] }),
};

/** Fields of full entity types only. */
const FULL = {
  ...OUTLINE,
  // Timeslice keeps no relationships between entities.
  relatedEntities: () => ({ nextCursor: null, results: [] }),
  // Timeslice keeps no relationships between entities.
  relationships: () => [],
  // The tags `tags` shows: each is derived from the entity itself (account, language), so none can be changed.
  tagsWithMetadata: (e: GraphEntity, _a: unknown, ctx: GraphContext) =>
    [...entityTags(e, ctx)].map(([key, values]) => ({ key, values: values.map((value) => ({ value, mutable: false })) })),
};

/** Application entities' rules; Timeslice renames no metrics, so there are none. */
const APPLICATION = { ...FULL, metricNormalizationRules: () => [] };

/** The resolver map of the untracked fields; graphql-tools merges it with the other entity maps. */
export const compatResolvers = {
  ApmApplicationEntityOutline: OUTLINE,
  BrowserApplicationEntityOutline: OUTLINE,
  MobileApplicationEntityOutline: OUTLINE,
  KeyTransactionEntityOutline: OUTLINE,
  ApmApplicationEntity: APPLICATION,
  BrowserApplicationEntity: APPLICATION,
  MobileApplicationEntity: APPLICATION,
  KeyTransactionEntity: FULL,
  // The schema needs a type for every edge an answer could hold; relatedEntities never holds one.
  EntityRelationshipEdge: { __resolveType: (edge: { readonly __typename: string }) => edge.__typename },
};
