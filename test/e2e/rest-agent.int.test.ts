import { test } from 'node:test';
import assert from 'node:assert/strict';
import { get } from 'node:http';
import type { Clock } from '../../src/clock.js';
import { withAgentApp } from '../helpers/agent-app.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY } from '../helpers/test-server.js';

/*
 * REST v2 metric data over what the real `newrelic` agent wrote: the uses of spec §4.1 rules
 * 3–5 and §7 (Apdex score, full Apdex values, response time from HttpDispatcher and
 * WebFrontend/QueueTime, a queue metric that does not exist, one that is zero).
 *
 * Three apps run test/e2e/fixtures/agent-app.cjs under the agent against an in-process server,
 * each with a planned list of requests; every expected number below is computed from that plan
 * and the apdex_t the agent received on connect, never from the server's code.
 *
 * Why in-process and not `timeslice serve`: a series ends at the current minute, which REST
 * leaves out as still being reported (rest-window.ts), and the agent's single harvest lands in
 * the minute it happens. Rather than wait up to a minute, the server's clock is moved two minutes
 * ahead once every agent has shut down; ingest ran on the real time.
 *
 * What the agent (13.x) does, read from node_modules/newrelic/lib:
 * - EndUser/Apdex: nothing in the Node agent produces it (no "EndUser" anywhere in its code).
 *   Browser Apdex comes from the browser agent's beacon, which Timeslice does not ingest, so
 *   here it is always in metrics_not_found.
 * - Queue time: header-processing.js reads X-Request-Start (or X-Queue-Start), takes the part
 *   after '=', and scales it to ms by magnitude (> 1e18 ns, > 1e15 µs, < 1e12 s); the
 *   transaction's queueTime is Date.now() − that. recorders/http.js records
 *   WebFrontend/QueueTime only if queueTime > 0: a header at or after the request start is
 *   not clamped to 0, it records nothing. So the agent cannot report a zero from a header; the
 *   fixture, asked by X-Test-Zero-Queue-Time, makes the recorder's own call
 *   tx.measure('WebFrontend/QueueTime', null, 0) (newrelic.recordMetric would name it
 *   Custom/WebFrontend/QueueTime). The zero thus travels the agent's normal harvest.
 */

const MINUTE_MS = 60_000;

type Kind = 'fast' | 'tolerating' | 'frustrating' | 'error';
/** The fixture's response times, in seconds (error: a 500 after 5 ms). */
const DURATION_S: Record<Kind, number> = { fast: 0.005, tolerating: 0.7, frustrating: 2.1, error: 0.005 };

/** X-Request-Start: none, 50 ms before sending (µs, as a load balancer writes it), or a minute ahead. */
type Queue = 'none' | 'past' | 'future';
interface Req { readonly kind: Kind; readonly queue: Queue; readonly zeroQueue: boolean }
interface Plan { readonly app: string; readonly requests: readonly Req[] }

const many = (n: number, kind: Kind, queue: Queue, zeroQueue = false): Req[] => Array.from({ length: n }, () => ({ kind, queue, zeroQueue }));
const PLANS = {
  /** Never sends a queue header: WebFrontend/QueueTime never exists. */
  noQueue: { app: 'rest-e2e-no-queue', requests: [...many(6, 'fast', 'none'), ...many(3, 'tolerating', 'none'), ...many(2, 'frustrating', 'none'), ...many(3, 'error', 'none')] },
  /** Every request queued about 50 ms. */
  queue: { app: 'rest-e2e-queue', requests: [...many(5, 'fast', 'past'), ...many(2, 'tolerating', 'past'), ...many(1, 'frustrating', 'past'), ...many(2, 'error', 'past')] },
  /** Headers from the future (the agent records nothing for them); three requests record a zero. */
  zeroQueue: { app: 'rest-e2e-zero-queue', requests: [...many(3, 'fast', 'future', true), ...many(2, 'fast', 'future'), ...many(1, 'tolerating', 'future'), ...many(1, 'error', 'future')] },
} satisfies Record<string, Plan>;

/** Apdex zone by the agent's rules: errors frustrate; otherwise ≤ T, ≤ 4T, beyond. */
function expectedApdex(plan: Plan, apdexT: number) {
  const z = { s: 0, t: 0, f: 0 };
  for (const { kind } of plan.requests) {
    const d = DURATION_S[kind];
    z[kind === 'error' ? 'f' : d <= apdexT ? 's' : d <= 4 * apdexT ? 't' : 'f']++;
  }
  const count = z.s + z.t + z.f;
  return { ...z, count, score: (z.s + z.t / 2) / count };
}

/** A clock the test can move ahead. */
class ShiftedClock implements Clock {
  offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
}

/** Runs one app under the agent, sends its plan, shuts it down; returns what it got on connect. */
async function runApp(plan: Plan, collectorPort: number, certPath: string, logDir: string): Promise<{ apdexT: number; appId: number }> {
  return withAgentApp({ appName: plan.app, licenseKey: TEST_LICENSE_KEY, collectorPort, certPath, logDir }, async (ready) => {
    await Promise.all(plan.requests.map(async (r, i) => {
      const headers: Record<string, string> = {};
      if (r.queue === 'past') headers['X-Request-Start'] = `t=${(Date.now() - 50) * 1000}`;
      if (r.queue === 'future') headers['X-Request-Start'] = `t=${(Date.now() + MINUTE_MS) * 1000}`;
      if (r.zeroQueue) headers['X-Test-Zero-Queue-Time'] = '1';
      const res = await fetch(`http://127.0.0.1:${ready.port}/${r.kind}/${i + 1}`, { headers });
      await res.text();
      assert.equal(res.status, r.kind === 'error' ? 500 : 200);
    }));
    return { apdexT: Number(ready.apdexT), appId: Number(ready.appId) };
  });
}

type Values = Record<string, number>;
interface MetricData {
  from: string;
  to: string;
  metrics_found: string[];
  metrics_not_found: string[];
  metrics: { name: string; timeslices: { from: string; to: string; values: Values }[] }[];
}

/** A GET over a socket; X-Timeslice-NRQL as its separate header lines (NRQL has commas, so no joining). */
function getJson(url: string): Promise<{ status: number; body: any; nrql: string[] }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'X-Api-Key': TEST_API_KEY } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { text += d; });
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode!, body: JSON.parse(text), nrql: res.headersDistinct['x-timeslice-nrql'] ?? [] });
        } catch (error) {
          reject(new Error(`${url}: ${res.statusCode} ${text}`, { cause: error }));
        }
      });
      res.on('error', reject);
    }).on('error', reject);
  });
}

const iso = (ms: number) => new Date(ms).toISOString();
const floorMinute = (ms: number) => Math.floor(ms / MINUTE_MS) * MINUTE_MS;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${what}: ${actual} ≠ ${expected}`);

test('REST v2 metric data over the real Node agent: Apdex, response time and queue time as the spec uses them', { timeout: 120_000 }, async (t) => {
  const clock = new ShiftedClock();
  const ts = await startTestServer({}, { clock });
  t.after(() => ts.stop());
  const { apiUrl, collectorPort, certPath } = ts.server;
  const startedMs = Date.now();

  const [noQueue, queue, zeroQueue] = await Promise.all([PLANS.noQueue, PLANS.queue, PLANS.zeroQueue]
    .map((plan) => runApp(plan, collectorPort, certPath, ts.dataDir)));
  const connected = { noQueue: noQueue!, queue: queue!, zeroQueue: zeroQueue! };
  // Every harvest is in; make the minutes they landed in complete (see the top of the file).
  clock.offsetMs = 2 * MINUTE_MS;

  const listing = await getJson(`${apiUrl}/v2/applications.json`);
  assert.equal(listing.status, 200);
  const apps = listing.body.applications as { id: number; name: string; settings: { app_apdex_threshold: number } }[];
  for (const [key, plan] of Object.entries(PLANS) as [keyof typeof PLANS, Plan][]) {
    const listed = apps.find((a) => a.name === plan.app);
    assert.ok(listed, `${plan.app} is listed`);
    assert.equal(listed.id, connected[key].appId, `${plan.app}: the id the agent was given`);
    assert.equal(listed.settings.app_apdex_threshold, connected[key].apdexT, `${plan.app}: the apdex_t the agent was given`);
    assert.ok(connected[key].apdexT > 0.005 && connected[key].apdexT < 0.7, `the plan assumes fast requests satisfy and tolerating ones do not (apdex_t ${connected[key].apdexT})`);
  }

  // One window for everything: from the minute before the run to now (the shifted clock).
  const fromMs = floorMinute(startedMs) - MINUTE_MS;
  const toMs = clock.now();
  const window = `from=${encodeURIComponent(iso(fromMs))}&to=${encodeURIComponent(iso(toMs))}`;
  const query = async (appId: number, params: string, names: string[], expectFound: string[]): Promise<MetricData> => {
    const url = `${apiUrl}/v2/applications/${appId}/metrics/data.json?${names.map((n) => `names[]=${encodeURIComponent(n)}`).join('&')}&${params}`;
    const { status, body, nrql } = await getJson(url);
    assert.equal(status, 200, `${url}: ${JSON.stringify(body)}`);
    const data = body.metric_data as MetricData;
    assert.equal(Date.parse(data.from), Date.parse(new URLSearchParams(params).get('from')!), `${url}: from echoed`);
    assert.equal(Date.parse(data.to), Math.floor(Date.parse(new URLSearchParams(params).get('to')!) / 1000) * 1000, `${url}: to echoed`);
    assert.deepEqual(data.metrics_found, expectFound, `${url}: metrics_found`);
    assert.deepEqual(data.metrics_not_found, names.filter((n) => !expectFound.includes(n)), `${url}: metrics_not_found`);
    assert.deepEqual(data.metrics.map((m) => m.name), expectFound);
    // One NRQL line per found metric, naming the application and the metric.
    assert.equal(nrql.length, expectFound.length, `${url}: X-Timeslice-NRQL lines ${JSON.stringify(nrql)}`);
    for (const [i, name] of expectFound.entries()) {
      assert.match(nrql[i]!, /^SELECT .+ FROM Metric WHERE /, `NRQL for ${name}`);
      assert.ok(nrql[i]!.includes(`appId = ${appId} `), `NRQL for ${name} names app ${appId}: ${nrql[i]}`);
      assert.ok(nrql[i]!.includes(`metricTimesliceName = '${name}'`), `NRQL for ${name} names it: ${nrql[i]}`);
    }
    return data;
  };
  const summarized = (data: MetricData, name: string): Values => {
    const m = data.metrics.find((x) => x.name === name)!;
    assert.equal(m.timeslices.length, 1, `${name}: summarize gives one slice`);
    assert.equal(Date.parse(m.timeslices[0]!.from), floorMinute(fromMs), `${name}: summarized from`);
    assert.equal(Date.parse(m.timeslices[0]!.to), floorMinute(toMs) - 1000, `${name}: summarized to (one second before the last minute ends)`);
    return m.timeslices[0]!.values;
  };
  const series = (data: MetricData, name: string): Values[] => {
    const slices = data.metrics.find((x) => x.name === name)!.timeslices;
    assert.equal(slices.length, (floorMinute(toMs) - floorMinute(fromMs)) / MINUTE_MS, `${name}: one slice per minute`);
    slices.forEach((s, k) => {
      assert.equal(Date.parse(s.from), floorMinute(fromMs) + k * MINUTE_MS, `${name}: slice ${k} from`);
      assert.equal(Date.parse(s.to), Date.parse(s.from) + MINUTE_MS, `${name}: slice ${k} to`);
    });
    return slices.map((s) => s.values);
  };

  for (const [key, plan] of Object.entries(PLANS) as [keyof typeof PLANS, Plan][]) {
    const { appId, apdexT } = connected[key];
    const expected = expectedApdex(plan, apdexT);

    // §4.1 rule 3: average Apdex score of app and browser. The Node agent sends no browser data.
    const scores = await query(appId, `values[]=score&summarize=true&raw=true&${window}`, ['Apdex', 'EndUser/Apdex'], ['Apdex']);
    assert.deepEqual(summarized(scores, 'Apdex'), { score: expected.score }, `${plan.app}: Apdex score`);

    // §4.1 rule 4: full Apdex values.
    const full = await query(appId, `summarize=true&raw=true&${window}`, ['Apdex', 'EndUser/Apdex'], ['Apdex']);
    assert.deepEqual(summarized(full, 'Apdex'), {
      s: expected.s, t: expected.t, f: expected.f, count: expected.count,
      score: expected.score, value: expected.score, threshold: apdexT, threshold_min: apdexT,
    }, `${plan.app}: Apdex values against apdex_t ${apdexT}`);
  }

  // §4.1 rule 5: response time = HttpDispatcher average_call_time + queue call_count × queue average_response_time / HttpDispatcher call_count.
  const dispatcherValues = 'values[]=average_call_time&values[]=call_count';
  const queueValues = 'values[]=call_count&values[]=average_response_time';
  for (const [key, plan] of Object.entries(PLANS) as [keyof typeof PLANS, Plan][]) {
    const { appId } = connected[key];
    const requests = plan.requests.length;
    const hasQueue = plan.requests.some((r) => r.queue === 'past' || r.zeroQueue);

    const dispatcher = summarized(await query(appId, `${dispatcherValues}&summarize=true&raw=true&${window}`, ['HttpDispatcher'], ['HttpDispatcher']), 'HttpDispatcher');
    assert.deepEqual(Object.keys(dispatcher), ['average_call_time', 'call_count']);
    assert.equal(dispatcher.call_count, requests, `${plan.app}: HttpDispatcher call_count = requests made`);
    // The agent times real requests: at least the planned delays (less 2 ms of timer slack), at most 300 ms more on average.
    const plannedMs = sum(plan.requests.map((r) => DURATION_S[r.kind] * 1000)) / requests;
    assert.ok(dispatcher.average_call_time! >= plannedMs - 2 && dispatcher.average_call_time! <= plannedMs + 300,
      `${plan.app}: average_call_time ${dispatcher.average_call_time} ms for planned ${plannedMs} ms`);

    // §7 / §2.2: a queue metric that was never reported does not exist.
    const queueData = await query(appId, `${queueValues}&summarize=true&raw=true&${window}`, ['WebFrontend/QueueTime'], hasQueue ? ['WebFrontend/QueueTime'] : []);
    const queue = hasQueue ? summarized(queueData, 'WebFrontend/QueueTime') : { call_count: 0, average_response_time: 0 };
    if (!hasQueue) assert.deepEqual(queueData.metrics, []);
    const responseTime = dispatcher.average_call_time! + (queue.call_count! * queue.average_response_time!) / dispatcher.call_count!;
    assert.ok(Number.isFinite(responseTime));

    if (key === 'queue') {
      assert.equal(queue.call_count, requests, 'every request with a past X-Request-Start recorded queue time');
      // The header said 50 ms before sending; the agent subtracts it from its own Date.now() on arrival.
      assert.ok(queue.average_response_time! >= 50 && queue.average_response_time! < 1000, `queue average ${queue.average_response_time} ms`);
      assert.ok(responseTime >= plannedMs - 2 + 50, `response time ${responseTime} ms includes the queueing`);
    } else if (key === 'zeroQueue') {
      // §7: zero queueing gives the metric with zeros. Only the three recorded zeros count: the
      // future headers added nothing, not even a call.
      assert.equal(queue.call_count, plan.requests.filter((r) => r.zeroQueue).length, 'queue call_count: the recorded zeros only');
      assert.equal(queue.average_response_time, 0, 'zero queue time averages to 0');
      assert.equal(responseTime, dispatcher.average_call_time, 'zero queueing adds nothing to the response time');
    } else {
      assert.equal(responseTime, dispatcher.average_call_time);
    }

    // The same two requests as a per-minute series: the slices add up to the summary, each slice's formula is finite.
    const dispatcherSeries = series(await query(appId, `${dispatcherValues}&raw=true&${window}`, ['HttpDispatcher'], ['HttpDispatcher']), 'HttpDispatcher');
    const queueSeries = hasQueue
      ? series(await query(appId, `${queueValues}&raw=true&${window}`, ['WebFrontend/QueueTime'], ['WebFrontend/QueueTime']), 'WebFrontend/QueueTime')
      : dispatcherSeries.map(() => ({ call_count: 0, average_response_time: 0 }));
    assert.equal(sum(dispatcherSeries.map((v) => v.call_count!)), dispatcher.call_count, `${plan.app}: series HttpDispatcher call_count adds up`);
    assert.equal(sum(queueSeries.map((v) => v.call_count!)), queue.call_count, `${plan.app}: series QueueTime call_count adds up`);
    close(sum(dispatcherSeries.map((v) => v.average_call_time! * v.call_count!)), dispatcher.average_call_time! * dispatcher.call_count!, `${plan.app}: series HttpDispatcher time adds up`);
    close(sum(queueSeries.map((v) => v.average_response_time! * v.call_count!)), queue.average_response_time! * queue.call_count!, `${plan.app}: series queue time adds up`);
    let weighted = 0;
    for (const [k, d] of dispatcherSeries.entries()) {
      const q = queueSeries[k]!;
      if (d.call_count === 0) {
        // A minute without requests: zeros (the formula has nothing to divide by).
        assert.deepEqual(d, { average_call_time: 0, call_count: 0 }, `${plan.app}: slice ${k} HttpDispatcher`);
        assert.deepEqual(q, { call_count: 0, average_response_time: 0 }, `${plan.app}: slice ${k} queue`);
        continue;
      }
      const slice = d.average_call_time! + (q.call_count! * q.average_response_time!) / d.call_count!;
      assert.ok(Number.isFinite(slice) && slice >= d.average_call_time!, `${plan.app}: slice ${k} response time ${slice}`);
      weighted += slice * d.call_count!;
    }
    close(weighted / dispatcher.call_count!, responseTime, `${plan.app}: the series' response time averages to the summarized one`);
  }

  // A window in which a known metric has no data: zeros, not metrics_not_found.
  const quiet = `from=${encodeURIComponent(iso(fromMs - 20 * MINUTE_MS))}&to=${encodeURIComponent(iso(fromMs - 10 * MINUTE_MS))}`;
  for (const key of ['queue', 'zeroQueue'] as const) {
    const { appId } = connected[key];
    const names = ['HttpDispatcher', 'WebFrontend/QueueTime', 'Apdex'];
    const sum1 = await query(appId, `summarize=true&raw=true&${quiet}`, names, names);
    for (const m of sum1.metrics) {
      for (const [value, n] of Object.entries(m.timeslices[0]!.values)) assert.equal(n, 0, `${key}: ${m.name} ${value} in a quiet window`);
    }
    const quietSeries = await query(appId, `${queueValues}&raw=true&${quiet}`, ['WebFrontend/QueueTime'], ['WebFrontend/QueueTime']);
    const slices = quietSeries.metrics[0]!.timeslices;
    assert.equal(slices.length, 10);
    for (const s of slices) assert.deepEqual(s.values, { call_count: 0, average_response_time: 0 });
  }
});
