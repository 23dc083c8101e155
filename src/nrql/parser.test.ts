import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripSpans, type SelectQuery } from './ast.js';
import { NRQL_ERROR_CODES, NrqlError, type NrqlErrorCode } from './nrql-error.js';
import { MAX_NESTING, MAX_TREE_DEPTH, parse, parseCondition } from './parser.js';
import { NRQL_PATTERN_QUERIES, NRQL_WORKED_EXAMPLES } from '../../test/helpers/nrql-examples.js';

// Expected trees are written without spans and compared with `stripSpans(parse(…))`.
const attr = (name: string) => ({ kind: 'attribute', name });
const num = (value: number) => ({ kind: 'number', value });
const str = (value: string) => ({ kind: 'string', value });
const call = (name: string, ...args: unknown[]) => ({ kind: 'call', name, args });
const star = { kind: 'star' };
const arith = (op: string, left: unknown, right: unknown) => ({ kind: 'arithmetic', op, left, right });
const cmp = (op: string, left: unknown, right: unknown) => ({ kind: 'compare', op, left, right });
const and = (left: unknown, right: unknown) => ({ kind: 'and', left, right });
const or = (left: unknown, right: unknown) => ({ kind: 'or', left, right });
const ago = (amount: number, unit: string) => ({ kind: 'ago', interval: { amount, unit } });
const W = { since: { kind: 'epochMs', ms: 1754899980000 }, until: { kind: 'epochMs', ms: 1754900160000 } };
const V = { since: { kind: 'epochMs', ms: 1754899980000 }, until: { kind: 'epochMs', ms: 1754900100000 } };

function tree(text: string): unknown {
  return stripSpans(parse(text));
}

/** The SELECT query `text` without spans. */
function select(text: string): SelectQuery {
  const q = tree(text) as SelectQuery;
  assert.equal(q.kind, 'select');
  return q;
}

/** The first SELECT item's expression of `SELECT <expr> FROM T`. */
function expr(text: string): unknown {
  return select(`SELECT ${text} FROM T`).select[0]!.expr;
}

/** The WHERE condition of `SELECT x FROM T WHERE <condition>`. */
function where(text: string): unknown {
  return select(`SELECT x FROM T WHERE ${text}`).where;
}

function fails(text: string, code: NrqlErrorCode, message: string, span: { start: number; end: number }, suggestion?: string): void {
  assert.throws(
    () => parse(text),
    (e: unknown) => {
      assert.ok(e instanceof NrqlError, String(e));
      assert.equal(e.message, message);
      assert.equal(e.code, code);
      assert.deepEqual(e.span, span);
      assert.equal(e.suggestion, suggestion);
      return true;
    },
  );
}

// ── the reference's queries ───────────────────────────────────────────────────────────────────

test('every worked example (E1–E36) and §5.3 query pattern parses', () => {
  assert.equal(NRQL_WORKED_EXAMPLES.length, 39);
  for (const { id, text } of [...NRQL_WORKED_EXAMPLES, ...NRQL_PATTERN_QUERIES]) {
    assert.doesNotThrow(() => parse(text), id);
  }
});

test('E1 and E3: the whole tree, aliases as strings and as identifiers', () => {
  assert.deepEqual(tree(NRQL_WORKED_EXAMPLES[0]!.text), {
    kind: 'select', select: [{ expr: call('count', star) }], from: [{ name: 'Transaction' }], ...W, extrapolate: false,
  });
  assert.deepEqual(tree(NRQL_WORKED_EXAMPLES[2]!.text), {
    kind: 'select',
    select: [{ expr: call('count', star), alias: 'Total' }, { expr: call('uniqueCount', attr('host')), alias: 'hosts' }],
    from: [{ name: 'Transaction' }],
    ...W,
    extrapolate: false,
  });
});

test('E8, E10, E11: WHERE, interval and named arguments', () => {
  assert.deepEqual(select(NRQL_WORKED_EXAMPLES[7]!.text).select, [
    { expr: call('percentage', call('count', star), { kind: 'whereArg', condition: { kind: 'is', expr: attr('error'), test: 'true', negated: false } }), alias: 'errorPct' },
  ]);
  assert.deepEqual(select(NRQL_WORKED_EXAMPLES[9]!.text).select[0]!.expr, call('rate', call('count', star), { kind: 'interval', interval: { amount: 1, unit: 'minute' } }));
  assert.deepEqual(select(NRQL_WORKED_EXAMPLES[10]!.text).select[0]!.expr, call('apdex', attr('duration'), { kind: 'namedArg', name: 't', value: num(0.5) }));
});

test('E14, E15, E16: NOT LIKE, NOT IN, RLIKE, parentheses and IS NULL', () => {
  assert.deepEqual(
    select(NRQL_WORKED_EXAMPLES[13]!.text).where,
    and(
      { kind: 'like', expr: attr('name'), pattern: '%cart%', negated: true },
      { kind: 'in', expr: attr('httpResponseCode'), values: [str('500'), str('503')], negated: true },
    ),
  );
  assert.deepEqual(select(NRQL_WORKED_EXAMPLES[14]!.text).where, { kind: 'rlike', expr: attr('appName'), pattern: 'ch.*', negated: false });
  assert.deepEqual(
    select(NRQL_WORKED_EXAMPLES[16]!.text).where,
    and(or(cmp('!=', attr('host'), str('h3')), cmp('<', attr('duration'), num(0.1))), { kind: 'is', expr: attr('userId'), test: 'null', negated: false }),
  );
});

test('E20: FACET CASES with labels; E19: several facets', () => {
  assert.deepEqual(select(NRQL_WORKED_EXAMPLES.find((e) => e.id === 'E20')!.text).facet, {
    items: [{
      kind: 'facetCases',
      cases: [
        { condition: cmp('<', attr('duration'), num(0.2)), label: 'fast' },
        { condition: cmp('>=', attr('duration'), num(0.2)), label: 'slow' },
      ],
    }],
  });
  assert.deepEqual(select(NRQL_WORKED_EXAMPLES.find((e) => e.id === 'E19')!.text).facet, {
    items: [{ kind: 'facetExpr', expr: attr('appName') }, { kind: 'facetExpr', expr: attr('host') }],
  });
});

test('E25, E26: ORDER BY DESC; FROM first, lower-case keywords, clauses in any order', () => {
  const e25 = select(NRQL_WORKED_EXAMPLES.find((e) => e.id === 'E25')!.text);
  assert.deepEqual(e25.orderBy, [{ expr: attr('duration'), descending: true, explicit: true }]);
  assert.equal(e25.limit, 2);
  assert.deepEqual(tree(NRQL_WORKED_EXAMPLES.find((e) => e.id === 'E26')!.text), {
    kind: 'select',
    select: [{ expr: call('COUNT', star) }],
    from: [{ name: 'Transaction' }],
    where: cmp('=', attr('appName'), str('search')),
    timeseries: { size: { amount: 1, unit: 'minute' }, bare: false },
    ...W,
    extrapolate: false,
  });
});

test('E27, E28: backtick names, case-sensitive attributes, coalescing OR, * beside other items, two event types', () => {
  assert.deepEqual(select(NRQL_WORKED_EXAMPLES.find((e) => e.id === 'E27a')!.text).facet!.items, [{ kind: 'facetExpr', expr: attr('Logged-in user') }]);
  assert.deepEqual(select(NRQL_WORKED_EXAMPLES.find((e) => e.id === 'E27b')!.text).where, cmp('=', attr('APPNAME'), str('search')));
  const e28 = select(NRQL_WORKED_EXAMPLES.find((e) => e.id === 'E28')!.text);
  assert.deepEqual(e28.select, [
    { expr: call('eventType') },
    { expr: { kind: 'coalesce', left: attr('deploymentId'), right: attr('changeTrackingId') }, alias: 'id' },
    { expr: star },
  ]);
  assert.deepEqual(e28.from, [{ name: 'ChangeTrackingEvent' }, { name: 'Deployment' }]);
  assert.deepEqual(e28.since, ago(1, 'week'));
  assert.equal(e28.limit, 100);
});

test('E32, E34: field access inside arithmetic; IS NOT NULL; LIMIT MAX', () => {
  const v = attr('newrelic.timeslice.value');
  const e32 = select(NRQL_WORKED_EXAMPLES.find((e) => e.id === 'E32')!.text);
  assert.deepEqual(e32.select[0], {
    expr: arith('*', call('average', arith('/', { kind: 'fieldAccess', target: v, field: 'totalExclusive' }, { kind: 'fieldAccess', target: v, field: 'count' })), num(1000)),
    alias: 'per_point',
  });
  assert.deepEqual(e32.select[1]!.expr, arith('*', call('average', v, { kind: 'namedArg', name: 'exclusiveTime', value: { kind: 'boolean', value: true } }), num(1000)));
  const e34 = select(NRQL_WORKED_EXAMPLES.find((e) => e.id === 'E34')!.text);
  assert.deepEqual(e34.where, and(cmp('=', attr('appId'), num(77001)), { kind: 'is', expr: v, test: 'null', negated: true }));
  assert.equal(e34.limit, 'max');
  assert.deepEqual([e34.since, e34.until], [V.since, V.until]);
});

test('§5.3: bare TIMESERIES, FACET after LIMIT, WITH METRIC_FORMAT', () => {
  const [p1, p2, , p4, p5] = NRQL_PATTERN_QUERIES.map((p) => select(p.text));
  assert.deepEqual(p1!.since, ago(30, 'minute'));
  assert.deepEqual(p2!.timeseries, { size: 'auto', bare: true });
  assert.deepEqual([p4!.limit, p4!.facet, p4!.since], [20, { items: [{ kind: 'facetExpr', expr: attr('metricTimesliceName') }] }, ago(3, 'day')]);
  assert.equal(p5!.metricFormat, 'Custom/Labels/{action}');
  assert.deepEqual(p5!.facet, { items: [{ kind: 'facetExpr', expr: attr('action') }] });
});

// ── expressions ───────────────────────────────────────────────────────────────────────────────

test('arithmetic: * and / before + and -, left to right, parentheses kept in the tree', () => {
  assert.deepEqual(expr('a - b - c'), arith('-', arith('-', attr('a'), attr('b')), attr('c')));
  assert.deepEqual(expr('a - (b - c)'), arith('-', attr('a'), arith('-', attr('b'), attr('c'))));
  assert.deepEqual(expr('a + b * c / 2'), arith('+', attr('a'), arith('/', arith('*', attr('b'), attr('c')), num(2))));
  assert.deepEqual(expr('(a + b) * c'), arith('*', arith('+', attr('a'), attr('b')), attr('c')));
  assert.deepEqual(expr('count(*) / uniqueCount(host)'), arith('/', call('count', star), call('uniqueCount', attr('host'))));
});

test('unary minus: a number literal becomes negative, anything else is negated, binding tighter than *', () => {
  assert.deepEqual(expr('-1'), num(-1));
  assert.deepEqual(expr('- 2.5'), num(-2.5));
  assert.deepEqual(expr('-(1)'), { kind: 'negate', operand: num(1) });
  assert.deepEqual(expr('--1'), { kind: 'negate', operand: num(-1) });
  assert.deepEqual(expr('-a * b'), arith('*', { kind: 'negate', operand: attr('a') }, attr('b')));
  assert.deepEqual(expr('a - -1'), arith('-', attr('a'), num(-1)));
  assert.deepEqual(expr("-x['f']"), { kind: 'negate', operand: { kind: 'fieldAccess', target: attr('x'), field: 'f' } });
  assert.deepEqual(expr("-1['f']"), { kind: 'negate', operand: { kind: 'fieldAccess', target: num(1), field: 'f' } });
  assert.deepEqual(expr("(-1)['f']"), { kind: 'fieldAccess', target: num(-1), field: 'f' });
});

test('field access chains and applies to calls and parenthesised expressions', () => {
  assert.deepEqual(expr("customAttributes['key']['sub']"), {
    kind: 'fieldAccess', target: { kind: 'fieldAccess', target: attr('customAttributes'), field: 'key' }, field: 'sub',
  });
  assert.deepEqual(expr("latest(v)['count']"), { kind: 'fieldAccess', target: call('latest', attr('v')), field: 'count' });
});

test('literals, keywords as function names, and calls with every kind of argument', () => {
  assert.deepEqual(expr("'it''s'"), str("it's"));
  assert.deepEqual([expr('TRUE'), expr('false'), expr('NULL')], [{ kind: 'boolean', value: true }, { kind: 'boolean', value: false }, { kind: 'null' }]);
  assert.deepEqual(expr('uniquecount(host)'), call('uniquecount', attr('host')));
  assert.deepEqual(expr('eventType()'), call('eventType'));
  assert.deepEqual(
    expr("histogram(duration, width: 5, buckets: 10, start: -1)"),
    call('histogram', attr('duration'), { kind: 'namedArg', name: 'width', value: num(5) }, { kind: 'namedArg', name: 'buckets', value: num(10) }, { kind: 'namedArg', name: 'start', value: num(-1) }),
  );
  assert.deepEqual(expr('rate(sum(x), 5 MINUTES)'), call('rate', call('sum', attr('x')), { kind: 'interval', interval: { amount: 5, unit: 'minute' } }));
  assert.deepEqual(
    expr("filter(count(*), WHERE a = 1 OR b IN ('x'))"),
    call('filter', call('count', star), { kind: 'whereArg', condition: or(cmp('=', attr('a'), num(1)), { kind: 'in', expr: attr('b'), values: [str('x')], negated: false }) }),
  );
  // Words that are keywords elsewhere are plain names here.
  assert.deepEqual(expr('max(count) + minutes'), arith('+', call('max', attr('count')), attr('minutes')));
  assert.deepEqual(expr('`select` + `a``b`'), arith('+', attr('select'), attr('a`b')));
});

test('coalescing OR in SELECT, arguments, FACET and ORDER BY, left to right', () => {
  assert.deepEqual(expr('a OR b OR 0'), { kind: 'coalesce', left: { kind: 'coalesce', left: attr('a'), right: attr('b') }, right: num(0) });
  assert.deepEqual(expr('a + 1 OR b'), { kind: 'coalesce', left: arith('+', attr('a'), num(1)), right: attr('b') });
  assert.deepEqual(expr('sum(a OR 0)'), call('sum', { kind: 'coalesce', left: attr('a'), right: num(0) }));
  const q = select('SELECT count(*) FROM T FACET a OR b AS label ORDER BY x OR y');
  assert.deepEqual(q.facet, {
    items: [{ kind: 'facetExpr', expr: { kind: 'coalesce', left: attr('a'), right: attr('b') }, alias: 'label' }],
    orderBy: { kind: 'coalesce', left: attr('x'), right: attr('y') },
  });
});

// ── conditions ────────────────────────────────────────────────────────────────────────────────

test('conditions: NOT binds tighter than AND, AND tighter than OR, both left to right', () => {
  const [a, b, c] = [cmp('=', attr('a'), num(1)), cmp('=', attr('b'), num(2)), cmp('=', attr('c'), num(3))];
  assert.deepEqual(where('a = 1 OR b = 2 AND c = 3'), or(a, and(b, c)));
  assert.deepEqual(where('a = 1 AND b = 2 OR c = 3'), or(and(a, b), c));
  assert.deepEqual(where('NOT a = 1 AND b = 2'), and({ kind: 'not', operand: a }, b));
  assert.deepEqual(where('NOT (a = 1 AND b = 2)'), { kind: 'not', operand: and(a, b) });
  assert.deepEqual(where('a = 1 AND b = 2 AND c = 3'), and(and(a, b), c));
  assert.deepEqual(where('a = 1 AND (b = 2 OR c = 3)'), and(a, or(b, c)));
  assert.deepEqual(where('NOT NOT a = 1'), { kind: 'not', operand: { kind: 'not', operand: a } });
  assert.deepEqual(where('((a = 1))'), a);
  assert.deepEqual(where('(NOT a = 1 OR b = 2)'), or({ kind: 'not', operand: a }, b));
});

test('predicates: every comparison, <> as !=, IN lists of literals, LIKE, RLIKE, IS', () => {
  for (const op of ['=', '!=', '<', '<=', '>', '>=']) assert.deepEqual(where(`x ${op} 1`), cmp(op, attr('x'), num(1)));
  assert.deepEqual(where('x <> y'), cmp('!=', attr('x'), attr('y')));
  assert.deepEqual(where("accountId() IN (1, -2, 'x', TRUE, NULL)"), {
    kind: 'in', expr: call('accountId'), values: [num(1), num(-2), str('x'), { kind: 'boolean', value: true }, { kind: 'null' }], negated: false,
  });
  assert.deepEqual(where("name like 'o%a'"), { kind: 'like', expr: attr('name'), pattern: 'o%a', negated: false });
  assert.deepEqual(where("name NOT RLIKE 'a\\\\d'"), { kind: 'rlike', expr: attr('name'), pattern: 'a\\d', negated: true });
  assert.deepEqual(where("name rlike r'a\\d'"), { kind: 'rlike', expr: attr('name'), pattern: 'a\\d', negated: false });
  assert.deepEqual(where('error IS FALSE'), { kind: 'is', expr: attr('error'), test: 'false', negated: false });
  assert.deepEqual(where('error is not true'), { kind: 'is', expr: attr('error'), test: 'true', negated: true });
  assert.deepEqual(where('duration * 1000 > 5 + x'), cmp('>', arith('*', attr('duration'), num(1000)), arith('+', num(5), attr('x'))));
});

test('parentheses at the start of a predicate may hold an expression; OR inside them coalesces', () => {
  assert.deepEqual(where('(a + b) * 2 > 3'), cmp('>', arith('*', arith('+', attr('a'), attr('b')), num(2)), num(3)));
  assert.deepEqual(where('(a OR b) IS NULL'), { kind: 'is', expr: { kind: 'coalesce', left: attr('a'), right: attr('b') }, test: 'null', negated: false });
  assert.deepEqual(where("(x)['f'] = 1 AND ((a)) = 2"), and(cmp('=', { kind: 'fieldAccess', target: attr('x'), field: 'f' }, num(1)), cmp('=', attr('a'), num(2))));
  assert.deepEqual(where('((a + 1) = 2 OR b = 3)'), or(cmp('=', arith('+', attr('a'), num(1)), num(2)), cmp('=', attr('b'), num(3))));
  assert.deepEqual(where('x = (a OR b)'), cmp('=', attr('x'), { kind: 'coalesce', left: attr('a'), right: attr('b') }));
});

// ── clauses ───────────────────────────────────────────────────────────────────────────────────

test('FACET: aliases, CASES with and without labels, OR otherwise, its own ORDER BY', () => {
  assert.deepEqual(select("SELECT count(*) FROM T FACET appName AS 'App', hourOf(timestamp) ORDER BY max(duration) LIMIT 5").facet, {
    items: [{ kind: 'facetExpr', expr: attr('appName'), alias: 'App' }, { kind: 'facetExpr', expr: call('hourOf', attr('timestamp')) }],
    orderBy: call('max', attr('duration')),
  });
  assert.deepEqual(select("SELECT count(*) FROM T FACET cases (where a = 1, WHERE b = 2 as 'two') OR host, cases").facet, {
    items: [
      { kind: 'facetCases', cases: [{ condition: cmp('=', attr('a'), num(1)) }, { condition: cmp('=', attr('b'), num(2)), label: 'two' }], otherwise: attr('host') },
      { kind: 'facetExpr', expr: attr('cases') },
    ],
  });
});

test('ORDER BY written straight after FACET with a direction or a second item is the query ORDER BY', () => {
  const q = select('SELECT count(*) FROM ChangeTrackingEvent FACET user ORDER BY count DESC');
  assert.deepEqual(q.facet, { items: [{ kind: 'facetExpr', expr: attr('user') }] });
  assert.deepEqual(q.orderBy, [{ expr: attr('count'), descending: true, explicit: true }]);
  const q2 = select('SELECT x FROM T FACET a ORDER BY b, c');
  assert.deepEqual(q2.orderBy, [{ expr: attr('b'), descending: false, explicit: false }, { expr: attr('c'), descending: false, explicit: false }]);
  assert.equal(q2.facet!.orderBy, undefined);
  const q3 = select('SELECT x FROM T FACET a SINCE 1 day ago ORDER BY b');
  assert.deepEqual([q3.facet!.orderBy, q3.orderBy], [undefined, [{ expr: attr('b'), descending: false, explicit: false }]]);
});

test('TIMESERIES: bare, AUTO, MAX, a size, SLIDE BY', () => {
  const ts = (text: string) => select(`SELECT count(*) FROM T TIMESERIES ${text}`).timeseries;
  assert.deepEqual(ts(''), { size: 'auto', bare: true });
  assert.deepEqual(ts('AUTO'), { size: 'auto', bare: false });
  assert.deepEqual(ts('max'), { size: 'max', bare: false });
  assert.deepEqual(ts('1 hour'), { size: { amount: 1, unit: 'hour' }, bare: false });
  assert.deepEqual(ts('30 Minutes SLIDE BY 5 minutes'), { size: { amount: 30, unit: 'minute' }, slideBy: { amount: 5, unit: 'minute' }, bare: false });
  assert.deepEqual(ts('SLIDE BY AUTO'), { size: 'auto', slideBy: 'auto', bare: true });
  assert.deepEqual(ts('10 seconds slide by max'), { size: { amount: 10, unit: 'second' }, slideBy: 'max', bare: false });
});

test('SINCE and UNTIL: every kind of time point; units singular or plural', () => {
  const since = (text: string) => select(`SELECT count(*) FROM T SINCE ${text}`).since;
  assert.deepEqual(since('1 hour ago'), ago(1, 'hour'));
  assert.deepEqual(since('2 HOURS AGO'), ago(2, 'hour'));
  for (const unit of ['millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year']) {
    assert.deepEqual(since(`3 ${unit}s ago`), ago(3, unit));
  }
  assert.deepEqual(since('NOW'), { kind: 'now' });
  assert.deepEqual(since('1702899296789'), { kind: 'epochMs', ms: 1702899296789 });
  assert.deepEqual(since("'2023-12-18 10:00 CST'"), { kind: 'dateTime', text: '2023-12-18 10:00 CST' });
  assert.deepEqual(since('today'), { kind: 'day', day: 'today' });
  assert.deepEqual(since("Yesterday AT '01:23:45'"), { kind: 'day', day: 'yesterday', at: '01:23:45' });
  assert.deepEqual(since('TUESDAY'), { kind: 'day', day: 'tuesday' });
  assert.deepEqual(since('this quarter'), { kind: 'calendar', which: 'this', unit: 'quarter' });
  assert.deepEqual(since('LAST Day'), { kind: 'calendar', which: 'last', unit: 'day' });
  assert.deepEqual(select("SELECT count(*) FROM T UNTIL '2022-05-19T12:00' SINCE today").until, { kind: 'dateTime', text: '2022-05-19T12:00' });
});

test('COMPARE WITH, LIMIT, OFFSET, ORDER BY, WITH TIMEZONE, WITH METRIC_FORMAT, EXTRAPOLATE, a trailing ;', () => {
  const q = select(
    "SELECT x FROM T SINCE 1 day ago COMPARE WITH 1 week ago LIMIT 5000 OFFSET 10 ORDER BY a ASC, b, c desc WITH TIMEZONE 'America/New_York' WITH METRIC_FORMAT 'Custom/{x}' EXTRAPOLATE;",
  );
  assert.deepEqual(q.compareWith, { amount: 1, unit: 'week' });
  assert.deepEqual([q.limit, q.offset, q.timezone, q.metricFormat, q.extrapolate], [5000, 10, 'America/New_York', 'Custom/{x}', true]);
  assert.deepEqual(q.orderBy, [
    { expr: attr('a'), descending: false, explicit: true },
    { expr: attr('b'), descending: false, explicit: false },
    { expr: attr('c'), descending: true, explicit: true },
  ]);
  assert.equal(select('SELECT x FROM T').extrapolate, false);
});

test('SHOW EVENT TYPES, with SINCE and UNTIL in either order', () => {
  assert.deepEqual(tree('SHOW EVENT TYPES'), { kind: 'showEventTypes' });
  assert.deepEqual(tree('show event types until now since 1 week ago;'), { kind: 'showEventTypes', since: ago(1, 'week'), until: { kind: 'now' } });
});

test('spans: every node points at its own text, parenthesised groups include their parentheses', () => {
  const text = "SELECT count(*) AS 'n', (a + b) * 2 FROM Transaction WHERE x = 1 FACET CASES (WHERE y > 2) TIMESERIES 5 minutes SINCE 1 day ago;";
  const q = parse(text) as SelectQuery;
  const slice = (span: { start: number; end: number }) => text.slice(span.start, span.end);
  assert.equal(slice(q.span), text.slice(0, -1));
  assert.equal(slice(q.select[0]!.span), "count(*) AS 'n'");
  assert.equal(slice(q.select[0]!.expr.span), 'count(*)');
  const product = q.select[1]!.expr as Extract<SelectQuery['select'][number]['expr'], { kind: 'arithmetic' }>;
  assert.equal(slice(product.span), '(a + b) * 2');
  assert.equal(slice(product.left.span), '(a + b)');
  assert.equal(slice(q.from[0]!.span), 'Transaction');
  assert.equal(slice(q.where!.span), 'x = 1');
  assert.equal(slice(q.facet!.span), 'FACET CASES (WHERE y > 2)');
  assert.equal(slice(q.facet!.items[0]!.span), 'CASES (WHERE y > 2)');
  assert.equal(slice(q.timeseries!.span), 'TIMESERIES 5 minutes');
  assert.equal(slice(q.since!.span), '1 day ago');
  const negative = (parse('SELECT - 1 FROM T') as SelectQuery).select[0]!.expr;
  assert.deepEqual(negative.span, { start: 7, end: 10 });
});

// ── errors ────────────────────────────────────────────────────────────────────────────────────

test("syntax errors in New Relic's form, with what was expected", () => {
  // §9: the error New Relic reports for this query.
  fails('SELECT FROM Metric SELECT count(*)', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 8, unexpected 'FROM'; expected an expression", { start: 7, end: 11 });
  fails('SELECT count(* FROM T', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 16, unexpected 'FROM'; expected ',' or ')'", { start: 15, end: 19 });
  fails('SELECT count(*) FROM', NRQL_ERROR_CODES.SYNTAX, 'Error at line 1 position 21, unexpected end of query; expected an event type', { start: 20, end: 20 });
  fails('SELECT count(*)\nFROM T\nWHERE x = = 1', NRQL_ERROR_CODES.SYNTAX, "Error at line 3 position 11, unexpected '='; expected an expression", { start: 33, end: 34 });
  fails('SELECT x FROM T; SELECT y', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 18, unexpected 'SELECT'; expected the end of the query", { start: 17, end: 23 });
  fails('', NRQL_ERROR_CODES.SYNTAX, 'Error at line 1 position 1, unexpected end of query; expected SELECT, FROM or SHOW EVENT TYPES', { start: 0, end: 0 });
  fails(';', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 1, unexpected ';'; expected SELECT, FROM or SHOW EVENT TYPES", { start: 0, end: 1 });
  fails('SELECT x FROM T WHERE a', NRQL_ERROR_CODES.SYNTAX, 'Error at line 1 position 24, unexpected end of query; expected a comparison such as =, IN, LIKE or IS', { start: 23, end: 23 });
  fails('SELECT x FROM T WHERE a OR b = 1', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 25, unexpected 'OR'; expected a comparison such as =, IN, LIKE or IS", { start: 24, end: 26 });
  fails('SELECT x FROM T WHERE a NOT = 1', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 29, unexpected '='; expected IN, LIKE or RLIKE", { start: 28, end: 29 });
  fails('SELECT x FROM T WHERE a IN ()', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 29, unexpected ')'; expected a literal value", { start: 28, end: 29 });
  fails('SELECT x FROM T WHERE a IN (b)', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 29, unexpected 'b'; expected a literal value", { start: 28, end: 29 });
  fails('SELECT x FROM T WHERE a LIKE 5', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 30, unexpected '5'; expected a pattern in quotes such as 'check%'", { start: 29, end: 30 });
  fails('SELECT x FROM T WHERE a IS maybe', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 28, unexpected 'maybe'; expected NULL, TRUE or FALSE", { start: 27, end: 32 });
  fails('SELECT x FROM T WHERE (a = 1', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 29, unexpected end of query; expected ')'", { start: 28, end: 28 });
  fails('SELECT * AS x FROM T', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 10, unexpected 'AS'; expected a clause keyword", { start: 9, end: 11 });
  fails('SELECT (a = 1) FROM T', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 11, unexpected '='; expected ')'", { start: 10, end: 11 });
  fails("SELECT x['a' FROM T", NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 14, unexpected 'FROM'; expected ']'", { start: 13, end: 17 });
  fails('SELECT x[1] FROM T', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 10, unexpected '1'; expected a field name in quotes such as 'count'", { start: 9, end: 10 });
  fails('SELECT x FROM T LIMIT 1.5', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 23, unexpected '1.5'; expected a whole number", { start: 22, end: 25 });
  fails('SELECT x FROM T LIMIT 99999999999999999999', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 23, number out of range '99999999999999999999'; expected a whole number below 2^53", { start: 22, end: 42 });
  fails('SELECT x FROM T SINCE 5 minutes', NRQL_ERROR_CODES.SYNTAX, 'Error at line 1 position 32, unexpected end of query; expected AGO', { start: 31, end: 31 });
  fails('SELECT x FROM T SINCE last fortnight', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 28, unexpected 'fortnight'; expected HOUR, DAY, WEEK, MONTH, QUARTER or YEAR", { start: 27, end: 36 });
  fails('SELECT x FROM T SINCE soon', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 23, unexpected 'soon'; expected a time such as 1 hour ago, NOW, today, an epoch time in milliseconds or a quoted date", { start: 22, end: 26 });
  fails('SELECT x FROM T TIMESERIES 5', NRQL_ERROR_CODES.SYNTAX, 'Error at line 1 position 29, unexpected end of query; expected a time unit such as minutes', { start: 28, end: 28 });
  fails('SELECT x FROM T TIMESERIES SLIDE BY', NRQL_ERROR_CODES.SYNTAX, 'Error at line 1 position 36, unexpected end of query; expected AUTO, MAX or a step such as 1 minute', { start: 35, end: 35 });
  fails("SELECT x FROM T WITH ZONE 'UTC'", NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 22, unexpected 'ZONE'; expected TIMEZONE or METRIC_FORMAT", { start: 21, end: 25 });
  fails('SELECT x FROM T COMPARE 1 day ago', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 25, unexpected '1'; expected WITH", { start: 24, end: 25 });
  fails('SELECT x FROM T ORDER x', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 23, unexpected 'x'; expected BY", { start: 22, end: 23 });
  fails('SELECT x FROM T FACET CASES ()', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 30, unexpected ')'; expected WHERE", { start: 29, end: 30 });
  fails('SELECT x FROM select', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 15, unexpected 'select'; expected an event type", { start: 14, end: 20 });
  fails('SELECT count(x AS y) FROM T', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 16, unexpected 'AS'; expected ',' or ')'", { start: 15, end: 17 });
  fails("SELECT x FROM T WHERE a = '" + 'x'.repeat(50) + "' b", NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 80, unexpected 'b'; expected a clause keyword", { start: 79, end: 80 });
  fails('SELECT ' + "'" + 'y'.repeat(60) + "'" + ' x FROM T', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 71, unexpected 'x'; expected a clause keyword", { start: 70, end: 71 });
  fails('SELECT a b FROM T', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 10, unexpected 'b'; expected a clause keyword", { start: 9, end: 10 });
  fails("SELECT 1 FROM T WHERE x = 1 'long string literal that goes on and on and on'", NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 29, unexpected ''long string literal that goes on and on…'; expected a clause keyword", { start: 28, end: 76 });
});

test('a misspelt clause keyword gets a suggestion', () => {
  fails('SELECT count(*) FORM Transaction', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 17, unexpected 'FORM'; expected a clause keyword", { start: 16, end: 20 }, 'FROM');
  fails('SELCT count(*) FROM T', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 1, unexpected 'SELCT'; expected a clause keyword", { start: 0, end: 5 }, 'SELECT');
  fails('SELECT count(*) FROM T facte appName', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 24, unexpected 'facte'; expected a clause keyword", { start: 23, end: 28 }, 'FACET');
  fails('SELECT count(*) FROM T TIMESERIE', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 24, unexpected 'TIMESERIE'; expected a clause keyword", { start: 23, end: 32 }, 'TIMESERIES');
  fails('SELECT count(*) FROM T WHERE a = 1 ADN b = 2', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 36, unexpected 'ADN'; expected a clause keyword", { start: 35, end: 38 });
});

test('a clause written twice: DUPLICATE_CLAUSE at the second one', () => {
  fails('SELECT x FROM T WHERE a = 1 WHERE b = 2', NRQL_ERROR_CODES.DUPLICATE_CLAUSE, 'Error at line 1 position 29, duplicate WHERE clause: each clause may appear only once', { start: 28, end: 33 });
  fails('SELECT x FROM T SELECT y', NRQL_ERROR_CODES.DUPLICATE_CLAUSE, 'Error at line 1 position 17, duplicate SELECT clause: each clause may appear only once', { start: 16, end: 22 });
  fails('SELECT x FROM T ORDER BY a LIMIT 1 order by b', NRQL_ERROR_CODES.DUPLICATE_CLAUSE, 'Error at line 1 position 36, duplicate ORDER BY clause: each clause may appear only once', { start: 35, end: 43 });
  fails("SELECT x FROM T WITH TIMEZONE 'UTC' WITH TIMEZONE 'UTC'", NRQL_ERROR_CODES.DUPLICATE_CLAUSE, 'Error at line 1 position 37, duplicate WITH TIMEZONE clause: each clause may appear only once', { start: 36, end: 49 });
  fails('SHOW EVENT TYPES SINCE 1 day ago SINCE now', NRQL_ERROR_CODES.DUPLICATE_CLAUSE, 'Error at line 1 position 34, duplicate SINCE clause: each clause may appear only once', { start: 33, end: 38 });
  // WITH TIMEZONE and WITH METRIC_FORMAT are different clauses; FACET … ORDER BY is not the query's ORDER BY.
  assert.doesNotThrow(() => parse("SELECT x FROM T WITH TIMEZONE 'UTC' WITH METRIC_FORMAT 'a/{b}' FACET a ORDER BY max(x) ORDER BY y"));
});

test('a query without SELECT or FROM: MISSING_CLAUSE over the whole query', () => {
  fails('SELECT count(*)', NRQL_ERROR_CODES.MISSING_CLAUSE, 'The query has no FROM clause; a query needs both SELECT and FROM', { start: 0, end: 15 });
  fails('FROM Transaction SINCE 1 day ago ', NRQL_ERROR_CODES.MISSING_CLAUSE, 'The query has no SELECT clause; a query needs both SELECT and FROM', { start: 0, end: 32 });
});

test('JOIN, subqueries and query variables are refused as unsupported', () => {
  fails('FROM Transaction JOIN (FROM Span SELECT count(*)) ON traceId SELECT count(*)', NRQL_ERROR_CODES.UNSUPPORTED, 'Error at line 1 position 18, Joins (JOIN) are not supported by this service', { start: 17, end: 21 });
  fails('SELECT count(*) FROM Transaction INNER JOIN Span', NRQL_ERROR_CODES.UNSUPPORTED, 'Error at line 1 position 34, Joins (JOIN) are not supported by this service', { start: 33, end: 43 });
  fails('SELECT count(*) FROM T WHERE x IN (SELECT y FROM U)', NRQL_ERROR_CODES.UNSUPPORTED, 'Error at line 1 position 35, Subqueries (SELECT inside parentheses) are not supported by this service', { start: 34, end: 41 });
  fails('SELECT count(*) FROM T WHERE x > (FROM U SELECT max(y))', NRQL_ERROR_CODES.UNSUPPORTED, 'Error at line 1 position 34, Subqueries (SELECT inside parentheses) are not supported by this service', { start: 33, end: 38 });
  fails('SELECT x FROM (SELECT y FROM U)', NRQL_ERROR_CODES.UNSUPPORTED, 'Error at line 1 position 15, Subqueries (SELECT inside parentheses) are not supported by this service', { start: 14, end: 21 });
  fails('FROM Transaction WITH duration * 1000 AS ms SELECT max(ms)', NRQL_ERROR_CODES.UNSUPPORTED, 'Error at line 1 position 18, Query variables (WITH … AS) are not supported by this service', { start: 17, end: 21 });
  // A FROM typed inside parentheses without a SELECT after it is an ordinary syntax error.
  fails('SELECT count( FROM T', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 15, unexpected 'FROM'; expected an expression", { start: 14, end: 18 });
  // Words such as LEFT are still names where no JOIN follows them.
  assert.deepEqual(select('SELECT left FROM T FACET inner').select[0]!.expr, attr('left'));
});

test('unterminated strings and names surface from the lexer', () => {
  fails("SELECT count(*) FROM T WHERE a = 'x", NRQL_ERROR_CODES.UNTERMINATED, "Error at line 1 position 34, unterminated string: no closing '", { start: 33, end: 34 });
  fails('SELECT count(*) FROM `My events', NRQL_ERROR_CODES.UNTERMINATED, 'Error at line 1 position 22, unterminated name: no closing `', { start: 21, end: 22 });
});

test('query text of 4096 characters or more is refused before lexing', () => {
  const padded = (length: number) => {
    const head = "SELECT count(*) FROM T WHERE a = '";
    return `${head}${'x'.repeat(length - head.length - 1)}'`;
  };
  assert.equal(padded(4095).length, 4095);
  assert.equal(parse(padded(4095)).kind, 'select');
  fails(padded(4096), NRQL_ERROR_CODES.QUERY_TOO_LONG, 'Query text must be shorter than 4096 characters; this one has 4096', { start: 0, end: 4096 });
  // Even text that would not lex is refused for its length first.
  fails(`'${'x'.repeat(5000)}`, NRQL_ERROR_CODES.QUERY_TOO_LONG, 'Query text must be shorter than 4096 characters; this one has 5001', { start: 0, end: 5001 });
});

test('nesting deeper than the limit is LIMIT_EXCEEDED at the first token too deep', () => {
  const text = `SELECT ${'abs('.repeat(MAX_NESTING + 1)}x${')'.repeat(MAX_NESTING + 1)} FROM T`;
  const offset = 7 + MAX_NESTING * 4 + 3;
  fails(text, NRQL_ERROR_CODES.LIMIT_EXCEEDED, `Error at line 1 position ${offset + 1}, expressions nest deeper than ${MAX_NESTING} levels`, { start: offset, end: offset + 1 });
});

test('chains of operators count toward the tree depth: past MAX_TREE_DEPTH is LIMIT_EXCEEDED, not a DuckDB depth error', () => {
  // `SELECT 2*2*…*2` with n factors: the query, n − 1 products and the last number, n + 1 levels.
  const chain = (n: number) => `SELECT ${Array(n).fill('2').join('*')} FROM T`;
  assert.equal(parse(chain(MAX_TREE_DEPTH - 1)).kind, 'select');
  assert.throws(
    () => parse(chain(MAX_TREE_DEPTH)),
    (e: unknown) => e instanceof NrqlError && e.code === NRQL_ERROR_CODES.LIMIT_EXCEEDED && /nests deeper than 300 levels/.test(e.message),
  );
  assert.throws(() => parse(chain(900)), (e: unknown) => e instanceof NrqlError && e.code === NRQL_ERROR_CODES.LIMIT_EXCEEDED);
});

test('parseCondition: a condition alone, its errors in its own text, its nodes detached from any query text', () => {
  const condition = parseCondition("appName = 'shop' AND (duration > 1 OR name LIKE '%cart%')");
  const expected = parse("SELECT count(*) FROM T WHERE appName = 'shop' AND (duration > 1 OR name LIKE '%cart%')");
  assert.deepEqual(stripSpans(condition), stripSpans((expected as SelectQuery).where!));
  assert.ok(JSON.stringify(condition).match(/"span":\{[^}]*\}/g)!.every((span) => span === '"span":{"start":0,"end":0}'));
  fails2(() => parseCondition("a = 1 SINCE 1 day ago"), "Error at line 1 position 7, unexpected 'SINCE'; expected the end of the condition");
  fails2(() => parseCondition(''), 'Error at line 1 position 1, unexpected end of query; expected a condition');
});

function fails2(run: () => unknown, message: string): void {
  assert.throws(run, (e: unknown) => e instanceof NrqlError && e.code === NRQL_ERROR_CODES.SYNTAX && e.message === message);
}
