import { DuckDBDataChunk, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { MAX_QUEUED_ROWS } from '../batch-writer.js';
import { GroupCommitWriter } from '../group-commit.js';
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

/** DuckDB's vector size: a data chunk holds at most this many rows. */
const CHUNK_ROWS = 2048;
/**
 * Group commit for ingest (`GroupCommitWriter`): each batch of writes is one DuckDB transaction,
 * appended through DuckDB's Appender a data chunk (2048 rows) at a time. A DuckDB transaction
 * costs mostly per transaction, which is why batches wait briefly for announced writes. Tried and
 * rejected on measurement (docs/benchmarks.md): holding batches for a row count or a fixed time,
 * and two connections committing in turn.
 */
export class DuckDbBatchWriter extends GroupCommitWriter {
  private readonly chunks = new Map<string, DuckDBDataChunk>();

  constructor(
    private readonly connection: DuckDBConnection,
    /**
     * Beyond this many queued rows, writes are refused (StoreBusyError: the agent keeps its data and
     * resends); a single write of more rows than this is refused for good (WriteTooLargeError).
     */
    maxQueuedRows = MAX_QUEUED_ROWS,
  ) {
    super(maxQueuedRows);
  }

  protected async commit(batch: readonly (readonly Rows[])[]): Promise<void> {
    const byTable = new Map<AppendTable, Rows[]>();
    for (const write of batch) {
      for (const rows of write) {
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
