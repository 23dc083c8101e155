import type { AggregatePlan, Buckets, PlanSource, RankExpr, RowsPlan, TimeWindow, TopGroups } from '../plan/aggregate-plan.js';
import { and, evaluateValue, mergeAggregates, MERGEABLE_AGGREGATES, type OutputExpr, type Predicate, type RowExpr } from '../plan/expressions.js';
import { TIMESLICE_VALUE } from '../domain/aggregate/timeslice-value.js';
import { AGENT_EVENT_TYPES, EVENT_ID_FIELDS } from '../plan/data-model.js';
import type { PlainValue, PlanExecutor, QueryOptions } from '../store/plan-executor.js';
import { ROWS_PER_SLICE, yieldToEventLoop } from '../store/event-loop.js';
import { jsonText, type AnalyzedAggregate, type AnalyzedQuery, type AnalyzedRows, type AnalyzedShowEventTypes, type ResultColumn } from './analyze.js';
import type { DictionaryName, NrqlDictionaries } from './dictionaries.js';

export type ResultRow = Record<string, unknown>;

/** NerdGraph's `NrdbResultContainer`, as `actor.account.nrql` answers it. */
export interface NrqlResult {
  readonly results: ResultRow[];
  readonly totalResult: ResultRow | ResultRow[] | null;
  readonly otherResult: ResultRow | ResultRow[] | null;
  readonly currentResults: ResultRow[] | null;
  readonly previousResults: ResultRow[] | null;
  readonly metadata: {
    readonly eventTypes: readonly string[];
    readonly facets: readonly string[] | null;
    readonly messages: readonly string[];
    readonly timeWindow: { readonly begin: number; readonly end: number; readonly since: string; readonly until: string; readonly compareWith: string | null };
  };
}

export interface ExecuteDeps {
  readonly executor: PlanExecutor;
  readonly dictionaries: NrqlDictionaries;
  readonly options?: QueryOptions;
}

/** Runs an analyzed query's plans and shapes their columns as NerdGraph's results. */
export async function execute(query: AnalyzedQuery, deps: ExecuteDeps): Promise<NrqlResult> {
  switch (query.kind) {
    case 'aggregate': {
      const answered = new Set<string>();
      const executor: PlanExecutor = {
        aggregate: async (plan, options) => {
          const columns = await deps.executor.aggregate(plan, options);
          if (columns.resolution) answered.add(columns.resolution);
          return columns;
        },
        rows: (plan, options) => deps.executor.rows(plan, options),
        regexError: (pattern) => deps.executor.regexError(pattern),
      };
      const result = await executeAggregate(query, { ...deps, executor });
      const message = resolutionMessage(answered);
      return message ? { ...result, metadata: { ...result.metadata, messages: [...result.metadata.messages, message] } } : result;
    }
    case 'rows':
      return executeRows(query, deps);
    case 'showEventTypes':
      return showEventTypes(query, deps);
  }
}

/** Metric queries answered partly or wholly from hourly rollups say so (`plan/resolution.ts`). */
function resolutionMessage(answered: ReadonlySet<string>): string | undefined {
  if (answered.has('mixed') || (answered.has('hour') && answered.has('minute'))) {
    return 'Metric timeslices were read from hourly rollups for the whole hours they hold and at 1-minute resolution for the rest of the window';
  }
  return answered.has('hour') ? 'Metric timeslices were read from hourly rollups' : undefined;
}

/**
 * `SHOW EVENT TYPES`: the types with at least one row in the window — Metric and the agent
 * event tables by a count each, custom types grouped by their type — as `{eventType}` rows.
 */
async function showEventTypes(query: AnalyzedShowEventTypes, deps: ExecuteDeps): Promise<NrqlResult> {
  const base = { kind: 'aggregate', accountId: query.accountIds, window: query.window, where: { kind: 'true' }, outputs: [] } as const;
  const found: string[] = [];
  for (const eventType of ['Metric', ...AGENT_EVENT_TYPES]) {
    const source: PlanSource = eventType === 'Metric' ? { kind: 'timeslices' } : { kind: 'events', eventTypes: [eventType] };
    const cols = await deps.executor.aggregate({ ...base, source, groupBy: [], aggregates: [{ fn: 'countRows' }] }, deps.options);
    if ((cols.aggregates[0]?.[0] ?? 0) > 0) found.push(eventType);
  }
  const custom = await deps.executor.aggregate({
    ...base, source: { kind: 'allCustomEvents' }, groupBy: [{ kind: 'field', name: 'eventType', type: 'any' }], aggregates: [{ fn: 'countRows' }],
  }, deps.options);
  for (const type of custom.groups[0] ?? []) if (typeof type === 'string' && !found.includes(type)) found.push(type);
  found.sort();
  return {
    results: found.map((eventType) => ({ eventType })),
    totalResult: null, otherResult: null, currentResults: null, previousResults: null,
    metadata: { eventTypes: [], facets: null, messages: [], timeWindow: { begin: query.window.beginMs, end: query.window.endMs, since: query.window.since, until: query.window.until, compareWith: null } },
  };
}

/**
 * The plan a query's answer mainly comes from (for EXPLAIN and the SQL goldens): the aggregate
 * grouped by its facets and buckets, or the rows listing. FACET queries with aggregates that do
 * not merge run further plans derived from this one.
 */
export function mainPlan(query: AnalyzedAggregate | AnalyzedRows): AggregatePlan | RowsPlan {
  if (query.kind === 'rows') {
    return {
      kind: 'rows', source: query.source, accountId: query.accountIds, window: query.window, where: query.where,
      columns: query.columns.map((c) => c.expr), all: query.all, orderBy: query.orderBy, limit: query.limit, offset: query.offset,
    };
  }
  return {
    kind: 'aggregate', source: query.source, accountId: query.accountIds, window: query.window, where: query.where,
    groupBy: query.facets.map((f) => f.expr), ...(query.buckets ? { buckets: query.buckets } : {}), aggregates: query.aggregates, outputs: [],
  };
}

function metadata(query: AnalyzedAggregate | AnalyzedRows, facets: readonly string[] | null): NrqlResult['metadata'] {
  return {
    eventTypes: query.eventTypes,
    facets,
    messages: [],
    timeWindow: { begin: query.window.beginMs, end: query.window.endMs, since: query.window.since, until: query.window.until, compareWith: query.compare?.text ?? null },
  };
}

// ── aggregates ──────────────────────────────────────────────────────────────────────────────

type Vector = readonly unknown[];

/** One facet's values: per time bucket (or a single entry keyed -1 for the whole window). */
interface FacetGroup {
  readonly values: PlainValue[];
  readonly buckets: Map<number, Vector>;
}

async function executeAggregate(query: AnalyzedAggregate, deps: ExecuteDeps): Promise<NrqlResult> {
  const current = await aggregateOver(query, query.window, query.buckets, deps, undefined);
  const facetNames = query.facets.length > 0 ? query.facets.map((f) => f.label) : null;
  if (!query.compare) {
    return { results: current.results, totalResult: current.total, otherResult: current.other, currentResults: null, previousResults: null, metadata: metadata(query, facetNames) };
  }
  const shift = query.window.beginMs - query.compare.window.beginMs;
  const previousBuckets = query.buckets ? { ...query.buckets, beginMs: query.buckets.beginMs - shift } : undefined;
  const previous = await aggregateOver(query, query.compare.window, previousBuckets, deps, current.topFacets);
  return {
    results: [...current.results.map((r) => ({ ...r, comparison: 'current' })), ...previous.results.map((r) => ({ ...r, comparison: 'previous' }))],
    totalResult: current.total,
    otherResult: current.other,
    currentResults: current.results,
    previousResults: previous.results,
    metadata: metadata(query, facetNames),
  };
}

interface AggregateOutcome {
  readonly results: ResultRow[];
  readonly total: ResultRow | ResultRow[] | null;
  readonly other: ResultRow | ResultRow[] | null;
  readonly topFacets: readonly PlainValue[][];
}

/**
 * Aggregates over one window. Without FACET: one plan. With FACET and only mergeable aggregates:
 * one plan grouped by facet (and bucket); ranking, `otherResult` and `totalResult` are merged
 * from its groups. Otherwise: a ranking plan, then the top facets' rows, the total and the
 * rest each computed over their own rows.
 */
async function aggregateOver(query: AnalyzedAggregate, window: TimeWindow, buckets: Buckets | undefined, deps: ExecuteDeps, fixedFacets: readonly PlainValue[][] | undefined): Promise<AggregateOutcome> {
  // Aggregates of attributes of any type arrive as JSON text: parsed once, before any output reads them.
  const jsonAggregates = query.aggregates.map((c) => c.arg !== undefined && jsonText(c.arg));
  const run = (groupBy: readonly RowExpr[], withBuckets: boolean, where: Predicate = query.where, top?: TopGroups) => {
    const plan: AggregatePlan = {
      kind: 'aggregate', source: query.source, accountId: query.accountIds, window, where, groupBy,
      ...(withBuckets && buckets ? { buckets } : {}), aggregates: query.aggregates, outputs: [], ...(top ? { top } : {}),
    };
    return deps.executor.aggregate(plan, deps.options).then(async (cols) => groupsOf(cols, groupBy.length, jsonAggregates));
  };
  const windowSeconds = (window.endMs - window.beginMs) / 1000;
  const shape = (vector: Vector | undefined, seconds: number) => shapeValues(query.columns, vector, seconds, deps.dictionaries);
  const series = (perBucket: Map<number, Vector>, extra: ResultRow = {}) => buckets
    ? Array.from({ length: buckets.count }, (_, i) => ({
      ...extra,
      beginTimeSeconds: Math.floor((buckets.beginMs + i * buckets.widthMs) / 1000),
      endTimeSeconds: Math.floor((buckets.beginMs + (i + 1) * buckets.widthMs) / 1000),
      ...shape(perBucket.get(i), buckets.widthMs / 1000),
    }))
    : [{ ...extra, ...shape(perBucket.get(-1), windowSeconds) }];
  const mergeable = query.aggregates.every((c) => MERGEABLE_AGGREGATES.has(c.fn));
  const merge = (vectors: Iterable<Vector>): Vector | undefined => {
    let acc: Vector | undefined;
    for (const v of vectors) acc = acc ? mergeAggregates(query.aggregates, acc as (number | null)[], v as (number | null)[]) : v;
    return acc;
  };
  // Each group's whole-window vector, merged once: ranking, presence and totals all read it.
  const wholes = new Map<FacetGroup, Vector | undefined>();
  const wholeOf = (group: FacetGroup) => {
    if (!wholes.has(group)) wholes.set(group, buckets ? merge(group.buckets.values()) : group.buckets.get(-1));
    return wholes.get(group);
  };

  if (query.facets.length === 0) {
    const [group] = (await run([], true)).values();
    const perBucket = group?.buckets ?? new Map<number, Vector>();
    if (!buckets) return { results: series(perBucket), total: null, other: null, topFacets: [] };
    const whole = mergeable ? merge(perBucket.values()) : [...(await run([], false)).values()][0]?.buckets.get(-1);
    return { results: series(perBucket), total: shape(whole, windowSeconds), other: null, topFacets: [] };
  }

  const facetExprs = query.facets.map((f) => f.expr);
  const decodeFacet = (values: readonly PlainValue[]) => values.map((v, i) => decodeValue(v, query.facets[i]!.decode, deps.dictionaries));
  const rank = async (groups: Iterable<FacetGroup>): Promise<FacetGroup[]> => {
    if (fixedFacets) {
      // COMPARE WITH: the current window's facets, each with its rows here or none (zero-filled).
      const byKey = new Map([...groups].map((g) => [groupKey(g.values), g]));
      return fixedFacets.map((values) => byKey.get(groupKey(values)) ?? { values, buckets: new Map() });
    }
    const present = (g: FacetGroup) => query.facetPresence === undefined || Number(wholeOf(g)?.[query.facetPresence] ?? 0) > 0;
    // Ranked a slice at a time (a FACET on a unique attribute has as many groups as rows), keeping
    // only the top `facetLimit`: by the rank value, then by the facet values' text.
    let top: RankedGroup[] = [];
    let slice: RankedGroup[] = [];
    const keep = () => {
      slice.sort(compareRanked);
      top = mergeRanked(top, slice, query.facetLimit);
      slice = [];
    };
    for (const g of groups) {
      const shown = decodeFacet(g.values);
      if (shown.every((v) => v !== null) && present(g)) slice.push({ group: g, score: rankValue(query, wholeOf(g), windowSeconds), text: JSON.stringify(shown) });
      if (slice.length >= ROWS_PER_SLICE) {
        keep();
        await yieldToEventLoop();
      }
    }
    keep();
    return top.map((r) => r.group);
  };
  const facetRow = (values: readonly PlainValue[]): ResultRow => {
    const shown = decodeFacet(values);
    return shown.length === 1 ? { facet: shown[0], [query.facets[0]!.label]: shown[0] } : { facet: shown };
  };
  const totalOf = (perBucket: (b: number) => Vector | undefined, whole: Vector | undefined) => (buckets
    ? Array.from({ length: buckets.count }, (_, i) => ({
      beginTimeSeconds: Math.floor((buckets.beginMs + i * buckets.widthMs) / 1000),
      endTimeSeconds: Math.floor((buckets.beginMs + (i + 1) * buckets.widthMs) / 1000),
      ...shape(perBucket(i), buckets.widthMs / 1000),
    }))
    : shape(whole, windowSeconds));

  if (mergeable) {
    const groups = await run(facetExprs, true);
    const top = await rank(groups.values());
    const topSet = new Set(top);
    // Totals and the rest, per bucket and whole, in one pass over the groups.
    const total = new Map<number, Vector>();
    const other = new Map<number, Vector>();
    const add = (into: Map<number, Vector>, b: number, v: Vector) => {
      const acc = into.get(b);
      into.set(b, acc ? mergeAggregates(query.aggregates, acc as (number | null)[], v as (number | null)[]) : v);
    };
    let seen = 0;
    for (const g of groups.values()) {
      if (++seen % ROWS_PER_SLICE === 0) await yieldToEventLoop();
      for (const [b, v] of g.buckets) {
        add(total, b, v);
        if (!topSet.has(g)) add(other, b, v);
      }
    }
    const wholeFrom = (perBucket: Map<number, Vector>) => (buckets ? merge(perBucket.values()) : perBucket.get(-1));
    return {
      results: await flatMapInSlices(top, (g) => series(g.buckets, facetRow(g.values))),
      total: totalOf((b) => total.get(b), wholeFrom(total)),
      other: totalOf((b) => other.get(b), wholeFrom(other)),
      topFacets: top.map((g) => g.values),
    };
  }

  // Only the groups that can rank among the first come back when SQL can order by the rank (200 k
  // groups of a FACET on a unique attribute were seconds of reading and ranking on the event loop).
  const ranked = await run(facetExprs, false, query.where, fixedFacets ? undefined : sqlTop(query, jsonAggregates));
  const top = await rank(ranked.values());
  const inTop = facetMembership(facetExprs, top.map((g) => g.values));
  const rowsByFacet = buckets ? await run(facetExprs, true, and(query.where, inTop)) : ranked;
  const [totalGroup] = (await run([], true)).values();
  const [otherGroup] = (await run([], true, and(query.where, notInTop(facetExprs, inTop)))).values();
  const wholeTotal = buckets ? [...(await run([], false)).values()][0]?.buckets.get(-1) : totalGroup?.buckets.get(-1);
  const wholeOther = buckets
    ? [...(await run([], false, and(query.where, notInTop(facetExprs, inTop)))).values()][0]?.buckets.get(-1)
    : otherGroup?.buckets.get(-1);
  return {
    results: await flatMapInSlices(top, (g) => series(rowsByFacet.get(groupKey(g.values))?.buckets ?? new Map(), facetRow(g.values))),
    total: totalOf((b) => totalGroup?.buckets.get(b), wholeTotal),
    other: totalOf((b) => otherGroup?.buckets.get(b), wholeOther),
    topFacets: top.map((g) => g.values),
  };
}

const NUMERIC_RANKS: ReadonlySet<string> = new Set(['count', 'countRows', 'countDistinct', 'sum']);

/**
 * The FACET ranking as SQL can narrow it (see `TopGroups`): when facets are shown as stored (no
 * dictionary decoding, whose nulls SQL cannot see) and the rank is a numeric aggregate or one item
 * of a quantile list, as the engine evaluates it.
 */
function sqlTop(query: AnalyzedAggregate, json: readonly boolean[]): TopGroups | undefined {
  if (!query.rankBy || query.facets.some((f) => f.decode !== undefined)) return undefined;
  // min and max may be of text, which the engine ranks as null and SQL would order.
  const numeric = (index: number) => !json[index] && NUMERIC_RANKS.has(query.aggregates[index]!.fn);
  const rankExpr = (e: OutputExpr): RankExpr | undefined => {
    switch (e.kind) {
      case 'aggregate': return numeric(e.index) ? { kind: 'aggregate', index: e.index } : undefined;
      case 'item': return !json[e.index] && query.aggregates[e.index]!.fn === 'quantiles' ? { kind: 'item', index: e.index, item: e.item } : undefined;
      case 'zeroIfNull': {
        const arg = rankExpr(e.arg);
        return arg && { kind: 'zeroIfNull', arg };
      }
      default: return undefined;
    }
  };
  const by = rankExpr(query.rankBy);
  return by && { by, limit: query.facetLimit, ...(query.facetPresence !== undefined ? { presence: query.facetPresence } : {}) };
}

/** Facets shaped per group between turns of the event loop: up to 5,000 facets × 366 buckets of rows. */
const FACETS_PER_SLICE = 256;

async function flatMapInSlices<T, U>(items: readonly T[], fn: (item: T) => U[]): Promise<U[]> {
  const out: U[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % FACETS_PER_SLICE === 0) await yieldToEventLoop();
    for (const u of fn(items[i]!)) out.push(u);
  }
  return out;
}

/** A facet group's key: its one value as it is, or several values' JSON. */
function groupKey(values: readonly PlainValue[]): PlainValue {
  return values.length === 1 ? values[0]! : JSON.stringify(values);
}

/** Result columns → facet groups by their values, each with its vectors per bucket (JSON text parsed where `json`). */
async function groupsOf(cols: Awaited<ReturnType<PlanExecutor['aggregate']>>, groupCount: number, json: readonly boolean[]): Promise<Map<PlainValue, FacetGroup>> {
  const parse = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : Array.isArray(v) ? v.map(parse) : v);
  const groups = new Map<PlainValue, FacetGroup>();
  for (let r = 0; r < cols.rowCount; r++) {
    if (r > 0 && r % ROWS_PER_SLICE === 0) await yieldToEventLoop();
    const values = groupCount === 1 ? [cols.groups[0]![r]!] : Array.from({ length: groupCount }, (_, g) => cols.groups[g]![r]!);
    const key = groupKey(values);
    let group = groups.get(key);
    if (!group) {
      group = { values, buckets: new Map() };
      groups.set(key, group);
    }
    group.buckets.set(cols.buckets ? cols.buckets[r]! : -1, cols.aggregates.map((a, i) => (json[i] ? parse(a[r]) : a[r])));
  }
  return groups;
}

/** Rows whose facet values are one of `top` (no facet value null). */
function facetMembership(exprs: readonly RowExpr[], top: readonly PlainValue[][]): Predicate {
  if (top.length === 0) return { kind: 'not', item: { kind: 'true' } };
  if (exprs.length === 1) {
    return { kind: 'in', expr: exprs[0]!, values: top.map((v) => v[0] as string | number | boolean), negated: false };
  }
  return { kind: 'tupleIn', exprs, tuples: top.map((values) => values.map((v) => v as string | number | boolean)) };
}

/** Rows outside `inTop`, including those whose facet value is null (SQL's NOT IN would drop them). */
function notInTop(exprs: readonly RowExpr[], inTop: Predicate): Predicate {
  return { kind: 'or', items: [...exprs.map((e): Predicate => ({ kind: 'isNull', expr: e, negated: false })), { kind: 'not', item: inTop }] };
}

function rankValue(query: AnalyzedAggregate, vector: Vector | undefined, seconds: number): number | null {
  const v = vector && query.rankBy ? evaluateValue(query.rankBy, vector, seconds) : null;
  return typeof v === 'number' ? v : null;
}

interface RankedGroup {
  readonly group: FacetGroup;
  readonly score: number | null;
  /** The facet values as shown, as JSON: the order among equal scores. */
  readonly text: string;
}

function compareRanked(a: RankedGroup, b: RankedGroup): number {
  return compareRank(a.score, b.score) || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);
}

/** The first `limit` of two sorted lists, merged. */
function mergeRanked(a: readonly RankedGroup[], b: readonly RankedGroup[], limit: number): RankedGroup[] {
  const out: RankedGroup[] = [];
  let i = 0;
  let j = 0;
  while (out.length < limit && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && compareRanked(a[i]!, b[j]!) <= 0)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

/** Descending, nulls last. */
function compareRank(a: number | null, b: number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return b - a;
}

/** Output values of one group (an empty group when `vector` is undefined: counts 0, the rest null). */
function shapeValues(columns: readonly ResultColumn[], vector: Vector | undefined, seconds: number, dictionaries: NrqlDictionaries): ResultRow {
  const values = vector ?? [];
  const row: ResultRow = {};
  for (const column of columns) {
    let value = evaluateValue(column.output, values, seconds);
    const plain = (v: unknown): PlainValue => decodeValue(v as PlainValue, column.decode, dictionaries);
    if (value === null && column.listLimit !== undefined) {
      value = [];
    } else if (Array.isArray(value)) {
      // uniques(): values listed once each, in a stable order, up to the function's limit.
      const items = value.map(plain).filter((v) => v !== null);
      value = [...new Map(items.map((v) => [JSON.stringify(v), v])).values()].sort(compareValues).slice(0, column.listLimit);
    } else if (column.decode) {
      value = plain(value);
    }
    row[column.key] = value;
  }
  return row;
}

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function decodeValue(value: PlainValue, dictionary: DictionaryName | undefined, dictionaries: NrqlDictionaries): PlainValue {
  if (value === null || dictionary === undefined) return value;
  return typeof value === 'number' ? dictionaries.decode(dictionary, value) : value;
}

// ── rows ────────────────────────────────────────────────────────────────────────────────────

async function executeRows(query: AnalyzedRows, deps: ExecuteDeps): Promise<NrqlResult> {
  const run = async (window: TimeWindow) => {
    const plan: RowsPlan = {
      kind: 'rows', source: query.source, accountId: query.accountIds, window, where: query.where,
      columns: query.columns.map((c) => c.expr), all: query.all, orderBy: query.orderBy, limit: query.limit, offset: query.offset,
    };
    const result = await deps.executor.rows(plan, deps.options);
    const rows: ResultRow[] = [];
    for (const stored of result.rows) {
      const row: ResultRow = { timestamp: stored.timeMs };
      query.columns.forEach((column, c) => {
        const raw = stored.values[c] ?? null;
        const value = jsonText(column.expr) && typeof raw === 'string' ? JSON.parse(raw) as PlainValue : raw;
        row[column.key] = decodeValue(value, column.decode, deps.dictionaries);
      });
      if (query.all) {
        const whole = wholeRow(query, stored.timeMs, stored.eventType ?? '', stored.attributes ?? {}, deps.dictionaries);
        for (const [key, value] of Object.entries(whole)) if (!(key in row)) row[key] = value;
      }
      rows.push(row);
    }
    return rows;
  };
  const results = await run(query.window);
  if (!query.compare) {
    return { results, totalResult: null, otherResult: null, currentResults: null, previousResults: null, metadata: metadata(query, null) };
  }
  const previous = await run(query.compare.window);
  return {
    results: [...results.map((r) => ({ ...r, comparison: 'current' })), ...previous.map((r) => ({ ...r, comparison: 'previous' }))],
    totalResult: null, otherResult: null, currentResults: results, previousResults: previous, metadata: metadata(query, null),
  };
}

const ID_FIELD_NAMES: ReadonlySet<string> = new Set(Object.values(EVENT_ID_FIELDS));

/**
 * One stored row as New Relic lists it: its attributes (as the executor merged them), the
 * internal id fields left out, catalog ids shown as names.
 */
function wholeRow(query: AnalyzedRows, timeMs: number, eventType: string, attributes: Readonly<Record<string, unknown>>, dictionaries: NrqlDictionaries): ResultRow {
  if (query.source.kind === 'timeslices') {
    const typed = attributes as Readonly<Record<string, PlainValue | undefined>>;
    const appId = typed.appId as number;
    return {
      timestamp: timeMs,
      appId,
      appName: dictionaries.decode('appName', appId),
      'entity.guid': dictionaries.decode('entityGuid', appId),
      host: dictionaries.decode('hostName', typed.hostId as number),
      realAgentId: typed.instanceId ?? null,
      metricTimesliceName: dictionaries.decode('metricName', typed.metricId as number),
      scope: dictionaries.decode('scopeName', typed.scopeId as number),
      [TIMESLICE_VALUE]: {
        type: 'timeslice', count: typed.count ?? null, total: typed.total ?? null, totalExclusive: typed.totalExclusive ?? null,
        min: typed.min ?? null, max: typed.max ?? null, sumOfSquares: typed.sumOfSquares ?? null,
      },
    };
  }
  const merged: ResultRow = {};
  for (const name in attributes) if (!ID_FIELD_NAMES.has(name)) merged[name] = attributes[name];
  // Agents name the event type in a `type` intrinsic; New Relic keeps it as the event type, not as an attribute.
  if (merged.type === eventType) delete merged.type;
  // Entity attributes from the catalog, unless the event carries its own (Event API events do).
  const appId = attributes[EVENT_ID_FIELDS.appId] as number | undefined;
  if (appId) {
    merged.appId ??= appId;
    merged.appName ??= dictionaries.decode('appName', appId);
    merged['entity.guid'] ??= dictionaries.decode('entityGuid', appId);
    const hostId = attributes[EVENT_ID_FIELDS.hostId] as number | undefined;
    if (hostId) merged.host ??= dictionaries.decode('hostName', hostId);
  }
  return { timestamp: timeMs, ...merged };
}
