import type { Clock } from '../clock.js';

/** New Relic's documented REST v2 limit (rest-v2.md §1.5). */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 1000;

/** New Relic's documented limit on NRQL queries through its APIs: 3000 per account per minute. */
export const DEFAULT_NRQL_QUERIES_PER_MINUTE = 3000;

/** Where the 429's `X-RateLimit-Docs` points: the page describing the behaviour we mirror. */
export const RATE_LIMIT_DOCS_URL =
  'https://docs.newrelic.com/docs/apis/rest-api-v2/basic-functions/api-overload-protection-handling-429-errors/';

const WINDOW_MS = 60_000;

export type RateLimitDecision =
  | { readonly allowed: true; readonly remaining: number }
  | { readonly allowed: false; readonly headers: Readonly<Record<string, string>> };

/**
 * Requests per key in fixed windows aligned to the clock's minutes. A fixed window lets a client
 * that reads `X-RateLimit-Reset` know exactly when it may resume, and needs one counter per key.
 *
 * Only the current window's counters are kept: when the minute turns, all of them are dropped,
 * so memory is bounded by the number of keys active within one minute (and only authenticated
 * keys are counted).
 */
export class RateLimiter {
  private window = Number.NaN;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    readonly limitPerMinute: number = DEFAULT_RATE_LIMIT_PER_MINUTE,
  ) {
    if (!Number.isSafeInteger(limitPerMinute) || limitPerMinute < 1) {
      throw new RangeError(`rate limit must be a positive integer, got ${limitPerMinute}`);
    }
  }

  /** Counts one request for `key` (a key hash, never the key) and says whether it may proceed. */
  take(key: string): RateLimitDecision {
    const now = this.clock.now();
    const window = Math.floor(now / WINDOW_MS);
    // A clock stepping back also starts afresh: better a few extra requests than a stuck key.
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const used = (this.counts.get(key) ?? 0) + 1;
    if (used <= this.limitPerMinute) {
      this.counts.set(key, used);
      return { allowed: true, remaining: this.limitPerMinute - used };
    }
    const resetMs = (window + 1) * WINDOW_MS;
    return {
      allowed: false,
      headers: {
        'x-ratelimit-limit': String(this.limitPerMinute),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(resetMs / 1000),
        'x-ratelimit-docs': RATE_LIMIT_DOCS_URL,
        'retry-after': String(Math.max(1, Math.ceil((resetMs - now) / 1000))),
      },
    };
  }

  /** Keys with a counter in the current window. */
  get trackedKeys(): number {
    return this.counts.size;
  }
}

/**
 * The request budgets one service keeps, each shared by every listener that serves its surface:
 * `rest` per key for REST v2 and Deployments v0 on the API port and the collector port alike (one
 * key, one budget, wherever it calls), `nrql` per account for the NRQL route.
 */
export interface RateLimits {
  readonly rest: RateLimiter;
  readonly nrql: RateLimiter;
}

export function createRateLimits(clock: Clock, perMinute: { readonly rest?: number; readonly nrql?: number } = {}): RateLimits {
  return {
    rest: new RateLimiter(clock, perMinute.rest ?? DEFAULT_RATE_LIMIT_PER_MINUTE),
    nrql: new RateLimiter(clock, perMinute.nrql ?? DEFAULT_NRQL_QUERIES_PER_MINUTE),
  };
}
