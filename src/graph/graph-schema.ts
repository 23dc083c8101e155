import { readFileSync } from 'node:fs';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { defaultFieldResolver, isListType, isNonNullType, isObjectType, type GraphQLSchema } from 'graphql';
import { actorResolvers } from './resolvers/actor-resolvers.js';
import { compatResolvers } from './resolvers/compat-resolvers.js';
import { deploymentResolvers } from './resolvers/deployment-resolvers.js';
import { entityTypeResolvers } from './resolvers/entity-resolvers.js';
import { mutationResolvers } from './resolvers/mutation-resolvers.js';
import { settingsResolvers } from './resolvers/settings-resolvers.js';
import { SCALARS } from './scalars.js';

/** The contract: `src/graph/schema.graphql`, read from the source tree (the build does not copy it). */
export const SCHEMA_PATH = new URL('../../../src/graph/schema.graphql', import.meta.url);

export function schemaSdl(): string {
  return readFileSync(SCHEMA_PATH, 'utf8');
}

/** The executable schema: the SDL and its resolvers, checked against each other when built. */
export function buildGraphSchema(): GraphQLSchema {
  return acceptSingleItems(makeExecutableSchema({
    typeDefs: schemaSdl(),
    resolvers: [SCALARS, actorResolvers, entityTypeResolvers, settingsResolvers, deploymentResolvers, mutationResolvers, compatResolvers],
    resolverValidationOptions: { requireResolversToMatchSchema: 'error', requireResolversForResolveType: 'error' },
  }));
}

/**
 * Validation lets a variable of a list's item type fill the list's position (see
 * validation-rules.ts), as NerdGraph does; graphql-js then hands the resolver that one value.
 * Each field with list arguments gets them as lists whatever was passed.
 */
function acceptSingleItems(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const listArgs = field.args.filter((a) => isListType(isNonNullType(a.type) ? a.type.ofType : a.type)).map((a) => a.name);
      if (listArgs.length === 0) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args: Record<string, unknown>, context, info) => {
        const listed = { ...args };
        for (const name of listArgs) if (listed[name] !== undefined && listed[name] !== null && !Array.isArray(listed[name])) listed[name] = [listed[name]];
        return resolve(source, listed, context, info);
      };
    }
  }
  return schema;
}
