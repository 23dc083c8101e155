import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isPlainName, lex, RESERVED_WORDS, type Token } from './lexer.js';
import { NRQL_ERROR_CODES, NrqlError } from './nrql-error.js';
import { scaledRuns } from '../../test/helpers/fuzz-scale.js';

/** Tokens without spans, in a compact form: `word:SELECT`, `string:it's`, `number:1.5`, `(`. */
function kinds(text: string): string[] {
  return lex(text).map((t) => describe(t));
}

function describe(t: Token): string {
  switch (t.kind) {
    case 'word':
      return `word:${t.text}`;
    case 'quotedName':
      return `name:${t.name}`;
    case 'string':
      return `${t.raw ? 'raw' : 'string'}:${t.value}`;
    case 'number':
      return `${t.integer ? 'int' : 'number'}:${t.value}`;
    case 'symbol':
      return t.symbol;
    case 'end':
      return 'end';
  }
}

function lexFails(text: string, code: string, message: string, span: { start: number; end: number }): void {
  assert.throws(
    () => lex(text),
    (e: unknown) => {
      assert.ok(e instanceof NrqlError);
      assert.equal(e.code, code);
      assert.equal(e.message, message);
      assert.deepEqual(e.span, span);
      return true;
    },
  );
}

test('words keep their spelling and spans; keywords are words too', () => {
  const tokens = lex('select Count(*) FROM Transaction');
  assert.deepEqual(tokens, [
    { kind: 'word', text: 'select', lower: 'select', span: { start: 0, end: 6 } },
    { kind: 'word', text: 'Count', lower: 'count', span: { start: 7, end: 12 } },
    { kind: 'symbol', symbol: '(', span: { start: 12, end: 13 } },
    { kind: 'symbol', symbol: '*', span: { start: 13, end: 14 } },
    { kind: 'symbol', symbol: ')', span: { start: 14, end: 15 } },
    { kind: 'word', text: 'FROM', lower: 'from', span: { start: 16, end: 20 } },
    { kind: 'word', text: 'Transaction', lower: 'transaction', span: { start: 21, end: 32 } },
    { kind: 'end', span: { start: 32, end: 32 } },
  ]);
});

test('identifiers: letters, digits, _, and . or : between name characters', () => {
  assert.deepEqual(kinds('entity.guid newrelic.timeslice.value Mobile:Crash _x1 a.b2:c'), [
    'word:entity.guid', 'word:newrelic.timeslice.value', 'word:Mobile:Crash', 'word:_x1', 'word:a.b2:c', 'end',
  ]);
  // A colon followed by a digit or a space ends the name: named arguments with or without a space.
  assert.deepEqual(kinds('t: 0.5'), ['word:t', ':', 'number:0.5', 'end']);
  assert.deepEqual(kinds('t:0.5'), ['word:t', ':', 'number:0.5', 'end']);
  // …but a colon before a letter continues it (documented in lex).
  assert.deepEqual(kinds('exclusiveTime:true'), ['word:exclusiveTime:true', 'end']);
  assert.deepEqual(kinds('1abc x2'), ['int:1', 'word:abc', 'word:x2', 'end']);
  lexFails('a.', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 2, unexpected '.'; expected a name, number, string or operator", { start: 1, end: 2 });
  lexFails('a .b', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 3, unexpected '.'; expected a name, number, string or operator", { start: 2, end: 3 });
});

test('backtick names: anything inside, a doubled backtick is one', () => {
  assert.deepEqual(lex('`Logged-in user`')[0], { kind: 'quotedName', name: 'Logged-in user', span: { start: 0, end: 16 } });
  assert.deepEqual(kinds('`a``b` `` `select`'), ['name:a`b', 'name:', 'name:select', 'end']);
  assert.deepEqual(kinds('`back\\slash`'), ['name:back\\slash', 'end']);
  lexFails('FACET `Logged-in user', NRQL_ERROR_CODES.UNTERMINATED, 'Error at line 1 position 7, unterminated name: no closing `', { start: 6, end: 7 });
});

test("strings: \\' and \\\\ escapes, a doubled quote, other backslashes kept", () => {
  assert.deepEqual(kinds("'it\\'s' 'a\\\\b' 'it''s' '' 'a\\nb' '%cart%'"), [
    "string:it's", 'string:a\\b', "string:it's", 'string:', 'string:a\\nb', 'string:%cart%', 'end',
  ]);
  assert.deepEqual(lex("x = 'abc'")[2], { kind: 'string', value: 'abc', raw: false, span: { start: 4, end: 9 } });
  assert.deepEqual(kinds("'''' ''''''"), ["string:'", "string:''", 'end']);
  assert.deepEqual(kinds("'日本 😀'"), ['string:日本 😀', 'end']);
});

test('unterminated strings point at the opening quote', () => {
  lexFails("SELECT 'abc", NRQL_ERROR_CODES.UNTERMINATED, "Error at line 1 position 8, unterminated string: no closing '", { start: 7, end: 8 });
  lexFails("WHERE a = 'abc\\'", NRQL_ERROR_CODES.UNTERMINATED, "Error at line 1 position 11, unterminated string: no closing '", { start: 10, end: 11 });
  lexFails("x\n  = 'it''", NRQL_ERROR_CODES.UNTERMINATED, "Error at line 2 position 5, unterminated string: no closing '", { start: 6, end: 7 });
  lexFails("a RLIKE r'\\d+", NRQL_ERROR_CODES.UNTERMINATED, "Error at line 1 position 9, unterminated regular expression: no closing '", { start: 8, end: 10 });
  lexFails("'abc\\", NRQL_ERROR_CODES.UNTERMINATED, "Error at line 1 position 1, unterminated string: no closing '", { start: 0, end: 1 });
});

test("raw strings r'…' keep backslashes; \\' does not end them", () => {
  assert.deepEqual(lex("r'\\d+\\.x'")[0], { kind: 'string', value: '\\d+\\.x', raw: true, span: { start: 0, end: 9 } });
  assert.deepEqual(kinds("r'a\\'b' R'ch.*' r'\\\\' r'it''s'"), ["raw:a\\'b", 'raw:ch.*', 'raw:\\\\', "raw:it's", 'end']);
  // Only a lone r directly before the quote makes a raw string.
  assert.deepEqual(kinds("r 'x' for'x' r"), ['word:r', 'string:x', 'word:for', 'string:x', 'word:r', 'end']);
});

test('numbers: integers, decimals, leading dot, exponents; integer means digits only', () => {
  assert.deepEqual(kinds('0 42 1.5 .5 1e3 1E-7 1e+21 5e-324 007'), [
    'int:0', 'int:42', 'number:1.5', 'number:0.5', 'number:1000', 'number:1e-7', 'number:1e+21', 'number:5e-324', 'int:7', 'end',
  ]);
  assert.deepEqual(lex('x > 1754899980000')[2], { kind: 'number', value: 1754899980000, integer: true, span: { start: 4, end: 17 } });
  // An `e` without digits is a word; a dot without digits is not part of the number.
  assert.deepEqual(kinds('1e 2E+x'), ['int:1', 'word:e', 'int:2', 'word:E', '+', 'word:x', 'end']);
  assert.deepEqual(kinds('1.2.3'), ['number:1.2', 'number:0.3', 'end']);
  lexFails('1.', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 2, unexpected '.'; expected a name, number, string or operator", { start: 1, end: 2 });
  lexFails('LIMIT 1e999', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 7, number out of range '1e999'; expected a number below 1.8e308", { start: 6, end: 11 });
  const huge = '9'.repeat(400);
  lexFails(huge, NRQL_ERROR_CODES.SYNTAX, `Error at line 1 position 1, number out of range '${'9'.repeat(40)}…'; expected a number below 1.8e308`, { start: 0, end: 400 });
});

test('operators, with <> and the two-character comparisons', () => {
  assert.deepEqual(kinds('= != <> < <= > >= + - * / ( ) , [ ] : ;'), [
    '=', '!=', '<>', '<', '<=', '>', '>=', '+', '-', '*', '/', '(', ')', ',', '[', ']', ':', ';', 'end',
  ]);
  assert.deepEqual(kinds('a<=b<>c>=-1'), ['word:a', '<=', 'word:b', '<>', 'word:c', '>=', '-', 'int:1', 'end']);
  assert.deepEqual(kinds('--1'), ['-', '-', 'int:1', 'end']);
});

test('whitespace of any kind separates tokens; unknown characters are refused with their position', () => {
  assert.deepEqual(kinds('a\tb\r\nc\u00a0d\u2003e'), ['word:a', 'word:b', 'word:c', 'word:d', 'word:e', 'end']);
  lexFails('WHERE a = "x"', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 11, unexpected '\"'; expected a string in single quotes or a name in backticks", { start: 10, end: 11 });
  lexFails('a != !b', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 6, unexpected '!'; expected a name, number, string or operator", { start: 5, end: 6 });
  lexFails('SELECT x\nFROM 😀', NRQL_ERROR_CODES.SYNTAX, "Error at line 2 position 6, unexpected '😀'; expected a name, number, string or operator", { start: 14, end: 16 });
  lexFails('x # comment', NRQL_ERROR_CODES.SYNTAX, "Error at line 1 position 3, unexpected '#'; expected a name, number, string or operator", { start: 2, end: 3 });
  assert.deepEqual(lex(''), [{ kind: 'end', span: { start: 0, end: 0 } }]);
  assert.deepEqual(lex('  \n '), [{ kind: 'end', span: { start: 4, end: 4 } }]);
});

test('isPlainName: plain words that are not reserved', () => {
  for (const name of ['duration', 'entity.guid', 'Mobile:Crash', '_x', 'count', 'max', 'desc', 'minutes', 'today', 'r', 'a.1']) {
    assert.equal(isPlainName(name), true, name);
  }
  for (const name of ['', 'Logged-in user', 'select', 'FROM', 'Null', 'true', 'join', '1st', 'a.', 'a..b', 'a:1', 'ünï', 'a b', 'a`b']) {
    assert.equal(isPlainName(name), false, name);
  }
  assert.equal(RESERVED_WORDS.has('where'), true);
});

test('isPlainName agrees with the lexer for any text', () => {
  fc.assert(
    fc.property(fc.oneof(fc.stringMatching(/^[A-Za-z_.:0-9]{1,8}$/), fc.string({ maxLength: 6 })), (name) => {
      let oneWord = false;
      try {
        const tokens = lex(name);
        oneWord = tokens.length === 2 && tokens[0]!.kind === 'word' && tokens[0]!.text === name;
      } catch {
        oneWord = false;
      }
      assert.equal(isPlainName(name), oneWord && !RESERVED_WORDS.has(name.toLowerCase()), name);
    }),
    { numRuns: scaledRuns(3000) },
  );
});
