import type { DuckDBConnection } from '@duckdb/node-api';
import type { Clock } from '../../clock.js';
import type { Database } from './database.js';
import { timestampValue } from './duckdb-values.js';
import { Mutex } from '../mutex.js';
import { DEFAULT_COMPACTION, type CompactorOptions } from '../store.js';
import { COMPACTED_TIMESLICES, DAILY_TIMESLICES } from './timeslice-tables.js';
import { inTransaction } from './own-connection.js';
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const CLUSTER_ORDER = 'ORDER BY account_id, app_id, metric_id, ts';

export { DEFAULT_COMPACTION, type CompactorOptions };

/**
 * Moves timeslices older than `minAgeMs` from `timeslices` (arrival order, where ingest appends)
 * to `timeslices_compacted`, an hour at a time, each hour sorted by (account, app, metric, time)
 * and moved in one transaction, then merges each complete day's hour blocks into one sorted block
 * in `timeslices_daily`: readers see every row in exactly one of the three tables. In
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
    let moved = 0;
    const firstMs = oldestMs === null || oldestMs === undefined ? Infinity : Math.floor(Number(oldestMs) / HOUR_MS) * HOUR_MS + HOUR_MS;
    for (let untilMs = firstMs; untilMs <= cutoffMs && !this.stopped; untilMs += HOUR_MS) {
      moved += await this.maintenance.run(() => this.moveBefore(conn, untilMs));
    }
    await this.mergeCompleteDays(conn, Math.floor(cutoffMs / DAY_MS) * DAY_MS);
    return moved;
  }

  /**
   * Rewrites each complete day's hour blocks as one block sorted by (account, app, metric, time),
   * a day per transaction. Late rows for a merged day arrive as a small hour block and are merged
   * as another small day block.
   */
  private async mergeCompleteDays(conn: DuckDBConnection, beforeMs: number): Promise<void> {
    const days = await conn.runAndReadAll(
      `SELECT DISTINCT epoch_ms(date_trunc('day', ts)) AS day FROM ${COMPACTED_TIMESLICES} WHERE ts < $1 ORDER BY day`,
      [timestampValue(beforeMs)],
    );
    for (const { day } of days.getRowObjectsJS() as { day: bigint }[]) {
      if (this.stopped) return;
      const from = timestampValue(Number(day));
      const until = timestampValue(Number(day) + DAY_MS);
      await this.maintenance.run(() => inTransaction(conn, async () => {
        await conn.run(`INSERT INTO ${DAILY_TIMESLICES} SELECT * FROM ${COMPACTED_TIMESLICES} WHERE ts >= $1 AND ts < $2 ${CLUSTER_ORDER}`, [from, until]);
        await conn.run(`DELETE FROM ${COMPACTED_TIMESLICES} WHERE ts >= $1 AND ts < $2`, [from, until]);
      }));
    }
  }


  private moveBefore(conn: DuckDBConnection, untilMs: number): Promise<number> {
    const until = timestampValue(untilMs);
    return inTransaction(conn, async () => {
      const inserted = await conn.run(`INSERT INTO ${COMPACTED_TIMESLICES} SELECT * FROM timeslices WHERE ts < $1 ${CLUSTER_ORDER}`, [until]);
      await conn.run('DELETE FROM timeslices WHERE ts < $1', [until]);
      return Number(inserted.rowsChanged);
    });
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
