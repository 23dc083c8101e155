import type { Clock } from '../clock.js';
import type { IdleExpiry } from './catalog/agent-runs.js';
import { ClickHouseDataEngine } from './clickhouse/clickhouse-store.js';
import { DuckDbStore } from './duckdb/duckdb-store.js';
import { openPostgresCatalog } from './postgres/open-postgres-catalog.js';
import type { OpenSharedCatalog } from './shared-catalog.js';
import type { CompactorOptions, Store, StoreEngine, UpkeepOptions } from './store.js';

/** How often idle agent runs and instances are looked for, by default. */
export const EXPIRE_EVERY_MS = 10 * 60_000;

export interface StoreOptions {
  readonly engine: StoreEngine;
  /** For `clickhouse`: the server's URL (`clickhouse://host:8123/database[?cluster=name]`). */
  readonly dataUrl?: string;
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
      return DuckDbStore.open({ ...options, ...shared(options), expireEveryMs: options.expireEveryMs ?? EXPIRE_EVERY_MS });
    case 'clickhouse': {
      // Timeslices, events and traces on ClickHouse; the catalog (and what else is not data) in the DuckDB
      // file, or in PostgreSQL with TIMESLICE_CATALOG (then the metric index too, shared by the nodes).
      if (!options.dataUrl) throw new Error('the clickhouse store needs its URL (TIMESLICE_STORE=clickhouse://host:8123/database)');
      const data = await ClickHouseDataEngine.open({
        url: options.dataUrl, clock: options.clock, ...(options.upkeep ? { upkeep: options.upkeep } : {}),
        ...(options.maxQueuedRows !== undefined ? { maxQueuedRows: options.maxQueuedRows } : {}),
      });
      return DuckDbStore.open({ ...options, ...shared(options), data, expireEveryMs: options.expireEveryMs ?? EXPIRE_EVERY_MS });
    }
    default: {
      const never: never = options.engine;
      throw new Error(`unknown store engine '${String(never)}'`);
    }
  }
}

/** The PostgreSQL catalog TIMESLICE_CATALOG names, for the DuckDB store to compose. */
function shared(options: StoreOptions): { sharedCatalog?: OpenSharedCatalog } {
  const url = options.catalogUrl;
  if (url === undefined) return {};
  return { sharedCatalog: (deps) => openPostgresCatalog(url, { clock: options.clock, applications: deps }) };
}
