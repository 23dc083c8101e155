import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Condition, Expr, Query, SelectQuery, Span } from './ast.js';
import { format, formatCondition, formatExpr, formatName } from './format.js';
import { parse } from './parser.js';

/** The canonical text of `text`. */
function canonical(text: string): string {
  return format(parse(text));
}

/** The canonical text of the first SELECT item of `SELECT <text> FROM T`. */
function canonicalExpr(text: string): string {
  return formatExpr((parse(`SELECT ${text} FROM T`) as SelectQuery).select[0]!.expr);
}

/** The canonical text of the condition of `SELECT x FROM T WHERE <text>`. */
function canonicalCondition(text: string): string {
  return formatCondition((parse(`SELECT x FROM T WHERE ${text}`) as SelectQuery).where!);
}

const S: Span = { start: 0, end: 0 };

test('keywords upper case, single spaces, clauses in the canonical order', () => {
  assert.equal(
    canonical("from Transaction select COUNT(*) timeseries 1 MINUTE where appName = 'search' since 1754899980000 until 1754900160000"),
    "SELECT COUNT(*) FROM Transaction WHERE appName = 'search' TIMESERIES 1 MINUTE SINCE 1754899980000 UNTIL 1754900160000",
  );
  assert.equal(
    canonical(
      "extrapolate with metric_format 'A/{x}' with timezone 'UTC' order by y desc offset 5 limit max compare with 2 days ago until now since 1 week ago timeseries auto facet x where a = 1 from Metric, Span select\n  min(v) as m;",
    ),
    "SELECT min(v) AS 'm' FROM Metric, Span WHERE a = 1 FACET x TIMESERIES AUTO SINCE 1 WEEK AGO UNTIL NOW COMPARE WITH 2 DAYS AGO LIMIT MAX OFFSET 5 ORDER BY y DESC WITH TIMEZONE 'UTC' WITH METRIC_FORMAT 'A/{x}' EXTRAPOLATE",
  );
  assert.equal(canonical('show event types until now since yesterday'), 'SHOW EVENT TYPES SINCE YESTERDAY UNTIL NOW');
});

test('aliases and labels always print as strings', () => {
  assert.equal(
    canonical("SELECT count(*) AS hosts, uniques(x) AS 'it''s' FROM T FACET CASES (WHERE a = 1 AS one, WHERE b = 2) OR c, d AS 'D'"),
    "SELECT count(*) AS 'hosts', uniques(x) AS 'it\\'s' FROM T FACET CASES (WHERE a = 1 AS 'one', WHERE b = 2) OR c, d AS 'D'",
  );
});

test('arithmetic keeps exactly the parentheses its tree needs', () => {
  assert.equal(canonicalExpr('a - (b - c)'), 'a - (b - c)');
  assert.equal(canonicalExpr('(a - b) - c'), 'a - b - c');
  assert.equal(canonicalExpr('a + (b + c)'), 'a + (b + c)');
  assert.equal(canonicalExpr('(a * b) + c'), 'a * b + c');
  assert.equal(canonicalExpr('a * (b + c)'), 'a * (b + c)');
  assert.equal(canonicalExpr('a / (b * c)'), 'a / (b * c)');
  assert.equal(canonicalExpr('((((a))))'), 'a');
  assert.equal(canonicalExpr("(x)['f']"), "x['f']");
  assert.equal(canonicalExpr("(a + b)['f']"), "(a + b)['f']");
  assert.equal(canonicalExpr('a OR (b OR c)'), 'a OR (b OR c)');
  assert.equal(canonicalExpr('(a OR b) OR c'), 'a OR b OR c');
  assert.equal(canonicalExpr('x + (a OR b)'), 'x + (a OR b)');
  assert.equal(canonicalExpr('(a + b) OR c * 2'), 'a + b OR c * 2');
});

test('unary minus: literals print negative, a minus over a non-negative number keeps its parentheses', () => {
  assert.equal(canonicalExpr('-1'), '-1');
  assert.equal(canonicalExpr('- 2.5'), '-2.5');
  assert.equal(canonicalExpr('-(1)'), '-(1)');
  assert.equal(canonicalExpr('--1'), '--1');
  assert.equal(canonicalExpr('-(-(a))'), '--a');
  assert.equal(canonicalExpr('-(a + b)'), '-(a + b)');
  assert.equal(canonicalExpr('a - -1'), 'a - -1');
  assert.equal(canonicalExpr('(-a) * b'), '-a * b');
  assert.equal(canonicalExpr("(-1)['f']"), "(-1)['f']");
  assert.equal(canonicalExpr("-1['f']"), "-1['f']");
  assert.equal(canonicalExpr('-0'), '-0');
});

test('numbers print as the shortest text that reads back as the same value', () => {
  assert.equal(canonicalExpr('.5'), '0.5');
  assert.equal(canonicalExpr('1e3'), '1000');
  assert.equal(canonicalExpr('1E21'), '1e+21');
  assert.equal(canonicalExpr('0.0000001'), '1e-7');
  assert.equal(canonicalExpr('007'), '7');
  assert.equal(formatExpr({ kind: 'number', value: 5e-324, span: S }), '5e-324');
  assert.throws(() => formatExpr({ kind: 'number', value: Number.NaN, span: S }), RangeError);
});

test('calls: names as written, every argument form', () => {
  assert.equal(
    canonicalExpr("percentage(COUNT(*), where error is true)"),
    'percentage(COUNT(*), WHERE error IS TRUE)',
  );
  assert.equal(canonicalExpr('rate(count(*), 1 minute)'), 'rate(count(*), 1 MINUTE)');
  assert.equal(canonicalExpr('rate(count(*), 5 minute)'), 'rate(count(*), 5 MINUTES)');
  assert.equal(canonicalExpr('apdex(duration,t:0.4)'), 'apdex(duration, t: 0.4)');
  assert.equal(canonicalExpr('eventType()'), 'eventType()');
  assert.equal(canonicalExpr("histogram(x, width: a OR 5)"), 'histogram(x, width: a OR 5)');
  assert.equal(canonicalExpr("funnel(s, where a = 1 as 'Step 1', WHERE b = 2 AS `Step 2`)"), "funnel(s, WHERE a = 1 AS 'Step 1', WHERE b = 2 AS 'Step 2')");
});

test('names are backtick-quoted exactly when they would not read back as a plain name', () => {
  assert.equal(formatName('duration'), 'duration');
  assert.equal(formatName('entity.guid'), 'entity.guid');
  assert.equal(formatName('Mobile:Crash'), 'Mobile:Crash');
  assert.equal(formatName('count'), 'count');
  assert.equal(formatName('today'), 'today');
  assert.equal(formatName('Logged-in user'), '`Logged-in user`');
  assert.equal(formatName('select'), '`select`');
  assert.equal(formatName('NULL'), '`NULL`');
  assert.equal(formatName('a`b'), '`a``b`');
  assert.equal(formatName(''), '``');
  assert.equal(formatName('1st'), '`1st`');
  assert.equal(formatName('a.'), '`a.`');
  assert.equal(formatName('ünï'), '`ünï`');
  assert.equal(canonical('SELECT `duration`, `My attr` FROM `Transaction`, `My Events`'), 'SELECT duration, `My attr` FROM Transaction, `My Events`');
});

test('strings escape quotes and backslashes; RLIKE prints raw when the raw form reads back', () => {
  assert.equal(canonicalCondition("a = 'it''s'"), "a = 'it\\'s'");
  assert.equal(canonicalCondition("a LIKE 'back\\\\slash'"), "a LIKE 'back\\\\slash'");
  assert.equal(canonicalCondition("a RLIKE r'\\d+\\.x'"), "a RLIKE r'\\d+\\.x'");
  assert.equal(canonicalCondition("a RLIKE 'ch.*'"), "a RLIKE r'ch.*'");
  assert.equal(canonicalCondition("a RLIKE r'it''s'"), "a RLIKE 'it\\'s'");
  // A pattern ending in a lone backslash cannot be written raw.
  const lone: Condition = { kind: 'rlike', expr: { kind: 'attribute', name: 'a', span: S }, pattern: 'x\\', negated: false, span: S };
  assert.equal(formatCondition(lone), "a RLIKE 'x\\\\'");
  assert.equal(formatCondition({ ...lone, pattern: 'x\\\\' }), "a RLIKE r'x\\\\'");
});

test('conditions keep exactly the parentheses their tree needs', () => {
  assert.equal(canonicalCondition('(a = 1 AND b = 2) OR c = 3'), 'a = 1 AND b = 2 OR c = 3');
  assert.equal(canonicalCondition('a = 1 AND (b = 2 OR c = 3)'), 'a = 1 AND (b = 2 OR c = 3)');
  assert.equal(canonicalCondition('a = 1 OR (b = 2 OR c = 3)'), 'a = 1 OR (b = 2 OR c = 3)');
  assert.equal(canonicalCondition('(a = 1 OR b = 2) OR c = 3'), 'a = 1 OR b = 2 OR c = 3');
  assert.equal(canonicalCondition('NOT (a = 1 AND b = 2)'), 'NOT (a = 1 AND b = 2)');
  assert.equal(canonicalCondition('(NOT a = 1) AND b = 2'), 'NOT a = 1 AND b = 2');
  assert.equal(canonicalCondition('not not a = 1'), 'NOT NOT a = 1');
  assert.equal(canonicalCondition('(a OR b) IS NULL'), '(a OR b) IS NULL');
  assert.equal(canonicalCondition('(a + b) * 2 > -3'), '(a + b) * 2 > -3');
  assert.equal(canonicalCondition("x not in (1,-2,'a',true,null)"), "x NOT IN (1, -2, 'a', TRUE, NULL)");
  assert.equal(canonicalCondition('x <> 1 and y is not null'), 'x != 1 AND y IS NOT NULL');
  assert.equal(canonicalCondition("name not like '%a'"), "name NOT LIKE '%a'");
});

test('TIMESERIES and time points', () => {
  const q = (clauses: string) => canonical(`SELECT count(*) FROM T ${clauses}`).slice('SELECT count(*) FROM T '.length);
  assert.equal(q('TIMESERIES'), 'TIMESERIES');
  assert.equal(q('timeseries auto'), 'TIMESERIES AUTO');
  assert.equal(q('timeseries 1 hours slide by 5 minute'), 'TIMESERIES 1 HOUR SLIDE BY 5 MINUTES');
  assert.equal(q('timeseries slide by max'), 'TIMESERIES SLIDE BY MAX');
  assert.equal(q("since monday at '09:30' until this quarter"), "SINCE MONDAY AT '09:30' UNTIL THIS QUARTER");
  assert.equal(q("since '2023-12-18 CST' until 1702902896789"), "SINCE '2023-12-18 CST' UNTIL 1702902896789");
  assert.equal(q('since 1 millisecond ago'), 'SINCE 1 MILLISECOND AGO');
});

test('FACET and ORDER BY: the query ORDER BY goes before a FACET it would otherwise join', () => {
  assert.equal(canonical('SELECT x FROM T FACET a ORDER BY max(y)'), 'SELECT x FROM T FACET a ORDER BY max(y)');
  assert.equal(canonical('SELECT x FROM T ORDER BY y FACET a'), 'SELECT x FROM T ORDER BY y FACET a');
  assert.equal(canonical('SELECT x FROM T ORDER BY y DESC FACET a'), 'SELECT x FROM T FACET a ORDER BY y DESC');
  assert.equal(canonical('SELECT x FROM T ORDER BY y FACET a LIMIT 5'), 'SELECT x FROM T FACET a LIMIT 5 ORDER BY y');
  assert.equal(canonical('SELECT x FROM T ORDER BY y FACET a ORDER BY z'), 'SELECT x FROM T FACET a ORDER BY z ORDER BY y');
  // A facet that starts with a call to `cases` keeps the parentheses that stop it reading as CASES.
  assert.equal(canonical('SELECT x FROM T FACET (cases(y)) + 1, cases'), 'SELECT x FROM T FACET (cases(y) + 1), cases');
});

test('hand-built trees print as the parser would read them back', () => {
  const a: Expr = { kind: 'attribute', name: 'a', span: S };
  const one: Expr = { kind: 'number', value: 1, span: S };
  const query: Query = {
    kind: 'select',
    select: [{ expr: { kind: 'negate', operand: one, span: S }, alias: 'minus one', span: S }],
    from: [{ name: 'select', span: S }],
    where: { kind: 'not', operand: { kind: 'or', left: { kind: 'is', expr: a, test: 'null', negated: false, span: S }, right: { kind: 'compare', op: '>', left: a, right: one, span: S }, span: S }, span: S },
    limit: 0,
    extrapolate: false,
    span: S,
  };
  assert.equal(format(query), "SELECT -(1) AS 'minus one' FROM `select` WHERE NOT (a IS NULL OR a > 1) LIMIT 0");
});
