import type { BatchWriter, WriteTicket } from '../store/batch-writer.js';
import type { Rows } from '../store/append-tables.js';

/**
 * The writer ingest uses, telling `committed` after each of its writes committed: alerting
 * evaluates the data that closes a window seconds after it lands instead of at the next minute.
 */
export function withCommitSignal(writer: BatchWriter, committed: () => void): BatchWriter {
  return {
    get maxQueuedRows() {
      return writer.maxQueuedRows;
    },
    async write(rows: readonly Rows[], ticket?: WriteTicket): Promise<void> {
      await writer.write(rows, ticket);
      committed();
    },
    announce: () => writer.announce(),
    flush: () => writer.flush(),
    close: () => writer.close(),
  };
}
