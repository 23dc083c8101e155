import { TEST_API_KEY, type TestServer } from './test-server.js';

export interface GraphReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  /** The parsed body: `{data, errors}`. */
  readonly body: { data?: any; errors?: { message: string; path?: (string | number)[]; locations?: unknown; extensions?: Record<string, unknown> }[] };
}

/**
 * One graph request through `inject` (no socket), as a client sends it: `POST /graphql`, JSON
 * `{query, variables}`, the test user key in `Api-Key` unless told otherwise.
 */
export async function graph(
  ts: TestServer,
  query: string,
  variables?: Record<string, unknown>,
  options: { key?: string | null; headers?: Record<string, string> } = {},
): Promise<GraphReply> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.key !== null) headers['api-key'] = options.key ?? TEST_API_KEY;
  const res = await ts.server.api.inject({ method: 'POST', url: '/graphql', headers, payload: JSON.stringify({ query, ...(variables ? { variables } : {}) }) });
  return { status: res.statusCode, headers: res.headers, body: JSON.parse(res.body) };
}

/** The data of a request that must succeed: fails with the errors otherwise. */
export async function graphData(ts: TestServer, query: string, variables?: Record<string, unknown>, options: { key?: string | null } = {}): Promise<any> {
  const reply = await graph(ts, query, variables, options);
  if (reply.status !== 200 || reply.body.errors) throw new Error(`graph request failed (${reply.status}): ${JSON.stringify(reply.body.errors ?? reply.body)}`);
  return reply.body.data;
}
