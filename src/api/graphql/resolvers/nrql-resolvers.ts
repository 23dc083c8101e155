import type { Condition } from '../../../nrql/ast.js';
import type { NrqlAnswer } from '../../../nrql/nrql-engine.js';
import { NrqlError, positionOf } from '../../../nrql/nrql-error.js';
import { QueryRefusedError } from '../../../nrql/query-admission.js';
import type { GraphContext } from '../graph-context.js';
import { GraphError } from '../graph-errors.js';
import { ASYNC_QUERY_MAX_SECONDS, ASYNC_RESULT_EXPIRATION_SECONDS, ASYNC_RETRY_AFTER_SECONDS, type AsyncQueryState } from '../async-nrql.js';

/** NerdGraph's bounds on `timeout` (seconds): values outside are clamped, none means the least. */
export const NRQL_TIMEOUT_SECONDS = { min: 5, max: 120 } as const;
/** `actor.nrql(accounts:)` reads at most this many accounts at once. */
export const MAX_NRQL_ACCOUNTS = 5;

export interface NrqlArgs {
  readonly query: string;
  readonly timeout?: number | null;
  readonly async?: boolean | null;
}

/** A refused or cancelled query as the graph shows it: never a class clients retry, but for a timeout. */
export function graphErrorOf(error: unknown, query: string): unknown {
  // Not admitted: NerdGraph's class for "too many at once", which clients retry.
  if (error instanceof QueryRefusedError) return new GraphError('TOO_MANY_REQUESTS', error.message, { retryAfterSeconds: error.retryAfterSeconds });
  if (!(error instanceof NrqlError)) return error;
  const at = error.span && error.span.end > 0 ? positionOf(query, error.span.start) : undefined;
  return new GraphError(error.code === 'NRQL_TIMEOUT' ? 'TIMEOUT' : 'INVALID_INPUT', error.message, {
    nrqlErrorCode: error.code,
    ...(at ? { line: at.line, column: at.column } : {}),
    ...(error.suggestion ? { suggestion: error.suggestion } : {}),
  });
}

/**
 * Runs one query for the graph: `actor.nrql`, `account.nrql` and `entity.nrdbQuery` all come
 * here. A query the engine refuses is an `INVALID_INPUT` error on the field (never a class clients
 * retry); a cancelled one is `TIMEOUT`. With `async: true` the query may run up to 10 minutes:
 * when it outlives `timeout`, the answer is its `queryProgress` and it is polled with
 * `nrqlQueryProgress`.
 */
export async function runNrql(ctx: GraphContext, accountIds: readonly number[], args: NrqlArgs, where?: Condition): Promise<NrqlContainer> {
  ctx.spendQuery();
  const seconds = Math.min(NRQL_TIMEOUT_SECONDS.max, Math.max(NRQL_TIMEOUT_SECONDS.min, args.timeout ?? NRQL_TIMEOUT_SECONDS.min));
  const run = (timeoutMs: number) => ctx.services.nrql.run(args.query, { accountIds, timeoutMs, ...(where ? { where } : {}) });
  if (args.async) {
    const owner = { userId: ctx.principal.userId, accountIds };
    // Refusals of the text come at once, not as an async failure.
    try {
      ctx.services.nrql.explain(args.query, { accountIds, ...(where ? { where } : {}) });
    } catch (error) {
      throw graphErrorOf(error, args.query);
    }
    return containerOf(await ctx.services.asyncQueries.start(owner, seconds * 1000, args.query, () => run(ASYNC_QUERY_MAX_SECONDS * 1000)), false);
  }
  const started = performance.now();
  try {
    return NrqlContainer.finished(await run(seconds * 1000), performance.now() - started);
  } catch (error) {
    throw graphErrorOf(error, args.query);
  }
}

/** `nrqlQueryProgress(queryId)`: the state of an async query run by this key on these accounts. */
export function nrqlQueryProgress(ctx: GraphContext, accountIds: readonly number[], queryId: string): NrqlContainer {
  const state = ctx.services.asyncQueries.poll({ userId: ctx.principal.userId, accountIds }, queryId);
  if (!state) {
    throw GraphError.notFound(`No async query '${queryId}' for these accounts: it is unknown, its result expired, or another key ran it`);
  }
  return containerOf(state, true);
}

/** An async query's container; one that finished within its first wait has no id to poll. */
function containerOf(state: AsyncQueryState, polled: boolean): NrqlContainer {
  switch (state.kind) {
    case 'done':
      return NrqlContainer.finished(state.answer, state.wallClockMs, polled ? state.queryId : null);
    case 'failed':
      throw graphErrorOf(state.error, state.query);
    case 'running':
      return NrqlContainer.running(state.queryId, state.retryDeadline);
  }
}

/** The accounts of `actor.nrql(accounts:)`: one to five, each readable with the key. */
export function nrqlAccounts(ctx: GraphContext, accounts: readonly number[]): number[] {
  const ids = [...new Set(accounts)];
  if (ids.length === 0) throw GraphError.invalidInput('accounts must name at least one account');
  if (ids.length > MAX_NRQL_ACCOUNTS) throw GraphError.invalidInput(`A query can read at most ${MAX_NRQL_ACCOUNTS} accounts; ${ids.length} were given`);
  for (const id of ids) ctx.requireAccount(id);
  return ids;
}

/** NerdGraph's `NrdbResultContainer` / `CrossAccountNrdbResultContainer` over one answer. */
export class NrqlContainer {
  private constructor(
    private readonly answer: NrqlAnswer | null,
    private readonly wallClockMs: number,
    private readonly progress: { completed: boolean; queryId: string | null; retryAfter: number | null; retryDeadline: number | null; resultExpiration: number | null },
  ) {}

  static finished(answer: NrqlAnswer, wallClockMs: number, queryId: string | null = null): NrqlContainer {
    const expiration = queryId === null ? null : ASYNC_RESULT_EXPIRATION_SECONDS;
    return new NrqlContainer(answer, wallClockMs, { completed: true, queryId, retryAfter: null, retryDeadline: null, resultExpiration: expiration });
  }

  /** An async query still running: no results yet, only how to poll for them. */
  static running(queryId: string, retryDeadline: number): NrqlContainer {
    return new NrqlContainer(null, 0, {
      completed: false, queryId, retryAfter: ASYNC_RETRY_AFTER_SECONDS, retryDeadline, resultExpiration: ASYNC_RESULT_EXPIRATION_SECONDS,
    });
  }

  results() {
    return this.answer?.results ?? null;
  }
  totalResult() {
    return this.answer?.totalResult ?? null;
  }
  otherResult() {
    return this.answer?.otherResult ?? null;
  }
  currentResults() {
    return this.answer?.currentResults ?? null;
  }
  previousResults() {
    return this.answer?.previousResults ?? null;
  }
  metadata() {
    return this.answer?.metadata ?? null;
  }
  nrql() {
    return this.answer?.nrql ?? null;
  }
  queryProgress() {
    return this.progress;
  }
  /** Definitions of event types and attributes: Timeslice has none to offer. */
  eventDefinitions() {
    return this.answer ? [] : null;
  }
  suggestedFacets() {
    return this.answer ? [] : null;
  }
  /** Chart links: Timeslice renders no charts, so there is nothing to link to. */
  embeddedChartUrl() {
    return null;
  }
  staticChartUrl() {
    return null;
  }
  /** The engine's answer in the shape of NRDB's raw JSON: results and totals, window, timing. */
  rawResponse() {
    if (!this.answer) return null;
    const { metadata } = this.answer;
    return {
      results: this.answer.results,
      ...(this.answer.totalResult !== null ? { totalResult: this.answer.totalResult } : {}),
      ...(this.answer.otherResult !== null ? { otherResult: this.answer.otherResult } : {}),
      ...(this.answer.currentResults !== null ? { current: { results: this.answer.currentResults }, previous: { results: this.answer.previousResults } } : {}),
      metadata: {
        eventTypes: metadata.eventTypes,
        facets: metadata.facets,
        messages: metadata.messages,
        beginTimeMillis: metadata.timeWindow.begin,
        endTimeMillis: metadata.timeWindow.end,
        rawSince: metadata.timeWindow.since,
        rawUntil: metadata.timeWindow.until,
        rawCompareWith: metadata.timeWindow.compareWith,
      },
      performanceStats: { wallClockTime: Math.round(this.wallClockMs) },
    };
  }
}
