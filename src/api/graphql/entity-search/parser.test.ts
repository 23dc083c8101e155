import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripSpans } from '../../../nrql/ast.js';
import { ENTITY_SEARCH_ERROR_CODES, EntitySearchError, type EntitySearchErrorCode } from './entity-search-error.js';
import { MAX_NESTING, MAX_QUERY_LENGTH, parseEntitySearch } from './parser.js';

// Expected trees are written without spans and compared with `stripSpans(parseEntitySearch(…))`.
const field = (name: string) => ({ kind: 'field', name });
const tag = (key: string) => ({ kind: 'tag', key });
const str = (value: string) => ({ kind: 'string', value });
const num = (value: number) => ({ kind: 'number', value });
const bool = (value: boolean) => ({ kind: 'boolean', value });
const eq = (f: unknown, value: unknown) => ({ kind: 'compare', field: f, op: '=', value });
const ne = (f: unknown, value: unknown) => ({ kind: 'compare', field: f, op: '!=', value });
const isIn = (f: unknown, values: unknown[], negated = false) => ({ kind: 'in', field: f, values, negated });
const like = (f: unknown, pattern: string, negated = false) => ({ kind: 'like', field: f, pattern, negated });
const isNull = (f: unknown, negated = false) => ({ kind: 'isNull', field: f, negated });
const and = (left: unknown, right: unknown) => ({ kind: 'and', left, right });
const or = (left: unknown, right: unknown) => ({ kind: 'or', left, right });

function tree(text: string): unknown {
  return stripSpans(parseEntitySearch(text));
}

/** Asserts that `text` is refused with `code` at `offset`, and returns the message. */
function refused(text: string, code: EntitySearchErrorCode, offset: number): string {
  try {
    parseEntitySearch(text);
  } catch (error) {
    assert.ok(error instanceof EntitySearchError, `${text}: ${String(error)}`);
    assert.equal(error.code, code, `${text}: ${error.message}`);
    assert.equal(error.offset, offset, `${text}: ${error.message}`);
    return error.message;
  }
  assert.fail(`${text} was accepted`);
}

test('what real clients send (reference §3.2)', () => {
  // client-go's BuildEntitySearchNrqlQuery repeats clauses.
  assert.deepEqual(tree("name LIKE 'App' AND domain = 'APM' AND domain = 'APM'"), and(and(like(field('name'), 'App'), eq(field('domain'), str('APM'))), eq(field('domain'), str('APM'))));
  // client-go and the terraform provider quote tag keys in backticks.
  assert.deepEqual(tree("tags.`accountId` = '4100123'"), eq(tag('accountId'), str('4100123')));
  assert.deepEqual(tree("tags.`my key` = 'v' AND tags.`team` = 'core'"), and(eq(tag('my key'), str('v')), eq(tag('team'), str('core'))));
  // The terraform provider escapes quotes with a backslash.
  assert.deepEqual(tree("name = 'O\\'Brien'"), eq(field('name'), str("O'Brien")));
  assert.deepEqual(tree('accountId = 12345'), eq(field('accountId'), num(12345)));
  assert.deepEqual(tree('domainId=12345'), eq(field('domainId'), num(12345)));
  assert.deepEqual(tree("domainId = '77001' AND domain = 'APM'"), and(eq(field('domainId'), str('77001')), eq(field('domain'), str('APM'))));
  assert.deepEqual(tree("reporting = 'true'"), eq(field('reporting'), str('true')));
  assert.deepEqual(tree("name like 'x'"), like(field('name'), 'x'));
  assert.deepEqual(tree("type IN ('APPLICATION','KEY_TRANSACTION')"), isIn(field('type'), [str('APPLICATION'), str('KEY_TRANSACTION')]));
  // The migration guide's forms.
  assert.deepEqual(
    tree("domain = 'APM' AND type = 'APPLICATION' AND accountId = 4100123"),
    and(and(eq(field('domain'), str('APM')), eq(field('type'), str('APPLICATION'))), eq(field('accountId'), num(4100123))),
  );
  // A public dashboard script: lower-case keywords, !=, NOT IN, no spaces around =.
  assert.deepEqual(
    tree("reporting='true' and alertSeverity != 'NOT_CONFIGURED' and type not in ('DASHBOARD', 'WORKFLOW')"),
    and(and(eq(field('reporting'), str('true')), ne(field('alertSeverity'), str('NOT_CONFIGURED'))), isIn(field('type'), [str('DASHBOARD'), str('WORKFLOW')], true)),
  );
  // The docs' IS NOT NULL forms.
  assert.deepEqual(tree('alertSeverity is not null'), isNull(field('alertSeverity'), true));
  assert.deepEqual(tree('tags.clusterAgentId is not null'), isNull(tag('clusterAgentId'), true));
  assert.deepEqual(tree("id = 'NDEwMDEyM3xBUE18QVBQTElDQVRJT058NzcwMDE'"), eq(field('id'), str('NDEwMDEyM3xBUE18QVBQTElDQVRJT058NzcwMDE')));
});

test('keywords and field names in any case; tag keys as written', () => {
  assert.deepEqual(tree("NAME Like 'a' anD DomainType In ('APM-APPLICATION') oR ACCOUNTID = 1"), or(and(like(field('name'), 'a'), isIn(field('domainType'), [str('APM-APPLICATION')])), eq(field('accountId'), num(1))));
  assert.deepEqual(tree('indexedat Is Not Null AND LASTREPORTINGCHANGEAT is null'), and(isNull(field('indexedAt'), true), isNull(field('lastReportingChangeAt'))));
  assert.deepEqual(tree("Tags.Language = 'java'"), eq(tag('Language'), str('java')));
  assert.deepEqual(tree("TAGS.`Team Name` = 'x'"), eq(tag('Team Name'), str('x')));
});

test('tag keys: dotted, with - : / and digits, or backtick-quoted with `` for a backtick', () => {
  assert.deepEqual(tree("tags.aws.awsRegion = 'us-east-1'"), eq(tag('aws.awsRegion'), str('us-east-1')));
  assert.deepEqual(tree("tags.k8s.cluster-name = 'a'"), eq(tag('k8s.cluster-name'), str('a')));
  assert.deepEqual(tree("tags.app/tier:web = 'a'"), eq(tag('app/tier:web'), str('a')));
  assert.deepEqual(tree("tags.1st = 'a'"), eq(tag('1st'), str('a')));
  assert.deepEqual(tree("tags.`a``b` = 'x'"), eq(tag('a`b'), str('x')));
  assert.deepEqual(tree("tags.`a.b` = 'x'"), eq(tag('a.b'), str('x')));
  assert.deepEqual(tree("tags.`it's` = 'x'"), eq(tag("it's"), str('x')));
  assert.deepEqual(tree("tags.ünïcode = 'x'"), eq(tag('ünïcode'), str('x')));
});

test('values: strings with \\\' and \\\\, other backslashes kept; numbers; bare and quoted booleans', () => {
  assert.deepEqual(tree("name = 'a\\\\b'"), eq(field('name'), str('a\\b')));
  assert.deepEqual(tree("name = 'C:\\temp\\new'"), eq(field('name'), str('C:\\temp\\new')));
  assert.deepEqual(tree("name = 'ends with \\\\'"), eq(field('name'), str('ends with \\')));
  assert.deepEqual(tree("name = ''"), eq(field('name'), str('')));
  assert.deepEqual(tree("name = 'two\nlines'"), eq(field('name'), str('two\nlines')));
  assert.deepEqual(tree('indexedAt = 1754900000000'), eq(field('indexedAt'), num(1754900000000)));
  assert.deepEqual(tree('indexedAt IN (-5, 2.5, .5, 1e3, 1E+21, 7e-1)'), isIn(field('indexedAt'), [num(-5), num(2.5), num(0.5), num(1000), num(1e21), num(0.7)]));
  assert.deepEqual(tree("indexedAt = '1754900000000'"), eq(field('indexedAt'), str('1754900000000')));
  assert.deepEqual(tree('reporting = true'), eq(field('reporting'), bool(true)));
  assert.deepEqual(tree('reporting = FALSE'), eq(field('reporting'), bool(false)));
  assert.deepEqual(tree("reporting IN ('TRUE', false)"), isIn(field('reporting'), [str('TRUE'), bool(false)]));
  assert.deepEqual(tree("accountId = '12345'"), eq(field('accountId'), str('12345')));
  assert.deepEqual(tree('name = 42'), eq(field('name'), num(42)));
  assert.deepEqual(tree('alertable = true'), eq(field('alertable'), bool(true)));
});

test('OR binds looser than AND; parentheses group; both are left-associative', () => {
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((v) => eq(field('name'), str(v)));
  assert.deepEqual(tree("name = 'a' OR name = 'b' AND name = 'c'"), or(a, and(b, c)));
  assert.deepEqual(tree("(name = 'a' OR name = 'b') AND name = 'c'"), and(or(a, b), c));
  assert.deepEqual(tree("name = 'a' AND (name = 'b' OR name = 'c') AND name = 'd'"), and(and(a, or(b, c)), d));
  assert.deepEqual(tree("name = 'a' AND (name = 'b' AND name = 'c')"), and(a, and(b, c)));
  assert.deepEqual(tree("((name = 'a'))"), a);
  assert.deepEqual(tree(" \t\n name = 'a'\n"), a);
});

test('spans point at the text of each node', () => {
  const text = "name = 'a' AND tags.`k` IN (1, 2)";
  const parsed = parseEntitySearch(text);
  assert.deepEqual(parsed.span, { start: 0, end: text.length });
  assert.equal(parsed.kind, 'and');
  if (parsed.kind !== 'and') return;
  assert.deepEqual(parsed.left.span, { start: 0, end: 10 });
  assert.deepEqual(parsed.right.span, { start: 15, end: text.length });
  assert.equal(parsed.right.kind, 'in');
  if (parsed.right.kind !== 'in') return;
  assert.deepEqual(parsed.right.field.span, { start: 15, end: 23 });
  assert.deepEqual(parsed.right.values.map((v) => v.span), [{ start: 28, end: 29 }, { start: 31, end: 32 }]);
});

test('empty, too long and too deep', () => {
  assert.equal(refused('', ENTITY_SEARCH_ERROR_CODES.EMPTY, 0), "The entity search query is empty; give at least one condition, such as domain = 'APM'");
  refused(' \n\t ', ENTITY_SEARCH_ERROR_CODES.EMPTY, 0);

  const longest = `name = '${'x'.repeat(MAX_QUERY_LENGTH - 9)}'`;
  assert.equal(longest.length, 4096);
  assert.deepEqual(tree(longest), eq(field('name'), str('x'.repeat(4087))));
  assert.equal(refused(`${longest} `, ENTITY_SEARCH_ERROR_CODES.TOO_LONG, 4096), 'The entity search query has 4097 characters; the limit is 4096');

  const nested = (depth: number) => `${'('.repeat(depth)}name = 'a'${')'.repeat(depth)}`;
  assert.equal(MAX_NESTING, 32);
  assert.deepEqual(tree(nested(32)), eq(field('name'), str('a')));
  assert.equal(refused(nested(33), ENTITY_SEARCH_ERROR_CODES.TOO_DEEP, 32), 'Invalid entity search query at character 33: parentheses nest deeper than 32 levels');
});

test('unknown fields name themselves and suggest the closest one', () => {
  assert.equal(refused("nmae = 'x'", ENTITY_SEARCH_ERROR_CODES.UNKNOWN_FIELD, 0), "Invalid entity search query at character 1: unknown field 'nmae'; did you mean 'name'?");
  assert.equal(refused("domain = 'APM' AND acountId = 1", ENTITY_SEARCH_ERROR_CODES.UNKNOWN_FIELD, 19), "Invalid entity search query at character 20: unknown field 'acountId'; did you mean 'accountId'?");
  assert.equal(refused("guid = 'x'", ENTITY_SEARCH_ERROR_CODES.UNKNOWN_FIELD, 0), "Invalid entity search query at character 1: unknown field 'guid'; did you mean 'id'?");
  assert.equal(refused('applicationId = 5', ENTITY_SEARCH_ERROR_CODES.UNKNOWN_FIELD, 0), "Invalid entity search query at character 1: unknown field 'applicationId'; did you mean 'domainId'?");
  assert.equal(refused("entityType = 'x'", ENTITY_SEARCH_ERROR_CODES.UNKNOWN_FIELD, 0), "Invalid entity search query at character 1: unknown field 'entityType'; did you mean 'type'?");
  assert.equal(
    refused("language = 'java'", ENTITY_SEARCH_ERROR_CODES.UNKNOWN_FIELD, 0),
    "Invalid entity search query at character 1: unknown field 'language'; the fields are id, name, domain, type, domainType, alertSeverity, accountId, domainId, reporting, alertable, indexedAt, firstIndexedAt, lastReportingChangeAt and tags.<key>",
  );
  assert.equal(refused("tags = 'x'", ENTITY_SEARCH_ERROR_CODES.UNKNOWN_FIELD, 0), "Invalid entity search query at character 1: a tag is named tags.<key>, e.g. tags.language = 'nodejs'");
});

test('values a field cannot hold are refused at the value', () => {
  assert.equal(refused("reporting = 'yes'", ENTITY_SEARCH_ERROR_CODES.BAD_VALUE, 12), "Invalid entity search query at character 13: reporting takes true or false, not the string 'yes'");
  assert.equal(refused('reporting IN (true, 1)', ENTITY_SEARCH_ERROR_CODES.BAD_VALUE, 20), 'Invalid entity search query at character 21: reporting takes true or false, not the number 1');
  assert.equal(refused("accountId = 'abc'", ENTITY_SEARCH_ERROR_CODES.BAD_VALUE, 12), "Invalid entity search query at character 13: accountId takes a whole number, not the string 'abc'");
  assert.equal(refused('accountId = 1.5', ENTITY_SEARCH_ERROR_CODES.BAD_VALUE, 12), 'Invalid entity search query at character 13: accountId takes a whole number, not the number 1.5');
  assert.equal(refused('accountId = true', ENTITY_SEARCH_ERROR_CODES.BAD_VALUE, 12), "Invalid entity search query at character 13: accountId takes a whole number, not 'true'");
  assert.equal(refused("indexedAt = 'yesterday'", ENTITY_SEARCH_ERROR_CODES.BAD_VALUE, 12), "Invalid entity search query at character 13: indexedAt takes a time in epoch milliseconds, not the string 'yesterday'");
  assert.equal(refused('indexedAt = 1e999', ENTITY_SEARCH_ERROR_CODES.BAD_VALUE, 12), 'Invalid entity search query at character 13: the number 1e999 is out of range');
  assert.equal(
    refused("accountId LIKE '1'", ENTITY_SEARCH_ERROR_CODES.BAD_OPERATOR, 10),
    'Invalid entity search query at character 11: LIKE matches text, and accountId is not text; it takes =, !=, IN, NOT IN and IS [NOT] NULL',
  );
  refused("reporting NOT LIKE 'true'", ENTITY_SEARCH_ERROR_CODES.BAD_OPERATOR, 14);
  refused("firstIndexedAt LIKE '1'", ENTITY_SEARCH_ERROR_CODES.BAD_OPERATOR, 15);
});

test('syntax errors say what was expected, where', () => {
  const cases: [string, EntitySearchErrorCode, number, string][] = [
    ["name = 'abc", ENTITY_SEARCH_ERROR_CODES.UNTERMINATED, 7, "this string has no closing quote (write \\' for a quote inside a string)"],
    ["name = 'it\\'", ENTITY_SEARCH_ERROR_CODES.UNTERMINATED, 7, "this string has no closing quote (write \\' for a quote inside a string)"],
    ["tags.`key = 'x'", ENTITY_SEARCH_ERROR_CODES.UNTERMINATED, 5, 'this backtick-quoted tag key has no closing backtick'],
    ['name = "checkout"', ENTITY_SEARCH_ERROR_CODES.SYNTAX, 7, `unexpected '"'; strings take single quotes, e.g. name = 'checkout'`],
    ['indexedAt >= 5', ENTITY_SEARCH_ERROR_CODES.SYNTAX, 10, "unexpected '>='; entity search compares with =, !=, IN, NOT IN, LIKE, NOT LIKE and IS [NOT] NULL"],
    ["name <> 'a'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 5, "unexpected '<>'; entity search compares with =, !=, IN, NOT IN, LIKE, NOT LIKE and IS [NOT] NULL"],
    ["name ! 'a'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 5, "unexpected '!'"],
    ["name = 'a';", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 10, "unexpected ';'"],
    ['domainId = 12abc', ENTITY_SEARCH_ERROR_CODES.SYNTAX, 11, "'12abc' is not a number"],
    ['domainId = 1.2.3', ENTITY_SEARCH_ERROR_CODES.SYNTAX, 11, "'1.2.3' is not a number"],
    ['domainId = -', ENTITY_SEARCH_ERROR_CODES.SYNTAX, 11, "unexpected '-'"],
    ['name', ENTITY_SEARCH_ERROR_CODES.SYNTAX, 4, 'expected =, !=, IN, NOT IN, LIKE, NOT LIKE or IS [NOT] NULL after name, found the end of the query'],
    ["name == 'a'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 6, "expected a value (a string in single quotes, a number, true or false), found '='"],
    ['name = ', ENTITY_SEARCH_ERROR_CODES.SYNTAX, 7, 'expected a value (a string in single quotes, a number, true or false), found the end of the query'],
    ['name = APM', ENTITY_SEARCH_ERROR_CODES.SYNTAX, 7, "expected a value (a string in single quotes, a number, true or false), found 'APM'"],
    ["name CONTAINS 'a'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 5, "expected =, !=, IN, NOT IN, LIKE, NOT LIKE or IS [NOT] NULL after name, found 'CONTAINS'"],
    ["name NOT = 'a'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 9, "expected IN or LIKE after NOT, found '='"],
    ['name IS EMPTY', ENTITY_SEARCH_ERROR_CODES.SYNTAX, 8, "expected NULL or NOT NULL after IS, found 'EMPTY'"],
    ['name IS NOT 5', ENTITY_SEARCH_ERROR_CODES.SYNTAX, 12, 'expected NULL after IS NOT, found the number 5'],
    ['name LIKE 5', ENTITY_SEARCH_ERROR_CODES.SYNTAX, 10, 'LIKE takes a string in single quotes, found the number 5'],
    ["type IN 'APM'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 8, "expected a '(' to open the list of values after IN, found the string 'APM'"],
    ['type IN ()', ENTITY_SEARCH_ERROR_CODES.SYNTAX, 9, "expected a value (a string in single quotes, a number, true or false), found ')'"],
    ["type IN ('a' 'b')", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 13, "expected ',' or ')' in the list of values after IN, found the string 'b'"],
    ["type IN ('a',)", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 13, "expected a value (a string in single quotes, a number, true or false), found ')'"],
    ["(name = 'a'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 11, "expected a ')' to close the '(' at character 1, found the end of the query"],
    ["name = 'a')", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 10, "unexpected ')' after a complete condition; this ) has no ( before it"],
    ["name = 'a' domain = 'APM'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 11, "unexpected 'domain' after a complete condition; join conditions with AND or OR"],
    ["name = 'a' AND", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 14, 'expected a field name such as name, domain or tags.<key>, found the end of the query'],
    ["AND name = 'a'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 0, "expected a field name such as name, domain or tags.<key>, found 'AND'"],
    ["name = 'a' OR NOT name = 'b'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 14, "expected a field name such as name, domain or tags.<key>, found 'NOT'"],
    ["'APM' = domain", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 0, "expected a field name such as name, domain or tags.<key>, found the string 'APM'"],
    ["`key` = 'v'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 0, 'expected a field name such as name, domain or tags.<key>, found `key`'],
    ["tags. = 'x'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 5, "expected a tag key after 'tags.', e.g. tags.language or tags.`my key`"],
    ["tags. `k` = 'x'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 5, "expected a tag key after 'tags.', e.g. tags.language or tags.`my key`"],
    ["tags.`` = 'x'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 5, 'a tag key cannot be empty'],
    ["tags.a..b = 'x'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 5, "the tag key 'a..b' has an empty part between dots; quote it in backticks: tags.`a..b`"],
    ["tags.a. = 'x'", ENTITY_SEARCH_ERROR_CODES.SYNTAX, 5, "the tag key 'a.' has an empty part between dots; quote it in backticks: tags.`a.`"],
    [`name = 'a' '${'y'.repeat(50)}'`, ENTITY_SEARCH_ERROR_CODES.SYNTAX, 11, `unexpected the string '${'y'.repeat(40)}…' after a complete condition; join conditions with AND or OR`],
    [`name = 1 ${'z'.repeat(50)}`, ENTITY_SEARCH_ERROR_CODES.SYNTAX, 9, `unexpected '${'z'.repeat(40)}…' after a complete condition; join conditions with AND or OR`],
  ];
  for (const [text, code, offset, what] of cases) {
    assert.equal(refused(text, code, offset), `Invalid entity search query at character ${offset + 1}: ${what}`, text);
  }
});
