import type { DuckDBConnection } from '@duckdb/node-api';
import type { Clock } from '../clock.js';
import type { Database } from './database.js';
import { timestampValue } from './duckdb-values.js';
import { Mutex } from './mutex.js';

export const COMPACTED_TIMESLICES = 'timeslices_compacted';
const HOUR_MS = 3_600_000;

export interface CompactorOptions {
  /** How often to look for old timeslices; 0 turns compaction off. */
  readonly intervalMs: number;
  /** Timeslices at least this old (by their minute) move; newer ones stay in arrival order. */
  readonly minAgeMs: number;
}

export const DEFAULT_COMPACTION: CompactorOptions = { intervalMs: 10 * 60_000, minAgeMs: 2 * 3_600_000 };

/**
 * Moves timeslices older than `minAgeMs` from `timeslices` (arrival order, where ingest appends)
 * to `timeslices_compacted`, an hour at a time, each hour sorted by (account, app, metric, time)
 * and moved in one transaction: readers see every row in exactly one of the two tables. In
 * arrival order every block holds every application, so a week of one application's metrics
 * reads the whole week; sorted, each hour keeps an application's rows together and DuckDB's zone
 * maps skip the rest. Rows an agent appends meanwhile with an old minute commit after the
 * transaction's snapshot, stay where they are, and move on the next run.
 */
export class TimesliceCompactor {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private connection: DuckDBConnection | undefined;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly options: CompactorOptions = DEFAULT_COMPACTION,
    /** Shared with application deletion, which deletes from the same table (see `CatalogDeps`). */
    private readonly maintenance: Mutex = new Mutex(),
  ) {}

  start(): void {
    if (this.options.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      this.compactOnce().catch(() => undefined);
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /** Moves what is old enough now; resolves with the number of timeslices moved. One run at a time. */
  compactOnce(): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    this.running ??= this.move().finally(() => { this.running = undefined; });
    return this.running;
  }

  /**
   * One transaction per hour of backlog, oldest first: a large backlog (a first start on a big
   * store) then never holds one long transaction, a huge sort, or the maintenance lock for long.
   */
  private async move(): Promise<number> {
    this.connection ??= await this.db.instance.connect();
    const conn = this.connection;
    const cutoffMs = Math.floor((this.clock.now() - this.options.minAgeMs) / HOUR_MS) * HOUR_MS;
    const oldest = await conn.runAndReadAll('SELECT epoch_ms(min(ts)) AS oldest FROM timeslices WHERE ts < $1', [timestampValue(cutoffMs)]);
    const oldestMs = oldest.getRowObjectsJS()[0]?.oldest;
    if (oldestMs === null || oldestMs === undefined) return 0;
    let moved = 0;
    for (let untilMs = Math.floor(Number(oldestMs) / HOUR_MS) * HOUR_MS + HOUR_MS; untilMs <= cutoffMs && !this.stopped; untilMs += HOUR_MS) {
      moved += await this.maintenance.run(() => this.moveBefore(conn, untilMs));
    }
    return moved;
  }

  private async moveBefore(conn: DuckDBConnection, untilMs: number): Promise<number> {
    const until = timestampValue(untilMs);
    await conn.run('BEGIN TRANSACTION');
    try {
      const inserted = await conn.run(
        `INSERT INTO ${COMPACTED_TIMESLICES} SELECT * FROM timeslices WHERE ts < $1 ORDER BY account_id, app_id, metric_id, ts`,
        [until],
      );
      await conn.run('DELETE FROM timeslices WHERE ts < $1', [until]);
      await conn.run('COMMIT');
      return Number(inserted.rowsChanged);
    } catch (error) {
      await conn.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
    this.connection?.closeSync();
    this.connection = undefined;
  }
}
