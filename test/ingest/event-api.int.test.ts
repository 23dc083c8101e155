import assert from 'node:assert/strict';
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { after, before, describe, it } from 'node:test';
import { eventApiPlugin } from '../../src/ingest/event-api/event-api.js';
import type { Rows } from '../../src/store/append-tables.js';
import { assertGolden } from '../helpers/golden.js';
import { httpsRequest } from '../helpers/https-request.js';
import { connectApp, ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * The Event API, POST /v1/accounts/{accountId}/events: keys, encodings, size limits, per-event
 * validation that keeps the valid events, NrIntegrationError events for the dropped ones, on the
 * API port and on the collector port. Refusal bodies are pinned in test/golden/event-api/.
 */

const NOW = Date.UTC(2024, 2, 5, 14, 30, 20);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let ts: TestServer;
let appId: number;
before(async () => {
  ts = await startTestServer({}, { clock: new ManualClock(NOW) });
  appId = (await connectApp(ts, 'mobile-backend')).appId;
});
after(() => ts?.stop());

interface Reply {
  readonly status: number;
  readonly headers: Record<string, unknown>;
  readonly text: string;
}

async function post(payload: string | Buffer, headers: Record<string, string> = { 'x-insert-key': TEST_LICENSE_KEY }, url = '/v1/accounts/1/events'): Promise<Reply> {
  const res = await ts.server.api.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload });
  return { status: res.statusCode, headers: res.headers, text: res.body };
}

function goldenReply(name: string, request: string, reply: Reply): void {
  const lines = [request, `status: ${reply.status}`, `content-type: ${reply.headers['content-type']}`];
  if (reply.headers.allow) lines.push(`allow: ${reply.headers.allow}`);
  assertGolden(`test/golden/event-api/${name}.txt`, `${lines.join('\n')}\n\n${reply.text}\n`);
}

function assertAccepted(reply: Reply, what = ''): string {
  assert.equal(reply.status, 200, `${what} ${reply.text}`);
  const body = JSON.parse(reply.text) as { success: boolean; uuid: string };
  assert.deepEqual(Object.keys(body), ['success', 'uuid']);
  assert.equal(body.success, true);
  assert.match(body.uuid, UUID);
  return body.uuid;
}

interface EventRow {
  account_id: number;
  app_id: number;
  host_id: number;
  instance_id: number;
  ms: bigint;
  event_type: string;
  attributes: string;
}

/** Stored events of the given types, oldest first, then in the order they were sent. */
async function events(...types: string[]): Promise<{ row: [number, number, number, number, number, string]; attributes: Record<string, unknown> }[]> {
  const rows = await ts.server.db.all<EventRow>(
    `SELECT account_id, app_id, host_id, instance_id, epoch_ms(timestamp) AS ms, event_type, attributes FROM custom_events
     WHERE event_type IN (${types.map((_, i) => `$${i + 1}`).join(', ')}) ORDER BY timestamp, rowid`,
    types,
  );
  return rows.map((r) => ({ row: [r.account_id, r.app_id, r.host_id, r.instance_id, Number(r.ms), r.event_type], attributes: JSON.parse(r.attributes) }));
}

describe('accepted events', () => {
  it('an array of events lands in custom_events, each attribute as sent, at its own time or the arrival time', async () => {
    assertAccepted(await post(JSON.stringify([
      { eventType: 'Purchase', account: 3, amount: 259.54, product: 'Item', paid: true },
      { eventType: 'Purchase', account: 5, amount: 12309, timestamp: 1709640000 },
      { eventType: 'Purchase', account: 6, timestamp: 1709640000123 },
      { eventType: 'Purchase', account: 7, timestamp: 1709640000.5 },
      { eventType: 'Purchase', account: 8, timestamp: '1709640000' },
    ])));
    assert.deepEqual(await events('Purchase'), [
      { row: [1, 0, 0, 0, 1709640000000, 'Purchase'], attributes: { account: 5, amount: 12309 } },
      { row: [1, 0, 0, 0, 1709640000123, 'Purchase'], attributes: { account: 6 } },
      { row: [1, 0, 0, 0, NOW, 'Purchase'], attributes: { account: 3, amount: 259.54, product: 'Item', paid: true } },
      { row: [1, 0, 0, 0, NOW, 'Purchase'], attributes: { account: 7 } },
      { row: [1, 0, 0, 0, NOW, 'Purchase'], attributes: { account: 8 } },
    ]);
  });

  it('one object is one event; an appId of the account files it under that application; accountId and nulls are dropped', async () => {
    assertAccepted(await post(JSON.stringify({ eventType: 'Mobile', appName: 'shop-ios', appId, duration: 0.42, accountId: 77, note: null })));
    assertAccepted(await post(JSON.stringify({ eventType: 'Mobile', appName: 'shop-ios', appId: 999 })));
    assert.deepEqual(await events('Mobile'), [
      { row: [1, appId, 0, 0, NOW, 'Mobile'], attributes: { appName: 'shop-ios', appId, duration: 0.42 } },
      { row: [1, 0, 0, 0, NOW, 'Mobile'], attributes: { appName: 'shop-ios', appId: 999 } },
    ]);
  });

  it('takes the license key in X-Insert-Key, X-License-Key or Api-Key', async () => {
    for (const header of ['x-insert-key', 'x-license-key', 'api-key']) {
      assertAccepted(await post(JSON.stringify([{ eventType: 'KeyCheck', header }]), { [header]: TEST_LICENSE_KEY }));
    }
    assert.deepEqual((await events('KeyCheck')).map((e) => e.attributes.header), ['x-insert-key', 'x-license-key', 'api-key']);
  });

  it('reads gzip, zlib deflate and raw deflate bodies, and any Content-Type but multipart/related', async () => {
    const body = JSON.stringify([{ eventType: 'Compressed', how: 'x' }]);
    const variants: [string, Buffer, Record<string, string>][] = [
      ['gzip', gzipSync(body.replace('"x"', '"gzip"')), { 'content-encoding': 'gzip' }],
      ['deflate', deflateSync(body.replace('"x"', '"deflate"')), { 'content-encoding': 'deflate' }],
      ['raw deflate', deflateRawSync(body.replace('"x"', '"raw"')), { 'content-encoding': 'deflate' }],
      ['text/plain', Buffer.from(body.replace('"x"', '"plain"')), { 'content-type': 'text/plain' }],
    ];
    for (const [what, payload, headers] of variants) {
      assertAccepted(await post(payload, { 'x-insert-key': TEST_LICENSE_KEY, ...headers }), what);
    }
    assert.deepEqual((await events('Compressed')).map((e) => e.attributes.how), ['gzip', 'deflate', 'raw', 'plain']);
  });

  it('answers on the collector port over HTTPS too', async () => {
    const reply = await httpsRequest(ts.server, 'POST', '/v1/accounts/1/events', { 'api-key': TEST_LICENSE_KEY, 'content-encoding': 'gzip' },
      gzipSync(JSON.stringify([{ eventType: 'PageView', pageUrl: 'https://shop.example/cart' }])));
    assertAccepted(reply);
    assert.deepEqual(await events('PageView'), [{ row: [1, 0, 0, 0, NOW, 'PageView'], attributes: { pageUrl: 'https://shop.example/cart' } }]);
  });
});

describe('per-event validation: the valid events are stored, the others dropped and reported', () => {
  it('drops each kind of invalid event, counts them in NrIntegrationError events with the request id', async () => {
    // eventType and 255 more: 256 attributes.
    const wide: Record<string, string | number> = { eventType: 'Wide' };
    for (let i = 0; i < 255; i++) wide[`a${i}`] = i;
    const sent = [
      { eventType: 'Valid', n: 1 },
      { n: 2 },
      { eventType: '', n: 3 },
      { eventType: 'has.dot', n: 4 },
      { eventType: 'has space', n: 5 },
      { eventType: 'x'.repeat(256) },
      { eventType: 'Metric' },
      { eventType: 'Public_Thing' },
      { eventType: 'Metric1Minute' },
      wide,
      { eventType: 'BadName', '': 1 },
      { eventType: 'LongName', ['n'.repeat(256)]: 1 },
      { eventType: 'LongValue', v: 'v'.repeat(4097) },
      { eventType: 'Nested', v: { a: 1 } },
      { eventType: 'Listed', v: [1, 2] },
      { eventType: 'BadAppId', appId: 'seven' },
      { eventType: 'FloatAppId', appId: 1.5 },
      'not an object',
      [{ eventType: 'InAnArray' }],
      { eventType: 'Valid', n: 2, v: 'v'.repeat(4096), ['n'.repeat(255)]: 'longest name' },
    ];
    const uuid = assertAccepted(await post(JSON.stringify(sent)));
    const stored = await events('Valid');
    assert.deepEqual(stored.map((e) => e.attributes.n), [1, 2]);
    // A non-integer appId is dropped, its event kept (New Relic drops the name and value).
    assert.deepEqual([...(await events('BadAppId')), ...(await events('FloatAppId'))].map((e) => e.attributes), [{}, {}]);
    const errors = await events('NrIntegrationError');
    const common = { newRelicFeature: 'Event API', category: 'EventApiException', name: 'EventValidationException', requestId: uuid, apiKeyPrefix: TEST_LICENSE_KEY.slice(0, 6) };
    assert.deepEqual(errors.map((e) => e.row), errors.map(() => [1, 0, 0, 0, NOW, 'NrIntegrationError']));
    assert.deepEqual(errors.map((e) => e.attributes), [
      // No eventType, and an empty one: neither has a type to show.
      { ...common, message: '2 event(s) rejected because missing required attributes eventType' },
      { ...common, message: '2 event(s) rejected because eventType can only contain letters, digits, colons (:) and underscores (_)', eventTypeSample: 'has.dot' },
      { ...common, message: '1 event(s) rejected because eventType exceeded maximum length', eventTypeSample: 'x'.repeat(256) },
      { ...common, message: '3 event(s) rejected because eventType is reserved (Metric, MetricRaw, Metric<digit>…, Public_…, and ChangeTrackingEvent, NrIntegrationError, TimesliceApiCall, which only the service writes)', eventTypeSample: 'Metric' },
      { ...common, message: '1 event(s) rejected because event exceeded maximum number of attributes', eventTypeSample: 'Wide' },
      { ...common, message: '1 event(s) rejected because attribute is missing attribute name', eventTypeSample: 'BadName' },
      { ...common, message: '1 event(s) rejected because attribute name exceeded maximum length', eventTypeSample: 'LongName' },
      { ...common, message: '1 event(s) rejected because attribute value exceeded maximum length', eventTypeSample: 'LongValue' },
      { ...common, message: '2 event(s) rejected because an attribute value was an object or array (values are strings, numbers or booleans)', eventTypeSample: 'Nested' },
      { ...common, message: '2 event(s) rejected because the event is not a JSON object' },
    ]);
  });

  it('a body that is not JSON, or not events, is accepted and reported as a parsing error', async () => {
    const before = (await events('NrIntegrationError')).length;
    const first = assertAccepted(await post('[{"eventType": "Broken",'));
    const second = assertAccepted(await post('"just a string"'));
    const reported = (await events('NrIntegrationError')).slice(before);
    assert.equal(reported.length, 2);
    assert.equal(reported[0]!.attributes.requestId, first);
    assert.match(String(reported[0]!.attributes.message), /^Error parsing JSON payload: /);
    assert.deepEqual(reported[1]!.attributes, {
      newRelicFeature: 'Event API', category: 'EventApiException', name: 'EventValidationException',
      message: 'Error parsing JSON payload: expected an event object or an array of them', requestId: second, apiKeyPrefix: TEST_LICENSE_KEY.slice(0, 6),
    });
    assert.deepEqual(await events('Broken'), []);
  });
});

describe('refusals', () => {
  it('403 {} for no key, a user key, an unknown key, or another account than the key\'s', async () => {
    const body = JSON.stringify([{ eventType: 'Refused' }]);
    const cases: [string, Record<string, string>, string][] = [
      ['403-no-key', {}, '/v1/accounts/1/events'],
      ['403-user-key', { 'api-key': TEST_API_KEY }, '/v1/accounts/1/events'],
      ['403-unknown-key', { 'x-insert-key': 'NRII-not-a-key' }, '/v1/accounts/1/events'],
      ['403-other-account', { 'x-insert-key': TEST_LICENSE_KEY }, '/v1/accounts/2/events'],
      ['403-account-not-a-number', { 'x-insert-key': TEST_LICENSE_KEY }, '/v1/accounts/one/events'],
    ];
    for (const [name, headers, url] of cases) {
      const reply = await post(body, headers, url);
      assert.equal(reply.status, 403, name);
      goldenReply(name, `POST ${url} (${Object.keys(headers).join(', ') || 'no key'})`, reply);
    }
    assert.deepEqual(await events('Refused'), []);
  });

  it('413 over 10^6 bytes as sent, or over 10^7 inflated; nothing is stored; a body just under the limit is stored whole', async () => {
    const bulk: { eventType: string; i: number; pad: string }[] = [];
    // Each event and its comma add their JSON length; the brackets add 2.
    for (let size = 2; size < 999_900; size += JSON.stringify(bulk.at(-1)).length + 1) bulk.push({ eventType: 'Bulk', i: bulk.length, pad: 'p'.repeat(20) });
    const text = JSON.stringify(bulk);
    assert.ok(text.length > 999_900 && text.length <= 1_000_000, `${text.length} bytes`);
    assertAccepted(await post(text));
    const [count] = await ts.server.db.all<{ n: bigint }>("SELECT count(*) AS n FROM custom_events WHERE event_type = 'Bulk'");
    assert.equal(Number(count?.n), bulk.length);
    const over = Buffer.from(`[{"eventType":"TooBig","f":"${'x'.repeat(1_000_000)}"}]`);
    goldenReply('413-wire', 'POST /v1/accounts/1/events (1 000 001+ bytes)', await post(over));
    const bomb = gzipSync(Buffer.from(`[{"eventType":"Bomb","f":"${'y'.repeat(10_000_001)}"}]`));
    assert.ok(bomb.length < 100_000);
    goldenReply('413-inflated', 'POST /v1/accounts/1/events (gzip, inflates past 10^7 bytes)', await post(bomb, { 'x-insert-key': TEST_LICENSE_KEY, 'content-encoding': 'gzip' }));
    assert.deepEqual(await events('TooBig', 'Bomb'), []);
  });

  it('400 for an empty body or one that does not inflate, 415 for multipart/related or an unknown encoding, 405 for GET', async () => {
    const key = { 'x-insert-key': TEST_LICENSE_KEY };
    goldenReply('400-empty', 'POST /v1/accounts/1/events (empty body)', await post('', key));
    goldenReply('400-not-gzip', 'POST /v1/accounts/1/events (Content-Encoding: gzip, body not gzip)', await post('[{"eventType":"X"}]', { ...key, 'content-encoding': 'gzip' }));
    goldenReply('415-multipart', 'POST /v1/accounts/1/events (Content-Type: multipart/related)', await post('[{"eventType":"X"}]', { ...key, 'content-type': 'multipart/related; boundary=x' }));
    goldenReply('415-brotli', 'POST /v1/accounts/1/events (Content-Encoding: br)', await post('[{"eventType":"X"}]', { ...key, 'content-encoding': 'br' }));
    const get = await ts.server.api.inject({ method: 'GET', url: '/v1/accounts/1/events', headers: key });
    goldenReply('405-get', 'GET /v1/accounts/1/events', { status: get.statusCode, headers: get.headers, text: get.body });
    assert.deepEqual(await events('X'), []);
  });
});

describe('rate limit', () => {
  it('429 past the POSTs an account may send in a minute, with Retry-After; the next minute is open again', async () => {
    const clock = new ManualClock(NOW);
    const written: Rows[][] = [];
    const app = Fastify();
    await app.register(eventApiPlugin({
      catalog: { accountForLicenseKey: (key) => (key === TEST_LICENSE_KEY ? 1 : undefined), application: () => undefined },
      writer: { write: async (rows) => { written.push([...rows]); } },
      clock,
      requestsPerMinute: 2,
    }));
    const send = () => app.inject({ method: 'POST', url: '/v1/accounts/1/events', headers: { 'x-insert-key': TEST_LICENSE_KEY }, payload: '[{"eventType":"R"}]' });
    assert.equal((await send()).statusCode, 200);
    assert.equal((await send()).statusCode, 200);
    const limited = await send();
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.headers['retry-after'], '40'); // 14:30:20 → the window ends at 14:31:00
    assert.deepEqual(JSON.parse(limited.body), { success: false, error: 'Too many requests: 2 POSTs per minute per account' });
    clock.ms += 40_000;
    assert.equal((await send()).statusCode, 200);
    assert.equal(written.length, 3);
    await app.close();
  });
});
