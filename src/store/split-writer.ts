import type { Rows } from './append-tables.js';
import type { BatchWriter, WriteTicket } from './batch-writer.js';

/**
 * One batch writer over two engines: rows of the tables the data engine holds go to `data`, the
 * rest (metric names and presence, which the catalog engine keeps) to `catalog`. A write is
 * acknowledged once both took their part, the data first: when the data engine refuses (it is
 * down: StoreBusyError), nothing was written anywhere and the sender's retry starts clean. When
 * the catalog then fails (its local disk), the data rows stay without their new names'
 * dictionary entries until the sender's retry writes them again (docs/scale-out.md).
 */
export class SplitWriter implements BatchWriter {
  readonly maxQueuedRows: number;

  constructor(private readonly catalog: BatchWriter, private readonly data: BatchWriter, private readonly holds: (table: string) => boolean) {
    this.maxQueuedRows = Math.min(catalog.maxQueuedRows, data.maxQueuedRows);
  }

  async write(rows: readonly Rows[], ticket?: WriteTicket): Promise<void> {
    const dataRows = rows.filter((r) => this.holds(r.table.name));
    const catalogRows = rows.filter((r) => !this.holds(r.table.name));
    try {
      if (dataRows.length > 0) await this.data.write(dataRows, ticket);
    } finally {
      ticket?.release();
    }
    if (catalogRows.length > 0) await this.catalog.write(catalogRows);
  }

  announce(): WriteTicket {
    return this.data.announce();
  }

  async flush(): Promise<void> {
    await this.data.flush();
    await this.catalog.flush();
  }

  async close(): Promise<void> {
    await this.data.close();
    await this.catalog.close();
  }
}
