import { type ApmAgentSettings, BROWSER_LOADERS, type BrowserMonitoringSettings, MASKABLE_INPUT_TYPES, type MaskInputOptions, type MobileAgentSettings, NETWORK_FILTER_MODES, RECORD_SQL_MODES, SESSION_TRACE_MODES, THRESHOLD_TYPES, TRACER_TYPES } from './model.js';

/**
 * Changes to agent settings as NerdGraph's `agentApplicationSettingsUpdate` gives them: a patch
 * merged into the stored settings, then each kind checked against its shape.
 */

/**
 * A change to settings: any member may be left out and keeps its value; lists are given whole
 * (the new list replaces the old one).
 */
export type SettingsPatch<T> = {
  readonly [K in keyof T]?: T[K] extends readonly unknown[] | string | number | boolean | null ? T[K] : SettingsPatch<T[K]>;
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deep-merges a patch into complete settings: absent (undefined) members keep their old values
 * (NerdGraph: "unspecified fields keep their old values"), lists and other leaves are replaced.
 * A member the settings do not have, or a non-object where they have an object, is a RangeError
 * naming it. The result is not validated: each kind's `validate…` does that.
 */
export function applySettingsPatch<T>(current: T, patch: SettingsPatch<T>, path = ''): T {
  if (!isPlainObject(patch)) throw new RangeError(`${path || 'settings'} must be an object`);
  const merged: Record<string, unknown> = { ...(current as Record<string, unknown>) };
  for (const [key, value] of Object.entries(patch)) {
    const at = path ? `${path}.${key}` : key;
    if (!Object.hasOwn(merged, key)) throw new RangeError(`${at} is not a setting`);
    if (value === undefined) continue;
    merged[key] = isPlainObject(merged[key]) ? applySettingsPatch(merged[key], value as SettingsPatch<unknown>, at) : value;
  }
  return merged as T;
}

/** The HTTP status codes there are: 100 to 599. */
const HTTP_STATUS = /^[1-5]\d\d$/;

type Rule = (value: unknown, path: string) => void;
/** A rule per leaf, an object of shapes per object: each kind of settings is checked against its shape. */
type Shape<T> = T extends readonly unknown[] | string | number | boolean | null ? Rule : { readonly [K in keyof T]-?: Shape<T[K]> };

const bool: Rule = (v, path) => {
  if (typeof v !== 'boolean') throw new RangeError(`${path} must be true or false`);
};
const atLeastZero: Rule = (v, path) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new RangeError(`${path} must be a number`);
  if (v < 0) throw new RangeError(`${path} must be ≥ 0`);
};
const percentage: Rule = (v, path) => {
  atLeastZero(v, path);
  if ((v as number) > 100) throw new RangeError(`${path} must be ≤ 100 (a percentage)`);
};
const count: Rule = (v, path) => {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new RangeError(`${path} must be a whole number ≥ 0`);
};
const oneOf = (values: readonly string[]): Rule => (v, path) => {
  if (typeof v !== 'string' || !values.includes(v)) throw new RangeError(`${path} must be one of ${values.join(', ')}`);
};
function list(item: Rule): Rule {
  return (v, path) => {
    if (!Array.isArray(v)) throw new RangeError(`${path} must be a list`);
    v.forEach((x, i) => item(x, `${path}[${i}]`));
  };
}
const text: Rule = (v, path) => {
  if (typeof v !== 'string' || v.trim() === '') throw new RangeError(`${path} must be a non-empty string`);
};
/** A CSS selector as the browser agent takes it: any text, empty for none (the agent itself ignores one the page cannot parse). */
const selector: Rule = (v, path) => {
  if (typeof v !== 'string') throw new RangeError(`${path} must be a CSS selector, or empty for none`);
};
const texts = list(text);
/** `path` of the list, not of the item: the message names the list and the value, as NerdGraph's field errors do. */
const httpStatuses: Rule = (v, path) => {
  if (!Array.isArray(v)) throw new RangeError(`${path} must be a list`);
  for (const code of v) {
    if (typeof code !== 'string' || !HTTP_STATUS.test(code)) {
      throw new RangeError(`${path}: ${typeof code === 'string' ? `'${code}'` : JSON.stringify(code)} is not an HTTP status`);
    }
  }
};
const record = <T>(shape: Shape<T>): Rule => (v, path) => check(shape as Shape<unknown>, v, path);

function check<T>(shape: Shape<T>, value: unknown, path: string): void {
  if (typeof shape === 'function') return shape(value, path);
  if (!isPlainObject(value)) throw new RangeError(`${path} must be an object`);
  for (const [key, rule] of Object.entries(shape as Record<string, Shape<unknown>>)) {
    if (!Object.hasOwn(value, key)) throw new RangeError(`${path ? `${path}.` : ''}${key} is missing`);
    check(rule, value[key], path ? `${path}.${key}` : key);
  }
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(shape, key)) throw new RangeError(`${path ? `${path}.` : ''}${key} is not a setting`);
  }
}

const APM_SHAPE: Shape<ApmAgentSettings> = {
  errorCollector: {
    enabled: bool, expectedErrorClasses: texts, expectedErrorCodes: httpStatuses, ignoredErrorClasses: texts, ignoredErrorCodes: httpStatuses,
  },
  transactionTracer: {
    enabled: bool,
    explainEnabled: bool,
    explainThresholdType: oneOf(THRESHOLD_TYPES),
    explainThresholdValue: atLeastZero,
    logSql: bool,
    recordSql: oneOf(RECORD_SQL_MODES),
    stackTraceThreshold: atLeastZero,
    transactionThresholdType: oneOf(THRESHOLD_TYPES),
    transactionThresholdValue: atLeastZero,
  },
  slowSql: { enabled: bool },
  threadProfiler: { enabled: bool },
  jfr: { enabled: bool },
  tracerType: oneOf(TRACER_TYPES),
  captureMemcacheKeys: bool,
  applicationLogging: { enabled: bool, forwarding: { enabled: bool, maxSamplesStored: count }, localDecorating: { enabled: bool }, metrics: { enabled: bool } },
};

/** A browser agent version: numbers and dots, e.g. "1.285.0". */
const VERSION = /^\d+(\.\d+){0,3}$/;

const BROWSER_SHAPE: Shape<BrowserMonitoringSettings> = {
  ajax: { denyList: texts },
  distributedTracing: {
    allowedOrigins: texts, corsEnabled: bool, corsUseNewrelicHeader: bool, corsUseTracecontextHeaders: bool, enabled: bool, excludeNewrelicHeader: bool,
  },
  loader: oneOf(BROWSER_LOADERS),
  pinnedVersion: (v, path) => {
    if (v !== null && (typeof v !== 'string' || !VERSION.test(v))) throw new RangeError(`${path} must be a browser agent version such as "1.285.0", or null`);
  },
  privacy: { cookiesEnabled: bool },
  sessionReplay: {
    enabled: bool,
    autoStart: bool,
    samplingRate: percentage,
    errorSamplingRate: percentage,
    blockSelector: selector,
    maskTextSelector: selector,
    maskAllInputs: bool,
    maskInputOptions: Object.fromEntries(MASKABLE_INPUT_TYPES.map((type) => [type, bool])) as Shape<MaskInputOptions>,
    collectFonts: bool,
    inlineImages: bool,
    inlineStylesheet: bool,
  },
  sessionTrace: { enabled: bool, mode: oneOf(SESSION_TRACE_MODES), samplingRate: percentage, errorSamplingRate: percentage },
};

const MOBILE_SHAPE: Shape<MobileAgentSettings> = {
  applicationExitInfo: { enabled: bool },
  networkSettings: {
    aliases: list(record<{ alias: string; hosts: string[] }>({ alias: text, hosts: texts })),
    filterMode: oneOf(NETWORK_FILTER_MODES),
    hideList: texts,
    showList: texts,
    ignoredStatusCodeRules: list(record<{ hosts: string[]; statusCodes: string[] }>({ hosts: texts, statusCodes: httpStatuses })),
  },
  useCrashReports: bool,
};

/** Throws a RangeError naming the first member that is missing, unknown or out of range. */
export function validateApmAgentSettings(settings: ApmAgentSettings): void {
  check(APM_SHAPE, settings, '');
}

export function validateBrowserMonitoringSettings(settings: BrowserMonitoringSettings): void {
  check(BROWSER_SHAPE, settings, '');
}

export function validateMobileAgentSettings(settings: MobileAgentSettings): void {
  check(MOBILE_SHAPE, settings, '');
}

/** A loader as NerdGraph's input gives it: its deprecated FULL is PRO; anything else unknown is left for validation to refuse. */
export function browserLoader(input: string): string {
  return input === 'FULL' ? 'PRO' : input;
}
