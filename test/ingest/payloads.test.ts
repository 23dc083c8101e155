import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { CollectorError } from '../../src/ingest/agent/collector-error.js';
import {
  customEventRows, decodeTrace, errorEventRows, errorTraceRows, logEventRows, metricsOf, parseMetricData,
  spanEventRows, sqlTraceRows, timesliceRows, transactionEventRows, transactionTraceRows, unscopedNames, type IngestContext,
} from '../../src/ingest/agent/payloads.js';
import { rowObjects, type RowObject } from '../helpers/rows.js';
import { decodedTraceSample, sample } from '../helpers/samples.js';

type Json = unknown;
type Obj = Record<string, Json>;
type MetricEntry = [{ name: string; scope?: string }, number[]];

const RECEIVED_AT = Date.UTC(2026, 10, 22, 3, 50, 7, 123); // 1795319407123
/** Two targets: an agent reporting to a primary app and one roll-up app; every row goes to both. */
const ctx: IngestContext = {
  accountId: 7,
  targets: [{ appId: 11, hostId: 21, instanceId: 31 }, { appId: 12, hostId: 22, instanceId: 32 }],
  receivedAt: RECEIVED_AT,
};

function assertMalformed(fn: () => unknown, pattern?: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof CollectorError, `expected a CollectorError, got ${String(error)}`);
    assert.equal(error.statusCode, 400);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

/** Rows grouped by target (in ctx order); checks each target got the same number of rows, in the same order. */
function perTarget(rows: RowObject[]): RowObject[] {
  assert.equal(rows.length % ctx.targets.length, 0);
  const n = rows.length / ctx.targets.length;
  ctx.targets.forEach((t, i) => {
    for (const row of rows.slice(i * n, (i + 1) * n)) {
      assert.deepEqual([row.account_id, row.app_id, row.host_id, row.instance_id], [ctx.accountId, t.appId, t.hostId, t.instanceId]);
    }
  });
  const strip = (r: RowObject) => ({ ...r, app_id: 0, host_id: 0, instance_id: 0 });
  assert.deepEqual(rows.slice(n).map(strip), rows.slice(0, n).map(strip));
  return rows.slice(0, n);
}

// ── metric_data ─────────────────────────────────────────────────────────────────────────────

test('metric_data: every metric of the 60 s harvest is parsed with its six numbers kept exactly', () => {
  const s = sample('metric_data');
  const [runId, begin, end, list] = s.body as [string, number, number, MetricEntry[]];
  assert.equal(runId, 'lab-run-1');
  const p = parseMetricData(s.body);
  assert.equal(p.beginMs, 1795318934645);
  assert.equal(p.endMs, 1795318994657);
  assert.equal(metricsOf(p).length, 126);
  assert.equal(metricsOf(p).length, list.length);
  list.forEach(([spec, values], i) => {
    const m = metricsOf(p)[i]!;
    assert.equal(m.name, spec.name);
    assert.equal(m.scope, spec.scope ?? '');
    assert.deepEqual([m.stats.count, m.stats.total, m.stats.exclusive, m.stats.min, m.stats.max, m.stats.sumOfSquares], values);
  });
  assert.ok(begin < end);
});

test('metric_data: hand-checked values from the lab (Apdex, HttpDispatcher, a scoped middleware metric)', () => {
  const p = parseMetricData(sample('metric_data').body);
  const find = (name: string, scope = '') => {
    const found = metricsOf(p).filter((m) => m.name === name && m.scope === scope);
    assert.equal(found.length, 1, `${name} [${scope}]`);
    return found[0]!.stats;
  };
  assert.deepEqual(find('Apdex'), { count: 129, total: 41, exclusive: 45, min: 0.05, max: 0.05, sumOfSquares: 0 });
  assert.deepEqual(find('Apdex/Expressjs/GET//fast'), { count: 94, total: 1, exclusive: 0, min: 0.05, max: 0.05, sumOfSquares: 0 });
  assert.equal(find('HttpDispatcher').count, 215);
  assert.deepEqual(find('HttpDispatcher'), find('WebTransaction'));
  assert.deepEqual(find('Errors/all'), { count: 35, total: 0, exclusive: 0, min: 0, max: 0, sumOfSquares: 0 });
  const q = find('Nodejs/Middleware/Expressjs/query//', 'WebTransaction/Expressjs/GET//fast');
  assert.equal(q.count, 95);
  assert.equal(q.total, 0.5219129789999999);
  assert.equal(find('Nodejs/Middleware/Expressjs/query//').count, 215);
  // Unscoped specs have no scope key at all; 28 entries of the harvest are scoped.
  assert.equal(metricsOf(p).filter((m) => m.scope !== '').length, 28);
  assert.equal(metricsOf(p).filter((m) => m.scope === '').length, 98);
});

test('metric_data: the default-apdex capture carries apdex_t 0.1 in slots 4 and 5', () => {
  const p = parseMetricData(sample('metric_data-default-apdex').body);
  const apdex = metricsOf(p).find((m) => m.name === 'Apdex' && m.scope === '');
  assert.deepEqual(apdex?.stats, { count: 11, total: 10, exclusive: 10, min: 0.1, max: 0.1, sumOfSquares: 0 });
});

test('metric_data: names needing ids are metric names and scopes, each once', () => {
  const s = sample('metric_data');
  const names = new Set(parseMetricData(s.body).names);
  const expected = new Set<string>();
  for (const [spec] of (s.body as [string, number, number, MetricEntry[]])[3]) {
    expected.add(spec.name);
    if (spec.scope) expected.add(spec.scope);
  }
  assert.deepEqual(names, expected);
  assert.equal(names.size, 98);
  assert.ok(names.has('WebTransaction/Expressjs/GET//slow'));
  assert.ok(!names.has(''));
});

test('metric_data: rows carry metric and scope ids (0 = unscoped), the harvest minute, for each target', () => {
  const s = sample('metric_data');
  const list = (s.body as [string, number, number, MetricEntry[]])[3];
  const payload = parseMetricData(s.body);
  const ids = new Map([...payload.names].sort().map((n, i) => [n, 1000 + i] as const));
  const rows = rowObjects(timesliceRows(payload, ctx, ids));
  assert.equal(rows.length, 126 * 2);
  const first = perTarget(rows);
  list.forEach(([spec, values], i) => {
    const r = first[i]!;
    assert.equal(r.metric_id, ids.get(spec.name));
    assert.equal(r.scope_id, spec.scope === undefined ? 0 : ids.get(spec.scope));
    // Harvest 03:42:14.645 → 03:43:14.657: its middle (03:42:44.651) is in the minute 03:42.
    assert.equal(r.ts, Date.UTC(2026, 10, 22, 3, 42));
    assert.equal(r.ts, 1795318920000);
    assert.deepEqual([r.call_count, r.total, r.exclusive, r.min, r.max, r.sum_of_squares], values);
  });
  const apdex = first[list.findIndex(([spec]) => spec.name === 'Apdex')]!;
  assert.deepEqual([apdex.call_count, apdex.total, apdex.exclusive, apdex.min, apdex.max, apdex.sum_of_squares], [129, 41, 45, 0.05, 0.05, 0]);
  assert.equal(apdex.scope_id, 0);
});

test('metric_data: the harvest minute is the minute holding the middle of the harvest', () => {
  const minuteOf = (body: Json) => {
    const p = parseMetricData(body);
    const ids = new Map([...p.names].map((n, i) => [n, i + 1] as const));
    const ts = new Set(rowObjects(timesliceRows(p, { ...ctx, targets: [ctx.targets[0]!] }, ids)).map((r) => r.ts));
    assert.equal(ts.size, 1);
    return [...ts][0];
  };
  // first harvest 03:42:12.700 → 03:42:14.642
  assert.equal(minuteOf(sample('metric_data-first-harvest').body), Date.UTC(2026, 10, 22, 3, 42));
  // final harvest 03:43:14.661 → 03:44:11.823: middle 03:43:43.242
  assert.equal(minuteOf(sample('metric_data-final-harvest').body), Date.UTC(2026, 10, 22, 3, 43));
  // default-apdex run 03:45:32.382 → 03:45:38.859
  assert.equal(minuteOf(sample('metric_data-default-apdex').body), Date.UTC(2026, 10, 22, 3, 45));
  // A 3-minute harvest (kept after failed sends) 10:00:50 → 10:03:50 is filed at its centre, 10:02.
  const begin = Date.UTC(2026, 0, 1, 10, 0, 50) / 1000;
  assert.equal(minuteOf(['run', begin, begin + 180, [[{ name: 'X' }, [1, 1, 1, 1, 1, 1]]]]), Date.UTC(2026, 0, 1, 10, 2));
  // Java sends integer seconds and the envelope may come without the run id.
  assert.equal(minuteOf([begin, begin + 60, [[{ name: 'X' }, [1, 1, 1, 1, 1, 1]]]]), Date.UTC(2026, 0, 1, 10, 1));
});

test('metric_data: the unscoped names are those reported without a scope, in order of first appearance', () => {
  const p = parseMetricData(['r', 100, 160, [
    [{ name: 'Datastore/statement/Postgres/users/select', scope: 'WebTransaction/Expressjs/GET//a' }, [1, 1, 1, 1, 1, 1]],
    [{ name: 'WebTransaction/Expressjs/GET//a' }, [1, 1, 1, 1, 1, 1]],
    [{ name: 'HttpDispatcher', scope: null }, [1, 1, 1, 1, 1, 1]],
    [{ name: 'External/all', scope: '' }, [1, 1, 1, 1, 1, 1]],
    [{ name: 'HttpDispatcher' }, [1, 1, 1, 1, 1, 1]],
  ]]);
  assert.deepEqual(unscopedNames(p), ['WebTransaction/Expressjs/GET//a', 'HttpDispatcher', 'External/all']);
  assert.deepEqual(unscopedNames(parseMetricData(['r', 100, 160, []])), []);
});

test('metric_data: a null scope is unscoped; an empty metric list is no rows', () => {
  const p = parseMetricData(['r', 100, 160, [[{ name: 'A', scope: null }, [1, 2, 3, 4, 5, 6]]]]);
  assert.equal(metricsOf(p)[0]!.scope, '');
  const empty = parseMetricData(['r', 100, 160, []]);
  assert.equal(metricsOf(empty).length, 0);
  assert.equal(timesliceRows(empty, ctx, new Map()).length, 0);
});

test('metric_data: wrong shapes are refused as malformed (400)', () => {
  const ok = [{ name: 'Good' }, [1, 2, 3, 4, 5, 6]];
  const withMetric = (m: Json) => ['r', 1795318934.645, 1795318994.657, [ok, m]];
  assertMalformed(() => parseMetricData(withMetric([{ name: 'Bad' }, [1, 2, 3, 4, 5]])), /Bad.*six/);
  assertMalformed(() => parseMetricData(withMetric([{ name: 'Bad' }, [1, 2, 3, 4, 5, 6, 7]])), /six/);
  assertMalformed(() => parseMetricData(withMetric([{ name: 'Bad' }, ['1', 2, 3, 4, 5, 6]])), /six/);
  assertMalformed(() => parseMetricData(withMetric([{ name: 'Bad' }, [null, 2, 3, 4, 5, 6]])), /six/);
  assertMalformed(() => parseMetricData(withMetric([{ name: 'Bad' }, { count: 1 }])));
  assertMalformed(() => parseMetricData(withMetric([{ name: '' }, [1, 2, 3, 4, 5, 6]])), /name/);
  assertMalformed(() => parseMetricData(withMetric([{ scope: 'S' }, [1, 2, 3, 4, 5, 6]])), /name/);
  assertMalformed(() => parseMetricData(withMetric([{ name: 'Bad', scope: 5 }, [1, 2, 3, 4, 5, 6]])), /scope/);
  assertMalformed(() => parseMetricData(withMetric(17)));
  assertMalformed(() => parseMetricData({ metrics: [] }));
  assertMalformed(() => parseMetricData(['r', 200, 100, []]), /begin/);
  assertMalformed(() => parseMetricData(['r', 0, 100, []]), /begin/);
  assertMalformed(() => parseMetricData(['r', '100', 160, []]), /begin/);
  assertMalformed(() => parseMetricData(['r', 100, 160, {}]));
});

test('metric_data: a harvest beyond the year 9999 is malformed (400), not a store failure', () => {
  assertMalformed(() => parseMetricData(['r', 1e300, 1e300, [[{ name: 'X' }, [1, 2, 3, 4, 5, 6]]]]));
  assertMalformed(() => parseMetricData(['r', 1795318934.645, 1e13, [[{ name: 'X' }, [1, 2, 3, 4, 5, 6]]]]));
  // The last second of 9999 is still a time.
  const last = Date.UTC(9999, 11, 31, 23, 59, 0) / 1000;
  assert.equal(parseMetricData(['r', last, last + 59, []]).endMs, Date.UTC(9999, 11, 31, 23, 59, 59));
});

// ── events ──────────────────────────────────────────────────────────────────────────────────

test('analytic_event_data: 61 transaction events with typed columns and lossless attribute maps', () => {
  const s = sample('analytic_event_data');
  const events = (s.body as [string, Obj, [Obj, Obj, Obj][]])[2];
  assert.equal(events.length, 61);
  const rows = perTarget(rowObjects(transactionEventRows(s.body, ctx)));
  assert.equal(rows.length, 61);
  events.forEach(([i, user, agent], k) => {
    const r = rows[k]!;
    assert.equal(r.timestamp, i.timestamp); // epoch ms already
    assert.equal(r.name, i.name);
    assert.equal(r.duration, i.duration);
    assert.equal(r.total_time, i.totalTime);
    assert.equal(r.queue_duration, i.queueDuration ?? null);
    assert.equal(r.error, i.error);
    assert.equal(r.http_status_code, Number.parseInt(agent['http.statusCode'] as string, 10)); // a string on the wire
    assert.equal(r.trace_id, i.traceId);
    assert.equal(r.guid, i.guid);
    assert.deepEqual(JSON.parse(r.intrinsics as string), i);
    assert.deepEqual(JSON.parse(r.user_attributes as string), user);
    assert.deepEqual(JSON.parse(r.agent_attributes as string), agent);
  });
  // hand-checked: the first event of the capture
  assert.deepEqual(
    [rows[0]!.timestamp, rows[0]!.name, rows[0]!.duration, rows[0]!.error, rows[0]!.http_status_code, rows[0]!.guid],
    [1795318959474, 'WebTransaction/Expressjs/GET//noticed', 0.002337614, true, 200, '8f2284a99ea87d5f'],
  );
  const statuses = new Map<unknown, number>();
  for (const r of rows) statuses.set(r.http_status_code, (statuses.get(r.http_status_code) ?? 0) + 1);
  assert.equal([...statuses.values()].reduce((a, b) => a + b, 0), 61);
  assert.ok(![...statuses.keys()].includes(null));
});

test('analytic_event_data: the sampled capture, and the envelope without a reservoir object', () => {
  const s = sample('analytic_event_data-sampled');
  const events = (s.body as [string, Obj, Json[]])[2];
  assert.equal(rowObjects(transactionEventRows(s.body, ctx)).length, events.length * 2);
  const noReservoir = ['r', events];
  assert.deepEqual(rowObjects(transactionEventRows(noReservoir, ctx)), rowObjects(transactionEventRows(s.body, ctx)));
  assert.equal(transactionEventRows(['r', { reservoir_size: 10, events_seen: 0 }, []], ctx).length, 0);
});

test('error_event_data: timestamps in seconds become ms; a 0 timestamp becomes the receive time', () => {
  const s = sample('error_event_data');
  const events = (s.body as [string, Obj, [Obj, Obj, Obj][]])[2];
  assert.equal(events.length, 24);
  const rows = perTarget(rowObjects(errorEventRows(s.body, ctx)));
  assert.equal(rows.length, 24);
  let zeros = 0;
  events.forEach(([i, user, agent], k) => {
    const r = rows[k]!;
    if (i.timestamp === 0) {
      zeros++;
      assert.equal(r.timestamp, RECEIVED_AT);
    } else {
      // Seconds with 3 decimals, e.g. 1795318941.293 → 1795318941293 (read from the decimal text).
      const [whole, frac = ''] = String(i.timestamp).split('.');
      assert.equal(r.timestamp, Number(whole) * 1000 + Number(frac.padEnd(3, '0')));
      assert.ok((r.timestamp as number) > Date.UTC(2026, 10, 22, 3, 42) && (r.timestamp as number) < Date.UTC(2026, 10, 22, 3, 43));
    }
    assert.equal(r.error_class, i['error.class']);
    assert.equal(r.error_message, i['error.message']);
    assert.equal(r.transaction_name, i.transactionName);
    assert.equal(r.duration, i.duration);
    assert.equal(r.trace_id, i.traceId);
    assert.deepEqual(JSON.parse(r.intrinsics as string), i);
    assert.deepEqual(JSON.parse(r.user_attributes as string), user);
    assert.deepEqual(JSON.parse(r.agent_attributes as string), agent);
  });
  assert.equal(zeros, 9);
  // hand-checked: the first event is a plain HTTP 500 with timestamp 0
  assert.deepEqual([rows[0]!.timestamp, rows[0]!.error_class, rows[0]!.error_message], [RECEIVED_AT, 'Error', 'HttpError 500']);
  assert.equal(rows[4]!.timestamp, 1795318941293);
});

test('error_event_data (noticed): seconds 1795318959.476 become 1795318959476 ms', () => {
  const rows = perTarget(rowObjects(errorEventRows(sample('error_event_data-noticed').body, ctx)));
  assert.equal(rows.length, 11);
  assert.equal(rows[0]!.timestamp, 1795318959476);
  assert.equal(rows[0]!.error_class, 'TypeError');
  assert.deepEqual(JSON.parse(rows[0]!.user_attributes as string), { labAttr: 'x' });
});

test('span_event_data: 40 spans (identity capture) and 250 spans (gzip capture)', () => {
  for (const [name, count] of [['span_event_data', 40], ['span_event_data-gzip', 250]] as const) {
    const s = sample(name);
    const events = (s.body as [string, Obj, [Obj, Obj, Obj][]])[2];
    assert.equal(events.length, count);
    const rows = perTarget(rowObjects(spanEventRows(s.body, ctx)));
    assert.equal(rows.length, count);
    events.forEach(([i, , agent], k) => {
      const r = rows[k]!;
      assert.deepEqual(
        [r.timestamp, r.name, r.category, r.duration, r.trace_id, r.guid, r.parent_id, r.transaction_id],
        [i.timestamp, i.name, i.category, i.duration, i.traceId, i.guid, i.parentId ?? null, i.transactionId],
      );
      assert.deepEqual(JSON.parse(r.agent_attributes as string), agent);
    });
    const roots = rows.filter((r) => r.parent_id === null);
    assert.equal(roots.length, events.filter(([i]) => !('parentId' in i)).length);
    assert.ok(roots.length > 0);
  }
});

test('custom_event_data: [{type, timestamp}, {attributes}] with no reservoir object', () => {
  const s = sample('custom_event_data');
  const events = (s.body as [string, [Obj, Obj][]])[1];
  assert.equal(events.length, 10);
  const rows = perTarget(rowObjects(customEventRows(s.body, ctx)));
  assert.equal(rows.length, 10);
  events.forEach(([head, attributes], k) => {
    assert.equal(rows[k]!.timestamp, head.timestamp);
    assert.equal(rows[k]!.event_type, 'LabEvent');
    assert.deepEqual(JSON.parse(rows[k]!.attributes as string), attributes);
  });
  assert.deepEqual([rows[0]!.timestamp, JSON.parse(rows[0]!.attributes as string)], [1795318959517, { n: 5, kind: 'lab' }]);
  const ns = rows.map((r) => (JSON.parse(r.attributes as string) as { n: number }).n).sort((a, b) => a - b);
  assert.deepEqual(ns, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test('custom_event_data: an event without a type, or not in [head, attributes] form, is malformed', () => {
  assertMalformed(() => customEventRows(['r', [[{ timestamp: 1 }, {}]]], ctx), /type/);
  assertMalformed(() => customEventRows(['r', [[{ type: '', timestamp: 1 }, {}]]], ctx), /type/);
  assertMalformed(() => customEventRows(['r', [[{ type: 'T' }, 'attrs']]], ctx));
  assertMalformed(() => customEventRows(['r', [{ type: 'T' }]], ctx));
  // A missing timestamp falls back to the receive time.
  assert.equal(rowObjects(customEventRows(['r', [[{ type: 'T' }, { a: 1 }]]], ctx))[0]!.timestamp, RECEIVED_AT);
});

test('log_event_data: 15 logs with the common attributes merged into each', () => {
  const s = sample('log_event_data');
  const [block] = s.body as [{ common: { attributes: Obj }; logs: Obj[] }];
  assert.equal(block.logs.length, 15);
  const rows = perTarget(rowObjects(logEventRows(s.body, ctx)));
  assert.equal(rows.length, 15);
  block.logs.forEach((log, k) => {
    const r = rows[k]!;
    assert.equal(r.timestamp, log.timestamp);
    assert.equal(r.level, log.level);
    assert.equal(r.message, log.message);
    assert.equal(r.trace_id, log['trace.id']);
    assert.equal(r.span_id, log['span.id']);
    assert.deepEqual(JSON.parse(r.attributes as string), { ...block.common.attributes, ...log });
  });
  const attrs = JSON.parse(rows[0]!.attributes as string) as Obj;
  assert.equal(attrs['entity.guid'], 'MXxBUE18QVBQTElDQVRJT058MTIzNDU');
  assert.equal(attrs['entity.name'], 'lab-node-app');
  assert.equal(attrs['entity.type'], 'SERVICE');
  assert.equal(attrs.route, 'fast');
  assert.deepEqual([rows[0]!.timestamp, rows[0]!.level, rows[0]!.message], [1795318959586, 'info', 'fast request served']);
});

test('log_event_data: a log\'s own attributes and fields win over common ones; no timestamp → receive time', () => {
  const body = [
    { common: { attributes: { a: 'common', b: 'common', c: 'common' } }, logs: [{ message: 'm', attributes: { b: 'log-attr', c: 'log-attr' }, c: 'field', 'log.level': 'WARN' }] },
    { logs: [{ message: 'no common', timestamp: 1795318959586 }] },
    { common: { attributes: { a: 1 } }, logs: [] },
  ];
  const rows = perTarget(rowObjects(logEventRows(body, ctx)));
  assert.equal(rows.length, 2);
  assert.deepEqual(JSON.parse(rows[0]!.attributes as string), { a: 'common', b: 'log-attr', c: 'field', message: 'm', 'log.level': 'WARN' });
  assert.equal(rows[0]!.timestamp, RECEIVED_AT);
  assert.equal(rows[0]!.level, 'WARN');
  assert.equal(rows[1]!.timestamp, 1795318959586);
  assert.deepEqual(JSON.parse(rows[1]!.attributes as string), { message: 'no common', timestamp: 1795318959586 });
  assertMalformed(() => logEventRows([{ logs: ['text'] }], ctx));
  assertMalformed(() => logEventRows(['block'], ctx));
  assertMalformed(() => logEventRows({ logs: [] }, ctx));
});

test('events: entries that are not [intrinsics, user, agent] objects are malformed', () => {
  assertMalformed(() => transactionEventRows(['r', { reservoir_size: 1 }, [{ name: 'x' }]], ctx));
  assertMalformed(() => transactionEventRows(['r', { reservoir_size: 1 }, [['x', {}, {}]]], ctx));
  assertMalformed(() => errorEventRows(['r', { reservoir_size: 1 }, [[{}, [], {}]]], ctx));
  assertMalformed(() => spanEventRows(['r', { reservoir_size: 1 }, 'events'], ctx));
  assertMalformed(() => spanEventRows('events', ctx));
  // One bad event refuses the whole payload: nothing of it is returned.
  const s = sample('analytic_event_data');
  const body = s.body as [string, Obj, Json[]];
  body[2].push([{ name: 'x' }, 'not attributes', {}]);
  assertMalformed(() => transactionEventRows(body, ctx), /event 61/);
});

test('events: a timestamp that is no time (beyond the year 9999, in s or ms) refuses the payload as malformed', () => {
  // Such values cannot be stored; were they passed on, the write would fail with 503 and the agent would resend them forever.
  for (const bad of [1e300, 1e16, Date.UTC(10000, 0, 1)]) {
    assertMalformed(() => customEventRows(['r', [[{ type: 'T', timestamp: 1795318959517 }, {}], [{ type: 'T', timestamp: bad }, {}]]], ctx), /timestamp/);
    assertMalformed(() => transactionEventRows(['r', {}, [[{ timestamp: bad }, {}, {}]]], ctx), /timestamp/);
    assertMalformed(() => errorEventRows(['r', {}, [[{ timestamp: bad }, {}, {}]]], ctx), /timestamp/);
    assertMalformed(() => spanEventRows(['r', {}, [[{ timestamp: bad }, {}, {}]]], ctx), /timestamp/);
    assertMalformed(() => logEventRows([{ logs: [{ message: 'm', timestamp: bad }] }], ctx), /timestamp/);
    assertMalformed(() => errorTraceRows(['r', [[bad, 'T', 'm', 'E', {}, 'g']]], ctx), /timestamp/);
    assertMalformed(() => transactionTraceRows(['r', [[bad, 1, 'T', '/u', [], 'g']]], ctx), /timestamp/);
  }
  // The end of 9999 is still a time; in seconds too.
  const last = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
  assert.equal(rowObjects(customEventRows(['r', [[{ type: 'T', timestamp: last }, {}]]], ctx))[0]!.timestamp, last);
  assert.equal(rowObjects(errorEventRows(['r', {}, [[{ timestamp: 99999999999 }, {}, {}]]], ctx))[0]!.timestamp, 99999999999000);
});

// ── traces ──────────────────────────────────────────────────────────────────────────────────

test('error_data: 20 error traces; the Node agent\'s 0 timestamp becomes the receive time', () => {
  const s = sample('error_data');
  const traces = (s.body as [string, [number, string, string, string, Obj, string][]])[1];
  assert.equal(traces.length, 20);
  const rows = perTarget(rowObjects(errorTraceRows(s.body, ctx)));
  assert.equal(rows.length, 20);
  traces.forEach(([ts, txName, message, errorClass, params, guid], k) => {
    const r = rows[k]!;
    assert.equal(ts, 0);
    assert.equal(r.timestamp, RECEIVED_AT);
    assert.deepEqual([r.transaction_name, r.message, r.error_class, r.transaction_guid], [txName, message, errorClass, guid]);
    assert.deepEqual(JSON.parse(r.params as string), params);
  });
  assert.deepEqual(
    [rows[0]!.transaction_name, rows[0]!.message, rows[0]!.error_class, rows[0]!.transaction_guid],
    ['WebTransaction/Expressjs/GET//error', 'lab boom', 'Error', '9a9826683ce2ac13'],
  );
  const params = JSON.parse(rows[0]!.params as string) as Obj;
  assert.deepEqual(Object.keys(params), ['userAttributes', 'agentAttributes', 'intrinsics', 'stack_trace']);
  // A trace with a real timestamp (seconds, as other agents send) keeps it.
  const other = rowObjects(errorTraceRows(['r', [[1795318941.5, 'T', 'm', 'E', {}, 'g']]], ctx));
  assert.equal(other[0]!.timestamp, 1795318941500);
});

test('transaction_sample_data: the encoded trace is decoded to exactly the lab\'s decoding', () => {
  const s = sample('transaction_sample_data');
  const [trace] = (s.body as [string, Json[][]])[1];
  const rows = perTarget(rowObjects(transactionTraceRows(s.body, ctx)));
  assert.equal(rows.length, 1);
  const r = rows[0]!;
  assert.deepEqual(
    [r.timestamp, r.duration_ms, r.transaction_name, r.uri, r.transaction_guid],
    [1795318940867, 325.314266, 'WebTransaction/Expressjs/GET//slow', '/slow', 'bc0825b33a2a1be1'],
  );
  const decoded = decodedTraceSample();
  assert.deepEqual(JSON.parse(r.trace as string), decoded);
  assert.deepEqual(decodeTrace(trace![4]), decoded);
  const root = (decoded as Json[])[3] as Json[];
  assert.equal(root[2], 'ROOT');
});

test('transaction traces: simple_compression (plain JSON) passes through; an undecodable string is kept', () => {
  const decoded = decodedTraceSample();
  assert.deepEqual(decodeTrace(decoded), decoded);
  assert.equal(decodeTrace('not base64 zlib'), 'not base64 zlib');
  const ownEncoding = deflateSync(Buffer.from(JSON.stringify({ a: [1, 2] }))).toString('base64');
  assert.deepEqual(decodeTrace(ownEncoding), { a: [1, 2] });
  const rows = rowObjects(transactionTraceRows(['r', [[1795318940867, 12.5, 'T', '/u', decoded, 'g', null, false, null, null]]], ctx));
  assert.deepEqual(JSON.parse(rows[0]!.trace as string), decoded);
  const kept = rowObjects(transactionTraceRows(['r', [[1795318940867, 12.5, 'T', '/u', '???', 'g']]], ctx));
  assert.equal(JSON.parse(kept[0]!.trace as string), '???');
  assertMalformed(() => transactionTraceRows(['r', ['not a trace']], ctx));
});

test('sql_trace_data: columns in order, encoded params decoded, receive time as timestamp', () => {
  const params = { explain_plan: [['a'], [[1]]], backtrace: ['x'] };
  const encoded = deflateSync(Buffer.from(JSON.stringify(params))).toString('base64');
  const body = ['r', [['WebTransaction/Expressjs/GET//db', '/db', 'id-1', 'SELECT 1', 'Datastore/statement/Postgres/t/select', 3, 0.3, 0.05, 0.15, encoded]]];
  const rows = perTarget(rowObjects(sqlTraceRows(body, ctx)));
  assert.deepEqual(rows[0], {
    account_id: 7, app_id: 11, host_id: 21, instance_id: 31, timestamp: RECEIVED_AT,
    transaction_name: 'WebTransaction/Expressjs/GET//db', url: '/db', sql_id: 'id-1', sql: 'SELECT 1',
    metric_name: 'Datastore/statement/Postgres/t/select', call_count: 3, total: 0.3, min: 0.05, max: 0.15,
    params: JSON.stringify(params),
  });
});

test('metric_data: a metric with a number past 1e100 is left out and counted; the others are kept; names are cut to 255', () => {
  const long = `Custom/${'L'.repeat(300)}`;
  const p = parseMetricData(['r', 1795318934, 1795318994, [
    [{ name: 'Custom/A' }, [1, 2, 3, 4, 5, 6]],
    [{ name: 'Custom/Huge' }, [1, 2, 3, 4, 5, 1.5e100]],
    [{ name: long, scope: `WebTransaction/${'S'.repeat(300)}` }, [1, 1e100, -1e100, 0, 0, 0]],
    [{ name: 'Custom/Huge2' }, [-1e200, 0, 0, 0, 0, 0]],
  ]]);
  assert.deepEqual(metricsOf(p), [
    { name: 'Custom/A', scope: '', stats: { count: 1, total: 2, exclusive: 3, min: 4, max: 5, sumOfSquares: 6 } },
    { name: long.slice(0, 255), scope: `WebTransaction/${'S'.repeat(240)}`, stats: { count: 1, total: 1e100, exclusive: -1e100, min: 0, max: 0, sumOfSquares: 0 } },
  ]);
  assert.deepEqual([p.outOfRange, p.outOfRangeSample, p.names.length], [2, 'Custom/Huge', 3]);
});
