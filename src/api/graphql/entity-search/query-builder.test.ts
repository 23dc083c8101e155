import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripSpans } from '../../../nrql/ast.js';
import { ENTITY_SEARCH_ERROR_CODES, EntitySearchError } from './entity-search-error.js';
import { parseEntitySearch } from './parser.js';
import { queryFromBuilder } from './query-builder.js';

test("newrelic-cli's apm application search and the reference's recommended form", () => {
  assert.equal(
    queryFromBuilder({ domain: 'APM', type: 'APPLICATION', tags: [{ key: 'accountId', value: '4100123' }] }),
    "domain = 'APM' AND type = 'APPLICATION' AND tags.accountId = '4100123'",
  );
  assert.equal(queryFromBuilder({ type: 'APPLICATION', domain: 'APM' }), "domain = 'APM' AND type = 'APPLICATION'");
});

test('every field, in the stable order, absent and null fields left out', () => {
  assert.equal(
    queryFromBuilder({
      tags: [{ key: 'tags.team', value: 'core' }, { key: 'my key', value: "it's" }, { key: 'TAGS.aws.awsRegion', value: 'us-east-1' }],
      alertable: true,
      alertSeverity: 'CRITICAL',
      reporting: false,
      name: 'billing api',
      type: 'APPLICATION',
      domain: 'BROWSER',
      infrastructureIntegrationType: null,
    }),
    "domain = 'BROWSER' AND type = 'APPLICATION' AND name LIKE 'billing api' AND reporting = 'false' AND alertSeverity = 'CRITICAL' AND alertable = 'true' AND tags.team = 'core' AND tags.`my key` = 'it\\'s' AND tags.aws.awsRegion = 'us-east-1'",
  );
  assert.equal(queryFromBuilder({ name: null, domain: undefined, reporting: true }), "reporting = 'true'");
  assert.equal(queryFromBuilder({ name: '' }), "name LIKE ''");
});

test('a tag key with or without tags. is the same', () => {
  assert.equal(queryFromBuilder({ tags: [{ key: 'tags.language', value: 'go' }] }), queryFromBuilder({ tags: [{ key: 'language', value: 'go' }] }));
});

test('the text parses back to the clauses the builder names', () => {
  const text = queryFromBuilder({ domain: 'APM', name: "O'Brien \\ co", reporting: true, tags: [{ key: 'a`b', value: '\\' }] });
  assert.equal(text, "domain = 'APM' AND name LIKE 'O\\'Brien \\\\ co' AND reporting = 'true' AND tags.`a``b` = '\\\\'");
  assert.deepEqual(stripSpans(parseEntitySearch(text)), {
    kind: 'and',
    left: {
      kind: 'and',
      left: {
        kind: 'and',
        left: { kind: 'compare', field: { kind: 'field', name: 'domain' }, op: '=', value: { kind: 'string', value: 'APM' } },
        right: { kind: 'like', field: { kind: 'field', name: 'name' }, pattern: "O'Brien \\ co", negated: false },
      },
      right: { kind: 'compare', field: { kind: 'field', name: 'reporting' }, op: '=', value: { kind: 'string', value: 'true' } },
    },
    right: { kind: 'compare', field: { kind: 'tag', key: 'a`b' }, op: '=', value: { kind: 'string', value: '\\' } },
  });
});

test('refusals: empty builder, empty tag key, infrastructureIntegrationType', () => {
  const refusal = (code: string, message: string) => (error: unknown) =>
    error instanceof EntitySearchError && error.code === code && error.message === message && error.offset === null;
  const empty = refusal(ENTITY_SEARCH_ERROR_CODES.EMPTY, 'The entity search query builder is empty; set at least one of its fields, such as domain');
  assert.throws(() => queryFromBuilder({}), empty);
  assert.throws(() => queryFromBuilder({ tags: [], name: null }), empty);
  assert.throws(() => queryFromBuilder({ tags: [{ key: 'tags.', value: 'x' }] }), refusal(ENTITY_SEARCH_ERROR_CODES.BAD_BUILDER, 'queryBuilder.tags: a tag key cannot be empty'));
  assert.throws(() => queryFromBuilder({ tags: [{ key: '', value: 'x' }] }), refusal(ENTITY_SEARCH_ERROR_CODES.BAD_BUILDER, 'queryBuilder.tags: a tag key cannot be empty'));
  assert.throws(
    () => queryFromBuilder({ domain: 'INFRA', infrastructureIntegrationType: 'AWS_EC2_INSTANCE' }),
    refusal(ENTITY_SEARCH_ERROR_CODES.BAD_BUILDER, 'queryBuilder.infrastructureIntegrationType is not supported: this service holds no infrastructure entities'),
  );
});
