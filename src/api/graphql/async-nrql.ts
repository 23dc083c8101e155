import { randomUUID } from 'node:crypto';
import type { NrqlAnswer } from '../../nrql/nrql-engine.js';
import { GraphError } from './graph-errors.js';

/** NerdGraph's async queries run for at most 10 minutes. */
export const ASYNC_QUERY_MAX_SECONDS = 600;
/** How long a finished query's answer (or error) can be fetched. */
export const ASYNC_RESULT_EXPIRATION_SECONDS = 600;
/** The wait suggested between polls. */
export const ASYNC_RETRY_AFTER_SECONDS = 5;
/**
 * Queries one user may have going on in the background. They hold read connections after their
 * requests have answered, out of reach of the limit on requests in flight; without a bound one
 * key could keep every read connection busy for ten minutes. NerdGraph's 25 concurrent requests
 * per user, a query going on counting as one.
 */
export const MAX_RUNNING_PER_USER = 25;

export type AsyncQueryState =
  | { readonly kind: 'running'; readonly queryId: string; readonly retryDeadline: number }
  | { readonly kind: 'done'; readonly queryId: string; readonly answer: NrqlAnswer; readonly wallClockMs: number }
  /** `query`: the text the error's position is in. */
  | { readonly kind: 'failed'; readonly queryId: string; readonly error: unknown; readonly query: string };

interface Entry {
  readonly queryId: string;
  /** Who may poll it: the key's user and the accounts it was run on. */
  readonly userId: number;
  readonly accountKey: string;
  readonly startedMs: number;
  state: AsyncQueryState;
  /** Epoch ms after which a finished entry is forgotten. */
  expiresMs: number;
}

/**
 * NRQL queries run with `async: true` that outlived their timeout: they go on in the background
 * (up to 10 minutes) and are polled by id with `nrqlQueryProgress`, from the same user and the
 * same accounts only, as NerdGraph requires. Kept in memory: a restart forgets them, and a
 * client polling one then gets a clear error.
 */
export class AsyncNrqlQueries {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number) {}

  /**
   * Runs `work`, waiting for it at most `waitMs`. Its answer when it finishes in time; otherwise
   * the id of a query that goes on. Refused (TOO_MANY_REQUESTS, which clients retry) while the
   * user has `MAX_RUNNING_PER_USER` queries going on.
   */
  async start(owner: { userId: number; accountIds: readonly number[] }, waitMs: number, query: string, work: () => Promise<NrqlAnswer>): Promise<AsyncQueryState> {
    this.forgetExpired();
    const running = [...this.entries.values()].filter((e) => e.userId === owner.userId && e.state.kind === 'running').length;
    if (running >= MAX_RUNNING_PER_USER) {
      throw new GraphError(
        'TOO_MANY_REQUESTS',
        `This API key has ${running} async queries still running, the most it may have; poll them with nrqlQueryProgress and send this one when one has finished`,
      );
    }
    const queryId = randomUUID();
    const startedMs = this.now();
    const started = performance.now();
    const entry: Entry = {
      queryId,
      userId: owner.userId,
      accountKey: accountKey(owner.accountIds),
      startedMs,
      state: { kind: 'running', queryId, retryDeadline: ASYNC_QUERY_MAX_SECONDS },
      expiresMs: Number.POSITIVE_INFINITY,
    };
    const finished = work().then(
      (answer) => ({ kind: 'done', queryId, answer, wallClockMs: performance.now() - started }) as const,
      (error: unknown) => ({ kind: 'failed', queryId, error, query }) as const,
    );
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([finished, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), waitMs)))]);
    clearTimeout(timer);
    if (waited) return waited;
    this.entries.set(queryId, entry);
    void finished.then((state) => {
      entry.state = state;
      entry.expiresMs = this.now() + ASYNC_RESULT_EXPIRATION_SECONDS * 1000;
    });
    // The wait is part of the 10 minutes.
    return { kind: 'running', queryId, retryDeadline: this.secondsLeft(entry) };
  }

  /** A query's state for its owner, or undefined when the id is unknown, expired or someone else's. */
  poll(owner: { userId: number; accountIds: readonly number[] }, queryId: string): AsyncQueryState | undefined {
    this.forgetExpired();
    const entry = this.entries.get(queryId);
    if (!entry || entry.userId !== owner.userId || entry.accountKey !== accountKey(owner.accountIds)) return undefined;
    if (entry.state.kind !== 'running') return entry.state;
    return { ...entry.state, retryDeadline: this.secondsLeft(entry) };
  }

  /** Whole seconds left of a running query's 10 minutes. */
  private secondsLeft(entry: Entry): number {
    return Math.max(0, ASYNC_QUERY_MAX_SECONDS - Math.floor((this.now() - entry.startedMs) / 1000));
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [id, entry] of this.entries) if (entry.expiresMs <= now) this.entries.delete(id);
  }
}

function accountKey(accountIds: readonly number[]): string {
  return [...new Set(accountIds)].sort((a, b) => a - b).join(',');
}
