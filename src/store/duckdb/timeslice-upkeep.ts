import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { Clock } from '../../clock.js';
import { HOUR_MS, type TimesliceCoverage } from '../../plan/resolution.js';
import {
  CUSTOM_EVENTS_TABLE, ERROR_EVENTS_TABLE, ERROR_TRACES_TABLE, LOG_EVENTS_TABLE, SPAN_EVENTS_TABLE, SQL_TRACES_TABLE,
  TRANSACTION_EVENTS_TABLE, TRANSACTION_TRACES_TABLE,
} from '../tables.js';
import { Mutex } from '../mutex.js';
import { DEFAULT_UPKEEP, KEY_METRIC_PATTERNS, type TableStatus, type UpkeepOptions, type UpkeepReport } from '../store.js';
import type { Database } from './database.js';
import { timestampValue } from './duckdb-values.js';
import { HOURLY_TIMESLICES, TIMESLICE_TABLES } from './timeslice-tables.js';
import { inTransaction } from './own-connection.js';
import { retentionCutoff, timesliceCoverage } from '../retention-rules.js';


/** The six numbers of an hour's rollup, merged with the summary algebra (Apdex: S, T, F summed, apdex_t kept). */
const ROLLUP_VALUES = `sum(call_count), sum(total), sum(exclusive), min(min), max(max), sum(sum_of_squares),
  sum(exclusive / NULLIF(call_count, 0)), count(exclusive / NULLIF(call_count, 0))`;

/** Agent event tables by the NRQL event type they hold. */
const AGENT_EVENT_TABLES: readonly (readonly [string, string])[] = [
  ['Transaction', TRANSACTION_EVENTS_TABLE.name], ['TransactionError', ERROR_EVENTS_TABLE.name],
  ['Span', SPAN_EVENTS_TABLE.name], ['Log', LOG_EVENTS_TABLE.name],
];
const TRACE_TABLES = [ERROR_TRACES_TABLE.name, TRANSACTION_TRACES_TABLE.name, SQL_TRACES_TABLE.name];

/** One deletion: rows of `table` matching `where` (its parameters `params`). */
interface Expiry {
  readonly table: string;
  readonly where: string;
  readonly params: DuckDBValue[];
}

interface UpkeepState {
  watermarkMs: number | null;
  lastRollupMs: number | null;
  lastRetentionMs: number | null;
}

/**
 * Rolls closed hours of timeslices up into `timeslices_hourly` and deletes what has expired.
 *
 * Rollup: each closed hour (ended `rollupDelayMs` ago) is merged from the three 1-minute tables in
 * one transaction that also moves the watermark past it, so an hour is rolled up exactly once even
 * if the process is killed (the transaction either committed both or neither). Readers learn the
 * new watermark (`coverage`) only after the commit. A timeslice that arrives for an hour already
 * rolled up stays in the 1-minute tables but not in the rollup (docs/limits.md).
 *
 * Retention: 1-minute timeslices past their period and below the watermark, rollups past theirs
 * (key metrics their own), events per type and traces, in steps of at most `deleteStepRows`
 * rows, each its own transaction, yielding to ingest between steps; then a CHECKPOINT, after which
 * DuckDB reuses the freed blocks for new rows (docs/benchmarks.md, the soak run).
 */
export class TimesliceUpkeep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<UpkeepReport> | undefined;
  private connection: DuckDBConnection | undefined;
  private stopped = false;

  private constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    readonly options: UpkeepOptions,
    private readonly maintenance: Mutex,
    private readonly state: UpkeepState,
  ) {}

  static async load(db: Database, clock: Clock, options: UpkeepOptions = DEFAULT_UPKEEP, maintenance = new Mutex()): Promise<TimesliceUpkeep> {
    const rows = await db.all<{ task: string; watermark: bigint | null; last: bigint | null }>(
      'SELECT task, epoch_ms(watermark) AS watermark, epoch_ms(last_run_at) AS last FROM store_maintenance',
    );
    const of = (task: string) => rows.find((r) => r.task === task);
    const num = (v: bigint | null | undefined) => (v === null || v === undefined ? null : Number(v));
    return new TimesliceUpkeep(db, clock, options, maintenance, {
      watermarkMs: num(of('rollup')?.watermark),
      lastRollupMs: num(of('rollup')?.last),
      lastRetentionMs: num(of('retention')?.last),
    });
  }

  /** What readers may take from rollups now. */
  get coverage(): TimesliceCoverage {
    return timesliceCoverage(this.options.retention.minuteMs, this.state.watermarkMs, this.clock.now());
  }

  get lastRuns(): Readonly<UpkeepState> {
    return { ...this.state };
  }

  start(): void {
    if (this.options.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.runOnce().catch(() => undefined), this.options.intervalMs);
    this.timer.unref();
  }

  /** Rolls up what has closed, then deletes what has expired. One run at a time. */
  runOnce(): Promise<UpkeepReport> {
    if (this.stopped) return Promise.resolve({ hoursRolledUp: 0, rollupRows: 0, deleted: {} });
    this.running ??= this.run().finally(() => { this.running = undefined; });
    return this.running;
  }

  private async run(): Promise<UpkeepReport> {
    this.connection ??= await this.db.instance.connect();
    const conn = this.connection;
    const { hours, rows } = await this.rollUp(conn);
    const deleted = await this.expire(conn);
    return { hoursRolledUp: hours, rollupRows: rows, deleted };
  }

  private minuteTablesSql(): string {
    return TIMESLICE_TABLES.map((t) => `SELECT * FROM ${t} WHERE ts >= $1 AND ts < $2`).join(' UNION ALL ');
  }

  private async oldestMinuteMs(conn: DuckDBConnection, fromMs: number | null, untilMs: number): Promise<number | null> {
    const lower = fromMs === null ? '' : 'ts >= $2 AND ';
    const params: DuckDBValue[] = [timestampValue(untilMs), ...(fromMs === null ? [] : [timestampValue(fromMs)])];
    const reader = await conn.runAndReadAll(
      `SELECT epoch_ms(min(m)) AS oldest FROM (${TIMESLICE_TABLES.map((t) => `SELECT min(ts) AS m FROM ${t} WHERE ${lower}ts < $1`).join(' UNION ALL ')})`,
      params,
    );
    const oldest = reader.getRowObjectsJS()[0]?.oldest;
    return oldest === null || oldest === undefined ? null : Number(oldest);
  }

  private async rollUp(conn: DuckDBConnection): Promise<{ hours: number; rows: number }> {
    const closedUntilMs = Math.floor((this.clock.now() - this.options.rollupDelayMs) / HOUR_MS) * HOUR_MS;
    let hours = 0;
    let rows = 0;
    while (!this.stopped) {
      const from = this.state.watermarkMs;
      if (from !== null && from >= closedUntilMs) break;
      const oldest = await this.oldestMinuteMs(conn, from, closedUntilMs);
      if (oldest === null) {
        // Nothing to roll up before the closed hours end: the watermark moves past them.
        if (from !== null) {
          const nowMs = this.clock.now();
          await this.maintenance.run(() => inTransaction(conn, () => this.record(conn, 'rollup', closedUntilMs, 0, nowMs)));
          this.rolledUp(closedUntilMs, nowMs);
        }
        break;
      }
      const hourMs = Math.floor(oldest / HOUR_MS) * HOUR_MS;
      const nowMs = this.clock.now();
      const made = await this.maintenance.run(() => inTransaction(conn, async () => {
        const inserted = await conn.run(
          `INSERT INTO ${HOURLY_TIMESLICES}
           SELECT account_id, app_id, host_id, instance_id, metric_id, scope_id, $1::TIMESTAMP, ${ROLLUP_VALUES}
           FROM (${this.minuteTablesSql()}) GROUP BY account_id, app_id, host_id, instance_id, metric_id, scope_id
           ORDER BY account_id, app_id, metric_id`,
          [timestampValue(hourMs), timestampValue(hourMs + HOUR_MS)],
        );
        const count = Number(inserted.rowsChanged);
        await this.record(conn, 'rollup', hourMs + HOUR_MS, count, nowMs);
        return count;
      }));
      this.rolledUp(hourMs + HOUR_MS, nowMs);
      hours++;
      rows += made;
    }
    return { hours, rows };
  }

  /** Moves a task's watermark and notes the run, inside the caller's transaction. */
  private async record(conn: DuckDBConnection, task: 'rollup' | 'retention', watermarkMs: number | null, rows: number, nowMs: number): Promise<void> {
    await conn.run(
      'UPDATE store_maintenance SET watermark = $1, last_run_at = $2, last_rows = $3 WHERE task = $4',
      [watermarkMs === null ? null : timestampValue(watermarkMs), timestampValue(nowMs), rows, task],
    );
  }

  /** After the COMMIT that moved it: readers may now use the rollups up to `watermarkMs`. */
  private rolledUp(watermarkMs: number, nowMs: number): void {
    this.state.watermarkMs = watermarkMs;
    this.state.lastRollupMs = nowMs;
  }


  private cutoff(periodMs: number): number {
    return retentionCutoff(this.clock.now(), periodMs);
  }

  /** Every deletion retention asks for now, in the order they run. */
  private expiries(): Expiry[] {
    const r = this.options.retention;
    const out: Expiry[] = [];
    if (r.minuteMs !== null && this.state.watermarkMs !== null) {
      // Only what the rollups already hold: an hour not yet rolled up keeps its minutes.
      const until = timestampValue(Math.min(this.cutoff(r.minuteMs), this.state.watermarkMs));
      for (const table of TIMESLICE_TABLES) out.push({ table, where: 'ts < $1', params: [until] });
    }
    const keyNames = KEY_METRIC_PATTERNS.map((_, i) => `name LIKE $${i + 2}`).join(' OR ');
    const keyIds = `metric_id IN (SELECT id FROM metric_names WHERE ${keyNames})`;
    // An hour expires once all of it is older than the cutoff.
    const hourly = (periodMs: number) => timestampValue(this.cutoff(periodMs) - HOUR_MS);
    if (r.hourlyMs !== null) out.push({ table: HOURLY_TIMESLICES, where: `ts <= $1 AND NOT ${keyIds}`, params: [hourly(r.hourlyMs), ...KEY_METRIC_PATTERNS] });
    if (r.keyMetricsMs !== null) out.push({ table: HOURLY_TIMESLICES, where: `ts <= $1 AND ${keyIds}`, params: [hourly(r.keyMetricsMs), ...KEY_METRIC_PATTERNS] });
    const eventPeriod = (type: string) => (type in r.eventsMs ? r.eventsMs[type]! : r.otherEventsMs);
    for (const [type, table] of AGENT_EVENT_TABLES) {
      const period = eventPeriod(type);
      if (period !== null) out.push({ table, where: 'timestamp < $1', params: [timestampValue(this.cutoff(period))] });
    }
    const agentTypes = new Set(AGENT_EVENT_TABLES.map(([type]) => type));
    const customTypes = Object.keys(r.eventsMs).filter((t) => !agentTypes.has(t));
    for (const type of customTypes) {
      const period = r.eventsMs[type]!;
      if (period !== null) out.push({ table: CUSTOM_EVENTS_TABLE.name, where: 'event_type = $2 AND timestamp < $1', params: [timestampValue(this.cutoff(period)), type] });
    }
    if (r.otherEventsMs !== null) {
      const named = customTypes.map((_, i) => `$${i + 2}`).join(', ');
      out.push({
        table: CUSTOM_EVENTS_TABLE.name,
        where: `timestamp < $1${named ? ` AND event_type NOT IN (${named})` : ''}`,
        params: [timestampValue(this.cutoff(r.otherEventsMs)), ...customTypes],
      });
    }
    if (r.tracesMs !== null) {
      for (const table of TRACE_TABLES) out.push({ table, where: 'timestamp < $1', params: [timestampValue(this.cutoff(r.tracesMs))] });
    }
    return out;
  }

  private async expire(conn: DuckDBConnection): Promise<Record<string, number>> {
    const deleted: Record<string, number> = {};
    let total = 0;
    const step = Math.max(1, Math.floor(this.options.deleteStepRows));
    for (const expiry of this.expiries()) {
      for (;;) {
        if (this.stopped) return deleted;
        // A bounded step: at most `step` rows, one short transaction, then ingest gets its turn.
        const removed = await this.maintenance.run(() => inTransaction(conn, async () => {
          const result = await conn.run(
            `DELETE FROM ${expiry.table} WHERE rowid IN (SELECT rowid FROM ${expiry.table} WHERE ${expiry.where} LIMIT ${step})`,
            expiry.params,
          );
          return Number(result.rowsChanged);
        }));
        if (removed > 0) deleted[expiry.table] = (deleted[expiry.table] ?? 0) + removed;
        total += removed;
        await new Promise((resolve) => setImmediate(resolve));
        if (removed < step) break;
      }
    }
    const nowMs = this.clock.now();
    await this.maintenance.run(() => inTransaction(conn, () => this.record(conn, 'retention', null, total, nowMs)));
    this.state.lastRetentionMs = nowMs;
    // Freed blocks are reused by later inserts once a checkpoint has written the deletions out.
    if (total > 0) await conn.run('CHECKPOINT').catch(() => undefined);
    return deleted;
  }

  /** Rows and oldest row per table the upkeep looks after. */
  async tables(): Promise<TableStatus[]> {
    const tables: { table: string; resolution: string; time: string }[] = [
      ...TIMESLICE_TABLES.map((table) => ({ table, resolution: 'minute', time: 'ts' })),
      { table: HOURLY_TIMESLICES, resolution: 'hour', time: 'ts' },
      ...AGENT_EVENT_TABLES.map(([, table]) => ({ table, resolution: 'events', time: 'timestamp' })),
      { table: CUSTOM_EVENTS_TABLE.name, resolution: 'events', time: 'timestamp' },
      ...TRACE_TABLES.map((table) => ({ table, resolution: 'traces', time: 'timestamp' })),
    ];
    const rows = await this.db.all<{ i: number; n: bigint; oldest: bigint | null }>(
      tables.map((t, i) => `SELECT ${i} AS i, count(*) AS n, epoch_ms(min(${t.time})) AS oldest FROM ${t.table}`).join(' UNION ALL '),
    );
    return tables.map((t, i) => {
      const row = rows.find((r) => Number(r.i) === i);
      return { table: t.table, resolution: t.resolution, rows: Number(row?.n ?? 0), oldestMs: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest) };
    });
  }

  /** Stops the timer and waits for a run in progress (it stops between hours and between steps). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
    this.connection?.closeSync();
    this.connection = undefined;
  }
}
