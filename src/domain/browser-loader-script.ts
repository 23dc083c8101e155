import type { BrowserLoaderType, BrowserSettings } from '../store/browser-applications.js';

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

/**
 * The `<script>` a page puts first in its `<head>`, in the shape of New Relic's copy-paste
 * snippet: `NREUM.init` (privacy, distributed tracing), `NREUM.loader_config` and `NREUM.info`
 * with the account, the application and the browser key, then a loader. Everything points at
 * Timeslice's own origin: the beacons go to its host, and the loader of the configured type is
 * fetched from `BROWSER_AGENT_PATH` there. Over plain HTTP the agent is told `ssl: false`, or
 * it would send its beacons to https. Every value is a JSON string with `<` escaped, so
 * nothing (a Host header included) can close the script element.
 */
export function browserLoaderScript(input: LoaderScriptInput): string {
  const origin = input.origin.replace(/\/+$/, '');
  const host = origin.replace(/^[a-z]+:\/\//i, '');
  const s = (text: string) => JSON.stringify(text).replace(/</g, '\\u003c');
  const ids = `accountID:${s(String(input.accountId))},trustKey:${s(String(input.accountId))},agentID:${s(String(input.applicationId))}`;
  const init = [
    `distributed_tracing:{enabled:${input.settings.distributedTracingEnabled}}`,
    `privacy:{cookies_enabled:${input.settings.cookiesEnabled}}`,
    `ajax:{deny_list:[${s(host)}]}`,
    ...(origin.toLowerCase().startsWith('http://') ? ['ssl:false'] : []),
  ].join(',');
  const key = s(input.browserMonitoringKey);
  const app = s(String(input.applicationId));
  const src = s(`${origin}${BROWSER_AGENT_PATH}/${LOADER_FILE[input.settings.loaderType]}`);
  return [
    '<script type="text/javascript">',
    ';window.NREUM||(NREUM={});',
    `NREUM.init={${init}};`,
    `NREUM.loader_config={${ids},licenseKey:${key},applicationID:${app}};`,
    `NREUM.info={beacon:${s(host)},errorBeacon:${s(host)},licenseKey:${key},applicationID:${app},sa:1};`,
    `(function(d){var e=d.createElement("script");e.async=true;e.src=${src};`,
    'var f=d.getElementsByTagName("script")[0];if(f&&f.parentNode){f.parentNode.insertBefore(e,f)}else{d.head.appendChild(e)}})(document);',
    '</script>\n',
  ].join('');
}
