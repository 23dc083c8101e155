import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import { AlertValidationError } from '../../src/alerts/alert-service.js';
import { ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;

async function probes(ts: TestServer, accountId: number, host: string, values: ReadonlyArray<[minute: number, value: number]>): Promise<void> {
  const rows = new Rows(CUSTOM_EVENTS);
  for (const [minute, value] of values) rows.push(accountId, 0, 0, 0, T0 + minute * MIN + 10_000, 'Probe', JSON.stringify({ host, value }));
  await ts.server.writer.write([rows]);
}

test('a condition reads its account through NRQL, and its incident and issue survive a restart without reopening', async () => {
  const clock = new ManualClock(T0);
  const ts = await startTestServer({}, { clock, alertIntervalMs: 0 });
  try {
    const other = await ts.server.catalog.createAccount('other');
    const alerts = () => ts.server.alerts;
    const { policy } = await alerts().createPolicy(1, 'probes', 'PER_CONDITION');
    const { condition } = await alerts().createCondition(1, policy.id, {
      name: 'probe value', enabled: true, query: 'SELECT average(value) FROM Probe FACET host',
      signal: { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 0 },
      terms: [{ priority: 'CRITICAL', operator: 'ABOVE', threshold: 2, thresholdDuration: 120, thresholdOccurrences: 'ALL' }],
    });
    assert.deepEqual(condition.facets, ['host']);
    // host-a: 1 then 3s; the other account's host-c breaches hugely but is not this condition's data.
    await probes(ts, 1, 'host-a', [[0, 1], [1, 3], [1, 3], [2, 3], [3, 3]]);
    await probes(ts, other.id, 'host-c', [[0, 100], [1, 100], [2, 100], [3, 100]]);
    clock.ms = T0 + 4 * MIN;
    const cycle = await alerts().evaluateOnce();
    assert.deepEqual({ conditions: cycle.conditions, queries: cycle.queries, failures: cycle.failures }, { conditions: 1, queries: 1, failures: 0 });
    // Windows 0..2 closed (watermark: window 3): 1, 3, 3 → two breaching points open the incident.
    let incidents = await ts.server.store.alerts.incidents(1, T0, T0 + 10 * MIN);
    assert.equal(incidents.length, 1);
    assert.deepEqual(
      { host: incidents[0]!.facets.host, degradationAt: incidents[0]!.degradationAt - T0, openedAt: incidents[0]!.openedAt - T0, closedAt: incidents[0]!.closedAt },
      { host: 'host-a', degradationAt: 1 * MIN, openedAt: 3 * MIN, closedAt: null },
    );
    assert.equal(alerts().alertSeverity(1, { names: ['host-a'] }), 'CRITICAL');
    assert.equal(alerts().alertSeverity(other.id, { names: ['host-c'] }), 'NOT_CONFIGURED');
    assert.deepEqual(await ts.server.store.alerts.incidents(other.id, T0, T0 + 10 * MIN), []);

    await ts.restart();
    clock.ms = T0 + 5 * MIN;
    assert.equal(alerts().alertSeverity(1, { names: ['host-a'] }), 'CRITICAL', 'open incident restored');
    await alerts().evaluateOnce();
    incidents = await ts.server.store.alerts.incidents(1, T0, T0 + 10 * MIN);
    assert.equal(incidents.length, 1, 'the same windows read again after the restart open nothing new');

    // Recovery: 1s at minutes 4..6 close windows 4 and 5 → the close is back-dated to minute 4.
    await probes(ts, 1, 'host-a', [[4, 1], [5, 1], [6, 1]]);
    clock.ms = T0 + 7 * MIN;
    await alerts().evaluateOnce();
    incidents = await ts.server.store.alerts.incidents(1, T0, T0 + 10 * MIN);
    assert.deepEqual(incidents.map((i) => [i.closeCause, (i.closedAt ?? 0) - T0]), [['EVALUATOR', 4 * MIN]]);
    const issues = await ts.server.store.alerts.issues(1, T0, T0 + 10 * MIN);
    assert.deepEqual(issues.map((i) => [i.state, i.priority, i.incidentIds.length, i.closedAt! - T0]), [['CLOSED', 'CRITICAL', 1, 7 * MIN]]);
    assert.equal(alerts().alertSeverity(1, { names: ['host-a'] }), 'NOT_ALERTING');
  } finally {
    await ts.stop();
  }
});

test('a condition whose query does not parse, or is not an aggregate, is refused with its position and not stored', async () => {
  const ts = await startTestServer({}, { clock: new ManualClock(T0), alertIntervalMs: 0 });
  try {
    const { policy } = await ts.server.alerts.createPolicy(1, 'p');
    const term = { priority: 'CRITICAL' as const, operator: 'ABOVE' as const, threshold: 1, thresholdDuration: 120, thresholdOccurrences: 'ALL' as const };
    const reasons = async (query: string) => {
      try {
        await ts.server.alerts.createCondition(1, policy.id, { name: 'bad', enabled: true, query, terms: [term] });
      } catch (error) {
        if (error instanceof AlertValidationError) return error.validationErrors;
        throw error;
      }
      return [];
    };
    assert.deepEqual(await reasons('SELECT duration FROM Transaction'), [
      { name: 'nrql.query', reason: 'An alert condition query must select an aggregate function such as average(), count(*) or percentile() (at line 1, column 8)' },
    ]);
    const unknown = await reasons('SELECT averag(duration) FROM Transaction');
    assert.equal(unknown.length, 1);
    assert.match(unknown[0]!.reason, /averag.*\(at line 1, column 8\)$/);
    const broken = await reasons('SELECT average(duration) FROM');
    assert.match(broken[0]!.reason, /\(at line 1, column \d+\)$/);
    assert.deepEqual(await reasons('SELECT count(*) FROM Transaction SINCE 1 hour ago'), [
      { name: 'nrql.query', reason: "An alert condition query cannot use SINCE: the condition's signal settings choose its time windows" },
    ]);
    assert.deepEqual(ts.server.alerts.conditions(1), []);
    const rows = await ts.server.db.all<{ n: bigint }>('SELECT count(*) AS n FROM alert_conditions');
    assert.equal(Number(rows[0]!.n), 0);
  } finally {
    await ts.stop();
  }
});
