import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, type AnalyzedAggregate, type AnalyzedRows } from '../analyze.js';
import type { DictionaryName, NrqlDictionaries } from '../dictionaries.js';
import { NrqlError } from '../nrql-error.js';
import { parse } from '../parser.js';
import { likeRegex } from './conditions.js';

// Two applications and two metrics, as the catalog and the metric index would name them.
const NAMES: Record<DictionaryName, readonly (readonly [number, string])[]> = {
  appName: [[7, 'checkout-web'], [8, 'billing-api']],
  entityGuid: [],
  hostName: [[3, 'web-1']],
  metricName: [[11, 'HttpDispatcher'], [12, 'Apdex']],
  scopeName: [[11, 'HttpDispatcher'], [12, 'Apdex']],
};
const dictionaries: NrqlDictionaries = {
  entries: (d) => NAMES[d],
  decode: (d, id) => NAMES[d].find(([i]) => i === id)?.[1] ?? null,
  idOf: (d, text) => NAMES[d].find(([, t]) => t === text)?.[0],
};
const NOW = Date.parse('2026-11-26T12:00:00Z');
const run = (nrql: string) => analyze(parse(nrql), { accountIds: [1], nowMs: NOW, dictionaries });

test('bindings: an application name becomes the ids whose names match, matched here and not in SQL', () => {
  const q = run("SELECT count(*) FROM Transaction WHERE appName LIKE 'check%'") as AnalyzedAggregate;
  assert.deepEqual(q.where, { kind: 'in', expr: { kind: 'field', name: '@appId' }, values: [7], negated: false });
});

test('bindings: on Metric, metricTimesliceName = … is one dictionary lookup; the value has fields, attributes do not', () => {
  const q = run("SELECT count(newrelic.timeslice.value) FROM Metric WHERE metricTimesliceName = 'Apdex'") as AnalyzedAggregate;
  assert.deepEqual(q.where, { kind: 'in', expr: { kind: 'field', name: 'metricId' }, values: [12], negated: false });
  assert.deepEqual(q.aggregates, [{ fn: 'sum', arg: { kind: 'field', name: 'count' } }]);
  assert.throws(() => run("SELECT average(appId['count']) FROM Metric"), (e: unknown) => e instanceof NrqlError && /only the timeslice value has fields/.test(e.message));
});

test('conditions: a literal on the left is flipped; NOT IN keeps rows without the attribute out', () => {
  const flipped = run('SELECT * FROM Transaction WHERE 5 < duration') as AnalyzedRows;
  assert.deepEqual(flipped.where, {
    kind: 'compare', op: '>', left: { kind: 'field', name: 'duration', type: 'number' }, right: { kind: 'literal', value: 5 },
  });
  const notIn = run("SELECT * FROM Transaction WHERE name NOT IN ('a')") as AnalyzedRows;
  assert.deepEqual(notIn.where, {
    kind: 'and',
    items: [
      { kind: 'isNull', expr: { kind: 'field', name: 'name', type: 'any' }, negated: true },
      { kind: 'not', item: { kind: 'in', expr: { kind: 'field', name: 'name', type: 'string' }, values: ['a'], negated: false } },
    ],
  });
});

test("conditions: LIKE is case-insensitive with % as its only wildcard", () => {
  const re = likeRegex('a_b%');
  assert.deepEqual(['A_B', 'a_bxyz', 'axb', 'a_'].map((s) => re.test(s)), [true, true, false, false]);
});

test('select: facets rank by the first aggregate; the presence count is the one average needs already', () => {
  const plain = run('SELECT average(duration) FROM Transaction') as AnalyzedAggregate;
  const faceted = run('SELECT average(duration) FROM Transaction FACET name') as AnalyzedAggregate;
  const duration = { kind: 'field', name: 'duration', type: 'number' };
  assert.deepEqual(faceted.aggregates, [{ fn: 'sum', arg: duration }, { fn: 'count', arg: duration }]);
  assert.deepEqual(faceted.aggregates, plain.aggregates);
  assert.deepEqual(faceted.rankBy, { kind: 'arith', op: '/', left: { kind: 'aggregate', index: 0 }, right: { kind: 'aggregate', index: 1 } });
  assert.equal(faceted.facetPresence, 1);
  assert.equal(faceted.facetLimit, 10);
});
