import { AggregateSet, type AggregateAdder, type Buckets, type PlanSource, type RowOrder, type TimeWindow } from '../plan/aggregate-plan.js';
import { and, assertNever, field, out, rowArith, type AggregateCall, type Literal, type OutputExpr, type Predicate, type RowExpr, type ValueType } from '../plan/expressions.js';
import { TIMESLICE_VALUE, TIMESLICE_VALUE_FIELDS, type PointExpr, type TimesliceValueField } from '../domain/aggregate/timeslice-function.js';
import { EVENT_ID_FIELDS, isAgentEventType } from '../plan/data-model.js';
import type { Condition, Expr, FacetItem, Query, SelectQuery, Span } from './ast.js';
import type { DictionaryName, NrqlDictionaries } from './dictionaries.js';
import { formatCondition, formatExpr } from './format.js';
import { AGGREGATE_FUNCTIONS, KNOWN_FUNCTION_NAMES, UNSUPPORTED_FUNCTIONS, aggregateFunction, type LowerContext, type LoweredAggregate, type ResolvedRow } from './functions.js';
import { closestMatch, NrqlError } from './nrql-error.js';
import { resolveBuckets, resolveCompareWindow, resolveTimeWindow } from './time-window.js';

/** The spec's name for the timeslice value; New Relic's is `newrelic.timeslice.value`. */
export const SPEC_TIMESLICE_VALUE = 'service.timeslice.value';
export const DEFAULT_FACET_LIMIT = 10;
export const DEFAULT_ROW_LIMIT = 100;
export const MAX_LIMIT = 5000;
export const MAX_FACETS = 5;
/** The most names a dictionary attribute may have to be looked up inside SQL. */
const MAX_LOOKUP_ENTRIES = 10_000;

export interface AnalyzeContext {
  readonly accountIds: readonly number[];
  readonly nowMs: number;
  readonly dictionaries: NrqlDictionaries;
}

/** The query's window, and the texts `metadata.timeWindow` shows. */
export interface QueryWindow extends TimeWindow {
  readonly since: string;
  readonly until: string;
}

export interface ResultColumn {
  readonly key: string;
  readonly output: OutputExpr;
  readonly decode?: DictionaryName;
  readonly listLimit?: number;
}

export interface FacetKey {
  /** The name `metadata.facets` lists and the extra key beside `facet` in a row. */
  readonly label: string;
  readonly expr: RowExpr;
  readonly decode?: DictionaryName;
}

interface Common {
  readonly source: PlanSource;
  readonly accountIds: readonly number[];
  readonly window: QueryWindow;
  readonly where: Predicate;
  readonly eventTypes: readonly string[];
  /** COMPARE WITH: the earlier window and its metadata text. */
  readonly compare?: { readonly window: TimeWindow; readonly text: string };
  /** RLIKE patterns (and where each is written), to be checked by the SQL engine's regex library before the query runs. */
  readonly regexPatterns: readonly { readonly pattern: string; readonly span: Span }[];
}

/** Aggregates, optionally per facet and per time bucket. */
export interface AnalyzedAggregate extends Common {
  readonly kind: 'aggregate';
  readonly aggregates: readonly AggregateCall[];
  readonly columns: readonly ResultColumn[];
  readonly buckets?: Buckets;
  readonly facets: readonly FacetKey[];
  readonly facetLimit: number;
  /** With FACET: what ranks facets, an output over the aggregates (descending), or the number of rows. */
  readonly rankBy?: OutputExpr;
  /**
   * The aggregate counting rows where the first aggregate's attribute has a value: only facets
   * with such rows are listed (the rest count in otherResult).
   */
  readonly facetPresence?: number;
}

export interface RowColumn {
  readonly key: string;
  readonly expr: RowExpr;
  readonly decode?: DictionaryName;
}

/** Event rows (`SELECT *`, attribute lists). */
export interface AnalyzedRows extends Common {
  readonly kind: 'rows';
  readonly columns: readonly RowColumn[];
  /** `SELECT *` (alone or beside other items): every attribute of each row. */
  readonly all: boolean;
  readonly orderBy: readonly RowOrder[];
  readonly limit: number;
  readonly offset: number;
}

export interface AnalyzedShowEventTypes {
  readonly kind: 'showEventTypes';
  readonly accountIds: readonly number[];
  readonly window: QueryWindow;
}

export type AnalyzedQuery = AnalyzedAggregate | AnalyzedRows | AnalyzedShowEventTypes;

/**
 * Attributes of `Metric` timeslices: where each lives in the timeslice source. Everything else
 * a Metric query names does not exist on timeslices and reads as null.
 */
type Binding =
  | { readonly kind: 'field'; readonly name: string; readonly numericId?: boolean }
  | { readonly kind: 'dictionary'; readonly idField: string; readonly dictionary: DictionaryName }
  /** An entity attribute of custom events: the event's own attribute, else the catalog's (when it has an id). */
  | { readonly kind: 'ownOrCatalog'; readonly name: string; readonly catalog: Binding }
  | { readonly kind: 'value' }
  | { readonly kind: 'missing' };

const METRIC_ATTRIBUTES: Readonly<Record<string, Binding>> = {
  appId: { kind: 'field', name: 'appId', numericId: true },
  appName: { kind: 'dictionary', idField: 'appId', dictionary: 'appName' },
  'entity.name': { kind: 'dictionary', idField: 'appId', dictionary: 'appName' },
  'entity.guid': { kind: 'dictionary', idField: 'appId', dictionary: 'entityGuid' },
  host: { kind: 'dictionary', idField: 'hostId', dictionary: 'hostName' },
  realAgentId: { kind: 'field', name: 'instanceId', numericId: true },
  metricTimesliceName: { kind: 'dictionary', idField: 'metricId', dictionary: 'metricName' },
  scope: { kind: 'dictionary', idField: 'scopeId', dictionary: 'scopeName' },
  [TIMESLICE_VALUE]: { kind: 'value' },
  [SPEC_TIMESLICE_VALUE]: { kind: 'value' },
  timestamp: { kind: 'field', name: 'timestamp' },
};

/** Attributes agent events carry as catalog ids (New Relic adds them to every event of an entity). */
const AGENT_EVENT_ATTRIBUTES: Readonly<Record<string, Binding>> = {
  appId: { kind: 'field', name: EVENT_ID_FIELDS.appId, numericId: true },
  appName: { kind: 'dictionary', idField: EVENT_ID_FIELDS.appId, dictionary: 'appName' },
  'entity.name': { kind: 'dictionary', idField: EVENT_ID_FIELDS.appId, dictionary: 'appName' },
  'entity.guid': { kind: 'dictionary', idField: EVENT_ID_FIELDS.appId, dictionary: 'entityGuid' },
  host: { kind: 'dictionary', idField: EVENT_ID_FIELDS.hostId, dictionary: 'hostName' },
  realAgentId: { kind: 'field', name: EVENT_ID_FIELDS.instanceId, numericId: true },
};

const invalid = (message: string, span: Span) => new NrqlError('NRQL_INVALID_EXPRESSION', message, span);

/** Checks a parsed query against the data model and resolves it into what the planner needs. */
export function analyze(query: Query, ctx: AnalyzeContext): AnalyzedQuery {
  if (query.kind === 'showEventTypes') {
    const window = resolveTimeWindow({ ...(query.since ? { since: query.since } : {}), ...(query.until ? { until: query.until } : {}) }, ctx.nowMs);
    return { kind: 'showEventTypes', accountIds: ctx.accountIds, window };
  }
  return new SelectAnalyzer(query, ctx).analyze();
}

class SelectAnalyzer {
  private readonly timeslices: boolean;
  private readonly catalogAttributes: boolean;

  constructor(private readonly query: SelectQuery, private readonly ctx: AnalyzeContext) {
    const types = dedupe(query.from.map((t) => t.name));
    this.timeslices = types.includes('Metric');
    if (this.timeslices && types.length > 1) {
      const other = query.from.find((t) => t.name !== 'Metric')!;
      throw invalid('Metric timeslice data cannot be queried together with other event types', other.span);
    }
    // Agent events hold their application and host as catalog ids; custom events (Event API,
    // change tracking) carry such attributes in their own attribute map.
    this.catalogAttributes = !this.timeslices && types.every(isAgentEventType);
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
    const where = q.where ? this.condition(q.where) : ({ kind: 'true' } as Predicate);
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
    const facetPresence = presence ? set.add({ fn: 'count', arg: this.row(presence.arg, presence.numeric ? 'number' : 'any').expr }) : undefined;
    return {
      kind: 'aggregate', ...common, aggregates: set.all, columns, ...(buckets ? { buckets } : {}), facets, facetLimit,
      ...(rankBy ? { rankBy } : {}),
      ...(facetPresence !== undefined ? { facetPresence } : {}),
      regexPatterns: this.patternList(),
    };
  }

  private rows(common: Omit<AnalyzedRows, 'kind' | 'columns' | 'all' | 'orderBy' | 'limit' | 'offset'>): AnalyzedRows {
    const q = this.query;
    if (q.facet) throw invalid('FACET needs aggregates in SELECT, such as count(*)', q.facet.span);
    if (q.timeseries) throw invalid('TIMESERIES needs aggregates in SELECT, such as count(*)', q.timeseries.span);
    const all = q.select.some((item) => item.expr.kind === 'star');
    const columns: RowColumn[] = q.select.filter((item) => item.expr.kind !== 'star').map((item) => {
      const resolved = this.row(item.expr, 'json');
      return { key: item.alias ?? resultName(item.expr), expr: resolved.expr, ...(resolved.decode ? { decode: resolved.decode } : {}) };
    });
    const severalTypes = common.source.kind === 'events' && common.source.eventTypes.length > 1;
    const orderBy = (q.orderBy ?? []).flatMap((o) => {
      const resolved = this.row(o.expr, 'any');
      // Names kept as ids sort by their text: looked up in SQL for the small dictionaries.
      // Anything else sorts as a number where it is one, then as text (`2` before `10`, numbers before words).
      const keys = resolved.decode ? [this.lookup(resolved, o.expr.span)] : [this.row(o.expr, 'number').expr, this.row(o.expr, 'string').expr];
      // A constant (`ORDER BY 1`, an attribute the source cannot have) orders nothing.
      return keys.filter((expr) => varies(expr, severalTypes)).map((expr) => ({ expr, descending: o.descending }));
    });
    const limit = q.limit === undefined ? DEFAULT_ROW_LIMIT : q.limit === 'max' ? MAX_LIMIT : q.limit;
    return { kind: 'rows', ...common, columns, all, orderBy, limit, offset: q.offset ?? 0, regexPatterns: this.patternList() };
  }

  private facets(items: readonly FacetItem[], span: Span): FacetKey[] {
    if (items.length > MAX_FACETS) throw new NrqlError('NRQL_LIMIT_EXCEEDED', `FACET takes at most ${MAX_FACETS} attributes; ${items.length} were given`, span);
    return items.map((item) => {
      if (item.kind === 'facetCases') {
        const cases = item.cases.map((c) => ({ when: this.condition(c.condition), then: { kind: 'literal', value: c.label ?? formatCondition(c.condition) } as RowExpr }));
        const otherwise = item.otherwise ? this.row(item.otherwise, 'string') : undefined;
        // Beside the case labels the attribute must be text in SQL too: its names are looked up there.
        const otherwiseExpr = otherwise?.decode ? this.lookup(otherwise, item.otherwise!.span) : otherwise?.expr;
        return { label: 'facet', expr: { kind: 'cases', cases, ...(otherwiseExpr ? { otherwise: otherwiseExpr } : {}) } };
      }
      if (this.isAggregate(item.expr)) throw invalid('FACET takes attributes, not aggregates', item.expr.span);
      const resolved = this.row(item.expr, 'any');
      const label = item.alias ?? resultName(item.expr);
      return { label, expr: resolved.expr, ...(resolved.decode ? { decode: resolved.decode } : {}) };
    });
  }

  // ── aggregates ────────────────────────────────────────────────────────────────────────────

  /** An aggregate item: it calls an aggregate function, or it is a constant beside aggregates (`0.1 AS 'threshold'`). */
  private isAggregate(expr: Expr): boolean {
    return callsAggregate(expr) || (isConstant(expr) && this.query.select.some((item) => callsAggregate(item.expr)));
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
        if (!fn) throw this.unknownFunction(expr.name, expr.span);
        if (expr.args.length < fn.minArgs || expr.args.length > fn.maxArgs) {
          const expected = fn.minArgs === fn.maxArgs ? `${fn.minArgs}` : `${fn.minArgs} to ${fn.maxArgs}`;
          throw new NrqlError('NRQL_BAD_ARGUMENTS', `${fn.name}() takes ${expected} argument${fn.maxArgs === 1 ? '' : 's'}; ${expr.args.length} given`, expr.span);
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
      row: (expr, type) => this.row(expr, type),
      condition: (c) => this.condition(c),
      isTimesliceValue: (expr) => this.timeslices && expr.kind === 'attribute' && METRIC_ATTRIBUTES[expr.name]?.kind === 'value',
      pointExpr: (expr) => this.pointExpr(expr),
      aggregate: (expr, set) => {
        if (!this.isAggregate(expr) || expr.kind === 'number') throw invalid('expected an aggregate function such as count(*)', expr.span);
        return this.aggregateExpr(expr, set);
      },
      text: (expr) => formatExpr(expr),
      apdexMetrics: () => this.dictionaryPredicate({ dictionary: 'metricName', idField: 'metricId' }, (name) => APDEX_METRIC.test(name)),
    };
  }

  private unknownFunction(name: string, span: Span): NrqlError {
    if ((UNSUPPORTED_FUNCTIONS as readonly string[]).some((f) => f.toLowerCase() === name.toLowerCase())) {
      return new NrqlError('NRQL_UNSUPPORTED', `${name}() is not supported by Timeslice's NRQL subset`, span);
    }
    const suggestion = closestMatch(name, KNOWN_FUNCTION_NAMES);
    return new NrqlError('NRQL_UNKNOWN_FUNCTION', `unknown function ${name}()${suggestion ? `; did you mean ${suggestion}()?` : ''}`, span, suggestion);
  }

  // ── row-level expressions ─────────────────────────────────────────────────────────────────

  private binding(name: string): Binding {
    if (this.timeslices) return METRIC_ATTRIBUTES[name] ?? { kind: 'missing' };
    const catalog = AGENT_EVENT_ATTRIBUTES[name];
    if (!catalog) return { kind: 'field', name };
    // Custom events (the Event API's name their appName…; an agent's have them from the catalog)
    // and FROM lists mixing them with agent events: the event's own attribute, else the catalog's.
    return this.catalogAttributes ? catalog : { kind: 'ownOrCatalog', name, catalog };
  }

  /** The event's own attribute, else the catalog's value for its id, as one SQL expression. */
  private ownOrCatalog(b: Extract<Binding, { kind: 'ownOrCatalog' }>, type: ValueType): RowExpr {
    const own: RowExpr = { kind: 'field', name: b.name, type };
    const catalog = b.catalog;
    let fallback: RowExpr;
    if (catalog.kind === 'field') {
      // A number (appId, realAgentId); the stored id is 0 on Event API events, where there is none.
      if (type === 'boolean') return own;
      const as: ValueType = type === 'any' ? 'number' : type;
      const id: RowExpr = { kind: 'field', name: catalog.name, type: as };
      const known: RowExpr = { kind: 'cases', cases: [{ when: { kind: 'compare', op: '!=', left: field(catalog.name), right: { kind: 'literal', value: 0 } }, then: id }] };
      return { kind: 'coalesce', items: [{ ...own, type: as }, known] };
    } else if (catalog.kind === 'dictionary') {
      if (type === 'number' || type === 'boolean') return own;
      const entries = [...this.ctx.dictionaries.entries(catalog.dictionary, this.ctx.accountIds)];
      if (entries.length > MAX_LOOKUP_ENTRIES) return own;
      // Shown as JSON text where values are (row listings, latest…), so the names parse like the attribute's.
      fallback = type === 'json'
        ? { kind: 'lookup', expr: field(catalog.idField), entries: entries.map(([id, text]) => [id, JSON.stringify(text)] as const), json: true }
        : { kind: 'lookup', expr: field(catalog.idField), entries };
    } else {
      return own;
    }
    return { kind: 'coalesce', items: [own, fallback] };
  }

  /** `V['count']`, `getField(V, 'count')`, and arithmetic over such parts and numbers. */
  private pointExpr(expr: Expr): PointExpr | undefined {
    const part = this.valuePart(expr);
    if (part) return { kind: 'part', part };
    switch (expr.kind) {
      case 'number': return { kind: 'number', value: expr.value };
      case 'arithmetic': {
        const left = this.pointExpr(expr.left);
        const right = this.pointExpr(expr.right);
        return left && right ? { kind: 'arith', op: expr.op, left, right } : undefined;
      }
      default: return undefined;
    }
  }

  private valuePart(expr: Expr): TimesliceValueField | undefined {
    let target: Expr | undefined;
    let fieldName: string | undefined;
    let span = expr.span;
    if (expr.kind === 'fieldAccess') {
      target = expr.target;
      fieldName = expr.field;
    } else if (expr.kind === 'call' && expr.name.toLowerCase() === 'getfield') {
      const [t, f] = expr.args;
      if (expr.args.length !== 2 || !t || t.kind === 'whereArg' || t.kind === 'namedArg' || !f || f.kind !== 'string') {
        throw new NrqlError('NRQL_BAD_ARGUMENTS', "getField() takes a compound attribute and a field name: getField(newrelic.timeslice.value, 'count')", expr.span);
      }
      target = t;
      fieldName = f.value;
      span = f.span;
    }
    if (target === undefined || fieldName === undefined) return undefined;
    if (!(this.timeslices && target.kind === 'attribute' && METRIC_ATTRIBUTES[target.name]?.kind === 'value')) {
      throw invalid('only the timeslice value has fields (newrelic.timeslice.value[\'count\'])', target.span);
    }
    if (!(TIMESLICE_VALUE_FIELDS as readonly string[]).includes(fieldName)) {
      const suggestion = closestMatch(fieldName, TIMESLICE_VALUE_FIELDS);
      throw new NrqlError('NRQL_INVALID_EXPRESSION', `a timeslice value has no field '${fieldName}' (it has ${TIMESLICE_VALUE_FIELDS.join(', ')})${suggestion ? `; did you mean '${suggestion}'?` : ''}`, span, suggestion);
    }
    return fieldName as TimesliceValueField;
  }

  private row(expr: Expr, type: ValueType): ResolvedRow {
    switch (expr.kind) {
      case 'number': case 'string': case 'boolean':
        return { expr: { kind: 'literal', value: literalAs(expr.value, type) } };
      case 'null':
        return { expr: { kind: 'literal', value: null } };
      case 'attribute': {
        const b = this.binding(expr.name);
        switch (b.kind) {
          // Ids are numbers, compared as text only with text (`appId LIKE '1%'`, `appId = 'x'`).
          case 'field': return { expr: { kind: 'field', name: b.name, type: b.numericId && type !== 'string' && type !== 'json' ? 'number' : type } };
          // A name is text: as a number it is null (as any text attribute is), never its id.
          case 'dictionary':
            if (type === 'number' || type === 'boolean') return { expr: { kind: 'literal', value: null } };
            return { expr: this.dictionaryId(b.idField, b.dictionary), decode: b.dictionary };
          case 'value': throw invalid(`${expr.name} is a summary of many calls; aggregate it (count, average…) or take a field: ${expr.name}['count']`, expr.span);
          case 'missing': return { expr: { kind: 'literal', value: null } };
          case 'ownOrCatalog': return { expr: this.ownOrCatalog(b, type) };
          default: return assertNever(b);
        }
      }
      case 'fieldAccess':
        return { expr: field(this.valuePart(expr)!) };
      case 'negate':
        return { expr: asType(rowArith('*', { kind: 'literal', value: -1 }, this.numeric(expr.operand)), type) };
      case 'arithmetic':
        return { expr: asType(rowArith(expr.op, this.numeric(expr.left), this.numeric(expr.right)), type) };
      case 'coalesce': {
        const left = this.row(expr.left, type);
        const right = this.row(expr.right, type);
        if (left.decode || right.decode) throw invalid('OR between attributes takes attributes stored as text or numbers', expr.span);
        // SQL's COALESCE wants one type: numbers and booleans are made so by `type`; text and shown
        // values are cast (JSON text where values are shown, so each parses as what it is).
        const uniform = (e: RowExpr): RowExpr => {
          if (type === 'json') return jsonText(e) ? e : { kind: 'cast', expr: e, to: 'json' };
          if (type === 'string' || type === 'any') return { kind: 'cast', expr: e, to: 'string' };
          return e;
        };
        return { expr: { kind: 'coalesce', items: [uniform(left.expr), uniform(right.expr)] } };
      }
      case 'call': {
        const name = expr.name.toLowerCase();
        if (name === 'eventtype') {
          if (expr.args.length > 0) throw new NrqlError('NRQL_BAD_ARGUMENTS', 'eventType() takes no arguments', expr.span);
          // Text: as a number or a boolean it is null.
          return { expr: type === 'number' || type === 'boolean' ? { kind: 'literal', value: null } : { kind: 'eventType' } };
        }
        if (name === 'getfield') return { expr: field(this.valuePart(expr)!) };
        if (AGGREGATE_FUNCTIONS.has(name)) throw invalid(`the aggregate ${expr.name}() cannot be used here`, expr.span);
        throw this.unknownFunction(expr.name, expr.span);
      }
      case 'star':
        throw invalid('* is only a SELECT item or the argument of count()', expr.span);
      case 'interval':
        throw invalid('a time interval is only an argument of rate()', expr.span);
      default:
        return assertNever(expr);
    }
  }

  private numeric(expr: Expr): RowExpr {
    const r = this.row(expr, 'number');
    if (r.decode) throw invalid(`${formatExpr(expr)} is text, not a number`, expr.span);
    return r.expr;
  }

  // ── conditions ────────────────────────────────────────────────────────────────────────────

  private condition(c: Condition): Predicate {
    switch (c.kind) {
      case 'and': return and(this.condition(c.left), this.condition(c.right));
      case 'or': return { kind: 'or', items: [this.condition(c.left), this.condition(c.right)] };
      case 'not': return { kind: 'not', item: this.condition(c.operand) };
      case 'compare': {
        // Attribute on the left, literal on the right, so `5 < duration` reads as `duration > 5`.
        if (isLiteral(c.left) && !isLiteral(c.right)) return this.condition({ ...c, left: c.right, right: c.left, op: FLIPPED[c.op] });
        const dictionary = this.dictionaryOf(c.left);
        if (dictionary && isLiteral(c.right)) {
          const value = literalValue(c.right);
          if (c.op === '=' && value !== null && (dictionary.dictionary === 'metricName' || dictionary.dictionary === 'scopeName')) {
            // The common case (`metricTimesliceName = 'HttpDispatcher'`) without scanning the dictionary.
            const id = this.ctx.dictionaries.idOf(dictionary.dictionary, String(value), this.ctx.accountIds);
            return { kind: 'in', expr: this.dictionaryId(dictionary.idField, dictionary.dictionary), values: id === undefined ? [] : [id], negated: false };
          }
          return this.dictionaryPredicate(dictionary, (text) => compareText(text, c.op, value));
        }
        if (dictionary || this.dictionaryOf(c.right)) throw invalid('compare this attribute with a literal value', c.span);
        if (this.timeslices && this.isValue(c.left)) throw invalid('compare a field of the timeslice value, such as newrelic.timeslice.value[\'count\']', c.left.span);
        const value = isLiteral(c.right) ? literalValue(c.right) : undefined;
        let type: ValueType = isLiteral(c.right) ? literalType(c.right) : 'number';
        if (this.isNumericId(c.left) && typeof value === 'string' && NUMERIC_TEXT.test(value)) type = 'number';
        const left = this.row(c.left, type);
        if (left.decode) throw invalid('compare this attribute with a literal value', c.span);
        if (left.expr.kind === 'eventType' && value !== undefined) {
          // An event type is text: compared with a number it matches nothing, as text it compares as text.
          return { kind: 'compare', op: c.op, left: left.expr, right: { kind: 'literal', value: value === null ? null : String(value) } };
        }
        const right = this.row(c.right, type);
        if (right.decode) throw invalid('compare this attribute with a literal value', c.span);
        return { kind: 'compare', op: c.op, left: left.expr, right: this.looseId(left.expr, right.expr) };
      }
      case 'in': {
        const values = c.values.map((v) => {
          if (!isLiteral(v)) throw invalid('IN takes a list of literal values', v.span);
          return literalValue(v);
        });
        const dictionary = this.dictionaryOf(c.expr);
        if (dictionary) {
          const wanted = values.map(String);
          const p = this.dictionaryPredicate(dictionary, (text) => wanted.includes(text));
          return c.negated ? { kind: 'not', item: p } : p;
        }
        // One IN per kind of value, each compared as its kind (a number never equals text here).
        const numericId = this.isNumericId(c.expr);
        const byType = new Map<ValueType, Literal[]>();
        for (const v of values) {
          if (v === null) continue;
          const loose = numericId && typeof v === 'string' && NUMERIC_TEXT.test(v) ? Number(v) : v;
          const type: ValueType = typeof loose === 'number' ? 'number' : typeof loose === 'boolean' ? 'boolean' : 'string';
          byType.set(type, [...(byType.get(type) ?? []), loose]);
        }
        const parts: Predicate[] = [...byType].map(([type, list]) => {
          const expr = this.row(c.expr, type).expr;
          return { kind: 'in', expr, values: expr.kind === 'eventType' ? list.map(String) : list, negated: false };
        });
        if (parts.length === 0) return c.negated ? { kind: 'true' } : { kind: 'not', item: { kind: 'true' } };
        const positive: Predicate = parts.length === 1 ? parts[0]! : { kind: 'or', items: parts };
        // NOT IN keeps SQL's rule: a row without the attribute is in neither.
        return c.negated ? and({ kind: 'isNull', expr: this.row(c.expr, 'any').expr, negated: true }, { kind: 'not', item: positive }) : positive;
      }
      case 'like':
      case 'rlike': {
        // Every pattern is checked by the SQL engine's regex library (RE2) before the query runs.
        if (c.kind === 'rlike' && !this.patterns.has(c.pattern)) this.patterns.set(c.pattern, c.span);
        const dictionary = this.dictionaryOf(c.expr);
        if (dictionary) {
          const re = c.kind === 'like' ? likeRegex(c.pattern) : this.regex(c.pattern, c.span);
          const p = this.dictionaryPredicate(dictionary, (text) => re.test(text));
          return c.negated ? { kind: 'not', item: p } : p;
        }
        const r = this.row(c.expr, 'string');
        return c.kind === 'like'
          ? { kind: 'like', expr: r.expr, pattern: c.pattern, negated: c.negated }
          : { kind: 'regex', expr: r.expr, pattern: c.pattern, negated: c.negated };
      }
      case 'is': {
        if (this.timeslices && this.isValue(c.expr)) {
          // Every timeslice has a value: IS NOT NULL holds for all of them.
          return c.test === 'null' && c.negated ? { kind: 'true' } : { kind: 'not', item: { kind: 'true' } };
        }
        const dictionary = this.dictionaryOf(c.expr);
        if (dictionary && c.test === 'null') {
          // Only scope is ever absent on stored rows: id 0 means "no scope".
          const isNull: Predicate = dictionary.dictionary === 'scopeName'
            ? { kind: 'compare', op: '=', left: field(dictionary.idField), right: { kind: 'literal', value: 0 } }
            : { kind: 'not', item: { kind: 'true' } };
          return c.negated ? { kind: 'not', item: isNull } : isNull;
        }
        if (c.test === 'null') return { kind: 'isNull', expr: this.row(c.expr, 'any').expr, negated: c.negated };
        return { kind: 'isBoolean', expr: this.row(c.expr, 'boolean').expr, value: c.test === 'true', negated: c.negated };
      }
      default:
        return assertNever(c);
    }
  }

  private isNumericId(expr: Expr): boolean {
    if (expr.kind !== 'attribute') return false;
    const b = this.binding(expr.name);
    return b.kind === 'field' && b.numericId === true;
  }

  /**
   * The id column of a dictionary attribute, as a row expression. Scope id 0 stands for "no scope":
   * it reads as null, so `count(scope)` counts scoped rows and `NOT scope = 'x'` skips unscoped ones.
   */
  private dictionaryId(idField: string, dictionary: DictionaryName): RowExpr {
    if (dictionary !== 'scopeName') return field(idField);
    return { kind: 'cases', cases: [{ when: { kind: 'compare', op: '!=', left: field(idField), right: { kind: 'literal', value: 0 } }, then: field(idField) }] };
  }

  private isValue(expr: Expr): boolean {
    return expr.kind === 'attribute' && this.binding(expr.name).kind === 'value';
  }

  private dictionaryOf(expr: Expr): { dictionary: DictionaryName; idField: string } | undefined {
    if (expr.kind !== 'attribute') return undefined;
    const b = this.binding(expr.name);
    return b.kind === 'dictionary' ? { dictionary: b.dictionary, idField: b.idField } : undefined;
  }

  /** A dictionary attribute as its text, looked up in SQL (application and host names: small dictionaries). */
  private lookup(resolved: ResolvedRow, span: Span): RowExpr {
    const entries = [...this.ctx.dictionaries.entries(resolved.decode!, this.ctx.accountIds)];
    if (entries.length > MAX_LOOKUP_ENTRIES) {
      throw new NrqlError('NRQL_UNSUPPORTED', `this attribute has more than ${MAX_LOOKUP_ENTRIES} values; FACET CASES … OR cannot list it, FACET by it directly`, span);
    }
    return { kind: 'lookup', expr: resolved.expr, entries };
  }

  /** A condition on a dictionary attribute, as the set of ids whose text passes `test`. */
  private dictionaryPredicate(d: { dictionary: DictionaryName; idField: string }, test: (text: string) => boolean): Predicate {
    const ids: number[] = [];
    for (const [id, text] of this.ctx.dictionaries.entries(d.dictionary, this.ctx.accountIds)) if (test(text)) ids.push(id);
    return { kind: 'in', expr: this.dictionaryId(d.idField, d.dictionary), values: ids, negated: false };
  }

  /** Ids compare loosely: `appId = '77'` is `appId = 77`. */
  private looseId(left: RowExpr, right: RowExpr): RowExpr {
    if (left.kind === 'field' && left.type === 'number' && right.kind === 'literal' && typeof right.value === 'string' && NUMERIC_TEXT.test(right.value)) {
      return { kind: 'literal', value: Number(right.value) };
    }
    return right;
  }

  /**
   * An RLIKE pattern for names matched here rather than in SQL (entity, metric and scope names).
   * RE2's leading `(?i)` becomes JavaScript's `i` flag; other RE2-only forms (`\pL`, `[[:alpha:]]`,
   * `(?P<name>…)`) are refused for these names rather than matched differently.
   */
  private regex(pattern: string, span: Span): RegExp {
    const insensitive = pattern.startsWith('(?i)');
    const body = insensitive ? pattern.slice(4) : pattern;
    try {
      return new RegExp(`^(?:${body})$`, insensitive ? 'iu' : 'u');
    } catch {
      throw new NrqlError('NRQL_UNSUPPORTED', `RLIKE on an application, host, metric or scope name takes the common regular expression forms; this pattern uses one that is not supported there: ${pattern}`, span);
    }
  }

  private patternList(): { pattern: string; span: Span }[] {
    return [...this.patterns].map(([pattern, span]) => ({ pattern, span }));
  }

  /** RLIKE patterns of the query, for the engine to check before running it. */
  readonly patterns = new Map<string, Span>();
}

/** Metrics whose timeslices are Apdex counts: `Apdex`, `Apdex/…`, `EndUser/Apdex`… */
const APDEX_METRIC = /(^|\/)Apdex(\/|$)/;

/** Whether a row expression's values are JSON text (attributes read for showing, and OR-chains of them). */
export function jsonText(expr: RowExpr): boolean {
  switch (expr.kind) {
    case 'field': return expr.type === 'json';
    case 'lookup': return expr.json === true;
    case 'cast': return expr.to === 'json';
    case 'coalesce': return expr.items.every(jsonText);
    case 'cases': return expr.cases.every((c) => jsonText(c.then)) && (expr.otherwise === undefined || jsonText(expr.otherwise));
    default: return false;
  }
}

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

/** A number computed per row, as a use wants it: text compares its decimal text; it is no boolean. */
function asType(number: RowExpr, type: ValueType): RowExpr {
  if (type === 'string') return { kind: 'cast', expr: number, to: 'string' };
  if (type === 'boolean') return { kind: 'literal', value: null };
  return number;
}

/**
 * A literal as a use wants it: text in arithmetic is null unless it reads as a number, a number
 * compared as text is its decimal text, booleans are only booleans or the text true/false.
 */
function literalAs(value: Literal, type: ValueType): Literal | null {
  switch (type) {
    case 'number':
      return typeof value === 'number' ? value : typeof value === 'string' && NUMERIC_TEXT.test(value) ? Number(value) : null;
    case 'string':
      return String(value);
    case 'boolean':
      return typeof value === 'boolean' ? value : typeof value === 'string' && /^(true|false)$/i.test(value) ? value.toLowerCase() === 'true' : null;
    default:
      return value;
  }
}

/** Text that reads as a number: ids compare loosely (`appId = '77'`). */
const NUMERIC_TEXT = /^-?\d+(\.\d+)?$/;

const FLIPPED = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const;

function isLiteral(expr: Expr): expr is Extract<Expr, { kind: 'number' | 'string' | 'boolean' | 'null' }> {
  return expr.kind === 'number' || expr.kind === 'string' || expr.kind === 'boolean' || expr.kind === 'null'
    || (expr.kind === 'negate' && expr.operand.kind === 'number');
}

function literalValue(expr: Expr): Literal | null {
  switch (expr.kind) {
    case 'number': case 'string': case 'boolean': return expr.value;
    case 'negate': return expr.operand.kind === 'number' ? -expr.operand.value : null;
    default: return null;
  }
}

function literalType(expr: Expr): ValueType {
  const v = literalValue(expr);
  return typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : 'string';
}

/** A comparison of dictionary text with a literal: as text, numbers compared as their decimal text. */
function compareText(text: string, op: keyof typeof FLIPPED, value: Literal | null): boolean {
  if (value === null) return false;
  const v = String(value);
  switch (op) {
    case '=': return text === v;
    case '!=': return text !== v;
    case '<': return text < v;
    case '<=': return text <= v;
    case '>': return text > v;
    case '>=': return text >= v;
    default: return assertNever(op);
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

/** NRQL LIKE as a JavaScript regex: case-insensitive, `%` any run of characters, all else literal. */
export function likeRegex(pattern: string): RegExp {
  const body = pattern.split('%').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*');
  return new RegExp(`^${body}$`, 'iu');
}

/** The number facets rank by: the first value of an object output (a percentile), else the output. */
function rankingOutput(output: OutputExpr): OutputExpr {
  return output.kind === 'object' ? output.entries[0]![1] : output;
}

function dedupe<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
