import { BIGINT, BOOLEAN, DOUBLE, TIMESTAMP, VARCHAR, type DuckDBConnection, type DuckDBPreparedStatement, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import type { AggregatePlan } from '../plan/aggregate-plan.js';
import type { Dialect, RenderedSql, SqlParam } from '../sql/dialect.js';
import { duckdbDialect } from '../sql/duckdb-dialect.js';
import { renderAggregatePlan } from '../sql/render-plan.js';
import type { Database } from './database.js';
import { timestampValue } from './duckdb-values.js';

/** An aggregate plan's result as columns: one array per group key, the bucket index, each aggregate. */
export interface AggregateColumns {
  readonly rowCount: number;
  readonly groups: readonly (readonly (number | string | null)[])[];
  readonly buckets: readonly number[] | undefined;
  readonly aggregates: readonly (readonly (number | null)[])[];
}

/** What the query stages need from a store: run a plan, get columns. */
export interface PlanExecutor {
  readonly dialect: Dialect;
  aggregate(plan: AggregatePlan): Promise<AggregateColumns>;
}

/** Prepared statements kept per connection; a plan's SQL text repeats, only its parameters change. */
const PREPARED_PER_CONNECTION = 64;

interface PooledConnection {
  readonly connection: DuckDBConnection;
  /** By SQL text, oldest first (a Map keeps insertion order). */
  readonly prepared: Map<string, DuckDBPreparedStatement>;
}

/**
 * Runs plans on the embedded DuckDB through a small pool of read connections (a DuckDB
 * connection runs one query at a time; several let concurrent requests use both cores).
 * Statements are prepared once per connection and SQL text, and results are read from the
 * materialized chunks directly: on a 30-minute metric-data query that is ~1.7 ms of ~9 ms
 * saved against `runAndReadAll` (docs/benchmarks.md).
 */
export class DuckDbPlanExecutor implements PlanExecutor {
  readonly dialect = duckdbDialect;
  private readonly idle: PooledConnection[] = [];
  private readonly waiting: ((c: PooledConnection) => void)[] = [];
  private opened = 0;

  constructor(private readonly db: Database, private readonly maxConnections = 4) {}

  async aggregate(plan: AggregatePlan): Promise<AggregateColumns> {
    const rendered = renderAggregatePlan(plan, this.dialect);
    const columns = await this.run(rendered);
    const groupCount = plan.groupBy.length;
    const hasBuckets = plan.buckets !== undefined;
    const at = (i: number) => columns[i] ?? [];
    return {
      rowCount: at(0).length,
      groups: Array.from({ length: groupCount }, (_, i) => at(i).map(toPlain)),
      buckets: hasBuckets ? at(groupCount).map((v) => Number(v)) : undefined,
      aggregates: plan.aggregates.map((_, i) => at(groupCount + (hasBuckets ? 1 : 0) + i).map(toNumber)),
    };
  }

  /** Runs rendered SQL and returns its columns (number, bigint, string, boolean or null values). */
  async run(rendered: RenderedSql): Promise<unknown[][]> {
    const pooled = await this.acquire();
    try {
      const statement = await this.prepare(pooled, rendered.sql);
      const values: DuckDBValue[] = [];
      const types: DuckDBType[] = [];
      for (const param of rendered.params) {
        const [value, type] = toDuckDb(param);
        values.push(value);
        types.push(type);
      }
      statement.bind(values, types);
      const result = await statement.run();
      const columns: unknown[][] = Array.from({ length: result.columnCount }, () => []);
      for (let c = 0; c < result.chunkCount; c++) {
        const chunk = result.getChunk(c).getColumns();
        chunk.forEach((values, i) => { for (const v of values) columns[i]!.push(v); });
      }
      return columns;
    } finally {
      this.release(pooled);
    }
  }

  private async prepare(pooled: PooledConnection, sql: string): Promise<DuckDBPreparedStatement> {
    const cached = pooled.prepared.get(sql);
    if (cached) {
      pooled.prepared.delete(sql);
      pooled.prepared.set(sql, cached);
      return cached;
    }
    const statement = await pooled.connection.prepare(sql);
    pooled.prepared.set(sql, statement);
    if (pooled.prepared.size > PREPARED_PER_CONNECTION) {
      const [oldestSql, oldest] = pooled.prepared.entries().next().value!;
      pooled.prepared.delete(oldestSql);
      oldest.destroySync();
    }
    return statement;
  }

  private async acquire(): Promise<PooledConnection> {
    const free = this.idle.pop();
    if (free) return free;
    if (this.opened < this.maxConnections) {
      this.opened++;
      return { connection: await this.db.instance.connect(), prepared: new Map() };
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(pooled: PooledConnection): void {
    const next = this.waiting.shift();
    if (next) next(pooled);
    else this.idle.push(pooled);
  }

  close(): void {
    for (const pooled of this.idle.splice(0)) {
      for (const statement of pooled.prepared.values()) statement.destroySync();
      pooled.connection.closeSync();
    }
  }
}

/** A parameter with the type it binds as: whole numbers as BIGINT, so bucket arithmetic stays integral. */
function toDuckDb(param: SqlParam): [DuckDBValue, DuckDBType] {
  if (typeof param === 'object') return [timestampValue(param.timestampMs), TIMESTAMP];
  if (typeof param === 'number') return Number.isSafeInteger(param) ? [BigInt(param), BIGINT] : [param, DOUBLE];
  if (typeof param === 'boolean') return [param, BOOLEAN];
  return [param, VARCHAR];
}

function toNumber(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'bigint' ? Number(value) : (value as number);
}

function toPlain(value: unknown): number | string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  return value as number | string;
}
