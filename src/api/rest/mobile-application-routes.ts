import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import { formatRestTime } from '../../domain/time/iso8601.js';
import type { MobileApplication, MobileApplications } from '../../store/mobile-applications.js';
import type { PlanExecutor } from '../../store/plan-executor.js';
import { nameFromCreateBody } from './entity-body.js';
import { entityListPage } from './entity-list.js';
import { pathId } from './id-params.js';
import { paginate, parsePage } from './link-header.js';
import { shapeMetricData } from './metric-data/metric-data-shape.js';
import { metricDataRequest, METRIC_NAMES_PER_PAGE } from './metric-routes.js';
import { nrqlHeaders } from './metric-routes.js';
import { mobileHealthStatus, mobileSummaries, type MobileSummary } from '../../applications/summaries/mobile-summary.js';
import { MOBILE_METRICS, mobileMetricNames, planMobileMetricData } from './mobile-data.js';
import { threeSignificant } from './number-format.js';
import { RestError } from './rest-error.js';
import { RestParams } from './rest-params.js';
import { restRoute, type RestContext } from './rest-plugin.js';

export interface MobileApplicationRouteDeps {
  readonly executor: PlanExecutor;
  readonly clock: Clock;
  readonly mobileApplications: MobileApplications;
}

/**
 * Mobile applications: list (`filter[name]`, `filter[ids]`, paged), show, create, and metric
 * names and data derived from their `Mobile` events (mobile-data.ts). Wrapped as
 * `applications` / `application`, as New Relic's schema and two of three clients have it.
 */
export function registerMobileApplicationRoutes(app: FastifyInstance, deps: MobileApplicationRouteDeps): void {
  restRoute(app, 'GET', '/v2/mobile_applications', async (request, ctx) => {
    const params = RestParams.from(request.query, request.body);
    const { pageItems, pagination } = entityListPage(deps.mobileApplications.list(ctx.accountId), params, { what: 'mobile application', nameOf: (m) => m.name });
    const summaries = await mobileSummaries(deps.executor, ctx.accountId, pageItems, deps.clock.now());
    return { body: { applications: pageItems.map((m) => mobileObject(m, summaries.get(m.id))) }, pagination };
  });

  restRoute(app, 'GET', '/v2/mobile_applications/:id', async (request, ctx) => {
    const mobile = mobileOf(deps, request, ctx);
    const summaries = await mobileSummaries(deps.executor, ctx.accountId, [mobile], deps.clock.now());
    return { body: { application: { ...mobileObject(mobile, summaries.get(mobile.id)), application_token: mobile.applicationToken } } };
  });

  restRoute(app, 'POST', '/v2/mobile_applications', async (request, ctx) => {
    const name = nameFromCreateBody(request.body, RestParams.from(request.query, request.body), ['mobile_application', 'application']);
    let created: MobileApplication;
    try {
      created = await deps.mobileApplications.create(ctx.accountId, name);
    } catch (error) {
      if (error instanceof RangeError) throw RestError.unprocessable(`Invalid mobile application: ${error.message}`);
      throw error;
    }
    return { status: 201, body: { application: { ...mobileObject(created, undefined), application_token: created.applicationToken } } };
  });

  restRoute(app, 'GET', '/v2/mobile_applications/:id/metrics', async (request, ctx) => {
    const mobile = mobileOf(deps, request, ctx);
    const params = RestParams.from(request.query, request.body);
    const filter = params.one('name');
    const pageNumber = parsePage(params.one('page'));
    const names = (await mobileMetricNames(deps.executor, ctx.accountId, mobile, deps.clock.now())).filter((n) => filter === undefined || n.includes(filter));
    const page = paginate(names, pageNumber, METRIC_NAMES_PER_PAGE);
    const valuesOf = (name: string) => MOBILE_METRICS.find((m) => m.name === name)!.values.map((v) => v.name);
    return {
      body: { metrics: page.pageItems.map((name) => ({ name, values: valuesOf(name) })) },
      pagination: { page: pageNumber, lastPage: page.lastPage },
    };
  });

  restRoute(app, 'GET', '/v2/mobile_applications/:id/metrics/data', async (request, ctx) => {
    const mobile = mobileOf(deps, request, ctx);
    const { names, values: requestedValues, raw, window } = metricDataRequest(RestParams.from(request.query, request.body), deps.clock.now(), 'Mobile/Crash/All');
    const known = new Set(await mobileMetricNames(deps.executor, ctx.accountId, mobile, deps.clock.now()));
    const found = names.filter((n) => known.has(n));
    const planned = planMobileMetricData({
      accountId: ctx.accountId, app: mobile, metrics: found, values: requestedValues, window,
    });
    const result = found.length > 0
      ? await deps.executor.aggregate(planned.plan)
      : { rowCount: 0, groups: [[]], buckets: [], aggregates: planned.plan.aggregates.map(() => []) };
    return {
      body: shapeMetricData({
        planned, result, raw,
        notFound: names.filter((n) => !known.has(n)),
        requestFromMs: window.requestFromMs,
        requestToMs: window.requestToMs,
        slices: window.slices,
        summarize: window.summarize,
      }),
      headers: nrqlHeaders(planned.metrics.map((m) => m.nrql)),
    };
  });
}

function mobileOf(deps: MobileApplicationRouteDeps, request: FastifyRequest, ctx: RestContext): MobileApplication {
  const id = pathId(request, 'id', 'mobile application');
  const mobile = deps.mobileApplications.get(id);
  if (!mobile || mobile.accountId !== ctx.accountId) throw RestError.notFound(`No mobile application with id ${id}`);
  return mobile;
}

/**
 * The mobile application object (reference §10). One with a `Mobile` event in the last 10
 * minutes reports: `last_reported_at` is its newest event, and it has `mobile_summary` and
 * `crash_summary` over the last 30 minutes. Only what `Mobile` events tell is summarised:
 * users (distinct `deviceUuid`), launches, interaction time, crashes; the HTTP request figures
 * (throughput, response time, calls per session, failure and error rates) come from request
 * data Timeslice does not take, and are left out. Crashes are never marked resolved, so all
 * are unresolved. An average or rate of nothing (no interactions, no launches) shows as 0.
 */
function mobileObject(mobile: MobileApplication, summary: MobileSummary | undefined): Record<string, unknown> {
  const object: Record<string, unknown> = {
    id: mobile.id,
    name: mobile.name,
    health_status: mobileHealthStatus(summary),
    reporting: summary !== undefined,
  };
  if (summary) {
    object.last_reported_at = formatRestTime(summary.lastEventMs);
    object.mobile_summary = {
      active_users: summary.activeUsers,
      launch_count: summary.data.appLaunchCount,
      interaction_time: threeSignificant(summary.interactionTime ?? 0),
    };
    object.crash_summary = {
      supports_crash_data: true,
      unresolved_crash_count: summary.data.crashCount,
      crash_count: summary.data.crashCount,
      crash_rate: threeSignificant(summary.data.crashRate ?? 0),
    };
  }
  return object;
}
