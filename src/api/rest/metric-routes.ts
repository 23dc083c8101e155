import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import { valueNamesOf } from '../../domain/aggregate/rest-values.js';
import { resolveMetricWindow } from '../../domain/time/rest-window.js';
import type { Application, Catalog } from '../../store/catalog.js';
import type { MetricIndex, MetricScope as IndexScope } from '../../store/metric-index.js';
import type { PlanExecutor } from '../../store/plan-executor.js';
import { paginate, parsePage } from './link-header.js';
import { planMetricData, type MetricScope } from './metric-data/metric-data-plan.js';
import { shapeMetricData } from './metric-data/metric-data-shape.js';
import { RestError } from './rest-error.js';
import { ParamError, RestParams } from './rest-params.js';
import { restRoute, type RestContext } from './rest-plugin.js';

export interface MetricRouteDeps {
  readonly catalog: Catalog;
  readonly metrics: MetricIndex;
  readonly executor: PlanExecutor;
  readonly clock: Clock;
}

/**
 * Metric names one metric-data request may name: a page of the names endpoint, so a script can
 * ask for every name it was just given. New Relic documents no number.
 */
export const MAX_METRIC_DATA_NAMES = 1000;

/**
 * Values one metric-data response may hold: timeslices × the values each carries (a timeslice
 * with none counts as one). 16 metrics with all 10 generic values over 3000 slices (480 000)
 * fit, as do 1000 metrics over the default 30 minutes: 15 MB of JSON, 25 MB of XML (figures
 * from `npm run bench -- rest-limits` in docs/limits.md).
 */
export const MAX_METRIC_DATA_VALUES = 500_000;

/** Metric names per page of the names endpoint (New Relic's documented page size). */
export const METRIC_NAMES_PER_PAGE = 1000;

/**
 * Response headers carrying the NRQL of each metric stay under this many bytes in all: Node's
 * HTTP client refuses responses whose headers exceed 16 KiB.
 */
export const NRQL_HEADER_BUDGET = 8 * 1024;

/**
 * Metric names and metric data, for an application and for one host or instance of it:
 * `…/metrics` and `…/metrics/data` under `/v2/applications/:id`, `…/hosts/:hostId` and
 * `…/instances/:instanceId`.
 */
export function registerMetricRoutes(app: FastifyInstance, deps: MetricRouteDeps): void {
  const bases: [string, (request: FastifyRequest, ctx: RestContext) => MetricScope][] = [
    ['/v2/applications/:id', (request, ctx) => ({ appId: applicationOf(deps.catalog, request, ctx).id })],
    ['/v2/applications/:id/hosts/:hostId', (request, ctx) => hostScope(deps.catalog, request, ctx)],
    ['/v2/applications/:id/instances/:instanceId', (request, ctx) => instanceScope(deps.catalog, request, ctx)],
  ];
  for (const [base, scopeOf] of bases) {
    restRoute(app, 'GET', `${base}/metrics`, async (request, ctx) =>
      metricNames(deps, scopeOf(request, ctx), paramsOf(request)),
    );
    restRoute(app, 'GET', `${base}/metrics/data`, async (request, ctx) =>
      metricData(deps, ctx, scopeOf(request, ctx), paramsOf(request)),
    );
  }
}

const paramsOf = (request: FastifyRequest) => RestParams.from(request.query, request.body);

function metricNames(deps: MetricRouteDeps, scope: MetricScope, params: RestParams) {
  const filter = params.one('name');
  const names = deps.metrics.metricNames(indexScope(scope)).filter((n) => filter === undefined || n.includes(filter));
  const pageNumber = parsePage(params.one('page'));
  const page = paginate(names, pageNumber, METRIC_NAMES_PER_PAGE);
  return {
    body: { metrics: page.pageItems.map((name) => ({ name, values: [...valueNamesOf(name)] })) },
    pagination: { page: pageNumber, lastPage: page.lastPage },
  };
}

/**
 * The parameters of a metric data request, APM or mobile: `names[]` (required, at most
 * MAX_METRIC_DATA_NAMES; `example` is shown when none is given), `values[]`, `raw`, and the
 * window of `from`, `to`, `period` and `summarize`.
 */
export function metricDataRequest(params: RestParams, nowMs: number, example: string) {
  const names = params.allOf('names', 'name');
  if (names.length === 0) throw new ParamError('names[]', `names[] is required: give one or more metric names, e.g. names[]=${example}`);
  if (names.length > MAX_METRIC_DATA_NAMES) {
    throw new ParamError('names[]', `Too many metric names: ${names.length} given, at most ${MAX_METRIC_DATA_NAMES} per request; split the names over several requests`);
  }
  const requestedValues = params.allOf('values');
  const summarize = params.bool('summarize') ?? false;
  const raw = params.bool('raw') ?? false;
  const window = resolveMetricWindow({ from: params.one('from'), to: params.one('to'), period: params.one('period'), summarize }, nowMs);
  return { names, values: requestedValues.length > 0 ? requestedValues : undefined, raw, window };
}

async function metricData(deps: MetricRouteDeps, ctx: RestContext, scope: MetricScope, params: RestParams) {
  const { names, values: requestedValues, raw, window } = metricDataRequest(params, deps.clock.now(), 'HttpDispatcher');

  const found: { name: string; id: number }[] = [];
  const notFound: string[] = [];
  const lookup = indexScope(scope);
  for (const name of names) {
    const id = deps.metrics.metricId(name);
    if (id !== undefined && deps.metrics.knows(lookup, name)) found.push({ name, id });
    else notFound.push(name);
  }

  const planned = planMetricData({
    accountId: ctx.accountId,
    scope,
    metrics: found,
    values: requestedValues,
    window,
  });
  const values = planned.metrics.reduce((sum, m) => sum + window.slices.length * Math.max(1, m.values.length), 0);
  if (values > MAX_METRIC_DATA_VALUES) {
    throw new ParamError('names[]', `The response would hold ${values} values (${planned.metrics.length} metrics × ${window.slices.length} timeslices × their values); at most ${MAX_METRIC_DATA_VALUES} are returned: ask for fewer names[] or values[], a shorter range, a larger period, or summarize=true`);
  }
  const result = found.length > 0
    ? await deps.executor.aggregate(planned.plan)
    : { rowCount: 0, groups: [[]], buckets: [], aggregates: planned.plan.aggregates.map(() => []) };
  const body = shapeMetricData({
    planned, result, notFound, raw,
    requestFromMs: window.requestFromMs,
    requestToMs: window.requestToMs,
    slices: window.slices,
    summarize: window.summarize,
  });
  // Which resolution answered: 1-minute timeslices, hourly rollups, or both (whole hours from rollups).
  return { body, headers: { ...nrqlHeaders(planned.metrics.map((m) => m.nrql)), 'x-timeslice-resolution': result.resolution ?? 'minute' } };
}

/**
 * `X-Timeslice-NRQL`: one header line per metric with the NRQL query giving the same numbers.
 * Text outside printable ASCII cannot travel in a header as is: when any query has some, every
 * line is sent percent-encoded and `X-Timeslice-NRQL-Encoding: uri` says so. Lines beyond the
 * byte budget are left out and counted in `X-Timeslice-NRQL-Omitted`.
 */
export function nrqlHeaders(queries: readonly (string | undefined)[]): Record<string, string | string[]> {
  const present = queries.filter((q): q is string => q !== undefined);
  const encode = present.some((q) => !/^[\x20-\x7e]*$/.test(q));
  const lines: string[] = [];
  let bytes = 0;
  for (const query of present) {
    const line = encode ? encodeURIComponent(query) : query;
    if (bytes + line.length > NRQL_HEADER_BUDGET) break;
    bytes += line.length;
    lines.push(line);
  }
  const headers: Record<string, string | string[]> = {};
  if (lines.length > 0) headers['x-timeslice-nrql'] = lines;
  if (encode) headers['x-timeslice-nrql-encoding'] = 'uri';
  if (lines.length < present.length) headers['x-timeslice-nrql-omitted'] = String(present.length - lines.length);
  return headers;
}

function idParam(request: FastifyRequest, name: string, what: string): number {
  const text = (request.params as Record<string, string | undefined>)[name] ?? '';
  const id = /^[0-9]{1,15}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(id)) throw RestError.notFound(`No ${what} with id '${text}'`);
  return id;
}

/** An application of the caller's account; another account's application does not exist for it. */
export function applicationOf(catalog: Catalog, request: FastifyRequest, ctx: RestContext): Application {
  const id = idParam(request, 'id', 'application');
  const app = catalog.application(id);
  if (!app || app.accountId !== ctx.accountId) throw RestError.notFound(`No application with id ${id}`);
  return app;
}

function hostScope(catalog: Catalog, request: FastifyRequest, ctx: RestContext): MetricScope {
  const app = applicationOf(catalog, request, ctx);
  const hostId = idParam(request, 'hostId', 'host');
  const host = catalog.hostsOf(app.id).find((h) => h.id === hostId);
  if (!host) throw RestError.notFound(`No host with id ${hostId} in application ${app.id}`);
  return { appId: app.id, host: { id: host.id, name: host.name } };
}

function instanceScope(catalog: Catalog, request: FastifyRequest, ctx: RestContext): MetricScope {
  const app = applicationOf(catalog, request, ctx);
  const instanceId = idParam(request, 'instanceId', 'instance');
  const instance = catalog.instancesOf(app.id).find((i) => i.id === instanceId);
  if (!instance) throw RestError.notFound(`No instance with id ${instanceId} in application ${app.id}`);
  return { appId: app.id, instance: { id: instance.id } };
}

function indexScope(scope: MetricScope): IndexScope {
  return {
    appId: scope.appId,
    ...(scope.host ? { hostId: scope.host.id } : {}),
    ...(scope.instance ? { instanceId: scope.instance.id } : {}),
  };
}
