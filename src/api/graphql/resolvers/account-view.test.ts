import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NrqlRunOptions } from '../../../nrql/nrql-engine.js';
import { GraphContext } from '../graph-context.js';
import type { GraphServices } from '../graph-services.js';
import { AccountView } from './account-view.js';

/** A context whose NRQL engine records what it is asked and answers two event types. */
function recordingContext() {
  const runs: { text: string; accountIds: readonly number[] }[] = [];
  const services = {
    clock: { now: () => 1_700_000_000_000 },
    nrql: {
      run: async (text: string, options: NrqlRunOptions) => {
        runs.push({ text, accountIds: options.accountIds });
        return { results: [{ eventType: 'Metric' }, { eventType: 'Transaction' }] };
      },
    },
  } as unknown as GraphServices;
  const principal = { accountId: 1, keyHint: 'NRAK-…TEST', userId: 5, userName: 'test', createdAt: null };
  return { ctx: new GraphContext(services, principal, 'http://127.0.0.1'), runs };
}

describe('AccountView.reportingEventTypes', () => {
  it('runs one SHOW EVENT TYPES per account and window in a response, however many entities ask (a search page of 200 asked 200 times)', async () => {
    const { ctx, runs } = recordingContext();
    // What `entitySearch { results { entities { account { reportingEventTypes } } } }` does: one view per entity.
    const answers = await Promise.all(Array.from({ length: 200 }, () => new AccountView(1, 'One').reportingEventTypes({}, ctx)));
    assert.deepEqual(runs, [{ text: 'SHOW EVENT TYPES SINCE 1 day ago', accountIds: [1] }]);
    for (const a of answers) assert.deepEqual(a, ['Metric', 'Transaction']);

    const filtered = await new AccountView(1, 'One').reportingEventTypes({ filter: ['Transaction'] }, ctx);
    assert.deepEqual(filtered, ['Transaction'], 'the filter applies to the shared answer');
    assert.equal(runs.length, 1);

    await new AccountView(1, 'One').reportingEventTypes({ timeWindow: { startTime: 1000, endTime: 2000 } }, ctx);
    assert.deepEqual(runs.at(-1), { text: 'SHOW EVENT TYPES SINCE 1000 UNTIL 2000', accountIds: [1] }, 'another window is another query');
    assert.equal(runs.length, 2);
  });
});
