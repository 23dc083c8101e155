import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DictionaryName, NrqlDictionaries } from '../../src/nrql/dictionaries.js';
import { mainPlan } from '../../src/nrql/execute.js';
import { NrqlEngine } from '../../src/nrql/nrql-engine.js';
import { EVENT_ID_FIELDS } from '../../src/plan/data-model.js';
import { MemoryPlanExecutor, type MemoryRow } from '../../src/store/memory/memory-plan-executor.js';

// The query stages over the reference executor: no engine, no I/O. Every expected value below
// is counted by hand from the rows listed here.

const T0 = Date.UTC(2025, 7, 11, 12);
const MIN = 60_000;
const window = (from: number, to: number) => `SINCE ${T0 + from * MIN} UNTIL ${T0 + to * MIN}`;

const ids = { [EVENT_ID_FIELDS.appId]: 0, [EVENT_ID_FIELDS.hostId]: 0, [EVENT_ID_FIELDS.instanceId]: 0 };
const sale = (minute: number, attributes: Record<string, unknown>, accountId = 1): MemoryRow => ({
  accountId, eventType: 'Sale', timeMs: T0 + minute * MIN, typed: ids, attributes,
});
const transaction = (minute: number, appId: number, duration: number): MemoryRow => ({
  accountId: 1, eventType: 'Transaction', timeMs: T0 + minute * MIN,
  typed: { [EVENT_ID_FIELDS.appId]: appId, [EVENT_ID_FIELDS.hostId]: 0, [EVENT_ID_FIELDS.instanceId]: 0, duration, name: 'WebTransaction/x' },
  attributes: {},
});

const ROWS: MemoryRow[] = [
  sale(1, { region: 'eu', amount: 10 }),
  sale(2, { region: 'eu', amount: 30 }),
  sale(3, { region: 'us', amount: 5 }),
  sale(31, { region: 'us', amount: 7 }),
  sale(32, { region: 'us', amount: 9 }),
  sale(33, { region: 'ap', amount: 100 }),
  sale(34, { amount: 1, appName: 'from-the-event' }),
  sale(2, { region: 'eu', amount: 1000 }, 2),
  transaction(5, 1, 0.5),
  transaction(6, 1, 1.5),
  transaction(7, 2, 4),
];

const APPS: Readonly<Record<number, string>> = { 1: 'shop', 2: 'other' };
const dictionaries: NrqlDictionaries = {
  *entries(dictionary: DictionaryName) {
    if (dictionary === 'appName') for (const [id, name] of Object.entries(APPS)) yield [Number(id), name] as const;
  },
  decode: (dictionary: DictionaryName, id: number) => (dictionary === 'appName' ? APPS[id] ?? null : null),
  idOf: () => undefined,
};

const engine = new NrqlEngine({ executor: MemoryPlanExecutor.of(ROWS), dictionaries, clock: { now: () => T0 + 60 * MIN } });
const run = async (nrql: string) => {
  const answer = await engine.run(nrql, { accountIds: [1] });
  return { results: answer.results, totalResult: answer.totalResult, otherResult: answer.otherResult };
};

describe('NRQL over the in-memory executor', () => {
  it('ranks facets by count and merges the rest and the total from the groups', async () => {
    assert.deepEqual(await run(`SELECT count(*) FROM Sale FACET region LIMIT 2 ${window(0, 60)}`), {
      results: [{ facet: 'us', region: 'us', count: 3 }, { facet: 'eu', region: 'eu', count: 2 }],
      totalResult: { count: 7 },
      // ap, and the event without a region
      otherResult: { count: 2 },
    });
  });

  it('computes a non-mergeable aggregate over the top facets, the total and the rest each over their own rows', async () => {
    // uniqueCount ranks by event frequency: us (3 events); total 7 amounts; the rest: 10, 30, 100, 1.
    assert.deepEqual(await run(`SELECT uniqueCount(amount) FROM Sale FACET region LIMIT 1 ${window(0, 60)}`), {
      results: [{ facet: 'us', region: 'us', 'uniqueCount.amount': 3 }],
      totalResult: { 'uniqueCount.amount': 7 },
      otherResult: { 'uniqueCount.amount': 4 },
    });
  });

  it('merges the total and the rest per bucket in a faceted time series', async () => {
    const bucket = (from: number) => ({ beginTimeSeconds: (T0 + from * MIN) / 1000, endTimeSeconds: (T0 + (from + 30) * MIN) / 1000 });
    assert.deepEqual(await run(`SELECT sum(amount) FROM Sale FACET region LIMIT 1 ${window(0, 60)} TIMESERIES 30 minutes`), {
      results: [
        { facet: 'us', region: 'us', ...bucket(0), 'sum.amount': 5 },
        { facet: 'us', region: 'us', ...bucket(30), 'sum.amount': 16 },
      ],
      totalResult: [{ ...bucket(0), 'sum.amount': 45 }, { ...bucket(30), 'sum.amount': 117 }],
      otherResult: [{ ...bucket(0), 'sum.amount': 40 }, { ...bucket(30), 'sum.amount': 101 }],
    });
  });

  it('compares with the previous window, keeping the current facets (zero where absent)', async () => {
    assert.deepEqual((await run(`SELECT count(*) FROM Sale ${window(30, 60)} COMPARE WITH 30 minutes ago`)).results, [
      { count: 4, comparison: 'current' },
      { count: 3, comparison: 'previous' },
    ]);
    assert.deepEqual((await run(`SELECT count(*) FROM Sale FACET region ${window(30, 60)} COMPARE WITH 30 minutes ago`)).results, [
      { facet: 'us', region: 'us', count: 2, comparison: 'current' },
      { facet: 'ap', region: 'ap', count: 1, comparison: 'current' },
      { facet: 'us', region: 'us', count: 1, comparison: 'previous' },
      { facet: 'ap', region: 'ap', count: 0, comparison: 'previous' },
    ]);
  });

  it('reads appName of agent events through the catalog ids, and of other events from their attributes', async () => {
    assert.deepEqual((await run(`SELECT count(*), average(duration) FROM Transaction FACET appName ${window(0, 60)}`)).results, [
      { facet: 'shop', appName: 'shop', count: 2, 'average.duration': 1 },
      { facet: 'other', appName: 'other', count: 1, 'average.duration': 4 },
    ]);
    assert.deepEqual((await run(`SELECT count(*) FROM Sale WHERE appName = 'from-the-event' ${window(0, 60)}`)).results, [{ count: 1 }]);
  });

  it('keeps SQL three-valued logic: NOT of a comparison with a missing attribute is not true', async () => {
    assert.deepEqual((await run(`SELECT count(*) FROM Sale WHERE NOT region = 'eu' ${window(0, 60)}`)).results, [{ count: 4 }]);
    assert.deepEqual((await run(`SELECT count(*) FROM Sale WHERE region IS NULL ${window(0, 60)}`)).results, [{ count: 1 }]);
  });

  it('lists rows newest first with every attribute, the internal ids left out', async () => {
    assert.deepEqual((await run(`SELECT * FROM Sale LIMIT 2 ${window(0, 60)}`)).results, [
      { timestamp: T0 + 34 * MIN, amount: 1, appName: 'from-the-event' },
      { timestamp: T0 + 33 * MIN, region: 'ap', amount: 100 },
    ]);
  });

  it('plans appName of an agent event type as its catalog ids, of a custom type as its attribute or else the ids', () => {
    const where = (nrql: string) => {
      const { analyzed } = engine.explain(`${nrql} ${window(0, 60)}`, { accountIds: [1] });
      if (analyzed.kind === 'showEventTypes') throw new Error('not a select');
      return mainPlan(analyzed).where;
    };
    assert.deepEqual(where(`SELECT count(*) FROM Transaction WHERE appName = 'shop'`), {
      kind: 'in', expr: { kind: 'field', name: EVENT_ID_FIELDS.appId }, values: [1], negated: false,
    });
    assert.deepEqual(where(`SELECT count(*) FROM Sale WHERE appName = 'shop'`), {
      kind: 'compare', op: '=',
      left: { kind: 'coalesce', items: [{ kind: 'field', name: 'appName', type: 'string' }, { kind: 'lookup', expr: { kind: 'field', name: EVENT_ID_FIELDS.appId }, entries: [[1, 'shop'], [2, 'other']] }] },
      right: { kind: 'literal', value: 'shop' },
    });
  });
});
