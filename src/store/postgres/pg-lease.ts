import { randomUUID } from 'node:crypto';
import { LeaseListeners, type BackgroundLease } from '../background-lease.js';
import type { PostgresDatabase } from './pg-database.js';

export interface PgLeaseOptions {
  /** The lease's row (one per kind of background work; `background` by default). */
  readonly name?: string;
  /** How long a grant lasts without renewal (default 6 s). */
  readonly ttlMs?: number;
  /** How often the holder renews and the others try to take it (default 2 s). */
  readonly renewEveryMs?: number;
  /** This node's name in the row (default a random id). */
  readonly holder?: string;
}

export const DEFAULT_LEASE_TTL_MS = 6_000;
export const DEFAULT_LEASE_RENEW_MS = 2_000;

/**
 * The background lease as a PostgreSQL row: one holder, an expiry on the database's clock (so nodes'
 * clocks do not matter) and an epoch that grows with each new holder. The holder renews every
 * `renewEveryMs`; the others try as often and get it once it expired. A holder that cannot renew
 * (the database unreachable, or the row taken) stops counting itself as holder before its grant
 * can have expired: it measures from the moment it sent the renewal, on its own monotonic clock.
 * So two nodes never both hold it, and a dead holder's work moves within ttl + one renewal period.
 */
export class PgLease implements BackgroundLease {
  readonly shared = true;
  readonly holder: string;
  private readonly name: string;
  private readonly ttlMs: number;
  private readonly renewEveryMs: number;
  /** performance.now() until which this node holds the lease; 0 when it does not. */
  private heldUntil = 0;
  private currentEpoch = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners = new LeaseListeners();
  private running: Promise<void> = Promise.resolve();
  private closed = false;
  private lapse: NodeJS.Timeout | undefined;

  constructor(private readonly db: PostgresDatabase, options: PgLeaseOptions = {}) {
    this.name = options.name ?? 'background';
    this.ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
    this.renewEveryMs = options.renewEveryMs ?? DEFAULT_LEASE_RENEW_MS;
    this.holder = options.holder ?? randomUUID();
    if (!(this.renewEveryMs * 2 < this.ttlMs)) throw new RangeError('the lease must be renewed at least twice per ttl');
  }

  held(): boolean {
    return this.heldUntil > performance.now();
  }

  /** The fencing token of the current grant (0 when not held). */
  epoch(): number {
    return this.held() ? this.currentEpoch : 0;
  }

  watch(listener: (held: boolean) => void): () => void {
    return this.listeners.add(listener);
  }

  start(): void {
    if (this.timer || this.closed) return;
    const tick = () => {
      this.running = this.attempt().then(() => undefined, () => undefined).finally(() => {
        if (!this.closed) this.timer = setTimeout(tick, this.renewEveryMs);
      });
    };
    tick();
  }

  /** One acquire-or-renew round now (also what the timer runs). */
  async attempt(): Promise<boolean> {
    const sentAt = performance.now();
    try {
      const { rows } = await this.db.pool.query<{ epoch: number }>(
        `INSERT INTO background_leases AS l (name, holder, expires_at, epoch)
         VALUES ($1, $2, now() + make_interval(secs => $3::double precision / 1000), 1)
         ON CONFLICT (name) DO UPDATE
           SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at,
               epoch = CASE WHEN l.holder = EXCLUDED.holder THEN l.epoch ELSE l.epoch + 1 END
           WHERE l.holder = EXCLUDED.holder OR l.expires_at < now()
         RETURNING epoch`,
        [this.name, this.holder, this.ttlMs],
      );
      if (rows.length === 1 && !this.closed) {
        this.currentEpoch = rows[0]!.epoch;
        // Our grant ends ttl after the database saw the statement, which was after we sent it.
        this.heldUntil = sentAt + this.ttlMs - this.renewEveryMs / 2;
      } else {
        this.heldUntil = 0;
      }
    } catch {
      // Unreachable: keep what the last grant allows; it runs out by itself.
    }
    this.notify();
    // A renewal that hangs must not leave the node believing it holds the lease past its grant.
    clearTimeout(this.lapse);
    if (this.held()) {
      this.lapse = setTimeout(() => this.notify(), this.heldUntil - performance.now() + 1);
      this.lapse.unref();
    }
    return this.held();
  }

  private notify(): void {
    this.listeners.tell(this.held());
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.lapse);
    this.timer = undefined;
    await this.running;
    this.heldUntil = 0;
    this.notify();
    // Given up whether or not this node counted itself the holder: a renewal may have landed as it closed.
    await this.db.pool
      .query("UPDATE background_leases SET expires_at = now() - interval '1 second' WHERE name = $1 AND holder = $2 AND expires_at > now()", [this.name, this.holder])
      .catch(() => undefined);
  }
}
