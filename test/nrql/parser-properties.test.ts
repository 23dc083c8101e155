/**
 * Properties of the NRQL front end over generated input (no I/O):
 * - round trip: for random valid trees, `parse(format(q))` is `q` without spans, and `format`
 *   is idempotent;
 * - fuzz: over 100 000 random and mutated query texts, `parse` returns a query (whose spans lie
 *   in the text and which itself round-trips) or throws an `NrqlError` with a parser code and a
 *   span in the text — never anything else — and each parse takes under 50 ms.
 * fast-check prints the seed of a failure; set FC_SEED to replay it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { stripSpans, type Span } from '../../src/nrql/ast.js';
import { format } from '../../src/nrql/format.js';
import { lex } from '../../src/nrql/lexer.js';
import { NRQL_ERROR_CODES, NrqlError, type NrqlErrorCode } from '../../src/nrql/nrql-error.js';
import { MAX_NESTING, MAX_QUERY_LENGTH, parse } from '../../src/nrql/parser.js';
import { anyText, nrqlArbitraries } from '../helpers/nrql-generator.js';
import { NRQL_PATTERN_QUERIES, NRQL_WORKED_EXAMPLES } from '../helpers/nrql-examples.js';
import { FUZZ_SEED, scaledRuns } from '../helpers/fuzz-scale.js';

const seed = FUZZ_SEED;
const runs = (numRuns: number): fc.Parameters<unknown> => ({ numRuns: scaledRuns(numRuns), ...(seed === undefined ? {} : { seed }) });

const PARSER_CODES: ReadonlySet<NrqlErrorCode> = new Set([
  NRQL_ERROR_CODES.SYNTAX, NRQL_ERROR_CODES.UNTERMINATED, NRQL_ERROR_CODES.QUERY_TOO_LONG, NRQL_ERROR_CODES.DUPLICATE_CLAUSE,
  NRQL_ERROR_CODES.MISSING_CLAUSE, NRQL_ERROR_CODES.UNSUPPORTED, NRQL_ERROR_CODES.LIMIT_EXCEEDED,
]);
const TIME_BOUND_MS = 50;

test('round trip: parse(format(q)) is q for random trees, and format is idempotent', (t) => {
  const { query } = nrqlArbitraries();
  let checked = 0;
  fc.assert(
    fc.property(query, (q) => {
      const text = format(q);
      fc.pre(text.length < MAX_QUERY_LENGTH);
      const parsed = parse(text);
      assert.deepEqual(stripSpans(parsed), stripSpans(q), text);
      assert.equal(format(parsed), text);
      checked++;
    }),
    runs(2500),
  );
  t.diagnostic(`round trip: ${checked} generated queries`);
  assert.ok(checked > scaledRuns(2000), `only ${checked} generated queries were short enough`);
});

test('round trip: the worked examples and query patterns print canonically and parse back', () => {
  for (const { id, text } of [...NRQL_WORKED_EXAMPLES, ...NRQL_PATTERN_QUERIES]) {
    const q = parse(text);
    const canonical = format(q);
    assert.deepEqual(stripSpans(parse(canonical)), stripSpans(q), id);
    assert.equal(format(parse(canonical)), canonical, id);
  }
});

// ── fuzz ──────────────────────────────────────────────────────────────────────────────────────

/** What one parse did; throws (failing the property) on anything outside the contract. */
function check(text: string): 'query' | NrqlErrorCode {
  let outcome: 'query' | NrqlErrorCode;
  const started = performance.now();
  try {
    const q = parse(text);
    outcome = 'query';
    assertSpansWithin(q, text.length);
    const canonical = format(q);
    // The canonical text can be longer than the text read (`AS x` gains quotes, `.5` becomes
    // `0.5`); past the length limit it cannot be read back, by design.
    const again = canonical.length < MAX_QUERY_LENGTH ? parse(canonical) : q;
    if (!sameIgnoringSpans(again, q)) assert.deepEqual(stripSpans(again), stripSpans(q), `round trip of ${JSON.stringify(text)}`);
  } catch (error) {
    if (error instanceof assert.AssertionError) throw error;
    if (!(error instanceof NrqlError)) throw new Error(`parse threw ${String(error)} for ${JSON.stringify(text.slice(0, 300))}`, { cause: error });
    assert.ok(PARSER_CODES.has(error.code), `code ${error.code}`);
    assert.ok(error.span, `no span: ${error.message}`);
    assert.ok(error.span.start >= 0 && error.span.start <= error.span.end && error.span.end <= text.length, `span ${JSON.stringify(error.span)} of ${text.length}`);
    assert.ok(error.message.length > 0);
    outcome = error.code;
  }
  const elapsed = performance.now() - started;
  if (elapsed > TIME_BOUND_MS) assertFast(text, elapsed);
  return outcome;
}

/**
 * A slow case is timed again, since two cores shared with other test runs can stall any one
 * call; a parse that is slow every time fails.
 */
function assertFast(text: string, first: number): void {
  let best = first;
  for (let i = 0; i < 3 && best > TIME_BOUND_MS; i++) {
    const started = performance.now();
    try {
      parse(text);
    } catch {
      // the outcome was checked already; only the time matters here
    }
    best = Math.min(best, performance.now() - started);
  }
  assert.ok(best <= TIME_BOUND_MS, `parse took ${best.toFixed(1)} ms for ${JSON.stringify(text.slice(0, 200))}`);
}

/** Deep equality without `span` members: `stripSpans` and `deepEqual` in one cheap walk. */
function sameIgnoringSpans(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a).filter((k) => k !== 'span');
  if (keys.length !== Object.keys(b).filter((k) => k !== 'span').length) return false;
  return keys.every((k) => sameIgnoringSpans((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function assertSpansWithin(node: unknown, length: number): void {
  if (Array.isArray(node)) {
    for (const item of node) assertSpansWithin(item, length);
  } else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'span') {
        const { start, end } = value as { start: number; end: number };
        assert.ok(start >= 0 && start <= end && end <= length, `span ${start}..${end} of ${length}`);
      } else {
        assertSpansWithin(value, length);
      }
    }
  }
}

/** Tokens worth inserting: every keyword, operator and literal form, and some broken ones. */
const VOCABULARY = [
  'SELECT', 'FROM', 'WHERE', 'FACET', 'TIMESERIES', 'SINCE', 'UNTIL', 'COMPARE', 'WITH', 'LIMIT', 'OFFSET', 'ORDER', 'BY', 'ASC', 'DESC',
  'EXTRAPOLATE', 'SHOW', 'EVENT', 'TYPES', 'AND', 'OR', 'NOT', 'IN', 'LIKE', 'RLIKE', 'IS', 'NULL', 'TRUE', 'FALSE', 'AS', 'CASES',
  'AUTO', 'MAX', 'SLIDE', 'AGO', 'NOW', 'today', 'monday', 'AT', 'this', 'last', 'week', 'minutes', 'TIMEZONE', 'METRIC_FORMAT', 'JOIN',
  'count', 'count(*)', 'x', 'entity.guid', '`a b`', "'s'", "r'\\d'", '1', '-1', '0.5', '.5', '1e3', '1e999', '9'.repeat(30),
  '(', ')', '[', ']', ',', ':', ';', '*', '/', '+', '-', '=', '!=', '<>', '<', '<=', '>', '>=', '!', "'", '`', '"', '\\', 'r\'', '\u00a0', '😀', '\0',
];

type Mutation = (text: string) => string;

const boundsOfCorpus = new Map<string, readonly Span[]>();

function tokenBounds(text: string): readonly Span[] {
  const known = boundsOfCorpus.get(text);
  if (known) return known;
  if (text.length >= MAX_QUERY_LENGTH) return [];
  try {
    return lex(text).filter((tk) => tk.kind !== 'end').map((tk) => tk.span);
  } catch {
    return [];
  }
}

/**
 * Mutations of a valid query: token edits where the text still lexes, character edits anyway;
 * the first two (spacing and letter case) mostly keep the query valid.
 */
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(fc.nat(), fc.constantFrom('', ' ', '\n', '\t  ', '\r\n')).map(([n, space]): Mutation => (s) => {
    const tokens = tokenBounds(s);
    const i = n % Math.max(tokens.length - 1, 1);
    const a = tokens[i];
    const b = tokens[i + 1];
    return a && b ? s.slice(0, a.end) + space + s.slice(b.start) : s;
  }),
  fc.tuple(fc.nat(), fc.boolean()).map(([n, upper]): Mutation => (s) => {
    const tokens = tokenBounds(s);
    const tk = tokens[n % Math.max(tokens.length, 1)];
    if (!tk) return s;
    const word = s.slice(tk.start, tk.end);
    return s.slice(0, tk.start) + (upper ? word.toUpperCase() : word.toLowerCase()) + s.slice(tk.end);
  }),
  fc.nat().map((n): Mutation => (s) => {
    const tokens = tokenBounds(s);
    const tk = tokens[n % Math.max(tokens.length, 1)];
    return tk ? s.slice(0, tk.start) + s.slice(tk.end) : s;
  }),
  fc.nat().map((n): Mutation => (s) => {
    const tokens = tokenBounds(s);
    const tk = tokens[n % Math.max(tokens.length, 1)];
    return tk ? s.slice(0, tk.end) + ' ' + s.slice(tk.start) : s;
  }),
  fc.nat().map((n): Mutation => (s) => {
    const tokens = tokenBounds(s);
    const i = n % Math.max(tokens.length - 1, 1);
    const a = tokens[i];
    const b = tokens[i + 1];
    return a && b ? s.slice(0, a.start) + s.slice(b.start, b.end) + s.slice(a.end, b.start) + s.slice(a.start, a.end) + s.slice(b.end) : s;
  }),
  fc.tuple(fc.nat(), fc.constantFrom(...VOCABULARY), fc.boolean()).map(([n, word, replace]): Mutation => (s) => {
    const tokens = tokenBounds(s);
    const tk = tokens[n % Math.max(tokens.length, 1)];
    if (!tk) return `${word} ${s}`;
    return replace ? s.slice(0, tk.start) + word + s.slice(tk.end) : `${s.slice(0, tk.start)}${word} ${s.slice(tk.start)}`;
  }),
  fc.tuple(fc.nat(), anyText(6)).map(
    ([n, chars]): Mutation => (s) => {
      const at = n % (s.length + 1);
      return s.slice(0, at) + chars + s.slice(at);
    },
  ),
  fc.nat().map((n): Mutation => (s) => s.slice(0, n % (s.length + 1))),
  fc.tuple(fc.nat(), fc.constantFrom('(', 'f(', '-', 'NOT ', '((a = 1) AND ', 'x[', '(a OR '), fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 1, max: 120 }) }, { weight: 1, arbitrary: fc.constantFrom(4000, 10_000) })).map(
    ([n, unit, times]): Mutation => (s) => {
      const at = n % (s.length + 1);
      return s.slice(0, at) + unit.repeat(times) + s.slice(at);
    },
  ),
);

test(`fuzz: ${scaledRuns(100_000)} random and mutated queries parse or fail with a positioned NrqlError, each within 50 ms`, (t) => {
  const { text: validText } = nrqlArbitraries({ maxDepth: 2 });
  const generated = fc.sample(validText, { numRuns: 400, seed: seed ?? 20_250_811 }).filter((s) => s.length < MAX_QUERY_LENGTH);
  const corpus = [...NRQL_WORKED_EXAMPLES.map((e) => e.text), ...NRQL_PATTERN_QUERIES.map((e) => e.text), ...generated];
  for (const text of corpus) boundsOfCorpus.set(text, tokenBounds(text));
  const outcomes = new Map<string, number>();
  const count = (outcome: string): void => {
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  };

  fc.assert(
    fc.property(
      fc.tuple(fc.nat({ max: corpus.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([index, mutations]) =>
        mutations.reduce((s, m) => m(s), corpus[index]!),
      ),
      (text) => {
        count(check(text));
      },
    ),
    runs(80_000),
  );
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...VOCABULARY), { maxLength: 25 }), (words) => {
      count(check(words.join(' ')));
    }),
    runs(12_000),
  );
  fc.assert(
    fc.property(anyText(80), (s) => {
      count(check(s));
    }),
    runs(8_000),
  );
  const total = [...outcomes.values()].reduce((a, b) => a + b, 0);
  t.diagnostic(`fuzz: ${total} cases; ${[...outcomes].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  assert.ok(total >= scaledRuns(100_000));
  // The mutations must reach both sides of the contract, or the fuzz tests nothing.
  assert.ok((outcomes.get('query') ?? 0) > scaledRuns(5000), 'too few mutated queries still parse');
  assert.ok((outcomes.get(NRQL_ERROR_CODES.SYNTAX) ?? 0) > scaledRuns(20_000), 'too few syntax errors');
  for (const code of [NRQL_ERROR_CODES.UNTERMINATED, NRQL_ERROR_CODES.LIMIT_EXCEEDED, NRQL_ERROR_CODES.DUPLICATE_CLAUSE, NRQL_ERROR_CODES.QUERY_TOO_LONG]) {
    assert.ok((outcomes.get(code) ?? 0) > 0, `no ${code}`);
  }
});

test('deep nesting ends in a positioned error, not a stack overflow', () => {
  const cases: [string, NrqlErrorCode][] = [
    ['('.repeat(10_000), NRQL_ERROR_CODES.QUERY_TOO_LONG],
    [`SELECT ${'('.repeat(4000)}x FROM T`, NRQL_ERROR_CODES.LIMIT_EXCEEDED],
    [`SELECT ${'f('.repeat(2000)} FROM T`, NRQL_ERROR_CODES.LIMIT_EXCEEDED],
    [`SELECT ${'-'.repeat(4000)}x FROM T`, NRQL_ERROR_CODES.LIMIT_EXCEEDED],
    [`SELECT x FROM T WHERE ${'NOT '.repeat(1000)}a = 1`, NRQL_ERROR_CODES.LIMIT_EXCEEDED],
    [`SELECT x FROM T WHERE ${'('.repeat(4000)}a = 1`, NRQL_ERROR_CODES.LIMIT_EXCEEDED],
    [`SELECT x FROM T WHERE ${'(a = 1 AND '.repeat(300)}`, NRQL_ERROR_CODES.LIMIT_EXCEEDED],
  ];
  for (const [text, code] of cases) {
    assert.throws(() => parse(text), (e: unknown) => e instanceof NrqlError && e.code === code, text.slice(0, 40));
    assert.equal(check(text), code);
  }
  // Exactly at the limit still parses; one more level does not.
  const nested = (levels: number): string => `SELECT ${'('.repeat(levels)}x${')'.repeat(levels)} FROM T`;
  assert.equal(parse(nested(MAX_NESTING)).kind, 'select');
  assert.throws(() => parse(nested(MAX_NESTING + 1)), (e: unknown) => e instanceof NrqlError && e.code === NRQL_ERROR_CODES.LIMIT_EXCEEDED && e.span?.start === 7 + MAX_NESTING);
  // Long flat chains are loops, not recursion: only the tree depth limit (MAX_TREE_DEPTH levels) bounds them.
  const chain = `SELECT ${Array.from({ length: 290 }, () => 'a').join(' + ')} FROM T WHERE ${Array.from({ length: 200 }, () => 'b = 1').join(' OR ')}`;
  assert.equal(check(chain), 'query');
});
