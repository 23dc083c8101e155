import type { AggregatePlan, PlanSource, RowsPlan } from '../../plan/aggregate-plan.js';
import { MERGEABLE_AGGREGATES, type RowExpr } from '../../plan/expressions.js';
import { chooseResolution, type TimesliceCoverage } from '../../plan/resolution.js';
import { renderAggregatePlan, renderRowsPlan, rowMapCount } from '../../sql/render-plan.js';
import { mapInSlices, ROWS_PER_SLICE, yieldToEventLoop } from '../event-loop.js';
import {
  QueryTimeoutError, QueryTooDeepError, StoreUnavailableError,
  type AggregateColumns, type PlainValue, type PlanExecutor, type QueryOptions, type RowsResult, type StoredRow,
} from '../plan-executor.js';
import { ClickHouseUnavailableError, type ClickHouseConnection } from './clickhouse-connection.js';
import { clickhouseDialect } from './clickhouse-dialect.js';
import { clickhouseSchema, typedColumnsOf } from './clickhouse-schema.js';

const CHECKED_PATTERNS = 256;

/**
 * Runs plans on ClickHouse: the same renderer as every engine with ClickHouse's dialect and
 * schema, results as engine-neutral columns. ClickHouse has no boolean type, so the columns a
 * plan reads as booleans (a boolean field, typed boolean columns of `SELECT *`) come back as 0/1
 * and are turned into booleans here. A plan's `top` is not rendered (18.16 has no window
 * functions): every group comes back, which the plan allows (`TopGroups`).
 */
export class ClickHousePlanExecutor implements PlanExecutor {
  readonly dialect = clickhouseDialect;
  readonly schema = clickhouseSchema;
  private readonly checkedPatterns = new Map<string, string | undefined>();

  constructor(
    private readonly connection: ClickHouseConnection,
    private readonly coverage: () => TimesliceCoverage = () => ({ hourlyUntilMs: null, minuteFromMs: null }),
  ) {}

  /** The SQL a plan runs as (golden files pin it). */
  render(plan: AggregatePlan | RowsPlan): string {
    return plan.kind === 'rows' ? renderRowsPlan(plan, this.dialect, this.schema).sql : renderAggregatePlan(withoutTop(plan), this.dialect, this.schema).sql;
  }

  async aggregate(requested: AggregatePlan, options: QueryOptions = {}): Promise<AggregateColumns> {
    const chosen = requested.source.kind === 'timeslices' ? chooseResolution(requested, this.coverage()) : undefined;
    const plan = withoutTop(chosen?.plan ?? requested);
    const rows = await this.run(renderAggregatePlan(plan, this.dialect, this.schema).sql, options);
    const groupCount = plan.groupBy.length;
    const hasBuckets = plan.buckets !== undefined;
    const column = (i: number) => rows.map((r) => r[i]);
    const groups: PlainValue[][] = [];
    for (let i = 0; i < groupCount; i++) {
      const boolean = isBooleanExpr(plan.groupBy[i]!, plan.source);
      groups.push(await mapInSlices(column(i), boolean ? toBoolean : toPlain));
    }
    const aggregates: (number | null)[][] = [];
    for (const [i, call] of plan.aggregates.entries()) {
      const values = column(groupCount + (hasBuckets ? 1 : 0) + i);
      if (MERGEABLE_AGGREGATES.has(call.fn) || call.fn === 'countDistinct') aggregates.push(await mapInSlices(values, toNumber));
      // An empty list is a group without values (ClickHouse has no NULL list).
      else if (call.fn === 'quantiles' || call.fn === 'distinct') aggregates.push((await mapInSlices(values, (v) => (Array.isArray(v) && v.length === 0 ? null : toPlain(v)))) as (number | null)[]);
      else aggregates.push((await mapInSlices(values, toPlain)) as (number | null)[]);
    }
    return {
      rowCount: rows.length,
      groups,
      buckets: hasBuckets ? rows.map((r) => Number(r[groupCount])) : undefined,
      aggregates,
      ...(chosen ? { resolution: chosen.resolution } : {}),
    };
  }

  async rows(plan: RowsPlan, options: QueryOptions = {}): Promise<RowsResult> {
    const result = await this.run(renderRowsPlan(plan, this.dialect, this.schema).sql, options);
    const mapCount = plan.all ? rowMapCount(plan, this.schema) : 0;
    const firstValue = plan.all ? 3 + mapCount : 1;
    const booleans = plan.columns.map((c) => isBooleanExpr(c, plan.source));
    const rows: StoredRow[] = new Array(result.length);
    for (let r = 0; r < result.length; r++) {
      if (r > 0 && r % ROWS_PER_SLICE === 0) await yieldToEventLoop();
      const row = result[r]!;
      const values: PlainValue[] = plan.columns.map((_, c) => (booleans[c] ? toBoolean : toPlain)(row[firstValue + c]));
      const timeMs = Number(row[0]);
      if (!plan.all) {
        rows[r] = { timeMs, values };
        continue;
      }
      const eventType = row[1] as string;
      const attributes: Record<string, unknown> = {};
      for (let m = mapCount - 1; m >= 0; m--) {
        const map = row[3 + m];
        if (typeof map === 'string' && map !== '') Object.assign(attributes, JSON.parse(map) as object);
      }
      const [keys, typedValues] = row[2] as [string[], unknown[]];
      const typed = typedColumnsOf(eventType);
      keys.forEach((name, i) => {
        const text = typedValues[i];
        if (text === null || text === undefined) return;
        const value = JSON.parse(text as string) as unknown;
        attributes[name] = typed[name]?.kind === 'boolean' ? value === 1 : value;
      });
      rows[r] = { timeMs, values, eventType, attributes };
    }
    return { rows };
  }

  async regexError(pattern: string): Promise<string | undefined> {
    if (this.checkedPatterns.has(pattern)) return this.checkedPatterns.get(pattern);
    let refused: string | undefined;
    try {
      await this.run(`SELECT ${this.dialect.regexFullMatch("''", this.dialect.placeholder(1, pattern))}`);
    } catch (error) {
      const message = (error as Error).message;
      if (!/re2/i.test(message)) throw error;
      // "… cannot compile re2: ^(?:<pattern>)$, error: <RE2's message>. Look at …": RE2's message, about the pattern as written.
      const wrapped = `^(?:${pattern})$`;
      const said = /error: (.*?)\. Look at/s.exec(message)?.[1] ?? message;
      refused = said.split(wrapped).join(pattern);
    }
    if (this.checkedPatterns.size >= CHECKED_PATTERNS) this.checkedPatterns.delete(this.checkedPatterns.keys().next().value!);
    this.checkedPatterns.set(pattern, refused);
    return refused;
  }

  /** Runs SQL; a timeout aborts the request and cancels the statement on the server (max_execution_time). */
  async run(sql: string, options: QueryOptions = {}): Promise<unknown[][]> {
    const budgetMs = options.deadline !== undefined ? options.deadline - performance.now() : options.timeoutMs;
    if (budgetMs !== undefined && budgetMs <= 0) throw new QueryTimeoutError(options.timeoutMs ?? 0);
    const controller = budgetMs !== undefined ? new AbortController() : undefined;
    let timedOut = false;
    const timer = budgetMs === undefined ? undefined : setTimeout(() => {
      timedOut = true;
      controller!.abort();
    }, budgetMs);
    try {
      return await this.connection.rows(sql, { ...(budgetMs !== undefined ? { timeoutMs: budgetMs } : {}), ...(controller ? { signal: controller.signal } : {}) });
    } catch (error) {
      const message = (error as Error).message ?? '';
      if (timedOut || /TIMEOUT_EXCEEDED|Timeout exceeded/.test(message)) throw new QueryTimeoutError(options.timeoutMs ?? budgetMs ?? 0);
      if (/TOO_DEEP|too deep|max_ast_depth|AST is too (deep|big)/i.test(message)) throw new QueryTooDeepError(message);
      if (error instanceof ClickHouseUnavailableError) throw new StoreUnavailableError(`The data store is unavailable: ${message}; try again shortly`);
      throw error;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }
}

function withoutTop(plan: AggregatePlan): AggregatePlan {
  if (!plan.top) return plan;
  const { top: _top, ...rest } = plan;
  return rest;
}

/** Whether an expression is a boolean in the plan's data (a 0/1 UInt8 on ClickHouse). */
function isBooleanExpr(expr: RowExpr, source: PlanSource): boolean {
  switch (expr.kind) {
    case 'literal': return typeof expr.value === 'boolean';
    case 'field': {
      const type = expr.type ?? 'number';
      if (type === 'boolean') return true;
      if (type !== 'any') return false;
      const branches = clickhouseSchema.source(source).branches;
      return branches.length > 0 && branches.every((b) => b.typed[expr.name]?.kind === 'boolean');
    }
    case 'cases': return expr.cases.every((c) => isBooleanExpr(c.then, source)) && (!expr.otherwise || isBooleanExpr(expr.otherwise, source));
    case 'coalesce': return expr.items.every((e) => isBooleanExpr(e, source));
    default: return false;
  }
}

function toNumber(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? value : Number(value);
}

function toBoolean(value: unknown): PlainValue {
  return value === null || value === undefined ? null : value === 1 || value === true || value === '1';
}

function toPlain(value: unknown): PlainValue {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(toPlain);
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}
