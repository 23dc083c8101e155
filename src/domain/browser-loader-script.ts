import type { BrowserLoaderType, BrowserSettings } from './agent-settings/model.js';

export interface LoaderScriptInput {
  readonly accountId: number;
  readonly applicationId: number;
  readonly browserMonitoringKey: string;
  readonly settings: BrowserSettings;
  /** Where the page reaches Timeslice: scheme, host and port, e.g. `https://apm.example.com`. */
  readonly origin: string;
}

/** The loader New Relic's CDN names for each loader type (SPA, PRO = "full", LITE = "rum"). */
const LOADER_FILE: Readonly<Record<BrowserLoaderType, string>> = {
  SPA: 'nr-loader-spa.min.js',
  PRO: 'nr-loader-full.min.js',
  LITE: 'nr-loader-rum.min.js',
};

/** Where the loader snippet loads the browser agent from, under the Timeslice origin. */
export const BROWSER_AGENT_PATH = '/browser-agent';

/** A JSON-like value of the agent's configuration. */
type ConfigValue = string | number | boolean | readonly ConfigValue[] | { readonly [key: string]: ConfigValue };

/** The browser agent's configuration: what the snippet assigns to `NREUM.init`, `NREUM.loader_config` and `NREUM.info`. */
export interface BrowserAgentConfig {
  readonly init: { readonly [key: string]: ConfigValue };
  readonly loader_config: { readonly [key: string]: ConfigValue };
  readonly info: { readonly [key: string]: ConfigValue };
}

/**
 * The configuration the snippet carries (NerdGraph's `browserProperties.jsConfig`): privacy and
 * distributed tracing in `init`, the account, the application and the browser key in
 * `loader_config` and `info`. Beacons go to Timeslice's host; over plain HTTP the agent is told
 * `ssl: false`, or it would send them to https.
 */
export function browserAgentConfig(input: LoaderScriptInput): BrowserAgentConfig {
  const origin = input.origin.replace(/\/+$/, '');
  const host = origin.replace(/^[a-z]+:\/\//i, '');
  const account = String(input.accountId);
  const app = String(input.applicationId);
  return {
    init: {
      distributed_tracing: { enabled: input.settings.distributedTracingEnabled },
      privacy: { cookies_enabled: input.settings.cookiesEnabled },
      ajax: { deny_list: [host] },
      ...(origin.toLowerCase().startsWith('http://') ? { ssl: false } : {}),
    },
    loader_config: { accountID: account, trustKey: account, agentID: app, licenseKey: input.browserMonitoringKey, applicationID: app },
    info: { beacon: host, errorBeacon: host, licenseKey: input.browserMonitoringKey, applicationID: app, sa: 1 },
  };
}

/**
 * A configuration value as a JavaScript literal: keys bare, strings as JSON with `<` escaped, so
 * nothing in a value (a Host header included) can close the script element.
 */
function literal(value: ConfigValue): string {
  if (typeof value === 'string') return JSON.stringify(value).replace(/</g, '\\u003c');
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(',')}]`;
  return `{${Object.entries(value).map(([k, v]) => `${k}:${literal(v)}`).join(',')}}`;
}

function configStatements(config: BrowserAgentConfig): string {
  return [
    ';window.NREUM||(NREUM={});',
    `NREUM.init=${literal(config.init)};`,
    `NREUM.loader_config=${literal(config.loader_config)};`,
    `NREUM.info=${literal(config.info)};`,
  ].join('');
}

/** The configuration alone as a `<script>` (NerdGraph's `browserProperties.jsConfigScript`). */
export function browserConfigScript(input: LoaderScriptInput): string {
  return `<script type="text/javascript">${configStatements(browserAgentConfig(input))}</script>\n`;
}

/**
 * The `<script>` a page puts first in its `<head>`, in the shape of New Relic's copy-paste
 * snippet: the configuration, then a loader of the configured type fetched from
 * `BROWSER_AGENT_PATH` on Timeslice's own origin.
 */
export function browserLoaderScript(input: LoaderScriptInput): string {
  const origin = input.origin.replace(/\/+$/, '');
  const src = literal(`${origin}${BROWSER_AGENT_PATH}/${LOADER_FILE[input.settings.loaderType]}`);
  return [
    '<script type="text/javascript">',
    configStatements(browserAgentConfig(input)),
    `(function(d){var e=d.createElement("script");e.async=true;e.src=${src};`,
    'var f=d.getElementsByTagName("script")[0];if(f&&f.parentNode){f.parentNode.insertBefore(e,f)}else{d.head.appendChild(e)}})(document);',
    '</script>\n',
  ].join('');
}

/**
 * The `js_agent_loader` the collector hands APM agents (browser-agent reference §4.4): what an
 * agent's `getBrowserTimingHeader()` pastes right after the `NREUM.info` it writes itself. It sets
 * `NREUM.init` and `NREUM.loader_config` as the snippet does, then loads the loader of the
 * configured type from `agentPath` (a versioned path under Timeslice's origin). The loader is
 * added asynchronously, so errors and AJAX calls before it runs are missed; page timings come
 * from the Navigation Timing API and are whole.
 */
export function apmJsAgentLoader(input: LoaderScriptInput & { readonly agentPath: string }): string {
  const origin = input.origin.replace(/\/+$/, '');
  const config = browserAgentConfig(input);
  const src = literal(`${origin}${input.agentPath}/${LOADER_FILE[input.settings.loaderType]}`);
  return [
    `NREUM.init=${literal(config.init)};`,
    `NREUM.loader_config=${literal(config.loader_config)};`,
    `(function(d){var e=d.createElement("script");e.src=${src};`,
    '(d.head||d.getElementsByTagName("head")[0]||d.documentElement).appendChild(e)})(document);',
  ].join('');
}
