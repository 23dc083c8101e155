import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
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

/**
 * Runs plans on the embedded DuckDB through a small pool of read connections (a DuckDB
 * connection runs one query at a time; several let concurrent requests use both cores).
 */
export class DuckDbPlanExecutor implements PlanExecutor {
  readonly dialect = duckdbDialect;
  private readonly idle: DuckDBConnection[] = [];
  private readonly waiting: ((c: DuckDBConnection) => void)[] = [];
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

  /** Runs rendered SQL and returns its columns as JS values. */
  async run(rendered: RenderedSql): Promise<unknown[][]> {
    const connection = await this.acquire();
    try {
      const reader = await connection.runAndReadAll(rendered.sql, rendered.params.map(toDuckDbValue));
      return reader.getColumnsJS() as unknown[][];
    } finally {
      this.release(connection);
    }
  }

  private async acquire(): Promise<DuckDBConnection> {
    const free = this.idle.pop();
    if (free) return free;
    if (this.opened < this.maxConnections) {
      this.opened++;
      return this.db.instance.connect();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(connection: DuckDBConnection): void {
    const next = this.waiting.shift();
    if (next) next(connection);
    else this.idle.push(connection);
  }

  close(): void {
    for (const c of this.idle.splice(0)) c.closeSync();
  }
}

function toDuckDbValue(param: SqlParam): DuckDBValue {
  if (typeof param === 'object') return timestampValue(param.timestampMs);
  // Whole numbers bind as BIGINT so integer arithmetic (bucket indexes) stays integral.
  if (typeof param === 'number' && Number.isSafeInteger(param)) return BigInt(param);
  return param;
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
