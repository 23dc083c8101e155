import { deletionRefusal } from '../../../applications/application-summary.js';
import { browserLoader } from '../../../domain/agent-settings/validation.js';
import { browserLoaderScript } from '../../../domain/browser-loader-script.js';
import { StoreBusyError } from '../../../store/batch-writer.js';
import { BROWSER_LOADER_TYPES, type BrowserSettings } from '../../../domain/agent-settings/model.js';
import type { BrowserApplication } from '../../../store/browser-applications.js';
import { ApplicationNotFoundError, type Application } from '../../../store/catalog.js';
import { ChangeTrackingInputError, Deployments, type ChangeTrackingEntity, type ChangeTrackingEventInput } from '../../../store/deployments.js';
import {
  checkedDeployment, checkedEvent, deploymentView, eventView,
  type CreateDeploymentInput, type CreateEventInput, type ValidationFlag,
} from '../change-tracking.js';
import { browserEntity, mobileEntity, keyTransactionEntity, type GraphEntity } from '../entity-model.js';
import type { GraphContext } from '../graph-context.js';
import { GraphError } from '../graph-errors.js';
import { keyTransactionApplication } from './entity-resolvers.js';
import { matchingEntities, searchCondition } from './entity-search-resolvers.js';
import { targetEntity, targetOfKind } from './mutation-target.js';
import { browserSideOf, updateAgentApplicationSettings } from './settings-resolvers.js';

/*
 * NerdGraph's mutations over the same stores REST v2 and the collector use. Every refusal is a
 * GraphQL error on the field (which is then null) with an errorClass that is never one clients
 * retry, except a store too busy to take a write (TOO_MANY_REQUESTS: nothing was written, and
 * the same request can succeed later). An account named by an argument must be the key's
 * (FORBIDDEN otherwise); an entity named by GUID in another account is NOT_FOUND, as one that
 * does not exist.
 */

type Root = unknown;

/** A store refusal (RangeError, written for the API user) as INVALID_INPUT; anything else goes on. */
async function storeCall<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof RangeError || error instanceof ChangeTrackingInputError) throw GraphError.invalidInput(error.message);
    if (error instanceof StoreBusyError) {
      throw new GraphError('TOO_MANY_REQUESTS', `The store cannot take the change now (${error.message}); nothing was stored, send it again shortly`);
    }
    throw error;
  }
}

/** NerdGraph's `AgentApplicationBrowserSettingsInput`: null members are not given; NONE has no loader snippet. */
function browserSettingsInput(input: { cookiesEnabled?: boolean | null; distributedTracingEnabled?: boolean | null; loaderType?: string | null } | null | undefined): Partial<BrowserSettings> {
  const settings: { -readonly [K in keyof BrowserSettings]?: BrowserSettings[K] } = {};
  if (input?.cookiesEnabled !== undefined && input.cookiesEnabled !== null) settings.cookiesEnabled = input.cookiesEnabled;
  if (input?.distributedTracingEnabled !== undefined && input.distributedTracingEnabled !== null) settings.distributedTracingEnabled = input.distributedTracingEnabled;
  if (input?.loaderType !== undefined && input.loaderType !== null) {
    const loader = browserLoader(input.loaderType);
    if (!(BROWSER_LOADER_TYPES as readonly string[]).includes(loader)) {
      throw GraphError.invalidInput(`settings.loaderType ${input.loaderType} installs no agent: Timeslice's browser applications load the SPA, PRO (FULL) or LITE agent`);
    }
    settings.loaderType = loader as BrowserSettings['loaderType'];
  }
  return settings;
}

function loaderScriptOf(app: BrowserApplication, ctx: GraphContext): string {
  return browserLoaderScript({ accountId: app.accountId, applicationId: app.id, browserMonitoringKey: app.browserMonitoringKey, settings: app.settings, origin: ctx.origin });
}

/** `work` while the APM application exists and cannot be deleted; NOT_FOUND once it is gone. */
async function ofLiveApplication<T>(ctx: GraphContext, guid: string, appId: number, work: (app: Application) => Promise<T>): Promise<T> {
  try {
    return await ctx.services.catalog.whileApplicationExists(appId, work);
  } catch (error) {
    if (error instanceof ApplicationNotFoundError) throw GraphError.entityNotFound(guid);
    throw error;
  }
}

async function deleteApplication(ctx: GraphContext, guid: string) {
  const entity = targetOfKind(ctx, guid, ['apm', 'browser', 'mobile'], 'agentApplicationDelete');
  switch (entity.kind) {
    case 'apm': {
      // REST v2's rule (DELETE /v2/applications/{id}): not while metric data arrives.
      const refusal = deletionRefusal(entity.record.id, ctx.services.metrics.lastReportedAt({ appId: entity.record.id }), ctx.nowMs);
      if (refusal) throw GraphError.invalidInput(`${refusal.title}: ${refusal.detail.charAt(0).toLowerCase()}${refusal.detail.slice(1)}`);
      try {
        await ctx.services.catalog.deleteApplication(entity.record.id);
      } catch (error) {
        if (error instanceof ApplicationNotFoundError) throw GraphError.entityNotFound(guid);
        throw error;
      }
      break;
    }
    case 'browser':
      if (!(await ctx.services.entities.browserApplications.delete(entity.record.id))) throw GraphError.entityNotFound(guid);
      break;
    case 'mobile':
      if (!(await ctx.services.entities.mobileApplications.delete(entity.record.id))) throw GraphError.entityNotFound(guid);
      break;
  }
  return { success: true };
}

async function createMobile(ctx: GraphContext, args: { accountId: number; name: string }) {
  ctx.requireAccount(args.accountId);
  const app = await storeCall(() => ctx.services.entities.mobileApplications.create(args.accountId, args.name));
  const entity = mobileEntity(app);
  return { accountId: app.accountId, applicationToken: app.applicationToken, entityOutline: entity, guid: entity.guid, name: app.name };
}

async function createBrowser(ctx: GraphContext, args: { accountId: number; name: string; settings?: Parameters<typeof browserSettingsInput>[0] }) {
  ctx.requireAccount(args.accountId);
  const settings = browserSettingsInput(args.settings);
  const app = await storeCall(() => ctx.services.entities.browserApplications.create({ accountId: args.accountId, name: args.name, settings }));
  return {
    guid: browserEntity(app).guid,
    name: app.name,
    // NerdGraph hands the snippet over JSON-encoded: a string holding a JSON string.
    settings: { ...app.settings, loaderScript: JSON.stringify(loaderScriptOf(app, ctx)) },
  };
}

/**
 * Browser monitoring for an APM application: a browser side named after it. When it has one
 * already, the call answers its settings, unless it asks for different ones (those are changed
 * with agentApplicationSettingsUpdate, not here).
 */
async function enableApmBrowser(ctx: GraphContext, args: { guid: string; settings?: Parameters<typeof browserSettingsInput>[0] }) {
  const entity = targetOfKind(ctx, args.guid, ['apm'], 'agentApplicationEnableApmBrowser');
  const settings = browserSettingsInput(args.settings);
  // Checked and created while the application cannot be deleted, and one call at a time: a second
  // concurrent call finds the side the first made.
  const side = await ofLiveApplication(ctx, args.guid, entity.record.id, async (app) => {
    const existing = browserSideOf(ctx, app);
    if (!existing) {
      return storeCall(() => ctx.services.entities.browserApplications.create({ accountId: app.accountId, name: app.name, settings, apmApplicationId: app.id }));
    }
    const differing = (Object.keys(settings) as (keyof BrowserSettings)[]).filter((k) => settings[k] !== existing.settings[k]);
    if (differing.length > 0) {
      throw GraphError.invalidInput(
        `Application ${app.id} already has browser monitoring (browser application ${existing.id}) with ` +
          `${differing.map((k) => `${k} ${String(existing.settings[k])}`).join(', ')}; change its settings with agentApplicationSettingsUpdate`,
      );
    }
    return existing;
  });
  return { name: side.name, settings: side.settings };
}

interface KeyTransactionResult {
  readonly apdexTarget: number;
  readonly application: ReturnType<typeof keyTransactionApplication>;
  readonly browserApdexTarget: number;
  readonly guid: string;
  readonly metricName: string;
  readonly name: string;
}

function keyTransactionResult(ctx: GraphContext, entity: Extract<GraphEntity, { kind: 'keyTransaction' }>): KeyTransactionResult {
  const kt = entity.record;
  return {
    apdexTarget: kt.apdexT,
    application: keyTransactionApplication(ctx, kt.accountId, kt.appId),
    browserApdexTarget: kt.browserApdexT,
    guid: entity.guid,
    metricName: kt.metricName,
    name: kt.name,
  };
}

async function createKeyTransaction(ctx: GraphContext, args: { apdexTarget: number; applicationGuid: string; browserApdexTarget: number; metricName: string; name: string }) {
  const target = targetOfKind(ctx, args.applicationGuid, ['apm'], 'keyTransactionCreate', 'applicationGuid');
  const kt = await ofLiveApplication(ctx, args.applicationGuid, target.record.id, (app) => storeCall(() => ctx.services.entities.keyTransactions.create({
    application: app, name: args.name, metricName: args.metricName, apdexT: args.apdexTarget, browserApdexT: args.browserApdexTarget,
  })));
  return keyTransactionResult(ctx, keyTransactionEntity(kt) as Extract<GraphEntity, { kind: 'keyTransaction' }>);
}

async function updateKeyTransaction(ctx: GraphContext, args: { guid: string; apdexTarget?: number | null; browserApdexTarget?: number | null; name?: string | null }) {
  const entity = targetOfKind(ctx, args.guid, ['keyTransaction'], 'keyTransactionUpdate');
  const kt = await storeCall(() => ctx.services.entities.keyTransactions.update(entity.record.id, {
    ...(args.name !== undefined && args.name !== null ? { name: args.name } : {}),
    ...(args.apdexTarget !== undefined && args.apdexTarget !== null ? { apdexT: args.apdexTarget } : {}),
    ...(args.browserApdexTarget !== undefined && args.browserApdexTarget !== null ? { browserApdexT: args.browserApdexTarget } : {}),
  }));
  if (!kt) throw GraphError.entityNotFound(args.guid);
  const { guid: _guid, metricName: _metricName, ...result } = keyTransactionResult(ctx, keyTransactionEntity(kt) as Extract<GraphEntity, { kind: 'keyTransaction' }>);
  return result;
}

async function deleteKeyTransaction(ctx: GraphContext, args: { guid: string }) {
  const entity = targetOfKind(ctx, args.guid, ['keyTransaction'], 'keyTransactionDelete');
  if (!(await ctx.services.entities.keyTransactions.delete(entity.record.id))) throw GraphError.entityNotFound(args.guid);
  return { success: true };
}

/** The entity an event is about, as the store names it: an APM application with its id, so REST lists its deployments. */
function eventEntity(entity: GraphEntity): ChangeTrackingEntity {
  return entity.kind === 'apm' ? Deployments.applicationEntity(entity.record) : { guid: entity.guid, name: entity.record.name };
}

function flagsOf(rules: { validationFlags?: readonly ValidationFlag[] | null } | null | undefined): ReadonlySet<ValidationFlag> {
  return new Set(rules?.validationFlags ?? []);
}

/** The one readable entity an entity search names; none or several is refused, saying which. */
async function searchedEntity(ctx: GraphContext, query: string): Promise<GraphEntity> {
  if (query.trim() === '') throw GraphError.invalidInput("entitySearch.query must not be empty: name the entity, e.g. \"id = '<entity GUID>'\"");
  const { condition } = searchCondition({ query });
  const found = await matchingEntities(ctx, condition);
  if (found.length === 0) throw GraphError.notFound(`No entity matches the entity search query "${query}" in the accounts this API key can reach`);
  if (found.length > 1) {
    const shown = found.slice(0, 5).map((f) => `${f.entity.record.name} (${f.entity.guid})`).join(', ');
    throw GraphError.invalidInput(
      `The entity search query "${query}" matches ${found.length} entities (${shown}${found.length > 5 ? ', …' : ''}); ` +
        "it must match exactly one: narrow it, e.g. \"id = '<entity GUID>'\"",
    );
  }
  return found[0]!.entity;
}

/**
 * `changeTrackingCreateEvent`: the input is checked first (change-tracking.ts), then the entity
 * search must find exactly one entity; the event is stored with the graph's `service.source`. A
 * Deployment of an APM application is also in REST v2's deployment list of that application.
 * `messages` notes text that was cut to the length limit.
 */
async function createEvent(ctx: GraphContext, args: { changeTrackingEvent: CreateEventInput; dataHandlingRules?: { validationFlags?: ValidationFlag[] | null } | null }) {
  const checked = checkedEvent(args.changeTrackingEvent, flagsOf(args.dataHandlingRules), ctx.nowMs);
  const entity = await searchedEntity(ctx, args.changeTrackingEvent.entitySearch.query);
  const input: ChangeTrackingEventInput = { ...checked.store, accountId: entity.accountId, entity: eventEntity(entity) };
  const stored = await storeCall(() => ctx.services.deployments.createEvent(input));
  return { changeTrackingEvent: eventView(stored, checked.kind.categoryAndType, entity), messages: checked.messages };
}

/**
 * `changeTrackingCreateDeployment` (the legacy form): a Deployment change tracking event of the
 * entity, the same record REST v2 lists for an APM application. FAIL_ON_REST_API_FAILURES has
 * nothing to fail: there is no separate REST call, the REST record is this one.
 */
async function createDeployment(ctx: GraphContext, args: { deployment: CreateDeploymentInput; dataHandlingRules?: { validationFlags?: ValidationFlag[] | null } | null }) {
  const entity = targetEntity(ctx, args.deployment.entityGuid, 'deployment.entityGuid');
  const checked = checkedDeployment(args.deployment, flagsOf(args.dataHandlingRules), ctx.nowMs);
  const stored = await storeCall(() => ctx.services.deployments.createEvent({ ...checked, accountId: entity.accountId, entity: eventEntity(entity) }));
  return deploymentView(stored);
}

export const mutationResolvers = {
  RootMutationType: {
    agentApplicationSettingsUpdate: (_root: Root, args: { guid: string; settings: Record<string, unknown> }, ctx: GraphContext) =>
      updateAgentApplicationSettings(ctx, args.guid, args.settings),
    agentApplicationDelete: (_root: Root, args: { guid: string }, ctx: GraphContext) => deleteApplication(ctx, args.guid),
    agentApplicationCreateMobile: (_root: Root, args: { accountId: number; name: string }, ctx: GraphContext) => createMobile(ctx, args),
    agentApplicationCreateBrowser: (_root: Root, args: Parameters<typeof createBrowser>[1], ctx: GraphContext) => createBrowser(ctx, args),
    agentApplicationEnableApmBrowser: (_root: Root, args: Parameters<typeof enableApmBrowser>[1], ctx: GraphContext) => enableApmBrowser(ctx, args),
    keyTransactionCreate: (_root: Root, args: Parameters<typeof createKeyTransaction>[1], ctx: GraphContext) => createKeyTransaction(ctx, args),
    keyTransactionUpdate: (_root: Root, args: Parameters<typeof updateKeyTransaction>[1], ctx: GraphContext) => updateKeyTransaction(ctx, args),
    keyTransactionDelete: (_root: Root, args: { guid: string }, ctx: GraphContext) => deleteKeyTransaction(ctx, args),
    changeTrackingCreateEvent: (_root: Root, args: Parameters<typeof createEvent>[1], ctx: GraphContext) => createEvent(ctx, args),
    changeTrackingCreateDeployment: (_root: Root, args: Parameters<typeof createDeployment>[1], ctx: GraphContext) => createDeployment(ctx, args),
  },
  ChangeTrackingEvent: { __resolveType: (event: { __typename: string }) => event.__typename },
};

