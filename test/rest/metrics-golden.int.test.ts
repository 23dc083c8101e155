import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FORM, golden, rest, startScenario, type Scenario } from './rest-scenario.js';

/*
 * Metric names and metric data, for an application and for a host and an instance of it, JSON
 * and XML, on the scenario of rest-scenario.ts (now = 14:30:20). Golden files are in
 * test/golden/rest/metrics/; the numbers the docs' examples lead clients to read are also
 * worked out here from the rows sent.
 *
 * checkout-web HttpDispatcher per minute (count, total s, exclusive s, min s, max s, sum of squares):
 *   14:22, 14:23  web-1a                   10,  2.0, 1.5, 0.05, 0.6, 0.6
 *   14:24         web-1a + web-1b          30,  5.0, 3.5, 0.02, 0.9, 1.6
 *   14:25, 14:26  web-1a + web-1b + web-2  35, 10.0, 7.5, 0.02, 2.5, 7.6
 *   all minutes                           120, 29.0, 21.5, 0.02, 2.5, 18.0
 */

let s: Scenario;
before(async () => {
  s = await startScenario();
});
after(() => s?.ts.stop());

const app = () => `/v2/applications/${s.checkout}`;
type Values = Record<string, number>;
const valuesOf = (reply: { json(): any }, metric: string): Values[] =>
  (reply.json().metric_data.metrics as { name: string; timeslices: { values: Values }[] }[])
    .find((m) => m.name === metric)!.timeslices.map((t) => t.values);

describe('GET …/metrics (names)', () => {
  it('lists every metric the application reported, with its value names', async () => {
    await golden(s.ts, 'metrics/names', 'GET', `${app()}/metrics.json`);
    await golden(s.ts, 'metrics/names-xml', 'GET', `/v2/applications/${s.billing}/metrics.xml`);
  });

  it('filters by a plain substring of the name, case-sensitive', async () => {
    const reply = await golden(s.ts, 'metrics/names-filter', 'GET', `${app()}/metrics.json?name=Apdex`);
    assert.deepEqual(reply.json().metrics.map((m: { name: string }) => m.name), ['Apdex', 'EndUser/Apdex']);
    await golden(s.ts, 'metrics/names-filter-none', 'GET', `${app()}/metrics.xml?name=apdex`);
    await golden(s.ts, 'metrics/names-filter-form-body', 'GET', `${app()}/metrics.json`, {
      body: 'name=Errors', headers: FORM, note: 'body (application/x-www-form-urlencoded): name=Errors',
    });
  });

  it('answers a page past the end with an empty list', async () => {
    await golden(s.ts, 'metrics/names-page-past-end', 'GET', `${app()}/metrics.json?page=2`);
  });

  it('lists what one host or one instance reported', async () => {
    const host = await golden(s.ts, 'metrics/names-host', 'GET', `${app()}/hosts/${s.hosts.web2}/metrics.json`);
    assert.deepEqual(host.json().metrics.map((m: { name: string }) => m.name), ['Apdex', 'Errors/all', 'HttpDispatcher', 'WebFrontend/QueueTime']);
    await golden(s.ts, 'metrics/names-instance-xml', 'GET', `${app()}/instances/${s.instances.web1a}/metrics.xml?name=EndUser`);
  });
});

describe('GET …/metrics/data', () => {
  it('default window: the last 30 minutes, one slice a minute, zeros where nothing was reported', async () => {
    const reply = await golden(s.ts, 'metrics/data-default', 'GET',
      `${app()}/metrics/data.json?names[]=HttpDispatcher&values[]=call_count&values[]=calls_per_minute&values[]=average_response_time`);
    const body = reply.json().metric_data;
    assert.equal(body.from, '2024-03-05T14:00:20+00:00');
    assert.equal(body.to, '2024-03-05T14:30:20+00:00');
    const slices = body.metrics[0].timeslices as { from: string; to: string; values: Values }[];
    assert.equal(slices.length, 30);
    assert.equal(slices[0]!.from, '2024-03-05T14:00:00+00:00');
    assert.equal(slices[29]!.to, '2024-03-05T14:30:00+00:00');
    const counts = slices.map((t) => t.values.call_count);
    assert.deepEqual(counts.slice(22, 27), [10, 10, 30, 35, 35]);
    assert.equal(counts.reduce((a, b) => a! + b!, 0), 120);
    // One-minute slices: calls per minute = calls.
    assert.deepEqual(slices.map((t) => t.values.calls_per_minute), counts);
    // 14:24: 5 s / 30 calls = 166.7 ms; 14:25: 10 s / 35 = 285.7 ms.
    assert.deepEqual(slices.slice(22, 27).map((t) => t.values.average_response_time), [200, 200, 167, 286, 286]);
    await golden(s.ts, 'metrics/data-default-xml', 'GET', `${app()}/metrics/data.xml?names[]=Apdex&values[]=score`);
  });

  it('summarize over the default window: every metric of the scenario', async () => {
    const names = ['HttpDispatcher', 'WebFrontend/QueueTime', 'Apdex', 'Errors/all', 'OtherTransaction/all', 'EndUser', 'EndUser/Apdex'];
    const query = `${names.map((n) => `names[]=${encodeURIComponent(n)}`).join('&')}&summarize=true`;
    const reply = await golden(s.ts, 'metrics/data-summarize', 'GET', `${app()}/metrics/data.json?${query}`);
    const [http] = valuesOf(reply, 'HttpDispatcher');
    // 29 s / 120 calls = 241.7 ms; 120 calls over the 30 minutes 14:00–14:30 = 4 a minute;
    // 29 s / 30 min = 0.967 s a minute; sd = √(18/120 − (29/120)²) = 0.30265 s.
    assert.deepEqual(
      [http!.average_response_time, http!.calls_per_minute, http!.call_count, http!.min_response_time, http!.max_response_time,
        http!.average_value, http!.total_call_time_per_minute, http!.requests_per_minute, http!.standard_deviation, http!.average_call_time],
      [242, 4, 120, 20, 2500, 0.242, 0.967, 4, 303, 242],
    );
    // Queue time: 1.8 s over 120 requests = 15 ms.
    assert.deepEqual([valuesOf(reply, 'WebFrontend/QueueTime')[0]!.average_response_time, valuesOf(reply, 'WebFrontend/QueueTime')[0]!.call_count], [15, 120]);
    // Apdex S 87, T 21, F 12 → (87 + 21/2) / 120 = 0.8125, shown with 2 decimals as on the overview.
    const [apdex] = valuesOf(reply, 'Apdex');
    assert.deepEqual([apdex!.s, apdex!.t, apdex!.f, apdex!.count, apdex!.score, apdex!.threshold], [87, 21, 12, 120, 0.81, 0.5]);
    // 10 errors in 30 minutes.
    assert.deepEqual(valuesOf(reply, 'Errors/all')[0], { errors_per_minute: 0.333, error_count: 10 });
    assert.equal(valuesOf(reply, 'OtherTransaction/all')[0]!.call_count, 10);
    // EndUser: 50 s over 25 page loads; EndUser/Apdex (20 + 5/2) / 25.
    assert.equal(valuesOf(reply, 'EndUser')[0]!.average_response_time, 2000);
    assert.equal(valuesOf(reply, 'EndUser/Apdex')[0]!.score, 0.9);
    await golden(s.ts, 'metrics/data-summarize-xml', 'GET', `${app()}/metrics/data.xml?${query}`);
  });

  it("average_exclusive_time is the spec's average(V['totalExclusive'] / V['count']) * 1000: the mean of the harvests' ratios", async () => {
    const reply = await rest(s.ts, 'GET', `${app()}/metrics/data.json?names[]=HttpDispatcher&values[]=average_exclusive_time&summarize=true`);
    // Harvest by harvest the ratios are 0.15 (×5), 0.1 (×3) and 0.8 (×2): their mean is 0.265 s. The pooled
    // 21.5 s / 120 calls = 179 ms is what NRQL's average(V, exclusiveTime: true) gives; spec §4.5 maps the REST
    // value to the per-point form, and REST must equal its NRQL (docs/rest-api.md).
    assert.equal(valuesOf(reply, 'HttpDispatcher')[0]!.average_exclusive_time, 265);
  });

  it('from/to with %2B and non-UTC offsets answer in UTC; period coarsens the series', async () => {
    const url = `${app()}/metrics/data.json?names[]=HttpDispatcher&from=2024-03-05T16:20:00%2B02:00&to=2024-03-05T09:30:00-05:00&period=300`
      + '&values[]=average_response_time&values[]=calls_per_minute&values[]=call_count';
    const reply = await golden(s.ts, 'metrics/data-offsets-period', 'GET', url);
    const body = reply.json().metric_data;
    assert.deepEqual([body.from, body.to], ['2024-03-05T14:20:00+00:00', '2024-03-05T14:30:00+00:00']);
    // 14:20–14:25: 50 calls, 9 s → 180 ms, 10 a minute; 14:25–14:30: 70 calls, 20 s → 285.7 ms, 14 a minute.
    assert.deepEqual(valuesOf(reply, 'HttpDispatcher'), [
      { average_response_time: 180, calls_per_minute: 10, call_count: 50 },
      { average_response_time: 286, calls_per_minute: 14, call_count: 70 },
    ]);
    await golden(s.ts, 'metrics/data-offsets-xml', 'GET',
      `${app()}/metrics/data.xml?names[]=Apdex&from=2024-03-05T22:21:30%2B08:00&to=2024-03-05T14:27:10Z&values[]=s&values[]=score`);
  });

  it('a period longer than the range gives one slice reaching back a whole period', async () => {
    const reply = await golden(s.ts, 'metrics/data-period-longer-than-range', 'GET',
      `${app()}/metrics/data.json?names[]=HttpDispatcher&from=2024-03-05T14:20:00Z&to=2024-03-05T14:30:00Z&period=3600&values[]=call_count`);
    const slices = reply.json().metric_data.metrics[0].timeslices;
    assert.deepEqual(slices, [{ from: '2024-03-05T13:30:00+00:00', to: '2024-03-05T14:30:00+00:00', values: { call_count: 120 } }]);
  });

  it('a window long past: about ten points, all zero for a metric the application knows', async () => {
    await golden(s.ts, 'metrics/data-old-window', 'GET',
      `${app()}/metrics/data.json?names[]=Errors/all&from=2024-02-20T00:00:00Z&to=2024-02-21T00:00:00Z`);
  });

  it('values[] picks, per metric, the requested values it offers, in request order', async () => {
    const reply = await golden(s.ts, 'metrics/data-values-subset', 'GET',
      `${app()}/metrics/data.json?names[]=HttpDispatcher&names[]=Apdex&names[]=Errors/all&values[]=score&values[]=call_count&values[]=average_response_time&values[]=no_such_value&summarize=true`);
    assert.deepEqual(valuesOf(reply, 'HttpDispatcher')[0], { call_count: 120, average_response_time: 242 });
    assert.deepEqual(valuesOf(reply, 'Apdex')[0], { score: 0.81 });
    assert.deepEqual(valuesOf(reply, 'Errors/all')[0], {});
  });

  it('raw=true leaves the numbers unrounded', async () => {
    const reply = await golden(s.ts, 'metrics/data-raw', 'GET',
      `${app()}/metrics/data.json?names[]=HttpDispatcher&names[]=Apdex&summarize=true&raw=true&values[]=average_response_time&values[]=standard_deviation&values[]=score&values[]=call_count`);
    const [http] = valuesOf(reply, 'HttpDispatcher');
    assert.ok(Math.abs(http!.average_response_time! - 29000 / 120) < 1e-9);
    assert.ok(Math.abs(http!.standard_deviation! - 1000 * Math.sqrt(18 / 120 - (29 / 120) ** 2)) < 1e-6);
    assert.equal(valuesOf(reply, 'Apdex')[0]!.score, 0.8125);
    await golden(s.ts, 'metrics/data-raw-xml', 'GET',
      `${app()}/metrics/data.xml?names[]=HttpDispatcher&summarize=1&raw=1&values[]=total_call_time_per_minute&values[]=average_value`);
  });

  it('unknown names, and a name the application never reported, are in metrics_not_found', async () => {
    const reply = await golden(s.ts, 'metrics/data-not-found', 'GET',
      `/v2/applications/${s.billing}/metrics/data.json?names[]=No/Such/Metric&names[]=HttpDispatcher&names[]=WebFrontend/QueueTime&values[]=call_count&summarize=true`);
    const body = reply.json().metric_data;
    assert.deepEqual(body.metrics_not_found, ['No/Such/Metric', 'WebFrontend/QueueTime']);
    assert.deepEqual(body.metrics_found, ['HttpDispatcher']);
    // billing-worker: 2 minutes × 4 calls.
    assert.equal(body.metrics[0].timeslices[0].values.call_count, 8);
    await golden(s.ts, 'metrics/data-none-found-xml', 'GET', `/v2/applications/${s.billing}/metrics/data.xml?names[]=EndUser&names[]=Errors/all`);
  });

  it('reads a form-encoded GET body, merged with the query string', async () => {
    const reply = await golden(s.ts, 'metrics/data-form-body', 'GET', `${app()}/metrics/data.json?names[]=Errors/all`, {
      body: 'names[]=HttpDispatcher&names[]=Errors%2Fall&values[]=call_count&values[]=error_count&summarize=true&from=2024-03-05T14:20:00%2B00:00',
      headers: FORM,
      note: 'body (application/x-www-form-urlencoded): names[]=HttpDispatcher&names[]=Errors%2Fall&values[]=call_count&values[]=error_count&summarize=true&from=2024-03-05T14:20:00%2B00:00',
    });
    assert.deepEqual(reply.json().metric_data.metrics_found, ['Errors/all', 'HttpDispatcher']);
    assert.equal(reply.json().metric_data.from, '2024-03-05T14:20:00+00:00');
    await golden(s.ts, 'metrics/data-name-alias', 'GET', `${app()}/metrics/data.json?name=Apdex&summarize=true&values[]=score`);
  });

  it('a host: only its instances\' data', async () => {
    const web1 = await golden(s.ts, 'metrics/data-host', 'GET',
      `${app()}/hosts/${s.hosts.web1}/metrics/data.json?names[]=HttpDispatcher&names[]=EndUser&summarize=true&values[]=call_count&values[]=average_response_time`);
    // web-1: 5×10 + 3×20 = 110 calls, 10 + 9 = 19 s → 172.7 ms.
    assert.deepEqual(valuesOf(web1, 'HttpDispatcher')[0], { call_count: 110, average_response_time: 173 });
    const web2 = await golden(s.ts, 'metrics/data-host-xml', 'GET',
      `${app()}/hosts/${s.hosts.web2}/metrics/data.xml?names[]=HttpDispatcher&names[]=EndUser&from=2024-03-05T14:24:00Z&to=2024-03-05T14:27:00Z&values[]=call_count&values[]=average_response_time`);
    assert.match(web2.text, /<metrics_not_found><metric>EndUser<\/metric><\/metrics_not_found>/);
    // web-2: 5 calls, 5 s a minute in 14:25 and 14:26 → 1000 ms.
    assert.equal((web2.text.match(/<average_response_time>1000<\/average_response_time>/g) ?? []).length, 2);
  });

  it('an instance: only its own data', async () => {
    const reply = await golden(s.ts, 'metrics/data-instance', 'GET',
      `${app()}/instances/${s.instances.web1b}/metrics/data.json?names[]=HttpDispatcher&names[]=Apdex&summarize=true&values[]=call_count&values[]=average_response_time&values[]=score`);
    // web-1b: 3 minutes × 20 calls, 3 s → 150 ms; Apdex 3 × (15, 4, 1) → (45 + 6) / 60 = 0.85.
    assert.deepEqual(valuesOf(reply, 'HttpDispatcher')[0], { call_count: 60, average_response_time: 150 });
    assert.deepEqual(valuesOf(reply, 'Apdex')[0], { score: 0.85 });
    await golden(s.ts, 'metrics/data-instance-xml', 'GET',
      `${app()}/instances/${s.instances.web2}/metrics/data.xml?names[]=Apdex&from=2024-03-05T14:25:00Z&to=2024-03-05T14:27:00Z`);
  });
});
