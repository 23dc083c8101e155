import type { BatchWriter } from './batch-writer.js';
import type { MetricIndex } from './metric-index.js';
import type { PlanExecutor } from './plan-executor.js';
import type { StoreEngine, TableStatus, UpkeepOptions, UpkeepReport } from './store.js';
import type { TraceStore } from './traces.js';

/**
 * An engine that holds the data — timeslices, events and traces — apart from the catalog (a
 * ClickHouse server or cluster), composed with a catalog engine into one `Store`: reads of plans
 * and traces go to it, and the catalog's batch writer hands it the rows of the tables it holds
 * (`SplitWriter`). Rollups and retention of that data are its own.
 */
export interface DataEngine {
  readonly engine: StoreEngine;
  readonly executor: PlanExecutor;
  /** Takes rows of the tables `holds` names only. */
  readonly writer: BatchWriter;
  readonly traces: TraceStore;
  /** Whether rows of `table` (a `store/tables.ts` name) are stored here. */
  holds(table: string): boolean;
  /**
   * The application's change tracking events (`ChangeTrackingEvent` and `Deployment` custom events)
   * as stored: time and attribute JSON text. Deployments look one up by id here (REST show, DELETE).
   */
  changeTrackingEvents(accountId: number, appId: number): Promise<{ readonly timeMs: number; readonly attributes: string }[]>;
  /**
   * The catalog deleted application `appId`: its rows go too, in the background (a ClickHouse
   * mutation); `close()` waits for it. Ids are never reused, so rows it could not reach are unread.
   */
  forgetApplication(appId: number): void;
  /** The catalog's metric index, once loaded (retention keeps key metrics by name). */
  useMetricIndex(metrics: MetricIndex): void;
  /** Starts rollups and retention on a timer. */
  start(): void;
  /** Rolls up closed hours and deletes expired data now. */
  maintain(): Promise<UpkeepReport>;
  /** Its tables, bytes on disk and upkeep state. */
  status(): Promise<DataEngineStatus>;
  close(): Promise<void>;
}

export interface DataEngineStatus {
  readonly sizeBytes: number;
  readonly tables: readonly TableStatus[];
  readonly retention: UpkeepOptions['retention'];
  readonly rolledUpUntilMs: number | null;
  readonly lastRollupMs: number | null;
  readonly lastRetentionMs: number | null;
}
