import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import { RestError } from './rest-error.js';

/**
 * The end of life of REST v2 and the legacy Deployments v0 API (spec §1, §9: both end on
 * 2027-07-31; after that date they are unavailable).
 *
 * Every response of both APIs says so in headers a client or proxy can act on:
 * - `Deprecation: @1767225600` (RFC 9745: deprecated since 2026-01-01T00:00:00Z). New Relic
 *   published no deprecation instant; the graph API is the recommended replacement already, so a
 *   date in the past (RFC 9745: "has been deprecated") is the honest answer, and the RFC's
 *   structured form is what current tooling parses (the draft's `true` is obsolete).
 * - `Sunset: Sun, 01 Aug 2027 00:00:00 GMT` (RFC 8594: the instant the resource stops answering):
 *   the APIs serve all of 31 July 2027, UTC, and no later.
 * - `Link: <…/graphql>;rel="successor-version";title*=UTF-8''…`, after any pagination links the response
 *   has: the graph operation or NRQL query that replaces this call (`successorOf`) as the link's title,
 *   in RFC 8187's encoded form so its quotes, commas and angle brackets never confuse a Link parser.
 *
 * From the sunset instant (by the injected clock) every request is answered 410 Gone with a
 * migration message naming the graph operation or NRQL query that replaces it, unless the
 * setting `TIMESLICE_REST_SUNSET` says otherwise.
 */

/** `date`: 410 from the sunset instant on; `never`: keep serving (headers stay); `now`: 410 already. */
export type SunsetMode = 'date' | 'never' | 'now';

export const SUNSET_MODES: readonly SunsetMode[] = ['date', 'never', 'now'];

/** 2027-08-01T00:00:00Z: the first instant after 31 July 2027 (UTC). */
export const REST_SUNSET_MS = Date.UTC(2027, 7, 1);
/** 2026-01-01T00:00:00Z, in RFC 9745's `@<epoch seconds>` form. */
export const DEPRECATION_HEADER = `@${Date.UTC(2026, 0, 1) / 1000}`;
export const SUNSET_HEADER = new Date(REST_SUNSET_MS).toUTCString();

export type RestApiName = 'REST v2' | 'Deployments v0';

/** The `TIMESLICE_REST_SUNSET` value; undefined or empty is `date`. */
export function parseSunsetMode(text: string | undefined): SunsetMode {
  const value = (text ?? '').trim().toLowerCase();
  if (value === '') return 'date';
  if ((SUNSET_MODES as readonly string[]).includes(value)) return value as SunsetMode;
  throw new RangeError(`TIMESLICE_REST_SUNSET must be one of ${SUNSET_MODES.join(', ')}, got '${text}'`);
}

export function isPastSunset(mode: SunsetMode, nowMs: number): boolean {
  return mode === 'now' || (mode === 'date' && nowMs >= REST_SUNSET_MS);
}

/**
 * What replaces a REST call: the graph operation or NRQL query of spec §4.4, by the route's
 * pattern (`/v2/applications/{id}/deployments`, suffix removed) and method.
 */
export function successorOf(api: RestApiName, method: string, route: string | undefined): string {
  if (api === 'Deployments v0') {
    return 'mutation changeTrackingCreateEvent with categoryAndTypeData {kind: {category: "deployment", type: "basic"}, categoryFields: {deployment: {version}}} and entitySearch {query: "name = \'<app name>\' AND domain = \'APM\'"}';
  }
  const path = (route ?? '').replace(/\.(json|xml)$/, '');
  for (const [pattern, methods] of SUCCESSORS) {
    if (!pattern.test(path)) continue;
    const successor = methods[method] ?? methods['*'];
    if (successor !== undefined) return successor;
  }
  return 'POST /graphql (NerdGraph): actor.entitySearch, actor.entity and actor.nrql read what REST v2 served';
}

const NRQL = (query: string) => `actor { nrql(accounts: [<account id>], query: "${query}") { results } }`;

const SUCCESSORS: readonly (readonly [RegExp, Readonly<Record<string, string>>])[] = [
  [/^\/v2\/applications$/, {
    '*': 'actor { entitySearch(query: "domain = \'APM\' AND type = \'APPLICATION\'") { results { entities { guid name } nextCursor } } }',
  }],
  [/^\/v2\/applications\/[^/]+\/deployments(\/[^/]+)?$/, {
    GET: NRQL("SELECT * FROM ChangeTrackingEvent, Deployment WHERE (eventType() = 'Deployment' OR (eventType() = 'ChangeTrackingEvent' AND category = 'Deployment')) AND entity.guid = '<guid>' SINCE 1 WEEK AGO LIMIT 100"),
    POST: 'mutation changeTrackingCreateEvent(changeTrackingEvent: {categoryAndTypeData: {kind: {category: "deployment", type: "basic"}, categoryFields: {deployment: {version}}}, entitySearch: {query: "domainId = \'<id>\' AND domain = \'APM\'"}})',
    DELETE: 'nothing: change tracking events are immutable in the graph API, so a deployment cannot be deleted',
  }],
  [/^\/v2\/applications\/[^/]+\/(hosts|instances)$/, {
    '*': NRQL("SELECT count(*) FROM Transaction WHERE appId = <id> FACET host SINCE 30 minutes ago"),
  }],
  [/^\/v2\/applications\/[^/]+(\/(hosts|instances)\/[^/]+)?\/metrics(\/data)?$/, {
    '*': NRQL("SELECT average(newrelic.timeslice.value) * 1000 FROM Metric WHERE appId = <id> AND metricTimesliceName = '<name>' TIMESERIES 1 minute"),
  }],
  [/^\/v2\/applications\/[^/]+$/, {
    GET: 'actor { entity(guid: "<guid>") { ... on ApmApplicationEntity { applicationId name apmSummary { responseTimeAverage throughput errorRate apdexScore } } } }',
    PUT: 'mutation agentApplicationSettingsUpdate(guid: "<guid>", settings: {alias, apmConfig: {apdexTarget}})',
    DELETE: 'mutation agentApplicationDelete(guid: "<guid>")',
  }],
  [/^\/v2\/key_transactions/, {
    '*': 'actor { entitySearch(query: "type = \'KEY_TRANSACTION\'") { results { entities { guid name } } } } and actor { entity(guid: "<guid>") }',
  }],
  [/^\/v2\/mobile_applications/, {
    POST: 'mutation agentApplicationCreateMobile(accountId: <account id>, name: "<name>")',
    '*': NRQL("SELECT count(*) FROM Mobile WHERE appName = '<name>' TIMESERIES"),
  }],
  [/^\/v2\/browser_applications/, {
    POST: 'mutation agentApplicationCreateBrowser(accountId: <account id>, name: "<name>")',
    '*': 'actor { entitySearch(query: "domain = \'BROWSER\'") { results { entities { guid name } } } }',
  }],
  [/^\/v2\/alerts_policies$/, {
    GET: 'actor { account(id: <account id>) { alerts { policiesSearch(searchCriteria: {name: "<name>"}) { policies { id name incidentPreference } nextCursor } } } }',
    POST: 'mutation alertsPolicyCreate(accountId: <account id>, policy: {name: "<name>", incidentPreference: PER_POLICY})',
  }],
  [/^\/v2\/alerts_policies\/[^/]+$/, {
    PUT: 'mutation alertsPolicyUpdate(accountId: <account id>, id: <policy id>, policy: {name: "<name>", incidentPreference: PER_CONDITION})',
    DELETE: 'mutation alertsPolicyDelete(accountId: <account id>, id: <policy id>)',
  }],
  [/^\/v2\/alerts_nrql_conditions(\/policies)?/, {
    GET: 'actor { account(id: <account id>) { alerts { nrqlConditionsSearch(searchCriteria: {policyId: <policy id>}) { nrqlConditions { id name nrql { query } } nextCursor } } } }',
    POST: 'mutation alertsNrqlConditionStaticCreate(accountId: <account id>, policyId: <policy id>, condition: {…}) (thresholdDuration in seconds)',
    PUT: 'mutation alertsNrqlConditionStaticUpdate(accountId: <account id>, id: <condition id>, condition: {…})',
    DELETE: 'mutation alertsConditionDelete(accountId: <account id>, id: <condition id>)',
  }],
  [/^\/v2\/alerts_conditions(\/policies)?/, {
    GET: 'actor { account(id: <account id>) { alerts { nrqlConditionsSearch(searchCriteria: {policyId: <policy id>}) { nrqlConditions { id name nrql { query } } } } } } (an APM condition is the NRQL condition it runs)',
    POST: "mutation alertsNrqlConditionStaticCreate with the condition's query over FROM Metric (docs/alerts.md lists each metric's)",
    PUT: 'mutation alertsNrqlConditionStaticUpdate(accountId: <account id>, id: <condition id>, condition: {…})',
    DELETE: 'mutation alertsConditionDelete(accountId: <account id>, id: <condition id>)',
  }],
  [/^\/v2\/alerts_channels/, {
    '*': 'aiNotificationsCreateDestination and aiNotificationsCreateChannel (WEBHOOK), then aiWorkflowsCreateWorkflow with an issuesFilter on labels.policyIds',
  }],
  [/^\/v2\/alerts_policy_channels$/, {
    '*': 'mutation aiWorkflowsUpdateWorkflow: a workflow whose issuesFilter names the policy (labels.policyIds) and whose destinationConfigurations name the channels',
  }],
  [/^\/v2\/alerts_incidents\/[^/]+\/acknowledge$/, {
    '*': 'mutation aiIssuesAckIssue(accountId: <account id>, issueId: "<issue id>")',
  }],
  [/^\/v2\/alerts_incidents\/[^/]+\/close$/, {
    '*': 'mutation aiIssuesResolveIssue(accountId: <account id>, issueId: "<issue id>")',
  }],
  [/^\/v2\/alerts_incidents$/, {
    '*': 'actor { account(id: <account id>) { aiIssues { issues(filter: {states: [ACTIVATED]}) { issues { issueId state priority createdAt closedAt incidentIds } nextCursor } } } }',
  }],
  [/^\/v2\/alerts_violations$/, {
    '*': 'actor { account(id: <account id>) { aiIssues { incidents(timeWindow: {startTime: <ms>, endTime: <ms>}) { incidents { incidentId issueId title priority createdAt closedAt } nextCursor } } } }',
  }],
  [/^\/v2\/alerts_events$/, {
    '*': NRQL("SELECT * FROM NrAiIncident, NrAiIssue SINCE 1 week ago LIMIT 100"),
  }],
  [/^\/v2\/alerts_/, {
    '*': 'actor { account(id: <account id>) { aiIssues { issues { issues { issueId title } } } } }',
  }],
];

export interface SunsetOptions {
  readonly mode: SunsetMode;
  readonly clock: Clock;
  readonly api: RestApiName;
  /** The paths of this API, among everything the instance serves. */
  readonly applies: (path: string) => boolean;
  /** Where the graph API answers, for the `successor-version` link. */
  readonly graphqlUrl: (request: FastifyRequest) => string;
  /** Sends the 410 in the API's own error shape. */
  readonly sendGone: (request: FastifyRequest, reply: FastifyReply, error: RestError) => void;
}

/**
 * Adds the end-of-life behaviour to every route of `app` (and its not-found handler) whose path
 * `applies`: the 410 before anything else looks at the request (authentication included: the
 * API is gone for every caller), and the three headers on every response, errors included.
 */
export function addSunsetHooks(app: FastifyInstance, options: SunsetOptions): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!options.applies(pathOf(request.url)) || !isPastSunset(options.mode, options.clock.now())) return;
    options.sendGone(request, reply, goneError(options.api, request));
    return reply;
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (!options.applies(pathOf(request.url))) return payload;
    reply.header('deprecation', DEPRECATION_HEADER);
    reply.header('sunset', SUNSET_HEADER);
    const title = successorOf(options.api, request.method, routePatternOf(request));
    const successor = `<${options.graphqlUrl(request)}>;rel="successor-version";title*=UTF-8''${encodeExtValue(title)}`;
    const existing = reply.getHeader('link');
    reply.header('link', existing === undefined || existing === '' ? successor : `${String(existing)}, ${successor}`);
    return payload;
  });
}

/** RFC 8187's ext-value encoding: every byte outside `attr-char` percent-encoded. */
export function encodeExtValue(text: string): string {
  return encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function goneError(api: RestApiName, request: FastifyRequest): RestError {
  const route = routePatternOf(request) ?? pathOf(request.url);
  return new RestError(
    410,
    `${api === 'REST v2' ? 'REST API v2' : 'The Deployments v0 API (deployments.xml)'} reached its end of life on 2027-07-31; use NerdGraph (POST /graphql with your user key in Api-Key)`,
    [`Instead of ${request.method} ${pathOf(request.url)}: ${successorOf(api, request.method, route)}`],
  );
}

/** The route as registered, with `{name}` for each parameter (`/v2/applications/{id}.json`); undefined when none matched. */
export function routePatternOf(request: FastifyRequest): string | undefined {
  const url = request.routeOptions.url;
  return url === undefined || url === '' ? undefined : url.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

export function pathOf(url: string): string {
  return url.split('?', 1)[0] ?? url;
}

/** REST v2's URL space: everything under `/v2/`. */
export function isRestV2Path(path: string): boolean {
  return path === '/v2' || path.startsWith('/v2/');
}

/** `/graphql` on the host and scheme the client used. */
export function graphqlUrlOf(request: FastifyRequest): string {
  return request.host ? `${request.protocol}://${request.host}/graphql` : '/graphql';
}
