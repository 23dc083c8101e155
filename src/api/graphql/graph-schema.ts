import { readFileSync } from 'node:fs';
import { makeExecutableSchema } from '@graphql-tools/schema';
import {
  defaultFieldResolver, isInputObjectType, isListType, isNonNullType, isObjectType,
  type GraphQLInputObjectType, type GraphQLInputType, type GraphQLSchema,
} from 'graphql';
import { actorResolvers } from './resolvers/actor-resolvers.js';
import { alertResolvers } from './resolvers/alert-resolvers.js';
import { notificationResolvers } from './resolvers/notification-resolvers.js';
import { compatResolvers } from './resolvers/compat-resolvers.js';
import { deploymentResolvers } from './resolvers/deployment-resolvers.js';
import { entityTypeResolvers } from './resolvers/entity-resolvers.js';
import { mutationResolvers } from './resolvers/mutation-resolvers.js';
import { settingsResolvers } from './resolvers/settings-resolvers.js';
import { SCALARS } from './scalars.js';

/** The contract: `src/api/graphql/schema.graphql`, read from the source tree (the build does not copy it). */
export const SCHEMA_PATH = new URL('../../../../src/api/graphql/schema.graphql', import.meta.url);

export function schemaSdl(): string {
  return readFileSync(SCHEMA_PATH, 'utf8');
}

/** The executable schema: the SDL and its resolvers, checked against each other when built. */
export function buildGraphSchema(): GraphQLSchema {
  return acceptSingleItems(makeExecutableSchema({
    typeDefs: schemaSdl(),
    resolvers: [SCALARS, actorResolvers, entityTypeResolvers, settingsResolvers, deploymentResolvers, mutationResolvers, compatResolvers, alertResolvers, notificationResolvers],
    resolverValidationOptions: { requireResolversToMatchSchema: 'error', requireResolversForResolveType: 'error' },
  }));
}

/**
 * Validation lets a variable of a list's item type fill the list's position (see
 * validation-rules.ts), as NerdGraph does, wherever the list is: an argument or a field of an
 * input object (`dataHandlingRules: {validationFlags: $flag}`). graphql-js then hands over that
 * one value where a list is declared; each field whose arguments can hold a list gets them with
 * every such value made a list of one.
 */
function acceptSingleItems(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const listArgs = field.args.filter((a) => holdsList(a.type, new Set()));
      if (listArgs.length === 0) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args: Record<string, unknown>, context, info) => {
        const listed = { ...args };
        for (const arg of listArgs) listed[arg.name] = asLists(listed[arg.name], arg.type);
        return resolve(source, listed, context, info);
      };
    }
  }
  return schema;
}

/** Whether a value of `type` can hold a list: it is one, or an input object with a field that can. */
function holdsList(type: GraphQLInputType, seen: Set<GraphQLInputObjectType>): boolean {
  const bare = isNonNullType(type) ? type.ofType : type;
  if (isListType(bare)) return true;
  if (!isInputObjectType(bare) || seen.has(bare)) return false;
  seen.add(bare);
  return Object.values(bare.getFields()).some((f) => holdsList(f.type, seen));
}

/** `value` (as graphql-js coerced it to `type`) with every single value in a list position made a list of one. */
function asLists(value: unknown, type: GraphQLInputType): unknown {
  if (value === null || value === undefined) return value;
  const bare = isNonNullType(type) ? type.ofType : type;
  if (isListType(bare)) return (Array.isArray(value) ? value : [value]).map((item) => asLists(item, bare.ofType as GraphQLInputType));
  if (!isInputObjectType(bare) || typeof value !== 'object') return value;
  const fields = bare.getFields();
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, fields[key] ? asLists(v, fields[key].type) : v]));
}
