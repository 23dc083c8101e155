/**
 * The agent settings NerdGraph reads back and changes (`agentApplicationSettingsUpdate`), named as
 * NerdGraph names them, enum values as its enum names. Plain data: the stores keep them as JSON,
 * `agentConfigOf` turns the APM ones into the `agent_config` of a connect reply.
 */

export type ThresholdType = 'APDEX_F' | 'VALUE';
export const THRESHOLD_TYPES: readonly ThresholdType[] = ['APDEX_F', 'VALUE'];
export type RecordSql = 'OBFUSCATED' | 'OFF' | 'RAW';
export const RECORD_SQL_MODES: readonly RecordSql[] = ['OBFUSCATED', 'OFF', 'RAW'];
export type TracerType = 'CROSS_APPLICATION_TRACER' | 'DISTRIBUTED_TRACING' | 'NONE' | 'OPT_OUT';
export const TRACER_TYPES: readonly TracerType[] = ['CROSS_APPLICATION_TRACER', 'DISTRIBUTED_TRACING', 'NONE', 'OPT_OUT'];

export interface ErrorCollectorSettings {
  readonly enabled: boolean;
  readonly expectedErrorClasses: readonly string[];
  /** HTTP status codes as NerdGraph writes them: strings such as "404". */
  readonly expectedErrorCodes: readonly string[];
  readonly ignoredErrorClasses: readonly string[];
  readonly ignoredErrorCodes: readonly string[];
}

export interface TransactionTracerSettings {
  readonly enabled: boolean;
  readonly explainEnabled: boolean;
  /** APDEX_F: explain queries slower than 4 × the application's Apdex T; VALUE: slower than `explainThresholdValue`. */
  readonly explainThresholdType: ThresholdType;
  /** Seconds. */
  readonly explainThresholdValue: number;
  readonly logSql: boolean;
  readonly recordSql: RecordSql;
  /** Seconds. */
  readonly stackTraceThreshold: number;
  /** APDEX_F: trace transactions slower than 4 × Apdex T (the agent works it out); VALUE: slower than `transactionThresholdValue`. */
  readonly transactionThresholdType: ThresholdType;
  /** Seconds; used when the type is VALUE. */
  readonly transactionThresholdValue: number;
}

export interface ApplicationLoggingSettings {
  readonly enabled: boolean;
  readonly forwarding: { readonly enabled: boolean; readonly maxSamplesStored: number };
  readonly localDecorating: { readonly enabled: boolean };
  readonly metrics: { readonly enabled: boolean };
}

/** NerdGraph's `AgentApplicationSettingsApmBase`, less what the catalog holds as columns (alias, Apdex T, server-side config). */
export interface ApmAgentSettings {
  readonly errorCollector: ErrorCollectorSettings;
  readonly transactionTracer: TransactionTracerSettings;
  readonly slowSql: { readonly enabled: boolean };
  readonly threadProfiler: { readonly enabled: boolean };
  readonly jfr: { readonly enabled: boolean };
  readonly tracerType: TracerType;
  readonly captureMemcacheKeys: boolean;
  readonly applicationLogging: ApplicationLoggingSettings;
}

/**
 * New Relic's defaults, as its agents ship them (the values an application has before anyone
 * changes a setting):
 * - error collector on, ignoring 404: every agent's `error_collector.ignore_status_codes` default
 *   (the Node agent's `lib/config/default.js`: `[404]`);
 * - transaction tracer on, threshold `apdex_f`, SQL recorded obfuscated, explain plans on for
 *   queries over 0.5 s, stack traces for calls over 0.5 s, SQL not logged: the `transaction_tracer`
 *   defaults of the Java, Python and Ruby agents (Node: `apdex_f`, `obfuscated`, 500 ms). The
 *   threshold value, used only once its type is VALUE, starts at 2 s, what `apdex_f` means with
 *   the default Apdex T of 0.5 s;
 * - slow SQL and the thread profiler on, JFR off: the Java agent's defaults (its JFR docs: "Default
 *   false"); Python and Ruby agree on slow SQL (Node alone has it off);
 * - distributed tracing, on by default in every current agent; memcache keys not captured (Ruby);
 * - application logging on, forwarding on with at most 10,000 samples stored, local decorating
 *   off, log metrics on: the Node agent's `application_logging` defaults, which Java shares.
 */
export const DEFAULT_APM_AGENT_SETTINGS: ApmAgentSettings = {
  errorCollector: { enabled: true, expectedErrorClasses: [], expectedErrorCodes: [], ignoredErrorClasses: [], ignoredErrorCodes: ['404'] },
  transactionTracer: {
    enabled: true,
    explainEnabled: true,
    explainThresholdType: 'VALUE',
    explainThresholdValue: 0.5,
    logSql: false,
    recordSql: 'OBFUSCATED',
    stackTraceThreshold: 0.5,
    transactionThresholdType: 'APDEX_F',
    transactionThresholdValue: 2,
  },
  slowSql: { enabled: true },
  threadProfiler: { enabled: true },
  jfr: { enabled: false },
  tracerType: 'DISTRIBUTED_TRACING',
  captureMemcacheKeys: false,
  applicationLogging: { enabled: true, forwarding: { enabled: true, maxSamplesStored: 10_000 }, localDecorating: { enabled: false }, metrics: { enabled: true } },
};

/** NerdGraph's browser loaders (its deprecated FULL is PRO: `browserLoader` maps it). */
export type BrowserLoader = 'SPA' | 'PRO' | 'LITE' | 'NONE';
export const BROWSER_LOADERS: readonly BrowserLoader[] = ['SPA', 'PRO', 'LITE', 'NONE'];

/** The input types session replay can mask, as NerdGraph's `AgentApplicationSettingsMaskInputOptions` names them. */
export const MASKABLE_INPUT_TYPES = [
  'color', 'date', 'datetimeLocal', 'email', 'month', 'number', 'range', 'search', 'select', 'tel', 'text', 'textArea', 'time', 'url', 'week',
] as const;
export type MaskInputOptions = { readonly [K in (typeof MASKABLE_INPUT_TYPES)[number]]: boolean };

/** NerdGraph's `AgentApplicationSettingsSessionReplay`. */
export interface SessionReplaySettings {
  readonly enabled: boolean;
  /** False: the agent records only once the page calls its `start` API. */
  readonly autoStart: boolean;
  readonly samplingRate: number;
  readonly errorSamplingRate: number;
  /** A CSS selector of elements left out of recordings, beside those marked `data-nr-block`; empty for none. */
  readonly blockSelector: string;
  /** A CSS selector of elements whose text is masked, beside those marked `data-nr-mask`; empty for none. */
  readonly maskTextSelector: string;
  readonly maskAllInputs: boolean;
  readonly maskInputOptions: MaskInputOptions;
  /** Whether fonts, images and stylesheets without a public URL are copied into recordings. */
  readonly collectFonts: boolean;
  readonly inlineImages: boolean;
  readonly inlineStylesheet: boolean;
}

/** FIXED_RATE: a fixed number of traces an hour; PROBABILISTIC: the sampling rates' share of sessions. */
export type SessionTraceMode = 'FIXED_RATE' | 'PROBABILISTIC';
export const SESSION_TRACE_MODES: readonly SessionTraceMode[] = ['FIXED_RATE', 'PROBABILISTIC'];

/**
 * NerdGraph's `AgentApplicationSettingsBrowserMonitoring`, with the application's session replay
 * and session trace settings (NerdGraph shows those beside it, in `browserSettings`). Sampling
 * rates are percentages of sessions, as the browser agent's `init` takes them.
 */
export interface BrowserMonitoringSettings {
  readonly ajax: { readonly denyList: readonly string[] };
  readonly distributedTracing: {
    readonly allowedOrigins: readonly string[];
    readonly corsEnabled: boolean;
    readonly corsUseNewrelicHeader: boolean;
    readonly corsUseTracecontextHeaders: boolean;
    readonly enabled: boolean;
    readonly excludeNewrelicHeader: boolean;
  };
  readonly loader: BrowserLoader;
  /** A browser agent version to stay on, e.g. "1.285.0"; null: the current one. */
  readonly pinnedVersion: string | null;
  readonly privacy: { readonly cookiesEnabled: boolean };
  readonly sessionReplay: SessionReplaySettings;
  readonly sessionTrace: { readonly enabled: boolean; readonly mode: SessionTraceMode; readonly samplingRate: number; readonly errorSamplingRate: number };
}

/**
 * Defaults: SPA loader, cookies and distributed tracing on (NerdGraph's defaults for
 * `agentApplicationCreateBrowser`); no extra CORS headers and no allowed origins (the browser
 * agent's `init.distributed_tracing` defaults); nothing denied to AJAX tracking; no pinned version.
 * Session replay off until turned on, then 10 % of sessions and every session with an error (the
 * rates New Relic's generated snippet writes); the rest of it as the browser agent's
 * `init.session_replay` defaults (its `src/common/config/init.js`): recording starts by itself,
 * every input's value and all text (selector `*`) masked, nothing blocked beyond what pages mark,
 * no input type masked by kind (passwords always are), fonts and images not copied, stylesheets
 * copied (`inline_stylesheet: true`). Session traces on, in NerdGraph's default FIXED_RATE mode,
 * the rates (used in PROBABILISTIC mode) every session.
 */
export const DEFAULT_BROWSER_MONITORING_SETTINGS: BrowserMonitoringSettings = {
  ajax: { denyList: [] },
  distributedTracing: {
    allowedOrigins: [], corsEnabled: false, corsUseNewrelicHeader: false, corsUseTracecontextHeaders: false, enabled: true, excludeNewrelicHeader: false,
  },
  loader: 'SPA',
  pinnedVersion: null,
  privacy: { cookiesEnabled: true },
  sessionReplay: {
    enabled: false,
    autoStart: true,
    samplingRate: 10,
    errorSamplingRate: 100,
    blockSelector: '',
    maskTextSelector: '*',
    maskAllInputs: true,
    maskInputOptions: Object.fromEntries(MASKABLE_INPUT_TYPES.map((type) => [type, false])) as MaskInputOptions,
    collectFonts: false,
    inlineImages: false,
    inlineStylesheet: true,
  },
  sessionTrace: { enabled: true, mode: 'FIXED_RATE', samplingRate: 100, errorSamplingRate: 100 },
};

export type NetworkFilterMode = 'DISABLED' | 'HIDE' | 'SHOW';
export const NETWORK_FILTER_MODES: readonly NetworkFilterMode[] = ['DISABLED', 'HIDE', 'SHOW'];

/** NerdGraph's `AgentApplicationSettingsMobileBase`. */
export interface MobileAgentSettings {
  readonly applicationExitInfo: { readonly enabled: boolean };
  readonly networkSettings: {
    /** Hosts shown under one name in network requests. */
    readonly aliases: readonly { readonly alias: string; readonly hosts: readonly string[] }[];
    /** Which of the lists applies: requests to hosts on the hide list are hidden, or only those on the show list are shown. */
    readonly filterMode: NetworkFilterMode;
    readonly hideList: readonly string[];
    readonly showList: readonly string[];
    readonly ignoredStatusCodeRules: readonly { readonly hosts: readonly string[]; readonly statusCodes: readonly string[] }[];
  };
  readonly useCrashReports: boolean;
}

/**
 * Defaults: application exit info on (the Android agent's release notes for 7.4.1: "enabled by
 * default"), crash reports on (the mobile agents' `CrashReporting` feature flag defaults to
 * true), no network filtering, aliases or ignored status codes.
 */
export const DEFAULT_MOBILE_AGENT_SETTINGS: MobileAgentSettings = {
  applicationExitInfo: { enabled: true },
  networkSettings: { aliases: [], filterMode: 'DISABLED', hideList: [], showList: [], ignoredStatusCodeRules: [] },
  useCrashReports: true,
};

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

/**
 * The `agent_config` of a connect reply for an application with server-side configuration: its
 * settings under the names agents read (Java's `AgentConfigFactory` and .NET's
 * `ServerConfiguration.AgentConfig` take them dotted like this; the Python and Ruby agents merge
 * any dotted key; the Node agent 13.x applies the error collector's, `slow_sql.enabled`,
 * `transaction_tracer.enabled` and `.transaction_threshold` and `cross_application_tracer.enabled`,
 * and logs the others at debug level as unknown or unsupported).
 *
 * Units are New Relic's: thresholds in seconds; a transaction threshold of type APDEX_F is the
 * string "apdex_f", which the agents turn into 4 × their Apdex T; an explain threshold of type
 * APDEX_F has no such string, so it is sent as 4 × `apdexT` seconds. Status codes go as numbers.
 * The tracer type becomes `distributed_tracing.enabled` and `cross_application_tracer.enabled`;
 * OPT_OUT sends neither, leaving tracing to each agent's own configuration.
 */
export function agentConfigOf(settings: ApmAgentSettings, apdexT: number): Record<string, unknown> {
  const tt = settings.transactionTracer;
  const ec = settings.errorCollector;
  const logging = settings.applicationLogging;
  const tracing: Record<TracerType, Record<string, boolean>> = {
    DISTRIBUTED_TRACING: { 'distributed_tracing.enabled': true, 'cross_application_tracer.enabled': false },
    CROSS_APPLICATION_TRACER: { 'distributed_tracing.enabled': false, 'cross_application_tracer.enabled': true },
    NONE: { 'distributed_tracing.enabled': false, 'cross_application_tracer.enabled': false },
    OPT_OUT: {},
  };
  return {
    'transaction_tracer.enabled': tt.enabled,
    'transaction_tracer.transaction_threshold': tt.transactionThresholdType === 'APDEX_F' ? 'apdex_f' : tt.transactionThresholdValue,
    'transaction_tracer.record_sql': tt.recordSql.toLowerCase(),
    'transaction_tracer.explain_enabled': tt.explainEnabled,
    'transaction_tracer.explain_threshold': tt.explainThresholdType === 'APDEX_F' ? 4 * apdexT : tt.explainThresholdValue,
    'transaction_tracer.stack_trace_threshold': tt.stackTraceThreshold,
    'transaction_tracer.log_sql': tt.logSql,
    'error_collector.enabled': ec.enabled,
    'error_collector.ignore_status_codes': ec.ignoredErrorCodes.map(Number),
    'error_collector.expected_status_codes': ec.expectedErrorCodes.map(Number),
    'error_collector.ignore_classes': [...ec.ignoredErrorClasses],
    'error_collector.expected_classes': [...ec.expectedErrorClasses],
    'slow_sql.enabled': settings.slowSql.enabled,
    'thread_profiler.enabled': settings.threadProfiler.enabled,
    'jfr.enabled': settings.jfr.enabled,
    'capture_memcache_keys': settings.captureMemcacheKeys,
    'application_logging.enabled': logging.enabled,
    'application_logging.forwarding.enabled': logging.forwarding.enabled,
    'application_logging.forwarding.max_samples_stored': logging.forwarding.maxSamplesStored,
    'application_logging.local_decorating.enabled': logging.localDecorating.enabled,
    'application_logging.metrics.enabled': logging.metrics.enabled,
    ...tracing[settings.tracerType],
  };
}
