import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripSpans } from '../../../nrql/ast.js';
import type { SearchCondition, Span } from './ast.js';
import { formatEntitySearch, formatTagField, quoteString } from './format.js';
import { parseEntitySearch } from './parser.js';

function canonical(text: string): string {
  return formatEntitySearch(parseEntitySearch(text));
}

const S: Span = { start: 0, end: 0 };

test('keywords upper case, canonical field names, single spaces', () => {
  assert.equal(
    canonical("name like 'App' and domain='APM'  and  DOMAIN = 'APM' and accountid=1 or reporting is not null"),
    "name LIKE 'App' AND domain = 'APM' AND domain = 'APM' AND accountId = 1 OR reporting IS NOT NULL",
  );
  assert.equal(canonical("type not in ('A','B') and name not like 'x' and alertSeverity is null"), "type NOT IN ('A', 'B') AND name NOT LIKE 'x' AND alertSeverity IS NULL");
  assert.equal(canonical('reporting = TRUE and alertable != false'), 'reporting = true AND alertable != false');
});

test('only the parentheses the tree needs', () => {
  assert.equal(canonical("((name = 'a'))"), "name = 'a'");
  assert.equal(canonical("(name = 'a' AND name = 'b') AND name = 'c'"), "name = 'a' AND name = 'b' AND name = 'c'");
  assert.equal(canonical("name = 'a' AND (name = 'b' AND name = 'c')"), "name = 'a' AND (name = 'b' AND name = 'c')");
  assert.equal(canonical("name = 'a' OR (name = 'b' OR name = 'c')"), "name = 'a' OR (name = 'b' OR name = 'c')");
  assert.equal(canonical("(name = 'a' OR name = 'b') OR name = 'c'"), "name = 'a' OR name = 'b' OR name = 'c'");
  assert.equal(canonical("(name = 'a' OR name = 'b') AND name = 'c'"), "(name = 'a' OR name = 'b') AND name = 'c'");
  assert.equal(canonical("name = 'a' AND (name = 'b' OR name = 'c')"), "name = 'a' AND (name = 'b' OR name = 'c')");
  assert.equal(canonical("name = 'a' OR (name = 'b' AND name = 'c')"), "name = 'a' OR name = 'b' AND name = 'c'");
  assert.equal(canonical("(name = 'a' AND name = 'b') OR name = 'c'"), "name = 'a' AND name = 'b' OR name = 'c'");
});

test('strings escape backslashes and quotes; numbers print so they read back as the same value', () => {
  assert.equal(quoteString("O'Brien"), "'O\\'Brien'");
  assert.equal(quoteString('C:\\temp'), "'C:\\\\temp'");
  assert.equal(quoteString(''), "''");
  assert.equal(canonical("name = 'C:\\temp'"), "name = 'C:\\\\temp'");
  assert.equal(canonical("name = 'O\\'Brien'"), "name = 'O\\'Brien'");
  assert.equal(canonical('indexedAt IN (.5, 1e3, 1E+21, 0.0000001, -0, 007)'), 'indexedAt IN (0.5, 1000, 1e+21, 1e-7, -0, 7)');
  const negativeZero = parseEntitySearch('indexedAt = -0');
  assert.ok(negativeZero.kind === 'compare' && Object.is(negativeZero.value.value, -0));
});

test('tag keys print plain when they lex as one word, in backticks otherwise', () => {
  assert.equal(formatTagField('aws.awsRegion'), 'tags.aws.awsRegion');
  assert.equal(formatTagField('k8s.cluster-name'), 'tags.k8s.cluster-name');
  assert.equal(formatTagField('my key'), 'tags.`my key`');
  assert.equal(formatTagField('a..b'), 'tags.`a..b`');
  assert.equal(formatTagField('.a'), 'tags.`.a`');
  assert.equal(formatTagField('a`b'), 'tags.`a``b`');
  assert.equal(formatTagField("it's"), "tags.`it's`");
  assert.equal(canonical("tags.`accountId` = '1'"), "tags.accountId = '1'");
  assert.equal(canonical("tags.`a``b` = '1' AND tags.`x y.z` IS NULL"), "tags.`a``b` = '1' AND tags.`x y.z` IS NULL");
});

test('a tree built by hand prints as text that parses back to it', () => {
  const tree: SearchCondition = {
    kind: 'or',
    left: { kind: 'in', field: { kind: 'tag', key: 'a b', span: S }, values: [{ kind: 'string', value: "'\\", span: S }, { kind: 'number', value: -1.5, span: S }], negated: true, span: S },
    right: {
      kind: 'and',
      left: { kind: 'like', field: { kind: 'field', name: 'name', span: S }, pattern: '%x%', negated: false, span: S },
      right: { kind: 'or', left: { kind: 'isNull', field: { kind: 'field', name: 'indexedAt', span: S }, negated: false, span: S }, right: { kind: 'compare', field: { kind: 'field', name: 'reporting', span: S }, op: '!=', value: { kind: 'boolean', value: true, span: S }, span: S }, span: S },
      span: S,
    },
    span: S,
  };
  const text = formatEntitySearch(tree);
  assert.equal(text, "tags.`a b` NOT IN ('\\'\\\\', -1.5) OR name LIKE '%x%' AND (indexedAt IS NULL OR reporting != true)");
  assert.deepEqual(stripSpans(parseEntitySearch(text)), stripSpans(tree));
});
