import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEventPayload, readEvents, type EventContext } from './event-validation.js';

const NOW = Date.UTC(2024, 2, 5, 14, 30, 20);
const ctx: EventContext = { accountId: 4, receivedAt: NOW, ownsApplication: (id) => id === 12 };

/** Stored rows as [app_id, timestamp, event_type, attributes]; account, host and instance checked once. */
function stored(body: unknown): { rows: [number, number, string, unknown][]; messages: string[] } {
  const read = readEvents(body, ctx);
  const rows: [number, number, string, unknown][] = [];
  for (let r = 0; r < read.rows.length; r++) {
    const [account, app, host, instance, ts, type, attributes] = read.rows.columns.map((c) => c[r]);
    assert.deepEqual([account, host, instance], [4, 0, 0]);
    rows.push([app as number, ts as number, type as string, JSON.parse(attributes as string)]);
  }
  return { rows, messages: read.rejections.map((x) => x.message) };
}

describe('readEvents', () => {
  it('one object or an array; eventType and timestamp become columns, the rest the attributes', () => {
    assert.deepEqual(stored({ eventType: 'A', x: 1 }), { rows: [[0, NOW, 'A', { x: 1 }]], messages: [] });
    assert.deepEqual(stored([{ eventType: 'A', s: 'v', b: false, f: 1.5 }, { eventType: 'B' }]).rows, [
      [0, NOW, 'A', { s: 'v', b: false, f: 1.5 }],
      [0, NOW, 'B', {}],
    ]);
    assert.deepEqual(stored([]), { rows: [], messages: [] });
  });

  it('timestamps: integer seconds (below 10^11) or milliseconds; anything else is the arrival time', () => {
    const times = stored([
      { eventType: 'T', timestamp: 1_700_000_000 },
      { eventType: 'T', timestamp: 1_700_000_000_123 },
      { eventType: 'T', timestamp: 99_999_999_999 },
      { eventType: 'T', timestamp: 100_000_000_000 },
      { eventType: 'T', timestamp: 1_700_000_000.5 },
      { eventType: 'T', timestamp: '1700000000' },
      { eventType: 'T', timestamp: -5 },
      { eventType: 'T', timestamp: 0 },
      { eventType: 'T', timestamp: 1e17 },
    ]).rows.map((r) => r[1]);
    assert.deepEqual(times, [1_700_000_000_000, 1_700_000_000_123, 99_999_999_999_000, 100_000_000_000, NOW, NOW, NOW, NOW, NOW]);
  });

  it('appId files the event under the application only when the account has it; accountId and nulls are dropped', () => {
    assert.deepEqual(stored([{ eventType: 'M', appId: 12, accountId: 9, gone: null }, { eventType: 'M', appId: 13 }]).rows, [
      [12, NOW, 'M', { appId: 12 }],
      [0, NOW, 'M', { appId: 13 }],
    ]);
  });

  it('limits: 255 attributes, names of 255 characters, values of 4096 characters (code points, not UTF-16 units)', () => {
    const atLimit: Record<string, unknown> = { eventType: 'L' };
    for (let i = 1; i < 255; i++) atLimit[`k${i}`] = i;
    assert.equal(Object.keys(atLimit).length, 255);
    const emoji = '😀'.repeat(4096); // 8192 UTF-16 units, 4096 characters
    const accepted = stored([atLimit, { eventType: 'L', ['名'.repeat(255)]: emoji }, { eventType: 'E'.repeat(255) }]);
    assert.deepEqual(accepted.messages, []);
    assert.equal(accepted.rows.length, 3);
    const over = stored([{ ...atLimit, one: 'more' }, { eventType: 'L', v: `${emoji}😀` }, { eventType: 'L', ['名'.repeat(256)]: 1 }, { eventType: 'E'.repeat(256) }]);
    assert.deepEqual(over.rows, []);
    assert.deepEqual(over.messages, [
      '1 event(s) rejected because event exceeded maximum number of attributes',
      '1 event(s) rejected because attribute value exceeded maximum length',
      '1 event(s) rejected because attribute name exceeded maximum length',
      '1 event(s) rejected because eventType exceeded maximum length',
    ]);
  });

  it('eventType: required, letters, digits, : and _ only; New Relic\'s and the service\'s own types are dropped, near names are not', () => {
    const read = stored([
      { eventType: 'Ok:Type_1' }, { eventType: 'MetricSample' }, { eventType: 'PublicThing' }, { eventType: 'Metrics' },
      { eventType: 'Metric' }, { eventType: 'MetricRaw' }, { eventType: 'Metric2' }, { eventType: 'Public_X' },
      { eventType: 'ChangeTrackingEvent' }, { eventType: 'NrIntegrationError' }, { eventType: 'TimesliceApiCall' },
      { eventType: 'a,b' }, { eventType: 'a\\b' }, { eventType: "a'b;DROP" }, { eventType: 'Tab\tX' }, { eventType: 'S\u0000x' }, { eventType: 'a.b' },
      { eventType: 7 }, {},
    ]);
    assert.deepEqual(read.rows.map((r) => r[2]), ['Ok:Type_1', 'MetricSample', 'PublicThing', 'Metrics']);
    assert.deepEqual(read.messages, [
      '7 event(s) rejected because eventType is reserved (Metric, MetricRaw, Metric<digit>…, Public_…, and ChangeTrackingEvent, NrIntegrationError, TimesliceApiCall, which only the service writes)',
      '6 event(s) rejected because eventType can only contain letters, digits, colons (:) and underscores (_)',
      '2 event(s) rejected because missing required attributes eventType',
    ]);
  });

  it('an attribute named __proto__ or constructor is an attribute like any other', () => {
    assert.deepEqual(stored(JSON.parse('[{"eventType":"P","__proto__":"x","constructor":1}]')).rows.map((r) => JSON.stringify(r[3])), ['{"__proto__":"x","constructor":1}']);
  });

  it('a non-integer appId is dropped, the event kept', () => {
    const read = stored([{ eventType: 'Z', appId: 'web', v: 1 }, { eventType: 'Z', appId: 1e300 }, { eventType: 'Z', appId: 7 }]);
    assert.deepEqual(read.rows.map((r) => r[3]), [{ v: 1 }, {}, { appId: 7 }]);
    assert.deepEqual(read.messages, []);
  });

  it('samples the first dropped event\'s type per message', () => {
    const read = readEvents([{ eventType: 'First', v: {} }, { eventType: 'Second', v: [] }, { v: {} }], ctx);
    assert.deepEqual(read.rejections, [
      { message: '2 event(s) rejected because an attribute value was an object or array (values are strings, numbers or booleans)', count: 2, eventTypeSample: 'First' },
      { message: '1 event(s) rejected because missing required attributes eventType', count: 1, eventTypeSample: undefined },
    ]);
  });
});

describe('isEventPayload', () => {
  it('an object or an array; not a string, number or null', () => {
    assert.deepEqual([{}, [], 'x', 1, null, true].map(isEventPayload), [true, true, false, false, false, false]);
  });
});
