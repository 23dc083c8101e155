import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../store/catalog.js';
import type { Store } from '../store/store.js';
import { STORE_ROUTE } from '../http/service-paths.js';

export interface StoreRouteDeps {
  readonly catalog: Pick<Catalog, 'accountForUserKey'>;
  readonly store: Pick<Store, 'status' | 'maintain'>;
}

/**
 * The store's upkeep over HTTP, for `timeslice status` and `timeslice maintain` against a running
 * service (`TIMESLICE_URL`, `TIMESLICE_API_KEY`): `GET /timeslice/v1/store` answers sizes, rows and
 * oldest data per table, the retention in force and the last rollup and deletion runs;
 * `POST /timeslice/v1/store/maintain` rolls closed hours up and deletes what expired now, and
 * answers what it did. The figures are the store's, across accounts; any user API key may read
 * them (docs/limits.md). Not a New Relic API.
 */
export function registerStoreRoutes(app: FastifyInstance, deps: StoreRouteDeps): void {
  const authorized = (headers: Record<string, string | string[] | undefined>): { ok: true } | { ok: false; title: string } => {
    const header = headers['api-key'] ?? headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key) return { ok: false, title: 'No API key specified; send a user API key in the Api-Key header' };
    return deps.catalog.accountForUserKey(key) === undefined ? { ok: false, title: 'Invalid API key' } : { ok: true };
  };
  app.get(STORE_ROUTE, async (request, reply) => {
    const auth = authorized(request.headers);
    if (!auth.ok) return reply.code(401).send({ error: { title: auth.title } });
    return deps.store.status();
  });
  app.post(`${STORE_ROUTE}/maintain`, async (request, reply) => {
    const auth = authorized(request.headers);
    if (!auth.ok) return reply.code(401).send({ error: { title: auth.title } });
    return deps.store.maintain();
  });
}
