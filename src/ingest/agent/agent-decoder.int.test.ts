import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { inlineDecoder, WorkerDecoderPool } from './agent-decoder.js';
import { CollectorError } from './collector-error.js';
import { metricsOf } from './payloads.js';

const ctx = { accountId: 3, targets: [{ appId: 7, hostId: 8, instanceId: 9 }], receivedAt: Date.UTC(2026, 10, 22, 12, 0, 0) };
const harvest = ['run', 1795318934, 1795318994, [
  [{ name: 'HttpDispatcher' }, [3, 0.3, 0.3, 0.05, 0.15, 0.035]],
  [{ name: 'Datastore/all', scope: 'WebTransaction/Custom/a' }, [2, 0.02, 0.01, 0.005, 0.015, 0.00025]],
  [{ name: 'HttpDispatcher', scope: 'WebTransaction/Custom/a' }, [1, 1, 1, 1, 1, 1]],
]];
const body = (json: unknown) => gzipSync(JSON.stringify(json));

test('a worker pool decodes exactly what the event loop would', async (t) => {
  const pool = new WorkerDecoderPool(2);
  t.after(() => pool.close());
  const events = ['run', { reservoir_size: 10, events_seen: 1 }, [[{ type: 'Transaction', name: 'WebTransaction/Custom/a', timestamp: 1795318950000, duration: 0.1 }, { u: 1 }, { 'http.statusCode': '200' }]]];
  for (const [method, json] of [['metric_data', harvest], ['analytic_event_data', events], ['agent_settings', [{ a: 1 }]]] as const) {
    const request = { method, body: body(json), contentEncoding: 'gzip', ctx };
    const [inThread, inWorker] = await Promise.all([inlineDecoder.decode(request), pool.decode(request)]);
    assert.deepEqual(inWorker, inThread, method);
  }
  const decoded = await pool.decode({ method: 'metric_data', body: body(harvest), contentEncoding: 'gzip', ctx });
  assert.equal(decoded.kind, 'metric_data');
  if (decoded.kind !== 'metric_data') return;
  assert.deepEqual(decoded.payload.names, ['HttpDispatcher', 'Datastore/all', 'WebTransaction/Custom/a']);
  assert.deepEqual(metricsOf(decoded.payload)[1], {
    name: 'Datastore/all', scope: 'WebTransaction/Custom/a',
    stats: { count: 2, total: 0.02, exclusive: 0.01, min: 0.005, max: 0.015, sumOfSquares: 0.00025 },
  });
});

test('refusals cross the thread boundary with their status code', async (t) => {
  const pool = new WorkerDecoderPool(1);
  t.after(() => pool.close());
  const refusal = async (raw: Buffer, encoding: string, method = 'metric_data') => {
    const error = await pool.decode({ method, body: raw, contentEncoding: encoding, ctx }).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof CollectorError, `expected a CollectorError, got ${error}`);
    return { status: error.statusCode, message: error.message };
  };
  assert.equal((await refusal(Buffer.from('[not json'), 'identity')).status, 400);
  assert.equal((await refusal(body(harvest).subarray(0, 20), 'gzip')).status, 400);
  assert.equal((await refusal(Buffer.from('[]'), 'br')).status, 415);
  const bad = await refusal(Buffer.from(JSON.stringify(['r', 1, 2, [[{ name: 'X' }, [1, 2, 3]]]])), 'identity');
  assert.deepEqual(bad, { status: 400, message: 'metric 0 (X): values must be six finite numbers [count, total, exclusive, min, max, sumOfSquares]' });
  // The pool keeps working after refusals.
  assert.equal((await pool.decode({ method: 'metric_data', body: body(harvest), contentEncoding: 'gzip', ctx })).kind, 'metric_data');
});

test('a worker that dies fails only its own calls and is replaced', async (t) => {
  const pool = new WorkerDecoderPool(1);
  t.after(() => pool.close());
  const workers = (pool as unknown as { workers: { worker: import('node:worker_threads').Worker }[] }).workers;
  const first = workers[0]!.worker;
  const inFlight = pool.decode({ method: 'metric_data', body: body(harvest), contentEncoding: 'gzip', ctx });
  await first.terminate();
  await assert.rejects(inFlight, /decode worker exited/);
  assert.notEqual(workers[0]!.worker, first, 'a new worker took its place');
  assert.equal((await pool.decode({ method: 'metric_data', body: body(harvest), contentEncoding: 'gzip', ctx })).kind, 'metric_data');
});
