import { REPORTING_TIMEOUT_MS } from '../../../applications/application-summary.js';
import { quoteNrqlString } from '../../../nrql/literals.js';
import { parseCondition } from '../../../nrql/parser.js';
import type { Condition } from '../../../nrql/ast.js';
import type { GraphContext } from '../graph-context.js';
import { GraphError } from '../graph-errors.js';
import { checkedWindow } from '../time-window-input.js';
import { ENTITY_KINDS, apmEntity, entityName, guidOf, type GraphEntity } from '../entity-model.js';
import { AccountView } from './account-view.js';
import { runNrql, type NrqlArgs } from './nrql-resolvers.js';

type Resolver<A = Record<string, never>> = (entity: GraphEntity, args: A, ctx: GraphContext) => unknown;

/** Whether the entity is reporting now; see each kind's rule in docs/graph-api.md. */
export async function entityReporting(entity: GraphEntity, ctx: GraphContext): Promise<boolean> {
  switch (entity.kind) {
    case 'apm':
      return ctx.loaders.apmReporting(entity.record);
    case 'keyTransaction':
      return ctx.loaders.apmReporting({ id: entity.record.appId });
    case 'browser':
      return ctx.loaders.isRecent(await ctx.loaders.browserLastEvent.load(entity.record));
    case 'mobile':
      return ctx.loaders.isRecent(await ctx.loaders.mobileLastEvent.load(entity.record));
  }
}

/** When the entity last started or stopped reporting, as far as the store knows: when it stopped. */
export async function lastReportingChangeAt(entity: GraphEntity, ctx: GraphContext): Promise<number | null> {
  const last = await lastDataAt(entity, ctx);
  if (last === null) return null;
  return ctx.nowMs - last >= REPORTING_TIMEOUT_MS ? last + REPORTING_TIMEOUT_MS : null;
}

async function lastDataAt(entity: GraphEntity, ctx: GraphContext): Promise<number | null> {
  switch (entity.kind) {
    case 'apm':
      return ctx.loaders.lastReportedAt(entity.record) ?? null;
    case 'keyTransaction':
      return ctx.loaders.lastReportedAt({ id: entity.record.appId }) ?? null;
    case 'browser':
      return ctx.loaders.browserLastEvent.load(entity.record);
    case 'mobile':
      return ctx.loaders.mobileLastEvent.load(entity.record);
  }
}

/** Tags every entity carries, as New Relic's do: its account, and what the kind knows. */
export function entityTags(entity: GraphEntity, ctx: GraphContext): Map<string, string[]> {
  const account = ctx.services.catalog.account(entity.accountId);
  const tags = new Map<string, string[]>([
    ['accountId', [String(entity.accountId)]],
    ['trustedAccountId', [String(entity.accountId)]],
  ]);
  if (account) tags.set('account', [account.name]);
  if (entity.kind === 'apm' && entity.record.language) tags.set('language', [entity.record.language]);
  return tags;
}

/**
 * The condition `entity { nrdbQuery }` adds, naming the entity's own data as each kind's data
 * names it: an APM application's telemetry carries its GUID (`entity.guid`); a browser or mobile
 * application's events carry its name (`appName`), as their summaries read them; a key
 * transaction's data is its application's under the transaction's name (`metricTimesliceName` on
 * Metric rows, `name` on Transaction events).
 */
function entityCondition(entity: GraphEntity): Condition {
  const q = quoteNrqlString;
  let text: string;
  switch (entity.kind) {
    case 'apm':
      text = `entity.guid = ${q(entity.guid)}`;
      break;
    case 'browser':
    case 'mobile':
      text = `appName = ${q(entity.record.name)}`;
      break;
    case 'keyTransaction': {
      const metric = q(entity.record.metricName);
      text = `entity.guid = ${q(guidOf('apm', entity.accountId, entity.record.appId))} AND (metricTimesliceName = ${metric} OR name = ${metric})`;
      break;
    }
  }
  return parseCondition(text);
}

/**
 * An entity's alertSeverity from the alert engine's open incidents and evaluated signals (fields and
 * search read this): a condition targets it through a FACET or WHERE on its name or GUID (docs/alerts.md).
 */
export function entityAlertSeverity(e: GraphEntity, ctx: GraphContext): string {
  const alerts = ctx.services.alerts;
  if (alerts === undefined) return 'NOT_CONFIGURED';
  return alerts.alertSeverity(e.accountId, alertTarget(e));
}

const alertTarget = (e: GraphEntity) => ({ names: [entityName(e), e.record.name, e.guid, String(e.record.id)] });

/** alertViolations / recentAlertViolations answer at most this many. */
export const MAX_ALERT_VIOLATIONS = 500;

/**
 * An entity's incidents as NerdGraph's EntityAlertViolation: the incident's title as `label`, its term's
 * priority as `level` and `alertSeverity`, data-time `openedAt` / `closedAt`. `violationId` is the
 * incident's REST v2 violation id (NerdGraph's is an Int); `violationUrl` links the incident's issue.
 */
async function alertViolations(e: GraphEntity, ctx: GraphContext, from: number, to: number, count: number) {
  const alerts = ctx.services.alerts;
  if (alerts === undefined) return [];
  const incidents = await alerts.entityIncidents(e.accountId, alertTarget(e), from, to);
  const shown = incidents.slice(0, count);
  const numbers = await alerts.restNumbers('incident', shown.map((i) => i.id));
  return shown.map((i) => {
    const level = i.termKey === 'WARNING' ? 'WARNING' : 'CRITICAL';
    return {
      violationId: numbers.get(i.id) ?? null, label: i.title, level, alertSeverity: level, openedAt: i.openedAt, closedAt: i.closedAt,
      agentUrl: `${ctx.origin}/redirect/entity/${e.guid}`,
      violationUrl: i.issueId === null ? null : `${ctx.origin}/accounts/${i.accountId}/issues/${i.issueId}`,
    };
  });
}

/** Fields of every entity and outline type (NerdGraph's `EntityOutline` and `Entity` interfaces). */
const COMMON: Record<string, Resolver<any>> = {
  guid: (e) => e.guid,
  name: (e) => entityName(e),
  accountId: (e) => e.accountId,
  account: (e, _a, ctx) => new AccountView(e.accountId, ctx.services.catalog.account(e.accountId)?.name ?? null),
  domain: (e) => ENTITY_KINDS[e.kind].domain,
  type: (e) => ENTITY_KINDS[e.kind].type,
  entityType: (e) => ENTITY_KINDS[e.kind].entityType,
  alertSeverity: (e, _a, ctx) => entityAlertSeverity(e, ctx),
  reporting: (e, _a, ctx) => entityReporting(e, ctx),
  permalink: (e, _a, ctx) => `${ctx.origin}/redirect/entity/${e.guid}`,
  tags: (e, _a, ctx) => [...entityTags(e, ctx)].filter(([key]) => !e.tagFilter || e.tagFilter.has(key)).map(([key, values]) => ({ key, values })),
  firstIndexedAt: (e) => e.record.createdAt,
  indexedAt: (e) => e.record.createdAt,
  lastReportingChangeAt: (e, _a, ctx) => lastReportingChangeAt(e, ctx),
};

/** Fields only full entities (`entity(guid)`) have. */
const FULL: Record<string, Resolver<any>> = {
  alertViolations: (e, args: { startTime: number; endTime: number }, ctx) => {
    const window = checkedWindow(args.startTime, args.endTime, 'alertViolations');
    return alertViolations(e, ctx, window.start, window.end, MAX_ALERT_VIOLATIONS);
  },
  recentAlertViolations: (e, args: { count?: number | null }, ctx) => {
    const count = args.count ?? 10;
    if (!Number.isInteger(count) || count < 1 || count > MAX_ALERT_VIOLATIONS) throw GraphError.invalidInput(`recentAlertViolations.count must be between 1 and ${MAX_ALERT_VIOLATIONS}`);
    return alertViolations(e, ctx, 0, ctx.nowMs, count);
  },
  nrdbQuery: (e, args: NrqlArgs & { nrql: string }, ctx) => {
    // The entity's condition has nowhere to go in SHOW EVENT TYPES: it would answer for the whole account.
    if (/^\s*show\b/i.test(args.nrql)) throw GraphError.invalidInput('nrdbQuery takes a SELECT query: the entity condition is added to its WHERE');
    return runNrql(ctx, [e.accountId], { ...args, query: args.nrql }, entityCondition(e));
  },
};

const APM: Record<string, Resolver<any>> = {
  applicationId: (e) => e.record.id,
  language: (e) => (e.kind === 'apm' ? e.record.language : null),
  apmSummary: (e, _a, ctx) => (e.kind === 'apm' ? ctx.loaders.apmSummary.load(e.record) : null),
  apmBrowserSummary: (e, _a, ctx) => (e.kind === 'apm' ? ctx.loaders.apmBrowserSummary.load(e.record) : null),
  runningAgentVersions: (e, _a, ctx) => (e.kind === 'apm' ? ctx.loaders.runningAgentVersions(e.record) : null),
  settings: (e) => (e.kind === 'apm' ? { apdexTarget: e.record.apdexT, serverSideConfig: e.record.useServerSideConfig } : null),
};

const KEY_TRANSACTION_FULL: Record<string, Resolver<any>> = {
  apdexTarget: (e) => (e.kind === 'keyTransaction' ? e.record.apdexT : null),
  browserApdexTarget: (e) => (e.kind === 'keyTransaction' ? e.record.browserApdexT : null),
  metricName: (e) => (e.kind === 'keyTransaction' ? e.record.metricName : null),
  application: (e, _a, ctx) => (e.kind === 'keyTransaction' ? keyTransactionApplication(ctx, e.record.accountId, e.record.appId) : null),
};

/** `KeyTransactionApplication`: the application's GUID, and its outline while it exists. */
export function keyTransactionApplication(ctx: GraphContext, accountId: number, appId: number): { guid: string; entity: GraphEntity | null } {
  const app = ctx.services.catalog.application(appId);
  const entity = app ? apmEntity(app) : null;
  return { guid: guidOf('apm', accountId, appId), entity };
}

const BROWSER: Record<string, Resolver<any>> = {
  applicationId: (e) => e.record.id,
  servingApmApplicationId: (e) => (e.kind === 'browser' ? e.record.apmApplicationId : null),
  agentInstallType: (e) => (e.kind === 'browser' ? ({ LITE: 'LITE', PRO: 'PRO', SPA: 'PRO_SPA' } as const)[e.record.settings.loaderType] ?? null : null),
  browserSummary: (e, _a, ctx) => (e.kind === 'browser' ? ctx.loaders.browserSummary.load(e.record) : null),
  runningAgentVersions: () => null,
};

const MOBILE: Record<string, Resolver<any>> = {
  applicationId: (e) => e.record.id,
  mobileSummary: (e, _a, ctx) => (e.kind === 'mobile' ? ctx.loaders.mobileSummary.load(e.record) : null),
};

const MOBILE_FULL: Record<string, Resolver<any>> = {
  mobileProperties: (e) => (e.kind === 'mobile' ? { applicationToken: e.record.applicationToken } : null),
};

/** The resolver map of the entity types: outline types get the common fields, full types more. */
export const entityTypeResolvers = {
  ApmApplicationEntityOutline: { ...COMMON, ...APM },
  ApmApplicationEntity: { ...COMMON, ...FULL, ...APM },
  BrowserApplicationEntityOutline: { ...COMMON, ...BROWSER },
  BrowserApplicationEntity: { ...COMMON, ...FULL, ...BROWSER },
  MobileApplicationEntityOutline: { ...COMMON, ...MOBILE },
  MobileApplicationEntity: { ...COMMON, ...FULL, ...MOBILE, ...MOBILE_FULL },
  KeyTransactionEntityOutline: { ...COMMON },
  KeyTransactionEntity: { ...COMMON, ...FULL, ...KEY_TRANSACTION_FULL },
  EntityOutline: { __resolveType: (e: GraphEntity) => ENTITY_KINDS[e.kind].outlineTypename },
  AlertableEntityOutline: { __resolveType: (e: GraphEntity) => ENTITY_KINDS[e.kind].outlineTypename },
  ApmBrowserApplicationEntityOutline: { __resolveType: (e: GraphEntity) => ENTITY_KINDS[e.kind].outlineTypename },
  Entity: { __resolveType: (e: GraphEntity) => ENTITY_KINDS[e.kind].entityTypename },
  AlertableEntity: { __resolveType: (e: GraphEntity) => ENTITY_KINDS[e.kind].entityTypename },
  ApmBrowserApplicationEntity: { __resolveType: (e: GraphEntity) => ENTITY_KINDS[e.kind].entityTypename },
};
