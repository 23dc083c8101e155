import { systemClock } from '../clock.js';
import { openStore } from '../store/open-store.js';
import type { Store, StoreEngine, UpkeepOptions } from '../store/store.js';

/** How a CLI command opens a data directory directly (`--data`) instead of asking a running service. */
export interface DataDirOptions {
  /** The data directory (the service must not be running on it). */
  readonly dataDir?: string;
  /** The engine of that data directory's store (TIMESLICE_STORE). */
  readonly store?: StoreEngine;
  /** With `store: 'clickhouse'`: its URL (TIMESLICE_STORE). */
  readonly storeUrl?: string;
  /** The shared catalog (TIMESLICE_CATALOG) the data directory's service uses. */
  readonly catalog?: string;
}

/** Opens the store a data directory's service uses, as a tool does: no timers, a small memory limit. */
export function openDataDirStore(options: DataDirOptions & { readonly dataDir: string }, upkeep?: UpkeepOptions): Promise<Store> {
  return openStore({
    engine: options.store ?? 'duckdb',
    dataDir: options.dataDir,
    memoryLimit: '1GB',
    clock: systemClock,
    expireEveryMs: 0,
    ...(options.storeUrl ? { dataUrl: options.storeUrl } : {}),
    ...(options.catalog !== undefined ? { catalogUrl: options.catalog } : {}),
    ...(upkeep ? { upkeep } : {}),
  });
}
