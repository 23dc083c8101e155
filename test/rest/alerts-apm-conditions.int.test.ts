import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { graphData } from '../helpers/graph-client.js';
import { connectApp, ManualClock, sendMetrics, startTestServer, type MetricRow } from '../helpers/rest-fixture.js';
import type { TestServer } from '../helpers/test-server.js';
import { golden, rest } from './rest-scenario.js';

/*
 * REST v2's `alerts_conditions` (apm_app_metric): create/list/update/delete in JSON and XML (goldens in
 * test/golden/rest/alerts-apm/), each metric's NRQL translation run over known timeslices and compared
 * with numbers worked out by hand, an error_percentage condition opening a violation through the same
 * engine, and bad input (another account's application, unknown metric, negative duration) refused
 * with nothing stored.
 *
 * checkout-web reports every minute 12:00–12:04 (one harvest a minute):
 *   HttpDispatcher        [10, 2.0, …]  → 0.2 s a call, 10 calls a minute
 *   OtherTransaction/all  [10, 5.0, …]  → 0.5 s a call, 10 a minute
 *   Errors/all            [5]           → 5 × 100 / (10 + 10) = 25 %
 *   Apdex                 [8, 1, 1, 0.5, 0.5, 0] → (8 + 1/2) / 10 = 0.85
 *   Custom/queue          [2, 6.0, 6.0, 1.0, 5.0, 26] → average 3, min 1, max 5, total 6, sample_size 2
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;
const clock = new ManualClock(T0);
let ts: TestServer;
let keyB: string;
let appId: number;
let otherAccountApp: number;

const HARVEST: readonly MetricRow[] = [
  ['HttpDispatcher', '', [10, 2.0, 2.0, 0.1, 0.4, 0.5]],
  ['OtherTransaction/all', '', [10, 5.0, 5.0, 0.2, 0.9, 2.7]],
  ['Errors/all', '', [5, 0, 0, 0, 0, 0]],
  ['Apdex', '', [8, 1, 1, 0.5, 0.5, 0]],
  ['Custom/queue', '', [2, 6.0, 6.0, 1.0, 5.0, 26]],
];

before(async () => {
  ts = await startTestServer({}, { clock, alertIntervalMs: 0 });
  const app = await connectApp(ts, 'checkout-web');
  appId = app.appId;
  for (let m = 0; m < 5; m += 1) await sendMetrics(ts, app.runId, T0 + m * MIN, T0 + (m + 1) * MIN, HARVEST);
  const accountB = (await ts.server.catalog.createAccount('B')).id;
  keyB = await ts.server.catalog.createUserKey(accountB);
  // An application of account B, made as the catalog makes one when an agent connects.
  const facts = { appNames: ['billing-b'], language: 'nodejs', agentVersion: '12.0.0', host: 'b-1', displayHost: null, pid: 1, port: null, userAgent: null };
  otherAccountApp = (await ts.server.catalog.connect(accountB, facts)).primary.id;
});
after(() => ts?.stop());

const condition = (metric: string, extra: Record<string, unknown> = {}) => ({
  condition: {
    type: 'apm_app_metric', name: `checkout ${metric}`, enabled: true, entities: [String(appId)], metric, condition_scope: 'application', runbook_url: '',
    terms: [{ duration: '1', operator: 'above', priority: 'critical', threshold: '20', time_function: 'all' }],
    ...extra,
  },
});

async function nrqlValue(query: string): Promise<number> {
  const text = `${query} SINCE ${T0 + MIN} UNTIL ${T0 + 2 * MIN}`;
  const results = (await graphData(ts, `{ actor { account(id: 1) { nrql(query: ${JSON.stringify(text)}) { results } } } }`)).actor.account.nrql.results;
  assert.equal(results.length, 1, text);
  const row = results[0] as Record<string, unknown>;
  const value = Object.entries(row).find(([k]) => k !== 'facet' && k !== 'appName')![1];
  return typeof value === 'number' ? value : (value as { score: number }).score;
}

test('each APM metric condition runs the NRQL of its REST value, and the numbers are the hand-worked ones', async () => {
  const policy = (await rest(ts, 'POST', '/v2/alerts_policies.json', { body: { policy: { name: 'checkout apm', incident_preference: 'PER_CONDITION_AND_TARGET' } } })).json().policy;
  assert.equal(policy.id, 1);
  await golden(ts, 'alerts-apm/create-error-percentage', 'POST', '/v2/alerts_conditions/policies/1.json', { body: condition('error_percentage'), note: 'body: error_percentage above "20" for "1" minute, entities ["1"]' });
  const expected: Array<[string, Record<string, unknown>, number]> = [
    ['apdex', {}, 0.85],
    ['response_time_web', {}, 0.2],
    ['response_time_background', {}, 0.5],
    ['throughput_web', {}, 10],
    ['throughput_background', {}, 10],
    ['user_defined', { user_defined: { metric: 'Custom/queue', value_function: 'max' } }, 5],
  ];
  for (const [metric, extra] of expected) {
    const made = await rest(ts, 'POST', '/v2/alerts_conditions/policies/1.json', { body: condition(metric, extra) });
    assert.equal(made.status, 201, made.text);
  }
  const conditions = ts.server.alerts.conditions(1);
  assert.equal(await nrqlValue(conditions[0]!.condition.query), 25);
  for (const [i, [metric, , value]] of expected.entries()) {
    const stored = conditions[i + 1]!.condition;
    assert.equal(stored.apmMetric?.metric, metric);
    assert.equal(await nrqlValue(stored.query), value, `${metric}: ${stored.query}`);
  }
  for (const [fn, value] of [['average', 3], ['min', 1], ['total', 6], ['sample_size', 2]] as const) {
    const made = await rest(ts, 'POST', '/v2/alerts_conditions/policies/1.json', { body: condition('user_defined', { name: `queue ${fn}`, enabled: false, user_defined: { metric: 'Custom/queue', value_function: fn } }) });
    assert.equal(await nrqlValue(made.headers['x-timeslice-nrql'] as string), value, fn);
  }
  await golden(ts, 'alerts-apm/list-xml', 'GET', '/v2/alerts_conditions.xml?policy_id=1');
  await golden(ts, 'alerts-apm/list-page-past-end', 'GET', '/v2/alerts_conditions.json?policy_id=1&page=2');
  // An APM condition is not an NRQL condition on REST, and the other way round.
  assert.deepEqual((await rest(ts, 'GET', '/v2/alerts_nrql_conditions.json?policy_id=1')).json(), { nrql_conditions: [] });
  assert.equal((await rest(ts, 'DELETE', '/v2/alerts_nrql_conditions/1.json')).status, 404);
});

test('updates and deletes; bad input is refused and nothing is stored', async () => {
  clock.ms = T0 + 2000;
  await golden(ts, 'alerts-apm/update', 'PUT', '/v2/alerts_conditions/2.json', {
    body: { condition: { name: 'apdex low', terms: [{ duration: '5', operator: 'below', priority: 'warning', threshold: '0.7', time_function: 'any' }] } },
    note: 'body: name and terms only',
  });
  clock.ms = T0;
  const count = ts.server.alerts.conditions(1).length;
  await golden(ts, 'alerts-apm/other-account-application', 'POST', '/v2/alerts_conditions/policies/1.json', {
    body: condition('apdex', { entities: [otherAccountApp] }), note: "body: entities [account B's application id]",
  });
  await golden(ts, 'alerts-apm/bad', 'POST', '/v2/alerts_conditions/policies/1.json', {
    body: condition('cpu', { terms: [{ duration: '-5', operator: 'above_or_equals', threshold: '1', time_function: 'all' }], condition_scope: 'instance', type: 'browser_metric' }),
    note: 'body: metric cpu, type browser_metric, scope instance, duration "-5", operator above_or_equals',
  });
  const noFn = await rest(ts, 'POST', '/v2/alerts_conditions/policies/1.json', { body: condition('user_defined', { user_defined: { metric: 'Custom/queue' } }) });
  assert.deepEqual([noFn.status, noFn.json().error.messages], [422, ['user_defined.value_function is required']]);
  const unknownPolicy = await rest(ts, 'POST', '/v2/alerts_conditions/policies/9.json', { body: condition('apdex') });
  assert.deepEqual([unknownPolicy.status, unknownPolicy.json()], [404, { error: { title: 'No policy with id 9' } }]);
  const asB = await rest(ts, 'POST', '/v2/alerts_conditions/policies/1.json', { key: keyB, body: condition('apdex', { entities: [otherAccountApp] }) });
  assert.equal(asB.status, 404);
  assert.equal(ts.server.alerts.conditions(1).length, count);
  await golden(ts, 'alerts-apm/delete', 'DELETE', '/v2/alerts_conditions/3.json');
  await golden(ts, 'alerts-apm/update-xml', 'PUT', '/v2/alerts_conditions/8.xml', { body: { condition: { enabled: true, entities: [appId] } }, note: 'body: enabled, entities as numbers' });
  await golden(ts, 'alerts-apm/delete-xml', 'DELETE', '/v2/alerts_conditions/11.xml');
  assert.equal(ts.server.alerts.conditions(1).length, count - 2);
  await golden(ts, 'alerts-apm/list', 'GET', '/v2/alerts_conditions.json?policy_id=1');
});

test('an error_percentage condition opens a violation on the application through the same engine', async () => {
  // 25 % > 20 from the first minute: its window (12:00–12:01) opens the violation at its end.
  clock.ms = T0 + 5 * MIN + 30_000;
  await ts.server.alerts.evaluateOnce();
  const violations = (await rest(ts, 'GET', '/v2/alerts_violations.json')).json().violations as Array<Record<string, any>>;
  const errors = violations.filter((v) => v.condition_name === 'checkout error_percentage');
  assert.equal(errors.length, 1);
  assert.deepEqual({ ...errors[0], id: 0, duration: 0 }, {
    id: 0, label: "checkout-web query result is > 20 for 1 minutes on 'checkout error_percentage'", duration: 0, policy_name: 'checkout apm',
    condition_name: 'checkout error_percentage', priority: 'Critical', opened_at: T0 + MIN,
    entity: { product: 'Apm', type: 'Application', group_id: appId, id: appId, name: 'checkout-web' },
    links: { policy_id: 1, condition_id: 1, incident_id: errors[0]!.links.incident_id },
  });
});
