import { connectAgent } from '../helpers/collector-client.js';
import { assertGolden } from '../helpers/golden.js';
import { ManualClock, rest, sendMetrics, startTestServer, type MetricRow, type RestReply } from '../helpers/rest-fixture.js';
import { sample } from '../helpers/samples.js';
import { TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * The data every REST golden test reads, chosen so that each published number can be worked out
 * by hand (the sums are worked out beside the assertions that use them):
 *
 *   checkout-web (nodejs): three instances on two hosts
 *     web-1 pid 4100  minutes 14:22–14:26  every metric, browser included
 *     web-1 pid 4101  minutes 14:24–14:26  web metrics only
 *     web-2 pid 4200  minutes 14:25–14:26  web metrics only
 *   billing-worker (python): one instance, worker-1 pid 5100, minutes 14:23–14:24,
 *     HttpDispatcher, Apdex and OtherTransaction/all: no queue time, no errors, no browser.
 *
 * The server clock stands at 14:30:20 on 2024-03-05 (20 s into its minute), so the default
 * 30-minute window is 14:00:20–14:30:20 and all the data is in it.
 */

export const NOW_MS = Date.UTC(2024, 2, 5, 14, 30, 20);

export function minute(m: number): number {
  return Date.UTC(2024, 2, 5, 14, m, 0);
}

type Stats = readonly [number, number, number, number, number, number];

const row = (name: string, stats: Stats): MetricRow => [name, '', stats];

/** One harvest of each run; each run sends it once per minute of its range. */
export const HARVESTS = {
  web1a: [
    row('HttpDispatcher', [10, 2.0, 1.5, 0.05, 0.6, 0.6]),
    row('WebFrontend/QueueTime', [10, 0.1, 0.1, 0.005, 0.02, 0.0012]),
    row('Apdex', [8, 1, 1, 0.5, 0.5, 0]),
    row('Errors/all', [1, 0, 0, 0, 0, 0]),
    row('OtherTransaction/all', [2, 0.4, 0.4, 0.1, 0.3, 0.1]),
    row('EndUser', [5, 10.0, 4.0, 1.0, 3.0, 2.5]),
    row('EndUser/Apdex', [4, 1, 0, 7, 7, 0]),
  ],
  web1b: [
    row('HttpDispatcher', [20, 3.0, 2.0, 0.02, 0.9, 1.0]),
    row('WebFrontend/QueueTime', [20, 0.4, 0.4, 0.01, 0.05, 0.01]),
    row('Apdex', [15, 4, 1, 0.5, 0.5, 0]),
    row('Errors/all', [1, 0, 0, 0, 0, 0]),
  ],
  web2: [
    row('HttpDispatcher', [5, 5.0, 4.0, 0.5, 2.5, 6.0]),
    row('WebFrontend/QueueTime', [5, 0.05, 0.05, 0.01, 0.01, 0.0005]),
    row('Apdex', [1, 2, 2, 0.5, 0.5, 0]),
    row('Errors/all', [1, 0, 0, 0, 0, 0]),
  ],
  worker: [
    row('HttpDispatcher', [4, 0.8, 0.8, 0.1, 0.3, 0.2]),
    row('Apdex', [3, 1, 0, 0.5, 0.5, 0]),
    row('OtherTransaction/all', [6, 3.0, 3.0, 0.2, 1.0, 2.0]),
  ],
} as const;

export interface Scenario {
  readonly ts: TestServer;
  readonly clock: ManualClock;
  readonly checkout: number;
  readonly billing: number;
  /** Host and instance ids of checkout-web. */
  readonly hosts: { readonly web1: number; readonly web2: number };
  readonly instances: { readonly web1a: number; readonly web1b: number; readonly web2: number };
}

export interface ConnectOptions {
  readonly host: string;
  readonly pid: number;
  readonly language?: string;
  readonly licenseKey?: string;
}

/** The captured Node agent connect, renamed; `language` lets one application pass for another agent. */
export async function connectAs(ts: TestServer, appName: string, options: ConnectOptions): Promise<{ runId: string; appId: number }> {
  const body = structuredClone(sample('connect-request').body) as [Record<string, unknown>];
  body[0] = {
    ...body[0],
    app_name: [appName],
    host: options.host,
    display_host: options.host,
    pid: options.pid,
    ...(options.language ? { language: options.language, identifier: `${options.language}:${appName}` } : {}),
  };
  const { runId, connectReply } = await connectAgent(ts.server, options.licenseKey ?? TEST_LICENSE_KEY, body);
  return { runId, appId: Number(connectReply.application_id) };
}

async function sendMinutes(ts: TestServer, runId: string, minutes: readonly number[], rows: readonly MetricRow[]): Promise<void> {
  for (const m of minutes) await sendMetrics(ts, runId, minute(m), minute(m + 1), rows);
}

/** Starts a server at NOW_MS and loads the scenario; the caller stops it. */
export async function startScenario(): Promise<Scenario> {
  const clock = new ManualClock(NOW_MS);
  const ts = await startTestServer({}, { clock });
  try {
    const web1a = await connectAs(ts, 'checkout-web', { host: 'web-1', pid: 4100 });
    const web1b = await connectAs(ts, 'checkout-web', { host: 'web-1', pid: 4101 });
    const web2 = await connectAs(ts, 'checkout-web', { host: 'web-2', pid: 4200 });
    const worker = await connectAs(ts, 'billing-worker', { host: 'worker-1', pid: 5100, language: 'python' });
    await sendMinutes(ts, web1a.runId, [22, 23, 24, 25, 26], HARVESTS.web1a);
    await sendMinutes(ts, web1b.runId, [24, 25, 26], HARVESTS.web1b);
    await sendMinutes(ts, web2.runId, [25, 26], HARVESTS.web2);
    await sendMinutes(ts, worker.runId, [23, 24], HARVESTS.worker);

    const catalog = ts.server.catalog;
    const hostId = (name: string) => catalog.hostsOf(web1a.appId).find((h) => h.name === name)!.id;
    const instanceId = (pid: number) => catalog.instancesOf(web1a.appId).find((i) => i.pid === pid)!.id;
    return {
      ts,
      clock,
      checkout: web1a.appId,
      billing: worker.appId,
      hosts: { web1: hostId('web-1'), web2: hostId('web-2') },
      instances: { web1a: instanceId(4100), web1b: instanceId(4101), web2: instanceId(4200) },
    };
  } catch (error) {
    await ts.stop();
    throw error;
  }
}

/** Headers a golden file records, in this order, when the reply has them. */
const GOLDEN_HEADERS = [
  'content-type',
  'link',
  'allow',
  'x-timeslice-nrql',
  'x-timeslice-nrql-encoding',
  'x-timeslice-nrql-omitted',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-docs',
  'retry-after',
];

/**
 * The text of a golden file: the request line, the status, the recorded headers (one line per
 * value) and the body, JSON pretty-printed and XML as sent.
 */
export function goldenText(method: string, url: string, reply: RestReply, note?: string): string {
  const lines = [`${method} ${url}`];
  if (note) lines.push(`# ${note}`);
  lines.push(`status: ${reply.status}`);
  for (const name of GOLDEN_HEADERS) {
    const value = reply.headers[name];
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
  }
  lines.push('');
  const isJson = String(reply.headers['content-type'] ?? '').startsWith('application/json');
  lines.push(isJson ? JSON.stringify(JSON.parse(reply.text), null, 2) : reply.text);
  return `${lines.join('\n')}\n`;
}

type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';

/** Form fields as a GET body (`curl -X GET … -d '…'`, as New Relic's docs send them). */
export const FORM = { 'content-type': 'application/x-www-form-urlencoded' } as const;

/**
 * Sends the request and compares it with `test/golden/rest/<name>.txt`. `note` is a line in the
 * golden file for what the request line does not show (a body, a header, which key).
 */
export async function golden(
  ts: TestServer,
  name: string,
  method: Method,
  url: string,
  options: { key?: string | null; body?: string | object; headers?: Record<string, string>; note?: string } = {},
): Promise<RestReply> {
  const reply = await rest(ts, method, url, options);
  assertGolden(`test/golden/rest/${name}.txt`, goldenText(method, url, reply, options.note));
  return reply;
}

export { rest };
