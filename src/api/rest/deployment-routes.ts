import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import { formatRestTime, parseRestTime } from '../../domain/time/iso8601.js';
import { StoreBusyError } from '../../store/batch-writer.js';
import type { Application, Catalog } from '../../store/catalog.js';
import { Deployments, type Deployment } from '../../store/deployments.js';
import { findDeployment, latestDeploymentTime, listDeployments, type DeploymentReadDeps } from './deployment-reads.js';
import { parsePage } from './link-header.js';
import { applicationOf } from './metric-routes.js';
import { RestError } from './rest-error.js';
import { registerFormBodyParser, RestParams } from './rest-params.js';
import { SERVICE_SOURCE } from './api-usage.js';
import { restRoute, restV2Plugin, type RestV2Deps } from './rest-plugin.js';

export interface DeploymentRouteDeps {
  readonly catalog: Catalog;
  readonly deployments: Deployments;
  readonly clock: Clock;
  /** Deployments are read through NRQL, as the graph API reads them. */
  readonly nrql: DeploymentReadDeps['nrql'];
}

/** REST's reads: through NRQL, leaving out what REST deleted. */
export function deploymentReads(deps: Pick<DeploymentRouteDeps, 'deployments' | 'nrql'>): DeploymentReadDeps {
  return { nrql: deps.nrql, deletedDeploymentIds: (accountId, appId) => deps.deployments.deletedDeploymentIds(accountId, appId) };
}

/** Deployments per page: New Relic documents no size for this list; its object lists page at 200. */
export const DEPLOYMENTS_PER_PAGE = 200;

/** The URI template New Relic puts beside deployment lists. */
const DEPLOYMENT_LINKS = { 'deployment.agent': '/v2/applications/{application_id}' };


/**
 * Field limits New Relic documents for a deployment (rest-v2.md §7.2), in characters. Text with
 * characters outside the Basic Multilingual Plane (4-byte UTF-8: emoji) is refused as New Relic does.
 */
const LIMITS = { revision: 127, changelog: 65_535, description: 65_535, user: 31 } as const;
type TextField = keyof typeof LIMITS;

/**
 * REST v2 deployments on the agent collector's port. The Ruby agent's `newrelic deployments`
 * (and Capistrano through it) posts `/v2/applications/{id}/deployments.json` to its `api_host` and
 * `api_port`, and `api_port` defaults to the collector's port. Only the deployment routes are here,
 * in their own scope: JSON and form bodies (the collector itself takes raw bodies), REST v2 auth,
 * errors, end-of-life headers and usage events, and the key's one budget (`limiter`, shared with the API port).
 */
export function collectorDeploymentsPlugin(deps: DeploymentRouteDeps & Omit<RestV2Deps, 'catalog'>): FastifyPluginAsync {
  return async (app) => {
    app.removeAllContentTypeParsers();
    // Fastify's own JSON parser (prototype-poisoning guards, its errors), as on the API port.
    app.addContentTypeParser('application/json', { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));
    registerFormBodyParser(app);
    await app.register(restV2Plugin(deps));
    registerDeploymentRoutes(app, deps);
  };
}

/**
 * `GET|POST /v2/applications/{id}/deployments` and `DELETE /v2/applications/{id}/deployments/{deploymentId}`,
 * JSON and XML. A deployment is a `ChangeTrackingEvent` (store/deployments.ts); DELETE hides it
 * from this list and leaves the event.
 */
export function registerDeploymentRoutes(app: FastifyInstance, deps: DeploymentRouteDeps): void {
  const reads = deploymentReads(deps);
  restRoute(app, 'GET', '/v2/applications/:id/deployments', async (request, ctx) => {
    const application = applicationOf(deps.catalog, request, ctx);
    const page = parsePage(RestParams.from(request.query, request.body).one('page'));
    const { deployments, total } = await listDeployments(reads, ctx.accountId, application.id, page, DEPLOYMENTS_PER_PAGE);
    return {
      body: { deployments: deployments.map(deploymentObject), links: DEPLOYMENT_LINKS },
      pagination: { page, lastPage: Math.max(1, Math.ceil(total / DEPLOYMENTS_PER_PAGE)) },
    };
  });

  restRoute(app, 'POST', '/v2/applications/:id/deployments', async (request, ctx) => {
    const application = applicationOf(deps.catalog, request, ctx);
    const input = deploymentInput(request.body, RestParams.from(request.query, request.body));
    const now = deps.clock.now();
    const timestamp = input.timestamp === undefined ? now : await checkedTimestamp(deps, application, input.timestamp, now);
    const event = await deps.deployments.createEvent({
      accountId: ctx.accountId,
      entity: Deployments.applicationEntity(application),
      category: 'Deployment',
      type: 'Basic',
      timestamp,
      user: input.user,
      description: input.description,
      fields: { version: input.revision, changelog: input.changelog },
      source: SERVICE_SOURCE['REST v2'],
    }).catch((error: unknown) => {
      // The store is closing or too far behind: nothing was stored, and the client may send it again.
      if (error instanceof StoreBusyError) throw new RestError(503, `The store cannot take the deployment now (${error.message}); send it again shortly`);
      throw error;
    });
    const created = await findDeployment(reads, ctx.accountId, application.id, event.deploymentId!);
    if (!created) throw new Error(`deployment ${event.deploymentId} is not readable after its commit`);
    return { status: 201, body: { deployment: deploymentObject(created), links: DEPLOYMENT_LINKS } };
  });

  restRoute(app, 'DELETE', '/v2/applications/:id/deployments/:deploymentId', async (request, ctx) => {
    const application = applicationOf(deps.catalog, request, ctx);
    const id = deploymentIdOf(request, application);
    const deleted = await deps.deployments.delete(ctx.accountId, application.id, id);
    if (!deleted) throw RestError.notFound(`No deployment with id ${id} in application ${application.id}`);
    return { body: { deployment: deploymentObject(deleted) } };
  });
}

/** The deployment object of REST v2 (rest-v2.md §7): missing text is null; time in UTC. */
export function deploymentObject(d: Deployment): Record<string, unknown> {
  return {
    id: d.id,
    revision: d.revision,
    changelog: d.changelog,
    description: d.description,
    user: d.user,
    timestamp: formatRestTime(d.timestamp),
    links: { application: d.appId },
  };
}

interface DeploymentInput {
  readonly revision: string;
  readonly changelog: string | null;
  readonly description: string | null;
  readonly user: string | null;
  readonly timestamp: number | undefined;
}

/**
 * The POST body: JSON `{"deployment": {"revision", "changelog", "description", "user", "timestamp"}}`
 * as every client sends, or the same as form fields (`deployment[revision]=…`). Unknown members
 * are ignored; a wrong type or a text over its limit is a 422.
 */
function deploymentInput(body: unknown, form: RestParams): DeploymentInput {
  const json = isObject(body) && isObject(body.deployment) ? body.deployment : undefined;
  if (!json && ![...Object.keys(LIMITS), 'timestamp'].some((k) => form.has(`deployment[${k}]`))) {
    // New Relic's own words for a body without a deployment.
    throw RestError.unprocessable('missing parameter: deployment', ['Send {"deployment": {"revision": "…"}} (revision is required; changelog, description, user and timestamp are optional)']);
  }
  const pick = (name: string): unknown => (json ? json[name] : form.one(`deployment[${name}]`));
  const text = (name: TextField): string | null => {
    const value = pick(name);
    if (value === undefined || value === null || value === '') return null;
    if (typeof value !== 'string' && typeof value !== 'number') throw RestError.unprocessable(`Invalid ${name}: expected a string`);
    const s = String(value);
    if ([...s].length > LIMITS[name]) throw RestError.unprocessable(`Invalid ${name}: at most ${LIMITS[name]} characters`);
    if (/[\u{10000}-\u{10FFFF}]/u.test(s)) {
      throw RestError.unprocessable(`Invalid ${name}: characters outside the Basic Multilingual Plane (4-byte UTF-8, such as emoji) are not allowed`);
    }
    return s;
  };
  const revision = text('revision');
  if (revision === null) throw RestError.unprocessable('missing parameter: revision', ['A deployment needs a revision (a version, tag or commit; up to 127 characters)']);
  const rawTime = pick('timestamp');
  let timestamp: number | undefined;
  if (rawTime !== undefined && rawTime !== null && rawTime !== '') {
    timestamp = typeof rawTime === 'string' ? parseRestTime(rawTime) : undefined;
    if (timestamp === undefined) throw RestError.unprocessable(`Invalid timestamp ${JSON.stringify(rawTime)}: expected an ISO 8601 time such as 2024-03-05T14:12:44Z`);
    // The store keeps times from the Unix epoch on; nothing was deployed earlier.
    if (timestamp < 0) throw RestError.unprocessable(`Invalid timestamp ${JSON.stringify(rawTime)}: a deployment time is after 1970-01-01T00:00:00Z`);
  }
  return { revision, changelog: text('changelog'), description: text('description'), user: text('user'), timestamp };
}

/** New Relic's rule: a given time is not in the future and is after the application's latest deployment. */
async function checkedTimestamp(deps: DeploymentRouteDeps, application: Application, timestamp: number, now: number): Promise<number> {
  // Second precision, as REST shows it: a time a client read back from a listing compares equal.
  const seconds = Math.floor(timestamp / 1000) * 1000;
  if (seconds > now) throw RestError.unprocessable(`Invalid timestamp ${formatRestTime(seconds)}: a deployment cannot be in the future (now is ${formatRestTime(now)})`);
  const latest = await latestDeploymentTime(deploymentReads(deps), application.accountId, application.id);
  if (latest !== undefined && seconds <= latest) {
    throw RestError.unprocessable(`Invalid timestamp ${formatRestTime(seconds)}: it must be after the application's most recent deployment (${formatRestTime(latest)})`);
  }
  return seconds;
}

function deploymentIdOf(request: FastifyRequest, application: Application): number {
  const text = (request.params as Record<string, string | undefined>).deploymentId ?? '';
  const id = /^[0-9]{1,15}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(id)) throw RestError.notFound(`No deployment with id '${text}' in application ${application.id}`);
  return id;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
