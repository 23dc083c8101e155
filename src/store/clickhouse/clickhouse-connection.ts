import { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { hostUrl, type ClickHouseConfig } from './clickhouse-config.js';

/** The oldest ClickHouse release Timeslice's SQL is written for (Debian's package). */
export const OLDEST_VERSION: readonly [number, number] = [18, 16];

/** ClickHouse could not be reached, or stopped answering: nothing of the request was done (or it is unknown). */
export class ClickHouseUnavailableError extends Error {}

/** Network failures and the server going away, as opposed to an error ClickHouse reported for the statement. */
function isUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  if (['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'UND_ERR_SOCKET'].includes(code)) return true;
  // Distributed tables whose shard is down: "All connection tries failed", "Connection refused" (codes 279, 210).
  return /socket hang up|Timeout error|connect ECONNREFUSED|All connection tries failed|Connection refused|NETWORK_ERROR|Code: 2(10|79)\b/i.test(e.message ?? '')
    || ['210', '279'].includes(code);
}

function wrap(error: unknown, what: string, url: string): Error {
  if (isUnavailable(error)) return new ClickHouseUnavailableError(`ClickHouse at ${url} is unavailable (${what}): ${(error as Error).message}`);
  return error as Error;
}

/**
 * Settings every read runs with: numbers as JSON numbers (Int64 and UInt64 included); and room for
 * the literals the dialect writes where other engines bind parameters (a condition on metric names
 * becomes an IN list of their ids: ClickHouse allows 256 KiB of SQL and 50,000 AST elements by default).
 */
const READ_SETTINGS = {
  output_format_json_quote_64bit_integers: 0,
  max_query_size: String(16 * 1024 * 1024),
  max_ast_elements: '2000000',
  max_expanded_ast_elements: '2000000',
} as const;

/**
 * One ClickHouse server over HTTP (`@clickhouse/client`): statements as text (the dialect renders
 * values as literals), results as rows of JSON values (`JSONCompact`), inserts as JSONEachRow.
 */
export class ClickHouseConnection {
  readonly url: string;
  private readonly client: ClickHouseClient;

  constructor(readonly config: ClickHouseConfig, hostIndex = 0, database: string | null = config.database) {
    this.url = hostUrl(config, hostIndex);
    this.client = createClient({
      url: this.url,
      username: config.user,
      password: config.password,
      ...(database ? { database } : {}),
      request_timeout: 60_000,
      max_open_connections: 8,
      compression: { request: false, response: false },
      // Failures reach the caller as errors (503s, a setup message); the client's own console log would repeat them.
      log: { level: ClickHouseLogLevel.OFF },
    });
  }

  /** Rows of a SELECT, each an array of JSON values in the SELECT's order. */
  async rows(sql: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<unknown[][]> {
    try {
      const result = await this.client.query({
        query: sql,
        format: 'JSONCompact',
        clickhouse_settings: {
          ...READ_SETTINGS,
          ...(options.timeoutMs !== undefined ? { max_execution_time: Math.max(1, Math.ceil(options.timeoutMs / 1000)) } : {}),
        },
        ...(options.signal ? { abort_signal: options.signal } : {}),
      });
      const body = await result.json<unknown[]>();
      return (body as unknown as { data: unknown[][] }).data;
    } catch (error) {
      throw wrap(error, 'query', this.url);
    }
  }

  async command(sql: string): Promise<void> {
    try {
      await this.client.command({ query: sql, clickhouse_settings: { insert_distributed_sync: 1 } });
    } catch (error) {
      throw wrap(error, 'statement', this.url);
    }
  }

  /** One INSERT of `values`; returns once ClickHouse has them (on a Distributed table, every shard: insert_distributed_sync). */
  async insert(table: string, values: readonly Record<string, unknown>[]): Promise<void> {
    try {
      await this.client.insert({
        table: `"${table}"`,
        values: values as Record<string, unknown>[],
        format: 'JSONEachRow',
        clickhouse_settings: { insert_distributed_sync: 1 },
      });
    } catch (error) {
      throw wrap(error, 'insert', this.url);
    }
  }

  /**
   * One INSERT of rows already encoded as RowBinary (every column, in table order: exact numbers,
   * no text to parse); returns once ClickHouse has them (on a Distributed table, every shard:
   * insert_distributed_sync).
   */
  async insertRowBinary(table: string, data: Buffer): Promise<void> {
    try {
      const result = await this.client.exec({
        query: `INSERT INTO "${table}" FORMAT RowBinary`,
        values: Readable.from([data]),
        clickhouse_settings: { insert_distributed_sync: 1 },
      });
      // The answer is empty; reading it to the end frees the connection.
      for await (const _chunk of result.stream) { /* nothing */ }
    } catch (error) {
      throw wrap(error, 'insert', this.url);
    }
  }

  /** The server's version as numbers (`18.16.1` → [18, 16, 1]). */
  async version(): Promise<number[]> {
    const [[text]] = (await this.rows('SELECT version()')) as [[string]];
    return text.split('.').map((p) => Number.parseInt(p, 10));
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
