import { DuckDBDataChunk, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { MAX_QUEUED_ROWS, StoreBusyError, WriteTooLargeError, type BatchWriter, type WriteTicket } from '../batch-writer.js';
import type { AppendTable, Cell, Rows } from '../append-tables.js';
import { DUCKDB_TYPES, timestampValue } from './duckdb-values.js';

/** Timestamp cells are epoch ms; DuckDB takes them as values. Rows often share one (a harvest's minute). */
function timestampColumn(cells: readonly Cell[]): DuckDBValue[] {
  const out = new Array<DuckDBValue>(cells.length);
  let lastMs: Cell = null;
  let last: DuckDBValue = null;
  for (let i = 0; i < cells.length; i++) {
    const ms = cells[i]!;
    if (ms !== lastMs) {
      lastMs = ms;
      last = ms === null ? null : timestampValue(ms as number);
    }
    out[i] = last;
  }
  return out;
}

interface PendingWrite {
  readonly rows: readonly Rows[];
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** DuckDB's vector size: a data chunk holds at most this many rows. */
const CHUNK_ROWS = 2048;
/** How long a commit waits for announced writes at most. */
const ANNOUNCED_WAIT_MS = 10;

/**
 * Group commit for ingest. Writes that arrive while a commit is running are gathered and
 * committed together in the next transaction, through DuckDB's Appender, a data chunk (2048
 * rows) at a time. `write()` resolves only after the transaction holding its rows committed,
 * so an agent is acknowledged only for durable data. If a batch of several writes fails to
 * commit, each write is retried alone, so a write the store refuses fails only its own request.
 *
 * A DuckDB transaction costs mostly per transaction, so a commit about to start waits a few
 * milliseconds for writes the collector has announced (payloads still being decoded), as
 * PostgreSQL's commit_delay waits for sibling transactions. Tried and rejected on measurement
 * (docs/benchmarks.md): holding batches for a row count or a fixed time, and two connections
 * committing in turn.
 */
export class DuckDbBatchWriter implements BatchWriter {
  private pending: PendingWrite[] = [];
  private running: Promise<void> | undefined;
  private readonly chunks = new Map<string, DuckDBDataChunk>();
  private closed = false;
  /** Rows accepted and not yet committed or failed: what the writer holds in memory. */
  private queuedRows = 0;
  /** Requests that announced a write still being decoded: a commit waits briefly for them. */
  private announced = 0;
  private wakeCommit: (() => void) | undefined;

  constructor(
    private readonly connection: DuckDBConnection,
    /**
     * Beyond this many queued rows, writes are refused (StoreBusyError: the agent keeps its data and
     * resends); a single write of more rows than this is refused for good (WriteTooLargeError).
     */
    readonly maxQueuedRows = MAX_QUEUED_ROWS,
  ) {}

  /** Queues rows for the next commit; resolves once it committed. Releases `ticket` once queued. */
  write(rows: readonly Rows[], ticket?: WriteTicket): Promise<void> {
    try {
      if (this.closed) return Promise.reject(new StoreBusyError('the store is closing'));
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
   * A write is coming (its payload is being decoded). A commit about to start waits up to a few
   * milliseconds for announced writes, so they share one transaction: a DuckDB transaction costs
   * mostly per transaction. The ticket is released by `write(rows, ticket)`, or by its holder
   * when the write is abandoned; releasing twice is harmless.
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
      await this.commit(batch);
      for (const w of batch) w.resolve();
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error as Error);
        return;
      }
      for (const w of batch) await this.commitIsolated([w]);
    }
  }

  private async commit(batch: readonly PendingWrite[]): Promise<void> {
    const byTable = new Map<AppendTable, Rows[]>();
    for (const write of batch) {
      for (const rows of write.rows) {
        if (rows.length === 0) continue;
        const list = byTable.get(rows.table) ?? [];
        list.push(rows);
        byTable.set(rows.table, list);
      }
    }
    await this.connection.run('BEGIN TRANSACTION');
    try {
      for (const [table, list] of byTable) await this.appendTable(table, list);
      await this.connection.run('COMMIT');
    } catch (error) {
      await this.connection.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  private async appendTable(table: AppendTable, list: readonly Rows[]): Promise<void> {
    const appender = await this.connection.createAppender(table.name);
    try {
      let chunk = this.chunks.get(table.name);
      if (!chunk) {
        chunk = DuckDBDataChunk.create(table.columns.map((c) => DUCKDB_TYPES[c.type]));
        this.chunks.set(table.name, chunk);
      }
      const width = table.columns.length;
      for (const rows of list) {
        for (let offset = 0; offset < rows.length; offset += CHUNK_ROWS) {
          const end = Math.min(rows.length, offset + CHUNK_ROWS);
          // A write that fits one chunk (most do) is handed over as is; setColumns only reads it.
          const whole = offset === 0 && end === rows.length;
          const columns = new Array<readonly DuckDBValue[]>(width);
          for (let c = 0; c < width; c++) {
            const cells = whole ? rows.columns[c]! : rows.columns[c]!.slice(offset, end);
            columns[c] = table.columns[c]!.type === 'TIMESTAMP' ? timestampColumn(cells) : cells;
          }
          chunk.reset();
          chunk.setColumns(columns);
          appender.appendDataChunk(chunk);
        }
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }
}
