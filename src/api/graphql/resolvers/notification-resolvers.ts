import type { AlertService } from '../../../alerts/alert-service.js';
import type { Channel, Destination, Workflow } from '../../../domain/alerts/notification-model.js';
import type { NotificationError, Outcome, WorkflowInput } from '../../../alerts/notifier.js';
import type { GraphContext } from '../graph-context.js';
import { GraphError } from '../graph-errors.js';

/*
 * NerdGraph's aiNotifications (destinations, channels) and aiWorkflows over the AlertService's
 * notification configuration. As NerdGraph does, these mutations report refusals in their
 * payload's `error`/`errors` (never top-level errors); times are ISO-8601 strings.
 */

export const NOTIFICATIONS_PAGE_SIZE = 100;

type Root = unknown;

function alertsOf(ctx: GraphContext): AlertService {
  const alerts = ctx.services.alerts;
  if (alerts === undefined) throw new GraphError('INTERNAL_SERVER_ERROR', 'Alerting is not running in this service');
  return alerts;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const guidOf = (accountId: number, type: string, id: string) => Buffer.from(`${accountId}|AIOPS|${type}|${id}`, 'utf8').toString('base64').replace(/=+$/, '');

function page<T>(items: readonly T[], cursor: string | null | undefined): { items: T[]; nextCursor: string | null } {
  const offset = cursor ? Number(Buffer.from(cursor, 'base64').toString('utf8')) : 0;
  if (!Number.isInteger(offset) || offset < 0) throw GraphError.invalidInput(`cursor '${cursor}' is not one this service handed out`);
  const next = offset + NOTIFICATIONS_PAGE_SIZE < items.length ? Buffer.from(String(offset + NOTIFICATIONS_PAGE_SIZE), 'utf8').toString('base64') : null;
  return { items: items.slice(offset, offset + NOTIFICATIONS_PAGE_SIZE), nextCursor: next };
}

function destinationView(d: Destination) {
  const auth = d.auth === null ? null
    : d.auth.type === 'BASIC' ? { __typename: 'AiNotificationsBasicAuth', authType: 'BASIC', user: d.auth.user }
    : d.auth.type === 'TOKEN' ? { __typename: 'AiNotificationsTokenAuth', authType: 'TOKEN', prefix: d.auth.prefix }
    : { __typename: 'AiNotificationsCustomHeadersAuth', authType: 'CUSTOM_HEADERS', customHeaders: d.auth.headers.map((h) => ({ key: h.key })) };
  return {
    accountId: d.accountId, active: d.active, auth, createdAt: iso(d.createdAt), guid: guidOf(d.accountId, 'DESTINATION', d.id), id: d.id,
    isUserAuthenticated: false, lastSent: iso(d.lastSent), name: d.name, properties: d.properties.map((p) => ({ key: p.key, value: p.value, label: p.label ?? null, displayValue: null })),
    scope: { id: String(d.accountId), type: 'ACCOUNT' }, secureUrl: d.secureUrl === null ? null : { prefix: d.secureUrl.prefix },
    status: d.status, type: d.type, updatedAt: iso(d.updatedAt), updatedBy: 0,
  };
}

function channelView(c: Channel) {
  return {
    accountId: c.accountId, active: c.active, createdAt: iso(c.createdAt), destinationId: c.destinationId, id: c.id, name: c.name, product: c.product,
    properties: c.properties.map((p) => ({ key: p.key, value: p.value, label: p.label ?? null, displayValue: null })), status: c.status, type: c.type,
    updatedAt: iso(c.updatedAt), updatedBy: 0,
  };
}

function workflowView(w: Workflow, alerts: AlertService) {
  return {
    accountId: w.accountId, createdAt: iso(w.createdAt),
    destinationConfigurations: w.destinationConfigurations.map((d) => {
      const channel = alerts.notifier.channels.get(d.channelId);
      const destination = channel === undefined ? undefined : alerts.notifier.destinations.get(channel.destinationId);
      return { channelId: d.channelId, name: channel?.name ?? '', type: destination?.type ?? channel?.type ?? 'WEBHOOK', notificationTriggers: d.notificationTriggers, updateOriginalMessage: d.updateOriginalMessage };
    }),
    destinationsEnabled: w.destinationsEnabled,
    enrichments: (w.enrichments ?? []).map((e) => ({
      accountId: w.accountId, configurations: e.queries.map((query) => ({ __typename: 'AiWorkflowsNrqlConfiguration', query })), createdAt: iso(e.createdAt),
      id: e.id, name: e.name, type: 'NRQL', updatedAt: iso(e.updatedAt),
    })),
    enrichmentsEnabled: w.enrichmentsEnabled, guid: guidOf(w.accountId, 'WORKFLOW', w.id), id: w.id,
    issuesFilter: { accountId: w.accountId, ...w.issuesFilter }, lastRun: iso(w.lastRun), mutingRulesHandling: w.mutingRulesHandling, name: w.name,
    updatedAt: iso(w.updatedAt), workflowEnabled: w.workflowEnabled,
  };
}

const responseErrors = (errors: readonly NotificationError[]) => errors.map((e) => ({ __typename: 'AiNotificationsResponseError', description: e.description, details: e.details ?? e.description, type: e.type }));

function notificationPayload<T, V>(outcome: Outcome<T>, key: string, view: (value: T) => V) {
  if (outcome.value === null) {
    const errors = responseErrors(outcome.errors);
    return { [key]: null, error: errors[0] ?? null, errors };
  }
  return { [key]: view(outcome.value), error: null, errors: [] };
}

/** A test's answer: SUCCESS or FAIL with what happened; a refusal (not found, invalid input) is a FAIL with its errors. */
function testPayload(outcome: Outcome<{ ok: boolean; details: string }>) {
  if (outcome.value === null) {
    const errors = responseErrors(outcome.errors);
    return { result: 'FAIL', details: outcome.errors[0]?.description ?? null, evidence: null, error: errors[0] ?? null, errors };
  }
  return { result: outcome.value.ok ? 'SUCCESS' : 'FAIL', details: outcome.value.details, evidence: null, error: null, errors: [] };
}

interface DestinationUpdate {
  name?: string | null;
  active?: boolean | null;
  properties?: { key: string; value: string; label?: string | null }[] | null;
  auth?: Parameters<AlertService['notifications']['saveDestination']>[1]['auth'];
  secureUrl?: { prefix?: string | null; secureSuffix?: string | null } | null;
}

/** A stored destination with an update's fields applied (absent ones keep their values). */
function updatedDestination(alerts: AlertService, destinationId: string, d: DestinationUpdate): Parameters<AlertService['notifications']['saveDestination']>[1] {
  const current = alerts.notifier.destinations.get(destinationId);
  const secureUrl = d.secureUrl ? { prefix: d.secureUrl.prefix ?? current?.secureUrl?.prefix ?? '', secureSuffix: d.secureUrl.secureSuffix ?? current?.secureUrl?.secureSuffix ?? '' } : null;
  return {
    name: d.name ?? current?.name ?? '', type: current?.type ?? 'WEBHOOK', properties: d.properties ?? current?.properties.map((p) => ({ ...p })) ?? [],
    auth: d.auth ?? null, secureUrl, active: d.active ?? null,
  };
}

const unauthorized = (accountId: number): NotificationError => ({ type: 'UNAUTHORIZED_ACCOUNT', description: `Access denied: this API key cannot reach account ${accountId}` });

/** NerdGraph declares accountId nullable on destination mutations (client-go sends it so); null means the key's account. */
function accountOf(ctx: GraphContext, accountId: number | null | undefined): number {
  return accountId ?? ctx.principal.accountId;
}

/** `actor.account(id).aiNotifications`. */
export class AiNotificationsAccountView {
  constructor(private readonly accountId: number) {}

  destinations(args: { cursor?: string | null; filters?: { active?: boolean | null; exactName?: string | null; id?: string | null; ids?: string[] | null; name?: string | null; type?: string | null; authType?: string | null; property?: { key: string; value: string } | null } | null; sorter?: { direction: string; field: string } | null }, ctx: GraphContext) {
    const f = args.filters ?? {};
    let all = [...alertsOf(ctx).notifier.destinations.values()].filter(
      (d) =>
        d.accountId === this.accountId &&
        (f.active != null ? d.active === f.active : true) &&
        (f.exactName ? d.name === f.exactName : true) &&
        (f.name ? d.name.toLowerCase().includes(f.name.toLowerCase()) : true) &&
        (f.id ? d.id === f.id : true) &&
        (f.ids ? f.ids.includes(d.id) : true) &&
        (f.type ? d.type === f.type : true) &&
        (f.authType ? d.auth?.type === f.authType : true) &&
        (f.property ? d.properties.some((p) => p.key === f.property!.key && p.value === f.property!.value) : true),
    );
    all = sorted(all, args.sorter, { NAME: (d) => d.name, TYPE: (d) => d.type, STATUS: (d) => d.status, UPDATED_AT: (d) => d.updatedAt, LAST_SENT: (d) => d.lastSent ?? 0, ACTIVE: (d) => String(d.active) });
    const { items, nextCursor } = page(all, args.cursor);
    return { entities: items.map(destinationView), nextCursor, totalCount: all.length, error: null, errors: [] };
  }

  channels(args: { cursor?: string | null; filters?: { active?: boolean | null; destinationId?: string | null; id?: string | null; ids?: string[] | null; name?: string | null; product?: string | null; type?: string | null; statuses?: string[] | null; property?: { key: string; value: string } | null } | null; sorter?: { direction: string; field: string } | null }, ctx: GraphContext) {
    const f = args.filters ?? {};
    let all = [...alertsOf(ctx).notifier.channels.values()].filter(
      (c) =>
        c.accountId === this.accountId &&
        (f.active != null ? c.active === f.active : true) &&
        (f.destinationId ? c.destinationId === f.destinationId : true) &&
        (f.id ? c.id === f.id : true) &&
        (f.ids ? f.ids.includes(c.id) : true) &&
        (f.name ? c.name.toLowerCase().includes(f.name.toLowerCase()) : true) &&
        (f.product ? c.product === f.product : true) &&
        (f.type ? c.type === f.type : true) &&
        (f.statuses ? f.statuses.includes(c.status) : true) &&
        (f.property ? c.properties.some((p) => p.key === f.property!.key && p.value === f.property!.value) : true),
    );
    all = sorted(all, args.sorter, { NAME: (c) => c.name, TYPE: (c) => c.type, STATUS: (c) => c.status, UPDATED_AT: (c) => c.updatedAt, PRODUCT: (c) => c.product });
    const { items, nextCursor } = page(all, args.cursor);
    return { entities: items.map(channelView), nextCursor, totalCount: all.length, error: null, errors: [] };
  }
}

function sorted<T extends { createdAt: number }>(items: T[], sorter: { direction: string; field: string } | null | undefined, keys: Record<string, (t: T) => string | number>): T[] {
  const key = sorter ? keys[sorter.field] : undefined;
  const by = key ?? ((t: T) => t.createdAt);
  const dir = sorter?.direction === 'DESC' ? -1 : 1;
  return [...items].sort((a, b) => {
    const x = by(a);
    const y = by(b);
    return (x < y ? -1 : x > y ? 1 : 0) * dir;
  });
}

/** `actor.account(id).aiWorkflows`. */
export class AiWorkflowsAccountView {
  constructor(private readonly accountId: number) {}

  workflows(args: { cursor?: string | null; filters?: { channelId?: string | null; destinationType?: string | null; filterId?: string | null; guid?: string | null; id?: string | null; name?: string | null; nameLike?: string | null; workflowEnabled?: boolean | null; enrichmentId?: string | null } | null }, ctx: GraphContext) {
    const alerts = alertsOf(ctx);
    const f = args.filters ?? {};
    const all = [...alerts.notifier.workflows.values()]
      .filter((w) => {
        const view = workflowView(w, alerts);
        return (
          w.accountId === this.accountId &&
          (f.id ? w.id === f.id : true) &&
          (f.guid ? view.guid === f.guid : true) &&
          (f.name ? w.name === f.name : true) &&
          (f.nameLike ? w.name.toLowerCase().includes(f.nameLike.toLowerCase()) : true) &&
          (f.workflowEnabled != null ? w.workflowEnabled === f.workflowEnabled : true) &&
          (f.channelId ? w.destinationConfigurations.some((d) => d.channelId === f.channelId) : true) &&
          (f.destinationType ? view.destinationConfigurations.some((d) => d.type === f.destinationType) : true) &&
          (f.filterId ? w.issuesFilter.id === f.filterId : true) &&
          (f.enrichmentId ? false : true)
        );
      })
      .sort((a, b) => a.createdAt - b.createdAt);
    const { items, nextCursor } = page(all, args.cursor);
    return { entities: items.map((w) => workflowView(w, alerts)), nextCursor, totalCount: all.length };
  }
}

type WorkflowErrors = Array<{ type: string; description: string }>;

function workflowPayload(outcome: Outcome<Workflow>, alerts: AlertService): { workflow: ReturnType<typeof workflowView> | null; errors: WorkflowErrors } {
  if (outcome.value === null) return { workflow: null, errors: outcome.errors.map((e) => ({ type: e.type, description: e.description })) };
  return { workflow: workflowView(outcome.value, alerts), errors: [] };
}

interface WorkflowGraphInput extends Partial<Omit<WorkflowInput, 'issuesFilter'>> {
  issuesFilter?: WorkflowInput['issuesFilter'] | { id?: string | null; filterInput: NonNullable<WorkflowInput['issuesFilter']> } | null;
}

export const notificationResolvers = {
  AiNotificationsAuth: { __resolveType: (auth: { __typename: string }) => auth.__typename },
  AiNotificationsError: { __resolveType: (error: { __typename: string }) => error.__typename },
  AiWorkflowsConfiguration: { __resolveType: () => 'AiWorkflowsNrqlConfiguration' },
  RootMutationType: {
    aiNotificationsCreateDestination: async (_r: Root, args: { accountId?: number | null; destination: Parameters<AlertService['notifications']['saveDestination']>[1] }, ctx: GraphContext) => {
      const accountId = accountOf(ctx, args.accountId);
      if (!ctx.canRead(accountId)) return notificationPayload({ value: null, errors: [unauthorized(accountId)] }, 'destination', destinationView);
      return notificationPayload(await alertsOf(ctx).notifications.saveDestination(accountId, args.destination), 'destination', destinationView);
    },
    aiNotificationsUpdateDestination: async (_r: Root, args: { accountId?: number | null; destinationId: string; destination: DestinationUpdate }, ctx: GraphContext) => {
      const accountId = accountOf(ctx, args.accountId);
      if (!ctx.canRead(accountId)) return notificationPayload({ value: null, errors: [unauthorized(accountId)] }, 'destination', destinationView);
      const alerts = alertsOf(ctx);
      return notificationPayload(await alerts.notifications.saveDestination(accountId, updatedDestination(alerts, args.destinationId, args.destination), args.destinationId), 'destination', destinationView);
    },
    aiNotificationsTestDestination: async (_r: Root, args: { accountId?: number | null; destination: Parameters<AlertService['notifications']['saveDestination']>[1] }, ctx: GraphContext) => {
      const accountId = accountOf(ctx, args.accountId);
      if (!ctx.canRead(accountId)) return testPayload({ value: null, errors: [unauthorized(accountId)] });
      return testPayload(await alertsOf(ctx).notifications.testDestination(accountId, args.destination));
    },
    aiNotificationsTestDestinationById: async (_r: Root, args: { accountId?: number | null; destinationId: string; destination?: DestinationUpdate | null }, ctx: GraphContext) => {
      const accountId = accountOf(ctx, args.accountId);
      if (!ctx.canRead(accountId)) return testPayload({ value: null, errors: [unauthorized(accountId)] });
      const alerts = alertsOf(ctx);
      const input = args.destination ? updatedDestination(alerts, args.destinationId, args.destination) : null;
      return testPayload(await alerts.notifications.testDestination(accountId, input, args.destinationId));
    },
    aiNotificationsTestChannel: async (_r: Root, args: { accountId: number; channel: Parameters<AlertService['notifications']['testChannel']>[1] }, ctx: GraphContext) => {
      if (!ctx.canRead(args.accountId)) return testPayload({ value: null, errors: [unauthorized(args.accountId)] });
      return testPayload(await alertsOf(ctx).notifications.testChannel(args.accountId, args.channel));
    },
    aiNotificationsTestChannelById: async (_r: Root, args: { accountId: number; channelId: string }, ctx: GraphContext) => {
      if (!ctx.canRead(args.accountId)) return testPayload({ value: null, errors: [unauthorized(args.accountId)] });
      return testPayload(await alertsOf(ctx).notifications.testChannel(args.accountId, null, args.channelId));
    },
    aiNotificationsDeleteDestination: async (_r: Root, args: { accountId?: number | null; destinationId: string }, ctx: GraphContext) => {
      const accountId = accountOf(ctx, args.accountId);
      const outcome = ctx.canRead(accountId) ? await alertsOf(ctx).notifications.deleteDestination(accountId, args.destinationId) : { value: null, errors: [unauthorized(accountId)] };
      return deletePayload(outcome);
    },
    aiNotificationsCreateChannel: async (_r: Root, args: { accountId: number; channel: Parameters<AlertService['notifications']['saveChannel']>[1] }, ctx: GraphContext) => {
      if (!ctx.canRead(args.accountId)) return notificationPayload({ value: null, errors: [unauthorized(args.accountId)] }, 'channel', channelView);
      return notificationPayload(await alertsOf(ctx).notifications.saveChannel(args.accountId, args.channel), 'channel', channelView);
    },
    aiNotificationsUpdateChannel: async (_r: Root, args: { accountId: number; channelId: string; channel: { name?: string | null; active?: boolean | null; properties?: { key: string; value: string; label?: string | null }[] | null } }, ctx: GraphContext) => {
      if (!ctx.canRead(args.accountId)) return notificationPayload({ value: null, errors: [unauthorized(args.accountId)] }, 'channel', channelView);
      const c = args.channel;
      const input = { ...(c.name != null ? { name: c.name } : {}), ...(c.active != null ? { active: c.active } : {}), ...(c.properties != null ? { properties: c.properties } : {}) };
      return notificationPayload(await alertsOf(ctx).notifications.saveChannel(args.accountId, input, args.channelId), 'channel', channelView);
    },
    aiNotificationsDeleteChannel: async (_r: Root, args: { accountId: number; channelId: string }, ctx: GraphContext) => {
      const outcome = ctx.canRead(args.accountId) ? await alertsOf(ctx).notifications.deleteChannel(args.accountId, args.channelId) : { value: null, errors: [unauthorized(args.accountId)] };
      return deletePayload(outcome);
    },
    aiWorkflowsCreateWorkflow: async (_r: Root, args: { accountId: number; createWorkflowData: WorkflowGraphInput }, ctx: GraphContext) => {
      const alerts = alertsOf(ctx);
      if (!ctx.canRead(args.accountId)) return workflowPayload({ value: null, errors: [unauthorized(args.accountId)] }, alerts);
      return workflowPayload(await alerts.notifications.saveWorkflow(args.accountId, workflowInput(args.createWorkflowData)), alerts);
    },
    aiWorkflowsUpdateWorkflow: async (_r: Root, args: { accountId: number; deleteUnusedChannels: boolean; updateWorkflowData: WorkflowGraphInput & { id: string } }, ctx: GraphContext) => {
      const alerts = alertsOf(ctx);
      if (!ctx.canRead(args.accountId)) return workflowPayload({ value: null, errors: [unauthorized(args.accountId)] }, alerts);
      const before = alerts.notifier.workflows.get(args.updateWorkflowData.id);
      const outcome = await alerts.notifications.saveWorkflow(args.accountId, workflowInput(args.updateWorkflowData), args.updateWorkflowData.id);
      if (outcome.value !== null && args.deleteUnusedChannels && before !== undefined) {
        const kept = new Set(outcome.value.destinationConfigurations.map((d) => d.channelId));
        for (const d of before.destinationConfigurations) if (!kept.has(d.channelId)) await alerts.notifications.deleteChannel(args.accountId, d.channelId);
      }
      return workflowPayload(outcome, alerts);
    },
    aiWorkflowsDeleteWorkflow: async (_r: Root, args: { accountId: number; deleteChannels: boolean; id: string }, ctx: GraphContext) => {
      if (!ctx.canRead(args.accountId)) return { id: null, errors: [{ type: 'UNAUTHORIZED_ACCOUNT', description: unauthorized(args.accountId).description }] };
      const outcome = await alertsOf(ctx).notifications.deleteWorkflow(args.accountId, args.id, args.deleteChannels);
      return outcome.value === null ? { id: null, errors: outcome.errors.map((e) => ({ type: e.type === 'INVALID_PARAMETER' ? 'INVALID_PARAMETER' : 'VALIDATION_ERROR', description: e.description })) } : { id: outcome.value, errors: [] };
    },
  },
};

function deletePayload(outcome: Outcome<string>) {
  if (outcome.value === null) {
    const errors = responseErrors(outcome.errors).map(({ __typename: _t, ...e }) => e);
    return { ids: null, error: errors[0] ?? null, errors };
  }
  return { ids: [outcome.value], error: null, errors: [] };
}

function workflowInput(input: WorkflowGraphInput): Partial<WorkflowInput> {
  const filter = input.issuesFilter;
  const issuesFilter = filter == null ? undefined : 'filterInput' in filter ? filter.filterInput : filter;
  return {
    ...(input.name != null ? { name: input.name } : {}),
    ...(input.mutingRulesHandling != null ? { mutingRulesHandling: input.mutingRulesHandling } : {}),
    ...(input.destinationConfigurations != null ? { destinationConfigurations: input.destinationConfigurations } : {}),
    ...(issuesFilter !== undefined ? { issuesFilter } : {}),
    ...(input.workflowEnabled != null ? { workflowEnabled: input.workflowEnabled } : {}),
    ...(input.destinationsEnabled != null ? { destinationsEnabled: input.destinationsEnabled } : {}),
    ...(input.enrichmentsEnabled != null ? { enrichmentsEnabled: input.enrichmentsEnabled } : {}),
    ...(input.enrichments != null ? { enrichments: input.enrichments } : {}),
  };
}
