import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Application, Catalog, Host, Instance } from '../../store/catalog.js';
import type { MetricIndex } from '../../store/metric-index.js';
import type { PlanExecutor } from '../../store/plan-executor.js';
import { healthStatus, isReporting, partSummaries, type ApplicationSummary } from '../../applications/application-summary.js';
import { entityListPage } from './entity-list.js';
import { pathId } from './id-params.js';
import { applicationOf } from './metric-routes.js';
import { threeSignificant, twoDecimals } from './number-format.js';
import { RestError } from './rest-error.js';
import { RestParams } from './rest-params.js';
import { restRoute, type RestContext } from './rest-plugin.js';

export interface HostRouteDeps {
  readonly catalog: Catalog;
  readonly metrics: MetricIndex;
  readonly executor: PlanExecutor;
  readonly clock: Clock;
}

/** URI templates New Relic puts beside host objects (reference §6.1). */
const HOST_LINKS = {
  'application_host.application': '/v2/applications/{application_id}',
  'application_host.application_instances': '/v2/application/{application_id}/instances?ids={instance_ids}',
  'application_host.application_instance': '/v2/application/{application_id}/instances/{instance_id}',
  'application_host.server': '/v2/servers/{server_id}',
};

/** URI templates New Relic puts beside instance objects (reference §6.2, its `{instance_id}` included). */
const INSTANCE_LINKS = {
  'application_instance.application': '/v2/applications/{application_id}',
  'application_instance.application_host': '/v2/application/{application_id}/hosts/{instance_id}',
  'application_instance.server': '/v2/servers/{server_id}',
};

/**
 * An application's hosts and instances: `GET /v2/applications/{id}/hosts` and `…/instances`
 * (filters `filter[hostname]`, `filter[ids]`, paged) and one of each by id. Their metric names
 * and data are `metric-routes.ts`.
 */
export function registerHostRoutes(app: FastifyInstance, deps: HostRouteDeps): void {
  restRoute(app, 'GET', '/v2/applications/:id/hosts', async (request, ctx) => {
    const application = applicationOf(deps.catalog, request, ctx);
    const params = RestParams.from(request.query, request.body);
    const { pageItems, pagination } = entityListPage(deps.catalog.hostsOf(application.id), params, { what: 'host', nameOf: (h) => h.name, nameParam: 'filter[hostname]' });
    return { body: { application_hosts: await hostObjects(deps, ctx, application, pageItems), links: HOST_LINKS }, pagination };
  });

  restRoute(app, 'GET', '/v2/applications/:id/hosts/:hostId', async (request, ctx) => {
    const application = applicationOf(deps.catalog, request, ctx);
    const [object] = await hostObjects(deps, ctx, application, [hostOf(deps.catalog, application, request)]);
    return { body: { application_host: object, links: HOST_LINKS } };
  });

  restRoute(app, 'GET', '/v2/applications/:id/instances', async (request, ctx) => {
    const application = applicationOf(deps.catalog, request, ctx);
    const params = RestParams.from(request.query, request.body);
    const hostNames = hostNamesOf(deps.catalog, application);
    const { pageItems, pagination } = entityListPage(deps.catalog.instancesOf(application.id), params, {
      what: 'instance',
      nameOf: (i) => hostNames.get(i.hostId) ?? '',
      nameParam: 'filter[hostname]',
    });
    return { body: { application_instances: await instanceObjects(deps, ctx, application, pageItems), links: INSTANCE_LINKS }, pagination };
  });

  restRoute(app, 'GET', '/v2/applications/:id/instances/:instanceId', async (request, ctx) => {
    const application = applicationOf(deps.catalog, request, ctx);
    const [object] = await instanceObjects(deps, ctx, application, [instanceOf(deps.catalog, application, request)]);
    return { body: { application_instance: object, links: INSTANCE_LINKS } };
  });
}

/** A host of the application; one of another application (or account) does not exist for it. */
function hostOf(catalog: Catalog, application: Application, request: FastifyRequest): Host {
  const id = pathId(request, 'hostId', 'host');
  const host = catalog.hostsOf(application.id).find((h) => h.id === id);
  if (!host) throw RestError.notFound(`No host with id ${id} in application ${application.id}`);
  return host;
}

function instanceOf(catalog: Catalog, application: Application, request: FastifyRequest): Instance {
  const id = pathId(request, 'instanceId', 'instance');
  const instance = catalog.instancesOf(application.id).find((i) => i.id === id);
  if (!instance) throw RestError.notFound(`No instance with id ${id} in application ${application.id}`);
  return instance;
}

const hostNamesOf = (catalog: Catalog, application: Application) => new Map(catalog.hostsOf(application.id).map((h) => [h.id, h.name]));

/**
 * Host objects (reference §6.1). A host that reported in the last 10 minutes is summarised like
 * its application, over its own rows: `application_summary` with the instances on it that
 * report, and `end_user_summary` when it has browser data. A host that does not report has
 * neither and is gray. `links.application_instances` are its reporting instances, or all of
 * them when it does not report (as the application object lists them).
 */
async function hostObjects(deps: HostRouteDeps, ctx: RestContext, application: Application, hosts: readonly Host[]): Promise<Record<string, unknown>[]> {
  const now = deps.clock.now();
  const reporting = hosts.filter((h) => isReporting(deps.metrics.lastReportedAt({ appId: application.id, hostId: h.id }), now));
  const summaries = await partSummaries(deps, ctx.accountId, application.id, { by: 'hostId', ids: reporting.map((h) => h.id) }, now);
  const instances = deps.catalog.instancesOf(application.id);
  return hosts.map((host) => {
    const summary = summaries.get(host.id);
    const own = instances.filter((i) => i.hostId === host.id);
    const live = own.filter((i) => isReporting(deps.metrics.lastReportedAt({ appId: application.id, instanceId: i.id }), now));
    return {
      id: host.id,
      application_name: application.name,
      host: host.name,
      language: application.language ?? 'unknown',
      health_status: healthStatus(summary),
      ...summaryMembers(summary, live.length),
      links: { application: application.id, application_instances: (summary ? live : own).map((i) => i.id) },
    };
  });
}

/** Instance objects (reference §6.2), summarised as hosts are; `port` is null when the agent did not say. */
async function instanceObjects(
  deps: HostRouteDeps,
  ctx: RestContext,
  application: Application,
  instances: readonly Instance[],
): Promise<Record<string, unknown>[]> {
  const now = deps.clock.now();
  const reporting = instances.filter((i) => isReporting(deps.metrics.lastReportedAt({ appId: application.id, instanceId: i.id }), now));
  const summaries = await partSummaries(deps, ctx.accountId, application.id, { by: 'instanceId', ids: reporting.map((i) => i.id) }, now);
  const hostNames = hostNamesOf(deps.catalog, application);
  return instances.map((instance) => {
    const summary = summaries.get(instance.id);
    return {
      id: instance.id,
      application_name: application.name,
      host: hostNames.get(instance.hostId) ?? null,
      port: instance.port,
      language: application.language ?? 'unknown',
      health_status: healthStatus(summary),
      ...summaryMembers(summary, 1),
      links: { application: application.id, application_host: instance.hostId },
    };
  });
}

/** The reduced summaries of hosts and instances: no Apdex target, host count or concurrent instances. */
function summaryMembers(summary: ApplicationSummary | undefined, instanceCount: number): Record<string, unknown> {
  if (!summary) return {};
  return {
    application_summary: {
      response_time: threeSignificant(summary.responseTime),
      throughput: threeSignificant(summary.throughput),
      error_rate: threeSignificant(summary.errorRate),
      apdex_score: twoDecimals(summary.apdexScore),
      instance_count: instanceCount,
    },
    ...(summary.endUser
      ? { end_user_summary: {
        response_time: threeSignificant(summary.endUser.responseTime),
        throughput: threeSignificant(summary.endUser.throughput),
        apdex_score: twoDecimals(summary.endUser.apdexScore),
      } }
      : {}),
  };
}
