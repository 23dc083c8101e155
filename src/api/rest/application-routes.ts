import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { formatRestTime } from '../../domain/time/iso8601.js';
import { ApplicationNotFoundError, type Application, type ApplicationChanges, type Catalog } from '../../store/catalog.js';
import type { MetricIndex } from '../../store/metric-index.js';
import type { PlanExecutor } from '../../store/plan-executor.js';
import { applicationParts, applicationSummaries, deletionRefusal, healthStatus, isReporting, type ApplicationSummary } from '../../applications/application-summary.js';
import { entityListPage, type EntityListPage } from './entity-list.js';
import { applicationOf } from './metric-routes.js';
import { threeSignificant, twoDecimals } from './number-format.js';
import { RestError } from './rest-error.js';
import { RestParams } from './rest-params.js';
import { restRoute, type RestHandler } from './rest-plugin.js';

export interface ApplicationRouteDeps {
  readonly catalog: Catalog;
  readonly metrics: MetricIndex;
  readonly executor: PlanExecutor;
  readonly clock: Clock;
}

/** Applications per page (New Relic's page size; two third-party clients were written against it). */
export const APPLICATIONS_PER_PAGE = 200;

/** URI templates New Relic puts beside application objects; clients ignore them, fidelity keeps them. */
const APPLICATION_LINKS = {
  'application.servers': '/v2/servers?ids={server_ids}',
  'application.server': '/v2/servers/{server_id}',
  'application.application_hosts': '/v2/application/{application_id}/hosts?ids={host_ids}',
  'application.application_host': '/v2/application/{application_id}/hosts/{host_id}',
  'application.application_instances': '/v2/application/{application_id}/instances?ids={instance_ids}',
  'application.application_instance': '/v2/application/{application_id}/instances/{instance_id}',
};

export function registerApplicationRoutes(app: FastifyInstance, deps: ApplicationRouteDeps): void {
  const list: RestHandler = async (request, ctx) => {
    const params = RestParams.from(request.query, request.body);
    const { pageItems, pagination } = applicationsPage(deps, deps.catalog.applications(ctx.accountId), params);
    const objects = await applicationObjects(deps, ctx.accountId, pageItems);
    const body: Record<string, unknown> = { applications: objects };
    if (params.bool('exclude_links') !== true) body.links = APPLICATION_LINKS;
    return { body, pagination };
  };
  restRoute(app, 'GET', '/v2/applications', list);
  // Ansible's newrelic_deployment looks an application up with `filter[name]` as form data and no
  // method, which its HTTP helper sends as a POST; New Relic answers it with the list.
  restRoute(app, 'POST', '/v2/applications', list);

  restRoute(app, 'GET', '/v2/applications/:id', async (request, ctx) => {
    const application = applicationOf(deps.catalog, request, ctx);
    const [object] = await applicationObjects(deps, ctx.accountId, [application]);
    return { body: { application: object, links: APPLICATION_LINKS } };
  });

  restRoute(app, 'PUT', '/v2/applications/:id', async (request, ctx) => {
    const application = applicationOf(deps.catalog, request, ctx);
    const changes = applicationChanges(request.body, RestParams.from(request.query, request.body));
    let updated: Application;
    try {
      updated = await deps.catalog.updateApplication(application.id, changes);
    } catch (error) {
      if (error instanceof RangeError) throw RestError.unprocessable(`Invalid application settings: ${error.message}`);
      if (error instanceof ApplicationNotFoundError) throw RestError.notFound(`No application with id ${application.id}`);
      throw error;
    }
    const [object] = await applicationObjects(deps, ctx.accountId, [updated]);
    return { body: { application: object, links: APPLICATION_LINKS } };
  });

  restRoute(app, 'DELETE', '/v2/applications/:id', async (request, ctx) => {
    const application = applicationOf(deps.catalog, request, ctx);
    const last = deps.metrics.lastReportedAt({ appId: application.id });
    const refusal = deletionRefusal(application.id, last, deps.clock.now());
    if (refusal) throw RestError.unprocessable(refusal.title, [refusal.detail]);
    const [object] = await applicationObjects(deps, ctx.accountId, [application]);
    try {
      await deps.catalog.deleteApplication(application.id);
    } catch (error) {
      if (error instanceof ApplicationNotFoundError) throw RestError.notFound(`No application with id ${application.id}`);
      throw error;
    }
    return { body: { application: object } };
  });
}

/**
 * List filters: `filter[name]` is a case-insensitive substring; `filter[ids]` (or the
 * `filter[id]` one docs page shows) a comma-separated id list; `filter[language]` one or more
 * comma-separated agent languages; `filter[host]` a host name the application runs on
 * (case-insensitive, whole name). Sorted by name, then id, so pages are stable; paged at
 * APPLICATIONS_PER_PAGE.
 */
function applicationsPage(deps: ApplicationRouteDeps, apps: readonly Application[], params: RestParams): EntityListPage<Application> {
  const languages = params.one('filter[language]')?.toLowerCase().split(',').map((s) => s.trim()).filter((s) => s !== '');
  const host = params.one('filter[host]')?.toLowerCase();
  return entityListPage(apps, params, {
    what: 'application',
    nameOf: (a) => a.name,
    perPage: APPLICATIONS_PER_PAGE,
    where: (a) =>
      (languages === undefined || languages.includes((a.language ?? '').toLowerCase())) &&
      (host === undefined || deps.catalog.hostsOf(a.id).some((h) => h.name.toLowerCase() === host)),
  });
}

async function applicationObjects(deps: ApplicationRouteDeps, accountId: number, apps: readonly Application[]): Promise<Record<string, unknown>[]> {
  const now = deps.clock.now();
  const reportingApps = apps.filter((a) => isReporting(deps.metrics.lastReportedAt({ appId: a.id }), now));
  const summaries = await applicationSummaries(deps, accountId, reportingApps, now);
  return apps.map((a) => applicationObject(deps, a, now, summaries.get(a.id)));
}

/**
 * The application object of REST v2 (reference §2.2). A reporting application (one with a
 * summary) carries `last_reported_at` and its summaries; one that is not has neither, and is gray.
 */
function applicationObject(deps: ApplicationRouteDeps, app: Application, now: number, summary: ApplicationSummary | undefined): Record<string, unknown> {
  const reporting = summary !== undefined;
  const { hosts, instances, liveHosts, liveInstances } = applicationParts(deps, app.id, now);
  const object: Record<string, unknown> = {
    id: app.id,
    name: app.name,
    language: app.language ?? 'unknown',
    health_status: healthStatus(summary),
    reporting,
  };
  if (summary) {
    object.last_reported_at = formatRestTime(deps.metrics.lastReportedAt({ appId: app.id })!);
    object.application_summary = {
      response_time: threeSignificant(summary.responseTime),
      throughput: threeSignificant(summary.throughput),
      error_rate: threeSignificant(summary.errorRate),
      apdex_target: app.apdexT,
      apdex_score: twoDecimals(summary.apdexScore),
      host_count: liveHosts.length,
      instance_count: liveInstances.length,
      concurrent_instance_count: liveInstances.length,
    };
    if (summary.endUser) {
      object.end_user_summary = {
        response_time: threeSignificant(summary.endUser.responseTime),
        throughput: threeSignificant(summary.endUser.throughput),
        apdex_target: app.endUserApdexT,
        apdex_score: twoDecimals(summary.endUser.apdexScore),
      };
    }
  }
  object.settings = {
    app_apdex_threshold: app.apdexT,
    end_user_apdex_threshold: app.endUserApdexT,
    enable_real_user_monitoring: app.enableRealUserMonitoring,
    use_server_side_config: app.useServerSideConfig,
  };
  object.links = {
    application_instances: (reporting ? liveInstances : instances).map((i) => i.id),
    servers: [],
    application_hosts: (reporting ? liveHosts : hosts).map((h) => h.id),
  };
  return object;
}


/**
 * The PUT body: JSON `{"application": {"name", "settings": {…}}}` as every client sends, or the
 * same as form fields (`application[name]`, `application[settings][app_apdex_threshold]`).
 * Unknown members are ignored (the REST v2 documentation says so); a wrong type is a 422.
 */
function applicationChanges(body: unknown, form: RestParams): ApplicationChanges {
  const json = isObject(body) && isObject(body.application) ? body.application : undefined;
  const settings = json && isObject(json.settings) ? json.settings : {};
  const pick = (jsonValue: unknown, formKey: string): unknown => (json ? jsonValue : form.one(formKey));
  if (!json && !form.has('application[name]') && ![...SETTING_KEYS].some((k) => form.has(`application[settings][${k}]`))) {
    throw RestError.unprocessable('The body must be an object with an "application" member, e.g. {"application": {"settings": {"app_apdex_threshold": 0.5}}}');
  }
  const changes: { -readonly [K in keyof ApplicationChanges]: ApplicationChanges[K] } = {};
  const name = pick(json?.name, 'application[name]');
  if (name !== undefined && name !== null) {
    if (typeof name !== 'string') throw RestError.unprocessable('Invalid application name: expected a string');
    changes.name = name;
  }
  const apdexT = numberSetting(pick(settings.app_apdex_threshold, 'application[settings][app_apdex_threshold]'), 'app_apdex_threshold');
  if (apdexT !== undefined) changes.apdexT = apdexT;
  const endUserT = numberSetting(pick(settings.end_user_apdex_threshold, 'application[settings][end_user_apdex_threshold]'), 'end_user_apdex_threshold');
  if (endUserT !== undefined) changes.endUserApdexT = endUserT;
  const rum = pick(settings.enable_real_user_monitoring, 'application[settings][enable_real_user_monitoring]');
  if (rum !== undefined && rum !== null) {
    if (rum === true || rum === 'true') changes.enableRealUserMonitoring = true;
    else if (rum === false || rum === 'false') changes.enableRealUserMonitoring = false;
    else throw RestError.unprocessable('Invalid enable_real_user_monitoring: expected true or false');
  }
  return changes;
}

const SETTING_KEYS = new Set(['app_apdex_threshold', 'end_user_apdex_threshold', 'enable_real_user_monitoring']);

function numberSetting(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n) || n <= 0) throw RestError.unprocessable(`Invalid ${name}: expected a positive number of seconds`);
  return n;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
