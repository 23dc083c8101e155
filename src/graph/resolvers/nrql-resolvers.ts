import type { Condition } from '../../nrql/ast.js';
import type { NrqlAnswer } from '../../nrql/nrql-engine.js';
import { NrqlError, positionOf } from '../../nrql/nrql-error.js';
import type { GraphContext } from '../graph-context.js';
import { GraphError } from '../graph-errors.js';

/** NerdGraph's bounds on `timeout` (seconds): values outside are clamped, none means the least. */
export const NRQL_TIMEOUT_SECONDS = { min: 5, max: 120 } as const;
/** `actor.nrql(accounts:)` reads at most this many accounts at once. */
export const MAX_NRQL_ACCOUNTS = 5;

export interface NrqlArgs {
  readonly query: string;
  readonly timeout?: number | null;
  readonly async?: boolean | null;
}

/**
 * Runs one query for the graph: `actor.nrql`, `account.nrql` and `entity.nrdbQuery` all come
 * here. A query the engine refuses is an `INVALID_INPUT` error on the field (never a class clients
 * retry); a cancelled one is `TIMEOUT`.
 */
export async function runNrql(ctx: GraphContext, accountIds: readonly number[], args: NrqlArgs, where?: Condition): Promise<NrqlContainer> {
  const seconds = Math.min(NRQL_TIMEOUT_SECONDS.max, Math.max(NRQL_TIMEOUT_SECONDS.min, args.timeout ?? NRQL_TIMEOUT_SECONDS.min));
  const started = performance.now();
  try {
    const answer = await ctx.services.nrql.run(args.query, { accountIds, timeoutMs: seconds * 1000, ...(where ? { where } : {}) });
    return new NrqlContainer(answer, performance.now() - started);
  } catch (error) {
    if (!(error instanceof NrqlError)) throw error;
    const at = error.span && error.span.end > 0 ? positionOf(args.query, error.span.start) : undefined;
    throw new GraphError(error.code === 'NRQL_TIMEOUT' ? 'TIMEOUT' : 'INVALID_INPUT', error.message, {
      nrqlErrorCode: error.code,
      ...(at ? { line: at.line, column: at.column } : {}),
      ...(error.suggestion ? { suggestion: error.suggestion } : {}),
    });
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
  constructor(private readonly answer: NrqlAnswer, private readonly wallClockMs: number) {}

  results() {
    return this.answer.results;
  }
  totalResult() {
    return this.answer.totalResult;
  }
  otherResult() {
    return this.answer.otherResult;
  }
  currentResults() {
    return this.answer.currentResults;
  }
  previousResults() {
    return this.answer.previousResults;
  }
  metadata() {
    return this.answer.metadata;
  }
  nrql() {
    return this.answer.nrql;
  }
  /** Queries run to the end within their timeout, so progress is always complete. */
  queryProgress() {
    return { completed: true, queryId: null, resultExpiration: null, retryAfter: null, retryDeadline: null };
  }
  /** Definitions of event types and attributes: Timeslice has none to offer. */
  eventDefinitions() {
    return [];
  }
  suggestedFacets() {
    return [];
  }
  /** The engine's answer in the shape of NRDB's raw JSON: results and totals, window, timing. */
  rawResponse() {
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
