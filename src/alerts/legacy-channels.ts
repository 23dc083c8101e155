import type { Clock } from '../clock.js';
import type { Incident, Issue, NrqlCondition } from '../domain/alerts/alert-model.js';
import type { AlertEvent } from '../domain/alerts/alert-engine.js';
import {
  checkLegacyConfiguration, formEncode, LEGACY_CHANNEL_TYPES, legacyWebhookPayload, renderLegacyPayload,
  type LegacyChannel, type LegacyChannelType, type LegacyState, type LegacyTarget,
} from '../domain/alerts/legacy-channel.js';
import { CUSTOM_EVENTS, Rows } from '../store/append-tables.js';
import type { AlertRecords, OutboxEntry } from '../store/alert-records.js';
import { deliveryRows, notificationErrorRow, notificationRow } from './alert-nrql-events.js';
import { DEFAULT_WEBHOOK_OPTIONS, sendWebhook, type WebhookOptions } from './webhook-sender.js';

/** The outbox's channel id of a REST channel: NerdGraph channels are UUIDs, so the two never meet. */
const OUTBOX_PREFIX = 'legacy:';

/** REST channels per account (Timeslice's bound, as for NerdGraph's channels). */
export const MAX_LEGACY_CHANNELS_PER_ACCOUNT = 1000;

export class LegacyChannelError extends Error {
  constructor(readonly status: 404 | 422, message: string, readonly details: readonly string[] = []) {
    super(message);
  }
}

export interface LegacyChannelDeps {
  readonly records: AlertRecords;
  readonly clock: Clock;
  readonly webhook?: WebhookOptions;
  readonly writeEvents?: (rows: Rows[]) => Promise<void>;
  readonly log?: (message: string, error?: unknown) => void;
}

/** What the legacy payload needs beyond the issue, from the service that owns the engine. */
export interface LegacyContext {
  readonly issueNumbers: ReadonlyMap<string, number>;
  readonly incidentOf: (id: string) => Incident | undefined;
  readonly conditionOf: (id: string) => NrqlCondition | undefined;
  readonly accountName: (accountId: number) => string;
  readonly targetOf: (incident: Incident) => LegacyTarget;
  readonly origin: string;
}

/**
 * REST v2's notification channels: kept in the store, linked to policies, and announcing each issue of
 * a linked policy when it activates, is acknowledged and closes, through the same outbox as
 * workflows (decided in the issue's commit, sent once, retried, every attempt recorded).
 */
export class LegacyChannels {
  readonly channels = new Map<number, LegacyChannel>();

  constructor(private readonly deps: LegacyChannelDeps) {}

  async load(): Promise<void> {
    for (const c of await this.deps.records.legacyChannels()) this.channels.set(c.id, c);
  }

  list(accountId: number): LegacyChannel[] {
    return [...this.channels.values()].filter((c) => c.accountId === accountId).sort((a, b) => a.id - b.id);
  }

  /** Checks and stores a channel; `policyIds` must be the account's (the caller checked them). */
  async create(accountId: number, input: { name: unknown; type: unknown; configuration: unknown }, policyIds: readonly number[]): Promise<LegacyChannel> {
    const errors: string[] = [];
    if (typeof input.name !== 'string' || input.name.trim() === '' || input.name.length > 128) errors.push('channel.name must be a string of 1 to 128 characters');
    const type = typeof input.type === 'string' ? input.type.toLowerCase() : '';
    if (!(LEGACY_CHANNEL_TYPES as readonly string[]).includes(type)) errors.push(`channel.type must be one of ${LEGACY_CHANNEL_TYPES.join(', ')}`);
    const raw = input.configuration ?? {};
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) errors.push('channel.configuration must be an object');
    const checked = errors.length > 0 ? { configuration: {}, errors: [] } : checkLegacyConfiguration(type as LegacyChannelType, raw as Record<string, unknown>);
    errors.push(...checked.errors);
    if (errors.length === 0 && this.list(accountId).length >= MAX_LEGACY_CHANNELS_PER_ACCOUNT) errors.push(`An account holds at most ${MAX_LEGACY_CHANNELS_PER_ACCOUNT} channels`);
    if (errors.length > 0) throw new LegacyChannelError(422, 'Invalid channel', errors);
    const channel: LegacyChannel = {
      id: await this.deps.records.nextId('legacyChannel'),
      accountId, name: input.name as string, type: type as LegacyChannelType, configuration: checked.configuration,
      policyIds: [...new Set(policyIds)].sort((a, b) => a - b), createdAt: this.deps.clock.now(),
    };
    await this.deps.records.saveLegacyChannel(channel);
    this.channels.set(channel.id, channel);
    return channel;
  }

  async delete(accountId: number, id: number): Promise<LegacyChannel> {
    const channel = this.own(accountId, id);
    if (channel.type === 'user') throw new LegacyChannelError(422, `Channel ${id} is a user channel: user channels cannot be deleted`);
    await this.deps.records.deleteLegacyChannel(accountId, id);
    this.channels.delete(id);
    return channel;
  }

  /** Adds the links (a union: removal has its own call). */
  async link(accountId: number, policyId: number, channelIds: readonly number[]): Promise<void> {
    const channels = channelIds.map((id) => this.own(accountId, id));
    for (const c of channels) {
      if (c.policyIds.includes(policyId)) continue;
      const next = { ...c, policyIds: [...c.policyIds, policyId].sort((a, b) => a - b) };
      await this.deps.records.saveLegacyChannel(next);
      this.channels.set(next.id, next);
    }
  }

  async unlink(accountId: number, policyId: number, channelId: number): Promise<LegacyChannel> {
    const c = this.own(accountId, channelId);
    if (!c.policyIds.includes(policyId)) throw new LegacyChannelError(404, `Channel ${channelId} is not linked to policy ${policyId}`);
    const next = { ...c, policyIds: c.policyIds.filter((p) => p !== policyId) };
    await this.deps.records.saveLegacyChannel(next);
    this.channels.set(next.id, next);
    return next;
  }

  own(accountId: number, id: number): LegacyChannel {
    const c = this.channels.get(id);
    if (c === undefined || c.accountId !== accountId) throw new LegacyChannelError(404, `No channel with id ${id}`);
    return c;
  }

  /** The issues (by id) whose events a linked channel announces: the REST numbers they need first. */
  announcedIssues(events: readonly AlertEvent[], issueOf: (id: string) => Issue | undefined): string[] {
    const ids = new Set<string>();
    for (const e of events) {
      if (e.kind !== 'issue' || stateOf(e) === null) continue;
      const issue = issueOf(e.event.issueId);
      if (issue !== undefined && this.linkedTo(issue).length > 0) ids.add(issue.id);
    }
    return [...ids];
  }

  /** One outbox entry per (issue step, linked channel), keyed like workflow entries. */
  outboxFor(events: readonly AlertEvent[], issueOf: (id: string) => Issue | undefined, ctx: LegacyContext): OutboxEntry[] {
    const out: OutboxEntry[] = [];
    for (const e of events) {
      if (e.kind !== 'issue') continue;
      const state = stateOf(e);
      const issue = issueOf(e.event.issueId);
      const number = issue === undefined ? undefined : ctx.issueNumbers.get(issue.id);
      if (state === null || issue === undefined || number === undefined) continue;
      const channels = this.linkedTo(issue);
      if (channels.length === 0) continue;
      const snapshot: Issue = { ...issue, state: e.event.state, priority: e.event.priority, updatedAt: e.event.updatedAt };
      const incidents = issue.incidentIds.map(ctx.incidentOf).filter((i): i is Incident => i !== undefined);
      const condition = incidents[0] === undefined ? undefined : ctx.conditionOf(incidents[0].conditionId);
      const values = legacyWebhookPayload({
        issue: snapshot, issueNumber: number, incidents, state, at: e.event.updatedAt, accountName: ctx.accountName(issue.accountId), origin: ctx.origin,
        targetOf: ctx.targetOf, runbookUrl: condition?.runbookUrl ?? null, conditionDescription: condition?.description ?? null,
      });
      for (const channel of channels) {
        const template = channel.configuration.payload;
        const body = template !== undefined && template !== null && typeof template === 'object' ? (renderLegacyPayload(template, values) as Record<string, unknown>) : values;
        const form = channel.configuration.payload_type === 'application/x-www-form-urlencoded';
        out.push({
          key: [issue.id, `${OUTBOX_PREFIX}${channel.id}`, e.event.trigger, e.event.updatedAt].join('|'),
          accountId: issue.accountId, issueId: issue.id, channelId: `${OUTBOX_PREFIX}${channel.id}`, workflowId: '', workflowName: '',
          state: e.event.state, trigger: e.event.trigger, notificationTrigger: state.toUpperCase(),
          body: form ? formEncode(body) : JSON.stringify(body), createdAt: e.event.updatedAt,
        });
      }
    }
    return out;
  }

  isLegacy(entry: OutboxEntry): boolean {
    return entry.channelId.startsWith(OUTBOX_PREFIX);
  }

  /** Sends one entry to its channel, or records why it cannot be sent; the outcome goes to the log. */
  async deliver(entry: OutboxEntry, idempotencyHeader: string): Promise<void> {
    const channel = this.channels.get(Number(entry.channelId.slice(OUTBOX_PREFIX.length)));
    const rows = new Rows(CUSTOM_EVENTS);
    const now = () => this.deps.clock.now();
    const common = {
      issueId: entry.issueId, channelId: entry.channelId, channelName: channel?.name ?? null, destinationType: channel?.type.toUpperCase() ?? null,
      trigger: entry.trigger, notificationTrigger: entry.notificationTrigger, state: entry.state, idempotencyKey: entry.key, legacyChannel: true,
    };
    if (channel === undefined || channel.type !== 'webhook') {
      const reason = channel === undefined ? 'the channel was deleted' : `${channel.type} channels are stored but not delivered: only webhook channels are`;
      notificationRow(rows, entry.accountId, now(), { ...common, status: 'Failed', attempt: 0, error: reason, operation: 'Notify' });
      notificationErrorRow(rows, entry.accountId, now(), { ...common, message: `Notification not sent: ${reason}` });
      await this.deps.records.markNotification(entry.key, 'FAILED', 0, now());
      await this.write(rows);
      return;
    }
    const config = channel.configuration;
    const headers: Record<string, string> = {};
    if (config.headers !== null && typeof config.headers === 'object') for (const [k, v] of Object.entries(config.headers)) headers[k.toLowerCase()] = String(v);
    if (typeof config.auth_username === 'string' && config.auth_username !== '') {
      headers.authorization = `Basic ${Buffer.from(`${config.auth_username}:${typeof config.auth_password === 'string' ? config.auth_password : ''}`).toString('base64')}`;
    }
    headers['content-type'] = config.payload_type === 'application/x-www-form-urlencoded' ? 'application/x-www-form-urlencoded' : 'application/json';
    headers[idempotencyHeader] = entry.key;
    const result = await sendWebhook(String(config.base_url), entry.body, headers, this.deps.webhook ?? DEFAULT_WEBHOOK_OPTIONS);
    deliveryRows(rows, entry.accountId, now(), common, entry.state === 'CLOSED' ? 'Close' : 'Notify', result);
    await this.deps.records.markNotification(entry.key, result.ok ? 'SENT' : 'FAILED', result.attempts.length, now());
    await this.write(rows);
  }

  private linkedTo(issue: Issue): LegacyChannel[] {
    const policyId = Number(issue.policyId);
    return this.list(issue.accountId).filter((c) => c.policyIds.includes(policyId));
  }

  private async write(rows: Rows): Promise<void> {
    if (rows.length === 0 || this.deps.writeEvents === undefined) return;
    await this.deps.writeEvents([rows]).catch((error: unknown) => this.deps.log?.('notification events not recorded', error));
  }
}

/** Legacy channels speak of an issue opening (its activation), its acknowledgement and its close. */
function stateOf(e: Extract<AlertEvent, { kind: 'issue' }>): LegacyState | null {
  if (e.event.state === 'CLOSED') return 'closed';
  if (e.event.trigger === 'STATE_CHANGE' && e.event.state === 'ACTIVATED') return 'open';
  if (e.event.trigger === 'USER_ACTION' && e.event.action === 'ACK') return 'acknowledged';
  return null;
}
