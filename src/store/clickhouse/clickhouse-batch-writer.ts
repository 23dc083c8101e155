import type { Cell, Rows } from '../append-tables.js';
import { MAX_QUEUED_ROWS, StoreBusyError, WriteTooLargeError, type BatchWriter, type WriteTicket } from '../batch-writer.js';
import { ClickHouseUnavailableError } from './clickhouse-connection.js';
import type { ClickHouseDatabase } from './clickhouse-database.js';
import { BATCH_COLUMN, MERGED_MAP, STORED_BY_NAME, type StoredTable } from './clickhouse-schema.js';

interface PendingWrite {
  readonly rows: readonly Rows[];
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** How long a batch waits for writes the collector announced (payloads still being decoded). */
const ANNOUNCED_WAIT_MS = 10;

/**
 * Group commit into ClickHouse: the writes that arrived meanwhile become one INSERT per table,
 * each row tagged with the batch's id. `write()` resolves once every INSERT of its batch returned
 * (ClickHouse has the rows; on a Distributed table on every shard: insert_distributed_sync=1).
 *
 * ClickHouse has no transaction across INSERTs: each INSERT of fewer than max_insert_block_size
 * rows (1,048,576) into a MergeTree table is atomic, a batch over several tables is not. So when
 * an INSERT of a batch fails, the batch is taken back: `ALTER TABLE … DELETE WHERE batch = id` on
 * every table it touched (on a cluster, each shard's local table), before any later batch is
 * inserted. Until that succeeded (ClickHouse down), writes are refused with StoreBusyError, which
 * the collector answers 503: the agent keeps its data and sends it again, so a payload ends up
 * stored once. Deleting is a mutation: readers may see the rows of a failed batch until it ran.
 * A failed batch of several writes, for another reason than ClickHouse being away, is retried
 * write by write, so a write ClickHouse refuses fails only its own request.
 */
export class ClickHouseBatchWriter implements BatchWriter {
  private pending: PendingWrite[] = [];
  private running: Promise<void> | undefined;
  private closed = false;
  private queuedRows = 0;
  private announced = 0;
  private wakeCommit: (() => void) | undefined;
  /** Batches that failed part way, to be deleted before anything else is inserted. */
  private readonly undo: { batch: string; tables: string[] }[] = [];
  private sequence = 0;
  private readonly node = Math.floor(Math.random() * 2 ** 20);

  constructor(private readonly db: ClickHouseDatabase, readonly maxQueuedRows = MAX_QUEUED_ROWS) {}

  write(rows: readonly Rows[], ticket?: WriteTicket): Promise<void> {
    try {
      if (this.closed) return Promise.reject(new StoreBusyError('the store is closing'));
      let count = 0;
      for (const r of rows) {
        if (r.length > 0 && !STORED_BY_NAME.has(r.table.name)) return Promise.reject(new Error(`ClickHouse holds no table ${r.table.name}`));
        count += r.length;
      }
      if (count === 0) return Promise.resolve();
      if (count > this.maxQueuedRows) return Promise.reject(new WriteTooLargeError(count, this.maxQueuedRows));
      if (this.queuedRows + count > this.maxQueuedRows) return Promise.reject(new StoreBusyError(`the store is behind (${this.queuedRows} rows waiting to be stored)`));
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

  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private async drain(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.pending.length > 0) {
      if (this.announced > 0 && !this.closed) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ANNOUNCED_WAIT_MS);
          this.wakeCommit = () => { clearTimeout(timer); resolve(); };
        });
        this.wakeCommit = undefined;
      }
      const batch = this.pending;
      this.pending = [];
      await this.commitIsolated(batch);
    }
    this.running = undefined;
  }

  private async commitIsolated(batch: readonly PendingWrite[]): Promise<void> {
    try {
      await this.commit(batch);
      for (const w of batch) w.resolve();
    } catch (error) {
      const unavailable = error instanceof ClickHouseUnavailableError || error instanceof StoreBusyError;
      if (batch.length === 1 || unavailable) {
        const reason = unavailable ? new StoreBusyError((error as Error).message) : (error as Error);
        for (const w of batch) w.reject(reason);
        return;
      }
      for (const w of batch) await this.commitIsolated([w]);
    }
  }

  /** Deletes the batches that failed part way; throws (StoreBusyError) while ClickHouse cannot. */
  private async takeBack(): Promise<void> {
    while (this.undo.length > 0) {
      const { batch, tables } = this.undo[0]!;
      try {
        for (const table of tables) await this.db.onEveryHost(table, (local) => `ALTER TABLE ${local} DELETE WHERE "${BATCH_COLUMN}" = ${batch}`);
      } catch (error) {
        throw new StoreBusyError(`a failed write is still being taken back from ClickHouse: ${(error as Error).message}`);
      }
      this.undo.shift();
    }
  }

  private async commit(batch: readonly PendingWrite[]): Promise<void> {
    await this.takeBack();
    const byTable = new Map<string, Rows[]>();
    for (const write of batch) {
      for (const rows of write.rows) {
        if (rows.length === 0) continue;
        const list = byTable.get(rows.table.name) ?? [];
        list.push(rows);
        byTable.set(rows.table.name, list);
      }
    }
    // Unique per node and batch, below 2^53 so it is exact in JSON.
    const id = String(((Date.now() % 2 ** 30) * 2 ** 20 + this.node) * 8 + (this.sequence++ % 8));
    const attempted: string[] = [];
    try {
      for (const [name, list] of byTable) {
        attempted.push(name);
        const table = STORED_BY_NAME.get(name)!;
        await this.db.main.insert(name, list.flatMap((rows) => rowObjects(table, rows, id)));
      }
    } catch (error) {
      this.undo.push({ batch: id, tables: attempted });
      await this.takeBack().catch(() => undefined);
      throw error;
    }
  }
}

/** Rows as JSONEachRow objects of the stored table: maps merged with their arrays, booleans as 0/1, the batch id. */
export function rowObjects(table: StoredTable, rows: Rows, batch: string): Record<string, unknown>[] {
  const columns = table.description.columns;
  const maps = table.description.attributeMaps ?? [];
  const mapIndexes = maps.map((m) => columns.findIndex((c) => c.name === m));
  const out: Record<string, unknown>[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < columns.length; c++) {
      const column = columns[c]!;
      if (maps.includes(column.name)) continue;
      const cell = rows.columns[c]![r]!;
      row[column.name] = column.type === 'BOOLEAN' && cell !== null ? (cell ? 1 : 0)
        : column.type === 'TIMESTAMP' && cell !== null ? Math.round(cell as number) : cell;
    }
    if (maps.length > 0) Object.assign(row, mergedMaps(mapIndexes.map((i) => rows.columns[i]![r]!)));
    row[BATCH_COLUMN] = batch;
    out[r] = row;
  }
  return out;
}

/**
 * JSON attribute maps (text, in the order reads search them) → the merged object a `SELECT *`
 * lists (earlier maps win, as the DuckDB executor merges them) and the arrays attribute reads
 * use: each attribute once, from the first map where it is not null, as text (strings as they
 * are, everything else as JSON) and as JSON.
 */
export function mergedMaps(cells: readonly Cell[]): Record<string, unknown> {
  const parsed = cells.map((cell) => (typeof cell === 'string' && cell !== '' ? (JSON.parse(cell) as Record<string, unknown>) : null));
  const merged: Record<string, unknown> = {};
  for (let m = parsed.length - 1; m >= 0; m--) if (parsed[m] && typeof parsed[m] === 'object') Object.assign(merged, parsed[m]);
  const keys: string[] = [];
  const text: string[] = [];
  const json: string[] = [];
  const seen = new Set<string>();
  for (const map of parsed) {
    if (!map || typeof map !== 'object' || Array.isArray(map)) continue;
    for (const [key, value] of Object.entries(map)) {
      if (value === null || value === undefined || seen.has(key)) continue;
      seen.add(key);
      keys.push(key);
      const asJson = JSON.stringify(value);
      json.push(asJson);
      text.push(typeof value === 'string' ? value : asJson);
    }
  }
  return {
    [MERGED_MAP]: parsed.every((p) => p === null) ? '' : JSON.stringify(merged),
    [`${MERGED_MAP}_keys`]: keys, [`${MERGED_MAP}_text`]: text, [`${MERGED_MAP}_json`]: json,
  };
}
