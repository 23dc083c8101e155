import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../store/catalog.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { NrqlEngine } from '../nrql/nrql-engine.js';
import { NrqlError, nrqlErrorBody, type NrqlErrorCode } from '../nrql/nrql-error.js';
import { QueryRefusedError } from '../nrql/query-admission.js';
import { StoreUnavailableError } from '../store/plan-executor.js';
import { NRQL_ROUTE } from '../http/service-paths.js';

export interface NrqlRouteDeps {
  readonly catalog: Pick<Catalog, 'accountForUserKey'>;
  readonly nrql: NrqlEngine;
  /** Queries per minute per account (New Relic's 3000 for NRQL through its APIs): 429 past it. */
  readonly limiter: RateLimiter;
}

/** HTTP status per NRQL error code: the query's fault is 400, a cancelled statement 408. */
export const NRQL_HTTP_STATUS: Readonly<Record<NrqlErrorCode, number>> = {
  NRQL_SYNTAX: 400,
  NRQL_UNTERMINATED: 400,
  NRQL_QUERY_TOO_LONG: 400,
  NRQL_DUPLICATE_CLAUSE: 400,
  NRQL_MISSING_CLAUSE: 400,
  NRQL_UNSUPPORTED: 400,
  NRQL_UNKNOWN_FUNCTION: 400,
  NRQL_BAD_ARGUMENTS: 400,
  NRQL_INVALID_EXPRESSION: 400,
  NRQL_BAD_TIME: 400,
  NRQL_LIMIT_EXCEEDED: 400,
  NRQL_TIMEOUT: 408,
};

interface NrqlRequestBody {
  readonly query?: unknown;
  readonly accounts?: unknown;
  readonly timeout?: unknown;
}

/**
 * `POST /timeslice/v1/nrql` with `{"query": "…", "accounts": [1], "timeout": 30}` and a user API
 * key in `Api-Key`/`X-Api-Key`. Without `accounts` the key's account is read. Not a New Relic
 * API: the graph API's `actor.nrql` is the compatible surface; this one exists so the CLI and
 * shell scripts need no GraphQL.
 */
export function registerNrqlRoute(app: FastifyInstance, deps: NrqlRouteDeps): void {
  app.post(NRQL_ROUTE, async (request, reply) => {
    const header = request.headers['api-key'] ?? request.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    const keyAccount = key ? deps.catalog.accountForUserKey(key) : undefined;
    if (keyAccount === undefined) {
      return reply.code(401).send({ error: { title: key ? 'Invalid API key' : 'No API key specified; send a user API key in the Api-Key header' } });
    }
    const decision = deps.limiter.take(`account:${keyAccount}`);
    if (!decision.allowed) {
      return reply.code(429).headers(decision.headers)
        .send({ error: { title: `Rate limit exceeded: ${deps.limiter.limitPerMinute} NRQL queries per minute per account` } });
    }
    const body = (request.body ?? {}) as NrqlRequestBody;
    if (typeof body.query !== 'string' || body.query.trim() === '') {
      return reply.code(400).send({ error: { title: 'The body must be JSON with a "query" string holding one NRQL query' } });
    }
    let accounts = [keyAccount];
    if (body.accounts !== undefined) {
      if (!Array.isArray(body.accounts) || body.accounts.length === 0 || body.accounts.length > 5 || !body.accounts.every((a) => Number.isSafeInteger(a))) {
        return reply.code(400).send({ error: { title: '"accounts" must be a list of one to five account ids' } });
      }
      const denied = (body.accounts as number[]).find((a) => a !== keyAccount);
      if (denied !== undefined) return reply.code(403).send({ error: { title: `This API key cannot read account ${denied}` } });
      accounts = body.accounts as number[];
    }
    let timeoutMs: number | undefined;
    if (body.timeout !== undefined) {
      if (typeof body.timeout !== 'number' || !(body.timeout > 0) || body.timeout > 120) {
        return reply.code(400).send({ error: { title: '"timeout" must be a number of seconds above 0 and at most 120' } });
      }
      timeoutMs = body.timeout * 1000;
    }
    try {
      return await deps.nrql.run(body.query, { accountIds: accounts, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
    } catch (error) {
      if (error instanceof NrqlError) return reply.code(NRQL_HTTP_STATUS[error.code]).send(nrqlErrorBody(error, body.query));
      if (error instanceof StoreUnavailableError) return reply.code(503).header('retry-after', '5').send({ error: { title: error.message } });
      if (error instanceof QueryRefusedError) {
        return reply.code(429).header('retry-after', String(error.retryAfterSeconds)).send({ error: { title: error.message } });
      }
      throw error;
    }
  });
}
