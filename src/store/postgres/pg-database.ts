import pg from 'pg';
import { StoreSetupError } from '../store.js';
import { PG_MIGRATIONS } from './pg-migrations.js';

/** The oldest PostgreSQL the catalog runs on (`ON CONFLICT`, `SKIP LOCKED`, identity columns, jsonb). */
export const MIN_POSTGRES_VERSION = 130000;

/** Why the catalog database cannot be used, in words naming what is wrong (shown at start). */
export class PostgresConfigError extends StoreSetupError {}

/** The URL with its password hidden, for messages and logs. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** Checks a `postgres://user[:password]@host[:port]/database` URL; a PostgresConfigError naming the problem. */
export function checkedPostgresUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new PostgresConfigError(`TIMESLICE_CATALOG '${url}' is not a URL: expected postgres://user@host:5432/database`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new PostgresConfigError(`TIMESLICE_CATALOG ${redactedUrl(url)}: the scheme must be postgres:// (got ${u.protocol}//)`);
  }
  if (u.hostname === '') throw new PostgresConfigError(`TIMESLICE_CATALOG ${redactedUrl(url)} names no host`);
  if (u.pathname.replace(/^\//, '') === '') throw new PostgresConfigError(`TIMESLICE_CATALOG ${redactedUrl(url)} names no database (…/database)`);
  return u;
}

/** What the server said, as a message naming the cause: unreachable, authentication, missing database. */
function describeConnectError(url: string, error: unknown): PostgresConfigError {
  const e = error as { code?: string; message?: string };
  const where = redactedUrl(url);
  switch (e.code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EHOSTUNREACH':
    case 'ETIMEDOUT':
    case 'EAI_AGAIN':
      return new PostgresConfigError(`cannot reach PostgreSQL at ${where} (${e.code}): is the server running and listening there?`);
    case '28P01':
    case '28000':
      return new PostgresConfigError(`PostgreSQL at ${where} refused the credentials: ${e.message ?? 'authentication failed'}`);
    case '3D000':
      return new PostgresConfigError(`PostgreSQL at ${where}: ${e.message ?? 'the database does not exist'} (create it first: createdb)`);
    default:
      return new PostgresConfigError(`cannot use PostgreSQL at ${where}: ${e.message ?? String(error)}`);
  }
}

export interface PostgresDatabase {
  /** The URL it was opened with (the change feed opens its own listening connection). */
  readonly url: string;
  readonly pool: pg.Pool;
  /** `server_version_num`, e.g. 150004. */
  readonly version: number;
  /** Runs `work` in one transaction on one connection of the pool. */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

// BIGINT (epoch ms, counters) as numbers: every value stored fits a double exactly.
pg.types.setTypeParser(pg.types.builtins.INT8, (text) => Number(text));

/**
 * Connects to the catalog database, checks the server (reachable, credentials, version) and brings
 * its schema up to date. Two nodes starting together migrate once: migrations run under an
 * advisory lock.
 */
export async function openPostgresDatabase(url: string, options: { readonly maxConnections?: number } = {}): Promise<PostgresDatabase> {
  checkedPostgresUrl(url);
  const pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? 10, connectionTimeoutMillis: 10_000 });
  // An idle connection the server drops (restart, failover) must not crash the process.
  pool.on('error', () => undefined);
  let version: number;
  try {
    const client = await pool.connect().catch((error: unknown) => {
      throw describeConnectError(url, error);
    });
    try {
      version = Number((await client.query<{ v: string }>('SHOW server_version_num')).rows[0]!.v);
      if (version < MIN_POSTGRES_VERSION) {
        const shown = (await client.query<{ v: string }>('SHOW server_version')).rows[0]!.v;
        throw new PostgresConfigError(`PostgreSQL at ${redactedUrl(url)} is version ${shown}; Timeslice needs 13 or later`);
      }
      await migrate(client);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  const transaction = async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    // A connection the server drops while checked out reports it here as well as to the query in
    // flight; without a listener that would be an uncaught error. The query's rejection is what counts.
    let broken: Error | undefined;
    const onError = (error: Error) => { broken = error; };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      broken ??= error instanceof Error && /terminat|ECONNRESET|not queryable/i.test(error.message) ? error : undefined;
      throw error;
    } finally {
      client.off('error', onError);
      // A broken connection is closed, not handed to the next caller.
      client.release(broken ?? false);
    }
  };
  return { url, pool, version, transaction, close: () => pool.end() };
}

/** Arbitrary but fixed: the advisory lock key migrations hold (`timeslice` in ASCII, truncated). */
const MIGRATION_LOCK = 0x74696d65;

async function migrate(client: pg.PoolClient): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    const newest = Math.max(0, ...done);
    const known = Math.max(...PG_MIGRATIONS.map((m) => m.version));
    if (newest > known) {
      throw new PostgresConfigError(`the catalog database has schema version ${newest}, newer than this Timeslice knows (${known}): upgrade Timeslice`);
    }
    for (const m of PG_MIGRATIONS) {
      if (done.has(m.version)) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
