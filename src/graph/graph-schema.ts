import { readFileSync } from 'node:fs';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { actorResolvers } from './resolvers/actor-resolvers.js';
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
  return makeExecutableSchema({
    typeDefs: schemaSdl(),
    resolvers: [SCALARS, actorResolvers, entityTypeResolvers, settingsResolvers, deploymentResolvers, mutationResolvers],
    resolverValidationOptions: { requireResolversToMatchSchema: 'error', requireResolversForResolveType: 'error' },
  });
}
