import { AggregateSet, type AggregateAdder } from '../plan/aggregate-plan.js';
import { TIMESLICE_VALUE } from '../domain/aggregate/timeslice-value.js';
import { aggregateKey, assertNever, type AggregateCall, type OutputExpr } from '../plan/expressions.js';
import { lowerFormula } from './analyze.js';
import type { Arg, Condition, Expr, Interval, SelectQuery, Span } from './ast.js';
import { format, formatExpr, formatName } from './format.js';
import { parse } from './parser.js';

/**
 * An NRQL aggregate expression Timeslice computes on its own account — a REST value
 * (`average(newrelic.timeslice.value) * 1000`), a mobile metric's value, a summary number — over
 * rows its caller's plan chooses. Its text is parsed once and lowered once by the analyzer's
 * function table, as the same text in a query would be; each plan then takes the lowered
 * aggregates into its own set. The same tree is what `X-Timeslice-NRQL` prints.
 */
export interface Formula {
  readonly text: string;
  /** The event type its attributes belong to (`Metric` for the timeslice value). */
  readonly eventType: string;
  readonly expr: Expr;
  /** Adds the formula's primitive aggregates to `set`; the output derives its number from them. */
  lower(set: AggregateAdder): OutputExpr;
}

/** By event type, then by text: the texts are the tables' constants, so a lookup hashes nothing new. */
const formulas = new Map<string, Map<string, Formula>>();

/** The formula of `text` over `eventType`, parsed and lowered at its first use and kept. */
export function formula(text: string, eventType = 'Metric'): Formula {
  let byText = formulas.get(eventType);
  if (!byText) {
    byText = new Map();
    formulas.set(eventType, byText);
  }
  let found = byText.get(text);
  if (!found) {
    found = compile(text, eventType);
    byText.set(text, found);
  }
  return found;
}

/** Parsed and lowered at the first use, not at module load. */
function compile(text: string, eventType: string): Formula {
  let compiled: { expr: Expr; output: OutputExpr; calls: readonly AggregateCall[]; keys: readonly string[] } | undefined;
  const get = () => {
    if (compiled) return compiled;
    const query = parse(`SELECT ${text} FROM ${formatName(eventType)}`);
    if (query.kind !== 'select' || query.select.length !== 1 || query.select[0]!.alias !== undefined) {
      throw new Error(`a formula is one aggregate expression: ${text}`);
    }
    const expr = query.select[0]!.expr;
    const own = new AggregateSet();
    const lowered = lowerFormula(expr, eventType, own).output;
    // An object-valued aggregate (apdex → {score, s, t, f, count}) gives its main number, the first.
    compiled = { expr, output: lowered.kind === 'object' ? lowered.entries[0]![1] : lowered, calls: own.all, keys: own.all.map(aggregateKey) };
    return compiled;
  };
  return {
    text,
    eventType,
    get expr() {
      return get().expr;
    },
    lower(set) {
      const { output, calls, keys } = get();
      return reindex(output, calls.map((call, i) => set.add(call, keys[i])));
    },
  };
}

/** `expr` with aggregate indexes of its own set replaced by their indexes in another. */
function reindex(expr: OutputExpr, index: readonly number[]): OutputExpr {
  switch (expr.kind) {
    case 'aggregate': case 'value': return { ...expr, index: index[expr.index]! };
    case 'item': return { ...expr, index: index[expr.index]! };
    case 'number': case 'groupSeconds': return expr;
    case 'arith': return { ...expr, left: reindex(expr.left, index), right: reindex(expr.right, index) };
    case 'sqrt': case 'clampMin0': case 'zeroIfNull': return { ...expr, arg: reindex(expr.arg, index) };
    case 'object': return { ...expr, entries: expr.entries.map(([name, e]) => [name, reindex(e, index)] as const) };
    default: return assertNever(expr);
  }
}

// ── Queries Timeslice prints: built as trees, printed by nrql/format ──────────────────────

const NO_SPAN: Span = { start: 0, end: 0 };

/** Literal and name nodes for building conditions. */
export const nrql = {
  attribute: (name: string): Expr => ({ kind: 'attribute', name, span: NO_SPAN }),
  literal: (value: number | string): Expr =>
    typeof value === 'number' ? { kind: 'number', value, span: NO_SPAN } : { kind: 'string', value, span: NO_SPAN },
  eq: (name: string, value: number | string): Condition => ({ kind: 'compare', op: '=', left: nrql.attribute(name), right: nrql.literal(value), span: NO_SPAN }),
  isNull: (name: string): Condition => ({ kind: 'is', expr: nrql.attribute(name), test: 'null', negated: false, span: NO_SPAN }),
  isNotNull: (name: string): Condition => ({ kind: 'is', expr: nrql.attribute(name), test: 'null', negated: true, span: NO_SPAN }),
  like: (name: string, pattern: string): Condition => ({ kind: 'like', expr: nrql.attribute(name), pattern, negated: false, span: NO_SPAN }),
  notIn: (name: string, values: readonly number[]): Condition => ({ kind: 'in', expr: nrql.attribute(name), values: values.map((v) => nrql.literal(v)), negated: true, span: NO_SPAN }),
  /** `a AND b AND c`, left to right as the parser reads it. */
  and: (conditions: readonly Condition[]): Condition | undefined =>
    conditions.reduce<Condition | undefined>((left, right) => (left ? { kind: 'and', left, right, span: NO_SPAN } : right), undefined),
};

export interface FormulaQuery {
  readonly select: readonly { readonly formula: Formula; readonly alias: string }[];
  readonly from: string;
  readonly where: readonly Condition[];
  readonly beginMs: number;
  readonly endMs: number;
  /** Bucket width in seconds; none for one summary over the window. */
  readonly timeseriesSeconds?: number;
}

/** The NRQL query selecting formulas over a window, as a tree. */
export function formulaQuery(q: FormulaQuery): SelectQuery {
  const where = nrql.and(q.where);
  return {
    kind: 'select',
    select: q.select.map((item) => ({ expr: item.formula.expr, alias: item.alias, span: NO_SPAN })),
    from: [{ name: q.from, span: NO_SPAN }],
    ...(where ? { where } : {}),
    ...(q.timeseriesSeconds !== undefined ? { timeseries: { size: intervalOf(q.timeseriesSeconds), bare: false, span: NO_SPAN } } : {}),
    since: { kind: 'epochMs', ms: q.beginMs, span: NO_SPAN },
    until: { kind: 'epochMs', ms: q.endMs, span: NO_SPAN },
    extrapolate: false,
    span: NO_SPAN,
  };
}

/** `SELECT * FROM <from> WHERE … SINCE … UNTIL … LIMIT …`, as a tree (event listings Timeslice reads through NRQL). */
export function listingQuery(q: {
  readonly from: string;
  readonly where: readonly Condition[];
  readonly beginMs: number;
  readonly endMs: number;
  readonly limit: number;
  readonly offset?: number;
  /** Attributes to order by, newest or largest first. */
  readonly orderByDescending?: readonly string[];
}): SelectQuery {
  const where = nrql.and(q.where);
  return {
    kind: 'select',
    select: [{ expr: { kind: 'star', span: NO_SPAN }, span: NO_SPAN }],
    from: [{ name: q.from, span: NO_SPAN }],
    ...(where ? { where } : {}),
    since: { kind: 'epochMs', ms: q.beginMs, span: NO_SPAN },
    until: { kind: 'epochMs', ms: q.endMs, span: NO_SPAN },
    limit: q.limit,
    ...(q.offset ? { offset: q.offset } : {}),
    ...(q.orderByDescending?.length
      ? { orderBy: q.orderByDescending.map((name) => ({ expr: nrql.attribute(name), descending: true, explicit: true, span: NO_SPAN })) }
      : {}),
    extrapolate: false,
    span: NO_SPAN,
  };
}

/** The text people run: `format` in its readable style. */
export function formulaQueryText(q: FormulaQuery): string {
  return format(formulaQuery(q), 'readable');
}

const UNITS: readonly [number, Interval['unit']][] = [[86_400, 'day'], [3_600, 'hour'], [60, 'minute'], [1, 'second']];

/** `60` → 1 minute, `120` → 2 minutes, `90` → 90 seconds: the largest whole unit. */
export function intervalOf(seconds: number): Interval {
  for (const [size, unit] of UNITS) {
    if (seconds % size === 0) return { amount: seconds / size, unit };
  }
  return { amount: seconds * 1000, unit: 'millisecond' };
}

/** A formula's expression with attribute `from` written as `to` (the spec writes the timeslice value `V`). */
export function renameAttribute(expr: Expr, from: string, to: string): Expr {
  const arg = (a: Arg): Arg => (a.kind === 'whereArg' ? a : a.kind === 'namedArg' ? { ...a, value: renameAttribute(a.value, from, to) } : renameAttribute(a, from, to));
  switch (expr.kind) {
    case 'attribute': return expr.name === from ? { ...expr, name: to } : expr;
    case 'call': return { ...expr, args: expr.args.map(arg) };
    case 'fieldAccess': return { ...expr, target: renameAttribute(expr.target, from, to) };
    case 'negate': return { ...expr, operand: renameAttribute(expr.operand, from, to) };
    case 'arithmetic': case 'coalesce': return { ...expr, left: renameAttribute(expr.left, from, to), right: renameAttribute(expr.right, from, to) };
    default: return expr;
  }
}

/** A formula as the readable printer writes it, the timeslice value written as `valueName`. */
export function printFormula(f: Formula, valueName: string = TIMESLICE_VALUE): string {
  return formatExpr(valueName === TIMESLICE_VALUE ? f.expr : renameAttribute(f.expr, TIMESLICE_VALUE, valueName), 'readable');
}
