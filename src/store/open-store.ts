import type { Clock } from '../clock.js';
import type { IdleExpiry } from './catalog/agent-runs.js';
import { DuckDbStore } from './duckdb/duckdb-store.js';
import { openPostgresCatalog } from './postgres/open-postgres-catalog.js';
import type { CompactorOptions, Store, StoreEngine, UpkeepOptions } from './store.js';

/** How often idle agent runs and instances are looked for, by default. */
export const EXPIRE_EVERY_MS = 10 * 60_000;

export interface StoreOptions {
  readonly engine: StoreEngine;
  readonly dataDir: string;
  readonly memoryLimit: string;
  /** The engine's worker threads (DuckDB's `threads`); undefined: the engine's default. */
  readonly threads?: number;
  readonly clock: Clock;
  readonly compaction?: CompactorOptions;
  /** Rollups and retention (default `DEFAULT_UPKEEP`). */
  readonly upkeep?: UpkeepOptions;
  readonly expiry?: IdleExpiry;
  /** Rows the batch writer queues at most (default `MAX_QUEUED_ROWS`). */
  readonly maxQueuedRows?: number;
  /** Distinct unscoped metric names per application (default `MAX_METRIC_NAMES_PER_APP`). */
  readonly maxMetricNamesPerApp?: number;
  /** 0 = never on a timer (a tool reading a data directory). */
  readonly expireEveryMs?: number;
  /**
   * TIMESLICE_CATALOG: a postgres:// URL keeps the catalog, entity stores, deployment state, alert
   * state and the background lease in PostgreSQL, shared by every node; undefined keeps them in the
   * engine's own store.
   */
  readonly catalogUrl?: string;
}

/** Opens the store of the configured engine: the one place that names an engine. */
export async function openStore(options: StoreOptions): Promise<Store> {
  switch (options.engine) {
    case 'duckdb':
      return DuckDbStore.open({
        ...options,
        expireEveryMs: options.expireEveryMs ?? EXPIRE_EVERY_MS,
        ...(options.catalogUrl !== undefined
          ? { sharedCatalog: (deps) => openPostgresCatalog(options.catalogUrl!, { clock: options.clock, applications: deps }) }
          : {}),
      });
    default: {
      const never: never = options.engine;
      throw new Error(`unknown store engine '${String(never)}'`);
    }
  }
}
