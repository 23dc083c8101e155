import type { GraphContext } from '../graph-context.js';
import { GraphError } from '../graph-errors.js';
import { decodeGuid, entityByGuid, type GraphEntity } from '../entity-model.js';
import { AccountView } from './account-view.js';
import { nrqlAccounts, nrqlQueryProgress, runNrql, type NrqlArgs } from './nrql-resolvers.js';
import { entitySearch, type EntitySearchArgs } from './entity-search-resolvers.js';

/** `actor.entities` takes at most this many GUIDs (NerdGraph's limit). */
export const MAX_ENTITY_GUIDS = 25;

/** An entity the key may read, or null: one of another account is as absent as one that never existed. */
function readableEntity(ctx: GraphContext, guid: string): GraphEntity | null {
  const entity = entityByGuid(ctx.services, guid);
  return entity && ctx.canRead(entity.accountId) ? entity : null;
}

/** A malformed GUID is the caller's mistake, so it is an error; a well-formed unknown one is null. */
function checkGuid(guid: string): void {
  if (!decodeGuid(guid)) throw GraphError.invalidInput(`'${guid}' is not an entity GUID: expected unpadded base64 of accountId|DOMAIN|TYPE|domainId`);
}

export const actorResolvers = {
  RootQueryType: {
    actor: () => ({}),
    requestContext: (_root: unknown, _args: unknown, ctx: GraphContext) => ({ apiKey: ctx.principal.keyHint, userId: String(ctx.principal.userId) }),
  },
  Actor: {
    account: (_actor: unknown, args: { id: number }, ctx: GraphContext) => {
      ctx.requireAccount(args.id);
      return new AccountView(args.id, ctx.services.catalog.account(args.id)?.name ?? null);
    },
    accounts: (_actor: unknown, _args: unknown, ctx: GraphContext) =>
      ctx.readableAccounts().map((id) => new AccountView(id, ctx.services.catalog.account(id)?.name ?? null)),
    user: (_actor: unknown, _args: unknown, ctx: GraphContext) => ({
      id: ctx.principal.userId,
      name: ctx.principal.userName,
      email: ctx.principal.userEmail,
      createdAt: ctx.principal.createdAt === null ? null : Math.floor(ctx.principal.createdAt / 1000),
      timeZoneName: 'Etc/UTC',
    }),
    entity: (_actor: unknown, args: { guid: string }, ctx: GraphContext) => {
      checkGuid(args.guid);
      return readableEntity(ctx, args.guid);
    },
    entities: (_actor: unknown, args: { guids: (string | null)[] }, ctx: GraphContext) => {
      const guids = args.guids.filter((g): g is string => g !== null);
      if (guids.length > MAX_ENTITY_GUIDS) throw GraphError.invalidInput(`entities takes at most ${MAX_ENTITY_GUIDS} GUIDs; ${guids.length} were given`);
      guids.forEach(checkGuid);
      return guids.map((g) => readableEntity(ctx, g)).filter((e): e is GraphEntity => e !== null);
    },
    entitySearch: (_actor: unknown, args: EntitySearchArgs, ctx: GraphContext) => entitySearch(ctx, args),
    nrql: (_actor: unknown, args: NrqlArgs & { accounts: number[] }, ctx: GraphContext) => runNrql(ctx, nrqlAccounts(ctx, args.accounts), args),
    nrqlQueryProgress: (_actor: unknown, args: { accounts: number[]; queryId: string }, ctx: GraphContext) =>
      nrqlQueryProgress(ctx, nrqlAccounts(ctx, args.accounts), args.queryId),
  },
};
