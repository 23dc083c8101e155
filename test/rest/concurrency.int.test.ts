import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connectApp, ManualClock, rest, sendMetrics, startTestServer } from '../helpers/rest-fixture.js';

const clock = new ManualClock(Date.parse('2026-11-22T12:00:30Z'));
const ts = await startTestServer({}, { clock });
after(() => ts.stop());

test('REST reads running beside agent writes: every request answers 200 and the end state counts every harvest once', async () => {
  const agents = await Promise.all([connectApp(ts, 'busy', 'web-1', 1), connectApp(ts, 'busy', 'web-2', 2)]);
  const appId = agents[0]!.appId;
  const first = Date.parse('2026-11-22T11:35:00Z');
  const writes = Array.from({ length: 20 }, (_, i) => {
    const agent = agents[i % 2]!;
    const begin = first + Math.floor(i / 2) * 60_000;
    return sendMetrics(ts, agent.runId, begin, begin + 60_000, [
      ['HttpDispatcher', '', [i + 1, (i + 1) * 0.1, 0, 0.01, 0.2, 0.05]],
      ['Apdex', '', [i + 1, 0, 0, 0.5, 0.5, 0]],
    ]);
  });
  const urls = [
    `/v2/applications/${appId}/metrics/data.json?names[]=HttpDispatcher&names[]=Apdex&summarize=true`,
    `/v2/applications/${appId}/metrics/data.xml?names[]=HttpDispatcher`,
    `/v2/applications/${appId}/metrics.json`,
    '/v2/applications.json',
    `/v2/applications/${appId}.xml`,
  ];
  const reads = Array.from({ length: 60 }, (_, i) => rest(ts, 'GET', urls[i % urls.length]!));
  const replies = await Promise.all([...reads, ...writes]);
  for (const reply of replies.slice(0, reads.length)) {
    assert.equal(reply!.status, 200, reply!.text.slice(0, 200));
  }
  const final = await rest(ts, 'GET', `/v2/applications/${appId}/metrics/data.json?names[]=HttpDispatcher&values[]=call_count&summarize=true&raw=true`);
  // 1 + 2 + … + 20 calls, each harvest stored once.
  assert.equal(final.json().metric_data.metrics[0].timeslices[0].values.call_count, 210);
});
