import { BROWSER_LOADER_TYPES, type ApmAgentSettings, type BrowserMonitoringSettings, type MobileAgentSettings } from '../../../domain/agent-settings/model.js';
import {
  applySettingsPatch, browserLoader, validateApmAgentSettings, validateBrowserMonitoringSettings, validateMobileAgentSettings,
  type SettingsPatch,
} from '../../../domain/agent-settings/validation.js';
import { browserAgentConfig, browserConfigScript, browserLoaderScript } from '../../../domain/browser-loader-script.js';
import { browserApdexT, type BrowserApplication } from '../../../store/browser-applications.js';
import { ApplicationNotFoundError, type Application, type ApplicationChanges } from '../../../store/catalog.js';
import type { MobileApplication } from '../../../store/mobile-applications.js';
import { entityByGuid, type GraphEntity } from '../entity-model.js';
import type { GraphContext } from '../graph-context.js';
import { GraphError } from '../graph-errors.js';
import { kindName, targetOfKind } from './mutation-target.js';
import { entityName, entityNameRule } from '../../../domain/entity-name.js';

/*
 * NerdGraph's agent settings: one function per shape (`AgentApplicationSettingsApmBase`,
 * `…BrowserBase`, `…BrowserProperties`, `…MobileBase`), answering both the entity fields
 * (`apmSettings`, `browserSettings`, …) and `agentApplicationSettingsUpdate`'s result, which this
 * file also carries out.
 */

type Apm = Extract<GraphEntity, { kind: 'apm' }>;
type Browser = Extract<GraphEntity, { kind: 'browser' }>;
type Mobile = Extract<GraphEntity, { kind: 'mobile' }>;

/** `AgentApplicationSettingsApmBase`: the catalog's columns and agent settings; the two Timeslice extras beside `apmConfig`. */
export function apmSettingsOf(app: Application): Record<string, unknown> {
  const s = app.agentSettings;
  return {
    alias: app.name,
    originalName: app.agentName,
    apdexTarget: app.apdexT,
    useServerSideConfig: app.useServerSideConfig,
    apmConfig: { apdexTarget: app.apdexT, useServerSideConfig: app.useServerSideConfig },
    applicationLogging: s.applicationLogging,
    captureMemcacheKeys: s.captureMemcacheKeys,
    errorCollector: s.errorCollector,
    jfr: s.jfr,
    slowSql: s.slowSql,
    threadProfiler: s.threadProfiler,
    tracerType: s.tracerType,
    // NerdGraph shows the deprecated per-tracer copy of captureMemcacheKeys too; it is the one setting.
    transactionTracer: { ...s.transactionTracer, captureMemcacheKeys: s.captureMemcacheKeys },
  };
}

/** `AgentApplicationSettingsBrowserBase`: the application's Apdex T (a browser side's is its APM application's end-user one) and monitoring. */
export function browserSettingsOf(app: BrowserApplication, ctx: GraphContext): Record<string, unknown> {
  const m = app.monitoring;
  return {
    browserConfig: { apdexTarget: browserApdexT(app, ctx.services.catalog) },
    browserMonitoring: { ajax: m.ajax, distributedTracing: m.distributedTracing, loader: m.loader, pinnedVersion: m.pinnedVersion, privacy: m.privacy },
    sessionReplay: m.sessionReplay,
    sessionTrace: m.sessionTrace,
  };
}

/**
 * `AgentApplicationSettingsBrowserProperties`: the browser agent's configuration, alone and as a
 * script, and the whole loader snippet, pointing at the origin the client used, as REST's
 * `loader_script` does.
 */
export function browserPropertiesOf(app: BrowserApplication, ctx: GraphContext): Record<string, unknown> {
  const input = { accountId: app.accountId, applicationId: app.id, browserMonitoringKey: app.browserMonitoringKey, settings: app.settings, origin: ctx.origin };
  return { jsConfig: browserAgentConfig(input), jsConfigScript: browserConfigScript(input), jsLoaderScript: browserLoaderScript(input) };
}

/** `AgentApplicationSettingsMobileBase`: the store keeps it in NerdGraph's shape. */
export function mobileSettingsOf(app: MobileApplication): MobileAgentSettings {
  return app.settings;
}

/** The browser side of an APM application, when browser monitoring is on for it. */
export function browserSideOf(ctx: GraphContext, app: Application): BrowserApplication | undefined {
  return ctx.services.entities.browserApplications.list(app.accountId).find((b) => b.apmApplicationId === app.id);
}

const browserApdex = (e: Browser, _a: unknown, ctx: GraphContext) => ({ apdexTarget: browserApdexT(e.record, ctx.services.catalog) });

/** The settings fields of the entity types; graphql-tools merges them with `entity-resolvers.ts`'s maps. */
export const settingsResolvers = {
  ApmApplicationEntity: { apmSettings: (e: Apm) => apmSettingsOf(e.record) },
  BrowserApplicationEntity: {
    browserSettings: (e: Browser, _a: unknown, ctx: GraphContext) => browserSettingsOf(e.record, ctx),
    browserProperties: (e: Browser, _a: unknown, ctx: GraphContext) => browserPropertiesOf(e.record, ctx),
    settings: browserApdex,
  },
  BrowserApplicationEntityOutline: { settings: browserApdex },
  MobileApplicationEntity: { mobileSettings: (e: Mobile) => mobileSettingsOf(e.record) },
};

// --- agentApplicationSettingsUpdate -----------------------------------------------------------

interface UpdateError {
  readonly description: string;
  readonly errorClass: 'INVALID_INPUT' | 'NOT_FOUND';
  readonly field: string;
}

/** `AgentApplicationSettingsUpdateInput` once nulls are dropped: every member optional. */
type Input = Record<string, any>;

/** Members of the input for one kind of application only, by the kind they belong to. */
const APM_ONLY = ['apmConfig', 'errorCollector', 'transactionTracer', 'slowSql', 'threadProfiler', 'jfr', 'tracerType', 'captureMemcacheKeys', 'applicationLogging'];
const BROWSER_GROUPS = ['browserMonitoring', 'sessionReplay', 'sessionTrace'];

/**
 * The input without explicit nulls (GraphQL's "not given" and null both keep a setting's value),
 * objects left empty dropped. `pinnedVersion: null` stays: it is a value (no pinned version).
 */
function withoutNulls(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || (v === null && key !== 'pinnedVersion')) continue;
    const kept = withoutNulls(v);
    if (kept !== undefined) out[key] = kept;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** The setting path a validation message starts with (`transactionTracer.stackTraceThreshold must be ≥ 0`). */
function pathOfMessage(message: string): string | undefined {
  return /^([A-Za-z][\w]*(?:\[\d+\])*(?:\.[A-Za-z][\w]*(?:\[\d+\])*)*)(?=[ :])/.exec(message)?.[1];
}

/** One request's refusals: each names the input field; any refusal means nothing is written. */
class Refusals {
  readonly errors: UpdateError[] = [];

  add(field: string, description: string, errorClass: UpdateError['errorClass'] = 'INVALID_INPUT'): void {
    this.errors.push({ description, errorClass, field });
  }

  /**
   * Checks one group of settings laid over the current ones; a RangeError is a refusal of the
   * field its message names (`inputPrefix` turns a settings path into an input path). Returns the
   * patch when it passes.
   */
  group<T>(group: string, current: T, patch: SettingsPatch<T>, validate: (settings: T) => void, inputPrefix = ''): SettingsPatch<T> | undefined {
    try {
      validate(applySettingsPatch(current, patch));
      return patch;
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      const path = pathOfMessage(error.message);
      this.add(path ? `${inputPrefix}${path}` : group, `${inputPrefix}${error.message}`);
      return undefined;
    }
  }

  /** A setting of another kind of application. */
  notFor(field: string, entity: GraphEntity): void {
    this.add(field, `${field} does not apply to ${kindName(entity.kind)}; ${entity.guid} is one`);
  }
}

/** The new display name from `alias` or its deprecated twin `name`. */
function aliasOf(s: Input, refusals: Refusals): string | undefined {
  const { alias, name } = s as { alias?: string; name?: string };
  if (alias !== undefined && name !== undefined && alias.trim() !== name.trim()) {
    refusals.add('name', 'name (deprecated) and alias both rename the application and were given different values; send alias only');
    return undefined;
  }
  const given = alias ?? name;
  if (given === undefined) return undefined;
  const checked = entityName(given);
  if (checked === undefined) refusals.add(alias !== undefined ? 'alias' : 'name', entityNameRule('An application'));
  return checked;
}

function apdexOf(value: unknown, field: string, refusals: Refusals): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  refusals.add(field, `${field} must be a positive number of seconds, not ${JSON.stringify(value)}`);
  return undefined;
}

/** The APM agent settings the input changes, each group checked on its own so that every bad one is reported. */
function apmPatch(s: Input, current: ApmAgentSettings, refusals: Refusals): SettingsPatch<ApmAgentSettings> | undefined {
  const groups: [string, SettingsPatch<ApmAgentSettings>][] = [];
  for (const name of ['errorCollector', 'slowSql', 'threadProfiler', 'jfr', 'applicationLogging'] as const) {
    if (s[name] !== undefined) groups.push([name, { [name]: s[name] }]);
  }
  if (s.transactionTracer !== undefined) {
    const { captureMemcacheKeys: _deprecatedCopy, ...tracer } = s.transactionTracer as Record<string, unknown>;
    if (Object.keys(tracer).length > 0) groups.push(['transactionTracer', { transactionTracer: tracer }]);
  }
  if (s.tracerType?.value !== undefined) groups.push(['tracerType.value', { tracerType: s.tracerType.value }]);
  const memcache = s.captureMemcacheKeys as boolean | undefined;
  const deprecatedMemcache = s.transactionTracer?.captureMemcacheKeys as boolean | undefined;
  if (memcache !== undefined && deprecatedMemcache !== undefined && memcache !== deprecatedMemcache) {
    refusals.add('transactionTracer.captureMemcacheKeys', 'captureMemcacheKeys and transactionTracer.captureMemcacheKeys (deprecated) are one setting, given two values');
  } else if ((memcache ?? deprecatedMemcache) !== undefined) {
    groups.push(['captureMemcacheKeys', { captureMemcacheKeys: memcache ?? deprecatedMemcache }]);
  }
  if (groups.length === 0) return undefined;
  const checked = groups.map(([group, patch]) => refusals.group(group, current, patch, validateApmAgentSettings));
  return Object.assign({}, ...checked.filter((p) => p !== undefined)) as SettingsPatch<ApmAgentSettings>;
}

/** `browserMonitoring`, `sessionReplay` and `sessionTrace` as one patch of the monitoring settings; undefined when none is given. */
function browserPatch(s: Input, current: BrowserMonitoringSettings, refusals: Refusals): SettingsPatch<BrowserMonitoringSettings> | undefined {
  const groups: [string, SettingsPatch<BrowserMonitoringSettings>, string][] = [];
  const monitoring = s.browserMonitoring as Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(monitoring ?? {})) {
    if (key === 'loader') {
      const loader = browserLoader(value as string);
      if (!(BROWSER_LOADER_TYPES as readonly string[]).includes(loader)) {
        refusals.add('browserMonitoring.loader', `browserMonitoring.loader ${String(value)} has no loader snippet: Timeslice's browser applications load the SPA, PRO (FULL) or LITE agent`);
        continue;
      }
      groups.push(['browserMonitoring.loader', { loader: loader as BrowserMonitoringSettings['loader'] }, 'browserMonitoring.']);
    } else {
      groups.push([`browserMonitoring.${key}`, { [key]: value } as SettingsPatch<BrowserMonitoringSettings>, 'browserMonitoring.']);
    }
  }
  for (const name of ['sessionReplay', 'sessionTrace'] as const) {
    if (s[name] !== undefined) groups.push([name, { [name]: s[name] }, '']);
  }
  if (groups.length === 0) return undefined;
  const checked = groups.map(([group, patch, prefix]) => refusals.group(group, current, patch, validateBrowserMonitoringSettings, prefix));
  return Object.assign({}, ...checked.filter((p) => p !== undefined)) as SettingsPatch<BrowserMonitoringSettings>;
}

function mobilePatch(s: Input, current: MobileAgentSettings, refusals: Refusals): SettingsPatch<MobileAgentSettings> | undefined {
  const given = s.mobileSettings as Record<string, unknown> | undefined;
  if (given === undefined) return undefined;
  const checked = Object.entries(given).map(([key, value]) =>
    refusals.group(`mobileSettings.${key}`, current, { [key]: value } as SettingsPatch<MobileAgentSettings>, validateMobileAgentSettings, 'mobileSettings.'));
  return Object.assign({}, ...checked.filter((p) => p !== undefined)) as SettingsPatch<MobileAgentSettings>;
}

/** A store's RangeError while writing (a name taken meanwhile): a refusal of `field`; anything else goes on. */
async function written<T>(refusals: Refusals, field: string, write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof RangeError) {
      refusals.add(field, error.message);
      return undefined;
    }
    if (error instanceof ApplicationNotFoundError) throw GraphError.notFound(`The application was deleted while its settings were being changed`);
    throw error;
  }
}

async function updateApm(ctx: GraphContext, entity: Apm, s: Input, refusals: Refusals): Promise<void> {
  const app = entity.record;
  const changes: { -readonly [K in keyof ApplicationChanges]: ApplicationChanges[K] } = {};
  const name = aliasOf(s, refusals);
  if (name !== undefined) changes.name = name;
  const apdexT = apdexOf(s.apmConfig?.apdexTarget, 'apmConfig.apdexTarget', refusals);
  if (apdexT !== undefined) changes.apdexT = apdexT;
  if (s.apmConfig?.useServerSideConfig !== undefined) changes.useServerSideConfig = s.apmConfig.useServerSideConfig as boolean;
  const endUserApdexT = apdexOf(s.browserConfig?.apdexTarget, 'browserConfig.apdexTarget', refusals);
  if (endUserApdexT !== undefined) changes.endUserApdexT = endUserApdexT;
  const agentSettings = apmPatch(s, app.agentSettings, refusals);
  if (agentSettings !== undefined) changes.agentSettings = agentSettings;
  const side = browserSideOf(ctx, app);
  let monitoring: SettingsPatch<BrowserMonitoringSettings> | undefined;
  if (side) monitoring = browserPatch(s, side.monitoring, refusals);
  else {
    for (const group of BROWSER_GROUPS.filter((g) => s[g] !== undefined)) {
      refusals.add(group, `Application ${app.id} has no browser monitoring; turn it on with agentApplicationEnableApmBrowser first`, 'NOT_FOUND');
    }
  }
  if (s.mobileSettings !== undefined) refusals.notFor('mobileSettings', entity);
  if (refusals.errors.length > 0) return;
  // The browser side first: its write is the one a store may still refuse, and then nothing is written.
  if (side && monitoring !== undefined) {
    const updated = await written(refusals, 'browserMonitoring', () => ctx.services.entities.browserApplications.update(side.id, { monitoring }));
    if (refusals.errors.length > 0) return;
    if (!updated) throw GraphError.notFound(`Browser application ${side.id} was deleted while its settings were being changed`);
  }
  if (Object.keys(changes).length > 0) await written(refusals, 'alias', () => ctx.services.catalog.updateApplication(app.id, changes));
}

async function updateBrowser(ctx: GraphContext, entity: Browser, s: Input, refusals: Refusals): Promise<void> {
  const app = entity.record;
  const name = aliasOf(s, refusals);
  const apdexT = apdexOf(s.browserConfig?.apdexTarget, 'browserConfig.apdexTarget', refusals);
  const monitoring = browserPatch(s, app.monitoring, refusals);
  for (const field of [...APM_ONLY, 'mobileSettings'].filter((f) => s[f] !== undefined)) refusals.notFor(field, entity);
  if (refusals.errors.length > 0) return;
  // A browser side's Apdex T is its APM application's end-user Apdex T: it is changed there.
  const ownApdexT = app.apmApplicationId === null ? apdexT : undefined;
  const changes = { ...(name !== undefined ? { name } : {}), ...(ownApdexT !== undefined ? { apdexT: ownApdexT } : {}), ...(monitoring ? { monitoring } : {}) };
  if (Object.keys(changes).length > 0) {
    const updated = await written(refusals, name !== undefined ? 'alias' : 'browserMonitoring', () => ctx.services.entities.browserApplications.update(app.id, changes));
    if (refusals.errors.length > 0) return;
    if (!updated) throw GraphError.notFound(`Browser application ${app.id} was deleted while its settings were being changed`);
  }
  if (app.apmApplicationId !== null && apdexT !== undefined) {
    const apmId = app.apmApplicationId;
    await written(refusals, 'browserConfig.apdexTarget', () => ctx.services.catalog.updateApplication(apmId, { endUserApdexT: apdexT }));
  }
}

async function updateMobile(ctx: GraphContext, entity: Mobile, s: Input, refusals: Refusals): Promise<void> {
  const app = entity.record;
  const name = aliasOf(s, refusals);
  const settings = mobilePatch(s, app.settings, refusals);
  for (const field of [...APM_ONLY, 'browserConfig', ...BROWSER_GROUPS].filter((f) => s[f] !== undefined)) refusals.notFor(field, entity);
  if (refusals.errors.length > 0) return;
  const changes = { ...(name !== undefined ? { name } : {}), ...(settings ? { settings } : {}) };
  if (Object.keys(changes).length === 0) return;
  const updated = await written(refusals, 'alias', () => ctx.services.entities.mobileApplications.update(app.id, changes));
  if (refusals.errors.length === 0 && !updated) throw GraphError.notFound(`Mobile application ${app.id} was deleted while its settings were being changed`);
}

/** `AgentApplicationSettingsUpdateResult` of an application as it now is. */
function updateResult(ctx: GraphContext, entity: GraphEntity, errors: readonly UpdateError[]): Record<string, unknown> {
  const result: Record<string, unknown> = {
    guid: entity.guid,
    alias: entity.record.name,
    name: entity.record.name,
    apmSettings: null,
    applicationLogging: null,
    browserSettings: null,
    browserProperties: null,
    mobileSettings: null,
    errors,
  };
  if (entity.kind === 'apm') {
    result.apmSettings = apmSettingsOf(entity.record);
    result.applicationLogging = entity.record.agentSettings.applicationLogging;
    const side = browserSideOf(ctx, entity.record);
    if (side) {
      result.browserSettings = browserSettingsOf(side, ctx);
      result.browserProperties = browserPropertiesOf(side, ctx);
    }
  } else if (entity.kind === 'browser') {
    result.browserSettings = browserSettingsOf(entity.record, ctx);
    result.browserProperties = browserPropertiesOf(entity.record, ctx);
  } else if (entity.kind === 'mobile') {
    result.mobileSettings = mobileSettingsOf(entity.record);
  }
  return result;
}

/**
 * `agentApplicationSettingsUpdate`: an APM, browser or mobile application's settings; what the
 * input leaves out keeps its value. Problems with the settings given (a value out of range, a
 * setting of another kind of application, browser settings of an APM application without browser
 * monitoring) come back in `errors`, each naming its field, and then nothing is changed; an
 * unknown or unreachable GUID is a NOT_FOUND error on the field. A new Apdex T and, with
 * server-side configuration, the agent settings reach the agents when they next connect (the
 * collector reads the catalog).
 */
export async function updateAgentApplicationSettings(ctx: GraphContext, guid: string, settings: Input): Promise<Record<string, unknown>> {
  const entity = targetOfKind(ctx, guid, ['apm', 'browser', 'mobile'], 'agentApplicationSettingsUpdate');
  const s = (withoutNulls(settings) ?? {}) as Input;
  const refusals = new Refusals();
  if (entity.kind === 'apm') await updateApm(ctx, entity, s, refusals);
  else if (entity.kind === 'browser') await updateBrowser(ctx, entity, s, refusals);
  else await updateMobile(ctx, entity, s, refusals);
  const now = entityByGuid(ctx.services, guid);
  if (!now) throw GraphError.entityNotFound(guid);
  return updateResult(ctx, now, refusals.errors);
}
