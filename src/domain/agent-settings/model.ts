/**
 * The agent settings NerdGraph reads back and changes (`agentApplicationSettingsUpdate`), named as
 * NerdGraph names them, enum values as its enum names. Plain data: the stores keep them as JSON;
 * validation.ts merges and checks changes, agent-config.ts turns the APM ones into the
 * `agent_config` of a connect reply.
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

/**
 * Which browser agent the loader snippet brings: SPA (single-page app monitoring, the full
 * agent), PRO (the full agent without SPA route tracking) or LITE (page loads only). NerdGraph
 * also has NONE, which the stores refuse: the loader script has no form for it.
 */
export type BrowserLoaderType = 'SPA' | 'PRO' | 'LITE';
export const BROWSER_LOADER_TYPES: readonly BrowserLoaderType[] = ['SPA', 'PRO', 'LITE'];

/**
 * The three settings NerdGraph's `agentApplicationCreateBrowser` takes. They are the same facts as
 * `monitoring.loader`, `monitoring.privacy.cookiesEnabled` and `monitoring.distributedTracing.enabled`:
 * a record's `settings` is always read off its `monitoring`.
 */
export interface BrowserSettings {
  readonly cookiesEnabled: boolean;
  readonly distributedTracingEnabled: boolean;
  readonly loaderType: BrowserLoaderType;
}

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
