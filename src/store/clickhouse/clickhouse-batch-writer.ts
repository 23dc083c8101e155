import type { Cell, Rows } from '../append-tables.js';
import { MAX_QUEUED_ROWS, StoreBusyError } from '../batch-writer.js';
import { GroupCommitWriter } from '../group-commit.js';
import { ClickHouseUnavailableError } from './clickhouse-connection.js';
import type { ClickHouseDatabase } from './clickhouse-database.js';
import { BATCH_COLUMN, MERGED_MAP, STORED_BY_NAME, type StoredTable } from './clickhouse-schema.js';

/**
 * Group commit into ClickHouse: the writes that arrived meanwhile become one INSERT per table
 * (RowBinary: numbers exactly as sent),
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
 * write by write (`GroupCommitWriter`), so a write ClickHouse refuses fails only its own request.
 */
export class ClickHouseBatchWriter extends GroupCommitWriter {
  /** Batches that failed part way, to be deleted before anything else is inserted. */
  private readonly undo: { batch: string; tables: string[] }[] = [];
  private sequence = 0;
  private readonly node = Math.floor(Math.random() * 2 ** 20);

  constructor(private readonly db: ClickHouseDatabase, maxQueuedRows = MAX_QUEUED_ROWS) {
    super(maxQueuedRows);
  }

  protected override refuse(rows: readonly Rows[]): Error | undefined {
    const other = rows.find((r) => r.length > 0 && !STORED_BY_NAME.has(r.table.name));
    return other === undefined ? undefined : new Error(`ClickHouse holds no table ${other.table.name}`);
  }

  /** ClickHouse away (or a failed batch not yet taken back): every write of the batch gets 503 at once. */
  protected override wholeBatchFailure(error: unknown): Error | undefined {
    return error instanceof ClickHouseUnavailableError || error instanceof StoreBusyError ? new StoreBusyError((error as Error).message) : undefined;
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

  protected async commit(batch: readonly (readonly Rows[])[]): Promise<void> {
    await this.takeBack();
    const byTable = new Map<string, Rows[]>();
    for (const write of batch) {
      for (const rows of write) {
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
        const data = new BinaryWriter();
        for (const rows of list) rowBinary(table, rows, id, data);
        await this.db.main.insertRowBinary(name, data.take());
      }
    } catch (error) {
      this.undo.push({ batch: id, tables: attempted });
      await this.takeBack().catch(() => undefined);
      throw error;
    }
  }
}

/** A growing buffer RowBinary is written into. */
class BinaryWriter {
  private buffer = Buffer.allocUnsafe(64 * 1024);
  private at = 0;

  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(next, 0, 0, this.at);
    this.buffer = next;
  }

  u8(v: number): void { this.room(1); this.buffer[this.at++] = v; }
  i32(v: number): void { this.room(4); this.buffer.writeInt32LE(v, this.at); this.at += 4; }
  i64(v: bigint): void { this.room(8); this.buffer.writeBigInt64LE(v, this.at); this.at += 8; }
  u64(v: bigint): void { this.room(8); this.buffer.writeBigUInt64LE(v, this.at); this.at += 8; }
  f64(v: number): void { this.room(8); this.buffer.writeDoubleLE(v, this.at); this.at += 8; }
  varint(v: number): void {
    this.room(10);
    let n = v;
    while (n >= 0x80) {
      this.buffer[this.at++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buffer[this.at++] = n;
  }
  string(text: string): void {
    const bytes = Buffer.byteLength(text);
    this.varint(bytes);
    this.room(bytes);
    this.buffer.write(text, this.at, 'utf8');
    this.at += bytes;
  }
  take(): Buffer { return this.buffer.subarray(0, this.at); }
}

/** A cell that is not the number its column holds: the write is refused (and its batch taken back). */
function numberOf(cell: Cell, column: string): number {
  if (typeof cell !== 'number' || !Number.isFinite(cell)) throw new Error(`column ${column}: ${JSON.stringify(cell)} is not a number`);
  return cell;
}

/**
 * Rows as RowBinary of the stored table (every column in table order): maps merged into their
 * JSON object and arrays, booleans as 0/1, times as whole milliseconds, NULL where the column is
 * Nullable (0 or '' where it is not, as JSONEachRow did), the batch id last. Binary, so every
 * number arrives exactly: 18.16 parses about 3 in 100 decimal doubles to a neighbouring value.
 */
export function rowBinary(table: StoredTable, rows: Rows, batch: string, out = new BinaryWriter()): BinaryWriter {
  const described = new Map(table.description.columns.map((c, i) => [c.name, i]));
  const maps = table.description.attributeMaps ?? [];
  const mapIndexes = maps.map((m) => described.get(m)!);
  const batchId = BigInt(batch);
  for (let r = 0; r < rows.length; r++) {
    const merged = maps.length > 0 ? mergedMaps(mapIndexes.map((i) => rows.columns[i]![r]!)) : undefined;
    for (const column of table.columns) {
      if (column.name === BATCH_COLUMN) {
        out.u64(batchId);
        continue;
      }
      const index = described.get(column.name);
      if (index === undefined) {
        const value = merged![column.name];
        if (Array.isArray(value)) {
          out.varint(value.length);
          for (const item of value as string[]) out.string(item);
        } else out.string(value as string);
        continue;
      }
      const nullable = column.type.startsWith('Nullable(');
      const type = nullable ? column.type.slice(9, -1) : column.type;
      const cell = rows.columns[index]![r]!;
      if (nullable) {
        out.u8(cell === null || cell === undefined ? 1 : 0);
        if (cell === null || cell === undefined) continue;
      }
      const present = cell !== null && cell !== undefined;
      switch (type) {
        case 'Int32': out.i32(present ? Math.trunc(numberOf(cell, column.name)) : 0); break;
        case 'Int64': out.i64(present ? BigInt(Math.round(numberOf(cell, column.name))) : 0n); break;
        case 'Float64': out.f64(present ? (typeof cell === 'number' ? cell : numberOf(cell, column.name)) : 0); break;
        case 'UInt8': out.u8(present && cell ? 1 : 0); break;
        case 'String': out.string(present ? String(cell) : ''); break;
        default: throw new Error(`no RowBinary encoding for ${column.type}`);
      }
    }
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
