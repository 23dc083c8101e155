import {
  BIGINT, BOOLEAN, DOUBLE, LIST, TIMESTAMP, VARCHAR, listValue, DuckDBListValue, DuckDBTimestampValue,
  type DuckDBConnection, type DuckDBPreparedStatement, type DuckDBType, type DuckDBValue,
} from '@duckdb/node-api';
import type { AggregatePlan, RowsPlan } from '../../plan/aggregate-plan.js';
import { MERGEABLE_AGGREGATES } from '../../plan/expressions.js';
import { chooseResolution, type TimesliceCoverage } from '../../plan/resolution.js';
import type { RenderedSql, SqlParam } from '../../sql/dialect.js';
import { renderAggregatePlan, renderRowsPlan, rowMapCount } from '../../sql/render-plan.js';
import {
  QueryTimeoutError, QueryTooDeepError,
  type AggregateColumns, type PlainValue, type PlanExecutor, type QueryOptions, type RowsResult, type StoredRow,
} from '../plan-executor.js';
import { duckdbDialect } from './duckdb-dialect.js';
import { duckdbSchema } from './sources.js';
import type { Database } from './database.js';
import { timestampValue } from './duckdb-values.js';
import { mapInSlices, ROWS_PER_SLICE, yieldToEventLoop } from '../event-loop.js';

/** RLIKE patterns whose RE2 verdict is remembered (oldest forgotten first). */
const CHECKED_PATTERNS = 256;

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
  readonly schema = duckdbSchema;
  private readonly idle: PooledConnection[] = [];
  private readonly waiting: ((c: PooledConnection) => void)[] = [];
  private opened = 0;
  private readonly checkedPatterns = new Map<string, string | undefined>();

  constructor(
    private readonly db: Database,
    private readonly maxConnections = 4,
    /** What the rollups hold now; none: every plan reads 1-minute timeslices. */
    private readonly coverage: () => TimesliceCoverage = () => ({ hourlyUntilMs: null, minuteFromMs: null }),
  ) {}

  async aggregate(requested: AggregatePlan, options: QueryOptions = {}): Promise<AggregateColumns> {
    const chosen = requested.source.kind === 'timeslices' ? chooseResolution(requested, this.coverage()) : undefined;
    const plan = chosen?.plan ?? requested;
    const rendered = renderAggregatePlan(plan, this.dialect, this.schema);
    const columns = await this.run(rendered, options);
    const groupCount = plan.groupBy.length;
    const hasBuckets = plan.buckets !== undefined;
    const at = (i: number) => columns[i] ?? [];
    // Converted a slice at a time (store/event-loop.ts): a FACET on a unique attribute has a group per row.
    const groups: PlainValue[][] = [];
    for (let i = 0; i < groupCount; i++) groups.push(await mapInSlices(at(i), toPlain));
    const aggregates: (number | null)[][] = [];
    for (const [i, call] of plan.aggregates.entries()) {
      const values = at(groupCount + (hasBuckets ? 1 : 0) + i);
      // Counts and sums are numbers; lists and latest/earliest keep their values' own types.
      aggregates.push(MERGEABLE_AGGREGATES.has(call.fn) || call.fn === 'countDistinct'
        ? await mapInSlices(values, toNumber)
        : (await mapInSlices(values, toPlain)) as (number | null)[]);
    }
    return {
      rowCount: at(0).length,
      groups,
      buckets: hasBuckets ? await mapInSlices(at(groupCount), (v) => Number(v)) : undefined,
      aggregates,
      ...(chosen ? { resolution: chosen.resolution } : {}),
    };
  }

  async regexError(pattern: string): Promise<string | undefined> {
    // Dashboards send the same patterns again and again: each is checked by RE2 once.
    if (this.checkedPatterns.has(pattern)) return this.checkedPatterns.get(pattern);
    let refused: string | undefined;
    try {
      await this.run({ sql: `SELECT ${this.dialect.regexFullMatch("''", this.dialect.placeholder(1, pattern))}`, params: [pattern] });
    } catch (error) {
      // DuckDB prefixes its error class ("Invalid Input Error: …"); the rest names what RE2 refused.
      refused = (error as Error).message.replace(/^[A-Za-z ]+Error: /, '');
    }
    if (this.checkedPatterns.size >= CHECKED_PATTERNS) this.checkedPatterns.delete(this.checkedPatterns.keys().next().value!);
    this.checkedPatterns.set(pattern, refused);
    return refused;
  }

  /**
   * Rows as engine-neutral records. The rendered columns are the time, then with `all` the
   * event type, the typed columns as one JSON object and the attribute maps, then the wanted
   * columns (`renderRowsPlan`); here they become one record per row.
   */
  async rows(plan: RowsPlan, options: QueryOptions = {}): Promise<RowsResult> {
    const columns = await this.run(renderRowsPlan(plan, this.dialect, this.schema), options);
    const rowCount = columns[0]?.length ?? 0;
    const mapCount = plan.all ? rowMapCount(plan, this.schema) : 0;
    const firstValue = plan.all ? 3 + mapCount : 1;
    const rows: StoredRow[] = new Array(rowCount);
    for (let r = 0; r < rowCount; r++) {
      if (r > 0 && r % ROWS_PER_SLICE === 0) await yieldToEventLoop();
      const values: PlainValue[] = new Array(plan.columns.length);
      for (let c = 0; c < plan.columns.length; c++) values[c] = toPlain(columns[firstValue + c]![r]);
      const timeMs = Number(columns[0]![r]);
      if (!plan.all) {
        rows[r] = { timeMs, values };
        continue;
      }
      const attributes: Record<string, unknown> = {};
      // Later maps lose to earlier ones (intrinsics over agent attributes over custom ones), typed columns win.
      for (let m = mapCount - 1; m >= 0; m--) {
        const map = columns[3 + m]![r];
        if (typeof map === 'string') Object.assign(attributes, JSON.parse(map) as object);
      }
      for (const [name, value] of Object.entries(JSON.parse(columns[2]![r] as string) as Record<string, unknown>)) {
        if (value !== null) attributes[name] = value;
      }
      rows[r] = { timeMs, values, eventType: columns[1]![r] as string, attributes };
    }
    return { rows };
  }

  /** Runs rendered SQL and returns its columns (number, bigint, string, boolean or null values). */
  async run(rendered: RenderedSql, options: QueryOptions = {}): Promise<unknown[][]> {
    const pooled = await this.acquire();
    const budgetMs = options.deadline !== undefined ? options.deadline - performance.now() : options.timeoutMs;
    if (budgetMs !== undefined && budgetMs <= 0) {
      this.release(pooled);
      throw new QueryTimeoutError(options.timeoutMs ?? 0);
    }
    let timedOut = false;
    const timer = budgetMs === undefined ? undefined : setTimeout(() => {
      timedOut = true;
      pooled.connection.interrupt();
    }, budgetMs);
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
      let read = 0;
      for (let c = 0; c < result.chunkCount; c++) {
        // A large result is read a few chunks at a time, letting other requests run between them.
        if (read >= ROWS_PER_SLICE) {
          read = 0;
          await yieldToEventLoop();
        }
        const chunk = result.getChunk(c).getColumns();
        read += chunk[0]?.length ?? 0;
        chunk.forEach((values, i) => { for (const v of values) columns[i]!.push(v); });
      }
      return columns;
    } catch (error) {
      if (timedOut) throw new QueryTimeoutError(options.timeoutMs ?? budgetMs!);
      if (error instanceof Error && /Max expression depth limit/.test(error.message)) throw new QueryTooDeepError(error.message);
      throw error;
    } finally {
      if (timer) clearTimeout(timer);
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
  if (typeof param === 'object') {
    return 'timestampMs' in param ? [timestampValue(param.timestampMs), TIMESTAMP] : [listValue([...param.doubles]), LIST(DOUBLE)];
  }
  if (typeof param === 'number') return Number.isSafeInteger(param) ? [BigInt(param), BIGINT] : [param, DOUBLE];
  if (typeof param === 'boolean') return [param, BOOLEAN];
  return [param, VARCHAR];
}

function toNumber(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'bigint' ? Number(value) : (value as number);
}

function toPlain(value: unknown): PlainValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof DuckDBListValue) return value.items.map(toPlain);
  if (value instanceof DuckDBTimestampValue) return Number(value.micros / 1000n);
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value;
  return String(value);
}
