import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { agentQuery, connectAgent, invoke } from '../helpers/collector-client.js';
import type { ManualClock, MetricRow } from '../helpers/rest-fixture.js';
import { sample } from '../helpers/samples.js';
import { TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * The graph tests' shared data: APM applications whose agents connect and send metric data
 * through the real collector, and the numbers a person works out from those timeslices. The
 * clock stands at 14:30:20 on 2024-03-05, so REST's and the graph's 10-minute summary window is
 * 14:21–14:31 and "reporting" means metric data received after 14:20:20.
 *
 *   web-shop      web with queue time: web-1 pid 100 (agent 13.2.0) sends 14:25 and 14:26,
 *                 web-2 pid 101 (agent 9.8.1) sends 14:26
 *   batch-worker  background only: worker-1 pid 200 sends 14:22, 14:23, 14:24
 *   stale-app     sent 14:15 while the clock stood at 14:15:20: not reporting now
 */

export const NOW = Date.UTC(2024, 2, 5, 14, 30, 20);
/** 14:`m`:00 on the scenario's day. */
export const minute = (m: number): number => Date.UTC(2024, 2, 5, 14, m);
/** The same instant as NRQL's quoted date-time text (UTC). */
export const nrqlTime = (m: number): string => `'2024-03-05 14:${String(m).padStart(2, '0')}:00Z'`;

const row = (name: string, stats: MetricRow[2]): MetricRow => [name, '', stats];

/** What each harvest sent: [count, total, exclusive, min, max, sumOfSquares] per metric. */
export const HARVESTS = {
  web1m25: [
    row('HttpDispatcher', [10, 2.1, 1.6, 0.1, 0.4, 0.5]),
    row('WebFrontend/QueueTime', [10, 0.3, 0.3, 0.01, 0.05, 0.01]),
    row('Apdex', [7, 2, 1, 0.5, 0.5, 0]),
    row('Errors/all', [1, 0, 0, 0, 0, 0]),
  ],
  web1m26: [
    row('HttpDispatcher', [6, 1.2, 0.9, 0.05, 0.5, 0.3]),
    row('WebFrontend/QueueTime', [6, 0.12, 0.12, 0.01, 0.04, 0.003]),
    row('Apdex', [5, 1, 0, 0.5, 0.5, 0]),
  ],
  web2m26: [
    row('HttpDispatcher', [24, 4.0, 3.0, 0.02, 0.6, 1.0]),
    row('WebFrontend/QueueTime', [4, 0.23, 0.23, 0.02, 0.08, 0.015]),
    row('Apdex', [18, 4, 2, 0.5, 0.5, 0]),
    row('Errors/all', [2, 0, 0, 0, 0, 0]),
  ],
  batch: [row('OtherTransaction/all', [6, 3.3, 3.0, 0.2, 1.0, 2.0])],
  batchErrors: [row('Errors/all', [1, 0, 0, 0, 0, 0])],
  stale: [row('HttpDispatcher', [10, 1.0, 1.0, 0.1, 0.1, 0.1])],
} as const;

/**
 * The summaries, worked out by hand from HARVESTS (all three harvests of web-shop and all of
 * batch-worker lie in the window):
 *
 * web-shop: HttpDispatcher 10 + 6 + 24 = 40 calls, 2.1 + 1.2 + 4.0 = 7.3 s; queue time
 * 0.3 + 0.12 + 0.23 = 0.65 s over 20 queued calls. Spec §1: 7.3/40 + (20 × 0.65/20)/40
 * = (7.3 + 0.65)/40 = 0.19875 s (REST 199 ms). 40 requests in 10 minutes: 4 a minute.
 * Errors 1 + 2 = 3 of 40 = 0.075 (REST 7.5 %). Apdex S 7+5+18 = 30, T 2+1+4 = 7, F 1+0+2 = 3:
 * (30 + 7/2)/40 = 0.8375 (REST 0.84). Hosts web-1, web-2; instances pid 100, 101.
 *
 * batch-worker: OtherTransaction/all 3 × 6 = 18 calls, 3 × 3.3 = 9.9 s: 0.55 s (REST 550 ms),
 * 1.8 a minute; 1 error of 18 (REST 5.56 %); no Apdex data (REST shows 0).
 */
export const EXPECTED = {
  webShop: {
    apdexScore: 33.5 / 40,
    errorRate: 3 / 40,
    hostCount: 2,
    instanceCount: 2,
    nonWebResponseTimeAverage: null,
    nonWebThroughput: null,
    responseTimeAverage: 7.95 / 40,
    throughput: 4,
    webResponseTimeAverage: 7.95 / 40,
    webThroughput: 4,
  },
  batchWorker: {
    apdexScore: null,
    errorRate: 1 / 18,
    hostCount: 1,
    instanceCount: 1,
    nonWebResponseTimeAverage: 9.9 / 18,
    nonWebThroughput: 1.8,
    responseTimeAverage: 9.9 / 18,
    throughput: 1.8,
    webResponseTimeAverage: null,
    webThroughput: null,
  },
} as const;

export interface ScenarioIds {
  readonly webShop: number;
  readonly batchWorker: number;
  readonly staleApp: number;
}

export interface AgentRun {
  readonly runId: string;
  readonly appId: number;
}

/** Connects as the Node agent does, renamed to this application, host, pid and agent version, with a license key. */
export async function connect(
  ts: TestServer,
  appName: string,
  options: { host: string; pid: number; agentVersion?: string; licenseKey?: string },
): Promise<AgentRun> {
  const body = structuredClone(sample('connect-request').body) as [Record<string, unknown>];
  body[0] = {
    ...body[0],
    app_name: [appName],
    host: options.host,
    display_host: options.host,
    pid: options.pid,
    ...(options.agentVersion ? { agent_version: options.agentVersion } : {}),
  };
  const { runId, connectReply } = await connectAgent(ts.server, options.licenseKey ?? TEST_LICENSE_KEY, body);
  return { runId, appId: Number(connectReply.application_id) };
}

/** One metric_data harvest covering [beginMs, endMs); fails unless the collector stored it. */
export async function harvest(ts: TestServer, runId: string, beginMs: number, endMs: number, rows: readonly MetricRow[], licenseKey = TEST_LICENSE_KEY): Promise<void> {
  const payload = [runId, beginMs / 1000, endMs / 1000, rows.map(([name, scope, stats]) => [scope === '' ? { name } : { name, scope }, [...stats]])];
  const reply = await invoke(ts.server, { query: agentQuery('metric_data', licenseKey, runId), body: payload });
  if (reply.status !== 200) throw new Error(`metric_data answered ${reply.status}: ${reply.text}`);
}

/** Sends the scenario's data; the clock is at NOW afterwards. */
export async function loadApmScenario(ts: TestServer, clock: ManualClock): Promise<ScenarioIds> {
  clock.ms = NOW - 15 * 60_000;
  const stale = await connect(ts, 'stale-app', { host: 'stale-1', pid: 400 });
  await harvest(ts, stale.runId, minute(15), minute(16), HARVESTS.stale);
  clock.ms = NOW;
  const web1 = await connect(ts, 'web-shop', { host: 'web-1', pid: 100, agentVersion: '13.2.0' });
  await harvest(ts, web1.runId, minute(25), minute(26), HARVESTS.web1m25);
  await harvest(ts, web1.runId, minute(26), minute(27), HARVESTS.web1m26);
  const web2 = await connect(ts, 'web-shop', { host: 'web-2', pid: 101, agentVersion: '9.8.1' });
  await harvest(ts, web2.runId, minute(26), minute(27), HARVESTS.web2m26);
  const batch = await connect(ts, 'batch-worker', { host: 'worker-1', pid: 200 });
  for (const m of [22, 23, 24]) {
    await harvest(ts, batch.runId, minute(m), minute(m + 1), m === 23 ? [...HARVESTS.batch, ...HARVESTS.batchErrors] : HARVESTS.batch);
  }
  return { webShop: web1.appId, batchWorker: batch.appId, staleApp: stale.appId };
}

/**
 * An entity GUID worked out by hand, not by the service's code: standard base64 of
 * `accountId|DOMAIN|TYPE|id` with the `=` padding taken off.
 */
export function handGuid(accountId: number, domainAndType: 'APM|APPLICATION' | 'APM|KEY_TRANSACTION' | 'MOBILE|APPLICATION' | 'BROWSER|APPLICATION', id: number): string {
  const base64 = Buffer.from(`${accountId}|${domainAndType}|${id}`, 'latin1').toString('base64');
  return base64.endsWith('==') ? base64.slice(0, -2) : base64.endsWith('=') ? base64.slice(0, -1) : base64;
}

/** `x` rounded to `digits` significant figures, as REST v2 shows its summary numbers. */
export function significant(x: number, digits: number): number {
  if (x === 0) return 0;
  return Number(x.toPrecision(digits));
}

/** Whether numbers agree to 12 significant digits (sums of floating-point parts); nulls only with null. */
export function nearly(actual: unknown, expected: number | null): boolean {
  if (expected === null || actual === null) return actual === expected;
  return typeof actual === 'number' && Math.abs(actual - expected) <= 1e-12 * Math.max(1, Math.abs(expected));
}

export interface HttpReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  json(): any;
}

/**
 * One request to the server's real HTTP listener (a socket, not `inject`): `body` is sent as
 * given, a string as UTF-8. Resolves with what came back, also when the server answers before
 * it has read all of a large body.
 */
export async function httpRequest(
  ts: TestServer,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<HttpReply> {
  const url = new URL(options.path ?? '/graphql', ts.server.apiUrl);
  const body = options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body, 'utf8');
  return new Promise<HttpReply>((resolve, reject) => {
    let settled = false;
    const req = request({
      host: url.hostname,
      port: url.port,
      method: options.method ?? 'POST',
      path: `${url.pathname}${url.search}`,
      headers: { ...(body ? { 'content-length': String(body.length) } : {}), ...options.headers },
      agent: false,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        settled = true;
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
      res.on('error', (e) => { if (!settled) { settled = true; reject(e); } });
    });
    req.on('error', (e) => { if (!settled) { settled = true; reject(e); } });
    req.end(body);
  });
}

/** A graph request over HTTP: JSON `{query, variables}` with the key in `Api-Key`, gzipped when asked. */
export async function httpGraph(
  ts: TestServer,
  key: string | null,
  query: string,
  variables?: Record<string, unknown>,
  options: { gzip?: boolean; headers?: Record<string, string> } = {},
): Promise<HttpReply> {
  const json = Buffer.from(JSON.stringify({ query, ...(variables ? { variables } : {}) }), 'utf8');
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (key !== null) headers['api-key'] = key;
  if (options.gzip) headers['content-encoding'] = 'gzip';
  return httpRequest(ts, { headers, body: options.gzip ? gzipSync(json) : json });
}
