import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { CUSTOM_EVENTS, Rows } from '../store/append-tables.js';
import type { AlertRecords, OutboxEntry } from '../store/alert-records.js';
import type { Issue } from '../domain/alerts/alert-model.js';
import type { AlertEvent } from '../domain/alerts/alert-engine.js';
import { deliveryRows, notificationErrorRow, notificationRow } from './alert-nrql-events.js';
import { issueAttributes, issueMatches } from '../domain/alerts/issues-filter.js';
import type { Channel, Destination, Workflow } from '../domain/alerts/notification-model.js';
import { DEFAULT_NOTIFICATION_TRIGGERS, notificationTriggerOf } from '../domain/alerts/notification-triggers.js';
import { defaultPayload, renderTemplate, templateVariables } from '../domain/alerts/webhook-payload.js';
import { issueMutingState, workflowNotifies } from '../domain/alerts/muting-rules.js';
import { DEFAULT_WEBHOOK_OPTIONS, sendWebhook, type WebhookOptions } from './webhook-sender.js';
import { LegacyChannels } from './legacy-channels.js';

export interface NotifierDeps {
  readonly records: AlertRecords;
  readonly clock: Clock;
  /** Appends NrAiNotification / NrIntegrationError rows (the batch writer). */
  readonly writeEvents?: (rows: Rows[]) => Promise<void>;
  readonly webhook?: WebhookOptions;
  /** The service's public address, for issue links in payloads. */
  readonly origin?: () => string;
  readonly log?: (message: string, error?: unknown) => void;
}

/** The header carrying a notification's idempotency key, so a receiver can drop a repeat. */
export const IDEMPOTENCY_HEADER = 'x-timeslice-idempotency-key';

/**
 * Workflows, channels and destinations, and the delivery of notifications. Which notifications an
 * issue change calls for is decided when the change is committed (`outboxFor`), so the outbox row
 * commits with it; `dispatch` then sends what is pending, once, recording every attempt.
 */
export class Notifier {
  readonly destinations = new Map<string, Destination>();
  readonly channels = new Map<string, Channel>();
  readonly workflows = new Map<string, Workflow>();
  /** REST v2's channels, delivered through the same outbox. */
  readonly legacy: LegacyChannels;
  private dispatching: Promise<void> | undefined;
  private again = false;

  constructor(private readonly deps: NotifierDeps) {
    this.legacy = new LegacyChannels(deps);
  }

  async load(): Promise<void> {
    await this.legacy.load();
    const config = await this.deps.records.loadNotificationConfig();
    for (const d of config.destinations) this.destinations.set(d.id, d);
    for (const c of config.channels) this.channels.set(c.id, c);
    for (const w of config.workflows) this.workflows.set(w.id, w);
  }

  /** The outbox entries for a batch of alert events (issues read from `issueOf` as they now stand). */
  outboxFor(events: readonly AlertEvent[], issueOf: (id: string) => Issue | undefined): OutboxEntry[] {
    const out: OutboxEntry[] = [];
    for (const e of events) {
      if (e.kind !== 'issue') continue;
      const trigger = notificationTriggerOf(e.event);
      const issue = issueOf(e.event.issueId);
      if (trigger === null || issue === undefined) continue;
      const snapshot: Issue = { ...issue, state: e.event.state, priority: e.event.priority, updatedAt: e.event.updatedAt };
      const attributes = issueAttributes(snapshot, snapshot.conditionNames);
      for (const workflow of this.workflows.values()) {
        if (workflow.accountId !== issue.accountId || !workflow.workflowEnabled || !workflow.destinationsEnabled) continue;
        if (!workflowNotifies(workflow.mutingRulesHandling, issueMutingState(issue))) continue;
        if (!issueMatches(workflow.issuesFilter.predicates, attributes)) continue;
        for (const config of workflow.destinationConfigurations) {
          const triggers = config.notificationTriggers.length > 0 ? config.notificationTriggers : DEFAULT_NOTIFICATION_TRIGGERS;
          const channel = this.channels.get(config.channelId);
          if (!triggers.includes(trigger) || channel === undefined || !channel.active) continue;
          const vars = templateVariables(snapshot, e.event, workflow.name, this.deps.origin?.() ?? '');
          const template = channel.properties.find((p) => p.key === 'payload')?.value;
          let body: string;
          try {
            body = template === undefined || template === '' ? JSON.stringify(defaultPayload(vars)) : renderTemplate(template, vars);
          } catch (error) {
            body = JSON.stringify(defaultPayload(vars));
            this.deps.log?.(`channel ${channel.id}: template failed, default payload sent`, error);
          }
          out.push({
            key: [issue.id, channel.id, e.event.trigger, e.event.updatedAt].join('|'),
            accountId: issue.accountId,
            issueId: issue.id,
            channelId: channel.id,
            workflowId: workflow.id,
            workflowName: workflow.name,
            state: e.event.state,
            trigger: e.event.trigger,
            notificationTrigger: trigger,
            body,
            createdAt: e.event.updatedAt,
          });
        }
      }
    }
    return out;
  }

  /** Sends every pending notification; one run at a time (a call during a run makes it go again). */
  dispatch(): Promise<void> {
    if (this.dispatching) {
      this.again = true;
      return this.dispatching;
    }
    this.dispatching = (async () => {
      do {
        this.again = false;
        for (const entry of await this.deps.records.pendingNotifications()) await this.deliver(entry);
      } while (this.again);
    })().finally(() => {
      this.dispatching = undefined;
    });
    return this.dispatching;
  }

  private async deliver(entry: OutboxEntry): Promise<void> {
    if (this.legacy.isLegacy(entry)) return this.legacy.deliver(entry, IDEMPOTENCY_HEADER);
    const channel = this.channels.get(entry.channelId);
    const destination = channel === undefined ? undefined : this.destinations.get(channel.destinationId);
    const rows = new Rows(CUSTOM_EVENTS);
    const common = {
      issueId: entry.issueId, channelId: entry.channelId, workflowId: entry.workflowId, workflowName: entry.workflowName,
      destinationId: destination?.id ?? null, destinationName: destination?.name ?? null, destinationType: destination?.type ?? channel?.type ?? null,
      trigger: entry.trigger, notificationTrigger: entry.notificationTrigger, state: entry.state, idempotencyKey: entry.key,
    };
    const now = () => this.deps.clock.now();
    if (destination === undefined || channel === undefined || destination.type !== 'WEBHOOK' || !destination.active) {
      const reason = destination === undefined || channel === undefined ? 'the channel or its destination was deleted' : destination.active ? `${destination.type} destinations are stored but not delivered` : 'the destination is not active';
      notificationRow(rows, entry.accountId, now(), { ...common, status: 'Failed', attempt: 0, error: reason, operation: 'Notify' });
      notificationErrorRow(rows, entry.accountId, now(), { ...common, message: `Notification not sent: ${reason}` });
      await this.deps.records.markNotification(entry.key, 'FAILED', 0, now());
      await this.writeRows(rows);
      return;
    }
    const { url, headers } = webhookTarget(destination, channel);
    const result = await sendWebhook(url, entry.body, { ...headers, [IDEMPOTENCY_HEADER]: entry.key }, this.deps.webhook ?? DEFAULT_WEBHOOK_OPTIONS);
    deliveryRows(rows, entry.accountId, now(), common, entry.state === 'CLOSED' ? 'Close' : 'Notify', result);
    await this.deps.records.markNotification(entry.key, result.ok ? 'SENT' : 'FAILED', result.attempts.length, now());
    const at = now();
    const workflow = this.workflows.get(entry.workflowId);
    if (workflow !== undefined) {
      const ran = { ...workflow, lastRun: at };
      this.workflows.set(ran.id, ran);
      await this.deps.records.saveNotificationObject('workflow', ran);
    }
    const sentTo = { ...destination, lastSent: result.ok ? at : destination.lastSent, status: result.ok ? 'DEFAULT' : statusOf(result.attempts[result.attempts.length - 1]?.status ?? null) };
    this.destinations.set(sentTo.id, sentTo);
    await this.deps.records.saveNotificationObject('destination', sentTo);
    await this.writeRows(rows);
  }

  /**
   * A test notification (aiNotificationsTest*): the channel's payload, or the default body, rendered
   * over a sample issue and POSTed once (no retries), recorded as an NrAiNotification with operation
   * `Test`. Destination status and lastSent are left alone.
   */
  async sendTest(accountId: number, destination: Destination, channel: Channel | null): Promise<{ ok: boolean; details: string }> {
    const rows = new Rows(CUSTOM_EVENTS);
    const key = `test|${randomUUID()}`;
    const common = {
      channelId: channel?.id ?? null, destinationId: destination.id, destinationName: destination.name, destinationType: destination.type,
      trigger: 'TEST', operation: 'Test', idempotencyKey: key,
    };
    if (destination.type !== 'WEBHOOK') {
      const details = `${destination.type} destinations are stored but not delivered; only WEBHOOK destinations receive notifications`;
      notificationRow(rows, accountId, this.deps.clock.now(), { ...common, status: 'Failed', attempt: 0, error: details });
      await this.writeRows(rows);
      return { ok: false, details };
    }
    const now = this.deps.clock.now();
    const issue: Issue = { ...TEST_ISSUE, id: randomUUID(), accountId, createdAt: now, activatedAt: now, updatedAt: now };
    const vars = templateVariables(issue, { issueId: issue.id, state: 'ACTIVATED', trigger: 'STATE_CHANGE', priority: 'CRITICAL', updatedAt: now }, TEST_ISSUE.policyName, this.deps.origin?.() ?? '');
    const template = channel?.properties.find((p) => p.key === 'payload')?.value;
    const body = template === undefined || template === '' ? JSON.stringify(defaultPayload(vars)) : renderTemplate(template, vars);
    const { url, headers } = webhookTarget(destination, channel ?? NO_CHANNEL);
    const result = await sendWebhook(url, body, { ...headers, [IDEMPOTENCY_HEADER]: key }, { ...(this.deps.webhook ?? DEFAULT_WEBHOOK_OPTIONS), retryDelaysMs: [] });
    const attempt = result.attempts[0]!;
    notificationRow(rows, accountId, this.deps.clock.now(), {
      ...common, status: result.ok ? 'Sent' : 'Failed', attempt: 1, httpStatus: attempt.status, error: attempt.error, durationMs: Math.round(attempt.durationMs),
    });
    await this.writeRows(rows);
    return { ok: result.ok, details: result.ok ? `The test notification was accepted (HTTP ${attempt.status})` : `The test notification failed: ${attempt.error ?? 'unknown error'}` };
  }

  private async writeRows(rows: Rows): Promise<void> {
    if (rows.length === 0 || this.deps.writeEvents === undefined) return;
    await this.deps.writeEvents([rows]).catch((error: unknown) => this.deps.log?.('notification events not recorded', error));
  }
}

function statusOf(httpStatus: number | null): string {
  if (httpStatus === null) return 'TIMEOUT_ERROR';
  if (httpStatus === 401 || httpStatus === 403) return 'AUTH_ERROR';
  if (httpStatus === 429) return 'THROTTLING_WARNING';
  if (httpStatus >= 500) return 'EXTERNAL_SERVER_ERROR';
  return 'CONFIGURATION_ERROR';
}

/** The URL and headers of a webhook: destination auth beats a channel header of the same name. */
export function webhookTarget(destination: Destination, channel: Channel): { url: string; headers: Record<string, string> } {
  const url = destination.secureUrl !== null
    ? destination.secureUrl.prefix + destination.secureUrl.secureSuffix
    : (destination.properties.find((p) => p.key === 'url')?.value ?? '');
  const headers: Record<string, string> = {};
  const channelHeaders = channel.properties.find((p) => p.key === 'headers')?.value;
  if (channelHeaders) {
    try {
      for (const [k, v] of Object.entries(JSON.parse(channelHeaders) as Record<string, unknown>)) headers[k.toLowerCase()] = String(v);
    } catch {
      // A channel's headers were checked when saved; a bad value adds none.
    }
  }
  const auth = destination.auth;
  if (auth?.type === 'BASIC') headers.authorization = `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`;
  if (auth?.type === 'TOKEN') headers.authorization = auth.prefix ? `${auth.prefix} ${auth.token}` : auth.token;
  if (auth?.type === 'CUSTOM_HEADERS') for (const h of auth.headers) headers[h.key.toLowerCase()] = h.value;
  return { url, headers };
}

export function newNotificationId(): string {
  return randomUUID();
}

/** A refusal in NerdGraph's payload-error shape (AiNotificationsResponseError / AiWorkflows*ResponseError). */
export interface NotificationError {
  readonly type: string;
  readonly description: string;
  readonly details?: string;
}

export type Outcome<T> = { readonly value: T; readonly errors: [] } | { readonly value: null; readonly errors: NotificationError[] };

const fail = <T>(type: string, description: string): Outcome<T> => ({ value: null, errors: [{ type, description, details: description }] });

/** Workflows per account (New Relic's limit). */
export const MAX_WORKFLOWS_PER_ACCOUNT = 1000;
/** Destinations and channels per account (Timeslice's bound). */
export const MAX_NOTIFICATION_OBJECTS_PER_ACCOUNT = 1000;

type Property = { key: string; value: string; label?: string | null };

export interface DestinationInput {
  readonly name: string;
  readonly type: string;
  readonly properties: readonly Property[];
  readonly auth?: { type: string; basic?: { user: string; password: string } | null; token?: { prefix?: string | null; token: string } | null; customHeaders?: { customHeaders: { key: string; value?: string | null }[] } | null } | null;
  readonly secureUrl?: { prefix: string; secureSuffix: string } | null;
  readonly active?: boolean | null;
}

export interface ChannelInput {
  readonly name: string;
  readonly type: string;
  readonly product: string;
  readonly destinationId: string;
  readonly properties: readonly Property[];
  readonly active?: boolean | null;
}

export interface WorkflowInput {
  readonly name: string;
  readonly mutingRulesHandling: string;
  readonly destinationConfigurations: ReadonlyArray<{ channelId: string; notificationTriggers?: string[] | null; updateOriginalMessage?: boolean | null }>;
  readonly issuesFilter?: { name?: string | null; type: string; predicates: { attribute: string; operator: string; values: string[] }[] } | null;
  readonly workflowEnabled?: boolean | null;
  readonly destinationsEnabled?: boolean | null;
  readonly enrichmentsEnabled?: boolean | null;
  /** Replaces the enrichments; an entry with the id of a kept one updates it. */
  readonly enrichments?: { nrql: ReadonlyArray<{ id?: string | null; name: string; configuration: ReadonlyArray<{ query: string }> }> } | null;
}

/** Enrichments per workflow (New Relic does not publish its own bound). */
export const MAX_ENRICHMENTS_PER_WORKFLOW = 10;

export class NotificationConfigService {
  constructor(private readonly notifier: Notifier, private readonly records: AlertRecords, private readonly clock: Clock) {}

  async saveDestination(accountId: number, input: DestinationInput, existingId?: string): Promise<Outcome<Destination>> {
    const built = this.buildDestination(accountId, input, existingId);
    if (built.value === null) return built;
    const destination = built.value;
    await this.records.saveNotificationObject('destination', destination);
    this.notifier.destinations.set(destination.id, destination);
    return { value: destination, errors: [] };
  }

  /** aiNotificationsTestDestination(ById): a destination as given (not saved), or a saved one with the changes given. */
  async testDestination(accountId: number, input: DestinationInput | null, existingId?: string): Promise<Outcome<{ ok: boolean; details: string }>> {
    let destination: Destination;
    if (input === null) {
      const current = existingId === undefined ? undefined : this.notifier.destinations.get(existingId);
      if (current === undefined || current.accountId !== accountId) return fail('INVALID_PARAMETER', `Destination ${existingId} Not Found`);
      destination = current;
    } else {
      const built = this.buildDestination(accountId, input, existingId, true);
      if (built.value === null) return built;
      destination = built.value;
    }
    return { value: await this.notifier.sendTest(accountId, destination, null), errors: [] };
  }

  /** aiNotificationsTestChannel(ById): a channel as given (not saved), or a saved one, to its destination. */
  async testChannel(accountId: number, input: ChannelInput | null, existingId?: string): Promise<Outcome<{ ok: boolean; details: string }>> {
    let channel: Channel;
    if (input === null) {
      const current = existingId === undefined ? undefined : this.notifier.channels.get(existingId);
      if (current === undefined || current.accountId !== accountId) return fail('INVALID_PARAMETER', `Channel ${existingId} Not Found`);
      channel = current;
    } else {
      const built = this.buildChannel(accountId, input);
      if (built.value === null) return built;
      channel = built.value;
    }
    return { value: await this.notifier.sendTest(accountId, this.notifier.destinations.get(channel.destinationId)!, channel), errors: [] };
  }

  private buildDestination(accountId: number, input: DestinationInput, existingId?: string, test = false): Outcome<Destination> {
    const current = existingId === undefined ? undefined : this.notifier.destinations.get(existingId);
    if (existingId !== undefined && (current === undefined || current.accountId !== accountId)) return fail('INVALID_PARAMETER', `Destination ${existingId} Not Found`);
    if (!test && current === undefined && this.count(this.notifier.destinations, accountId) >= MAX_NOTIFICATION_OBJECTS_PER_ACCOUNT) return fail('LIMIT_REACHED', `An account holds at most ${MAX_NOTIFICATION_OBJECTS_PER_ACCOUNT} destinations`);
    if (!input.name) return fail('MISSING_PARAMETERS', 'A destination needs a name');
    if (input.type === 'WEBHOOK') {
      const url = input.secureUrl ? input.secureUrl.prefix + input.secureUrl.secureSuffix : input.properties.find((p) => p.key === 'url')?.value;
      if (!url) return fail('MISSING_PARAMETERS', 'A WEBHOOK destination needs a url property (or a secureUrl)');
      if (!/^https?:\/\/[^\s]+$/i.test(url)) return fail('INVALID_PARAMETER', `The url '${url}' is not an http or https URL`);
    }
    let auth: Destination['auth'] = current?.auth ?? null;
    if (input.auth) {
      if (input.auth.type === 'BASIC' && input.auth.basic) auth = { type: 'BASIC', user: input.auth.basic.user, password: input.auth.basic.password };
      else if (input.auth.type === 'TOKEN' && input.auth.token) auth = { type: 'TOKEN', prefix: input.auth.token.prefix ?? null, token: input.auth.token.token };
      else if (input.auth.type === 'CUSTOM_HEADERS' && input.auth.customHeaders) auth = { type: 'CUSTOM_HEADERS', headers: input.auth.customHeaders.customHeaders.map((h) => ({ key: h.key, value: h.value ?? '' })) };
      else return fail('INVALID_PARAMETER', `auth of type ${input.auth.type} needs its ${input.auth.type.toLowerCase()} credentials (OAUTH2 is not supported)`);
    }
    const now = this.clock.now();
    const destination: Destination = {
      id: current?.id ?? newNotificationId(), accountId, name: input.name, type: input.type, active: input.active ?? current?.active ?? true,
      properties: input.properties.map((p) => ({ key: p.key, value: p.value, label: p.label ?? null })), auth,
      secureUrl: input.secureUrl ? { prefix: input.secureUrl.prefix, secureSuffix: input.secureUrl.secureSuffix } : (current?.secureUrl ?? null),
      status: current?.status ?? 'DEFAULT', createdAt: current?.createdAt ?? now, updatedAt: now, lastSent: current?.lastSent ?? null,
    };
    return { value: destination, errors: [] };
  }

  async deleteDestination(accountId: number, id: string): Promise<Outcome<string>> {
    const current = this.notifier.destinations.get(id);
    if (current === undefined || current.accountId !== accountId) return fail('INVALID_PARAMETER', `Destination ${id} Not Found`);
    if ([...this.notifier.channels.values()].some((c) => c.destinationId === id)) return fail('ENTITY_IN_USE', `Destination ${id} is used by a channel; delete the channel first`);
    await this.records.deleteNotificationObject('destination', accountId, id);
    this.notifier.destinations.delete(id);
    return { value: id, errors: [] };
  }

  async saveChannel(accountId: number, input: Partial<ChannelInput>, existingId?: string): Promise<Outcome<Channel>> {
    const current = existingId === undefined ? undefined : this.notifier.channels.get(existingId);
    if (existingId !== undefined && (current === undefined || current.accountId !== accountId)) return fail('INVALID_PARAMETER', `Channel ${existingId} Not Found`);
    if (current === undefined && this.count(this.notifier.channels, accountId) >= MAX_NOTIFICATION_OBJECTS_PER_ACCOUNT) return fail('LIMIT_REACHED', `An account holds at most ${MAX_NOTIFICATION_OBJECTS_PER_ACCOUNT} channels`);
    const built = this.buildChannel(accountId, input, current);
    if (built.value === null) return built;
    const channel = built.value;
    await this.records.saveNotificationObject('channel', channel);
    this.notifier.channels.set(channel.id, channel);
    return { value: channel, errors: [] };
  }

  private buildChannel(accountId: number, input: Partial<ChannelInput>, current?: Channel): Outcome<Channel> {
    const destinationId = input.destinationId ?? current?.destinationId ?? '';
    const destination = this.notifier.destinations.get(destinationId);
    if (destination === undefined || destination.accountId !== accountId) return fail('INVALID_PARAMETER', `Destination ${destinationId} Not Found`);
    const properties = (input.properties ?? current?.properties ?? []).map((p) => ({ key: p.key, value: p.value, label: p.label ?? null }));
    const type = input.type ?? current?.type ?? '';
    if (type === 'WEBHOOK') {
      const payload = properties.find((p) => p.key === 'payload')?.value;
      if (payload) {
        try {
          renderTemplate(payload, templateVariables(SAMPLE_ISSUE, { issueId: SAMPLE_ISSUE.id, state: 'ACTIVATED', trigger: 'STATE_CHANGE', priority: 'CRITICAL', updatedAt: 0 }, 'workflow', ''));
        } catch (error) {
          return fail('INVALID_PARAMETER', `payload: ${(error as Error).message}`);
        }
      }
      const headers = properties.find((p) => p.key === 'headers')?.value;
      if (headers) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(headers);
        } catch {
          parsed = null;
        }
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return fail('INVALID_PARAMETER', 'headers: must be a JSON object of header names and values');
      }
    }
    const now = this.clock.now();
    const channel: Channel = {
      id: current?.id ?? newNotificationId(), accountId, name: input.name ?? current?.name ?? '', type, product: input.product ?? current?.product ?? 'IINT',
      destinationId, properties, active: input.active ?? current?.active ?? true, status: 'DEFAULT', createdAt: current?.createdAt ?? now, updatedAt: now,
    };
    if (!channel.name) return fail('MISSING_PARAMETERS', 'A channel needs a name');
    return { value: channel, errors: [] };
  }

  async deleteChannel(accountId: number, id: string): Promise<Outcome<string>> {
    const current = this.notifier.channels.get(id);
    if (current === undefined || current.accountId !== accountId) return fail('INVALID_PARAMETER', `Channel ${id} Not Found`);
    await this.records.deleteNotificationObject('channel', accountId, id);
    this.notifier.channels.delete(id);
    return { value: id, errors: [] };
  }

  async saveWorkflow(accountId: number, input: Partial<WorkflowInput>, existingId?: string): Promise<Outcome<Workflow>> {
    const current = existingId === undefined ? undefined : this.notifier.workflows.get(existingId);
    if (existingId !== undefined && (current === undefined || current.accountId !== accountId)) return fail('INVALID_PARAMETER', `Workflow ${existingId} Not Found`);
    if (current === undefined && this.count(this.notifier.workflows, accountId) >= MAX_WORKFLOWS_PER_ACCOUNT) return fail('LIMIT_REACHED', `An account holds at most ${MAX_WORKFLOWS_PER_ACCOUNT} workflows`);
    const configs = input.destinationConfigurations ?? current?.destinationConfigurations ?? [];
    const seen = new Set<string>();
    for (const c of configs) {
      const channel = this.notifier.channels.get(c.channelId);
      if (channel === undefined || channel.accountId !== accountId) return fail('CHANNEL_NOT_FOUND', `Channel ${c.channelId} Not Found`);
      if (channel.product !== 'IINT') return fail('UNSUPPORTED_CHANNEL_TYPE', `Channel ${c.channelId} is of product ${channel.product}; workflows use IINT channels`);
      const elsewhere = [...this.notifier.workflows.values()].some((w) => w.id !== current?.id && w.destinationConfigurations.some((d) => d.channelId === c.channelId));
      if (seen.has(c.channelId) || elsewhere) return fail('DUPLICATE', `Channel ${c.channelId} is already used by a workflow; a channel belongs to one workflow, once`);
      seen.add(c.channelId);
    }
    const filter = input.issuesFilter ?? null;
    if (filter !== null && JSON.stringify(filter).length > 4096) return fail('INVALID_PARAMETER', 'issuesFilter is longer than 4096 characters');
    const now = this.clock.now();
    const given = input.enrichments?.nrql ?? null;
    if (given !== null && given.length > MAX_ENRICHMENTS_PER_WORKFLOW) return fail('INVALID_PARAMETER', `A workflow holds at most ${MAX_ENRICHMENTS_PER_WORKFLOW} enrichments`);
    if (given !== null && given.some((e) => !e.name || e.configuration.length === 0 || e.configuration.some((c) => !c.query.trim()))) {
      return fail('INVALID_PARAMETER', 'An enrichment needs a name and a NRQL query');
    }
    const kept = new Map((current?.enrichments ?? []).map((e) => [e.id, e]));
    const enrichments = given === null
      ? (current?.enrichments ?? [])
      : given.map((e) => {
        const before = e.id ? kept.get(e.id) : undefined;
        return { id: before?.id ?? newNotificationId(), name: e.name, queries: e.configuration.map((c) => c.query), createdAt: before?.createdAt ?? now, updatedAt: now };
      });
    const name = input.name ?? current?.name ?? '';
    if (!name) return fail('VALIDATION_ERROR', 'A workflow needs a name');
    const workflow: Workflow = {
      id: current?.id ?? newNotificationId(), accountId, name,
      workflowEnabled: input.workflowEnabled ?? current?.workflowEnabled ?? true,
      destinationsEnabled: input.destinationsEnabled ?? current?.destinationsEnabled ?? true,
      enrichmentsEnabled: input.enrichmentsEnabled ?? current?.enrichmentsEnabled ?? true,
      mutingRulesHandling: input.mutingRulesHandling ?? current?.mutingRulesHandling ?? 'NOTIFY_ALL_ISSUES',
      issuesFilter: filter === null
        ? (current?.issuesFilter ?? { id: newNotificationId(), name: '', type: 'FILTER', predicates: [] })
        : { id: current?.issuesFilter.id ?? newNotificationId(), name: filter.name ?? '', type: filter.type, predicates: filter.predicates.map((p) => ({ attribute: p.attribute, operator: p.operator, values: [...p.values] })) },
      destinationConfigurations: configs.map((c) => ({
        channelId: c.channelId,
        notificationTriggers: ((c.notificationTriggers ?? []).length > 0 ? c.notificationTriggers! : [...DEFAULT_NOTIFICATION_TRIGGERS]) as Workflow['destinationConfigurations'][number]['notificationTriggers'],
        updateOriginalMessage: c.updateOriginalMessage ?? false,
      })),
      createdAt: current?.createdAt ?? now, updatedAt: now, lastRun: current?.lastRun ?? null, enrichments,
    };
    await this.records.saveNotificationObject('workflow', workflow);
    this.notifier.workflows.set(workflow.id, workflow);
    return { value: workflow, errors: [] };
  }

  async deleteWorkflow(accountId: number, id: string, deleteChannels: boolean): Promise<Outcome<string>> {
    const current = this.notifier.workflows.get(id);
    if (current === undefined || current.accountId !== accountId) return fail('INVALID_PARAMETER', `Workflow ${id} Not Found`);
    await this.records.deleteNotificationObject('workflow', accountId, id);
    this.notifier.workflows.delete(id);
    if (deleteChannels) for (const c of current.destinationConfigurations) await this.deleteChannel(accountId, c.channelId);
    return { value: id, errors: [] };
  }

  private count(map: Map<string, { accountId: number }>, accountId: number): number {
    let n = 0;
    for (const v of map.values()) if (v.accountId === accountId) n++;
    return n;
  }
}

/** The issue a test notification describes (its id and times are set when it is sent). */
const TEST_ISSUE: Issue = {
  id: '', accountId: 0, policyId: '0', policyName: 'Test notification', key: '', state: 'ACTIVATED', priority: 'CRITICAL',
  incidentIds: [], openIncidentIds: [], conditionIds: [], conditionNames: ['Test notification'], titles: ['Test notification from Timeslice'], entityNames: [],
  createdAt: 0, activatedAt: 0, acknowledgedAt: null, acknowledgedBy: null, closedAt: null, closedBy: null, updatedAt: 0, lastTrigger: 'STATE_CHANGE',
};

/** A destination tested on its own has no channel: no channel headers. */
const NO_CHANNEL: Channel = {
  id: '', accountId: 0, name: '', type: 'WEBHOOK', product: 'IINT', destinationId: '', properties: [], active: true, status: 'DEFAULT', createdAt: 0, updatedAt: 0,
};

/** An issue to try a template on when it is saved (it must render to valid JSON). */
const SAMPLE_ISSUE: Issue = {
  id: '00000000-0000-4000-8000-000000000000', accountId: 0, policyId: '0', policyName: 'policy', key: '', state: 'ACTIVATED', priority: 'CRITICAL',
  incidentIds: ['i'], openIncidentIds: ['i'], conditionIds: ['0'], conditionNames: ['condition'], titles: ['title "quoted"'], entityNames: ['entity'],
  createdAt: 0, activatedAt: 0, acknowledgedAt: null, acknowledgedBy: null, closedAt: null, closedBy: null, updatedAt: 0, lastTrigger: 'STATE_CHANGE',
};
