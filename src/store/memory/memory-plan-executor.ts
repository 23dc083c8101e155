import type { AggregatePlan, PlanSource, RowsPlan } from '../../plan/aggregate-plan.js';
import { isAgentEventType } from '../../plan/data-model.js';
import { assertNever, type AggregateCall, type Literal, type Predicate, type RowExpr, type ValueType } from '../../plan/expressions.js';
import {
  QueryTimeoutError,
  type AggregateColumns, type PlainValue, type PlanExecutor, type QueryOptions, type RowsResult, type StoredRow,
} from '../plan-executor.js';

/**
 * One stored row as the reference executor holds it: a timeslice (event type `Metric`) or an
 * event. `typed` are the attributes a table store keeps in typed columns (the internal id
 * fields of `plan/data-model.ts` included; for timeslices every field); `attributes` every
 * other attribute as sent, the first attribute map that has one (non-null) winning.
 */
export interface MemoryRow {
  readonly accountId: number;
  readonly eventType: string;
  readonly timeMs: number;
  readonly typed: Readonly<Record<string, PlainValue>>;
  readonly attributes: Readonly<Record<string, unknown>>;
}

/** SQL's three-valued logic: a comparison with NULL is neither true nor false. */
type Truth = boolean | null;

/**
 * The reference executor: runs plans over rows in memory by interpreting the plan's expressions
 * and predicates directly, one row at a time, with no SQL. It is written to be obviously right
 * rather than fast, so the query stages (analyze, execute: FACET ranking, other/total merging,
 * COMPARE WITH) can be tested without an engine, and an engine's answers compared with it.
 *
 * Value conversions follow the table stores: a typed attribute keeps its type, an attribute
 * from the maps is read as its JSON text and converted from there (`5` as text is `'5'`, as a
 * number 5; `true` as a number is NULL). Results are the seam's engine-neutral results.
 */
export class MemoryPlanExecutor implements PlanExecutor {
  constructor(private readonly rowsOf: () => readonly MemoryRow[]) {}

  static of(rows: readonly MemoryRow[]): MemoryPlanExecutor {
    return new MemoryPlanExecutor(() => rows);
  }

  async aggregate(plan: AggregatePlan, options: QueryOptions = {}): Promise<AggregateColumns> {
    checkDeadline(options);
    const rows = this.matching(plan);
    const groups = new Map<string, { keys: PlainValue[]; bucket: number | undefined; rows: MemoryRow[] }>();
    for (const row of rows) {
      const keys = plan.groupBy.map((e) => evaluate(e, row, plan.source));
      const bucket = plan.buckets ? Math.floor((row.timeMs - plan.buckets.beginMs) / plan.buckets.widthMs) : undefined;
      const key = JSON.stringify([keys.map(identity), bucket]);
      const group = groups.get(key) ?? { keys, bucket, rows: [] };
      group.rows.push(row);
      groups.set(key, group);
    }
    // Without GROUP BY, SQL answers one row even over no rows (counts 0, the rest NULL).
    if (plan.groupBy.length === 0 && !plan.buckets && groups.size === 0) groups.set('', { keys: [], bucket: undefined, rows: [] });
    const ordered = [...groups.values()].sort((a, b) => {
      for (let i = 0; i < a.keys.length; i++) {
        const c = compareForOrder(a.keys[i]!, b.keys[i]!);
        if (c !== 0) return c;
      }
      return (a.bucket ?? 0) - (b.bucket ?? 0);
    });
    return {
      rowCount: ordered.length,
      groups: plan.groupBy.map((_e, i) => ordered.map((g) => g.keys[i]!)),
      buckets: plan.buckets ? ordered.map((g) => g.bucket!) : undefined,
      aggregates: plan.aggregates.map((call) => ordered.map((g) => aggregate(call, g.rows, plan.source) as number | null)),
    };
  }

  async rows(plan: RowsPlan, options: QueryOptions = {}): Promise<RowsResult> {
    checkDeadline(options);
    const rows = this.matching(plan);
    const order = plan.orderBy.length > 0
      ? plan.orderBy.map((o) => ({ value: (row: MemoryRow) => evaluate(o.expr, row, plan.source), descending: o.descending }))
      : [{ value: (row: MemoryRow): PlainValue => row.timeMs, descending: true }];
    // A stable sort: rows equal in every key keep the order they were stored in.
    const sorted = [...rows].sort((a, b) => {
      for (const o of order) {
        const x = o.value(a);
        const y = o.value(b);
        // NULLS LAST in both directions.
        if (x === null || y === null) {
          if (x !== y) return x === null ? 1 : -1;
          continue;
        }
        const c = compareForOrder(x, y);
        if (c !== 0) return o.descending ? -c : c;
      }
      return 0;
    });
    const page = sorted.slice(plan.offset, plan.offset + plan.limit);
    return {
      rows: page.map((row): StoredRow => {
        const stored = { timeMs: row.timeMs, values: plan.columns.map((e) => evaluate(e, row, plan.source)) };
        if (!plan.all) return stored;
        const attributes: Record<string, unknown> = { ...row.attributes };
        for (const [name, value] of Object.entries(row.typed)) if (value !== null) attributes[name] = value;
        return { ...stored, eventType: row.eventType, attributes };
      }),
    };
  }

  async regexError(pattern: string): Promise<string | undefined> {
    const translated = re2Pattern(pattern);
    return 'error' in translated ? translated.error : undefined;
  }

  private matching(plan: AggregatePlan | RowsPlan): MemoryRow[] {
    const accounts = typeof plan.accountId === 'number' ? [plan.accountId] : plan.accountId;
    return this.rowsOf().filter((row) => accounts.includes(row.accountId)
      && inSource(plan.source, row.eventType)
      && row.timeMs >= plan.window.beginMs && row.timeMs < plan.window.endMs
      && test(plan.where, row, plan.source) === true);
  }
}

function checkDeadline(options: QueryOptions): void {
  if (options.deadline !== undefined && options.deadline <= performance.now()) throw new QueryTimeoutError(options.timeoutMs ?? 0);
}

function inSource(source: PlanSource, eventType: string): boolean {
  switch (source.kind) {
    case 'timeslices': return eventType === 'Metric';
    case 'events': return source.eventTypes.includes(eventType);
    case 'allCustomEvents': return eventType !== 'Metric' && !isAgentEventType(eventType);
  }
}

/**
 * An RE2 pattern as a whole-string JavaScript RegExp, or RE2's refusal for the constructs RE2
 * lacks and JavaScript has (lookaround, backreferences) and for unbalanced groups. Leading
 * `(?flags)` become the RegExp's flags; inline flags elsewhere are refused here (JavaScript
 * has no equivalent), which is this executor's limit, not RE2's.
 */
function re2Pattern(pattern: string): { regex: RegExp } | { error: string } {
  const lookaround = /\(\?(<?[=!])/.exec(pattern.replace(/\\./g, '__'));
  if (lookaround) return { error: `invalid perl operator: (?${lookaround[1]!.startsWith('<') ? '<' : lookaround[1]}` };
  const backreference = /\\[1-9]/.exec(pattern.replace(/\\\\/g, '__'));
  if (backreference) return { error: `invalid escape sequence: ${backreference[0]}` };
  const flags = /^\(\?([ims]+)\)/.exec(pattern);
  const body = flags ? pattern.slice(flags[0].length) : pattern;
  if (/\(\?[imsU-]+[:)]/.test(body.replace(/\\./g, '__'))) return { error: `flags other than a leading (?ims) are not supported in memory: ${pattern}` };
  try {
    // Compiled alone first: wrapped, a trailing backslash would escape the wrapper's `)`.
    new RegExp(body);
    return { regex: new RegExp(`^(?:${body})$`, flags?.[1] ?? '') };
  } catch (error) {
    const message = (error as Error).message;
    if (/\\ at end of pattern/.test(message)) return { error: 'trailing \\' };
    if (/Unterminated group/.test(message)) return { error: `missing ): ${pattern}` };
    if (/Unmatched '\)'/.test(message)) return { error: `unexpected ): ${pattern}` };
    return { error: message };
  }
}

// ── values ──────────────────────────────────────────────────────────────────────────────────

/** A number as SQL engines print a floating-point number (`5.0`, `0.5`). */
function doubleText(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 1e21 ? `${n}.0` : String(n);
}

/** Text that is a number (surrounding blanks allowed), as a number; anything else NULL. */
function textNumber(text: string): number | null {
  const trimmed = text.trim();
  return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed) ? Number(trimmed) : null;
}

/** `true`/`false` in any case; anything else is no boolean. */
function textBoolean(text: string): boolean | null {
  const lower = text.toLowerCase();
  return lower === 'true' ? true : lower === 'false' ? false : null;
}

/** A value of a typed attribute, as `type` wants it. */
function fromTyped(value: PlainValue, type: ValueType): PlainValue {
  if (value === null) return null;
  switch (type) {
    case 'any': return value;
    case 'number': return typeof value === 'number' ? value : typeof value === 'boolean' ? Number(value) : typeof value === 'string' ? textNumber(value) : null;
    case 'string': return typeof value === 'number' ? doubleText(value) : typeof value === 'string' ? value : String(value);
    case 'boolean': return typeof value === 'boolean' ? value : typeof value === 'string' ? textBoolean(value) : null;
    case 'json': return JSON.stringify(value);
    default: return assertNever(type);
  }
}

/** An attribute as sent (a JSON value), as `type` wants it: read as its JSON text first. */
function fromAttribute(value: unknown, type: ValueType): PlainValue {
  if (value === null || value === undefined) return null;
  if (type === 'json') return JSON.stringify(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  switch (type) {
    case 'any': case 'string': return text;
    case 'number': return textNumber(text);
    case 'boolean': return textBoolean(text);
    default: return assertNever(type);
  }
}

function readField(row: MemoryRow, name: string, type: ValueType, source: PlanSource): PlainValue {
  if (name === 'timestamp') return fromTyped(row.timeMs, type);
  if (name === 'eventType' && source.kind === 'allCustomEvents') return fromTyped(row.eventType, type);
  if (name in row.typed) return fromTyped(row.typed[name]!, type);
  return fromAttribute(row.attributes[name], type);
}

function evaluate(expr: RowExpr, row: MemoryRow, source: PlanSource): PlainValue {
  switch (expr.kind) {
    case 'field':
      return readField(row, expr.name, expr.type ?? 'number', source);
    case 'literal':
      return expr.value;
    case 'arith': {
      const left = evaluate(expr.left, row, source);
      const right = evaluate(expr.right, row, source);
      if (typeof left !== 'number' || typeof right !== 'number') return null;
      switch (expr.op) {
        case '+': return left + right;
        case '-': return left - right;
        case '*': return left * right;
        case '/': return right === 0 ? null : left / right;
        default: return assertNever(expr.op);
      }
    }
    case 'eventType':
      return row.eventType;
    case 'coalesce': {
      for (const item of expr.items) {
        const value = evaluate(item, row, source);
        if (value !== null) return value;
      }
      return null;
    }
    case 'cast': {
      const value = evaluate(expr.expr, row, source);
      if (value === null) return null;
      if (expr.to === 'json') return JSON.stringify(value);
      return typeof value === 'number' ? doubleText(value) : typeof value === 'string' ? value : JSON.stringify(value);
    }
    case 'lookup': {
      const key = evaluate(expr.expr, row, source);
      return expr.entries.find(([id]) => id === key)?.[1] ?? null;
    }
    case 'cases': {
      for (const c of expr.cases) if (test(c.when, row, source) === true) return evaluate(c.then, row, source);
      return expr.otherwise ? evaluate(expr.otherwise, row, source) : null;
    }
    default:
      return assertNever(expr);
  }
}

/** Equality and order between two non-null values, numbers against numeric text by number. */
function compareValues(a: PlainValue, b: PlainValue): number {
  if (typeof a === 'number' && typeof b === 'string') return compareValues(a, textNumber(b) ?? Number.NaN);
  if (typeof a === 'string' && typeof b === 'number') return compareValues(textNumber(a) ?? Number.NaN, b);
  if (typeof a === 'boolean' || typeof b === 'boolean') return Number(a) - Number(b);
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : a === b ? 0 : Number.NaN;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Order for ORDER BY and group output: NULL last, then by value. */
function compareForOrder(a: PlainValue, b: PlainValue): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  const c = compareValues(a, b);
  return Number.isNaN(c) ? 0 : c;
}

/** A value's identity for DISTINCT and grouping: its type and value. */
function identity(value: PlainValue): string {
  return JSON.stringify([typeof value, value]);
}

function not(t: Truth): Truth {
  return t === null ? null : !t;
}

function test(p: Predicate, row: MemoryRow, source: PlanSource): Truth {
  const value = (e: RowExpr) => evaluate(e, row, source);
  switch (p.kind) {
    case 'true':
      return true;
    case 'compare': {
      const left = value(p.left);
      const right = value(p.right);
      if (left === null || right === null) return null;
      const c = compareValues(left, right);
      if (Number.isNaN(c)) return p.op === '!=';
      switch (p.op) {
        case '=': return c === 0;
        case '!=': return c !== 0;
        case '<': return c < 0;
        case '<=': return c <= 0;
        case '>': return c > 0;
        case '>=': return c >= 0;
        default: return assertNever(p.op);
      }
    }
    case 'in': {
      const v = value(p.expr);
      if (v === null) return null;
      const found = p.values.some((item: Literal) => compareValues(v, item) === 0);
      return p.negated ? !found : found;
    }
    case 'isNull':
      return (value(p.expr) === null) !== p.negated;
    case 'isBoolean':
      return (value(p.expr) === p.value) !== p.negated;
    case 'like': {
      const v = value(p.expr);
      if (v === null) return null;
      const pattern = p.pattern.split('%').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
      const match = new RegExp(`^${pattern}$`, 'is').test(String(v));
      return p.negated ? !match : match;
    }
    case 'regex': {
      const v = value(p.expr);
      if (v === null) return null;
      const translated = re2Pattern(p.pattern);
      if ('error' in translated) throw new Error(`RLIKE: ${translated.error}`);
      const match = translated.regex.test(String(v));
      return p.negated ? !match : match;
    }
    case 'tupleIn': {
      const values = p.exprs.map(value);
      if (values.some((v) => v === null)) return null;
      const text = (v: PlainValue) => (typeof v === 'number' ? String(v) : typeof v === 'string' ? v : JSON.stringify(v));
      const key = JSON.stringify(values.map(text));
      return p.tuples.some((t) => JSON.stringify(t.map(text)) === key);
    }
    case 'and': {
      let result: Truth = true;
      for (const item of p.items) {
        const t = test(item, row, source);
        if (t === false) return false;
        if (t === null) result = null;
      }
      return result;
    }
    case 'or': {
      let result: Truth = false;
      for (const item of p.items) {
        const t = test(item, row, source);
        if (t === true) return true;
        if (t === null) result = null;
      }
      return result;
    }
    case 'not':
      return not(test(p.item, row, source));
    default:
      return assertNever(p);
  }
}

// ── aggregates ──────────────────────────────────────────────────────────────────────────────

function aggregate(call: AggregateCall, rows: readonly MemoryRow[], source: PlanSource): PlainValue {
  const taking = call.where ? rows.filter((row) => test(call.where!, row, source) === true) : rows;
  if (call.fn === 'countRows') return taking.length;
  const pairs = taking.map((row) => ({ row, value: evaluate(call.arg!, row, source) })).filter((p) => p.value !== null);
  const values = pairs.map((p) => p.value!);
  switch (call.fn) {
    case 'count':
      return values.length;
    case 'sum':
      return values.length === 0 ? null : values.reduce<number>((acc, v) => acc + (v as number), 0);
    case 'min':
    case 'max': {
      if (values.length === 0) return null;
      const sign = call.fn === 'min' ? 1 : -1;
      return values.reduce((best, v) => (sign * compareForOrder(v, best) < 0 ? v : best));
    }
    case 'countDistinct':
      return new Set(values.map(identity)).size;
    case 'distinct':
      return taking.length === 0 ? null : [...new Map(values.map((v) => [identity(v), v])).values()];
    case 'latest':
    case 'earliest': {
      if (pairs.length === 0) return null;
      const newer = call.fn === 'latest';
      return pairs.reduce((best, p) => ((newer ? p.row.timeMs > best.row.timeMs : p.row.timeMs < best.row.timeMs) ? p : best)).value;
    }
    case 'quantiles': {
      if (values.length === 0) return null;
      const sorted = [...values].sort(compareForOrder);
      // The discrete quantile: the smallest value with at least a fraction q of the values at or below it.
      return (call.fractions ?? []).map((q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))]!);
    }
    default:
      return assertNever(call.fn);
  }
}
