import type { RestReply } from './rest-fixture.js';
import { TEST_API_KEY, type TestServer } from './test-server.js';

/*
 * Requests over a real socket to the listening API (`ts.server.apiUrl`), as a script or client
 * meets the service: the same shapes as `rest` and `graphData` (which go through `inject`).
 */

/** A REST request over HTTP, with the test user key in `X-Api-Key` unless told otherwise. */
export async function httpRest(
  ts: TestServer,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  path: string,
  options: { key?: string | null; body?: string | object; headers?: Record<string, string> } = {},
): Promise<RestReply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== null) headers['x-api-key'] = options.key ?? TEST_API_KEY;
  let body: string | undefined;
  if (typeof options.body === 'string') body = options.body;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(new URL(path, ts.server.apiUrl), { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  return { status: res.status, headers: Object.fromEntries(res.headers), text, json: () => JSON.parse(text) };
}

/** The data of a graph request over HTTP (`POST /graphql`, the test user key) that must succeed. */
export async function httpGraphData(ts: TestServer, query: string, variables?: Record<string, unknown>): Promise<any> {
  const res = await fetch(new URL('/graphql', ts.server.apiUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'api-key': TEST_API_KEY },
    body: JSON.stringify({ query, ...(variables ? { variables } : {}) }),
  });
  const body = (await res.json()) as { data?: any; errors?: unknown };
  if (res.status !== 200 || body.errors) throw new Error(`graph request failed (${res.status}): ${JSON.stringify(body.errors ?? body)}`);
  return body.data;
}
