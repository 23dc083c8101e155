import type { Rows } from './append-tables.js';

/** The store cannot take a write now (closing, or too far behind); nothing of it was stored. */
export class StoreBusyError extends Error {}

/**
 * One write holds more rows than the writer ever queues: it can never be taken, however long the
 * sender waits, so it is refused for good (an agent discards it on 413; a 503 would make it resend
 * the payload forever). Nothing of it was stored.
 */
export class WriteTooLargeError extends Error {
  constructor(readonly rows: number, readonly limit: number) {
    super(`one write of ${rows} rows is more than the ${limit} rows the store queues at once`);
  }
}

/** A write announced while its payload is still being decoded; released once it is queued (or abandoned). */
export interface WriteTicket {
  release(): void;
}

/** Rows the writer holds in memory at most, queued and committing (docs/limits.md, Storage). */
export const MAX_QUEUED_ROWS = 2_000_000;

/**
 * How ingest appends rows: group commit. `write()` resolves only after the transaction holding
 * its rows committed, so an agent is acknowledged only for durable data; a write the store
 * refuses fails only its own request. Over the store's queue limit, or while closing, a write is
 * refused with `StoreBusyError`; one write larger than the limit with `WriteTooLargeError`.
 */
export interface BatchWriter {
  /** Rows queued at most; a single write of more is refused for good. */
  readonly maxQueuedRows: number;
  /** Queues rows for the next commit; resolves once it committed. Releases `ticket` once queued. */
  write(rows: readonly Rows[], ticket?: WriteTicket): Promise<void>;
  /**
   * Announces a write whose payload is still being decoded, so a commit about to start may wait
   * briefly for it. The ticket must be released when the write is queued or abandoned; releasing
   * twice is harmless.
   */
  announce(): WriteTicket;
  /** Resolves once everything written so far is committed (or failed). */
  flush(): Promise<void>;
  /** Refuses further writes and waits for those queued. */
  close(): Promise<void>;
}
