import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Catalog } from '../store/catalog.js';
import { fastifyBaseOptions } from './fastify-options.js';

export interface ApiDeps {
  readonly catalog: Catalog;
  /** True once the store is open and both listeners accept connections. */
  readonly ready: () => boolean;
  readonly logger?: FastifyBaseLogger;
}

/** The HTTP API: health now; REST v2, GraphQL and the UI register here as plugins. */
export function buildApiApp(deps: ApiDeps): FastifyInstance {
  const app = Fastify(fastifyBaseOptions(deps.logger)) as unknown as FastifyInstance;

  app.get('/healthz', async (_request, reply) => {
    if (!deps.ready()) return reply.code(503).send({ status: 'starting' });
    return { status: 'ok' };
  });

  app.get('/', async () => ({
    name: 'Timeslice',
    description: 'Self-hosted APM service speaking the New Relic agent protocol, REST API v2 and NerdGraph.',
    health: '/healthz',
  }));

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: { title: `Route ${request.method}:${request.url.split('?')[0]} not found` } });
  });
  return app;
}
