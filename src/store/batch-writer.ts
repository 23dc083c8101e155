import type { Rows } from './duckdb/append-tables.js';

/** The store cannot take a write now (closing, or too far behind); nothing of it was stored. */
export class StoreBusyError extends Error {}

/** A write announced while its payload is still being decoded; released once it is queued (or abandoned). */
export interface WriteTicket {
  release(): void;
}

/**
 * How ingest appends rows: group commit. `write()` resolves only after the transaction holding
 * its rows committed, so an agent is acknowledged only for durable data; a write the store
 * refuses fails only its own request. Over the store's queue limit, or while closing, a write is
 * refused with `StoreBusyError`.
 */
export interface BatchWriter {
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
