import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readRange } from '../../src/alerts/condition-query.js';
import { planReads, readConditions, type ConditionRead } from '../../src/alerts/shared-reads.js';
import { emptyEvaluatorState } from '../../src/domain/alerts/condition-evaluator.js';
import type { ConditionSignal } from '../../src/domain/alerts/alert-model.js';
import type { DictionaryName, NrqlDictionaries } from '../../src/nrql/dictionaries.js';
import { NrqlEngine } from '../../src/nrql/nrql-engine.js';
import { EVENT_ID_FIELDS } from '../../src/plan/data-model.js';
import { MemoryPlanExecutor, type MemoryRow } from '../../src/store/memory/memory-plan-executor.js';
import { FUZZ_SEED, scaledRuns } from '../helpers/fuzz-scale.js';

// A cycle's queries over the reference executor (no I/O): what conditions read together must be
// exactly what each reads alone. Expected values are worked out by hand from the rows below.

const T0 = Date.UTC(2026, 10, 20, 12, 0);
const MIN = 60_000;
const APPS: Readonly<Record<number, string>> = { 1: 'shop', 2: 'other', 3: 'cart' };

const transaction = (minute: number, appId: number, duration: number, accountId = 1, name = 'WebTransaction/x'): MemoryRow => ({
  accountId,
  eventType: 'Transaction',
  timeMs: T0 + minute * MIN,
  typed: { [EVENT_ID_FIELDS.appId]: appId, [EVENT_ID_FIELDS.hostId]: 0, [EVENT_ID_FIELDS.instanceId]: 0, duration, name },
  attributes: {},
});

const dictionaries: NrqlDictionaries = {
  *entries(dictionary: DictionaryName) {
    if (dictionary === 'appName') for (const [id, name] of Object.entries(APPS)) yield [Number(id), name] as const;
  },
  decode: (dictionary: DictionaryName, id: number) => (dictionary === 'appName' ? APPS[id] ?? null : null),
  idOf: () => undefined,
};

function engineOver(rows: readonly MemoryRow[]) {
  const texts: string[] = [];
  const engine = new NrqlEngine({ executor: MemoryPlanExecutor.of(rows), dictionaries, clock: { now: () => T0 + 10 * MIN } });
  return { texts, run: (text: string, accountId: number) => (texts.push(text), engine.run(text, { accountIds: [accountId] })) };
}

let nextId = 0;
function read(query: string, options: { from?: number; to?: number; accountId?: number; facets?: number; window?: number } = {}): ConditionRead {
  const window = options.window ?? 60;
  return {
    conditionId: String(++nextId), accountId: options.accountId ?? 1, query, facetCount: options.facets ?? 0,
    windowSeconds: window, slideBySeconds: null, stepMs: window * 1000,
    fromMs: T0 + (options.from ?? 0) * MIN, toMs: T0 + (options.to ?? 3) * MIN,
  };
}

/** The observations as plain [facets, window minute, value, events] tuples. */
const windows = (observations: ReadonlyArray<{ facets: readonly string[]; windowStart: number; value: number; events: number }> | undefined) =>
  (observations ?? []).map((o) => [o.facets.join(','), (o.windowStart - T0) / MIN, o.value, o.events]);

const ROWS = [
  transaction(0, 1, 0.5), transaction(0, 1, 1.5), transaction(0, 2, 4), transaction(1, 1, 3),
  transaction(1, 3, 2), transaction(2, 2, 6), transaction(2, 2, 8), transaction(1, 1, 100, 2),
];

describe('shared reads', () => {
  it('runs one query for conditions with the same query, each keeping the windows of its own range', async () => {
    const { texts, run } = engineOver(ROWS);
    const a = read('SELECT average(duration) FROM Transaction', { from: 0 });
    const b = read('select   average(duration) from Transaction', { from: 1 });
    const outcome = await readConditions([a, b], run, T0 + 3 * MIN);
    assert.equal(outcome.queries, 1);
    assert.equal(texts.length, 1);
    // Minute 0: (0.5 + 1.5 + 4) / 3; minute 1: (3 + 2) / 2; minute 2: (6 + 8) / 2; account 2's row is not read.
    assert.deepEqual(windows(outcome.observations.get(a.conditionId)), [['', 0, 2, 3], ['', 1, 2.5, 2], ['', 2, 7, 2]]);
    assert.deepEqual(windows(outcome.observations.get(b.conditionId)), [['', 1, 2.5, 2], ['', 2, 7, 2]]);
  });

  it('answers conditions pinned to different applications with one FACET appName query', async () => {
    const { texts, run } = engineOver(ROWS);
    const shop = read("SELECT max(duration) FROM Transaction WHERE appName = 'shop'");
    const other = read("SELECT max(duration) FROM Transaction WHERE appName = 'other'");
    const missing = read("SELECT max(duration) FROM Transaction WHERE appName = 'nowhere'");
    const outcome = await readConditions([shop, other, missing], run, T0 + 3 * MIN);
    assert.equal(outcome.queries, 1);
    assert.match(texts[0]!, /WHERE appName IN \('shop', 'other', 'nowhere'\) FACET appName/);
    assert.deepEqual(windows(outcome.observations.get(shop.conditionId)), [['', 0, 1.5, 2], ['', 1, 3, 1]]);
    assert.deepEqual(windows(outcome.observations.get(other.conditionId)), [['', 0, 4, 1], ['', 2, 8, 2]]);
    assert.deepEqual(windows(outcome.observations.get(missing.conditionId)), []);
  });

  it('keeps accounts, windows and queries that differ beyond the pin apart', () => {
    const plan = planReads([
      read("SELECT count(*) FROM Transaction WHERE appName = 'shop'"),
      read("SELECT count(*) FROM Transaction WHERE appName = 'shop'", { accountId: 2 }),
      read("SELECT count(*) FROM Transaction WHERE appName = 'other'", { window: 120, to: 4 }),
      read("SELECT count(*) FROM Transaction WHERE appName = 'cart' OR duration > 1"),
      read("SELECT count(*) FROM Transaction WHERE duration > 1 AND appName = 'cart'"),
      read("SELECT count(*) FROM Transaction WHERE appName = 'other' AND duration > 1"),
    ]);
    assert.deepEqual(plan.map((p) => p.members.length), [1, 1, 1, 1, 2]);
    assert.deepEqual(plan.map((p) => p.accountId), [1, 2, 1, 1, 1]);
  });

  it('falls back to each condition alone when the shared query fails, so one bad condition stays its own', async () => {
    const { texts, run } = engineOver(ROWS);
    const failing = async (text: string, accountId: number) => {
      if (text.includes('IN (')) throw new Error('refused');
      return run(text, accountId);
    };
    const shop = read("SELECT max(duration) FROM Transaction WHERE appName = 'shop'");
    const other = read("SELECT max(duration) FROM Transaction WHERE appName = 'other'");
    const outcome = await readConditions([shop, other], failing, T0 + 3 * MIN);
    assert.equal(outcome.queries, 3);
    assert.equal(texts.length, 2);
    assert.equal(outcome.failed.size, 0);
    assert.deepEqual(windows(outcome.observations.get(shop.conditionId)), [['', 0, 1.5, 2], ['', 1, 3, 1]]);
  });

  it('reads exactly what each condition reads alone, over random condition sets', async () => {
    const queries = [
      'SELECT average(duration) FROM Transaction',
      'SELECT average(duration) FROM Transaction FACET appName',
      'SELECT count(*) FROM Transaction FACET appName, name',
      "SELECT max(duration) FROM Transaction WHERE appName = 'shop'",
      "SELECT max(duration) FROM Transaction WHERE appName = 'other'",
      "SELECT max(duration) FROM Transaction WHERE appName = 'nowhere'",
      "SELECT count(*) FROM Transaction WHERE duration > 1 AND appName = 'shop'",
      "SELECT count(*) FROM Transaction WHERE appName = 'cart' AND duration > 1",
      "SELECT uniqueCount(name) FROM Transaction WHERE appName = 'other'",
      "SELECT percentile(duration, 90) FROM Transaction WHERE appName = 'cart'",
      "SELECT rate(count(*), 1 minute) FROM Transaction WHERE appName = 'shop'",
      "SELECT sum(duration) FROM Transaction WHERE appName = 'shop' OR duration > 5",
      "SELECT sum(duration) FROM Transaction WHERE appName = 'shop' AND appName = 'other'",
      'SELECT average(nosuch) FROM Transaction',
    ];
    const facetsOf = (q: string) => (q.includes('FACET appName, name') ? 2 : q.includes('FACET') ? 1 : 0);
    const row = fc.record({ minute: fc.nat({ max: 7 }), app: fc.integer({ min: 1, max: 4 }), duration: fc.constantFrom(0.1, 0.5, 1, 2, 3, 7), account: fc.constantFrom(1, 1, 1, 2), name: fc.constantFrom('a', 'b') });
    const condition = fc.record({ query: fc.nat({ max: queries.length - 1 }), from: fc.nat({ max: 6 }), window: fc.constantFrom(60, 60, 60, 120), account: fc.constantFrom(1, 1, 1, 2) });
    let shared = 0;
    let alone = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 40 }), fc.array(condition, { minLength: 8, maxLength: 30 }), async (rows, conditions) => {
        const data = rows.map((r) => transaction(r.minute, r.app, r.duration, r.account, r.name));
        const reads = conditions.map((c) => {
          const step = c.window / 60;
          return read(queries[c.query]!, { from: Math.floor(c.from / step) * step, to: 8, window: c.window, accountId: c.account, facets: facetsOf(queries[c.query]!) });
        });
        const together = engineOver(data);
        const apart = engineOver(data);
        const a = await readConditions(reads, together.run, T0 + 8 * MIN);
        const b = await readConditions(reads, apart.run, T0 + 8 * MIN, { share: false });
        assert.deepEqual([...a.failed.keys()].sort(), [...b.failed.keys()].sort());
        for (const r of reads) assert.deepEqual(a.observations.get(r.conditionId), b.observations.get(r.conditionId), r.query);
        assert.ok(a.queries <= b.queries + reads.length);
        // Two conditions asking the same query (same account and window) must share its read.
        const keys = conditions.map((c) => `${c.query}|${c.account}|${c.window}`);
        if (new Set(keys).size < keys.length) assert.ok(together.texts.length < apart.texts.length, `${together.texts.length} shared against ${apart.texts.length} alone`);
        shared += together.texts.length;
        alone += apart.texts.length;
      }),
      { numRuns: scaledRuns(100), ...(FUZZ_SEED !== undefined ? { seed: FUZZ_SEED } : {}) },
    );
    // Sharing must actually happen over these sets, not only be harmless (per run above, where a
    // query repeats; over all runs, whatever their number: a fixed ratio failed on 10 runs).
    assert.ok(shared < alone, `${shared} queries shared against ${alone} alone`);
  });
});

describe('the range a cycle reads', () => {
  const flow: ConditionSignal = { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 120 } as ConditionSignal;
  const now = T0 + 10 * MIN + 5_000;

  it('reads the lookback for a condition with no state, up to the end of the current window', () => {
    // Lookback: max(5 min, 2 windows + window + delay) = 5 min.
    assert.deepEqual(readRange(flow, undefined, now), { fromMs: T0 + 5 * MIN, toMs: T0 + 11 * MIN });
  });

  it('reads EVENT_FLOW windows after those its watermark closed', () => {
    // Watermark at minute 9: windows starting at or before 9 − 1 − 2 = 6 are closed.
    const state = { ...emptyEvaluatorState(), watermark: T0 + 9 * MIN };
    assert.deepEqual(readRange(flow, state, now), { fromMs: T0 + 7 * MIN, toMs: T0 + 11 * MIN });
    // A watermark far back leaves the lookback as the bound.
    assert.deepEqual(readRange(flow, { ...state, watermark: T0 }, now), { fromMs: T0 + 5 * MIN, toMs: T0 + 11 * MIN });
  });

  it('reads CADENCE windows not yet past their end plus delay, and nothing before a reset', () => {
    const cadence = { ...flow, aggregationMethod: 'CADENCE' } as ConditionSignal;
    // now − 1 min − 2 min = minute 7 and 5 s: the window starting at 7 is still open.
    assert.deepEqual(readRange(cadence, undefined, now), { fromMs: T0 + 7 * MIN, toMs: T0 + 11 * MIN });
    const reset = { ...emptyEvaluatorState(), resetAt: T0 + 8 * MIN + 30_000 };
    assert.deepEqual(readRange(flow, reset, now), { fromMs: T0 + 9 * MIN, toMs: T0 + 11 * MIN });
  });
});
