import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AggregatePlan } from '../../plan/aggregate-plan.js';
import { MemoryPlanExecutor, type MemoryRow } from './memory-plan-executor.js';

const row = (timeMs: number, typed: MemoryRow['typed'], attributes: MemoryRow['attributes'] = {}): MemoryRow => ({ accountId: 1, eventType: 'E', timeMs, typed, attributes });
const plan = (over: Partial<AggregatePlan>): AggregatePlan => ({
  kind: 'aggregate', source: { kind: 'events', eventTypes: ['E'] }, accountId: 1, window: { beginMs: 0, endMs: 100 },
  where: { kind: 'true' }, groupBy: [], aggregates: [{ fn: 'countRows' }], outputs: [], ...over,
});

describe('the in-memory reference executor', () => {
  it('answers one row for an ungrouped aggregate over no rows, and none when grouped', async () => {
    const none = MemoryPlanExecutor.of([]);
    const aggregates = [{ fn: 'countRows' }, { fn: 'sum', arg: { kind: 'field', name: 'v' } }] as const;
    assert.deepEqual(await none.aggregate(plan({ aggregates })), { rowCount: 1, groups: [], buckets: undefined, aggregates: [[0], [null]] });
    assert.deepEqual(await none.aggregate(plan({ aggregates, buckets: { beginMs: 0, widthMs: 50, count: 2 } })), { rowCount: 0, groups: [], buckets: [], aggregates: [[], []] });
  });

  it('picks discrete quantiles as the smallest value with the fraction at or below it', async () => {
    const rows = Array.from({ length: 10 }, (_, i) => row(i, { v: 10 - i }));
    const result = await MemoryPlanExecutor.of(rows).aggregate(plan({ aggregates: [{ fn: 'quantiles', arg: { kind: 'field', name: 'v' }, fractions: [0, 0.25, 0.5, 0.75, 1] }] }));
    assert.deepEqual(result.aggregates, [[[1, 3, 5, 8, 10]]]);
  });

  it('reads a map attribute through its JSON text, and keeps a typed one as it is', async () => {
    const rows = [row(1, { ok: true }, { n: '12', b: true, s: 5 })];
    const read = async (name: string, type: 'number' | 'string' | 'any') =>
      (await MemoryPlanExecutor.of(rows).rows({
        kind: 'rows', source: { kind: 'events', eventTypes: ['E'] }, accountId: 1, window: { beginMs: 0, endMs: 100 }, where: { kind: 'true' },
        columns: [{ kind: 'field', name, type }], all: false, orderBy: [], limit: 1, offset: 0,
      })).rows[0]!.values[0];
    assert.equal(await read('n', 'number'), 12);
    assert.equal(await read('b', 'number'), null);
    assert.equal(await read('s', 'any'), '5');
    assert.equal(await read('ok', 'number'), 1);
    assert.equal(await read('ok', 'any'), true);
  });

  it('keeps the newest non-null value for latest, within the filter', async () => {
    const rows = [row(1, { v: 1, k: 'a' }), row(5, { v: null, k: 'a' }), row(3, { v: 3, k: 'b' }), row(2, { v: 2, k: 'a' })];
    const result = await MemoryPlanExecutor.of(rows).aggregate(plan({
      aggregates: [{ fn: 'latest', arg: { kind: 'field', name: 'v' }, where: { kind: 'compare', op: '=', left: { kind: 'field', name: 'k', type: 'string' }, right: { kind: 'literal', value: 'a' } } }],
    }));
    assert.deepEqual(result.aggregates, [[2]]);
  });
});
