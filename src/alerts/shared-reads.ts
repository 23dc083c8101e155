import type { Condition, Expr, SelectQuery } from '../nrql/ast.js';
import { format } from '../nrql/format.js';
import type { NrqlAnswer } from '../nrql/nrql-engine.js';
import { parse } from '../nrql/parser.js';
import { MAX_SIGNALS_PER_CONDITION, evaluationQueryOf, observationsOf, readWindow, type ReadWindow } from './condition-query.js';

/** What one condition needs read in a cycle: its query over [fromMs, toMs) in windows of its signal. */
export interface ConditionRead {
  readonly conditionId: string;
  readonly accountId: number;
  readonly query: string;
  readonly facetCount: number;
  readonly windowSeconds: number;
  readonly slideBySeconds: number | null;
  readonly stepMs: number;
  /** Both multiples of `stepMs`, so every query over them lays the same windows. */
  readonly fromMs: number;
  readonly toMs: number;
}

/** One NRQL query a cycle runs, and the conditions that take their windows from its answer. */
export interface SharedRead {
  readonly accountId: number;
  readonly text: string;
  /** `pin`: the `appName` this condition's own query pins, answered by the row of that facet value. */
  readonly members: ReadonlyArray<{ readonly read: ConditionRead; readonly pin: string | null }>;
}

export interface ReadOutcome {
  /** Observations per condition, each only of windows at or after the condition's own `fromMs`. */
  readonly observations: Map<string, ReadWindow[]>;
  /** Conditions whose query failed, with the error. */
  readonly failed: Map<string, unknown>;
  /** NRQL queries run. */
  readonly queries: number;
}

interface ParsedCondition {
  readonly query: SelectQuery;
  readonly canonical: string;
  /** Set when the query is `… WHERE … AND appName = '<text>' …` without FACET: the rest and the text. */
  readonly pinned: { readonly rest: SelectQuery; readonly restText: string; readonly value: string } | null;
}

const NO_SPAN = { start: 0, end: 0 } as const;
const PIN_ATTRIBUTE = 'appName';
const parsedCache = new Map<string, ParsedCondition>();
const PARSED_CACHE_LIMIT = 20_000;

/**
 * Plans the queries of one cycle. Conditions of one account asking the same query (same canonical
 * text, window and slide) share one query over the union of their ranges. Conditions that differ
 * only in an `appName = '<text>'` conjunct of their WHERE (and have no FACET) share one query
 * `… WHERE <rest> AND appName IN (<texts>) FACET appName LIMIT <n>`: a facet's row aggregates
 * exactly the rows `appName = '<text>'` selects (NRQL groups and compares application names by
 * their text), and with as many facet slots as texts no value is cut off.
 */
export function planReads(reads: readonly ConditionRead[]): SharedRead[] {
  const groups = new Map<string, { accountId: number; text: (from: number) => string; members: Array<{ read: ConditionRead; pin: string | null }>; pinned: ParsedCondition['pinned'] }>();
  for (const read of reads) {
    const parsed = parsedOf(read.query);
    const shape = `${read.accountId}\u0000${read.windowSeconds}\u0000${read.slideBySeconds}\u0000${read.toMs}`;
    const pinned = read.facetCount === 0 ? parsed.pinned : null;
    const key = pinned ? `${shape}\u0000pin\u0000${pinned.restText}` : `${shape}\u0000q\u0000${parsed.canonical}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { accountId: read.accountId, text: () => '', members: [], pinned };
      groups.set(key, group);
    }
    group.members.push({ read, pin: pinned ? pinned.value : null });
  }
  const out: SharedRead[] = [];
  for (const group of groups.values()) {
    const first = group.members[0]!.read;
    const series = (query: SelectQuery, members: ReadonlyArray<{ read: ConditionRead }>) =>
      evaluationQueryOf(query, first.windowSeconds, first.slideBySeconds, Math.min(...members.map((m) => m.read.fromMs)), first.toMs);
    const pins = [...new Set(group.members.map((m) => m.pin))];
    if (group.pinned === null || pins.length === 1) {
      out.push({ accountId: group.accountId, text: series(parsedOf(first.query).query, group.members), members: group.members.map((m) => ({ read: m.read, pin: null })) });
      continue;
    }
    // One facet slot per pinned text: chunks of at most the facet limit.
    for (let i = 0; i < pins.length; i += MAX_SIGNALS_PER_CONDITION) {
      const chunk = new Set(pins.slice(i, i + MAX_SIGNALS_PER_CONDITION) as string[]);
      const members = group.members.filter((m) => chunk.has(m.pin!));
      out.push({ accountId: group.accountId, text: series(pinnedQuery(group.pinned.rest, [...chunk]), members), members });
    }
  }
  return out;
}

/**
 * Runs each shared read once and hands every member the windows of its own range. A shared query
 * that fails is retried as each member's own query, so one condition's failure stays its own.
 */
export async function readConditions(
  reads: readonly ConditionRead[],
  run: (text: string, accountId: number) => Promise<NrqlAnswer>,
  arrivalAt: number,
  options: { readonly share: boolean } = { share: true },
): Promise<ReadOutcome> {
  const observations = new Map<string, ReadWindow[]>();
  const failed = new Map<string, unknown>();
  let queries = 0;
  const alone = (read: ConditionRead): SharedRead => ({
    accountId: read.accountId,
    text: evaluationQueryOf(parsedOf(read.query).query, read.windowSeconds, read.slideBySeconds, read.fromMs, read.toMs),
    members: [{ read, pin: null }],
  });
  const runShared = async (shared: SharedRead): Promise<void> => {
    queries += 1;
    let answer: NrqlAnswer;
    try {
      answer = await run(shared.text, shared.accountId);
    } catch (error) {
      if (shared.members.length === 1 && shared.members[0]!.pin === null) {
        failed.set(shared.members[0]!.read.conditionId, error);
        return;
      }
      for (const m of shared.members) await runShared(alone(m.read));
      return;
    }
    // The answer is turned into windows once; members take theirs (read-only, shared).
    // In window and signal order: the answer ranks facets over its own range, which differs between
    // a shared query and a condition's own, and signals are created in the order they are observed.
    const first = shared.members[0]!.read;
    if (shared.members[0]!.pin === null) {
      const all = observationsOf(answer, first.facetCount, first.stepMs, arrivalAt).sort(byWindowAndSignal);
      for (const { read } of shared.members) observations.set(read.conditionId, all.filter((o) => o.windowStart >= read.fromMs));
      return;
    }
    const byPin = new Map<string, ReadWindow[]>();
    for (const o of observationsOf(answer, 1, first.stepMs, arrivalAt)) {
      const pinned = byPin.get(o.facets[0]!) ?? [];
      pinned.push(unpinned(o));
      byPin.set(o.facets[0]!, pinned);
    }
    for (const pinned of byPin.values()) pinned.sort(byWindowAndSignal);
    for (const { read, pin } of shared.members) observations.set(read.conditionId, (byPin.get(pin!) ?? []).filter((o) => o.windowStart >= read.fromMs));
  };
  // A stored query that no longer parses (it was checked when saved) fails its own condition only.
  const readable = reads.filter((read) => {
    try {
      parsedOf(read.query);
      return true;
    } catch (error) {
      failed.set(read.conditionId, error);
      return false;
    }
  });
  for (const shared of options.share ? planReads(readable) : readable.map(alone)) await runShared(shared);
  return { observations, failed, queries };
}

function byWindowAndSignal(a: ReadWindow, b: ReadWindow): number {
  return a.windowStart - b.windowStart || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/** A window of the `FACET appName` answer as the pinned condition's own query reads it: no facets. */
function unpinned(o: ReadWindow): ReadWindow {
  return readWindow([], o.windowStart, o.value, o.timestamp ?? o.windowStart, o.arrivalAt, o.events);
}

function parsedOf(text: string): ParsedCondition {
  const cached = parsedCache.get(text);
  if (cached !== undefined) return cached;
  const query = parse(text);
  if (query.kind !== 'select') throw new Error('an alert condition query is a SELECT');
  const parsed: ParsedCondition = { query, canonical: format(query), pinned: pinOf(query) };
  if (parsedCache.size >= PARSED_CACHE_LIMIT) parsedCache.clear();
  parsedCache.set(text, parsed);
  return parsed;
}

/** `appName = '<text>'` as one conjunct of the top-level AND chain of a query without FACET. */
function pinOf(query: SelectQuery): ParsedCondition['pinned'] {
  if (query.where === undefined || query.facet !== undefined) return null;
  const conjuncts: Condition[] = [];
  const collect = (c: Condition): void => {
    if (c.kind === 'and') {
      collect(c.left);
      collect(c.right);
    } else conjuncts.push(c);
  };
  collect(query.where);
  const pins = conjuncts.filter(isPin);
  if (pins.length !== 1) return null;
  const pin = pins[0] as Extract<Condition, { kind: 'compare' }>;
  const others = conjuncts.filter((c) => c !== pin);
  const where = others.reduce<Condition | undefined>((acc, c) => (acc === undefined ? c : { kind: 'and', left: acc, right: c, span: NO_SPAN }), undefined);
  const { where: _dropped, ...withoutWhere } = query;
  const rest: SelectQuery = where === undefined ? withoutWhere : { ...withoutWhere, where };
  return { rest, restText: format(rest), value: (pin.right as Extract<Expr, { kind: 'string' }>).value };
}

function isPin(c: Condition): boolean {
  return c.kind === 'compare' && c.op === '=' && c.left.kind === 'attribute' && c.left.name === PIN_ATTRIBUTE && c.right.kind === 'string';
}

function pinnedQuery(rest: SelectQuery, values: readonly string[]): SelectQuery {
  const attribute: Expr = { kind: 'attribute', name: PIN_ATTRIBUTE, span: NO_SPAN };
  const within: Condition = { kind: 'in', expr: attribute, values: values.map((value): Expr => ({ kind: 'string', value, span: NO_SPAN })), negated: false, span: NO_SPAN };
  const where: Condition = rest.where === undefined ? within : { kind: 'and', left: rest.where, right: within, span: NO_SPAN };
  return { ...rest, where, facet: { items: [{ kind: 'facetExpr', expr: attribute, span: NO_SPAN }], span: NO_SPAN } };
}
