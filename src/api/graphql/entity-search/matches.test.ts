import { test } from 'node:test';
import assert from 'node:assert/strict';
import { likeMatches, likeTokens } from './like-match.js';
import { matches, type MatchOptions } from './matches.js';
import { parseEntitySearch } from './parser.js';
import type { SearchableEntity } from './searchable-entity.js';

function entity(guid: string, fields: Partial<Omit<SearchableEntity, 'guid' | 'tags'>> & { tags?: Record<string, string[]> }): SearchableEntity {
  return {
    guid,
    name: guid,
    accountId: 4100123,
    domain: 'APM',
    type: 'APPLICATION',
    domainId: '1',
    alertSeverity: 'NOT_CONFIGURED',
    reporting: true,
    indexedAt: null,
    firstIndexedAt: null,
    lastReportingChangeAt: null,
    ...fields,
    tags: new Map(Object.entries(fields.tags ?? {})),
  };
}

// GUIDs are short made-up strings here: the matcher treats them as opaque text.
const ENTITIES: readonly SearchableEntity[] = [
  entity('G-billing', {
    name: 'billing-api', domainId: '77001', alertSeverity: 'NOT_ALERTING', indexedAt: 1754900000000, firstIndexedAt: 1754800000000,
    tags: { accountId: ['4100123'], language: ['java'], team: ['Payments', 'core'], 'aws.awsRegion': ['us-east-1'] },
  }),
  entity('G-search', { name: 'search-api', domainId: '77002', reporting: false, tags: { accountId: ['4100123'], language: ['nodejs'], Team: ['search'] } }),
  entity('G-browser', { name: 'Checkout', domain: 'BROWSER', domainId: '204261628', indexedAt: 1754900000001, tags: { accountId: ['4100123'] } }),
  entity('G-mobile', { name: 'iOS Shop', domain: 'MOBILE', accountId: 3806526, domainId: '601483762', alertSeverity: 'WARNING', lastReportingChangeAt: 5, tags: { accountId: ['3806526'] } }),
  entity('G-kt', { name: 'Checkout /cart', type: 'KEY_TRANSACTION', domainId: '77', alertSeverity: 'CRITICAL', tags: {} }),
  entity('G-aws', { name: 'foo aws.', domainId: '78', tags: { empty: [] } }),
  entity('G-dash', { name: '-aws.', domainId: '79', reporting: false }),
  entity('g-billing', { name: "O'Brien\\Shop", domainId: '80' }),
];

/** The GUIDs of the entities `query` matches, in fixture order. */
function found(query: string, options?: MatchOptions): string[] {
  const condition = parseEntitySearch(query);
  return ENTITIES.filter((e) => matches(condition, e, options)).map((e) => e.guid);
}

const ALL = ENTITIES.map((e) => e.guid);
const except = (...guids: string[]) => ALL.filter((g) => !guids.includes(g));

test('LIKE tokens: white space and . , ; : * - _ ( ) % separate, case is ignored', () => {
  assert.deepEqual(likeTokens('  Foo.bar,baz;qux:a*b-c_d(e)f%g\th\nI  '), ['foo', 'bar', 'baz', 'qux', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']);
  assert.deepEqual(likeTokens('%%'), []);
  assert.deepEqual(likeTokens('a/b+c'), ['a/b+c']);
});

test("LIKE: the reference's examples and the contiguous-token rule", () => {
  assert.equal(likeMatches(':aws:', '-aws.'), true);
  assert.equal(likeMatches(':aws:', 'foo aws.'), true);
  assert.equal(likeMatches(':aws:', 'awsome'), false);
  assert.equal(likeMatches('AWS', 'my_aws_app'), true);
  assert.equal(likeMatches('check out', 'check-out-api'), true);
  assert.equal(likeMatches('check out', 'checkout'), false);
  assert.equal(likeMatches('api check', 'check-out-api'), false);
  assert.equal(likeMatches('out api', 'check-out-api'), true);
  assert.equal(likeMatches('check api', 'check-out-api'), false);
  assert.equal(likeMatches('%billing%', 'Billing API'), true);
  assert.equal(likeMatches('bill', 'billing-api'), false);
  assert.equal(likeMatches('a a', 'a b a a'), true);
  assert.equal(likeMatches('a a a', 'a b a a'), false);
  assert.equal(likeMatches('', 'anything'), true);
  assert.equal(likeMatches('%', ''), true);
  assert.equal(likeMatches('x', ''), false);
});

test('= on text fields ignores case; id is exact', () => {
  assert.deepEqual(found("name = 'CHECKOUT'"), ['G-browser']);
  assert.deepEqual(found("name = 'checkout /CART'"), ['G-kt']);
  assert.deepEqual(found("name = 'Checkout'"), ['G-browser']);
  assert.deepEqual(found("domain = 'apm'"), except('G-browser', 'G-mobile'));
  assert.deepEqual(found("type = 'key_transaction'"), ['G-kt']);
  assert.deepEqual(found("domainType = 'browser-application'"), ['G-browser']);
  assert.deepEqual(found("domainType IN ('APM-KEY_TRANSACTION', 'MOBILE-APPLICATION')"), ['G-mobile', 'G-kt']);
  assert.deepEqual(found("alertSeverity = 'warning' OR alertSeverity = 'CRITICAL'"), ['G-mobile', 'G-kt']);
  assert.deepEqual(found("id = 'G-billing'"), ['G-billing']);
  assert.deepEqual(found("id = 'g-billing'"), ['g-billing']);
  assert.deepEqual(found("id IN ('G-kt', 'G-aws', 'nope')"), ['G-kt', 'G-aws']);
  assert.deepEqual(found("name = 'O\\'Brien\\\\Shop'"), ['g-billing']);
  assert.deepEqual(found("name = 'O\\'Brien\\Shop'"), ['g-billing']);
});

test('accountId and domainId compare as whole numbers when both sides are, as text otherwise', () => {
  assert.deepEqual(found('accountId = 3806526'), ['G-mobile']);
  assert.deepEqual(found("accountId = '3806526'"), ['G-mobile']);
  assert.deepEqual(found("accountId = '03806526'"), ['G-mobile']);
  assert.deepEqual(found('accountId != 4100123'), ['G-mobile']);
  assert.deepEqual(found('accountId IN (1, 3806526)'), ['G-mobile']);
  assert.deepEqual(found('domainId = 77001'), ['G-billing']);
  assert.deepEqual(found("domainId = '77001' AND domain = 'APM'"), ['G-billing']);
  assert.deepEqual(found("domainId = '077'"), ['G-kt']);
  // A number is its value: 77.0 is 77.
  assert.deepEqual(found('domainId = 77.0'), ['G-kt']);
  assert.deepEqual(found("domainId = '77.0'"), []);
  assert.deepEqual(found("domainId LIKE '77001'"), ['G-billing']);
});

test('reporting and alertable take true/false in any spelling', () => {
  const notReporting = ['G-search', 'G-dash'];
  assert.deepEqual(found("reporting = 'false'"), notReporting);
  assert.deepEqual(found('reporting = FALSE'), notReporting);
  assert.deepEqual(found("reporting = 'False'"), notReporting);
  assert.deepEqual(found("reporting = 'TRUE'"), except(...notReporting));
  assert.deepEqual(found('reporting != true'), notReporting);
  assert.deepEqual(found("reporting IN (true, 'false')"), ALL);
  assert.deepEqual(found('alertable = true'), ALL);
  assert.deepEqual(found("alertable = 'false'"), []);
});

test('time fields compare as numbers; null only for them and for tags', () => {
  assert.deepEqual(found('indexedAt = 1754900000000'), ['G-billing']);
  assert.deepEqual(found("indexedAt = '1754900000001'"), ['G-browser']);
  assert.deepEqual(found('indexedAt = 1.754900000001e12'), ['G-browser']);
  assert.deepEqual(found('indexedAt IS NOT NULL'), ['G-billing', 'G-browser']);
  assert.deepEqual(found('indexedAt IS NULL'), except('G-billing', 'G-browser'));
  assert.deepEqual(found('indexedAt != 1754900000000'), except('G-billing'));
  assert.deepEqual(found('firstIndexedAt = 1754800000000'), ['G-billing']);
  assert.deepEqual(found('lastReportingChangeAt IN (5, 6)'), ['G-mobile']);
  assert.deepEqual(found('name IS NULL OR domainId IS NULL OR reporting IS NULL OR id IS NULL'), []);
  assert.deepEqual(found('name IS NOT NULL'), ALL);
});

test('LIKE on fields', () => {
  assert.deepEqual(found("name LIKE ':aws:'"), ['G-aws', 'G-dash']);
  assert.deepEqual(found("name LIKE 'api'"), ['G-billing', 'G-search']);
  assert.deepEqual(found("name LIKE 'Checkout'"), ['G-browser', 'G-kt']);
  assert.deepEqual(found("name LIKE '%checkout%'"), ['G-browser', 'G-kt']);
  assert.deepEqual(found("name NOT LIKE 'checkout'"), except('G-browser', 'G-kt'));
  // '/' is not a separator.
  assert.deepEqual(found("name LIKE 'cart'"), []);
  assert.deepEqual(found("name LIKE '/CART'"), ['G-kt']);
  assert.deepEqual(found("name LIKE ''"), ALL);
  assert.deepEqual(found("name LIKE '%'"), ALL);
  assert.deepEqual(found("domainType LIKE 'key'"), ['G-kt']);
  assert.deepEqual(found("tags.team LIKE 'PAY'"), []);
  assert.deepEqual(found("tags.team LIKE 'payments'"), ['G-billing']);
  assert.deepEqual(found("tags.aws.awsRegion LIKE 'us east'"), ['G-billing']);
});

test('tags: any value matches; keys and values ignore case unless caseSensitiveTagMatching', () => {
  assert.deepEqual(found("tags.team = 'core'"), ['G-billing']);
  assert.deepEqual(found("tags.team = 'payments'"), ['G-billing']);
  assert.deepEqual(found("tags.team = 'search'"), ['G-search']);
  assert.deepEqual(found("tags.TEAM IN ('x', 'SEARCH', 'Core')"), ['G-billing', 'G-search']);
  assert.deepEqual(found("tags.team = 'payments'", { caseSensitiveTagMatching: true }), []);
  assert.deepEqual(found("tags.team = 'Payments'", { caseSensitiveTagMatching: true }), ['G-billing']);
  assert.deepEqual(found("tags.Team = 'search'", { caseSensitiveTagMatching: true }), ['G-search']);
  assert.deepEqual(found("tags.team = 'search'", { caseSensitiveTagMatching: true }), []);
  assert.deepEqual(found("tags.`aws.awsRegion` = 'US-EAST-1'"), ['G-billing']);
  assert.deepEqual(found("tags.accountId = '4100123'"), ['G-billing', 'G-search', 'G-browser']);
  assert.deepEqual(found('tags.accountId = 3806526'), ['G-mobile']);
  assert.deepEqual(found("tags.accountId = '003806526'", { caseSensitiveTagMatching: true }), ['G-mobile']);
  assert.deepEqual(found('tags.language IS NULL'), except('G-billing', 'G-search'));
  assert.deepEqual(found('tags.empty IS NULL'), ALL);
  assert.deepEqual(found('tags.team IS NOT NULL'), ['G-billing', 'G-search']);
  assert.deepEqual(found('tags.team IS NOT NULL', { caseSensitiveTagMatching: true }), ['G-billing']);
  // Complements: an entity without the tag is "not 'core'".
  assert.deepEqual(found("tags.team != 'core'"), except('G-billing'));
  assert.deepEqual(found("tags.team NOT IN ('core', 'search')"), except('G-billing', 'G-search'));
});

test('AND, OR and parentheses', () => {
  assert.deepEqual(found("domain = 'APM' AND type = 'APPLICATION' AND accountId = 4100123"), ['G-billing', 'G-search', 'G-aws', 'G-dash', 'g-billing']);
  assert.deepEqual(found("name LIKE 'api' AND domain = 'APM' AND domain = 'APM'"), ['G-billing', 'G-search']);
  assert.deepEqual(found("domain = 'MOBILE' OR domain = 'BROWSER' AND reporting = false"), ['G-mobile']);
  assert.deepEqual(found("(domain = 'MOBILE' OR domain = 'BROWSER') AND reporting = true"), ['G-browser', 'G-mobile']);
  assert.deepEqual(
    found("reporting='true' and alertSeverity != 'NOT_CONFIGURED' and type not in ('KEY_TRANSACTION')"),
    ['G-billing', 'G-mobile'],
  );
});

test('a hand-built tree with values the parser would refuse matches nothing and does not throw', () => {
  const S = { start: 0, end: 0 };
  const e = ENTITIES[0]!;
  assert.equal(matches({ kind: 'compare', field: { kind: 'field', name: 'reporting', span: S }, op: '=', value: { kind: 'number', value: 1, span: S }, span: S }, e), false);
  assert.equal(matches({ kind: 'compare', field: { kind: 'field', name: 'accountId', span: S }, op: '=', value: { kind: 'string', value: 'x', span: S }, span: S }, e), false);
  assert.equal(matches({ kind: 'compare', field: { kind: 'field', name: 'indexedAt', span: S }, op: '=', value: { kind: 'boolean', value: true, span: S }, span: S }, e), false);
  assert.equal(matches({ kind: 'like', field: { kind: 'field', name: 'accountId', span: S }, pattern: '4100123', negated: false, span: S }, e), true);
});
