import type { AlertPolicy, IncidentPreference, Incident, Issue, NrqlCondition } from '../../../domain/alerts/alert-model.js';
import { AlertNotFoundError, AlertValidationError, type AlertService } from '../../../alerts/alert-service.js';
import type { NrqlConditionInput } from '../../../domain/alerts/condition-input.js';
import type { StoredCondition, StoredPolicy } from '../../../store/alert-records.js';
import type { GraphContext } from '../graph-context.js';
import { GraphError } from '../graph-errors.js';
import { checkedWindow } from '../time-window-input.js';
import { issueMutingState, mutingRuleStatus, zonedIso, type MutingRule, type MutingRuleUser } from '../../../domain/alerts/muting-rules.js';
import { MutingRuleError, type MutingRuleInput } from '../../../alerts/muting-rule-service.js';
import { IssueSettingsError, type IssueSettingsService } from '../../../alerts/issue-settings-service.js';
import type { IssueSettings } from '../../../domain/alerts/issue-tracker.js';

/*
 * NerdGraph's alerting surface over the AlertService: policies and NRQL static conditions
 * (alerts.md §2), issues and incidents (§3.3). Validation failures are NerdGraph's
 * `Validation Error` with `BAD_USER_INPUT` and `validationErrors`; a policy or condition the
 * account does not hold is `... Not Found` (client-go's NotFound); issue actions report failures
 * in their payload's `error`.
 */

/** Search pages: NerdGraph does not document its page size; 200 holds client-go's usual reads. */
export const ALERT_SEARCH_PAGE_SIZE = 200;
/** aiIssues pages. */
export const AI_ISSUES_PAGE_SIZE = 100;
const DAY_MS = 24 * 60 * 60_000;

function alertsOf(ctx: GraphContext): AlertService {
  const alerts = ctx.services.alerts;
  if (alerts === undefined) throw new GraphError('INTERNAL_SERVER_ERROR', 'Alerting is not running in this service');
  return alerts;
}

function aiopsGuid(accountId: number, type: string, id: string): string {
  return Buffer.from(`${accountId}|AIOPS|${type}|${id}`, 'utf8').toString('base64').replace(/=+$/, '');
}

/** A muting rule as NerdGraph's AlertsMutingRule; schedule times carry their zone's offset. */
function mutingRuleView(r: MutingRule, now: number) {
  const user = (u: MutingRuleUser | null) => (u === null ? null : { id: u.id, name: u.name, email: u.email, gravatar: null });
  const s = r.schedule;
  const zoned = (naive: string | null) => (naive === null || s === null ? null : zonedIso(naive, s.timeZone));
  return {
    accountId: r.accountId, actionOnMutingRuleWindowEnded: r.actionOnMutingRuleWindowEnded, condition: r.condition, createdAt: new Date(r.createdAt).toISOString(),
    createdBy: r.createdBy?.id ?? null, createdByUser: user(r.createdBy), description: r.description, enabled: r.enabled, id: r.id, name: r.name,
    schedule: s === null ? null : {
      startTime: zoned(s.startTime), endTime: zoned(s.endTime), timeZone: s.timeZone, repeat: s.repeat, endRepeat: zoned(s.endRepeat),
      repeatCount: s.repeatCount, weeklyRepeatDays: s.weeklyRepeatDays,
    },
    status: mutingRuleStatus(r, now), updatedAt: new Date(r.updatedAt).toISOString(), updatedBy: r.updatedBy?.id ?? null, updatedByUser: user(r.updatedBy),
  };
}

/** A muting rule call: validation refusals as NerdGraph's Validation Error, a rule not held as Not Found. */
function mutingCall<T>(work: () => T | Promise<T>): Promise<T> {
  return Promise.resolve().then(work).catch((error: unknown) => {
    if (error instanceof MutingRuleError) {
      if (error.validationErrors.length > 0) throw new GraphError('BAD_USER_INPUT', 'Validation Error', { code: 'BAD_USER_INPUT', validationErrors: error.validationErrors });
      throw new GraphError('BAD_USER_INPUT', error.message, { code: 'BAD_USER_INPUT' });
    }
    throw error;
  });
}

const ruleUser = (ctx: GraphContext): MutingRuleUser => ({ id: ctx.principal.userId, name: ctx.principal.userName, email: ctx.principal.userEmail });

/** Runs a service call, turning its refusals into NerdGraph's error shapes. */
async function alertCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AlertValidationError) {
      throw new GraphError('BAD_USER_INPUT', 'Validation Error', { code: 'BAD_USER_INPUT', validationErrors: error.validationErrors });
    }
    if (error instanceof AlertNotFoundError) throw new GraphError('BAD_USER_INPUT', error.message, { code: 'BAD_USER_INPUT' });
    throw error;
  }
}

function policyView(p: AlertPolicy) {
  return { accountId: p.accountId, id: p.id, name: p.name, incidentPreference: p.incidentPreference, entityGuid: aiopsGuid(p.accountId, 'POLICY', p.id) };
}

const LIMIT_SECONDS: Readonly<Record<string, number>> = {
  ONE_HOUR: 3600, TWO_HOURS: 7200, FOUR_HOURS: 14_400, EIGHT_HOURS: 28_800, TWELVE_HOURS: 43_200, TWENTY_FOUR_HOURS: 86_400, THIRTY_DAYS: 2_592_000,
};

function limitEnum(seconds: number): string {
  return Object.entries(LIMIT_SECONDS).find(([, s]) => s === seconds)?.[0] ?? 'NON_MATCHABLE_LIMIT_VALUE';
}

function conditionView(stored: StoredCondition) {
  const c = stored.condition;
  return {
    __typename: 'AlertsNrqlStaticCondition',
    id: c.id,
    policyId: c.policyId,
    name: c.name,
    enabled: c.enabled,
    type: 'STATIC',
    description: c.description,
    runbookUrl: c.runbookUrl,
    titleTemplate: c.titleTemplate ?? null,
    entityGuid: aiopsGuid(c.accountId, 'CONDITION', c.id),
    targetEntity: c.targetEntity ?? null,
    nrql: { query: c.query, dataAccountId: c.dataAccountId ?? null, evaluationOffset: null },
    signal: { ...c.signal, evaluationOffset: null },
    expiration: c.expiration,
    terms: c.terms.map((t) => ({ ...t, disableEventCreation: t.disableEventCreation ?? false, prediction: null })),
    valueFunction: 'SINGLE_VALUE',
    violationTimeLimit: limitEnum(c.violationTimeLimitSeconds),
    violationTimeLimitSeconds: c.violationTimeLimitSeconds,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
  };
}

interface TermInput {
  operator: NrqlConditionInput['terms'] extends ReadonlyArray<infer T> | undefined ? (T extends { operator: infer O } ? O : never) : never;
  priority: 'CRITICAL' | 'WARNING';
  threshold: number;
  thresholdDuration: number;
  thresholdOccurrences: 'ALL' | 'AT_LEAST_ONCE';
  disableHealthStatusReporting?: boolean | null;
  disableEventCreation?: boolean | null;
}

interface ConditionGraphInput {
  name?: string | null;
  enabled?: boolean | null;
  nrql?: { query?: string | null; dataAccountId?: number | null } | null;
  description?: string | null;
  runbookUrl?: string | null;
  titleTemplate?: string | null;
  targetEntity?: string | null;
  terms?: TermInput[] | null;
  signal?: Record<string, unknown> | null;
  expiration?: Record<string, unknown> | null;
  violationTimeLimit?: string | null;
  violationTimeLimitSeconds?: number | null;
}

function limitOf(input: ConditionGraphInput): number | null | undefined {
  if (input.violationTimeLimitSeconds !== undefined && input.violationTimeLimitSeconds !== null) return input.violationTimeLimitSeconds;
  if (input.violationTimeLimit) return LIMIT_SECONDS[input.violationTimeLimit] ?? undefined;
  return input.violationTimeLimitSeconds;
}

function createInput(input: ConditionGraphInput): NrqlConditionInput {
  return {
    name: input.name ?? '',
    enabled: input.enabled ?? false,
    query: input.nrql?.query ?? '',
    description: input.description ?? null,
    runbookUrl: input.runbookUrl ?? null,
    titleTemplate: input.titleTemplate ?? null,
    targetEntity: input.targetEntity ?? null,
    dataAccountId: input.nrql?.dataAccountId ?? null,
    terms: input.terms ?? [],
    signal: (input.signal ?? null) as NrqlConditionInput['signal'],
    expiration: (input.expiration ?? null) as NrqlConditionInput['expiration'],
    violationTimeLimitSeconds: limitOf(input) ?? null,
  };
}

/** An update: absent keys keep the stored value, explicit nulls reset to the default. */
function mergedInput(current: NrqlCondition, input: ConditionGraphInput): NrqlConditionInput {
  const has = (key: keyof ConditionGraphInput) => Object.prototype.hasOwnProperty.call(input, key);
  const overlay = (base: object, patch: Record<string, unknown> | null | undefined) => {
    const out: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(patch ?? {})) out[k] = v;
    return out;
  };
  const limit = limitOf(input);
  return {
    name: input.name ?? current.name,
    enabled: input.enabled ?? current.enabled,
    query: input.nrql?.query ?? current.query,
    description: has('description') ? (input.description ?? null) : current.description,
    runbookUrl: has('runbookUrl') ? (input.runbookUrl ?? null) : current.runbookUrl,
    titleTemplate: has('titleTemplate') ? (input.titleTemplate ?? null) : (current.titleTemplate ?? null),
    targetEntity: has('targetEntity') ? (input.targetEntity ?? null) : (current.targetEntity ?? null),
    dataAccountId: input.nrql != null && Object.prototype.hasOwnProperty.call(input.nrql, 'dataAccountId') ? (input.nrql.dataAccountId ?? null) : (current.dataAccountId ?? null),
    terms: input.terms ?? current.terms,
    signal: (has('signal') ? overlay(current.signal, input.signal) : current.signal) as NrqlConditionInput['signal'],
    expiration: (has('expiration') ? overlay(current.expiration, input.expiration) : current.expiration) as NrqlConditionInput['expiration'],
    violationTimeLimitSeconds: limit === undefined ? current.violationTimeLimitSeconds : limit,
  };
}

function decodeCursor(cursor: string | null | undefined): number {
  if (cursor === null || cursor === undefined || cursor === '') return 0;
  const offset = Number(Buffer.from(cursor, 'base64').toString('utf8'));
  if (!Number.isInteger(offset) || offset < 0) throw GraphError.invalidInput(`cursor '${cursor}' is not one this service handed out`);
  return offset;
}

function page<T>(items: readonly T[], cursor: string | null | undefined, size: number): { items: T[]; nextCursor: string | null } {
  const offset = decodeCursor(cursor);
  const slice = items.slice(offset, offset + size);
  const next = offset + size < items.length ? Buffer.from(String(offset + size), 'utf8').toString('base64') : null;
  return { items: slice, nextCursor: next };
}

const includesFolded = (text: string, part: string) => text.toLowerCase().includes(part.toLowerCase());

/** `actor.account(id).alerts`: the account was checked by `actor.account`. */
export class AlertsAccountView {
  constructor(private readonly accountId: number) {}

  mutingRule(args: { id: string }, ctx: GraphContext) {
    return mutingCall(() => mutingRuleView(alertsOf(ctx).mutingRules.get(this.accountId, args.id), ctx.nowMs));
  }

  mutingRules(_args: unknown, ctx: GraphContext) {
    return alertsOf(ctx).mutingRules.list(this.accountId).map((r) => mutingRuleView(r, ctx.nowMs));
  }

  policy(args: { id: string }, ctx: GraphContext) {
    const found = alertsOf(ctx).policies(this.accountId).find((p) => p.policy.id === args.id);
    if (found === undefined) throw new GraphError('BAD_USER_INPUT', `Policy with id ${args.id} Not Found`, { code: 'BAD_USER_INPUT' });
    return policyView(found.policy);
  }

  policiesSearch(args: { cursor?: string | null; searchCriteria?: { ids?: string[] | null; name?: string | null; nameLike?: string | null } | null }, ctx: GraphContext) {
    const c = args.searchCriteria ?? {};
    const all = alertsOf(ctx)
      .policies(this.accountId)
      .filter((p: StoredPolicy) => (c.ids ? c.ids.includes(p.policy.id) : true) && (c.name ? p.policy.name === c.name : true) && (c.nameLike ? includesFolded(p.policy.name, c.nameLike) : true));
    const { items, nextCursor } = page(all, args.cursor, ALERT_SEARCH_PAGE_SIZE);
    return { policies: items.map((p) => policyView(p.policy)), nextCursor, totalCount: all.length };
  }

  nrqlCondition(args: { id: string }, ctx: GraphContext) {
    const found = alertsOf(ctx).conditions(this.accountId).find((c) => c.condition.id === args.id);
    if (found === undefined) throw new GraphError('BAD_USER_INPUT', `Condition with id ${args.id} Not Found`, { code: 'BAD_USER_INPUT' });
    return conditionView(found);
  }

  nrqlConditionsSearch(
    args: { cursor?: string | null; searchCriteria?: { name?: string | null; nameLike?: string | null; policyId?: string | null; query?: string | null; queryLike?: string | null; termsOperator?: string | null } | null },
    ctx: GraphContext,
  ) {
    const s = args.searchCriteria ?? {};
    const all = alertsOf(ctx)
      .conditions(this.accountId)
      .filter(({ condition: c }) =>
        (s.name ? c.name.toLowerCase() === s.name.toLowerCase() : true) &&
        (s.nameLike ? includesFolded(c.name, s.nameLike) : true) &&
        (s.policyId ? c.policyId === s.policyId : true) &&
        (s.query ? c.query === s.query : true) &&
        (s.queryLike ? includesFolded(c.query, s.queryLike) : true) &&
        (s.termsOperator ? c.terms.some((t) => t.operator === s.termsOperator) : true));
    const { items, nextCursor } = page(all, args.cursor, ALERT_SEARCH_PAGE_SIZE);
    return { nrqlConditions: items.map(conditionView), nextCursor, totalCount: all.length };
  }
}

interface IssueFilter {
  conditionIds?: number[] | null;
  contains?: string | null;
  ids?: string[] | null;
  isAcknowledged?: boolean | null;
  isCorrelated?: boolean | null;
  mutingStates?: string[] | null;
  policyIds?: number[] | null;
  priority?: string[] | null;
  sources?: string[] | null;
  states?: string[] | null;
  entityGuids?: string[] | null;
  entityTypes?: string[] | null;
}

function windowOf(ctx: GraphContext, timeWindow: { startTime: number; endTime: number } | null | undefined): { start: number; end: number } {
  return timeWindow ? checkedWindow(timeWindow.startTime, timeWindow.endTime, 'timeWindow') : { start: ctx.nowMs - DAY_MS, end: ctx.nowMs };
}

function issueView(issue: Issue, ctx: GraphContext) {
  const name = ctx.services.catalog.account(issue.accountId)?.name ?? null;
  return {
    account: { id: issue.accountId, name },
    accountIds: [issue.accountId],
    acknowledgedAt: issue.acknowledgedAt,
    acknowledgedBy: issue.acknowledgedBy,
    activatedAt: issue.activatedAt,
    closedAt: issue.closedAt,
    closedBy: issue.closedBy,
    conditionFamilyId: issue.conditionIds.map(Number),
    conditionName: issue.conditionNames,
    conditionProduct: issue.conditionIds.map(() => 'NRQL'),
    createdAt: issue.createdAt,
    deepLinkUrl: [`${ctx.origin}/accounts/${issue.accountId}/issues/${issue.id}`],
    description: issue.descriptions ?? issue.titles,
    entityGuids: [],
    entityNames: issue.entityNames,
    entityTypes: [],
    environmentId: issue.accountId,
    eventType: issue.lastTrigger,
    incidentIds: issue.incidentIds,
    isCorrelated: false,
    isIdle: false,
    issueId: issue.id,
    mutingState: issueMutingState(issue),
    origins: ['Alerts'],
    policyIds: [Number(issue.policyId)],
    policyName: [issue.policyName],
    priority: issue.priority,
    sources: ['newrelic'],
    state: issue.state,
    title: issue.titles,
    totalIncidents: issue.incidentIds.length,
    updatedAt: issue.updatedAt,
  };
}

function incidentView(incident: Incident, ctx: GraphContext) {
  const name = ctx.services.catalog.account(incident.accountId)?.name ?? null;
  const target = Object.values(incident.facets).join(', ') || incident.conditionName;
  return {
    __typename: 'AiIssuesNewRelicIncident',
    account: { id: incident.accountId, name },
    accountIds: String(incident.accountId),
    closedAt: incident.closedAt,
    conditionFamilyId: incident.conditionId,
    createdAt: incident.openedAt,
    description: [incident.description ?? incident.title],
    entityGuids: null,
    entityNames: target,
    entityTypes: null,
    environmentId: incident.accountId,
    incidentId: incident.id,
    issueId: incident.issueId,
    policyIds: incident.policyId,
    priority: incident.priority,
    state: incident.closedAt === null ? 'CREATED' : 'CLOSED',
    timestamp: incident.openedAt,
    title: incident.title,
    updatedAt: incident.closeDetectedAt ?? incident.detectedAt,
  };
}

/** `actor.account(id).aiIssues`. */
export class AiIssuesAccountView {
  constructor(private readonly accountId: number) {}

  configByEnvironment(_args: unknown, ctx: GraphContext) {
    return { config: issueConfigView(alertsOf(ctx).issueSettings.get(this.accountId)) };
  }

  async issues(args: { cursor?: string | null; filter?: IssueFilter | null; timeWindow?: { startTime: number; endTime: number } | null }, ctx: GraphContext) {
    const { start, end } = windowOf(ctx, args.timeWindow);
    const f = args.filter ?? {};
    const issues = (await ctx.services.alerts!.issues(this.accountId, start, end)).filter(
      (i) =>
        (f.states ? f.states.includes(i.state) : true) &&
        (f.priority ? f.priority.includes(i.priority) : true) &&
        (f.ids ? f.ids.includes(i.id) : true) &&
        (f.policyIds ? f.policyIds.includes(Number(i.policyId)) : true) &&
        (f.conditionIds ? i.conditionIds.some((c) => f.conditionIds!.includes(Number(c))) : true) &&
        (f.isAcknowledged !== undefined && f.isAcknowledged !== null ? (i.acknowledgedAt !== null) === f.isAcknowledged : true) &&
        (f.isCorrelated === true ? false : true) &&
        (f.mutingStates ? f.mutingStates.includes(issueMutingState(i)) : true) &&
        (f.sources ? f.sources.includes('newrelic') : true) &&
        (f.contains ? i.titles.some((t) => includesFolded(t, f.contains!)) : true),
    );
    const { items, nextCursor } = page(issues, args.cursor, AI_ISSUES_PAGE_SIZE);
    return { issues: items.map((i) => issueView(i, ctx)), nextCursor };
  }

  async incidents(args: { cursor?: string | null; filter?: { ids?: string[] | null; priority?: string[] | null; states?: string[] | null } | null; timeWindow?: { startTime: number; endTime: number } | null }, ctx: GraphContext) {
    const { start, end } = windowOf(ctx, args.timeWindow);
    const f = args.filter ?? {};
    const incidents = (await ctx.services.alerts!.incidents(this.accountId, start, end)).filter(
      (i) =>
        (f.ids ? f.ids.includes(i.id) : true) &&
        (f.priority ? f.priority.includes(i.priority) : true) &&
        (f.states ? f.states.includes(i.closedAt === null ? 'CREATED' : 'CLOSED') : true),
    );
    const { items, nextCursor } = page(incidents, args.cursor, AI_ISSUES_PAGE_SIZE);
    return { incidents: items.map((i) => incidentView(i, ctx)), nextCursor };
  }
}

type Root = unknown;

/** AiIssuesEnvironmentConfiguration: what Timeslice keeps (grace periods, TTL); the rest null. */
function issueConfigView(s: IssueSettings) {
  return {
    flappingInterval: null, inactivePeriod: null, incidentTimeout: null, maxIssueSize: null,
    gracePeriod: (['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const).map((priority) => ({ priority, period: s.gracePeriodMs[priority] / 1000 })),
    issueTtl: s.issueTtlMs / 1000,
  };
}

async function issueConfigChange(ctx: GraphContext, accountId: number, change: (service: IssueSettingsService) => Promise<IssueSettings>) {
  if (!ctx.canRead(accountId)) return { config: null, error: `Access denied: this API key cannot reach account ${accountId}` };
  try {
    return { config: issueConfigView(await change(alertsOf(ctx).issueSettings)), error: null };
  } catch (error) {
    if (error instanceof IssueSettingsError) return { config: null, error: error.message };
    throw error;
  }
}

async function issueAction(ctx: GraphContext, args: { accountId: number; issueId: string }, action: 'ACK' | 'UNACK' | 'RESOLVE' | 'MARK_AS_INVESTIGATING') {
  if (!ctx.canRead(args.accountId)) return { error: `Access denied: this API key cannot reach account ${args.accountId}`, result: null };
  const alerts = alertsOf(ctx);
  const user = ctx.principal.userName;
  const done =
    action === 'ACK' ? await alerts.acknowledge(args.accountId, args.issueId, user)
    : action === 'UNACK' ? await alerts.unacknowledge(args.accountId, args.issueId)
    : action === 'MARK_AS_INVESTIGATING' ? await alerts.markAsInvestigating(args.accountId, args.issueId)
    : await alerts.resolve(args.accountId, args.issueId, user);
  if (!done) return { error: `Issue ${args.issueId} Not Found in account ${args.accountId}, or it is closed`, result: null };
  return { error: null, result: { accountId: args.accountId, action, issueId: args.issueId } };
}

export const alertResolvers = {
  AlertsNrqlCondition: { __resolveType: () => 'AlertsNrqlStaticCondition' },
  AlertsNrqlTerms: { __resolveType: () => 'AlertsNrqlConditionTermsWithPrediction' },
  AlertsOutlierConfiguration: { __resolveType: () => 'AlertsOutlierDbScanConfiguration' },
  AiIssuesIIncident: { __resolveType: () => 'AiIssuesNewRelicIncident' },
  RootMutationType: {
    alertsPolicyCreate: (_r: Root, args: { accountId: number; policy: { name: string; incidentPreference: IncidentPreference } }, ctx: GraphContext) => {
      ctx.requireAccount(args.accountId);
      return alertCall(async () => policyView((await alertsOf(ctx).createPolicy(args.accountId, args.policy.name, args.policy.incidentPreference)).policy));
    },
    alertsPolicyUpdate: (_r: Root, args: { accountId: number; id: string; policy: { name?: string | null; incidentPreference?: IncidentPreference | null } }, ctx: GraphContext) => {
      ctx.requireAccount(args.accountId);
      const patch = { ...(args.policy.name != null ? { name: args.policy.name } : {}), ...(args.policy.incidentPreference != null ? { incidentPreference: args.policy.incidentPreference } : {}) };
      return alertCall(async () => policyView((await alertsOf(ctx).updatePolicy(args.accountId, args.id, patch)).policy));
    },
    alertsPolicyDelete: (_r: Root, args: { accountId: number; id: string }, ctx: GraphContext) => {
      ctx.requireAccount(args.accountId);
      return alertCall(async () => ({ id: (await alertsOf(ctx).deletePolicy(args.accountId, args.id)).id }));
    },
    alertsNrqlConditionStaticCreate: (_r: Root, args: { accountId: number; policyId: string; condition: ConditionGraphInput }, ctx: GraphContext) => {
      ctx.requireAccount(args.accountId);
      return alertCall(async () => conditionView(await alertsOf(ctx).createCondition(args.accountId, args.policyId, createInput(args.condition))));
    },
    alertsNrqlConditionStaticUpdate: (_r: Root, args: { accountId: number; id: string; condition: ConditionGraphInput }, ctx: GraphContext) => {
      ctx.requireAccount(args.accountId);
      return alertCall(async () => conditionView(await alertsOf(ctx).updateCondition(args.accountId, args.id, (current) => mergedInput(current, args.condition))));
    },
    alertsConditionDelete: (_r: Root, args: { accountId: number; id: string }, ctx: GraphContext) => {
      ctx.requireAccount(args.accountId);
      return alertCall(async () => ({ id: (await alertsOf(ctx).deleteCondition(args.accountId, args.id)).id }));
    },
    alertsMutingRuleCreate: (_r: Root, args: { accountId: number; rule: MutingRuleInput }, ctx: GraphContext) => {
      ctx.requireAccount(args.accountId);
      return mutingCall(async () => mutingRuleView(await alertsOf(ctx).mutingRules.create(args.accountId, args.rule, ruleUser(ctx)), ctx.nowMs));
    },
    alertsMutingRuleUpdate: (_r: Root, args: { accountId: number; id: string; rule: MutingRuleInput }, ctx: GraphContext) => {
      ctx.requireAccount(args.accountId);
      return mutingCall(async () => mutingRuleView(await alertsOf(ctx).mutingRules.update(args.accountId, args.id, args.rule, ruleUser(ctx)), ctx.nowMs));
    },
    alertsMutingRuleDelete: (_r: Root, args: { accountId: number; id: string }, ctx: GraphContext) => {
      ctx.requireAccount(args.accountId);
      return mutingCall(async () => ({ id: await alertsOf(ctx).mutingRules.delete(args.accountId, args.id) }));
    },
    aiIssuesAckIssue: (_r: Root, args: { accountId: number; issueId: string }, ctx: GraphContext) => issueAction(ctx, args, 'ACK'),
    aiIssuesUpdateGracePeriod: (_r: Root, args: { accountId: number; gracePeriod: { critical: number; high: number; medium: number; low: number } }, ctx: GraphContext) =>
      issueConfigChange(ctx, args.accountId, (s) => s.updateGracePeriod(args.accountId, { CRITICAL: args.gracePeriod.critical, HIGH: args.gracePeriod.high, MEDIUM: args.gracePeriod.medium, LOW: args.gracePeriod.low })),
    aiIssuesUpdateIssueTtl: (_r: Root, args: { accountId: number; issueTtl: number }, ctx: GraphContext) =>
      issueConfigChange(ctx, args.accountId, (s) => s.updateIssueTtl(args.accountId, args.issueTtl)),
    aiIssuesUnackIssue: (_r: Root, args: { accountId: number; issueId: string }, ctx: GraphContext) => issueAction(ctx, args, 'UNACK'),
    aiIssuesMarkAsInvestigating: (_r: Root, args: { accountId: number; issueId: string }, ctx: GraphContext) => issueAction(ctx, args, 'MARK_AS_INVESTIGATING'),
    aiIssuesResolveIssue: (_r: Root, args: { accountId: number; issueId: string }, ctx: GraphContext) => issueAction(ctx, args, 'RESOLVE'),
    aiIssuesCloseIncident: async (_r: Root, args: { accountId: number; incidentId: string }, ctx: GraphContext) => {
      const answer = (error: string | null) => ({ accountId: args.accountId, incidentId: args.incidentId, error });
      if (!ctx.canRead(args.accountId)) return answer(`Access denied: this API key cannot reach account ${args.accountId}`);
      const done = await alertsOf(ctx).closeIncident(args.accountId, args.incidentId);
      return answer(done ? null : `Incident ${args.incidentId} Not Found in account ${args.accountId}, or it is closed`);
    },
  },
};
