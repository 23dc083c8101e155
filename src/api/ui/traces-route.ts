import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Catalog } from '../../store/catalog.js';
import type { RateLimiter } from '../../http/rate-limit.js';
import { TRACE_KINDS, type TraceKind, type TraceStore } from '../../store/traces.js';

export interface TracesRouteDeps {
  readonly catalog: Pick<Catalog, 'accountForUserKey' | 'application'>;
  readonly traces: TraceStore;
  readonly clock: Clock;
  /** Shared with the NRQL route: reads per account and minute. */
  readonly limiter: RateLimiter;
}

export const TRACES_ROUTE = '/timeslice/v1/applications/:appId/traces.json';
/** Traces one request returns at most (docs/limits.md, Web UI). */
export const MAX_TRACES = 100;
const DEFAULT_WINDOW_MS = 30 * 60_000;

/**
 * `GET /timeslice/v1/applications/{id}/traces.json?kind=transaction|error|sql&from=<ms>&to=<ms>&limit=N`
 * with a user key: the traces an application's agents sent in the window, newest first. New Relic
 * shows these only in its UI (no REST v2 or NRQL form), so this is Timeslice's own route, for the
 * web UI's Traces and Errors pages. Bad input is a 400 in REST's error shape.
 */
export function registerTracesRoute(app: FastifyInstance, deps: TracesRouteDeps): void {
  app.get<{ Params: { appId: string }; Querystring: Record<string, string | string[] | undefined> }>(TRACES_ROUTE, async (request, reply) => {
    const header = request.headers['api-key'] ?? request.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    const accountId = key ? deps.catalog.accountForUserKey(key) : undefined;
    if (accountId === undefined) {
      return reply.code(401).send({ error: { title: key ? 'Invalid API key' : 'No API key specified; send a user API key in the Api-Key header' } });
    }
    const decision = deps.limiter.take(`account:${accountId}`);
    if (!decision.allowed) return reply.code(429).headers(decision.headers).send({ error: { title: `Rate limit exceeded: ${deps.limiter.limitPerMinute} reads per minute per account` } });
    const appId = /^[0-9]{1,15}$/.test(request.params.appId) ? Number(request.params.appId) : NaN;
    const application = Number.isSafeInteger(appId) ? deps.catalog.application(appId) : undefined;
    if (!application || application.accountId !== accountId) {
      return reply.code(404).send({ error: { title: `No application with id '${request.params.appId.slice(0, 30)}'` } });
    }
    const one = (name: string) => {
      const v = request.query[name];
      return Array.isArray(v) ? v[v.length - 1] : v;
    };
    const kind = one('kind') ?? 'transaction';
    if (!(TRACE_KINDS as readonly string[]).includes(kind)) return bad(reply, `'kind' must be one of ${TRACE_KINDS.join(', ')}`);
    const now = deps.clock.now();
    const to = integer(one('to'), now);
    const from = integer(one('from'), (to ?? now) - DEFAULT_WINDOW_MS);
    const limit = integer(one('limit'), 50);
    if (from === undefined || to === undefined || from >= to) return bad(reply, "'from' and 'to' must be epoch milliseconds with from < to");
    if (limit === undefined || limit < 1 || limit > MAX_TRACES) return bad(reply, `'limit' must be from 1 to ${MAX_TRACES}`);
    const query = { accountId, appId, fromMs: from, toMs: to, limit };
    const traces = await read(deps.traces, kind as TraceKind, query);
    return { traces };
  });
}

function read(store: TraceStore, kind: TraceKind, query: Parameters<TraceStore['errors']>[0]): Promise<unknown[]> {
  if (kind === 'error') return store.errors(query);
  if (kind === 'sql') return store.sql(query);
  return store.transactions(query);
}

function integer(text: string | undefined, fallback: number): number | undefined {
  if (text === undefined || text === '') return fallback;
  if (!/^-?[0-9]{1,16}$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

function bad(reply: { code(n: number): { send(body: unknown): unknown } }, title: string) {
  return reply.code(400).send({ error: { title } });
}
