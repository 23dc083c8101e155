import type { FastifyInstance } from 'fastify';
import { manage, ManagementError, parseManagementRequest, type ManagementCatalog } from '../accounts/account-management.js';
import { ADMIN_ROUTE } from '../http/service-paths.js';
import type { Catalog } from '../store/catalog.js';

/**
 * `POST /timeslice/v1/admin` with a ManagementRequest as JSON and an admin's user key in
 * `Api-Key`/`X-Api-Key`. Not a New Relic API (New Relic manages keys in its UI and NerdGraph's
 * apiAccess mutations); it exists for the CLI.
 */
export function registerManagementRoute(app: FastifyInstance, catalog: ManagementCatalog & Pick<Catalog, 'userOfKey'>): void {
  app.post(ADMIN_ROUTE, async (request, reply) => {
    const header = request.headers['api-key'] ?? request.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    const user = key ? catalog.userOfKey(key) : undefined;
    if (!user) return reply.code(401).send({ error: { title: key ? 'Invalid API key' : 'No API key specified; send an admin user API key in the Api-Key header' } });
    if (!user.admin) return reply.code(403).send({ error: { title: `User ${user.id} (${user.name}) is not an admin: only an admin's key manages accounts, users and keys` } });
    try {
      const answer = await manage(catalog, parseManagementRequest(request.body));
      return reply.code(/\.create$|\.rotate$/.test((request.body as { op: string }).op) ? 201 : 200).send(answer);
    } catch (error) {
      if (error instanceof ManagementError) return reply.code(error.status).send({ error: { title: error.message } });
      throw error;
    }
  });
}
