import type { Clock } from '../../src/clock.js';
import { agentQuery, connectAgent, invoke } from './collector-client.js';
import { sample } from './samples.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from './test-server.js';

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  constructor(public ms: number) {}
  now(): number {
    return this.ms;
  }
}

/** One metric of a harvest: name, optional scope, and the six numbers agents send. */
export type MetricRow = readonly [name: string, scope: string, stats: readonly [number, number, number, number, number, number]];

export interface AgentHandle {
  readonly runId: string;
  readonly appId: number;
}

/** Connects like the Node agent, with the captured connect request renamed to this app/host/pid. */
export async function connectApp(ts: TestServer, appName: string, host = 'web-1', pid = 4100): Promise<AgentHandle> {
  const body = structuredClone(sample('connect-request').body) as [Record<string, unknown>];
  body[0] = { ...body[0], app_name: [appName], host, display_host: host, pid };
  const { runId, connectReply } = await connectAgent(ts.server, TEST_LICENSE_KEY, body);
  return { runId, appId: Number(connectReply.application_id) };
}

/** Sends one metric_data harvest covering [beginMs, endMs) and fails unless it is stored. */
export async function sendMetrics(ts: TestServer, runId: string, beginMs: number, endMs: number, rows: readonly MetricRow[]): Promise<void> {
  const payload = [runId, beginMs / 1000, endMs / 1000, rows.map(([name, scope, stats]) => [scope === '' ? { name } : { name, scope }, [...stats]])];
  const reply = await invoke(ts.server, { query: agentQuery('metric_data', TEST_LICENSE_KEY, runId), body: payload });
  if (reply.status !== 200) throw new Error(`metric_data answered ${reply.status}: ${reply.text}`);
}

export interface RestReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  readonly text: string;
  json(): any;
}

/** A REST request through `inject` (no socket), with the test user key unless told otherwise. */
export async function rest(
  ts: TestServer,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  url: string,
  options: { key?: string | null; body?: string | object; headers?: Record<string, string> } = {},
): Promise<RestReply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== null) headers['x-api-key'] = options.key ?? TEST_API_KEY;
  let payload: string | undefined;
  if (typeof options.body === 'string') payload = options.body;
  else if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await ts.server.api.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
  return { status: res.statusCode, headers: res.headers, text: res.body, json: () => JSON.parse(res.body) };
}

export { startTestServer, TEST_API_KEY };

/** A Link header with the successor-version link's `title*` (the replacing graph call) removed. */
export function withoutSuccessorTitle(link: unknown): string {
  return String(link).replace(/;title\*=UTF-8''[^,;]*$/, '');
}

/** The successor-version link's `title*` decoded (RFC 8187): the graph call that replaces the REST one. */
export function successorTitle(link: unknown): string | undefined {
  const match = /;rel="successor-version";title\*=UTF-8''([^,;]*)$/.exec(String(link));
  return match === null ? undefined : decodeURIComponent(match[1]!);
}
