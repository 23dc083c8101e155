import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EvaluationCycle } from '../../src/alerts/alert-service.js';
import { agentQuery, invoke } from '../helpers/collector-client.js';
import { ManualClock, connectApp } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_LICENSE_KEY } from '../helpers/test-server.js';

const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;

test('data an agent harvests is evaluated shortly after its commit, not at the next minute timer', async () => {
  const clock = new ManualClock(T0);
  // The minute timer is ten minutes away: only the data can start a cycle within this test.
  const ts = await startTestServer({}, { clock, alertIntervalMs: 600_000 });
  try {
    const alerts = ts.server.alerts;
    const cycles: EvaluationCycle[] = [];
    alerts.onCycle((cycle) => cycles.push(cycle));
    const { policy } = await alerts.createPolicy(1, 'probes', 'PER_CONDITION');
    await alerts.createCondition(1, policy.id, {
      name: 'slow shop', enabled: true, query: "SELECT average(value) FROM Probe WHERE appName = 'shop'",
      signal: { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 0 },
      terms: [{ priority: 'CRITICAL', operator: 'ABOVE', threshold: 2, thresholdDuration: 120, thresholdOccurrences: 'ALL' }],
    });
    const agent = await connectApp(ts, 'shop', 'web-1', 4200);
    const harvest = async (minute: number, value: number) => {
      const events = [[{ type: 'Probe', timestamp: T0 + minute * MIN + 10_000 }, { value }]];
      const reply = await invoke(ts.server, { query: agentQuery('custom_event_data', TEST_LICENSE_KEY, agent.runId), body: [agent.runId, events] });
      assert.equal(reply.status, 200, reply.text);
    };
    const cycleAfter = async (count: number) => {
      const deadline = performance.now() + 30_000;
      while (cycles.length < count) {
        assert.ok(performance.now() < deadline, 'no cycle followed the harvest');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return cycles[count - 1]!;
    };
    // Minutes 0 and 1 breach (3 > 2); minute 2's data closes window 1, completing the 2-minute run.
    clock.ms = T0 + MIN + 20_000;
    await harvest(0, 3);
    assert.deepEqual((await cycleAfter(1)).opened, []);
    clock.ms = T0 + 2 * MIN + 20_000;
    await harvest(1, 3);
    assert.deepEqual((await cycleAfter(2)).opened, []);
    clock.ms = T0 + 3 * MIN + 20_000;
    const acked = performance.now();
    await harvest(2, 1);
    const cycle = await cycleAfter(3);
    assert.deepEqual(cycle.opened.map((i) => [i.conditionName, i.degradationAt - T0, i.openedAt - T0]), [['slow shop', 0, 2 * MIN]]);
    // Half a second of settling, then the cycle: well inside the minute the timer would have waited.
    assert.ok(cycle.committedAt - acked < 20_000, `incident committed ${Math.round(cycle.committedAt - acked)} ms after the data`);
    assert.equal((await ts.server.store.alerts.incidents(1, T0, T0 + 10 * MIN)).length, 1);
    // One pinned condition: one query a cycle.
    assert.deepEqual(cycles.map((c) => c.queries), [1, 1, 1]);
  } finally {
    await ts.stop();
  }
});
