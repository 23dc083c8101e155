import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import { hashKey } from '../../security/keys.js';
import type { Catalog } from '../../store/catalog.js';
import { linkHeader } from './link-header.js';
import { RateLimiter } from '../../http/rate-limit.js';
import { WindowError } from '../../domain/time/rest-window.js';
import { RestError } from './rest-error.js';
import { QueryRefusedError } from '../../nrql/query-admission.js';
import { StoreUnavailableError } from '../../store/plan-executor.js';
import { ParamError } from './rest-params.js';
import type { ApiUsageRecorder } from './api-usage.js';
import { addSunsetHooks, graphqlUrlOf, isRestV2Path, pathOf, type SunsetMode } from './sunset.js';
import { toXml, xmlDocument } from './xml.js';

export type RestFormat = 'json' | 'xml';

export interface RestContext {
  readonly accountId: number;
  readonly format: RestFormat;
  /** SHA-256 of the key that authenticated the request, as the catalog stores it. */
  readonly keyHash: string;
}

export interface RestResult {
  /** The JSON model, e.g. `{ application: {…}, links: {…} }`; rendered as XML for `.xml`. */
  body: Record<string, unknown>;
  /** 200 unless given. */
  status?: number;
  headers?: Record<string, string | string[]>;
  /** Adds the `Link` header for this page, built from the request's own URL. */
  pagination?: { page: number; lastPage: number };
}

/** `reply` is there for what a result cannot say; a handler that sends itself must still resolve. */
export type RestHandler = (request: FastifyRequest, ctx: RestContext, reply: FastifyReply) => Promise<RestResult>;

export interface RestV2Deps {
  readonly catalog: Pick<Catalog, 'accountForUserKey'>;
  readonly clock: Clock;
  /** Per API key; New Relic's documented 1000 when not given. Ignored when `limiter` is given. */
  readonly rateLimitPerMinute?: number;
  /** The budget per key, when it is shared with other plugins (the other port, Deployments v0). */
  readonly limiter?: RateLimiter;
  /** End of life (sunset.ts): its headers on every `/v2` response, and 410 once past; off when not given. */
  readonly sunset?: SunsetMode;
  /** Records every `/v2` call as a `TimesliceApiCall` event (api-usage.ts). */
  readonly usage?: ApiUsageRecorder;
}

/** Request bodies are small JSON documents (an application's settings, a deployment). */
export const REST_BODY_LIMIT = 1024 * 1024;

const CONTENT_TYPE: Readonly<Record<RestFormat, string>> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
};

interface RestState {
  readonly catalog: Pick<Catalog, 'accountForUserKey'>;
  readonly limiter: RateLimiter;
  /** Every registered REST route, so that a wrong method can be told from a wrong path. */
  readonly routes: { readonly method: string; readonly pattern: RegExp }[];
}

const kRestState = Symbol('timeslice.restV2');
const contexts = new WeakMap<FastifyRequest, RestContext>();

/**
 * REST v2 plumbing: authentication, rate limiting, formats and the error shape. Register it on
 * the API app (no prefix) and await it; then add endpoints with `restRoute` on that instance or
 * any plugin inside it. It also answers every unmatched `/v2/…` request (404, or 405 when only
 * the method is wrong) in the error shape.
 */
export function restV2Plugin(deps: RestV2Deps): FastifyPluginAsync {
  const plugin: FastifyPluginAsync = async (app) => {
    const state: RestState = {
      catalog: deps.catalog,
      limiter: deps.limiter ?? new RateLimiter(deps.clock, deps.rateLimitPerMinute),
      routes: [],
    };
    app.decorate(kRestState, state);
    if (deps.sunset) {
      addSunsetHooks(app, {
        mode: deps.sunset, clock: deps.clock, api: 'REST v2', applies: isRestV2Path, graphqlUrl: graphqlUrlOf,
        sendGone: (request, reply, error) => sendError(reply, formatOfPath(pathOf(request.url)), error),
      });
    }
    deps.usage?.addHooks(app, 'REST v2', isRestV2Path);
    await app.register(
      async (v2) => {
        v2.setNotFoundHandler((request, reply) => sendError(reply, formatOfPath(pathOf(request.url)), noRoute(state, request)));
        // Fastify reads the body of an unmatched request too; what is wrong with it matters less
        // than there being no such endpoint.
        v2.setErrorHandler((error, request, reply) =>
          sendError(reply, formatOfPath(pathOf(request.url)), request.is404 ? noRoute(state, request) : asRestError(error, request)),
        );
      },
      { prefix: '/v2' },
    );
  };
  // Like fastify-plugin: the decoration must be visible to the instance that registered us,
  // where the routes will be added.
  Object.assign(plugin, { [Symbol.for('skip-override')]: true });
  return plugin;
}

/**
 * Registers `METHOD path.json` and `METHOD path.xml` (`path` without suffix, e.g.
 * `/v2/applications/:id`). Before the body is read the request is authenticated (user key in
 * `X-Api-Key` or `Api-Key`) and counted against its key's rate limit. The handler's result is
 * sent in the suffix's format whatever `Accept` says; a thrown `RestError` becomes its status
 * and error body, and anything else a logged 500.
 */
export function restRoute(
  app: FastifyInstance,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  path: string,
  handler: RestHandler,
): void {
  if (!app.hasDecorator(kRestState)) {
    throw new Error('restRoute: register restV2Plugin on this instance or a parent first, and await it');
  }
  if (/\.(json|xml)$/.test(path)) throw new Error(`restRoute: give ${path} without its .json/.xml suffix`);
  const state = app.getDecorator<RestState>(kRestState);
  for (const format of ['json', 'xml'] as const) {
    const url = `${path}.${format}`;
    state.routes.push({ method, pattern: routePattern(url) });
    app.route({
      method,
      url,
      bodyLimit: REST_BODY_LIMIT,
      onRequest: async (request) => {
        dropEmptyBodyContentType(request);
        const { accountId, keyHash } = authenticate(state, request);
        const decision = state.limiter.take(keyHash);
        if (!decision.allowed) throw RestError.rateLimited(state.limiter.limitPerMinute, decision.headers);
        contexts.set(request, { accountId, format, keyHash });
      },
      handler: async (request, reply) => {
        const ctx = contexts.get(request);
        if (ctx === undefined) throw new Error('REST context missing: the onRequest hook did not run');
        const result = await handler(request, ctx, reply);
        if (reply.sent) return reply;
        for (const [name, value] of Object.entries(result.headers ?? {})) reply.header(name, value);
        if (result.pagination) {
          const link = linkHeader(withBodyParameters(requestUrl(request), request.body), result.pagination.page, result.pagination.lastPage);
          if (link !== undefined) reply.header('link', link);
        }
        return send(reply, format, result.status ?? 200, result.body);
      },
      errorHandler: (error, request, reply) => {
        sendError(reply, format, asRestError(error, request));
      },
    });
  }
}

/**
 * A GET's form-body parameters (`curl -X GET … -d 'filter[name]=x'`) added to its URL's query, so
 * the `Link` targets keep the filters when the client requests them without a body.
 */
function withBodyParameters(url: string, body: unknown): string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return url;
  const query = new URL(url, 'http://relative.invalid').searchParams;
  const added = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) {
    if (query.has(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) if (typeof v === 'string') added.append(name, v);
  }
  const extra = added.toString();
  return extra === '' ? url : `${url}${url.includes('?') ? '&' : '?'}${extra}`;
}

/** The absolute URL the client used, so that `Link` targets can be requested as they are. */
export function requestUrl(request: FastifyRequest): string {
  return request.host ? `${request.protocol}://${request.host}${request.url}` : request.url;
}

function authenticate(state: RestState, request: FastifyRequest): { accountId: number; keyHash: string } {
  // Node has lower-cased the names; both headers are tried because clients send either.
  const keys = [request.headers['x-api-key'], request.headers['api-key']]
    .flat()
    .map((k) => k?.trim())
    .filter((k): k is string => k !== undefined && k !== '');
  if (keys.length === 0) throw RestError.unauthorized('missing');
  for (const key of keys) {
    const accountId = state.catalog.accountForUserKey(key);
    if (accountId !== undefined) return { accountId, keyHash: hashKey(key) };
  }
  throw RestError.unauthorized('invalid');
}

/**
 * Clients that label every request `application/json` (a DELETE included) send no body with it;
 * Fastify would refuse the empty JSON with a 400. No body means nothing to parse.
 */
function dropEmptyBodyContentType(request: FastifyRequest): void {
  const headers = request.raw.headers;
  const noBody =
    headers['transfer-encoding'] === undefined &&
    (headers['content-length'] === undefined || headers['content-length'] === '0');
  if (noBody) delete headers['content-type'];
}

function asRestError(error: unknown, request: FastifyRequest): RestError {
  if (error instanceof RestError) return error;
  if (error instanceof QueryRefusedError) return new RestError(429, error.message, undefined, { 'retry-after': String(error.retryAfterSeconds) });
  if (error instanceof StoreUnavailableError) return new RestError(503, error.message, undefined, { 'retry-after': '5' });
  // A parameter or time window the caller got wrong, wherever a route read it.
  if (error instanceof ParamError || error instanceof WindowError) return RestError.unprocessable(error.message);
  const { code, statusCode, message } = (error ?? {}) as Partial<FastifyError>;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return RestError.tooLarge(REST_BODY_LIMIT);
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return RestError.unsupportedMediaType(request.headers['content-type'] ?? '');
  }
  // Fastify's JSON parser drops the parser's detail, so there is no position to report.
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY') return RestError.malformedJson();
  // Fastify's other refusals of a request (bad Content-Length, forbidden prototype keys, …) say
  // what is wrong in words fit for the caller.
  if (statusCode !== undefined && statusCode >= 400 && statusCode < 500 && message) return new RestError(statusCode, message);
  request.log.error({ err: error }, 'REST v2 request failed');
  return RestError.internal();
}

function send(reply: FastifyReply, format: RestFormat, status: number, body: Record<string, unknown>): FastifyReply {
  return reply
    .code(status)
    .header('content-type', CONTENT_TYPE[format])
    .send(format === 'xml' ? toXml(body) : JSON.stringify(body));
}

function sendError(reply: FastifyReply, format: RestFormat, error: RestError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply
    .code(error.status)
    .header('content-type', CONTENT_TYPE[format])
    .send(format === 'xml' ? xmlDocument('error', error.body.error) : JSON.stringify(error.body));
}

function formatOfPath(path: string): RestFormat {
  return path.endsWith('.xml') ? 'xml' : 'json';
}

/** A route URL as a matcher for concrete paths: each `:param` is one non-empty path segment piece. */
function routePattern(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z_][A-Za-z0-9_]*)/)
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

function noRoute(state: RestState, request: FastifyRequest): RestError {
  const path = pathOf(request.url);
  const allowed = allowedMethods(state, path);
  return allowed.length > 0 && !allowed.includes(request.method)
    ? RestError.methodNotAllowed(request.method, path, allowed)
    : RestError.routeNotFound(request.method, path);
}

function allowedMethods(state: RestState, path: string): string[] {
  const methods = new Set(state.routes.filter((r) => r.pattern.test(path)).map((r) => r.method));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
