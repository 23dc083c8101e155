import { availableParallelism, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { defaultDecodeWorkers } from './ingest/agent/agent-decoder.js';
import { HARVEST_LIMIT_MODES, type HarvestLimitMode } from './ingest/agent/harvest-limits.js';
import { parseSunsetMode, type SunsetMode } from './api/rest/sunset.js';
import { defaultAdmissionLimits, type AdmissionLimits } from './nrql/query-admission.js';
import { DEFAULT_COMPACTION, DEFAULT_UPKEEP, STORE_ENGINES, type CompactorOptions, type StoreEngine, type UpkeepOptions } from './store/store.js';
import { parseRetention } from './store/retention-setting.js';
import { parseClickHouseUrl } from './store/clickhouse/clickhouse-config.js';
import { DEFAULT_NRQL_QUERIES_PER_MINUTE, DEFAULT_RATE_LIMIT_PER_MINUTE } from './http/rate-limit.js';
import { MAX_METRIC_NAMES_PER_APP } from './store/metric-index.js';

export interface ServeConfig {
  readonly host: string;
  readonly port: number;
  readonly collectorPort: number;
  readonly dataDir: string;
  /** The storage engine (TIMESLICE_STORE or --store): `duckdb`, the embedded store, or `clickhouse` (URL in `storeUrl`). */
  readonly store: StoreEngine;
  /** For `clickhouse`: the URL TIMESLICE_STORE gave (clickhouse://host:8123/database[?cluster=name]). */
  readonly storeUrl?: string;
  /**
   * TIMESLICE_CATALOG / --catalog: a postgres:// URL keeps the catalog, entity stores, deployment
   * state, alert state and the background lease in PostgreSQL, shared by every node (docs/scale-out.md).
   */
  readonly catalog?: string;
  /** Keys for account 1 instead of generated ones (emulator mode). */
  readonly apiKey?: string;
  readonly licenseKey?: string;
  /** Account 1's first user (its admin), when the first start creates it (TIMESLICE_ADMIN_NAME, TIMESLICE_ADMIN_EMAIL). */
  readonly adminName?: string;
  readonly adminEmail?: string;
  readonly memoryLimit: string;
  readonly eventHarvestPeriodMs: number;
  /** Event limits handed to agents (TIMESLICE_HARVEST_LIMITS): `agent`, what they ask for; `newrelic`, New Relic's scaled to the period. */
  readonly harvestLimits: HarvestLimitMode;
  /** How often alert conditions are evaluated (TIMESLICE_ALERT_EVERY_MS, default one minute; 0 = never). */
  readonly alertIntervalMs?: number;
  readonly logLevel: string;
  /** Worker threads that decode agent bodies; 0 decodes on the event loop. */
  readonly ingestWorkers: number;
  /** Extra host names and IPs for the collector certificate made on first start. */
  readonly certHosts: readonly string[];
  /**
   * Where pages reach the API for browser beacons and the agent's loader, as `scheme://host[:port]`
   * (TIMESLICE_BROWSER_ORIGIN), handed to APM agents for the pages they inject; undefined: the host
   * name the agent reached the collector by, with the API port, over HTTP.
   */
  readonly browserOrigin?: string;
  /** Moving old timeslices into clustered order (TIMESLICE_COMPACT_EVERY_MS, 0 = off; TIMESLICE_COMPACT_AFTER_MS). */
  readonly compaction: CompactorOptions;
  /**
   * Rollups and retention: TIMESLICE_UPKEEP_EVERY_MS (0 = only `timeslice maintain`), TIMESLICE_ROLLUP_AFTER_MS,
   * TIMESLICE_RETENTION (`minute=8d,hourly=90d,key=forever,events=8d,Log=30d,traces=8d`; README.md, docs/limits.md).
   */
  readonly upkeep: UpkeepOptions;
  /** REST v2 and Deployments v0 end of life (TIMESLICE_REST_SUNSET): `date` (410 from 2027-08-01), `never`, `now`. */
  readonly restSunset: SunsetMode;
  /** Queries running at once per node and per account, and how long and how many wait (TIMESLICE_QUERY_*). */
  readonly queryAdmission: AdmissionLimits;
  /** DuckDB's threads (TIMESLICE_DUCKDB_THREADS; default cores − 1, at least 1); undefined: DuckDB's own, one per core. */
  readonly duckdbThreads?: number;
  /** Requests per minute: per key for REST v2 and v0 (TIMESLICE_REST_RATE_LIMIT), per account for the NRQL route (TIMESLICE_NRQL_RATE_LIMIT). */
  readonly rateLimits: { readonly rest: number; readonly nrql: number };
  /** Distinct metric names an application may report (TIMESLICE_METRIC_NAMES_PER_APP); more are dropped. */
  readonly maxMetricNamesPerApp: number;
}

export interface ServeFlags {
  readonly host?: string;
  readonly port?: string;
  readonly 'collector-port'?: string;
  readonly data?: string;
  /** As TIMESLICE_STORE: `duckdb` or `clickhouse://host:8123/database`. */
  readonly store?: string;
  readonly catalog?: string;
}

export class ConfigError extends Error {}

/** A postgres:// URL naming a host and a database; reachability, credentials and version are checked when the store opens. */
export function catalogUrl(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`TIMESLICE_CATALOG must be a URL such as postgres://user@host:5432/database, got '${text}'`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(`TIMESLICE_CATALOG must be a postgres:// URL, got a ${url.protocol}// one`);
  }
  if (url.hostname === '' || url.pathname.replace(/^\//, '') === '') {
    throw new ConfigError('TIMESLICE_CATALOG must name a host and a database: postgres://user@host:5432/database');
  }
  return text;
}

function port(value: string, what: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new ConfigError(`${what} must be a port number from 0 to 65535, got '${value}'`);
  return Number(value);
}

function ingestWorkers(value: string | undefined): number {
  if (!value) return defaultDecodeWorkers();
  if (!/^\d+$/.test(value) || Number(value) > 64) throw new ConfigError(`TIMESLICE_INGEST_WORKERS must be a number from 0 to 64, got '${value}'`);
  return Number(value);
}

/**
 * A quarter of the machine's memory (at least 1 GB) for DuckDB. A larger buffer pool keeps more of
 * what long scans read (a 7-day query over 280 M timeslices: 3.3 s with 2 GB, 1.0 s with 16 GB;
 * docs/benchmarks.md), while DuckDB's own default, 80 %, would crowd out everything else.
 */
export function defaultMemoryLimit(totalBytes: number): string {
  return `${Math.max(1, Math.floor(totalBytes / 4 / 2 ** 30))}GB`;
}

function milliseconds(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text)) throw new ConfigError(`${name} must be a whole number of milliseconds, got '${text}'`);
  return Number(text);
}

function retention(text: string | undefined): UpkeepOptions['retention'] {
  try {
    return parseRetention(text ?? '', DEFAULT_UPKEEP.retention);
  } catch (error) {
    throw new ConfigError(`TIMESLICE_RETENTION: ${(error as Error).message}`);
  }
}

function count(text: string | undefined, fallback: number, name: string, min: number): number {
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > 1_000_000) throw new ConfigError(`${name} must be a whole number from ${min} to 1000000, got '${text}'`);
  return Number(text);
}

/**
 * DuckDB's threads: one per core but one, at least one. With all cores, a heavy query took them
 * all and the event loop, ingest's COMMIT and the decode worker waited for CPU: on 2 cores with 30
 * heavy queries in flight, ingest acknowledgement p99 523 ms and a REST read from memory 187 ms,
 * against 110 ms and 60 ms with one thread, queries no slower (docs/benchmarks.md, "Starvation").
 */
export function defaultDuckDbThreads(cores = availableParallelism()): number {
  return Math.max(1, cores - 1);
}

/** TIMESLICE_QUERY_CONCURRENCY (per node), _PER_ACCOUNT (default: the node's), TIMESLICE_QUERY_QUEUE_MS, TIMESLICE_QUERY_QUEUE_LENGTH. */
function queryAdmission(env: NodeJS.ProcessEnv): AdmissionLimits {
  const d = defaultAdmissionLimits();
  const perNode = count(env.TIMESLICE_QUERY_CONCURRENCY, d.perNode, 'TIMESLICE_QUERY_CONCURRENCY', 1);
  return {
    perNode,
    perAccount: count(env.TIMESLICE_QUERY_CONCURRENCY_PER_ACCOUNT, perNode, 'TIMESLICE_QUERY_CONCURRENCY_PER_ACCOUNT', 1),
    queueMs: count(env.TIMESLICE_QUERY_QUEUE_MS, d.queueMs, 'TIMESLICE_QUERY_QUEUE_MS', 0),
    queueLength: count(env.TIMESLICE_QUERY_QUEUE_LENGTH, d.queueLength, 'TIMESLICE_QUERY_QUEUE_LENGTH', 0),
  };
}

/** The storage engine TIMESLICE_STORE names (default duckdb); a ConfigError for one Timeslice does not have. */
export function storeEngine(text: string | undefined): StoreEngine {
  return storeSetting(text).store;
}

/** TIMESLICE_STORE: `duckdb`, or a ClickHouse URL (checked here for its form; the server is checked at start). */
export function storeSetting(text: string | undefined): { store: StoreEngine; storeUrl?: string } {
  if (text && /^clickhouses?:/i.test(text.trim())) {
    try {
      parseClickHouseUrl(text);
    } catch (error) {
      throw new ConfigError((error as Error).message);
    }
    return { store: 'clickhouse', storeUrl: text.trim() };
  }
  const engine = text || 'duckdb';
  if (engine === 'clickhouse') throw new ConfigError("TIMESLICE_STORE=clickhouse needs the server's URL: clickhouse://host:8123/database");
  if (!(STORE_ENGINES as readonly string[]).includes(engine)) {
    throw new ConfigError(`TIMESLICE_STORE must be duckdb or a ClickHouse URL (clickhouse://host:8123/database), got '${engine}'`);
  }
  return { store: engine as StoreEngine };
}

function perMinute(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined || text === '') return fallback;
  if (!/^[0-9]{1,9}$/.test(text) || Number(text) < 1) throw new ConfigError(`${name} must be a whole number of requests per minute, at least 1, got '${text}'`);
  return Number(text);
}

function harvestLimitMode(text: string | undefined): HarvestLimitMode {
  if (text === undefined || text === '') return 'agent';
  if (!(HARVEST_LIMIT_MODES as readonly string[]).includes(text)) {
    throw new ConfigError(`TIMESLICE_HARVEST_LIMITS must be ${HARVEST_LIMIT_MODES.join(' or ')}, got '${text}'`);
  }
  return text as HarvestLimitMode;
}

function metricNamesPerApp(text: string | undefined): number {
  if (text === undefined || text === '') return MAX_METRIC_NAMES_PER_APP;
  if (!/^[0-9]{1,9}$/.test(text) || Number(text) < 1) throw new ConfigError(`TIMESLICE_METRIC_NAMES_PER_APP must be a whole number, at least 1, got '${text}'`);
  return Number(text);
}

function browserOrigin(text: string | undefined): string | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new ConfigError(`TIMESLICE_BROWSER_ORIGIN must be an origin such as https://apm.example.com, got '${text}'`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '') {
    throw new ConfigError(`TIMESLICE_BROWSER_ORIGIN must be an origin such as https://apm.example.com (scheme, host, port only), got '${text}'`);
  }
  return url.origin;
}

function sunsetMode(text: string | undefined): SunsetMode {
  try {
    return parseSunsetMode(text);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/** Flags win over environment variables, which win over the defaults. */
export function resolveServeConfig(flags: ServeFlags, env: NodeJS.ProcessEnv): ServeConfig {
  const pick = (flag: string | undefined, name: string, fallback: string) => flag ?? (env[name] || undefined) ?? fallback;
  const period = pick(undefined, 'TIMESLICE_EVENT_HARVEST_MS', '5000');
  if (!/^\d+$/.test(period) || Number(period) < 1000) throw new ConfigError(`TIMESLICE_EVENT_HARVEST_MS must be at least 1000, got '${period}'`);
  return {
    host: pick(flags.host, 'TIMESLICE_HOST', '127.0.0.1'),
    port: port(pick(flags.port, 'TIMESLICE_PORT', '3000'), '--port'),
    collectorPort: port(pick(flags['collector-port'], 'TIMESLICE_COLLECTOR_PORT', '3443'), '--collector-port'),
    dataDir: resolve(pick(flags.data, 'TIMESLICE_DATA', './data')),
    ...storeSetting(flags.store ?? env.TIMESLICE_STORE),
    ...(catalogUrl(flags.catalog ?? env.TIMESLICE_CATALOG) !== undefined ? { catalog: catalogUrl(flags.catalog ?? env.TIMESLICE_CATALOG)! } : {}),
    ...(env.TIMESLICE_API_KEY ? { apiKey: env.TIMESLICE_API_KEY } : {}),
    ...(env.TIMESLICE_LICENSE_KEY ? { licenseKey: env.TIMESLICE_LICENSE_KEY } : {}),
    ...(env.TIMESLICE_ADMIN_NAME ? { adminName: env.TIMESLICE_ADMIN_NAME } : {}),
    ...(env.TIMESLICE_ADMIN_EMAIL ? { adminEmail: adminEmail(env.TIMESLICE_ADMIN_EMAIL) } : {}),
    memoryLimit: env.TIMESLICE_MEMORY_LIMIT || defaultMemoryLimit(totalmem()),
    eventHarvestPeriodMs: Number(period),
    harvestLimits: harvestLimitMode(env.TIMESLICE_HARVEST_LIMITS),
    alertIntervalMs: milliseconds(env.TIMESLICE_ALERT_EVERY_MS, 60_000, 'TIMESLICE_ALERT_EVERY_MS'),
    logLevel: env.TIMESLICE_LOG_LEVEL || 'warn',
    ingestWorkers: ingestWorkers(env.TIMESLICE_INGEST_WORKERS),
    certHosts: (env.TIMESLICE_CERT_HOSTS ?? '').split(',').map((h) => h.trim()).filter(Boolean),
    ...(browserOrigin(env.TIMESLICE_BROWSER_ORIGIN) !== undefined ? { browserOrigin: browserOrigin(env.TIMESLICE_BROWSER_ORIGIN)! } : {}),
    compaction: {
      intervalMs: milliseconds(env.TIMESLICE_COMPACT_EVERY_MS, DEFAULT_COMPACTION.intervalMs, 'TIMESLICE_COMPACT_EVERY_MS'),
      minAgeMs: milliseconds(env.TIMESLICE_COMPACT_AFTER_MS, DEFAULT_COMPACTION.minAgeMs, 'TIMESLICE_COMPACT_AFTER_MS'),
    },
    upkeep: {
      ...DEFAULT_UPKEEP,
      intervalMs: milliseconds(env.TIMESLICE_UPKEEP_EVERY_MS, DEFAULT_UPKEEP.intervalMs, 'TIMESLICE_UPKEEP_EVERY_MS'),
      rollupDelayMs: milliseconds(env.TIMESLICE_ROLLUP_AFTER_MS, DEFAULT_UPKEEP.rollupDelayMs, 'TIMESLICE_ROLLUP_AFTER_MS'),
      retention: retention(env.TIMESLICE_RETENTION),
    },
    restSunset: sunsetMode(env.TIMESLICE_REST_SUNSET),
    queryAdmission: queryAdmission(env),
    duckdbThreads: count(env.TIMESLICE_DUCKDB_THREADS, defaultDuckDbThreads(), 'TIMESLICE_DUCKDB_THREADS', 1),
    rateLimits: {
      rest: perMinute(env.TIMESLICE_REST_RATE_LIMIT, DEFAULT_RATE_LIMIT_PER_MINUTE, 'TIMESLICE_REST_RATE_LIMIT'),
      nrql: perMinute(env.TIMESLICE_NRQL_RATE_LIMIT, DEFAULT_NRQL_QUERIES_PER_MINUTE, 'TIMESLICE_NRQL_RATE_LIMIT'),
    },
    maxMetricNamesPerApp: metricNamesPerApp(env.TIMESLICE_METRIC_NAMES_PER_APP),
  };
}

function adminEmail(value: string): string {
  if (!/^[^\s@]+@[^\s@]+$/.test(value.trim())) throw new ConfigError(`TIMESLICE_ADMIN_EMAIL must be an email address, got '${value}'`);
  return value.trim();
}
