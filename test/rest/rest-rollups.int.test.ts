import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connectApp, ManualClock, rest, sendMetrics, startTestServer, TEST_API_KEY } from '../helpers/rest-fixture.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const clock = new ManualClock(Date.parse('2026-11-10T12:00:30Z'));
const ts = await startTestServer({ TIMESLICE_COMPACT_EVERY_MS: '0', TIMESLICE_UPKEEP_EVERY_MS: '0' }, { clock });
after(() => ts.stop());

/**
 * Equal JSON, numbers to 12 significant figures: average_exclusive_time averages per-minute
 * ratios, which rollups sum in another order (the last bits may differ); every other value is exact.
 */
function assertSame(actual: unknown, expected: unknown, what: string): void {
  const round = (_: string, v: unknown) => (typeof v === 'number' ? Number(v.toPrecision(12)) : v);
  assert.deepEqual(JSON.parse(JSON.stringify(actual, round)), JSON.parse(JSON.stringify(expected, round)), what);
}

async function nrql(query: string): Promise<{ results: Record<string, number>[]; metadata: { messages: string[] } }> {
  const answer = await ts.server.api.inject({ method: 'POST', url: '/timeslice/v1/nrql', headers: { 'api-key': TEST_API_KEY }, payload: { query } });
  assert.equal(answer.statusCode, 200, answer.body);
  return JSON.parse(answer.body);
}

test('REST and NRQL answer the same from hourly rollups, say so, and keep answering once 1-minute data expired', async () => {
  const app = await connectApp(ts, 'rollup-app', 'r-1', 11);
  const day = Date.parse('2026-11-10T00:00:00Z');
  const callsAt = (m: number) => 1 + ((m / 20) % 7);
  for (let m = 0; m < 10 * 60; m += 20) {
    const k = m / 20;
    const begin = day + m * 60_000;
    await sendMetrics(ts, app.runId, begin, begin + 60_000, [
      ['HttpDispatcher', '', [callsAt(m), 0.125 * (k % 5) + 0.5, 0.25 + 0.125 * (k % 3), 0.125, 0.5 + 0.125 * (k % 3), 0.375 * k]],
      ['Apdex', '', [k % 4, 1, k % 2, 0.5, 0.5, 0]],
    ]);
  }
  const base = `/v2/applications/${app.appId}/metrics/data.json?names[]=HttpDispatcher&names[]=Apdex&raw=true&from=2026-11-10T01:00:00Z&to=2026-11-10T09:00:00Z`;
  const queries = [`${base}&summarize=true`, `${base}&period=3600`];
  const before = await Promise.all(queries.map((q) => rest(ts, 'GET', q)));
  for (const reply of before) {
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.headers['x-timeslice-resolution'], 'minute');
  }
  const summary = before[0]!.json().metric_data.metrics;
  // 24 harvests in [01:00, 09:00): call counts 1 + (m mod 7) for m = 60, 80, …, 520.
  let calls = 0;
  for (let m = 60; m < 540; m += 20) calls += callsAt(m);
  assert.equal(summary[0].timeslices[0].values.call_count, calls);

  const report = await ts.server.store.maintain();
  assert.equal(report.hoursRolledUp, 10, 'hours 00:00 to 10:00; 10:00–11:00 held no data and 11:00 has not closed an hour ago');
  for (const [i, q] of queries.entries()) {
    const reply = await rest(ts, 'GET', q);
    assert.equal(reply.headers['x-timeslice-resolution'], 'hour', q);
    assertSame(reply.json(), before[i]!.json(), `${q}: the same answer from rollups`);
    // Each metric's NRQL gives the same numbers and says the rollups answered it.
    for (const [k, line] of (reply.headers['x-timeslice-nrql'] as string[]).entries()) {
      const answer = await nrql(line);
      assert.ok(answer.metadata.messages.includes('Metric timeslices were read from hourly rollups'), line);
      const metric = reply.json().metric_data.metrics[k];
      assert.equal(answer.results.length, metric.timeslices.length, line);
      // The graph API runs the same engine: the same numbers and the same message.
      const graph = await ts.server.api.inject({
        method: 'POST', url: '/graphql', headers: { 'api-key': TEST_API_KEY },
        payload: { query: 'query ($q: Nrql!) { actor { account(id: 1) { nrql(query: $q) { results metadata { messages } } } } }', variables: { q: line } },
      });
      const nrqlField = JSON.parse(graph.body).data.actor.account.nrql;
      assertSame(nrqlField.results, answer.results, `${line} through the graph API`);
      assert.deepEqual(nrqlField.metadata.messages, answer.metadata.messages);
    }
  }

  // Nine days later the 1-minute timeslices have expired; the rollups answer the same.
  clock.ms += 9 * DAY;
  const later = await ts.server.store.maintain();
  assert.equal(later.deleted.timeslices, 60, '30 harvests × 2 metrics');
  for (const [i, q] of queries.entries()) {
    const reply = await rest(ts, 'GET', q);
    assert.equal(reply.headers['x-timeslice-resolution'], 'hour', q);
    assertSame(reply.json(), before[i]!.json(), `${q}: the same answer once the minutes are gone`);
  }
  // Old data, default period: about 10 points of whole hours (7 h 40 min → 1 h), ending at to's hour.
  const old = await rest(ts, 'GET', `/v2/applications/${app.appId}/metrics/data.json?names[]=HttpDispatcher&values[]=call_count&from=2026-11-10T01:10:00Z&to=2026-11-10T08:50:00Z`);
  const slices = old.json().metric_data.metrics[0].timeslices as { from: string; to: string; values: { call_count: number } }[];
  assert.deepEqual([slices.length, slices[0]!.from, slices.at(-1)!.to], [7, '2026-11-10T01:00:00+00:00', '2026-11-10T08:00:00+00:00']);
  assert.equal(old.headers['x-timeslice-resolution'], 'hour');
  // NRQL buckets laid back from an UNTIL off the hour: past the minutes' retention each hour's rollup
  // counts in the bucket it begins in; the half hours at the ends had only minutes, now expired.
  const series = await nrql(`SELECT count(newrelic.timeslice.value) AS calls FROM Metric WHERE appId = ${app.appId} AND metricTimesliceName = 'HttpDispatcher'`
    + ` SINCE ${day + 90 * 60_000} UNTIL ${day + 9.5 * HOUR} TIMESERIES 1 hour`);
  const hourSums = (h: number) => [0, 20, 40].reduce((sum, m) => sum + callsAt(h * 60 + m), 0);
  assert.deepEqual(series.results.map((r) => r.calls), [2, 3, 4, 5, 6, 7, 8].map(hourSums).concat([0]));
  assert.ok(series.metadata.messages.some((m) => m.startsWith('Metric timeslices were read from hourly rollups')));
  // 01:00 to 08:00: the hour from 08:00 left out.
  assert.equal(slices.reduce((sum, s) => sum + s.values.call_count, 0), calls - hourSums(8));
});
