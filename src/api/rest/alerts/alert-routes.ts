import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../../clock.js';
import { AlertNotFoundError, AlertValidationError, type AlertService } from '../../../alerts/alert-service.js';
import { LegacyChannelError } from '../../../alerts/legacy-channels.js';
import type { Incident, Issue, NrqlCondition } from '../../../domain/alerts/alert-model.js';
import type { NrqlConditionInput } from '../../../domain/alerts/condition-input.js';
import { applicationOfIncident } from '../../../domain/alerts/incident-entity.js';
import { parseRestTime } from '../../../domain/time/iso8601.js';
import type { Catalog } from '../../../store/catalog.js';
import type { StoredCondition } from '../../../store/alert-records.js';
import { pathId } from '../id-params.js';
import { nextOnlyLinkHeader, paginate, parsePage } from '../link-header.js';
import { RestError } from '../rest-error.js';
import { RestParams } from '../rest-params.js';
import { requestUrl, restRoute, type RestContext, type RestResult } from '../rest-plugin.js';
import {
  incidentEvents, incidentObject, targetName, violationEvents, violationObject, type RecentEvent, type ViolationEntity,
} from './incident-wire.js';
import { channelObject } from './channel-wire.js';
import { apmConditionInput, apmConditionObject, mergeApmCondition } from './apm-condition-wire.js';
import { member, mergeNrqlCondition, nrqlConditionInput, nrqlConditionObject, policyInput, policyObject } from './nrql-condition-wire.js';

export interface AlertRouteDeps {
  readonly alerts: AlertService;
  readonly catalog: Catalog;
  readonly clock: Clock;
}

/** Policies and NRQL conditions per page: New Relic does not publish theirs; one page holds what scripts usually keep. */
export const ALERT_CONFIG_PAGE_SIZE = 200;
/** Incidents per page: New Relic's documented 25 (alerts.md §1.7); violations and events page alike. */
export const ALERT_HISTORY_PAGE_SIZE = 25;
/** The last page of the incident list New Relic serves (1000 pages of 25). */
export const ALERT_HISTORY_MAX_PAGE = 1000;

/**
 * REST v2's alert endpoints over the AlertService NerdGraph uses (alerts.md §1, rest-v2.md §12):
 * policies, NRQL conditions, and the history as violations (incidents), incidents (issues) and
 * recent events. Validation refusals are 422 with every problem in `messages`; ids of another
 * account are 404 like unknown ones.
 */
export function registerAlertRoutes(app: FastifyInstance, deps: AlertRouteDeps): void {
  const { alerts } = deps;

  // ---- policies ------------------------------------------------------------------------------

  restRoute(app, 'GET', '/v2/alerts_policies', async (request, ctx) => {
    const params = RestParams.from(request.query, request.body);
    const name = params.one('filter[name]');
    const all = alerts.policies(ctx.accountId).filter((p) => name === undefined || p.policy.name === name);
    const { pageItems, page, lastPage } = paginate(all, parsePage(params.one('page')), ALERT_CONFIG_PAGE_SIZE);
    return { body: { policies: pageItems.map(policyObject) }, pagination: { page, lastPage } };
  });

  restRoute(app, 'POST', '/v2/alerts_policies', async (request, ctx) => {
    const input = policyInput(request.body, true);
    const stored = await serviceCall(() => alerts.createPolicy(ctx.accountId, input.name!, input.incidentPreference ?? 'PER_POLICY'));
    return { status: 201, body: { policy: policyObject(stored) } };
  });

  restRoute(app, 'PUT', '/v2/alerts_policies/:id', async (request, ctx) => {
    const id = pathId(request, 'id', 'policy');
    ownPolicy(alerts, ctx, id);
    const input = policyInput(request.body, false);
    const stored = await serviceCall(() => alerts.updatePolicy(ctx.accountId, String(id), input));
    return { body: { policy: policyObject(stored) } };
  });

  restRoute(app, 'DELETE', '/v2/alerts_policies/:id', async (request, ctx) => {
    const id = pathId(request, 'id', 'policy');
    const stored = ownPolicy(alerts, ctx, id);
    await serviceCall(() => alerts.deletePolicy(ctx.accountId, String(id)));
    return { body: { policy: policyObject(stored) } };
  });

  // ---- NRQL conditions -----------------------------------------------------------------------

  restRoute(app, 'GET', '/v2/alerts_nrql_conditions', async (request, ctx) => {
    const params = RestParams.from(request.query, request.body);
    const policyId = requiredPolicyId(params);
    ownPolicy(alerts, ctx, policyId);
    const all = alerts.conditions(ctx.accountId).filter((c) => c.condition.policyId === String(policyId) && c.condition.apmMetric === undefined);
    const { pageItems, page, lastPage } = paginate(all, parsePage(params.one('page')), ALERT_CONFIG_PAGE_SIZE);
    return { body: { nrql_conditions: pageItems.map(conditionObject) }, pagination: { page, lastPage } };
  });

  restRoute(app, 'POST', '/v2/alerts_nrql_conditions/policies/:policyId', async (request, ctx) => {
    const policyId = pathId(request, 'policyId', 'policy');
    ownPolicy(alerts, ctx, policyId);
    const input = nrqlConditionInput(member(request.body, 'nrql_condition'));
    const stored = await serviceCall(() => alerts.createCondition(ctx.accountId, String(policyId), input));
    return { status: 201, body: { nrql_condition: conditionObject(stored) } };
  });

  restRoute(app, 'PUT', '/v2/alerts_nrql_conditions/:id', async (request, ctx) => {
    const id = pathId(request, 'id', 'NRQL condition');
    const current = ownCondition(alerts, ctx, id, 'nrql');
    const patch = member(request.body, 'nrql_condition');
    const input = nrqlConditionInput(mergeNrqlCondition(conditionObject(current), patch));
    const stored = await serviceCall(() => alerts.updateCondition(ctx.accountId, String(id), (now) => keepUnspoken(now, input)));
    return { body: { nrql_condition: conditionObject(stored) } };
  });

  restRoute(app, 'DELETE', '/v2/alerts_nrql_conditions/:id', async (request, ctx) => {
    const id = pathId(request, 'id', 'NRQL condition');
    const current = ownCondition(alerts, ctx, id, 'nrql');
    await serviceCall(() => alerts.deleteCondition(ctx.accountId, String(id)));
    return { body: { nrql_condition: conditionObject(current) } };
  });

  // ---- APM metric conditions -----------------------------------------------------------------

  const ownsApplication = (ctx: RestContext) => (id: number) => deps.catalog.application(id)?.accountId === ctx.accountId;
  const nrqlHeader = (stored: StoredCondition) => ({ 'x-timeslice-nrql': stored.condition.query });

  restRoute(app, 'GET', '/v2/alerts_conditions', async (request, ctx) => {
    const params = RestParams.from(request.query, request.body);
    const policyId = requiredPolicyId(params);
    ownPolicy(alerts, ctx, policyId);
    const all = alerts.conditions(ctx.accountId).filter((c) => c.condition.policyId === String(policyId) && c.condition.apmMetric !== undefined);
    const { pageItems, page, lastPage } = paginate(all, parsePage(params.one('page')), ALERT_CONFIG_PAGE_SIZE);
    return { body: { conditions: pageItems.map(apmConditionObject) }, pagination: { page, lastPage } };
  });

  restRoute(app, 'POST', '/v2/alerts_conditions/policies/:policyId', async (request, ctx) => {
    const policyId = pathId(request, 'policyId', 'policy');
    ownPolicy(alerts, ctx, policyId);
    const input = apmConditionInput(member(request.body, 'condition'), ownsApplication(ctx));
    const stored = await serviceCall(() => alerts.createCondition(ctx.accountId, String(policyId), input));
    return { status: 201, body: { condition: apmConditionObject(stored) }, headers: nrqlHeader(stored) };
  });

  restRoute(app, 'PUT', '/v2/alerts_conditions/:id', async (request, ctx) => {
    const id = pathId(request, 'id', 'condition');
    const current = ownCondition(alerts, ctx, id, 'apm');
    const input = apmConditionInput(mergeApmCondition(apmConditionObject(current), member(request.body, 'condition')), ownsApplication(ctx));
    const stored = await serviceCall(() => alerts.updateCondition(ctx.accountId, String(id), (now) => keepUnspoken(now, input)));
    return { body: { condition: apmConditionObject(stored) }, headers: nrqlHeader(stored) };
  });

  restRoute(app, 'DELETE', '/v2/alerts_conditions/:id', async (request, ctx) => {
    const id = pathId(request, 'id', 'condition');
    const current = ownCondition(alerts, ctx, id, 'apm');
    await serviceCall(() => alerts.deleteCondition(ctx.accountId, String(id)));
    return { body: { condition: apmConditionObject(current) } };
  });

  // ---- incidents (NerdGraph issues) ----------------------------------------------------------

  restRoute(app, 'GET', '/v2/alerts_incidents', async (request, ctx) => {
    const params = RestParams.from(request.query, request.body);
    const page = historyPage(params);
    const onlyOpen = params.bool('only_open') ?? false;
    const excludeViolations = params.bool('exclude_violations') ?? false;
    const rows = await alerts.restIssues(ctx.accountId, { onlyOpen, offset: (page - 1) * ALERT_HISTORY_PAGE_SIZE, limit: ALERT_HISTORY_PAGE_SIZE + 1 });
    const shown = rows.slice(0, ALERT_HISTORY_PAGE_SIZE);
    const objects = await incidentObjects(alerts, shown, excludeViolations);
    return withNext({ body: { incidents: objects } }, request, page, rows.length > ALERT_HISTORY_PAGE_SIZE);
  });

  for (const action of ['acknowledge', 'close'] as const) {
    restRoute(app, 'PUT', `/v2/alerts_incidents/:id/${action}`, async (request, ctx) => {
      const number = pathId(request, 'id', 'incident');
      const issueId = await alerts.restIdOf('issue', ctx.accountId, number);
      if (issueId === undefined) throw RestError.notFound(`No incident with id ${number}`);
      const user = userName(deps.catalog, request);
      const done = action === 'acknowledge' ? await alerts.acknowledge(ctx.accountId, issueId, user) : await alerts.resolve(ctx.accountId, issueId, user);
      if (!done) throw RestError.unprocessable(`Incident ${number} is closed: it can no longer be ${action === 'close' ? 'closed' : 'acknowledged'}`);
      const [row] = await alerts.restIssues(ctx.accountId, { onlyOpen: false, ids: [issueId], offset: 0, limit: 1 });
      const [object] = await incidentObjects(alerts, [row!], false);
      return { body: { incident: object } };
    });
  }

  // ---- violations (NerdGraph incidents) ------------------------------------------------------

  restRoute(app, 'GET', '/v2/alerts_violations', async (request, ctx) => {
    const params = RestParams.from(request.query, request.body);
    const page = historyPage(params);
    const from = dateParam(params, 'start_date');
    const to = dateParam(params, 'end_date');
    if (from !== undefined && to !== undefined && from > to) throw RestError.unprocessable('start_date must not be after end_date');
    const rows = await alerts.restIncidents(ctx.accountId, {
      onlyOpen: params.bool('only_open') ?? false,
      ...(from !== undefined ? { openedFrom: from } : {}),
      ...(to !== undefined ? { openedTo: to } : {}),
      offset: (page - 1) * ALERT_HISTORY_PAGE_SIZE,
      limit: ALERT_HISTORY_PAGE_SIZE + 1,
    });
    const shown = rows.slice(0, ALERT_HISTORY_PAGE_SIZE);
    const context = await violationContext(deps, ctx, shown.map((r) => r.value));
    const now = deps.clock.now();
    const violations = shown.map((r) =>
      violationObject(r.value, r.number, {
        policyName: context.policyName(r.value), issueNumber: context.issueNumber(r.value), entity: context.entity(r.value), now,
      }),
    );
    return withNext({ body: { violations } }, request, page, rows.length > ALERT_HISTORY_PAGE_SIZE);
  });

  // ---- channels ------------------------------------------------------------------------------

  restRoute(app, 'GET', '/v2/alerts_channels', async (request, ctx) => {
    const params = RestParams.from(request.query, request.body);
    const all = alerts.notifier.legacy.list(ctx.accountId);
    const { pageItems, page, lastPage } = paginate(all, parsePage(params.one('page')), ALERT_CONFIG_PAGE_SIZE);
    const policies = policyIdsOf(alerts, ctx);
    return { body: { channels: pageItems.map((c) => channelObject(c, policies)) }, pagination: { page, lastPage } };
  });

  restRoute(app, 'POST', '/v2/alerts_channels', async (request, ctx) => {
    const params = RestParams.from(request.query, undefined);
    const policyIds = idList(params.allOf('policy_ids', 'policy_ids[]').join(','), 'policy_ids');
    for (const id of policyIds) ownPolicy(alerts, ctx, id);
    const input = member(request.body, 'channel');
    const channel = await channelCall(() => alerts.notifier.legacy.create(ctx.accountId, { name: input.name, type: input.type, configuration: input.configuration }, policyIds));
    return { status: 201, body: { channels: [channelObject(channel, policyIdsOf(alerts, ctx))] } };
  });

  restRoute(app, 'DELETE', '/v2/alerts_channels/:id', async (request, ctx) => {
    const id = pathId(request, 'id', 'channel');
    const channel = await channelCall(() => alerts.notifier.legacy.delete(ctx.accountId, id));
    return { body: { channel: channelObject(channel, policyIdsOf(alerts, ctx)) } };
  });

  restRoute(app, 'PUT', '/v2/alerts_policy_channels', async (request, ctx) => {
    const params = RestParams.from(request.query, request.body);
    const policyId = requiredPolicyId(params);
    ownPolicy(alerts, ctx, policyId);
    const text = params.one('channel_ids');
    if (text === undefined || text === '') throw RestError.unprocessable('channel_ids is required');
    const channelIds = idList(text, 'channel_ids');
    await channelCall(() => alerts.notifier.legacy.link(ctx.accountId, policyId, channelIds));
    const linked = alerts.notifier.legacy.list(ctx.accountId).filter((c) => c.policyIds.includes(policyId)).map((c) => c.id);
    return { body: { policy: { id: policyId, channel_ids: linked } } };
  });

  restRoute(app, 'DELETE', '/v2/alerts_policy_channels', async (request, ctx) => {
    const params = RestParams.from(request.query, request.body);
    const policyId = requiredPolicyId(params);
    ownPolicy(alerts, ctx, policyId);
    const text = params.one('channel_id');
    if (text === undefined || !/^\d{1,15}$/.test(text)) throw RestError.unprocessable(text === undefined ? 'channel_id is required' : `Invalid channel_id '${text}': expected a channel id`);
    const channel = await channelCall(() => alerts.notifier.legacy.unlink(ctx.accountId, policyId, Number(text)));
    return { body: { channel: channelObject(channel, policyIdsOf(alerts, ctx)) } };
  });

  // ---- recent events -------------------------------------------------------------------------

  restRoute(app, 'GET', '/v2/alerts_events', async (request, ctx) => {
    const params = RestParams.from(request.query, request.body);
    const page = historyPage(params);
    const { test, scope } = eventFilter(params);
    const matching = (await recentEvents(deps, ctx, scope, page * ALERT_HISTORY_PAGE_SIZE + 1)).filter(test);
    const pageItems = matching.slice((page - 1) * ALERT_HISTORY_PAGE_SIZE, page * ALERT_HISTORY_PAGE_SIZE);
    return withNext({ body: { recent_events: pageItems } }, request, page, matching.length > page * ALERT_HISTORY_PAGE_SIZE);
  });
}

// ---- helpers -----------------------------------------------------------------------------------

/**
 * A REST update over a condition NerdGraph may have set more of: what REST cannot say (the description,
 * `signal.evaluationDelay`, `expiration.ignoreOnExpectedTermination`, and any field NerdGraph's input
 * shares with the stored condition) keeps its stored value; what REST says replaces it.
 */
function keepUnspoken(current: NrqlCondition, input: NrqlConditionInput): NrqlConditionInput {
  return {
    ...current,
    ...input,
    description: current.description,
    signal: input.signal === null || input.signal === undefined ? input.signal : { evaluationDelay: current.signal.evaluationDelay, ...input.signal },
    expiration: input.expiration === null || input.expiration === undefined
      ? { ignoreOnExpectedTermination: current.expiration.ignoreOnExpectedTermination }
      : { ignoreOnExpectedTermination: current.expiration.ignoreOnExpectedTermination, ...input.expiration },
  };
}

/** Comma-separated ids; a 422 naming the parameter when one is not a whole number. */
function idList(text: string, name: string): number[] {
  const parts = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (parts.some((p) => !/^\d{1,15}$/.test(p))) throw RestError.unprocessable(`Invalid ${name} '${text}': expected comma-separated ids`);
  return [...new Set(parts.map(Number))];
}

function policyIdsOf(alerts: AlertService, ctx: RestContext): Set<number> {
  return new Set(alerts.policies(ctx.accountId).map((p) => Number(p.policy.id)));
}

async function channelCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof LegacyChannelError) throw new RestError(error.status, error.message, error.details);
    throw error;
  }
}

function conditionObject(stored: StoredCondition): Record<string, unknown> {
  const c = stored.condition;
  const guid = Buffer.from(`${c.accountId}|AIOPS|CONDITION|${c.id}`, 'utf8').toString('base64').replace(/=+$/, '');
  return nrqlConditionObject(stored, guid);
}

async function serviceCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AlertValidationError) {
      throw RestError.unprocessable('Validation failed', error.validationErrors.map((e) => `${e.name}: ${e.reason}`));
    }
    if (error instanceof AlertNotFoundError) throw RestError.notFound(error.message);
    throw error;
  }
}

function ownPolicy(alerts: AlertService, ctx: RestContext, id: number) {
  const stored = alerts.policies(ctx.accountId).find((p) => p.policy.id === String(id));
  if (stored === undefined) throw RestError.notFound(`No policy with id ${id}`);
  return stored;
}

/** A condition of the account, of the kind the endpoint serves (an APM condition is not an NRQL one on REST). */
function ownCondition(alerts: AlertService, ctx: RestContext, id: number, kind: 'nrql' | 'apm'): StoredCondition {
  const stored = alerts.conditions(ctx.accountId).find((c) => c.condition.id === String(id) && (c.condition.apmMetric !== undefined) === (kind === 'apm'));
  if (stored === undefined) throw RestError.notFound(`No ${kind === 'nrql' ? 'NRQL condition' : 'condition'} with id ${id}`);
  return stored;
}

function requiredPolicyId(params: RestParams): number {
  const text = params.one('policy_id');
  if (text === undefined) throw RestError.unprocessable('policy_id is required');
  if (!/^\d{1,15}$/.test(text)) throw RestError.unprocessable(`Invalid policy_id '${text}': expected a policy id`);
  return Number(text);
}

function historyPage(params: RestParams): number {
  const page = parsePage(params.one('page'));
  if (page > ALERT_HISTORY_MAX_PAGE) throw RestError.unprocessable(`Invalid page ${page}: at most ${ALERT_HISTORY_MAX_PAGE} pages are served; use only_open or a date range`);
  return page;
}

function dateParam(params: RestParams, name: string): number | undefined {
  const text = params.one(name);
  if (text === undefined || text === '') return undefined;
  const ms = parseRestTime(text);
  if (ms === undefined) throw RestError.unprocessable(`Invalid ${name} '${text}': expected an ISO 8601 time such as 2024-03-05T14:00:00+00:00`);
  return ms;
}

function withNext(result: RestResult, request: FastifyRequest, page: number, hasNext: boolean): RestResult {
  const link = nextOnlyLinkHeader(requestUrl(request), page, hasNext);
  return link === undefined ? result : { ...result, headers: { ...result.headers, link } };
}

/** The acting user's name, as NerdGraph records it for the same key. */
function userName(catalog: Catalog, request: FastifyRequest): string {
  for (const header of [request.headers['x-api-key'], request.headers['api-key']].flat()) {
    const user = header === undefined ? undefined : catalog.userOfKey(header.trim());
    if (user !== undefined) return user.name;
  }
  return 'REST API';
}

async function incidentObjects(alerts: AlertService, rows: ReadonlyArray<{ number: number; value: Issue }>, excludeViolations: boolean) {
  const numbers = excludeViolations ? new Map<string, number>() : await alerts.restNumbers('incident', rows.flatMap((r) => r.value.incidentIds));
  return rows.map((r) =>
    incidentObject(r.value, r.number, excludeViolations ? undefined : r.value.incidentIds.map((id) => numbers.get(id)!).filter((n) => n !== undefined)),
  );
}

interface ViolationContext {
  policyName(incident: Incident): string;
  issueNumber(incident: Incident): number | undefined;
  entity(incident: Incident): ViolationEntity;
}

/**
 * What a violation shows beyond its incident: the policy's name (from its issue, which keeps it
 * after the policy is gone), its issue's number, and its entity: the APM application its signal or
 * its condition's WHERE names, else the query itself (product NRQL, as the legacy webhook's
 * targets name an NRQL condition's).
 */
async function violationContext(deps: AlertRouteDeps, ctx: RestContext, incidents: readonly Incident[]): Promise<ViolationContext> {
  const issueIds = [...new Set(incidents.map((i) => i.issueId).filter((id): id is string => id !== null))];
  const issues = issueIds.length === 0 ? [] : await deps.alerts.restIssues(ctx.accountId, { onlyOpen: false, ids: issueIds, offset: 0, limit: issueIds.length });
  const issueById = new Map(issues.map((r) => [r.value.id, r]));
  const policies = new Map(deps.alerts.policies(ctx.accountId).map((p) => [p.policy.id, p.policy.name]));
  const conditions = new Map(deps.alerts.conditions(ctx.accountId).map((c) => [c.condition.id, c.condition]));
  const apps = new Map(deps.catalog.applications(ctx.accountId).map((a) => [a.name, a]));
  return {
    policyName: (i) => (i.issueId !== null ? issueById.get(i.issueId)?.value.policyName : undefined) ?? policies.get(i.policyId) ?? '',
    issueNumber: (i) => (i.issueId !== null ? issueById.get(i.issueId)?.number : undefined),
    entity: (i) => {
      const app = applicationOfIncident(i, conditions.get(i.conditionId)?.entityTargets, (name) => apps.get(name));
      if (app !== undefined) return { product: 'Apm', type: 'Application', group_id: app.id, id: app.id, name: app.name };
      const conditionId = Number(i.conditionId);
      return { product: 'NRQL', type: 'Query', group_id: conditionId, id: conditionId, name: targetName(i) };
    },
  };
}

/** Which stored objects an events request must read. */
type EventScope =
  /** No filter: the `want` newest events come from the `want` incidents and issues with the latest steps. */
  | { readonly kind: 'newest' }
  /** filter[incident_id]: that incident (issue) and its violations (incidents). */
  | { readonly kind: 'incident'; readonly number: number }
  /** Any other filter: the whole history, filtered afterwards. */
  | { readonly kind: 'all' };

/**
 * The account's alert history as New Relic's recent events, newest first: each violation's open and
 * close, each incident's open, acknowledgement and close, derived from the stored incidents and
 * issues so the three lists never disagree. Unfiltered, only the `want` incidents and issues whose
 * latest step is newest are read: every one of the `want` newest events belongs to one of them (an
 * object outside them has `want` others of its kind with a later step, each an event at least as new).
 */
async function recentEvents(deps: AlertRouteDeps, ctx: RestContext, scope: EventScope, want: number): Promise<RecentEvent[]> {
  let incidents: Array<{ number: number; value: Incident }>;
  let issues: Array<{ number: number; value: Issue }>;
  if (scope.kind === 'incident') {
    const issueId = await deps.alerts.restIdOf('issue', ctx.accountId, scope.number);
    if (issueId === undefined) return [];
    issues = await deps.alerts.restIssues(ctx.accountId, { onlyOpen: false, ids: [issueId], offset: 0, limit: 1 });
    const ids = issues[0]?.value.incidentIds ?? [];
    incidents = await deps.alerts.restIncidents(ctx.accountId, { onlyOpen: false, ids, offset: 0, limit: ids.length });
  } else {
    const limit = scope.kind === 'newest' ? want : Number.MAX_SAFE_INTEGER;
    incidents = await deps.alerts.restIncidents(ctx.accountId, { onlyOpen: false, offset: 0, limit, byLatest: true });
    issues = await deps.alerts.restIssues(ctx.accountId, { onlyOpen: false, offset: 0, limit, byLatest: true });
  }
  const context = await violationContext(deps, ctx, incidents.map((r) => r.value));
  const events = [
    ...incidents.flatMap((r) => violationEvents(r.value, r.number, context.issueNumber(r.value), context.entity(r.value))),
    ...issues.flatMap((r) => incidentEvents(r.value, r.number)),
  ];
  return events.sort((a, b) => b.timestamp - a.timestamp || b.id - a.id);
}

const EVENT_FILTERS = {
  'filter[product]': (e: RecentEvent) => e.product,
  'filter[entity_type]': (e: RecentEvent) => e.entity_type,
  'filter[event_type]': (e: RecentEvent) => e.event_type,
} as const;
const EVENT_ID_FILTERS = {
  'filter[entity_group_id]': (e: RecentEvent) => e.entity_group_id,
  'filter[entity_id]': (e: RecentEvent) => e.entity_id,
  'filter[incident_id]': (e: RecentEvent) => e.incident_id,
} as const;

/**
 * `filter[…]` of the recent events: names compare without case (clients send APM or Apm); ids are
 * whole numbers. `VIOLATION` matches both violation steps.
 */
function eventFilter(params: RestParams): { test: (e: RecentEvent) => boolean; scope: EventScope } {
  const tests: Array<(e: RecentEvent) => boolean> = [];
  const given: string[] = [];
  for (const [name, field] of Object.entries(EVENT_FILTERS)) {
    const value = params.one(name);
    if (value === undefined || value === '') continue;
    given.push(name);
    const wanted = value.toUpperCase();
    if (name === 'filter[event_type]' && wanted === 'VIOLATION') tests.push((e) => e.event_type.startsWith('VIOLATION_'));
    else tests.push((e) => field(e)?.toUpperCase() === wanted);
  }
  for (const [name, field] of Object.entries(EVENT_ID_FILTERS)) {
    const value = params.one(name);
    if (value === undefined || value === '') continue;
    if (!/^\d{1,15}$/.test(value)) throw RestError.unprocessable(`Invalid ${name} '${value}': expected a whole number`);
    given.push(name);
    tests.push((e) => field(e) === Number(value));
  }
  const incident = params.one('filter[incident_id]');
  const scope: EventScope = given.length === 0 ? { kind: 'newest' }
    : given.includes('filter[incident_id]') ? { kind: 'incident', number: Number(incident) }
    : { kind: 'all' };
  return { test: (e) => tests.every((t) => t(e)), scope };
}
