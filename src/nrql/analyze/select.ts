import { AggregateSet, type AggregateAdder, type Buckets, type PlanSource } from '../../plan/aggregate-plan.js';
import { and, assertNever, field, out, type OutputExpr, type Predicate, type RowExpr } from '../../plan/expressions.js';
import { TIMESLICE_VALUE } from '../../domain/aggregate/timeslice-value.js';
import { DIMENSIONAL_METRICS, isDimensionalName } from '../dimensional-metrics.js';
import { isAgentEventType } from '../../plan/data-model.js';
import type { Expr, FacetItem, SelectQuery, Span } from '../ast.js';
import type { NrqlDictionaries } from '../dictionaries.js';
import { formatCondition, formatExpr } from '../format.js';
import { aggregateFunction, type LowerContext, type LoweredAggregate } from '../functions.js';
import { NrqlError } from '../nrql-error.js';
import { resolveBuckets, resolveCompareWindow, resolveTimeWindow } from '../time-window.js';
import type { AnalyzeContext, AnalyzedQuery, AnalyzedRows, FacetKey, QueryWindow, ResultColumn, RowColumn } from './analyzed-query.js';
import { Bindings, invalid, unknownFunction } from './bindings.js';
import { Conditions } from './conditions.js';

export const DEFAULT_FACET_LIMIT = 10;
export const DEFAULT_ROW_LIMIT = 100;
export const MAX_LIMIT = 5000;
export const MAX_FACETS = 5;


/** No names to look up: a formula names no application, host or metric. */
const NO_DICTIONARIES: NrqlDictionaries = { entries: () => [], decode: () => null, idOf: () => undefined };
const NO_SPAN: Span = { start: 0, end: 0 };

/** A formula's rows are custom events of several types read at once: `eventType()` is each row's type. */
export const ALL_CUSTOM_EVENTS = '*';

/**
 * Lowers one aggregate expression over rows of `eventType` (a formula: a REST value, a summary
 * number) through the same function table and bindings as a query selecting it. The formula's
 * rows are chosen by its caller's plan: `apdex(newrelic.timeslice.value)` reads them as they are.
 */
export function lowerFormula(expr: Expr, eventType: string, set: AggregateAdder): LoweredAggregate {
  const query: SelectQuery = { kind: 'select', select: [{ expr, span: NO_SPAN }], from: [{ name: eventType, span: NO_SPAN }], extrapolate: false, span: NO_SPAN };
  return new SelectAnalyzer(query, { accountIds: [], nowMs: 0, dictionaries: NO_DICTIONARIES }, eventType === ALL_CUSTOM_EVENTS ? 'allCustomEvents' : 'one').formula(expr, set);
}

/** A SELECT query: its window, its aggregates (or rows), facets, buckets and limits. */
export class SelectAnalyzer {
  private readonly timeslices: boolean;
  private readonly inFormula: boolean;
  private singleWindowEndMs: number | undefined;
  private readonly bindings: Bindings;
  private readonly conditions: Conditions;

  /** `formulaRows`: the expression of a formula over one event type, or over every custom event. */
  constructor(private readonly query: SelectQuery, private readonly ctx: AnalyzeContext, formulaRows?: 'one' | 'allCustomEvents') {
    this.inFormula = formulaRows !== undefined;
    const types = dedupe(query.from.map((t) => t.name));
    this.timeslices = types.includes('Metric');
    if (this.timeslices && types.length > 1) {
      const other = query.from.find((t) => t.name !== 'Metric')!;
      throw invalid('Metric timeslice data cannot be queried together with other event types', other.span);
    }
    // Agent events hold their application and host as catalog ids; custom events (Event API,
    // change tracking) carry such attributes in their own attribute map.
    const catalogAttributes = !this.timeslices && types.every(isAgentEventType);
    this.bindings = new Bindings(ctx, this.timeslices, catalogAttributes, formulaRows === 'allCustomEvents');
    this.conditions = new Conditions(this.bindings);
  }

  analyze(): AnalyzedQuery {
    const q = this.query;
    const source: PlanSource = this.timeslices ? { kind: 'timeslices' } : { kind: 'events', eventTypes: dedupe(q.from.map((t) => t.name)) };
    let window: QueryWindow = resolveTimeWindow({
      ...(q.since ? { since: q.since } : {}), ...(q.until ? { until: q.until } : {}), ...(q.timezone ? { timezone: q.timezone, timezoneSpan: q.clauseSpans?.timezone ?? q.span } : {}),
    }, this.ctx.nowMs);
    let buckets: Buckets | undefined;
    if (q.timeseries) {
      if (q.timeseries.slideBy) throw new NrqlError('NRQL_UNSUPPORTED', 'TIMESERIES … SLIDE BY is not supported by Timeslice\'s NRQL subset', q.timeseries.span);
      buckets = resolveBuckets(window, q.timeseries.size, q.timeseries.span);
      if (buckets.widthMs < 1000) {
        throw new NrqlError('NRQL_INVALID_EXPRESSION', 'TIMESERIES buckets are at least 1 second wide (results give their bounds in whole seconds)', q.timeseries.span);
      }
      window = { ...window, beginMs: buckets.beginMs, endMs: buckets.beginMs + buckets.count * buckets.widthMs };
    }
    if (q.metricFormat !== undefined) {
      throw new NrqlError('NRQL_UNSUPPORTED', 'WITH METRIC_FORMAT is not supported by Timeslice\'s NRQL subset; match metricTimesliceName with LIKE or RLIKE instead', q.clauseSpans?.metricFormat ?? q.span);
    }
    if (q.compareWith && !q.since && !q.until) {
      throw new NrqlError('NRQL_INVALID_EXPRESSION', 'COMPARE WITH needs a SINCE or UNTIL clause to compare with', q.clauseSpans?.compareWith ?? q.span);
    }
    const compare = q.compareWith
      ? (() => {
        const resolved = resolveCompareWindow(window, q.compareWith!, q.clauseSpans?.compareWith ?? q.span);
        return { window: { beginMs: resolved.beginMs, endMs: resolved.endMs }, text: resolved.compareWith };
      })()
      : undefined;
    // One group's window, the query's own: what predictLinear() predicts beyond (not per bucket or compared window).
    this.singleWindowEndMs = q.timeseries || compare ? undefined : window.endMs;
    const where = q.where ? this.conditions.condition(q.where) : ({ kind: 'true' } as Predicate);
    const common: Omit<AnalyzedRows, 'kind' | 'columns' | 'all' | 'orderBy' | 'limit' | 'offset'> & { where: Predicate } = {
      source, accountIds: this.ctx.accountIds, window, where, eventTypes: source.kind === 'events' ? source.eventTypes : ['Metric'],
      // Filled in at the end: aggregates' filter() conditions add patterns too.
      regexPatterns: [],
      ...(compare ? { compare } : {}),
    };
    if (q.limit !== undefined && q.limit !== 'max' && q.limit > MAX_LIMIT) {
      throw new NrqlError('NRQL_LIMIT_EXCEEDED', `LIMIT is at most ${MAX_LIMIT} (or MAX); ${q.limit} was asked`, q.clauseSpans?.limit ?? q.span);
    }

    const aggregateItems = q.select.filter((item) => this.isAggregate(item.expr));
    if (aggregateItems.length === 0) return this.rows(common);
    if (aggregateItems.length !== q.select.length) {
      const plain = q.select.find((item) => !this.isAggregate(item.expr))!;
      throw invalid('a query selects either aggregates or attributes, not both: aggregate this attribute or FACET by it', plain.span);
    }

    const set = new AggregateSet();
    const columns: ResultColumn[] = [];
    let rankBy: OutputExpr | undefined;
    const loweredItems = q.select.map((item) => this.aggregateExpr(item.expr, set));
    // Unaliased items whose fallback keys collide (`rate`, `filter.count`) are keyed by their text instead.
    const fallbackKeys = q.select.map((item, i) => (item.alias === undefined ? loweredItems[i]!.key : undefined));
    const collides = (key: string | undefined) => key !== undefined && fallbackKeys.filter((k) => k === key).length > 1;
    for (const [i, item] of q.select.entries()) {
      const lowered = loweredItems[i]!;
      columns.push({
        key: item.alias ?? (collides(fallbackKeys[i]) ? formatExpr(item.expr) : lowered.key),
        output: lowered.output,
        ...(lowered.decode ? { decode: lowered.decode } : {}),
        ...(lowered.listLimit !== undefined ? { listLimit: lowered.listLimit } : {}),
      });
      if (rankBy === undefined) rankBy = lowered.rank === 'value' ? rankingOutput(lowered.output) : undefined;
    }
    const facets = q.facet ? this.facets(q.facet.items, q.facet.span) : [];
    if (q.facet?.orderBy) {
      if (!this.isAggregate(q.facet.orderBy)) throw invalid('FACET … ORDER BY takes an aggregate such as count(*)', q.facet.orderBy.span);
      rankBy = rankingOutput(this.aggregateExpr(q.facet.orderBy, set).output);
    }
    // Without FACET nothing is ranked: no extra aggregate.
    if (facets.length > 0) rankBy ??= out.aggregate(set.add({ fn: 'countRows' }));
    const facetLimit = q.limit === undefined ? DEFAULT_FACET_LIMIT : q.limit === 'max' ? MAX_LIMIT : q.limit;
    // Without FACET, when every aggregate is a filter(), rows matching none of the filters change
    // nothing: the filters' union joins WHERE, so the engine reads only those rows.
    const filters = set.all.map((call) => call.where);
    if (facets.length === 0 && filters.length > 0 && filters.every((w) => w !== undefined)) {
      const distinct = [...new Map(filters.map((w) => [JSON.stringify(w), w!])).values()];
      common.where = and(common.where, distinct.length === 1 ? distinct[0]! : { kind: 'or', items: distinct });
    }
    const presence = facets.length > 0 && !this.timeslices ? firstAggregateArgument(q.select[0]!.expr) : undefined;
    // Read as the function reads it (a number for average…), so it is the count that function already needs.
    const facetPresence = presence ? set.add({ fn: 'count', arg: this.bindings.row(presence.arg, presence.numeric ? 'number' : 'any').expr }) : undefined;
    return {
      kind: 'aggregate', ...common, aggregates: set.all, columns, ...(buckets ? { buckets } : {}), facets, facetLimit,
      ...(rankBy ? { rankBy } : {}),
      ...(facetPresence !== undefined ? { facetPresence } : {}),
      regexPatterns: this.conditions.patternList(),
    };
  }

  private rows(common: Omit<AnalyzedRows, 'kind' | 'columns' | 'all' | 'orderBy' | 'limit' | 'offset'>): AnalyzedRows {
    const q = this.query;
    if (q.facet) throw invalid('FACET needs aggregates in SELECT, such as count(*)', q.facet.span);
    if (q.timeseries) throw invalid('TIMESERIES needs aggregates in SELECT, such as count(*)', q.timeseries.span);
    const all = q.select.some((item) => item.expr.kind === 'star');
    const columns: RowColumn[] = q.select.filter((item) => item.expr.kind !== 'star').map((item) => {
      const resolved = this.bindings.row(item.expr, 'json');
      return { key: item.alias ?? resultName(item.expr), expr: resolved.expr, ...(resolved.decode ? { decode: resolved.decode } : {}) };
    });
    const severalTypes = common.source.kind === 'events' && common.source.eventTypes.length > 1;
    const orderBy = (q.orderBy ?? []).flatMap((o) => {
      const resolved = this.bindings.row(o.expr, 'any');
      // Names kept as ids sort by their text: looked up in SQL for the small dictionaries.
      // Anything else sorts as a number where it is one, then as text (`2` before `10`, numbers before words).
      const keys = resolved.decode ? [this.bindings.lookup(resolved, o.expr.span)] : [this.bindings.row(o.expr, 'number').expr, this.bindings.row(o.expr, 'string').expr];
      // A constant (`ORDER BY 1`, an attribute the source cannot have) orders nothing.
      return keys.filter((expr) => varies(expr, severalTypes)).map((expr) => ({ expr, descending: o.descending }));
    });
    const limit = q.limit === undefined ? DEFAULT_ROW_LIMIT : q.limit === 'max' ? MAX_LIMIT : q.limit;
    return { kind: 'rows', ...common, columns, all, orderBy, limit, offset: q.offset ?? 0, regexPatterns: this.conditions.patternList() };
  }

  private facets(items: readonly FacetItem[], span: Span): FacetKey[] {
    if (items.length > MAX_FACETS) throw new NrqlError('NRQL_LIMIT_EXCEEDED', `FACET takes at most ${MAX_FACETS} attributes; ${items.length} were given`, span);
    return items.map((item) => {
      if (item.kind === 'facetCases') {
        const cases = item.cases.map((c) => ({ when: this.conditions.condition(c.condition), then: { kind: 'literal', value: c.label ?? formatCondition(c.condition) } as RowExpr }));
        const otherwise = item.otherwise ? this.bindings.row(item.otherwise, 'string') : undefined;
        // Beside the case labels the attribute must be text in SQL too: its names are looked up there.
        const otherwiseExpr = otherwise?.decode ? this.bindings.lookup(otherwise, item.otherwise!.span) : otherwise?.expr;
        return { label: 'facet', expr: { kind: 'cases', cases, ...(otherwiseExpr ? { otherwise: otherwiseExpr } : {}) } };
      }
      if (this.isAggregate(item.expr)) throw invalid('FACET takes attributes, not aggregates', item.expr.span);
      const resolved = this.bindings.row(item.expr, 'any');
      const label = item.alias ?? resultName(item.expr);
      return { label, expr: resolved.expr, ...(resolved.decode ? { decode: resolved.decode } : {}) };
    });
  }

  // ── aggregates ────────────────────────────────────────────────────────────────────────────

  /** An aggregate item: it calls an aggregate function, or it is a constant beside aggregates (`0.1 AS 'threshold'`). */
  private isAggregate(expr: Expr): boolean {
    return callsAggregate(expr) || (isConstant(expr) && this.query.select.some((item) => callsAggregate(item.expr)));
  }

  formula(expr: Expr, set: AggregateAdder): LoweredAggregate {
    if (!this.isAggregate(expr)) throw invalid('a formula is an aggregate expression such as count(*)', expr.span);
    return this.aggregateExpr(expr, set);
  }

  private aggregateExpr(expr: Expr, set: AggregateAdder): LoweredAggregate {
    switch (expr.kind) {
      case 'number':
        return { output: out.number(expr.value), key: formatExpr(expr), rank: 'frequency' };
      case 'negate': {
        const inner = this.aggregateExpr(expr.operand, set);
        return { output: out.arith('*', out.number(-1), inner.output), key: formatExpr(expr), rank: inner.rank };
      }
      case 'arithmetic': {
        const left = this.aggregateExpr(expr.left, set);
        const right = this.aggregateExpr(expr.right, set);
        // `average(x) * 1000` ranks facets as average(x) would.
        const rank = expr.left.kind === 'number' ? right.rank : left.rank;
        return { output: out.arith(expr.op, left.output, right.output), key: formatExpr(expr), rank };
      }
      case 'call': {
        const fn = aggregateFunction(expr.name);
        if (!fn) throw unknownFunction(expr.name, expr.span);
        if (expr.args.length < fn.minArgs || expr.args.length > fn.maxArgs) {
          const expected = fn.minArgs === fn.maxArgs ? `${fn.minArgs}` : `${fn.minArgs} to ${fn.maxArgs}`;
          throw new NrqlError('NRQL_BAD_ARGUMENTS', `${fn.name}() takes ${expected} argument${fn.maxArgs === 1 ? '' : 's'}; ${expr.args.length} given`, expr.span);
        }
        const dimensional = this.dimensionalArgument(expr);
        if (dimensional) {
          // The same function over the timeslice value, narrowed to the metrics the name derives from.
          const [first, ...rest] = expr.args;
          const args = [{ kind: 'attribute', name: TIMESLICE_VALUE, span: first!.span } as Expr, ...rest];
          const lowered = fn.lower(args, { name: fn.name, span: expr.span }, this.lowerContext(), set.filtered(dimensional.points));
          return { ...lowered, key: lowered.key.replace(TIMESLICE_VALUE, dimensional.name) };
        }
        return fn.lower(expr.args, { name: fn.name, span: expr.span }, this.lowerContext(), set);
      }
      default:
        throw invalid(`${formatExpr(expr)} is not an aggregate; wrap it in one, such as latest(${formatExpr(expr)})`, expr.span);
    }
  }

  private lowerContext(): LowerContext {
    return {
      source: this.timeslices ? 'timeslices' : 'events',
      row: (expr, type) => this.bindings.row(expr, type),
      condition: (c) => this.conditions.condition(c),
      isTimesliceValue: (expr) => this.bindings.isValue(expr),
      aggregate: (expr, set) => {
        if (!this.isAggregate(expr) || expr.kind === 'number') throw invalid('expected an aggregate function such as count(*)', expr.span);
        return this.aggregateExpr(expr, set);
      },
      text: (expr) => formatExpr(expr),
      ...(this.inFormula ? {} : { apdexMetrics: () => this.bindings.dictionaryPredicate({ dictionary: 'metricName', idField: 'metricId' }, (name: string) => APDEX_METRIC.test(name)) }),
      nowMs: this.ctx.nowMs,
      ...(this.singleWindowEndMs !== undefined ? { windowEndMs: this.singleWindowEndMs } : {}),
    };
  }

  /**
   * A call whose first argument names one of New Relic's dimensional APM metrics on FROM Metric
   * (`average(apm.service.transaction.duration)`): its name and the timeslices it derives from. A
   * name under `apm.` Timeslice does not map is refused here, naming the ones it does.
   */
  private dimensionalArgument(call: Extract<Expr, { kind: 'call' }>): { name: string; points: Predicate } | undefined {
    const first = call.args[0];
    if (!this.timeslices || this.inFormula || !first || first.kind !== 'attribute' || !isDimensionalName(first.name)) return undefined;
    const metric = DIMENSIONAL_METRICS.get(first.name);
    if (!metric) {
      throw new NrqlError('NRQL_UNSUPPORTED',
        `${first.name} is not a dimensional metric Timeslice maps onto timeslices; it maps ${[...DIMENSIONAL_METRICS.keys()].join(', ')} ` +
        `(or query the timeslices: newrelic.timeslice.value WHERE metricTimesliceName = '…')`, first.span);
    }
    // Unscoped timeslices only: a scoped one is the same calls again, counted within a transaction.
    const unscoped: Predicate = { kind: 'compare', op: '=', left: field('scopeId'), right: { kind: 'literal', value: 0 } };
    // Per transaction when the query names transactionName, so its facets split the application's calls.
    const matches = metric.perTransaction && namesAttribute(this.query, 'transactionName') ? metric.perTransaction : metric.matches;
    return { name: first.name, points: and(this.bindings.dictionaryPredicate({ dictionary: 'metricName', idField: 'metricId' }, matches), unscoped) };
  }
}

/** Whether an attribute of this name appears anywhere in the query (select, WHERE, FACET, ORDER BY…). */
function namesAttribute(node: unknown, name: string): boolean {
  if (Array.isArray(node)) return node.some((item) => namesAttribute(item, name));
  if (node === null || typeof node !== 'object') return false;
  const record = node as Record<string, unknown>;
  if (record['kind'] === 'attribute' && record['name'] === name) return true;
  return Object.values(record).some((value) => namesAttribute(value, name));
}

/** Metrics whose timeslices are Apdex counts: `Apdex`, `Apdex/…`, `EndUser/Apdex`… */
const APDEX_METRIC = /(^|\/)Apdex(\/|$)/;

/** Whether a row expression can differ between rows (reads a field, or the event type across several types). */
function varies(expr: RowExpr, severalTypes: boolean): boolean {
  switch (expr.kind) {
    case 'field': return true;
    case 'literal': return false;
    case 'eventType': return severalTypes;
    case 'arith': return varies(expr.left, severalTypes) || varies(expr.right, severalTypes);
    case 'coalesce': return expr.items.some((e) => varies(e, severalTypes));
    case 'lookup': case 'cast': return varies(expr.expr, severalTypes);
    case 'cases': return true;
    default: return assertNever(expr);
  }
}

const NUMERIC_FUNCTIONS = new Set(['sum', 'average', 'min', 'max', 'stddev', 'percentile', 'median', 'apdex']);

function callsAggregate(expr: Expr): boolean {
  switch (expr.kind) {
    case 'call': return aggregateFunction(expr.name) !== undefined;
    case 'arithmetic': case 'coalesce': return callsAggregate(expr.left) || callsAggregate(expr.right);
    case 'negate': return callsAggregate(expr.operand);
    default: return false;
  }
}

function isConstant(expr: Expr): boolean {
  switch (expr.kind) {
    case 'number': return true;
    case 'arithmetic': return isConstant(expr.left) && isConstant(expr.right);
    case 'negate': return isConstant(expr.operand);
    default: return false;
  }
}

/** The attribute the first aggregate of a select item reads (`duration` of `average(duration) * 1000`). */
function firstAggregateArgument(expr: Expr): { arg: Expr; numeric: boolean } | undefined {
  switch (expr.kind) {
    case 'call': {
      const fn = aggregateFunction(expr.name);
      if (!fn) return undefined;
      const [first] = expr.args;
      if (!first || first.kind === 'whereArg' || first.kind === 'namedArg' || first.kind === 'star') return undefined;
      if (first.kind === 'call' && aggregateFunction(first.name)) return firstAggregateArgument(first);
      return { arg: first, numeric: NUMERIC_FUNCTIONS.has(fn.name) };
    }
    case 'arithmetic': case 'coalesce':
      return firstAggregateArgument(expr.left) ?? firstAggregateArgument(expr.right);
    case 'negate':
      return firstAggregateArgument(expr.operand);
    default:
      return undefined;
  }
}

/** The key a row or facet value is shown under: an attribute's name, `eventType`, else the expression's text. */
function resultName(expr: Expr): string {
  if (expr.kind === 'attribute') return expr.name;
  if (expr.kind === 'call' && expr.name.toLowerCase() === 'eventtype') return 'eventType';
  return formatExpr(expr);
}

/** The number facets rank by: the first value of an object output (a percentile), else the output. */
function rankingOutput(output: OutputExpr): OutputExpr {
  return output.kind === 'object' ? output.entries[0]![1] : output;
}

function dedupe<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
