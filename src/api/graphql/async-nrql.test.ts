import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NrqlAnswer } from '../../nrql/nrql-engine.js';
import { ASYNC_QUERY_MAX_SECONDS, ASYNC_RESULT_EXPIRATION_SECONDS, AsyncNrqlQueries } from './async-nrql.js';

/** The text a failure's position is in. */
const Q = 'SELECT count(*) FROM Transaction';

const answer = (n: number): NrqlAnswer => ({
  results: [{ count: n }], totalResult: null, otherResult: null, currentResults: null, previousResults: null, nrql: 'SELECT count(*) FROM Transaction',
  metadata: { eventTypes: ['Transaction'], facets: null, messages: [], timeWindow: { begin: 0, end: 1, since: '60 MINUTES AGO', until: 'NOW', compareWith: null } },
});

/** A query whose end the test decides. */
function controlled() {
  let finish!: (a: NrqlAnswer) => void;
  let fail!: (e: unknown) => void;
  const promise = new Promise<NrqlAnswer>((resolve, reject) => ((finish = resolve), (fail = reject)));
  return { work: () => promise, finish, fail };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('AsyncNrqlQueries', () => {
  const owner = { userId: 7, accountIds: [1, 2] };

  it('answers at once a query that finishes within the wait, and keeps nothing to poll', async () => {
    let now = 1_000_000;
    const queries = new AsyncNrqlQueries(() => now);
    const state = await queries.start(owner, 1000, Q, async () => answer(3));
    assert.equal(state.kind, 'done');
    assert.deepEqual(state.kind === 'done' && state.answer.results, [{ count: 3 }]);
    assert.equal(queries.poll(owner, state.queryId), undefined);
  });

  it('hands out an id for a query that outlives the wait; polls say running, then done, until the result expires', async () => {
    let now = 1_000_000;
    const queries = new AsyncNrqlQueries(() => now);
    const q = controlled();
    const state = await queries.start(owner, 5, Q, q.work);
    assert.deepEqual(state, { kind: 'running', queryId: state.queryId, retryDeadline: ASYNC_QUERY_MAX_SECONDS });
    assert.match(state.queryId, /^[0-9a-f-]{36}$/);

    now += 42_500;
    assert.deepEqual(queries.poll(owner, state.queryId), { kind: 'running', queryId: state.queryId, retryDeadline: ASYNC_QUERY_MAX_SECONDS - 42 });
    // The same accounts in another order are the same accounts.
    assert.equal(queries.poll({ userId: 7, accountIds: [2, 1] }, state.queryId)?.kind, 'running');

    q.finish(answer(9));
    await flush();
    const done = queries.poll(owner, state.queryId);
    assert.equal(done?.kind, 'done');
    assert.deepEqual(done?.kind === 'done' && done.answer.results, [{ count: 9 }]);

    now += ASYNC_RESULT_EXPIRATION_SECONDS * 1000 - 1;
    assert.equal(queries.poll(owner, state.queryId)?.kind, 'done', 'still there a millisecond before it expires');
    now += 1;
    assert.equal(queries.poll(owner, state.queryId), undefined, 'forgotten once expired');
  });

  it('is polled only by the user who ran it, on the accounts it ran on', async () => {
    const queries = new AsyncNrqlQueries(() => 0);
    const q = controlled();
    const { queryId } = await queries.start(owner, 1, Q, q.work);
    assert.equal(queries.poll({ userId: 8, accountIds: [1, 2] }, queryId), undefined);
    assert.equal(queries.poll({ userId: 7, accountIds: [1] }, queryId), undefined);
    assert.equal(queries.poll(owner, 'not-an-id'), undefined);
    q.finish(answer(1));
  });

  it('keeps a failure for the poll that asks, and a failure within the wait is answered at once', async () => {
    const queries = new AsyncNrqlQueries(() => 0);
    const q = controlled();
    const { queryId } = await queries.start(owner, 1, Q, q.work);
    const refusal = new Error('refused');
    q.fail(refusal);
    await flush();
    assert.deepEqual(queries.poll(owner, queryId), { kind: 'failed', queryId, error: refusal, query: Q });

    const early = await queries.start(owner, 1000, Q, async () => { throw refusal; });
    assert.equal(early.kind, 'failed');
  });
});
