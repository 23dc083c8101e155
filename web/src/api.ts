/**
 * Talks to the service this page came from: NRQL through POST /timeslice/v1/nrql (the same
 * engine as the graph API's actor.account.nrql) and REST v2. The user's key lives in memory only
 * (and arrives once through the URL fragment, which browsers never send).
 */
let apiKey = '';
const listeners = new Set<() => void>();

export function takeKeyFromFragment(): void {
  const fromFragment = new URLSearchParams(location.hash.slice(1)).get('key');
  if (location.hash) history.replaceState(history.state, '', location.pathname + location.search);
  if (fromFragment) setKey(fromFragment);
}

export function getKey(): string {
  return apiKey;
}

export function setKey(key: string): void {
  apiKey = key.trim();
  for (const l of listeners) l();
}

export function subscribeKey(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A refusal from the service: its message, and for NRQL the position of the fault. */
export class ApiError extends Error {
  constructor(message: string, readonly status: number, readonly line?: number, readonly column?: number) {
    super(message);
  }
}

/** The connection itself failed (no HTTP answer): retried by the query layer. */
export class ConnectionError extends Error {}

async function send(path: string, init: RequestInit): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(path, { ...init, headers: { ...(init.headers as Record<string, string>), 'Api-Key': apiKey }, credentials: 'omit' });
  } catch {
    throw new ConnectionError('Cannot reach the service');
  }
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(`The service answered ${res.status} with no JSON`, res.status);
  }
  if (!res.ok) {
    const e = body?.error ?? {};
    throw new ApiError(String(e.title ?? `HTTP ${res.status}`), res.status, e.line, e.column);
  }
  return body;
}

export interface NrqlResult {
  readonly results: Record<string, any>[];
  readonly totalResult?: Record<string, any> | null;
  readonly metadata?: { facets?: string[] | null; timeWindow?: { begin: number; end: number } } & Record<string, unknown>;
}

export function runNrql(query: string): Promise<NrqlResult> {
  return send('/timeslice/v1/nrql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) }) as Promise<NrqlResult>;
}

export function restGet<T = any>(path: string): Promise<T> {
  return send(path, { method: 'GET' }) as Promise<T>;
}

export function graphql<T = any>(query: string, variables: Record<string, unknown>): Promise<T> {
  return (send('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) }) as Promise<any>)
    .then((body) => {
      if (body.errors?.length) throw new ApiError(body.errors.map((e: { message: string }) => e.message).join('; '), 200);
      return body.data as T;
    });
}
