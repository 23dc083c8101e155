import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NrqlAnswer } from '../../nrql/nrql-engine.js';
import { ASYNC_QUERY_MAX_SECONDS, AsyncNrqlQueries, MAX_RUNNING_PER_USER } from './async-nrql.js';
import { GraphError } from './graph-errors.js';

/** The text a failure's position is in. */
const Q = 'SELECT count(*) FROM Transaction';

const answer: NrqlAnswer = {
  results: [{ count: 1 }], totalResult: null, otherResult: null, currentResults: null, previousResults: null, nrql: 'SELECT count(*) FROM Transaction',
  metadata: { eventTypes: ['Transaction'], facets: null, messages: [], timeWindow: { begin: 0, end: 1, since: '60 MINUTES AGO', until: 'NOW', compareWith: null } },
};

/** A query whose end the test decides. */
function controlled() {
  let finish!: (a: NrqlAnswer) => void;
  const promise = new Promise<NrqlAnswer>((resolve) => (finish = resolve));
  return { work: () => promise, finish };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('AsyncNrqlQueries: the first answer and how many run at once', () => {
  it('counts the first wait in retryDeadline, as polls do', async () => {
    let now = 1_000_000;
    const queries = new AsyncNrqlQueries(() => now);
    const q = controlled();
    // The clock moves 5.2 s while the request waits for the query (its timeout).
    setTimeout(() => (now += 5_200), 1);
    const state = await queries.start({ userId: 1, accountIds: [1] }, 20, Q, q.work);
    assert.deepEqual(state, { kind: 'running', queryId: state.queryId, retryDeadline: ASYNC_QUERY_MAX_SECONDS - 5 });
    assert.deepEqual(queries.poll({ userId: 1, accountIds: [1] }, state.queryId), state);
    q.finish(answer);
  });

  it(`refuses a user's query past ${MAX_RUNNING_PER_USER} running, as TOO_MANY_REQUESTS; others' and finished ones do not count`, async () => {
    const queries = new AsyncNrqlQueries(() => 0);
    const held = Array.from({ length: MAX_RUNNING_PER_USER }, () => controlled());
    for (const q of held) assert.equal((await queries.start({ userId: 1, accountIds: [1] }, 0, Q, q.work)).kind, 'running');

    const refusal = await queries.start({ userId: 1, accountIds: [2] }, 0, Q, controlled().work).then(() => undefined, (error: unknown) => error);
    assert.ok(refusal instanceof GraphError);
    assert.equal(refusal.errorClass, 'TOO_MANY_REQUESTS');
    assert.equal(
      refusal.message,
      `This API key has ${MAX_RUNNING_PER_USER} async queries still running, the most it may have; poll them with nrqlQueryProgress and send this one when one has finished`,
    );
    const otherUser = controlled();
    assert.equal((await queries.start({ userId: 2, accountIds: [1] }, 0, Q, otherUser.work)).kind, 'running');

    held[0]!.finish(answer);
    await flush();
    const next = controlled();
    assert.equal((await queries.start({ userId: 1, accountIds: [1] }, 0, Q, next.work)).kind, 'running', 'a finished query frees its place');
    for (const q of [...held, otherUser, next]) q.finish(answer);
  });
});
