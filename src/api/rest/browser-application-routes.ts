import type { FastifyInstance, FastifyRequest } from 'fastify';
import { browserLoaderScript } from '../../domain/browser-loader-script.js';
import type { BrowserApplication, BrowserApplications } from '../../store/browser-applications.js';
import { nameFromCreateBody } from './entity-body.js';
import { entityListPage } from './entity-list.js';
import { RestError } from './rest-error.js';
import { RestParams } from './rest-params.js';
import { restRoute } from './rest-plugin.js';

export interface BrowserApplicationRouteDeps {
  readonly browserApplications: BrowserApplications;
}

/**
 * `GET /v2/browser_applications` (filters `filter[name]`, `filter[ids]`, paged) and
 * `POST /v2/browser_applications` (a standalone application; `{"browser_application": {"name"}}`).
 * New Relic has no show endpoint: clients list with `filter[ids]`.
 */
export function registerBrowserApplicationRoutes(app: FastifyInstance, deps: BrowserApplicationRouteDeps): void {
  restRoute(app, 'GET', '/v2/browser_applications', async (request, ctx) => {
    const params = RestParams.from(request.query, request.body);
    const { pageItems, pagination } = entityListPage(deps.browserApplications.list(ctx.accountId), params, { what: 'browser application', nameOf: (b) => b.name });
    return { body: { browser_applications: pageItems.map((b) => browserObject(b, request)) }, pagination };
  });

  // New Relic creates standalone applications over REST with the Lite agent only (page loads);
  // NerdGraph's create takes the other loader types.
  restRoute(app, 'POST', '/v2/browser_applications', async (request, ctx) => {
    const name = nameFromCreateBody(request.body, RestParams.from(request.query, request.body), ['browser_application']);
    let created: BrowserApplication;
    try {
      created = await deps.browserApplications.create({ accountId: ctx.accountId, name, settings: { loaderType: 'LITE' } });
    } catch (error) {
      if (error instanceof RangeError) throw RestError.unprocessable(`Invalid browser application: ${error.message}`);
      throw error;
    }
    return { status: 201, body: { browser_application: browserObject(created, request) } };
  });
}

/** The browser application object (reference §11), its loader pointing at the origin the client used. */
function browserObject(b: BrowserApplication, request: FastifyRequest): Record<string, unknown> {
  return {
    id: b.id,
    name: b.name,
    browser_monitoring_key: b.browserMonitoringKey,
    loader_script: browserLoaderScript({
      accountId: b.accountId,
      applicationId: b.id,
      browserMonitoringKey: b.browserMonitoringKey,
      settings: b.settings,
      origin: `${request.protocol}://${request.host}`,
    }),
  };
}
