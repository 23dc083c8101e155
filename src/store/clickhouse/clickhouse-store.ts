import type { Clock } from '../../clock.js';
import type { DataEngine, DataEngineStatus } from '../data-engine.js';
import { CHANGE_TRACKING_EVENT_TYPE, DEPLOYMENT_EVENT_TYPE } from '../deployments.js';
import type { MetricIndex } from '../metric-index.js';
import { numberLiteral, stringLiteral } from './clickhouse-dialect.js';
import { DEFAULT_UPKEEP, type UpkeepOptions, type UpkeepReport } from '../store.js';
import { ClickHouseBatchWriter } from './clickhouse-batch-writer.js';
import { parseClickHouseUrl } from './clickhouse-config.js';
import { ClickHouseDatabase } from './clickhouse-database.js';
import { ClickHousePlanExecutor } from './clickhouse-plan-executor.js';
import { DATA_TABLE_NAMES, HOURLY_TABLE } from './clickhouse-schema.js';
import { ClickHouseTraceStore } from './clickhouse-traces.js';
import { ClickHouseUpkeep } from './clickhouse-upkeep.js';

export interface ClickHouseStoreOptions {
  /** `clickhouse://host:8123/database[?cluster=name]` (clickhouse-config.ts). */
  readonly url: string;
  readonly clock: Clock;
  readonly upkeep?: UpkeepOptions;
  readonly maxQueuedRows?: number;
}

/** Timeslices, events and traces on a ClickHouse server or cluster: the data half of a composed store. */
export class ClickHouseDataEngine implements DataEngine {
  readonly engine = 'clickhouse' as const;
  /** Deletions of deleted applications' rows, one after another. */
  private deleting: Promise<void> = Promise.resolve();

  private constructor(
    readonly db: ClickHouseDatabase,
    readonly executor: ClickHousePlanExecutor,
    readonly writer: ClickHouseBatchWriter,
    readonly traces: ClickHouseTraceStore,
    readonly upkeep: ClickHouseUpkeep,
  ) {}

  /** Connects and checks the server(s), creates what is missing; errors name what is wrong (`ClickHouseSetupError`, `ClickHouseUrlError`). */
  static async open(options: ClickHouseStoreOptions): Promise<ClickHouseDataEngine> {
    const config = parseClickHouseUrl(options.url);
    const db = await ClickHouseDatabase.open(config, options.url);
    try {
      const upkeep = await ClickHouseUpkeep.load(db, options.clock, options.upkeep ?? DEFAULT_UPKEEP);
      const executor = new ClickHousePlanExecutor(db.main, () => upkeep.coverage);
      const writer = new ClickHouseBatchWriter(db, options.maxQueuedRows);
      return new ClickHouseDataEngine(db, executor, writer, new ClickHouseTraceStore(db.main), upkeep);
    } catch (error) {
      await db.close();
      throw error;
    }
  }

  holds(table: string): boolean {
    return DATA_TABLE_NAMES.has(table);
  }

  async changeTrackingEvents(accountId: number, appId: number): Promise<{ timeMs: number; attributes: string }[]> {
    const n = (v: number) => numberLiteral(Math.trunc(v));
    const rows = await this.db.main.rows(
      `SELECT "timestamp", "attrs" FROM "custom_events" WHERE "account_id" = ${n(accountId)} AND "app_id" = ${n(appId)}`
      + ` AND "event_type" IN (${stringLiteral(CHANGE_TRACKING_EVENT_TYPE)}, ${stringLiteral(DEPLOYMENT_EVENT_TYPE)})`,
    );
    return rows.map(([ms, attrs]) => ({ timeMs: Number(ms), attributes: String(attrs) }));
  }

  forgetApplication(appId: number): void {
    const tables = [...DATA_TABLE_NAMES, HOURLY_TABLE];
    this.deleting = this.deleting.then(async () => {
      for (const table of tables) await this.db.onEveryHost(table, (local) => `ALTER TABLE ${local} DELETE WHERE "app_id" = ${numberLiteral(Math.trunc(appId))}`);
    }).catch(() => undefined);
  }

  useMetricIndex(metrics: MetricIndex): void {
    this.upkeep.useMetricIndex(metrics);
  }

  start(): void {
    this.upkeep.start();
  }

  maintain(): Promise<UpkeepReport> {
    return this.upkeep.runOnce();
  }

  status(): Promise<DataEngineStatus> {
    return this.upkeep.status();
  }

  async close(): Promise<void> {
    await this.upkeep.stop();
    await this.writer.close();
    await this.deleting;
    await this.db.close();
  }
}
