import type { Clock } from '../../clock.js';
import { HOUR_MS, type TimesliceCoverage } from '../../plan/resolution.js';
import type { DataEngineStatus } from '../data-engine.js';
import type { MetricIndex } from '../metric-index.js';
import { KEY_METRIC_PATTERNS, type TableStatus, type UpkeepOptions, type UpkeepReport } from '../store.js';
import {
  CUSTOM_EVENTS_TABLE, ERROR_EVENTS_TABLE, ERROR_TRACES_TABLE, LOG_EVENTS_TABLE, SPAN_EVENTS_TABLE, SQL_TRACES_TABLE, TIMESLICES_TABLE,
  TRANSACTION_EVENTS_TABLE, TRANSACTION_TRACES_TABLE,
} from '../tables.js';
import type { ClickHouseDatabase } from './clickhouse-database.js';
import { numberLiteral, stringLiteral } from './clickhouse-dialect.js';
import { HOURLY_TABLE, MAINTENANCE_TABLE, dayOf } from './clickhouse-schema.js';
import { retentionCutoff, timesliceCoverage } from '../retention-rules.js';

const DAY_MS = 86_400_000;
const n = numberLiteral;

const AGENT_EVENT_TABLES: readonly (readonly [string, string])[] = [
  ['Transaction', TRANSACTION_EVENTS_TABLE.name], ['TransactionError', ERROR_EVENTS_TABLE.name],
  ['Span', SPAN_EVENTS_TABLE.name], ['Log', LOG_EVENTS_TABLE.name],
];
const TRACE_TABLES = [ERROR_TRACES_TABLE.name, TRANSACTION_TRACES_TABLE.name, SQL_TRACES_TABLE.name];

/** The six numbers of an hour merged with the summary algebra, and the minutes' exclusive time per call. */
const ROLLUP_VALUES = `sum("call_count"), sum("total"), sum("exclusive"), min("min"), max("max"), sum("sum_of_squares"),
  ifNull(sum("exclusive" / nullIf("call_count", 0)), 0), toFloat64(count("exclusive" / nullIf("call_count", 0)))`;
const KEY = '"account_id", "app_id", "host_id", "instance_id", "metric_id", "scope_id"';

/** A `%` pattern (KEY_METRIC_PATTERNS) as a whole-name regular expression. */
const patternRegex = (p: string) => new RegExp(`^${p.split('%').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);

/**
 * Rollups and retention on ClickHouse, by the same incremental job as on DuckDB.
 *
 * Rollup: each closed hour is one `INSERT … SELECT` into `timeslices_hourly` (atomic on a MergeTree
 * table below max_insert_block_size rows), then the watermark row in `store_maintenance`. Before
 * rolling an hour up, the job looks whether rollup rows of that hour exist (a run killed between
 * the two inserts): then it only moves the watermark, so an hour is rolled up once.
 *
 * Retention: whole days whose every row expired are dropped as partitions (`ALTER TABLE … DROP
 * PARTITION`, instant); the rest of a day, where a type or key metrics keep their own period, by
 * `ALTER TABLE … DELETE` mutations (18.16 has no TTL). On a cluster both run on every shard's
 * local tables.
 */
export class ClickHouseUpkeep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<UpkeepReport> | undefined;
  private stopped = false;
  private metrics: MetricIndex | undefined;

  private constructor(
    private readonly db: ClickHouseDatabase,
    private readonly clock: Clock,
    readonly options: UpkeepOptions,
    private readonly state: { watermarkMs: number | null; lastRollupMs: number | null; lastRetentionMs: number | null },
  ) {}

  static async load(db: ClickHouseDatabase, clock: Clock, options: UpkeepOptions): Promise<ClickHouseUpkeep> {
    const rows = await db.main.rows(`SELECT "task", argMax("watermark", "at"), max("at") FROM "${MAINTENANCE_TABLE}" GROUP BY "task"`);
    const of = (task: string) => rows.find((r) => r[0] === task);
    const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    return new ClickHouseUpkeep(db, clock, options, {
      watermarkMs: num(of('rollup')?.[1]),
      lastRollupMs: num(of('rollup')?.[2]),
      lastRetentionMs: num(of('retention')?.[2]),
    });
  }

  /** Where key metrics' names come from (the catalog's metric index). */
  useMetricIndex(metrics: MetricIndex): void {
    this.metrics = metrics;
  }

  get coverage(): TimesliceCoverage {
    return timesliceCoverage(this.options.retention.minuteMs, this.state.watermarkMs, this.clock.now());
  }

  start(): void {
    if (this.options.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.runOnce().catch(() => undefined), this.options.intervalMs);
    this.timer.unref();
  }

  pause(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  runOnce(): Promise<UpkeepReport> {
    if (this.stopped) return Promise.resolve({ hoursRolledUp: 0, rollupRows: 0, deleted: {} });
    this.running ??= this.run().finally(() => { this.running = undefined; });
    return this.running;
  }

  private async run(): Promise<UpkeepReport> {
    const { hours, rows } = await this.rollUp();
    const deleted = await this.expire();
    return { hoursRolledUp: hours, rollupRows: rows, deleted };
  }

  private async count(sql: string): Promise<number> {
    const rows = await this.db.main.rows(sql);
    return Number(rows[0]?.[0] ?? 0);
  }

  private async record(task: 'rollup' | 'retention', watermarkMs: number | null, nowMs: number): Promise<void> {
    await this.db.main.insert(MAINTENANCE_TABLE, [{ task, watermark: watermarkMs, at: nowMs }]);
  }

  private async rollUp(): Promise<{ hours: number; rows: number }> {
    const closedUntilMs = Math.floor((this.clock.now() - this.options.rollupDelayMs) / HOUR_MS) * HOUR_MS;
    let hours = 0;
    let rows = 0;
    while (!this.stopped) {
      const from = this.state.watermarkMs;
      if (from !== null && from >= closedUntilMs) break;
      const oldestRows = await this.db.main.rows(
        `SELECT min("ts"), count() FROM "${TIMESLICES_TABLE.name}" WHERE ${from === null ? '' : `"ts" >= ${n(from)} AND `}"ts" < ${n(closedUntilMs)}`,
      );
      const nowMs = this.clock.now();
      if (Number(oldestRows[0]?.[1] ?? 0) === 0) {
        if (from !== null) {
          await this.record('rollup', closedUntilMs, nowMs);
          this.state.watermarkMs = closedUntilMs;
          this.state.lastRollupMs = nowMs;
        }
        break;
      }
      const hourMs = Math.floor(Number(oldestRows[0]![0]) / HOUR_MS) * HOUR_MS;
      const done = await this.count(`SELECT count() FROM "${HOURLY_TABLE}" WHERE "ts" = ${n(hourMs)}`);
      if (done === 0) {
        await this.db.main.command(
          `INSERT INTO "${HOURLY_TABLE}" SELECT ${KEY}, ${n(hourMs)}, ${ROLLUP_VALUES} FROM "${TIMESLICES_TABLE.name}"`
          + ` WHERE "ts" >= ${n(hourMs)} AND "ts" < ${n(hourMs + HOUR_MS)} GROUP BY ${KEY}`,
        );
      }
      const made = await this.count(`SELECT count() FROM "${HOURLY_TABLE}" WHERE "ts" = ${n(hourMs)}`);
      await this.record('rollup', hourMs + HOUR_MS, nowMs);
      this.state.watermarkMs = hourMs + HOUR_MS;
      this.state.lastRollupMs = nowMs;
      hours++;
      rows += done === 0 ? made : 0;
    }
    return { hours, rows };
  }

  private cutoff(periodMs: number): number {
    return retentionCutoff(this.clock.now(), periodMs);
  }

  private keyMetricIds(): number[] {
    const patterns = KEY_METRIC_PATTERNS.map(patternRegex);
    const ids: number[] = [];
    for (const [id, name] of this.metrics?.entries() ?? []) if (patterns.some((p) => p.test(name))) ids.push(id);
    return ids;
  }

  /** Deletions retention asks for now: table, the condition, the time column and the cutoff (epoch ms). */
  private expiries(): { table: string; where: string; time: string; untilMs: number; wholeTable: boolean }[] {
    const r = this.options.retention;
    const out: { table: string; where: string; time: string; untilMs: number; wholeTable: boolean }[] = [];
    if (r.minuteMs !== null && this.state.watermarkMs !== null) {
      const until = Math.min(this.cutoff(r.minuteMs), this.state.watermarkMs);
      out.push({ table: TIMESLICES_TABLE.name, where: `"ts" < ${n(until)}`, time: 'ts', untilMs: until, wholeTable: true });
    }
    const keyIds = this.keyMetricIds();
    const keyIn = keyIds.length === 0 ? '0' : `"metric_id" IN (${keyIds.map(n).join(', ')})`;
    const hourly = (periodMs: number) => this.cutoff(periodMs) - HOUR_MS;
    if (r.hourlyMs !== null) {
      out.push({ table: HOURLY_TABLE, where: `"ts" <= ${n(hourly(r.hourlyMs))} AND NOT (${keyIn})`, time: 'ts', untilMs: hourly(r.hourlyMs) + 1, wholeTable: r.keyMetricsMs !== null && r.keyMetricsMs <= r.hourlyMs });
    }
    if (r.keyMetricsMs !== null) {
      out.push({ table: HOURLY_TABLE, where: `"ts" <= ${n(hourly(r.keyMetricsMs))} AND ${keyIn}`, time: 'ts', untilMs: hourly(r.keyMetricsMs) + 1, wholeTable: r.hourlyMs !== null && r.hourlyMs <= r.keyMetricsMs });
    }
    const eventPeriod = (type: string) => (type in r.eventsMs ? r.eventsMs[type]! : r.otherEventsMs);
    for (const [type, table] of AGENT_EVENT_TABLES) {
      const period = eventPeriod(type);
      if (period !== null) out.push({ table, where: `"timestamp" < ${n(this.cutoff(period))}`, time: 'timestamp', untilMs: this.cutoff(period), wholeTable: true });
    }
    const agentTypes = new Set(AGENT_EVENT_TABLES.map(([type]) => type));
    const customTypes = Object.keys(r.eventsMs).filter((t) => !agentTypes.has(t));
    for (const type of customTypes) {
      const period = r.eventsMs[type]!;
      if (period !== null) {
        out.push({ table: CUSTOM_EVENTS_TABLE.name, where: `"event_type" = ${stringLiteral(type)} AND "timestamp" < ${n(this.cutoff(period))}`, time: 'timestamp', untilMs: this.cutoff(period), wholeTable: false });
      }
    }
    if (r.otherEventsMs !== null) {
      const named = customTypes.map(stringLiteral).join(', ');
      out.push({
        table: CUSTOM_EVENTS_TABLE.name, where: `"timestamp" < ${n(this.cutoff(r.otherEventsMs))}${named ? ` AND "event_type" NOT IN (${named})` : ''}`,
        time: 'timestamp', untilMs: this.cutoff(r.otherEventsMs), wholeTable: false,
      });
    }
    if (r.tracesMs !== null) {
      for (const table of TRACE_TABLES) out.push({ table, where: `"timestamp" < ${n(this.cutoff(r.tracesMs))}`, time: 'timestamp', untilMs: this.cutoff(r.tracesMs), wholeTable: true });
    }
    return out;
  }

  /**
   * Per expiry: days entirely before the cutoff are dropped as partitions when the whole table's
   * rows of that day expire; the rest is a DELETE mutation, issued only when rows match.
   */
  private async expire(): Promise<Record<string, number>> {
    const deleted: Record<string, number> = {};
    for (const e of this.expiries()) {
      if (this.stopped) break;
      const matching = await this.count(`SELECT count() FROM "${e.table}" WHERE ${e.where}`);
      if (matching === 0) continue;
      deleted[e.table] = (deleted[e.table] ?? 0) + matching;
      if (e.wholeTable) {
        const lastWholeDay = Math.floor(e.untilMs / DAY_MS) * DAY_MS;
        const days = await this.db.main.rows(`SELECT DISTINCT ${dayOf(`"${e.time}"`)} FROM "${e.table}" WHERE "${e.time}" < ${n(lastWholeDay)}`);
        for (const [day] of days) await this.db.onEveryHost(e.table, (local) => `ALTER TABLE ${local} DROP PARTITION ${n(Number(day))}`);
      }
      const left = await this.count(`SELECT count() FROM "${e.table}" WHERE ${e.where}`);
      if (left > 0) await this.db.onEveryHost(e.table, (local) => `ALTER TABLE ${local} DELETE WHERE ${e.where}`);
    }
    const nowMs = this.clock.now();
    await this.record('retention', null, nowMs);
    this.state.lastRetentionMs = nowMs;
    return deleted;
  }

  async status(): Promise<DataEngineStatus> {
    const tables: { table: string; resolution: string; time: string }[] = [
      { table: TIMESLICES_TABLE.name, resolution: 'minute', time: 'ts' },
      { table: HOURLY_TABLE, resolution: 'hour', time: 'ts' },
      ...AGENT_EVENT_TABLES.map(([, table]) => ({ table, resolution: 'events', time: 'timestamp' })),
      { table: CUSTOM_EVENTS_TABLE.name, resolution: 'events', time: 'timestamp' },
      ...TRACE_TABLES.map((table) => ({ table, resolution: 'traces', time: 'timestamp' })),
    ];
    const rows = await this.db.main.rows(tables.map((t, i) => `SELECT ${i} AS i, count() AS c, if(count() = 0, NULL, min("${t.time}")) AS oldest FROM "${t.table}"`).join(' UNION ALL '));
    const status: TableStatus[] = tables.map((t, i) => {
      const row = rows.find((r) => Number(r[0]) === i);
      return { table: t.table, resolution: t.resolution, rows: Number(row?.[1] ?? 0), oldestMs: row?.[2] === null || row?.[2] === undefined ? null : Number(row[2]) };
    });
    const names = tables.map((t) => stringLiteral(this.db.localName(t.table))).join(', ');
    let sizeBytes = 0;
    for (const host of this.db.hosts) {
      const size = await host.rows(`SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND database = ${stringLiteral(this.db.config.database)} AND table IN (${names})`).catch(
        // 18.16 names it `bytes`.
        () => host.rows(`SELECT sum(bytes) FROM system.parts WHERE active AND database = ${stringLiteral(this.db.config.database)} AND table IN (${names})`),
      );
      sizeBytes += Number(size[0]?.[0] ?? 0);
    }
    return {
      sizeBytes, tables: status, retention: this.options.retention,
      rolledUpUntilMs: this.state.watermarkMs, lastRollupMs: this.state.lastRollupMs, lastRetentionMs: this.state.lastRetentionMs,
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }
}
