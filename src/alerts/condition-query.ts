import type { Condition, Expr, Query, SelectQuery } from '../nrql/ast.js';
import { evaluationStepMs, type ConditionSignal } from '../domain/alerts/alert-model.js';
import { format } from '../nrql/format.js';
import { NrqlError, positionOf } from '../nrql/nrql-error.js';
import { parse } from '../nrql/parser.js';
import type { NrqlAnswer } from '../nrql/nrql-engine.js';
import { signalKeyOf, type ConditionEvaluatorState, type WindowObservation } from '../domain/alerts/condition-evaluator.js';
import type { ConditionValidationError } from '../domain/alerts/condition-input.js';

/** Signals a condition tracks at most: its FACET LIMIT when evaluated (New Relic: 5000 facet values). */
export const MAX_SIGNALS_PER_CONDITION = 5000;
const EVENTS_ALIAS = '__timeslice_events';

/** What the evaluator needs to know about a condition's query, found once when it is saved. */
export interface ConditionQueryShape {
  readonly facets: string[];
  /** Entities pinned by `attr = 'value'` in the WHERE on an entity attribute, for alertSeverity. */
  readonly entityTargets: string[];
}

const ENTITY_ATTRIBUTES = new Set(['appName', 'entity.guid', 'entityGuid', 'entity.name', 'host', 'hostname', 'appId']);

/**
 * Checks a condition's query as New Relic does (one aggregate returning a number; no SINCE, UNTIL,
 * TIMESERIES, COMPARE WITH or LIMIT) and reads its facets. `compile` runs the NRQL analyzer over it
 * (names, functions, types), throwing NrqlError. Errors name the problem and its position.
 */
export function checkConditionQuery(text: string, compile: (text: string) => void): { shape: ConditionQueryShape; errors: [] } | { shape: null; errors: ConditionValidationError[] } {
  const fail = (reason: string, offset?: number) => {
    const at = offset === undefined ? '' : (() => {
      const p = positionOf(text, offset);
      return ` (at line ${p.line}, column ${p.column})`;
    })();
    return { shape: null, errors: [{ name: 'nrql.query', reason: `${reason}${at}` }] };
  };
  let query: Query;
  try {
    query = parse(text);
  } catch (error) {
    if (error instanceof NrqlError) return fail(error.message, error.span?.start);
    throw error;
  }
  if (query.kind !== 'select') return fail('An alert condition query must be a SELECT of one aggregate function');
  for (const [clause, present] of [
    ['SINCE', query.since],
    ['UNTIL', query.until],
    ['TIMESERIES', query.timeseries],
    ['COMPARE WITH', query.compareWith],
    ['LIMIT', query.limit],
  ] as const) {
    if (present !== undefined) return fail(`An alert condition query cannot use ${clause}: the condition's signal settings choose its time windows`);
  }
  if (query.select.length !== 1) return fail(`An alert condition query must select exactly one value but selects ${query.select.length}`, query.select[1]?.span.start);
  const item = query.select[0]!;
  if (!isAggregate(item.expr)) return fail('An alert condition query must select an aggregate function such as average(), count(*) or percentile()', item.span.start);
  try {
    compile(text);
  } catch (error) {
    if (error instanceof NrqlError) return fail(error.message, error.span?.start);
    throw error;
  }
  const facets: string[] = [];
  if (query.facet !== undefined) {
    for (const f of query.facet.items ?? []) {
      if (f.kind !== 'facetExpr' || f.expr.kind !== 'attribute') return fail('An alert condition can FACET only by attributes', f.span.start);
      facets.push(f.expr.name);
    }
  }
  return { shape: { facets, entityTargets: query.where === undefined ? [] : pinnedEntities(query.where) }, errors: [] };
}

function isAggregate(expr: Expr): boolean {
  switch (expr.kind) {
    case 'call':
      return true;
    case 'arithmetic':
    case 'coalesce':
      return isAggregate(expr.left) || isAggregate(expr.right);
    case 'negate':
      return isAggregate(expr.operand);
    default:
      return false;
  }
}

function pinnedEntities(where: Condition): string[] {
  if (where.kind === 'and') return [...pinnedEntities(where.left), ...pinnedEntities(where.right)];
  if (where.kind === 'compare' && where.op === '=' && where.left.kind === 'attribute' && ENTITY_ATTRIBUTES.has(where.left.name) && (where.right.kind === 'string' || where.right.kind === 'number')) {
    return [String(where.right.value)];
  }
  if (where.kind === 'in' && !where.negated && where.expr.kind === 'attribute' && ENTITY_ATTRIBUTES.has(where.expr.name)) {
    return where.values.flatMap((v) => (v.kind === 'string' || v.kind === 'number' ? [String(v.value)] : []));
  }
  return [];
}

/**
 * The query that reads a condition's recent windows: its own text plus an event count (to tell an
 * empty window from a zero), the windows as TIMESERIES buckets, and room for every signal.
 */
export function evaluationQuery(text: string, windowSeconds: number, slideBySeconds: number | null, fromMs: number, toMs: number): string {
  const query = parse(text);
  if (query.kind !== 'select') throw new Error('not a select');
  return evaluationQueryOf(query, windowSeconds, slideBySeconds, fromMs, toMs);
}

const COUNT_ITEM = (() => {
  const count = parse(`SELECT count(*) AS ${EVENTS_ALIAS} FROM T`);
  if (count.kind !== 'select') throw new Error('not a select');
  return count.select[0]!;
})();

/** `evaluationQuery` over a parsed query. */
export function evaluationQueryOf(query: SelectQuery, windowSeconds: number, slideBySeconds: number | null, fromMs: number, toMs: number): string {
  const withCount = format({ ...query, select: [...query.select, COUNT_ITEM] });
  const slide = slideBySeconds === null ? '' : ` SLIDE BY ${slideBySeconds} seconds`;
  return `${withCount} SINCE ${fromMs} UNTIL ${toMs} TIMESERIES ${windowSeconds} seconds${slide} LIMIT ${MAX_SIGNALS_PER_CONDITION}`;
}

/** The longest span a cycle reads for a condition (also its whole range when nothing is known of it). */
export function lookbackMs(signal: ConditionSignal): number {
  const windowMs = signal.aggregationWindow * 1000;
  const reachMs = windowMs + (signal.aggregationDelay ?? 0) * 1000 + (signal.aggregationTimer ?? 0) * 1000;
  return Math.max(5 * 60_000, 2 * windowMs + reachMs);
}

/**
 * The windows a cycle at `now` reads for a condition, [fromMs, toMs), both multiples of its step:
 * only windows that can still change its evaluation. EVENT_FLOW: the windows after those its
 * watermark closed (a closed window takes no more data, docs/alerts.md); CADENCE: the windows
 * whose wall-clock close (end + delay) is not yet past; an edit that reset evaluation: the windows
 * from the edit on. Never more than the lookback (EVENT_TIMER, and a condition with no state yet,
 * read all of it). `fromMs >= toMs` means there is nothing to read.
 */
export function readRange(signal: ConditionSignal, state: ConditionEvaluatorState | undefined, now: number): { fromMs: number; toMs: number } {
  const step = evaluationStepMs(signal);
  const windowMs = signal.aggregationWindow * 1000;
  const delayMs = (signal.aggregationDelay ?? 0) * 1000;
  const toMs = Math.floor(now / step) * step + step;
  let fromMs = Math.floor((now - lookbackMs(signal)) / step) * step;
  if (signal.aggregationMethod === 'EVENT_FLOW' && state?.watermark != null) {
    fromMs = Math.max(fromMs, Math.floor((state.watermark - windowMs - delayMs) / step) * step + step);
  }
  if (signal.aggregationMethod === 'CADENCE') fromMs = Math.max(fromMs, Math.floor((now - windowMs - delayMs) / step) * step);
  if (state?.resetAt != null) fromMs = Math.max(fromMs, Math.ceil(state.resetAt / step) * step);
  return { fromMs, toMs };
}

/** A window as a cycle read it: the observation, and how many events (or timeslice rows) it holds. */
export interface ReadWindow extends WindowObservation {
  readonly events: number;
  /** The window and signal (`<windowStart>["facet", …]`), and what it held (`<value>|<events>`). */
  readonly key: string;
  readonly mark: string;
}

export function readWindow(facets: readonly string[], windowStart: number, value: number, timestamp: number, arrivalAt: number, events: number): ReadWindow {
  return { facets, windowStart, value, timestamp, arrivalAt, events, key: `${windowStart}${signalKeyOf(facets)}`, mark: `${value}|${events}` };
}

/** Turns the answer of an evaluation query into window observations (empty windows are left out). */
export function observationsOf(answer: NrqlAnswer, facetCount: number, stepMs: number, arrivalAt: number): ReadWindow[] {
  const out: ReadWindow[] = [];
  const skip = new Set(['facet', 'beginTimeSeconds', 'endTimeSeconds', EVENTS_ALIAS, ...(answer.metadata.facets ?? [])]);
  for (const row of answer.results) {
    const record = row as Record<string, unknown>;
    const events = Number(record[EVENTS_ALIAS] ?? 0);
    if (events <= 0) continue;
    const begin = Number(record.beginTimeSeconds) * 1000;
    const facets = facetCount === 0 ? [] : Array.isArray(record.facet) ? record.facet.map(String) : [String(record.facet)];
    const value = valueOf(record, skip);
    if (value === null) continue;
    out.push(readWindow(facets, Math.floor(begin / stepMs) * stepMs, value, begin, arrivalAt, events));
  }
  return out;
}

function valueOf(record: Record<string, unknown>, skip: ReadonlySet<string>): number | null {
  for (const [key, raw] of Object.entries(record)) {
    if (skip.has(key)) continue;
    if (typeof raw === 'number') return raw;
    if (raw !== null && typeof raw === 'object') {
      // apdex() answers {score, s, t, f, count}: a condition on it watches the score.
      const score = (raw as Record<string, unknown>).score;
      if (typeof score === 'number') return score;
      const inner = Object.values(raw as Record<string, unknown>).find((v) => typeof v === 'number');
      if (typeof inner === 'number') return inner;
    }
    return null;
  }
  return null;
}
