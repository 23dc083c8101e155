import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { StoreBusyError } from '../store/batch-writer.js';
import type { Application, Catalog } from '../store/catalog.js';
import { Deployments } from '../store/deployments.js';
import { formatRestTime } from '../domain/time/iso8601.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { hashKey } from '../security/keys.js';
import { SERVICE_SOURCE, type ApiUsageRecorder } from './rest/api-usage.js';
import { RestError } from './rest/rest-error.js';
import { parseFormBody, RestParams } from './rest/rest-params.js';
import { addSunsetHooks, graphqlUrlOf, type SunsetMode } from './rest/sunset.js';
import { escapeText } from './rest/xml.js';
import { findDeployment, type DeploymentReadDeps } from './rest/deployment-reads.js';
import { deploymentReads } from './rest/deployment-routes.js';

/**
 * The legacy Deployments v0 API (rest-v2.md §8): `POST /deployments.xml`, what the Ruby agent's
 * `newrelic deployments` command, Capistrano recipes and many CI scripts still call. It is
 * path-based, so it answers on every host name the service is reached by (New Relic served it on
 * `rpm.newrelic.com` and `api.newrelic.com` alike). It is registered on the API app and on the
 * collector: the Ruby agent sends it to its `api_host` on `api_port`, which defaults to the port
 * the agent reports to, so an agent pointed at the collector reaches it there, over HTTPS.
 *
 * - Keys: a user key in `x-api-key` (or `Api-Key`), or a license key in `x-license-key` (the Ruby
 *   agent's way). None, or none the account knows: 403, as the v1-era API answered. Each key's
 *   requests count against its REST v2 budget (1000 a minute, on either port): 429 past it.
 * - The application: `deployment[app_name]` (the name agents report under), or
 *   `deployment[application_id]`: an id, or, as the Ruby agent sends it, a name. The unprefixed
 *   `app_name`, `appname`, `application_id` of old scripts are read too. Unknown: 422.
 * - `deployment[description|revision|changelog|user]` are free text, stored as given;
 *   `deployment[host]`, `environment` and other fields are ignored.
 * - Bodies are form-encoded whatever their Content-Type says (the Ruby agent labels its form
 *   `application/octet-stream`); a JSON body `{"deployment": {…}}` is read too.
 * - 201 with the deployment in Rails' XML; errors are `<errors><error>…</error></errors>`, each
 *   error on one line (PHP notifiers pull the text out with `<error>(.*?)</error>`).
 * The deployment is the same `ChangeTrackingEvent` REST v2 makes, with `service.source`
 * `timeslice:deployments-v0`, so it is in the v2 list and in NRQL.
 */
export interface DeploymentsV0Deps {
  readonly catalog: Pick<Catalog, 'accountForUserKey' | 'accountForLicenseKey' | 'application' | 'applications'>;
  readonly deployments: Deployments;
  /** The created deployment is read back through NRQL, as REST v2 reads deployments. */
  readonly nrql: DeploymentReadDeps['nrql'];
  readonly clock: Clock;
  readonly sunset: SunsetMode;
  readonly usage?: ApiUsageRecorder;
  /** Where the graph API answers, for the `successor-version` link (the collector is not where it is). */
  readonly graphqlUrl?: (request: FastifyRequest) => string;
  /** The budget per key, shared with REST v2 on both ports. */
  readonly limiter: RateLimiter;
}

export const DEPLOYMENTS_V0_PATH = '/deployments.xml';
/** A deployment's text fields together fit easily; a changelog is the largest. */
export const V0_BODY_LIMIT = 1024 * 1024;

const XML_TYPE = 'application/xml; charset=utf-8';
const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

export function deploymentsV0Plugin(deps: DeploymentsV0Deps): FastifyPluginAsync {
  return async (app) => {
    const applies = (path: string) => path === DEPLOYMENTS_V0_PATH;
    // Every body is read raw and decoded here: the Ruby agent's form says it is octet-stream.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: V0_BODY_LIMIT }, (_request, body, done) => done(null, body));
    addSunsetHooks(app, {
      mode: deps.sunset,
      clock: deps.clock,
      api: 'Deployments v0',
      applies,
      graphqlUrl: deps.graphqlUrl ?? graphqlUrlOf,
      sendGone: (_request, reply, error) => sendErrors(reply, error.status, [error.title, ...(error.messages ?? [])]),
    });
    deps.usage?.addHooks(app, 'Deployments v0', applies);
    app.setErrorHandler((error: FastifyError, request, reply) => {
      if (error instanceof RestError) {
        for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
        return sendErrors(reply, error.status, [error.title, ...(error.messages ?? [])]);
      }
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendErrors(reply, 413, [`Request body too large: the limit is ${V0_BODY_LIMIT} bytes`]);
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) return sendErrors(reply, error.statusCode, [error.message]);
      if (error instanceof StoreBusyError) return sendErrors(reply, 503, [`The store cannot take the deployment now (${error.message}); send it again shortly`]);
      request.log.error({ err: error }, 'deployments.xml request failed');
      return sendErrors(reply, 500, ['Internal server error']);
    });

    app.route({
      method: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH'],
      url: DEPLOYMENTS_V0_PATH,
      handler: async (request, reply) => {
        reply.header('allow', 'POST');
        return sendErrors(reply, 405, [`Method ${request.method} is not allowed on ${DEPLOYMENTS_V0_PATH}; POST the deployment`]);
      },
    });

    app.post(DEPLOYMENTS_V0_PATH, { bodyLimit: V0_BODY_LIMIT }, async (request, reply) => {
      const { accountId, keyHash } = authenticate(deps, request);
      const decision = deps.limiter.take(keyHash);
      if (!decision.allowed) throw RestError.rateLimited(deps.limiter.limitPerMinute, decision.headers);
      const params = RestParams.from(request.query, bodyFields(request));
      const application = findApplication(deps, accountId, params);
      deps.usage?.noteApplication(request, application.id);
      const field = (name: string) => params.one(`deployment[${name}]`) ?? params.one(name) ?? null;
      const event = await deps.deployments.createEvent({
        accountId,
        entity: Deployments.applicationEntity(application),
        category: 'Deployment',
        type: 'Basic',
        timestamp: deps.clock.now(),
        user: field('user'),
        description: field('description'),
        fields: { version: field('revision'), changelog: field('changelog') },
        source: SERVICE_SOURCE['Deployments v0'],
      });
      const created = await findDeployment(deploymentReads(deps), accountId, application.id, event.deploymentId!);
      if (!created) throw new Error(`deployment ${event.deploymentId} is not readable after its commit`);
      return reply.code(201).header('content-type', XML_TYPE).send(railsDeployment({
        accountId, appId: application.id, id: created.id, timestamp: created.timestamp,
        revision: created.revision, changelog: created.changelog, description: created.description, user: created.user,
      }));
    });
  };
}

function authenticate(deps: DeploymentsV0Deps, request: FastifyRequest): { accountId: number; keyHash: string } {
  const header = (name: string) => [request.headers[name]].flat().map((k) => k?.trim()).filter((k): k is string => !!k);
  for (const key of [...header('x-api-key'), ...header('api-key')]) {
    const accountId = deps.catalog.accountForUserKey(key);
    if (accountId !== undefined) return { accountId, keyHash: hashKey(key) };
  }
  for (const key of header('x-license-key')) {
    const accountId = deps.catalog.accountForLicenseKey(key);
    if (accountId !== undefined) return { accountId, keyHash: hashKey(key) };
  }
  const sent = header('x-api-key').length + header('api-key').length + header('x-license-key').length > 0;
  throw new RestError(403, sent
    ? 'Invalid API key: send a user key in x-api-key or the license key in x-license-key'
    : 'No API key: send a user key in x-api-key or the license key in x-license-key');
}

/** The body's fields in the shape of a form: `deployment[app_name]` and so on. */
function bodyFields(request: FastifyRequest): Record<string, string | string[]> {
  const raw = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
  const type = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/json') return parseFormBody(raw);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new RestError(400, 'Request body is not valid JSON');
  }
  const deployment = isObject(json) && isObject(json.deployment) ? json.deployment : isObject(json) ? json : {};
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(deployment)) {
    if (typeof value === 'string' || typeof value === 'number') fields[`deployment[${key}]`] = String(value);
  }
  return fields;
}

function findApplication(deps: DeploymentsV0Deps, accountId: number, params: RestParams): Application {
  const name = params.one('deployment[app_name]') ?? params.one('app_name') ?? params.one('appname');
  const idOrName = params.one('deployment[application_id]') ?? params.one('application_id');
  if (name === undefined && idOrName === undefined) {
    throw RestError.unprocessable('Application not specified: send deployment[app_name] or deployment[application_id]');
  }
  const apps = deps.catalog.applications(accountId);
  if (name !== undefined) {
    const app = apps.find((a) => a.agentName === name);
    if (!app) throw RestError.unprocessable(`Application ${name} does not exist`);
    return app;
  }
  const key = idOrName!;
  const byId = /^[0-9]{1,15}$/.test(key) ? deps.catalog.application(Number(key)) : undefined;
  const app = byId?.accountId === accountId ? byId : apps.find((a) => a.agentName === key);
  if (!app) throw RestError.unprocessable(`Application ${key} does not exist`);
  return app;
}

interface RailsDeployment {
  readonly accountId: number;
  readonly appId: number;
  readonly id: number;
  readonly timestamp: number;
  readonly revision: string | null;
  readonly changelog: string | null;
  readonly description: string | null;
  readonly user: string | null;
}

/** The v0 success body: Rails' XML serialisation (dashed names, `type` and `nil` attributes). */
export function railsDeployment(d: RailsDeployment): string {
  const text = (name: string, value: string | null) =>
    value === null || value === '' ? `  <${name} nil="true"></${name}>` : `  <${name}>${escapeText(value)}</${name}>`;
  return [
    `${DECLARATION}<deployment>`,
    `  <account-id type="integer">${d.accountId}</account-id>`,
    `  <agent-id type="integer">${d.appId}</agent-id>`,
    text('changelog', d.changelog),
    text('description', d.description),
    '  <end-time type="datetime" nil="true"></end-time>',
    `  <id type="integer">${d.id}</id>`,
    text('revision', d.revision),
    `  <timestamp type="datetime">${formatRestTime(d.timestamp)}</timestamp>`,
    text('user', d.user),
    '</deployment>',
    '',
  ].join('\n');
}

function sendErrors(reply: FastifyReply, status: number, messages: readonly string[]): FastifyReply {
  const body = `${DECLARATION}<errors>\n${messages.map((m) => `  <error>${escapeText(m.replace(/[\r\n]+/g, ' '))}</error>\n`).join('')}</errors>\n`;
  return reply.code(status).header('content-type', XML_TYPE).send(body);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
