import { connectAgent } from '../helpers/collector-client.js';
import { graph, type GraphReply } from '../helpers/graph-client.js';
import { ManualClock, sendMetrics } from '../helpers/rest-fixture.js';
import { sample } from '../helpers/samples.js';
import { startTestServer, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * What the graph mutation tests share: a real server on a hand-moved clock, applications made by
 * the captured Node agent connecting, GUIDs written out from their parts (not through the
 * service's encoder), and a second account with its own user key.
 */

/** 2025-06-02T12:00:00Z: the server's clock when a test starts. */
export const START_MS = Date.UTC(2025, 5, 2, 12, 0, 0);

export interface GraphFixture {
  readonly ts: TestServer;
  readonly clock: ManualClock;
}

export async function startGraphFixture(): Promise<GraphFixture> {
  const clock = new ManualClock(START_MS);
  const ts = await startTestServer({}, { clock });
  return { ts, clock };
}

/** An entity GUID from its parts: unpadded base64 of `account|DOMAIN|TYPE|id`. */
export function guidOf(accountId: number, domain: string, type: string, id: number): string {
  return Buffer.from(`${accountId}|${domain}|${type}|${id}`, 'utf8').toString('base64').replace(/=+$/, '');
}

export const apmGuid = (id: number, accountId = 1) => guidOf(accountId, 'APM', 'APPLICATION', id);
export const browserGuid = (id: number, accountId = 1) => guidOf(accountId, 'BROWSER', 'APPLICATION', id);
export const mobileGuid = (id: number, accountId = 1) => guidOf(accountId, 'MOBILE', 'APPLICATION', id);
export const keyTransactionGuid = (id: number, accountId = 1) => guidOf(accountId, 'APM', 'KEY_TRANSACTION', id);

/** The captured Node agent's connect under another application name: the whole connect reply. */
export async function connect(ts: TestServer, appName: string, licenseKey = TEST_LICENSE_KEY): Promise<Record<string, unknown>> {
  const body = structuredClone(sample('connect-request').body) as [Record<string, unknown>];
  body[0] = { ...body[0], app_name: [appName] };
  const { connectReply } = await connectAgent(ts.server, licenseKey, body);
  return connectReply;
}

/** Connects and sends one minute of HttpDispatcher data ending now: the application is reporting. */
export async function reportingApp(f: GraphFixture, appName: string): Promise<number> {
  const reply = await connect(f.ts, appName);
  await sendMetrics(f.ts, String(reply.agent_run_id), f.clock.ms - 60_000, f.clock.ms, [['HttpDispatcher', '', [1, 0.1, 0.1, 0.1, 0.1, 0.01]]]);
  return Number(reply.application_id);
}

/** A second account with a user key and a license key of its own. */
export async function secondAccount(ts: TestServer): Promise<{ accountId: number; userKey: string; licenseKey: string }> {
  const account = await ts.server.catalog.createAccount('Second');
  return { accountId: account.id, userKey: await ts.server.catalog.createUserKey(account.id), licenseKey: await ts.server.catalog.createLicenseKey(account.id) };
}

/** The one error of a refused request, and the data at the refused field (which must be null). */
export async function refusal(ts: TestServer, query: string, variables?: Record<string, unknown>, key?: string): Promise<{ message: string; errorClass: unknown; data: any; path: unknown }> {
  const reply: GraphReply = await graph(ts, query, variables, key === undefined ? {} : { key });
  if (reply.status !== 200) throw new Error(`expected 200 with errors, got ${reply.status}: ${JSON.stringify(reply.body)}`);
  const errors = reply.body.errors ?? [];
  if (errors.length !== 1) throw new Error(`expected one error, got ${JSON.stringify(reply.body)}`);
  return { message: errors[0]!.message, errorClass: errors[0]!.extensions?.errorClass, data: reply.body.data, path: errors[0]!.path };
}
