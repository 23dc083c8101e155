import type { Rows } from './append-tables.js';
import { MAX_QUEUED_ROWS, StoreBusyError, WriteTooLargeError, type BatchWriter, type WriteTicket } from './batch-writer.js';

interface PendingWrite {
  readonly rows: readonly Rows[];
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** How long a commit about to start waits for announced writes at most. */
const ANNOUNCED_WAIT_MS = 10;

/**
 * Group commit, whatever the engine: writes that arrive while a commit runs are gathered and
 * handed to the engine's `commit` together; `write()` resolves only once the commit holding its
 * rows returned, so an agent is acknowledged only for stored data. If a batch of several writes
 * fails, each write is committed again alone, so a write the engine refuses fails only its own
 * request (unless `wholeBatchFailure` says the engine itself is away: then every write of the
 * batch gets that error at once).
 *
 * A commit costs mostly per commit, so one about to start waits a few milliseconds for writes the
 * collector has announced (payloads still being decoded), as PostgreSQL's commit_delay waits for
 * sibling transactions. Memory is bounded by `maxQueuedRows`: past it a write is refused with
 * `StoreBusyError` (the agent keeps its data and resends), and one write of more rows than that
 * with `WriteTooLargeError` (for good).
 */
export abstract class GroupCommitWriter implements BatchWriter {
  private pending: PendingWrite[] = [];
  private running: Promise<void> | undefined;
  private closed = false;
  /** Rows accepted and not yet committed or failed: what the writer holds in memory. */
  private queuedRows = 0;
  /** Requests that announced a write still being decoded: a commit waits briefly for them. */
  private announced = 0;
  private wakeCommit: (() => void) | undefined;

  constructor(readonly maxQueuedRows = MAX_QUEUED_ROWS) {}

  /** Stores the rows of every write of a batch, all or none of them. */
  protected abstract commit(batch: readonly (readonly Rows[])[]): Promise<void>;

  /** Why the engine can never store these rows (checked before queueing), or undefined. */
  protected refuse(_rows: readonly Rows[]): Error | undefined {
    return undefined;
  }

  /** The error every write of a failed batch gets without being retried alone, or undefined to retry each. */
  protected wholeBatchFailure(_error: unknown): Error | undefined {
    return undefined;
  }

  /** Queues rows for the next commit; resolves once it committed. Releases `ticket` once queued. */
  write(rows: readonly Rows[], ticket?: WriteTicket): Promise<void> {
    try {
      if (this.closed) return Promise.reject(new StoreBusyError('the store is closing'));
      const refused = this.refuse(rows);
      if (refused !== undefined) return Promise.reject(refused);
      let count = 0;
      for (const r of rows) count += r.length;
      if (count === 0) return Promise.resolve();
      if (count > this.maxQueuedRows) return Promise.reject(new WriteTooLargeError(count, this.maxQueuedRows));
      if (this.queuedRows + count > this.maxQueuedRows) {
        return Promise.reject(new StoreBusyError(`the store is behind (${this.queuedRows} rows waiting to commit)`));
      }
      this.queuedRows += count;
      return new Promise<void>((resolve, reject) => {
        const settle = () => { this.queuedRows -= count; };
        this.pending.push({ rows, resolve: () => { settle(); resolve(); }, reject: (error) => { settle(); reject(error); } });
        this.running ??= this.drain();
      });
    } finally {
      ticket?.release();
    }
  }

  /**
   * A write is coming (its payload is being decoded). The ticket is released by
   * `write(rows, ticket)`, or by its holder when the write is abandoned; releasing twice is harmless.
   */
  announce(): WriteTicket {
    this.announced++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.announced--;
        if (this.announced === 0) this.wakeCommit?.();
      },
    };
  }

  /** Resolves once everything written so far is committed (or failed). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private async drain(): Promise<void> {
    // Let the writes of the current event-loop turn join this batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.pending.length > 0) {
      if (this.announced > 0 && !this.closed) await this.awaitAnnounced();
      const batch = this.pending;
      this.pending = [];
      await this.commitIsolated(batch);
    }
    this.running = undefined;
  }

  private async awaitAnnounced(): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ANNOUNCED_WAIT_MS);
      this.wakeCommit = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeCommit = undefined;
  }

  private async commitIsolated(batch: readonly PendingWrite[]): Promise<void> {
    try {
      await this.commit(batch.map((w) => w.rows));
      for (const w of batch) w.resolve();
    } catch (error) {
      const whole = this.wholeBatchFailure(error);
      if (batch.length === 1 || whole !== undefined) {
        for (const w of batch) w.reject(whole ?? (error as Error));
        return;
      }
      for (const w of batch) await this.commitIsolated([w]);
    }
  }
}
