import type { Arg, BucketSize, Condition, Expr, FacetItem, Interval, OrderItem, Query, SelectQuery, TimePoint } from './ast.js';
import { isPlainName } from './lexer.js';
import { quoteNrqlString } from './literals.js';

/**
 * The canonical text of a query: keywords upper case, clauses in one fixed order, single
 * spaces, only the parentheses the tree needs. `parse(format(q))` gives `q` back (spans aside),
 * so the text serves as a cache key, a saved query or the answer of an EXPLAIN. (It can be a
 * little longer than the text parsed: labels gain quotes, `.5` becomes `0.5`; a query close to
 * the 4096-character limit may print past it.)
 */
export function format(query: Query, style: FormatStyle = 'canonical'): string {
  const outer = currentStyle;
  currentStyle = style;
  try {
    return formatQuery(query);
  } finally {
    currentStyle = outer;
  }
}

/**
 * `canonical`: the text above. `readable`: as New Relic's documentation writes queries, time units
 * in lower case (`rate(count(*), 1 minute)`), TIMESERIES after the time range
 * (`SINCE … UNTIL … TIMESERIES 1 minute`) and aliases quoted only when they are not plain names
 * (`AS call_count`); it reads back as the same tree. Queries Timeslice
 * prints for people to run (REST's `X-Timeslice-NRQL`) use it.
 */
export type FormatStyle = 'canonical' | 'readable';

/** The style of the `format` call in progress (printing is synchronous, so one at a time). */
let currentStyle: FormatStyle = 'canonical';

function formatQuery(query: Query): string {
  if (query.kind === 'showEventTypes') {
    return ['SHOW EVENT TYPES', ...timeRange(query.since, query.until)].join(' ');
  }
  const parts = [`SELECT ${query.select.map((item) => selectExpr(item.expr) + alias(item.alias)).join(', ')}`];
  parts.push(`FROM ${query.from.map((t) => formatName(t.name)).join(', ')}`);
  if (query.where) parts.push(`WHERE ${condition(query.where, OR)}`);
  const orderBy = query.orderBy && `ORDER BY ${query.orderBy.map(orderItem).join(', ')}`;
  const orderByFirst = orderBy !== undefined && orderByWouldJoinFacet(query);
  if (orderByFirst) parts.push(orderBy);
  if (query.facet) {
    const items = query.facet.items.map(facetItem).join(', ');
    parts.push(`FACET ${items}${query.facet.orderBy ? ` ORDER BY ${expr(query.facet.orderBy, COALESCE)}` : ''}`);
  }
  const timeseries = query.timeseries && (() => {
    const { size, slideBy, bare } = query.timeseries;
    return `TIMESERIES${bare ? '' : ` ${bucketSize(size)}`}${slideBy ? ` SLIDE BY ${bucketSize(slideBy)}` : ''}`;
  })();
  const readable = currentStyle === 'readable';
  if (timeseries && !readable) parts.push(timeseries);
  parts.push(...timeRange(query.since, query.until));
  if (timeseries && readable) parts.push(timeseries);
  if (query.compareWith) parts.push(`COMPARE WITH ${interval(query.compareWith)} AGO`);
  if (query.limit !== undefined) parts.push(`LIMIT ${query.limit === 'max' ? 'MAX' : String(query.limit)}`);
  if (query.offset !== undefined) parts.push(`OFFSET ${query.offset}`);
  if (orderBy !== undefined && !orderByFirst) parts.push(orderBy);
  if (query.timezone !== undefined) parts.push(`WITH TIMEZONE ${quoteNrqlString(query.timezone)}`);
  if (query.metricFormat !== undefined) parts.push(`WITH METRIC_FORMAT ${quoteNrqlString(query.metricFormat)}`);
  if (query.extrapolate) parts.push('EXTRAPOLATE');
  return parts.join(' ');
}

/**
 * Readable texts of SELECT expressions by node. Trees are immutable, and the queries Timeslice
 * prints for every REST request select the same formula trees over and over.
 */
const readableText = new WeakMap<Expr, string>();

function selectExpr(e: Expr): string {
  if (currentStyle !== 'readable') return expr(e, COALESCE);
  let text = readableText.get(e);
  if (text === undefined) {
    text = expr(e, COALESCE);
    readableText.set(e, text);
  }
  return text;
}

/**
 * A single ORDER BY item without a direction written straight after a FACET that has no
 * ORDER BY of its own would read back as `FACET … ORDER BY`, so it goes before the FACET.
 */
function orderByWouldJoinFacet(query: SelectQuery): boolean {
  const orderBy = query.orderBy!;
  const between = query.timeseries ?? query.since ?? query.until ?? query.compareWith ?? query.limit ?? query.offset;
  return query.facet !== undefined && query.facet.orderBy === undefined && between === undefined && orderBy.length === 1 && !orderBy[0]!.explicit;
}

/** An expression as it would be written on its own (a SELECT item, a facet label). */
export function formatExpr(e: Expr, style: FormatStyle = 'canonical'): string {
  const outer = currentStyle;
  currentStyle = style;
  try {
    return expr(e, COALESCE);
  } finally {
    currentStyle = outer;
  }
}

export function formatCondition(c: Condition): string {
  return condition(c, OR);
}

/** A name in backticks unless it lexes as a plain, unreserved word. */
export function formatName(name: string): string {
  return plainName(name) ? name : `\`${name.replaceAll('`', '``')}\``;
}

/** `isPlainName`, remembered for the names printed most (event types, attributes, aliases of printed queries). */
const plainNames = new Map<string, boolean>();
const PLAIN_NAMES_KEPT = 10_000;

function plainName(name: string): boolean {
  let plain = plainNames.get(name);
  if (plain === undefined) {
    plain = isPlainName(name);
    if (plainNames.size >= PLAIN_NAMES_KEPT) plainNames.clear();
    plainNames.set(name, plain);
  }
  return plain;
}

// Binding strength, loosest first: an operand weaker than its context gets parentheses.
const COALESCE = 1;
const ADDITIVE = 2;
const MULTIPLICATIVE = 3;
const UNARY = 4;
const POSTFIX = 5;

const OR = 1;
const AND = 2;
const NOT = 3;
const PREDICATE = 4;

function expr(e: Expr, context: number): string {
  const text = exprText(e);
  return exprStrength(e) < context ? `(${text})` : text;
}

function exprStrength(e: Expr): number {
  switch (e.kind) {
    case 'coalesce':
      return COALESCE;
    case 'arithmetic':
      return e.op === '+' || e.op === '-' ? ADDITIVE : MULTIPLICATIVE;
    case 'negate':
      return UNARY;
    case 'number':
      return isNegative(e.value) ? UNARY : POSTFIX;
    default:
      return POSTFIX;
  }
}

function exprText(e: Expr): string {
  switch (e.kind) {
    case 'number':
      return formatNumber(e.value);
    case 'string':
      return quoteNrqlString(e.value);
    case 'boolean':
      return e.value ? 'TRUE' : 'FALSE';
    case 'null':
      return 'NULL';
    case 'attribute':
      return formatName(e.name);
    case 'star':
      return '*';
    case 'call':
      return `${e.name}(${e.args.map(arg).join(', ')})`;
    case 'fieldAccess':
      return `${expr(e.target, POSTFIX)}[${quoteNrqlString(e.field)}]`;
    case 'negate':
      // `-1` reads back as the number -1, so minus over a non-negative number keeps its parentheses.
      return `-${e.operand.kind === 'number' && !isNegative(e.operand.value) ? `(${exprText(e.operand)})` : expr(e.operand, UNARY)}`;
    case 'arithmetic': {
      const strength = exprStrength(e);
      return `${expr(e.left, strength)} ${e.op} ${expr(e.right, strength + 1)}`;
    }
    case 'coalesce':
      return `${expr(e.left, COALESCE)} OR ${expr(e.right, ADDITIVE)}`;
    case 'interval':
      return interval(e.interval);
    default:
      return unreachable(e);
  }
}

function arg(a: Arg): string {
  switch (a.kind) {
    case 'whereArg':
      return `WHERE ${condition(a.condition, OR)}`;
    case 'namedArg':
      return `${a.name}: ${expr(a.value, COALESCE)}`;
    default:
      return expr(a, COALESCE);
  }
}

function isNegative(n: number): boolean {
  return n < 0 || Object.is(n, -0);
}

/** Shortest text that reads back as the same double (`1e+21` and `5e-324` lex as numbers). */
function formatNumber(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`NRQL has no literal for ${n}`);
  return Object.is(n, -0) ? '-0' : String(n);
}

function condition(c: Condition, context: number): string {
  const text = conditionText(c);
  return conditionStrength(c) < context ? `(${text})` : text;
}

function conditionStrength(c: Condition): number {
  switch (c.kind) {
    case 'or':
      return OR;
    case 'and':
      return AND;
    case 'not':
      return NOT;
    default:
      return PREDICATE;
  }
}

function conditionText(c: Condition): string {
  // Operands of a predicate are read without coalescing `OR`, which is the boolean OR there.
  const operand = (e: Expr): string => expr(e, ADDITIVE);
  const not = (negated: boolean): string => (negated ? ' NOT' : '');
  switch (c.kind) {
    case 'or':
      return `${condition(c.left, OR)} OR ${condition(c.right, AND)}`;
    case 'and':
      return `${condition(c.left, AND)} AND ${condition(c.right, NOT)}`;
    case 'not':
      return `NOT ${condition(c.operand, NOT)}`;
    case 'compare':
      return `${operand(c.left)} ${c.op} ${operand(c.right)}`;
    case 'in':
      return `${operand(c.expr)}${not(c.negated)} IN (${c.values.map((v) => expr(v, COALESCE)).join(', ')})`;
    case 'like':
      return `${operand(c.expr)}${not(c.negated)} LIKE ${quoteNrqlString(c.pattern)}`;
    case 'rlike':
      return `${operand(c.expr)}${not(c.negated)} RLIKE ${regex(c.pattern)}`;
    case 'is':
      return `${operand(c.expr)} IS${not(c.negated)} ${c.test.toUpperCase()}`;
    default:
      return unreachable(c);
  }
}

/**
 * `r'…'` when the raw form reads back as the same text (no quote inside, no lone backslash at
 * the end), otherwise an ordinary string, whose escapes can say anything.
 */
function regex(pattern: string): string {
  if (pattern.includes("'")) return quoteNrqlString(pattern);
  for (let i = 0; i < pattern.length; i += pattern[i] === '\\' ? 2 : 1) {
    if (pattern[i] === '\\' && i + 1 === pattern.length) return quoteNrqlString(pattern);
  }
  return `r'${pattern}'`;
}

function alias(label: string | undefined): string {
  if (label === undefined) return '';
  return ` AS ${currentStyle === 'readable' && plainName(label) ? label : quoteNrqlString(label)}`;
}

function facetItem(item: FacetItem): string {
  if (item.kind === 'facetCases') {
    const cases = item.cases.map((c) => `WHERE ${condition(c.condition, OR)}${alias(c.label)}`).join(', ');
    return `CASES (${cases})${item.otherwise ? ` OR ${expr(item.otherwise, COALESCE)}` : ''}`;
  }
  const text = expr(item.expr, COALESCE);
  // A facet starting with a call to a function named `cases` would read back as FACET CASES.
  return (/^cases\s*\(/i.test(text) ? `(${text})` : text) + alias(item.alias);
}

function orderItem(item: OrderItem): string {
  return expr(item.expr, COALESCE) + (item.explicit ? (item.descending ? ' DESC' : ' ASC') : '');
}

function bucketSize(size: BucketSize): string {
  return size === 'auto' ? 'AUTO' : size === 'max' ? 'MAX' : interval(size);
}

function interval(i: Interval): string {
  const unit = `${i.unit}${i.amount === 1 ? '' : 's'}`;
  return `${i.amount} ${currentStyle === 'readable' ? unit : unit.toUpperCase()}`;
}

function timeRange(since: TimePoint | undefined, until: TimePoint | undefined): string[] {
  return [...(since ? [`SINCE ${timePoint(since)}`] : []), ...(until ? [`UNTIL ${timePoint(until)}`] : [])];
}

/** A time point as NRQL text (`2 HOURS AGO`, `TODAY AT '01:00'`, `THIS WEEK`, an epoch, a quoted date). */
export function formatTimePointText(point: TimePoint): string {
  return timePoint(point);
}

function timePoint(point: TimePoint): string {
  switch (point.kind) {
    case 'ago':
      return `${interval(point.interval)} AGO`;
    case 'now':
      return 'NOW';
    case 'epochMs':
      return String(point.ms);
    case 'dateTime':
      return quoteNrqlString(point.text);
    case 'day':
      return point.day.toUpperCase() + (point.at === undefined ? '' : ` AT ${quoteNrqlString(point.at)}`);
    case 'calendar':
      return `${point.which} ${point.unit}`.toUpperCase();
    default:
      return unreachable(point);
  }
}

function unreachable(node: never): never {
  throw new Error(`unknown NRQL node ${JSON.stringify(node)}`);
}
