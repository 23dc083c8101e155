import fc from 'fast-check';
import {
  TIME_UNITS, WEEKDAYS, type Arg, type BucketSize, type CompareOp, type Condition, type Expr, type Facet, type FacetItem,
  type Interval, type OrderItem, type Query, type SelectItem, type SelectQuery, type Span, type TimePoint, type Timeseries,
} from '../../src/nrql/ast.js';
import { format } from '../../src/nrql/format.js';

/**
 * fast-check arbitraries for valid NRQL syntax trees: every construct the parser produces, in
 * exactly the shape it produces them (a star only as a SELECT item or call argument, intervals
 * only as call arguments, IN lists of literals, bare TIMESERIES with size `auto`…), so
 * `parse(format(tree))` must give the tree back. Names and strings mix the common with the
 * awkward: reserved words, names that need backticks, quotes, backslashes, any Unicode.
 * Spans are all `NO_SPAN`; compare trees with `stripSpans`.
 */
export interface NrqlArbitraries {
  readonly query: fc.Arbitrary<Query>;
  readonly selectQuery: fc.Arbitrary<SelectQuery>;
  readonly expr: fc.Arbitrary<Expr>;
  readonly condition: fc.Arbitrary<Condition>;
  readonly timePoint: fc.Arbitrary<TimePoint>;
  /** `format` of `query`: valid query text in canonical form (now and then past the 4096-character limit). */
  readonly text: fc.Arbitrary<string>;
}

export interface NrqlGeneratorOptions {
  /** How deep expressions and conditions nest (default 4). */
  readonly maxDepth?: number;
}

export const NO_SPAN: Span = { start: 0, end: 0 };

const ATTRIBUTE_NAMES = [
  'duration', 'appName', 'host', 'error', 'entity.guid', 'newrelic.timeslice.value', 'metricTimesliceName', 'request.uri', 'Mobile:Crash',
  'http.statusCode', '_private', 'x1.y2', 'a:b.c',
  // words that are keywords only somewhere else, and so plain names here
  'count', 'max', 'auto', 'desc', 'asc', 'minutes', 'today', 'now', 'ago', 'cases', 'r', 'R', 'timezone', 'by', 'show', 'slide',
  // names that need backticks
  'Logged-in user', 'select', 'WHERE', 'Null', 'true', 'in', 'join', 'with`tick', '', ' ', '1st', 'a.', 'a..b', 'a:1', 'ünïcödé', '日本', "it's",
];
const EVENT_TYPES = ['Transaction', 'TransactionError', 'Metric', 'Span', 'Log', 'PageView', 'ChangeTrackingEvent', 'Mobile:Crash', 'My Events', 'From', 'x`y'];
const FUNCTION_NAMES = [
  'count', 'average', 'sum', 'min', 'max', 'uniqueCount', 'uniques', 'percentile', 'latest', 'filter', 'percentage', 'rate', 'apdex',
  'histogram', 'eventType', 'getField', 'abs', 'round', 'if', 'cases', 'r', 'minute', 'today', 'auto', 'Some_Func9',
];
const ARG_NAMES = ['t', 'width', 'buckets', 'start', 'exclusiveTime', 'a.b', 'x:y', 'count'];
const STRINGS = ['', 'check%', "it's", 'back\\slash', '\\', "\\'", "''", '%cart%', 'Custom/Labels/{action}', 'America/New_York', '2023-12-18 10:00 CST', '`', '\n\t'];
const REGEXES = ['ch.*', 'heck', '\\d+', 'a\\', "it's", "\\'", 'x\\\\', '[a-z]+\\.', ''];

const COMPARE_OPS: readonly CompareOp[] = ['=', '!=', '<', '<=', '>', '>='];
const CALENDAR_UNITS = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const;

export function nrqlArbitraries(options: NrqlGeneratorOptions = {}): NrqlArbitraries {
  const maxDepth = options.maxDepth ?? 4;
  const span = fc.constant(NO_SPAN);

  const text = fc.oneof(fc.constantFrom(...STRINGS), anyText(12));
  const name = (pool: readonly string[]): fc.Arbitrary<string> =>
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: anyText(8) });
  const wholeNumber = fc.oneof(fc.nat({ max: 100 }), fc.constantFrom(0, 1, 5000, 1_754_899_980_000, Number.MAX_SAFE_INTEGER));
  const number = fc.oneof(
    fc.nat({ max: 1000 }),
    fc.integer({ min: -1000, max: -1 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(0.5, -0.25, 1e21, 1e-7, 5e-324, -0, Number.MAX_VALUE, 2 ** 53 + 2),
  );
  const interval: fc.Arbitrary<Interval> = fc.record({ amount: wholeNumber, unit: fc.constantFrom(...TIME_UNITS) });

  const literal: fc.Arbitrary<Expr> = fc.oneof(
    fc.record({ kind: fc.constant('number' as const), value: number, span }),
    fc.record({ kind: fc.constant('string' as const), value: text, span }),
    fc.record({ kind: fc.constant('boolean' as const), value: fc.boolean(), span }),
    fc.record({ kind: fc.constant('null' as const), span }),
  );
  const attribute: fc.Arbitrary<Expr> = fc.record({ kind: fc.constant('attribute' as const), name: name(ATTRIBUTE_NAMES), span });

  const tree = fc.letrec<{ expr: Expr; arg: Arg; condition: Condition }>((tie) => {
    const expr = tie('expr');
    const condition = tie('condition');
    return {
      expr: fc.oneof(
        { maxDepth, depthIdentifier: 'nrql' },
        literal,
        attribute,
        fc.record({ kind: fc.constant('call' as const), name: fc.constantFrom(...FUNCTION_NAMES), args: fc.array(tie('arg'), { maxLength: 3 }), span }),
        fc.record({ kind: fc.constant('fieldAccess' as const), target: expr, field: text, span }),
        fc.record({ kind: fc.constant('negate' as const), operand: expr, span }),
        fc.record({ kind: fc.constant('arithmetic' as const), op: fc.constantFrom('+', '-', '*', '/'), left: expr, right: expr, span }),
        fc.record({ kind: fc.constant('coalesce' as const), left: expr, right: expr, span }),
      ),
      arg: fc.oneof(
        { maxDepth, depthIdentifier: 'nrql' },
        expr,
        fc.record({ kind: fc.constant('star' as const), span }),
        fc.record({ kind: fc.constant('interval' as const), interval, span }),
        fc.record({ kind: fc.constant('namedArg' as const), name: fc.constantFrom(...ARG_NAMES), value: expr, span }),
        fc.record({ kind: fc.constant('whereArg' as const), condition, span }),
      ),
      condition: fc.oneof(
        { maxDepth, depthIdentifier: 'nrql' },
        fc.record({ kind: fc.constant('compare' as const), op: fc.constantFrom(...COMPARE_OPS), left: expr, right: expr, span }),
        fc.record({ kind: fc.constant('in' as const), expr, values: fc.array(literal, { minLength: 1, maxLength: 4 }), negated: fc.boolean(), span }),
        fc.record({ kind: fc.constant('like' as const), expr, pattern: text, negated: fc.boolean(), span }),
        fc.record({ kind: fc.constant('rlike' as const), expr, pattern: fc.oneof(fc.constantFrom(...REGEXES), text), negated: fc.boolean(), span }),
        fc.record({ kind: fc.constant('is' as const), expr, test: fc.constantFrom('null', 'true', 'false'), negated: fc.boolean(), span }),
        fc.record({ kind: fc.constantFrom('and' as const, 'or' as const), left: condition, right: condition, span }),
        fc.record({ kind: fc.constant('not' as const), operand: condition, span }),
      ),
    };
  });
  const { expr, condition } = tree;

  const label = fc.option(text, { nil: undefined });
  const selectItem: fc.Arbitrary<SelectItem> = fc.oneof(
    { weight: 1, arbitrary: fc.constant<SelectItem>({ expr: { kind: 'star', span: NO_SPAN }, span: NO_SPAN }) },
    { weight: 5, arbitrary: fc.record({ expr, alias: label, span }).map(withoutUndefined) },
  );
  const facetItem: fc.Arbitrary<FacetItem> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('facetExpr' as const), expr, alias: label, span }).map(withoutUndefined) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('facetCases' as const),
        cases: fc.array(fc.record({ condition, label, span }).map(withoutUndefined), { minLength: 1, maxLength: 3 }),
        otherwise: fc.option(expr, { nil: undefined }),
        span,
      }).map(withoutUndefined),
    },
  );
  const facet: fc.Arbitrary<Facet> = fc.record(
    { items: fc.array(facetItem, { minLength: 1, maxLength: 3 }), orderBy: expr, span },
    { requiredKeys: ['items', 'span'] },
  );
  const bucketSize: fc.Arbitrary<BucketSize> = fc.oneof(fc.constantFrom<BucketSize>('auto', 'max'), interval);
  const timeseries: fc.Arbitrary<Timeseries> = fc.oneof(
    fc.record({ size: fc.constant<BucketSize>('auto'), slideBy: bucketSize, bare: fc.constant(true), span }, { requiredKeys: ['size', 'bare', 'span'] }),
    fc.record({ size: bucketSize, slideBy: bucketSize, bare: fc.constant(false), span }, { requiredKeys: ['size', 'bare', 'span'] }),
  );
  const timePoint: fc.Arbitrary<TimePoint> = fc.oneof(
    fc.record({ kind: fc.constant('ago' as const), interval, span }),
    fc.record({ kind: fc.constant('now' as const), span }),
    fc.record({ kind: fc.constant('epochMs' as const), ms: wholeNumber, span }),
    fc.record({ kind: fc.constant('dateTime' as const), text, span }),
    fc.record({ kind: fc.constant('day' as const), day: fc.constantFrom('today' as const, 'yesterday' as const, ...WEEKDAYS), at: text, span }, { requiredKeys: ['kind', 'day', 'span'] }),
    fc.record({ kind: fc.constant('calendar' as const), which: fc.constantFrom('this' as const, 'last' as const), unit: fc.constantFrom(...CALENDAR_UNITS), span }),
  );
  const orderItem: fc.Arbitrary<OrderItem> = fc.oneof(
    fc.record({ expr, descending: fc.constant(false), explicit: fc.constant(false), span }),
    fc.record({ expr, descending: fc.boolean(), explicit: fc.constant(true), span }),
  );
  const selectQuery: fc.Arbitrary<SelectQuery> = fc.record(
    {
      kind: fc.constant('select' as const),
      select: fc.array(selectItem, { minLength: 1, maxLength: 4 }),
      from: fc.array(fc.record({ name: name(EVENT_TYPES), span }), { minLength: 1, maxLength: 3 }),
      where: condition,
      facet,
      timeseries,
      since: timePoint,
      until: timePoint,
      compareWith: interval,
      limit: fc.oneof(fc.constant<'max'>('max'), wholeNumber),
      offset: wholeNumber,
      orderBy: fc.array(orderItem, { minLength: 1, maxLength: 3 }),
      timezone: text,
      metricFormat: text,
      extrapolate: fc.boolean(),
      span,
    },
    { requiredKeys: ['kind', 'select', 'from', 'extrapolate', 'span'] },
  );
  const showEventTypes: fc.Arbitrary<Query> = fc.record(
    { kind: fc.constant('showEventTypes' as const), since: timePoint, until: timePoint, span },
    { requiredKeys: ['kind', 'span'] },
  );
  const query = fc.oneof({ weight: 19, arbitrary: selectQuery as fc.Arbitrary<Query> }, { weight: 1, arbitrary: showEventTypes });
  return { query, selectQuery, expr, condition, timePoint, text: query.map(format) };
}

/**
 * A character for generated text: mostly ASCII and the characters quoting has to get right,
 * sometimes any UTF-16 unit (lone surrogates included) or an astral code point. (fast-check's
 * `binary` unit would do, but it builds a million-entry reverse map first, which takes seconds.)
 */
const CHARACTER = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("'", '`', '\\', ' ', '%', '_', '.', ':', 'a', 'Z', '0', '\n') },
  { weight: 3, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)) },
);

/** Random text of up to `maxLength` characters drawn from `CHARACTER`. */
export function anyText(maxLength: number): fc.Arbitrary<string> {
  return fc.string({ unit: CHARACTER, maxLength });
}

/** fc.record with `fc.option` members leaves `undefined` values; the parser leaves such members out. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
