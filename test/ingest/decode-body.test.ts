import { test } from 'node:test';
import assert from 'node:assert/strict';
import { constants, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { CollectorError } from '../../src/ingest/agent/collector-error.js';
import { decodeAgentBody, MAX_INFLATED_BYTES } from '../../src/ingest/agent/decode-body.js';
import { sample } from '../helpers/samples.js';

/** Resolves to the CollectorError decodeAgentBody rejected with; fails when it resolved or threw anything else. */
async function refusal(raw: Buffer, encoding: string | undefined): Promise<CollectorError> {
  try {
    const value = await decodeAgentBody(raw, encoding);
    assert.fail(`expected a refusal, got ${JSON.stringify(value)?.slice(0, 80)}`);
  } catch (error) {
    assert.ok(error instanceof CollectorError, `expected a CollectorError, got ${String(error)}`);
    assert.equal(typeof error.body.exception.message, 'string');
    assert.ok(error.body.exception.message.length > 0);
    return error;
  }
}

const spans = sample('span_event_data-gzip');
const spanJson = Buffer.from(JSON.stringify(spans.body), 'utf8');

/** A JSON body (`[` + spaces + `]`) that inflates to just over the limit; it compresses to well under 1 MB. */
const bombText = (() => {
  const b = Buffer.alloc(MAX_INFLATED_BYTES + 1024, 0x20);
  b[0] = 0x5b; // [
  b[b.length - 1] = 0x5d; // ]
  return b;
})();

test('the sample the agent gzipped is recognised from its header, whatever its case', async () => {
  assert.equal(spans.headers['content-encoding'], 'gzip');
  const gz = gzipSync(spanJson);
  for (const encoding of ['gzip', 'GZIP', ' Gzip ', 'x-gzip']) {
    const body = await decodeAgentBody(gz, encoding);
    assert.deepEqual(body, spans.body, encoding);
  }
  const events = (await decodeAgentBody(gz, 'gzip') as unknown[])[2] as unknown[];
  assert.equal(events.length, 250);
});

test('identity bodies are parsed as they are, for every spelling agents use', async () => {
  const metric = sample('metric_data');
  assert.equal(metric.headers['content-encoding'], 'identity');
  const raw = Buffer.from(JSON.stringify(metric.body), 'utf8');
  for (const encoding of ['identity', 'Identity', 'IDENTITY', 'none', '', undefined]) {
    assert.deepEqual(await decodeAgentBody(raw, encoding), metric.body, String(encoding));
  }
});

test('deflate: zlib-wrapped and raw deflate both decode', async () => {
  assert.deepEqual(await decodeAgentBody(deflateSync(spanJson), 'deflate'), spans.body);
  assert.deepEqual(await decodeAgentBody(deflateSync(spanJson), 'Deflate'), spans.body);
  assert.deepEqual(await decodeAgentBody(deflateRawSync(spanJson), 'deflate'), spans.body);
});

test('a gzip body sent as identity or without Content-Encoding is recognised by its magic bytes', async () => {
  const gz = gzipSync(spanJson);
  assert.equal(gz[0], 0x1f);
  assert.equal(gz[1], 0x8b);
  assert.deepEqual(await decodeAgentBody(gz, undefined), spans.body);
  assert.deepEqual(await decodeAgentBody(gz, 'identity'), spans.body);
  assert.deepEqual(await decodeAgentBody(gz, 'Identity'), spans.body);
  assert.deepEqual(await decodeAgentBody(gz, ''), spans.body);
});

test('a plain body starting with only the first magic byte is not taken for gzip', async () => {
  // 0x1f then '[': one magic byte is not enough to sniff, so this is (invalid) JSON text.
  const e = await refusal(Buffer.from([0x1f, 0x5b, 0x5d]), 'identity');
  assert.equal(e.statusCode, 400);
  assert.match(e.message, /JSON/);
});

test('truncated and corrupt compressed bodies are 400', async () => {
  const gz = gzipSync(spanJson);
  for (const cut of [gz.subarray(0, gz.length - 8), gz.subarray(0, Math.floor(gz.length / 2)), gz.subarray(0, 10)]) {
    const e = await refusal(cut, 'gzip');
    assert.equal(e.statusCode, 400);
    assert.equal(e.errorType, 'NewRelic::Agent::SerializationError');
  }
  const sniffed = await refusal(gz.subarray(0, gz.length - 8), undefined);
  assert.equal(sniffed.statusCode, 400);
  assert.equal((await refusal(Buffer.from('not gzip at all'), 'gzip')).statusCode, 400);
  assert.equal((await refusal(Buffer.from('not deflate at all'), 'deflate')).statusCode, 400);
  const zd = deflateSync(spanJson);
  assert.equal((await refusal(zd.subarray(0, zd.length - 20), 'deflate')).statusCode, 400);
});

test('unsupported Content-Encoding is 415', async () => {
  for (const encoding of ['br', 'compress', 'zstd', 'gzip, br']) {
    const e = await refusal(gzipSync(spanJson), encoding);
    assert.equal(e.statusCode, 415, encoding);
    assert.equal(e.errorType, 'NewRelic::Agent::UnsupportedMediaType');
    assert.ok(e.message.includes(encoding), e.message);
  }
});

test('malformed JSON and empty bodies are 400', async () => {
  for (const text of ['[1, 2', '{"a":', 'lab-run-1', '[]]', '\u0000']) {
    const e = await refusal(Buffer.from(text), 'identity');
    assert.equal(e.statusCode, 400, text);
    assert.equal(e.errorType, 'NewRelic::Agent::SerializationError');
  }
  assert.equal((await refusal(Buffer.alloc(0), 'identity')).statusCode, 400);
  assert.equal((await refusal(gzipSync(Buffer.alloc(0)), 'gzip')).statusCode, 400);
  assert.equal((await refusal(gzipSync(Buffer.from('{"x":')), 'gzip')).statusCode, 400);
});

test('decompression bombs are 413 for gzip, zlib deflate and raw deflate', async () => {
  const rle = { level: 1, strategy: constants.Z_RLE };
  const gz = gzipSync(bombText, rle);
  assert.ok(gz.length < 1_000_000, `the bomb must fit the wire limit, is ${gz.length} bytes`);
  const cases = [
    [gz, 'gzip'], [gz, undefined], [deflateSync(bombText, rle), 'deflate'], [deflateRawSync(bombText, rle), 'deflate'],
  ] as const;
  // Inflating 64 MB takes a while; the cases run side by side on libuv's pool.
  const errors = await Promise.all(cases.map(([raw, encoding]) => refusal(raw, encoding)));
  for (const e of errors) {
    assert.equal(e.statusCode, 413);
    assert.equal(e.errorType, 'NewRelic::Agent::PayloadTooLarge');
  }
});
