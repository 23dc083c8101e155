import { decodeGuid, ENTITY_KINDS, entityByGuid, type EntityKind, type GraphEntity } from '../entity-model.js';
import type { GraphContext } from '../graph-context.js';
import { GraphError } from '../graph-errors.js';

/** How a kind of entity is named in messages. */
const KIND_NAMES: Readonly<Record<EntityKind, string>> = {
  apm: 'an APM application',
  browser: 'a browser application',
  mobile: 'a mobile application',
  keyTransaction: 'a key transaction',
};

/**
 * The entity a mutation names by GUID. A malformed GUID is INVALID_INPUT; one that names nothing,
 * or something in an account the key cannot reach, is NOT_FOUND with the same words, so that a
 * key learns nothing of other accounts.
 */
export function targetEntity(ctx: GraphContext, guid: string, argument = 'guid'): GraphEntity {
  if (!decodeGuid(guid)) {
    throw GraphError.invalidInput(`${argument} '${guid}' is not an entity GUID: expected unpadded base64 of accountId|DOMAIN|TYPE|domainId`);
  }
  const entity = entityByGuid(ctx.services, guid);
  if (!entity || !ctx.canRead(entity.accountId)) throw GraphError.entityNotFound(guid);
  return entity;
}

/** The target when it is of one of `kinds`; another kind is INVALID_INPUT saying what it is and what was wanted. */
export function targetOfKind<K extends EntityKind>(
  ctx: GraphContext, guid: string, kinds: readonly K[], operation: string, argument = 'guid',
): Extract<GraphEntity, { kind: K }> {
  const entity = targetEntity(ctx, guid, argument);
  if (!(kinds as readonly EntityKind[]).includes(entity.kind)) {
    const wanted = kinds.map((k) => KIND_NAMES[k]).join(' or ');
    throw GraphError.invalidInput(`${operation} takes the GUID of ${wanted}; ${guid} is ${KIND_NAMES[entity.kind]} (${ENTITY_KINDS[entity.kind].entityType})`);
  }
  return entity as Extract<GraphEntity, { kind: K }>;
}

export function kindName(kind: EntityKind): string {
  return KIND_NAMES[kind];
}
