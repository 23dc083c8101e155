import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultAdmissionLimits, QueryAdmission, QueryRefusedError } from './query-admission.js';

/** A piece of work the test ends by hand, recording when it started. */
function gate(log: string[], name: string) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => { open = resolve; });
  return { work: async () => { log.push(`start ${name}`); await opened; log.push(`end ${name}`); return name; }, open };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('QueryAdmission', () => {
  it('runs at most perNode at once and admits the waiting in arrival order', async () => {
    const log: string[] = [];
    const admission = new QueryAdmission({ perNode: 2, perAccount: 2, queueMs: 10_000, queueLength: 10 });
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => gate(log, n));
    const runs = [admission.run([1], a!.work), admission.run([2], b!.work), admission.run([3], c!.work), admission.run([4], d!.work)];
    await tick();
    assert.deepEqual(log, ['start a', 'start b']);
    assert.deepEqual(admission.state, { running: 2, waiting: 2 });
    b!.open();
    await tick();
    await tick();
    assert.deepEqual(log, ['start a', 'start b', 'end b', 'start c']);
    a!.open(); c!.open(); d!.open();
    assert.deepEqual(await Promise.all(runs), ['a', 'b', 'c', 'd']);
    assert.deepEqual(admission.state, { running: 0, waiting: 0 });
  });

  it('holds an account to perAccount without holding up another account waiting behind it', async () => {
    const log: string[] = [];
    const admission = new QueryAdmission({ perNode: 3, perAccount: 1, queueMs: 10_000, queueLength: 10 });
    const [a1, a2, b1] = ['a1', 'a2', 'b1'].map((n) => gate(log, n));
    const runs = [admission.run([1], a1!.work), admission.run([1], a2!.work), admission.run([2], b1!.work)];
    await tick();
    // a2 waits for account 1; b1, which came after it, runs on the free slot.
    assert.deepEqual(log, ['start a1', 'start b1']);
    a1!.open();
    await tick();
    await tick();
    assert.deepEqual(log, ['start a1', 'start b1', 'end a1', 'start a2']);
    a2!.open(); b1!.open();
    await Promise.all(runs);
  });

  it('a query over several accounts counts for each of them', async () => {
    const log: string[] = [];
    const admission = new QueryAdmission({ perNode: 4, perAccount: 1, queueMs: 10_000, queueLength: 10 });
    const [both, two] = ['both', 'two'].map((n) => gate(log, n));
    const runs = [admission.run([1, 2], both!.work), admission.run([2], two!.work)];
    await tick();
    assert.deepEqual(log, ['start both']);
    both!.open(); two!.open();
    await Promise.all(runs);
    assert.deepEqual(log, ['start both', 'end both', 'start two', 'end two']);
  });

  it('refuses a query whose wait runs out, and one past the queue length at once; neither runs', async () => {
    const log: string[] = [];
    const admission = new QueryAdmission({ perNode: 1, perAccount: 1, queueMs: 30, queueLength: 1 });
    const a = gate(log, 'a');
    const running = admission.run([1], a.work);
    const waited = admission.run([1], async () => { log.push('waited ran'); });
    const full = admission.run([1], async () => { log.push('full ran'); });
    await assert.rejects(full, (e: unknown) => e instanceof QueryRefusedError && e.retryAfterSeconds === 1
      && e.message === 'Too many queries: 1 queries run at once on this server and 1 per account, and 1 are already waiting; retry shortly');
    await assert.rejects(waited, (e: unknown) => e instanceof QueryRefusedError && e.retryAfterSeconds === 1
      && e.message === 'Too many queries: 1 queries run at once on this server and 1 per account; this one waited 0.03 s for its turn and was not run; retry shortly');
    assert.deepEqual(admission.state, { running: 1, waiting: 0 });
    a.open();
    await running;
    assert.deepEqual(log, ['start a', 'end a']);
    assert.deepEqual(admission.state, { running: 0, waiting: 0 });
  });

  it('a deadline before the queue wait shortens it; a failed query gives its slot back', async () => {
    const admission = new QueryAdmission({ perNode: 1, perAccount: 1, queueMs: 60_000, queueLength: 5 });
    const log: string[] = [];
    const a = gate(log, 'a');
    const running = admission.run([1], a.work);
    const started = performance.now();
    await assert.rejects(admission.run([1], async () => undefined, performance.now() + 20), QueryRefusedError);
    assert.ok(performance.now() - started < 5_000);
    a.open();
    await running;
    await assert.rejects(admission.run([1], async () => { throw new Error('boom'); }), /boom/);
    assert.equal(await admission.run([1], async () => 'next'), 'next');
  });

  it('defaults: one query per core but one, at least one; a limit that is not a whole number is refused', () => {
    assert.deepEqual(defaultAdmissionLimits(2), { perNode: 1, perAccount: 1, queueMs: 10_000, queueLength: 200 });
    assert.deepEqual(defaultAdmissionLimits(1).perNode, 1);
    assert.deepEqual(defaultAdmissionLimits(8).perNode, 7);
    assert.throws(() => new QueryAdmission({ perNode: 0, perAccount: 1, queueMs: 0, queueLength: 0 }), /perNode must be a whole number of at least 1, got 0/);
  });
});
