import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import { graphData } from '../helpers/graph-client.js';
import { connectApp, ManualClock, startTestServer, successorTitle, withoutSuccessorTitle } from '../helpers/rest-fixture.js';
import type { TestServer } from '../helpers/test-server.js';
import { golden, rest } from './rest-scenario.js';

/*
 * REST v2's alert endpoints, JSON and XML, against golden files in test/golden/rest/alerts/. A fresh
 * server (ids start at 1) whose clock stands at 2026-11-20T12:00:00Z; policies and NRQL conditions are
 * made through REST, probe events are written as the Event API stores them, and one evaluation is run
 * by hand, so every number below follows from the script:
 *
 *   Probe (appName checkout-web) value per minute 12:00–12:03: 1, 3, 3, 3
 *   condition "probe value": average(value) FACET appName above "2" for "2" minutes, window 60 s, delay 0
 *     → windows 12:01 and 12:02 breach: the violation opens at the end of 12:02's window, 12:03:00
 *       (data time), and its issue (REST incident) at 12:04:00, when the evaluation ran.
 *   condition "shards": count(*) FACET shard above "0" for "1" minute, in a PER_CONDITION_AND_TARGET
 *     policy, 26 shards at 12:02 → 26 violations and 26 incidents: two pages of 25.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;
const clock = new ManualClock(T0);
let ts: TestServer;
let keyB: string;
let appId: number;

before(async () => {
  ts = await startTestServer({}, { clock, alertIntervalMs: 0 });
  const accountB = (await ts.server.catalog.createAccount('B')).id;
  keyB = await ts.server.catalog.createUserKey(accountB);
  appId = (await connectApp(ts, 'checkout-web')).appId;
});
after(() => ts?.stop());

type Obj = Record<string, any>;

const PROBE_CONDITION = {
  nrql_condition: {
    type: 'static', name: 'probe value', enabled: true, value_function: 'single_value', violation_time_limit_seconds: 259200,
    terms: [{ duration: '2', operator: 'above', threshold: '2.0', time_function: 'all', priority: 'critical' }],
    nrql: { query: 'SELECT average(value) FROM Probe FACET appName' },
    signal: { aggregation_window: '60', aggregation_method: 'EVENT_FLOW', aggregation_delay: 0, fill_option: 'none' },
    expiration: { expiration_duration: 600, open_violation_on_expiration: false, close_violations_on_expiration: true },
  },
};

async function conditionCount(): Promise<number> {
  return ts.server.alerts.conditions(1).length;
}

describe('alerts_policies and alerts_nrql_conditions', () => {
  it('creates, lists, filters, updates and deletes policies', async () => {
    await golden(ts, 'alerts/policy-create', 'POST', '/v2/alerts_policies.json', {
      body: { policy: { name: 'checkout-web golden signals', incident_preference: 'PER_CONDITION' } }, note: 'body: {"policy":{"name":"checkout-web golden signals","incident_preference":"PER_CONDITION"}}',
    });
    clock.ms = T0 + 1000;
    await golden(ts, 'alerts/policy-create-xml', 'POST', '/v2/alerts_policies.xml', { body: { policy: { name: 'scratch' } }, note: 'body: {"policy":{"name":"scratch"}} (PER_POLICY by default)' });
    clock.ms = T0;
    await golden(ts, 'alerts/policy-list', 'GET', '/v2/alerts_policies.json');
    await golden(ts, 'alerts/policy-list-xml', 'GET', '/v2/alerts_policies.xml');
    await golden(ts, 'alerts/policy-filter-name', 'GET', '/v2/alerts_policies.json?filter[name]=scratch');
    clock.ms = T0 + 2000;
    await golden(ts, 'alerts/policy-update', 'PUT', '/v2/alerts_policies/2.json', { body: { policy: { incident_preference: 'PER_CONDITION_AND_TARGET' } }, note: 'body: {"policy":{"incident_preference":"PER_CONDITION_AND_TARGET"}}' });
    clock.ms = T0;
    // The same policy through NerdGraph.
    const graph = await graphData(ts, '{ actor { account(id: 1) { alerts { policy(id: 2) { id name incidentPreference } } } } }');
    assert.deepEqual(graph.actor.account.alerts.policy, { id: '2', name: 'scratch', incidentPreference: 'PER_CONDITION_AND_TARGET' });
    await golden(ts, 'alerts/policy-delete', 'DELETE', '/v2/alerts_policies/2.json');
    assert.equal((await rest(ts, 'POST', '/v2/alerts_policies.json', { body: { policy: { name: 'scratch 2' } } })).status, 201);
    await golden(ts, 'alerts/policy-update-xml', 'PUT', '/v2/alerts_policies/3.xml', { body: { policy: { name: 'scratch two' } }, note: 'body: {"policy":{"name":"scratch two"}}' });
    await golden(ts, 'alerts/policy-delete-xml', 'DELETE', '/v2/alerts_policies/3.xml');
    assert.deepEqual(ts.server.alerts.policies(1).map((p) => p.policy.id), ['1']);
  });

  it('refuses bad policies with the REST error shape and stores nothing', async () => {
    await golden(ts, 'alerts/policy-create-bad', 'POST', '/v2/alerts_policies.json', { body: { policy: { name: '', incident_preference: 'per_target' } }, note: 'body: {"policy":{"name":"","incident_preference":"per_target"}}' });
    await golden(ts, 'alerts/policy-update-unknown', 'PUT', '/v2/alerts_policies/99.json', { body: { policy: { name: 'x' } }, note: 'body: {"policy":{"name":"x"}}' });
    const asB = await rest(ts, 'DELETE', '/v2/alerts_policies/1.json', { key: keyB });
    assert.deepEqual([asB.status, asB.json()], [404, { error: { title: 'No policy with id 1' } }]);
    assert.deepEqual(ts.server.alerts.policies(1).map((p) => p.policy.name), ['checkout-web golden signals']);
  });

  it('creates NRQL conditions with REST quirks: string terms, minutes, since_value', async () => {
    await golden(ts, 'alerts/nrql-condition-create', 'POST', '/v2/alerts_nrql_conditions/policies/1.json', { body: PROBE_CONDITION, note: 'body: the probe value condition (see the test)' });
    const legacy = {
      nrql_condition: {
        name: 'legacy since', enabled: false, terms: [{ duration: 5, operator: 'below', threshold: 1, time_function: 'any', priority: 'warning' }],
        nrql: { query: "SELECT count(*) FROM Transaction WHERE appName = 'checkout-web'", since_value: '3' },
      },
    };
    await golden(ts, 'alerts/nrql-condition-create-since-xml', 'POST', '/v2/alerts_nrql_conditions/policies/1.xml', { body: legacy, note: 'body: numbers unquoted, nrql.since_value "3", no signal' });
    // The since_value condition is NerdGraph's CADENCE with a 3-minute delay; terms in seconds.
    const graph = await graphData(ts, '{ actor { account(id: 1) { alerts { nrqlCondition(id: 2) { name enabled signal { aggregationMethod aggregationDelay aggregationWindow } terms { thresholdDuration threshold operator priority thresholdOccurrences } } } } } }');
    assert.deepEqual(graph.actor.account.alerts.nrqlCondition, {
      name: 'legacy since', enabled: false, signal: { aggregationMethod: 'CADENCE', aggregationDelay: 180, aggregationWindow: 60 },
      terms: [{ thresholdDuration: 300, threshold: 1, operator: 'BELOW', priority: 'WARNING', thresholdOccurrences: 'AT_LEAST_ONCE' }],
    });
    await golden(ts, 'alerts/nrql-condition-list', 'GET', '/v2/alerts_nrql_conditions.json?policy_id=1');
    await golden(ts, 'alerts/nrql-condition-list-xml', 'GET', '/v2/alerts_nrql_conditions.xml?policy_id=1');
  });

  it('updates a condition partially and deletes one', async () => {
    clock.ms = T0 + 3000;
    await golden(ts, 'alerts/nrql-condition-update', 'PUT', '/v2/alerts_nrql_conditions/2.json', {
      body: { nrql_condition: { name: 'legacy since, renamed', terms: [{ duration: '10', operator: 'below', threshold: '0.5', time_function: 'all', priority: 'critical' }] } },
      note: 'body: name and terms only; the rest is kept',
    });
    clock.ms = T0;
    await golden(ts, 'alerts/nrql-condition-update-xml', 'PUT', '/v2/alerts_nrql_conditions/2.xml', {
      body: { nrql_condition: { enabled: true, runbook_url: 'https://runbooks.example.test/since' } }, note: 'body: enabled and runbook_url only',
    });
    await golden(ts, 'alerts/nrql-condition-delete', 'DELETE', '/v2/alerts_nrql_conditions/2.json');
    assert.equal((await rest(ts, 'POST', '/v2/alerts_nrql_conditions/policies/1.json', { body: { nrql_condition: { ...PROBE_CONDITION.nrql_condition, name: 'scratch', enabled: false } } })).status, 201);
    await golden(ts, 'alerts/nrql-condition-delete-xml', 'DELETE', '/v2/alerts_nrql_conditions/3.xml');
    assert.equal(await conditionCount(), 1);
  });

  it('refuses bad conditions: unknown policy, malformed terms, negative durations, since_value with signal, sum', async () => {
    const before = await conditionCount();
    await golden(ts, 'alerts/nrql-condition-unknown-policy', 'POST', '/v2/alerts_nrql_conditions/policies/77.json', { body: PROBE_CONDITION, note: 'body: the probe value condition' });
    const asB = await rest(ts, 'POST', '/v2/alerts_nrql_conditions/policies/1.json', { key: keyB, body: PROBE_CONDITION });
    assert.deepEqual([asB.status, asB.json()], [404, { error: { title: 'No policy with id 1' } }]);
    const terms = [{ duration: '-5', operator: 'sideways', threshold: 'high', time_function: 'all' }, 'x'];
    await golden(ts, 'alerts/nrql-condition-bad-terms', 'POST', '/v2/alerts_nrql_conditions/policies/1.json', {
      body: { nrql_condition: { ...PROBE_CONDITION.nrql_condition, terms } }, note: `body: the probe value condition with terms ${JSON.stringify(terms)}`,
    });
    await golden(ts, 'alerts/nrql-condition-since-and-signal-xml', 'POST', '/v2/alerts_nrql_conditions/policies/1.xml', {
      body: { nrql_condition: { ...PROBE_CONDITION.nrql_condition, nrql: { query: 'SELECT count(*) FROM Transaction', since_value: '3' } } }, note: 'body: since_value and signal together',
    });
    await golden(ts, 'alerts/nrql-condition-sum', 'POST', '/v2/alerts_nrql_conditions/policies/1.json', {
      body: { nrql_condition: { ...PROBE_CONDITION.nrql_condition, value_function: 'sum' } }, note: 'body: value_function sum with time_function all',
    });
    // A term the domain refuses (not a multiple of the window) and a query NRQL refuses.
    await golden(ts, 'alerts/nrql-condition-domain-refusal', 'POST', '/v2/alerts_nrql_conditions/policies/1.json', {
      body: { nrql_condition: { ...PROBE_CONDITION.nrql_condition, signal: { aggregation_window: '120' }, terms: [{ ...PROBE_CONDITION.nrql_condition.terms[0], duration: '3' }] } },
      note: 'body: aggregation_window "120" with a 3-minute term',
    });
    await golden(ts, 'alerts/nrql-condition-query-refusal', 'POST', '/v2/alerts_nrql_conditions/policies/1.json', {
      body: { nrql_condition: { ...PROBE_CONDITION.nrql_condition, nrql: { query: 'SELECT duration FROM Transaction' } } },
      note: 'body: a query without an aggregate',
    });
    await golden(ts, 'alerts/nrql-condition-list-no-policy', 'GET', '/v2/alerts_nrql_conditions.json');
    const update = await rest(ts, 'PUT', '/v2/alerts_nrql_conditions/1.json', { body: { nrql_condition: { terms: [{ duration: '-1', operator: 'above', threshold: '1', time_function: 'all' }] } } });
    assert.equal(update.status, 422);
    assert.equal(await conditionCount(), before);
    assert.equal(ts.server.alerts.conditions(1)[0]!.condition.terms[0]!.thresholdDuration, 120, 'a refused update changes nothing');
  });
});

describe('alerts_violations, alerts_incidents and alerts_events', () => {
  let issueId: string;

  before(async () => {
    const rows = new Rows(CUSTOM_EVENTS);
    for (const [minute, value] of [[0, 1], [1, 3], [2, 3], [3, 3]] as const) rows.push(1, appId, 0, 0, T0 + minute * MIN + 5_000, 'Probe', JSON.stringify({ value }));
    await ts.server.writer.write([rows]);
    clock.ms = T0 + 4 * MIN;
    await ts.server.alerts.evaluateOnce();
    issueId = (await ts.server.alerts.issues(1, T0, T0 + 10 * MIN))[0]!.id;
  });

  it('shows the open violation, its incident and their events', async () => {
    await golden(ts, 'alerts/violations', 'GET', '/v2/alerts_violations.json');
    await golden(ts, 'alerts/violations-xml', 'GET', '/v2/alerts_violations.xml?only_open=true');
    await golden(ts, 'alerts/violations-dates', 'GET', '/v2/alerts_violations.json?start_date=2026-11-20T12:03:01%2B00:00');
    await golden(ts, 'alerts/incidents', 'GET', '/v2/alerts_incidents.json');
    await golden(ts, 'alerts/incidents-xml', 'GET', '/v2/alerts_incidents.xml?exclude_violations=true');
    await golden(ts, 'alerts/events', 'GET', '/v2/alerts_events.json');
    await golden(ts, 'alerts/events-xml', 'GET', '/v2/alerts_events.xml?filter[event_type]=VIOLATION_OPEN&filter[product]=apm');
    // Bounds are inclusive, on opened_at (12:03:00).
    const ids = async (query: string) => (await rest(ts, 'GET', `/v2/alerts_violations.json?${query}`)).json().violations.map((v: Obj) => v.id);
    assert.deepEqual(await ids('start_date=2026-11-20T12:03:00Z&end_date=2026-11-20T12:03:00Z'), [1]);
    assert.deepEqual(await ids('end_date=2026-11-20T12:02:59Z'), []);
    assert.deepEqual(await ids('start_date=2026-11-20T13:03:00%2B01:00&only_open=true'), [1]);
    const reversed = await rest(ts, 'GET', '/v2/alerts_violations.json?start_date=2026-11-20T12:04:00Z&end_date=2026-11-20T12:03:00Z');
    assert.deepEqual([reversed.status, reversed.json().error.title], [422, 'start_date must not be after end_date']);
    const bad = await rest(ts, 'GET', '/v2/alerts_violations.json?start_date=yesterday');
    assert.deepEqual([bad.status, bad.json().error.title], [422, "Invalid start_date 'yesterday': expected an ISO 8601 time such as 2024-03-05T14:00:00+00:00"]);
    const ofB = await rest(ts, 'GET', '/v2/alerts_incidents.json', { key: keyB });
    assert.deepEqual(ofB.json(), { incidents: [] });
  });

  it('acknowledges and closes the incident; NerdGraph shows the same issue', async () => {
    clock.ms = T0 + 5 * MIN;
    await golden(ts, 'alerts/incident-acknowledge', 'PUT', '/v2/alerts_incidents/1/acknowledge.json');
    const asB = await rest(ts, 'PUT', '/v2/alerts_incidents/1/close.json', { key: keyB });
    assert.deepEqual([asB.status, asB.json()], [404, { error: { title: 'No incident with id 1' } }]);
    clock.ms = T0 + 6 * MIN;
    await golden(ts, 'alerts/incident-close-xml', 'PUT', '/v2/alerts_incidents/1/close.xml');
    await golden(ts, 'alerts/incident-close-again', 'PUT', '/v2/alerts_incidents/1/close.json');
    await golden(ts, 'alerts/violations-closed', 'GET', '/v2/alerts_violations.json');
    await golden(ts, 'alerts/events-after-close', 'GET', '/v2/alerts_events.json');
    const graph = await graphData(ts, `{ actor { account(id: 1) { aiIssues {
      issues(timeWindow: {startTime: ${T0}, endTime: ${T0 + 10 * MIN}}) { issues { issueId state priority createdAt acknowledgedAt closedAt totalIncidents policyIds } }
      incidents(timeWindow: {startTime: ${T0}, endTime: ${T0 + 10 * MIN}}) { incidents { issueId priority createdAt closedAt title } } } } } }`);
    assert.deepEqual(graph.actor.account.aiIssues, {
      issues: { issues: [{ issueId, state: 'CLOSED', priority: 'CRITICAL', createdAt: T0 + 4 * MIN, acknowledgedAt: T0 + 5 * MIN, closedAt: T0 + 6 * MIN, totalIncidents: 1, policyIds: [1] }] },
      incidents: { incidents: [{ issueId, priority: 'CRITICAL', createdAt: T0 + 3 * MIN, closedAt: T0 + 6 * MIN, title: "checkout-web query result is > 2 for 2 minutes on 'probe value'" }] },
    });
    assert.equal(await ts.server.alerts.restIdOf('issue', 1, 1), issueId, 'REST incident 1 is that NerdGraph issue');
    // Every call was recorded as a TimesliceApiCall of the key's account, by its route (account B's refused
    // close is B's).
    await ts.server.apiUsage.flush();
    const calls = await graphData(ts, `{ actor { account(id: 1) { nrql(query: "SELECT count(*) FROM TimesliceApiCall WHERE route LIKE '/v2/alerts_incidents/%' FACET route, method SINCE 1 day ago UNTIL '2030-01-01'") { results } } } }`);
    assert.deepEqual(calls.actor.account.nrql.results.map((r: Obj) => [r.facet, r.count]).sort(), [
      [['/v2/alerts_incidents/{id}/acknowledge.json', 'PUT'], 1],
      [['/v2/alerts_incidents/{id}/close.json', 'PUT'], 1],
      [['/v2/alerts_incidents/{id}/close.xml', 'PUT'], 1],
    ]);
  });

  it('pages violations with rel="next" only, and incidents alike', async () => {
    const policy = (await rest(ts, 'POST', '/v2/alerts_policies.json', { body: { policy: { name: 'shards', incident_preference: 'PER_CONDITION_AND_TARGET' } } })).json().policy;
    const made = await rest(ts, 'POST', `/v2/alerts_nrql_conditions/policies/${policy.id}.json`, {
      body: {
        nrql_condition: {
          name: 'shards', enabled: true, terms: [{ duration: '1', operator: 'above', threshold: '0', time_function: 'all', priority: 'warning' }],
          nrql: { query: 'SELECT count(*) FROM Shard FACET shard' }, signal: { aggregation_window: '60', aggregation_method: 'CADENCE', aggregation_delay: 60 },
        },
      },
    });
    assert.equal(made.status, 201);
    const rows = new Rows(CUSTOM_EVENTS);
    for (let shard = 0; shard < 26; shard += 1) rows.push(1, appId, 0, 0, T0 + 6 * MIN + 1000 + shard, 'Shard', JSON.stringify({ shard: `s${String(shard).padStart(2, '0')}` }));
    await ts.server.writer.write([rows]);
    // CADENCE with a 60 s delay: the cycle at 12:07:30 holds 12:06's window, the one at 12:08:30 closes it.
    clock.ms = T0 + 7 * MIN + 30_000;
    await ts.server.alerts.evaluateOnce();
    clock.ms = T0 + 8 * MIN + 30_000;
    await ts.server.alerts.evaluateOnce();
    await golden(ts, 'alerts/violations-page-1', 'GET', '/v2/alerts_violations.json?only_open=true&exclude=ignored');
    await golden(ts, 'alerts/violations-page-2', 'GET', '/v2/alerts_violations.json?only_open=true&exclude=ignored&page=2');
    const incidents = await rest(ts, 'GET', '/v2/alerts_incidents.json?only_open=true');
    assert.equal(incidents.json().incidents.length, 25);
    assert.equal(withoutSuccessorTitle(incidents.headers.link), '<http://localhost:80/v2/alerts_incidents.json?only_open=true&page=2>;rel="next", <http://localhost:80/graphql>;rel="successor-version"');
    const second = await rest(ts, 'GET', '/v2/alerts_incidents.json?only_open=true&page=2');
    assert.deepEqual(second.json().incidents.map((i: Obj) => i.id), [2]);
    assert.equal(withoutSuccessorTitle(second.headers.link), '<http://localhost:80/graphql>;rel="successor-version"');
    assert.equal(successorTitle(second.headers.link), 'actor { account(id: <account id>) { aiIssues { issues(filter: {states: [ACTIVATED]}) { issues { issueId state priority createdAt closedAt incidentIds } nextCursor } } } }');
    const all = await rest(ts, 'GET', '/v2/alerts_incidents.json?page=2');
    assert.deepEqual(all.json().incidents.map((i: Obj) => i.id), [2, 1], 'the closed incident comes last, newest first');
    // Every page of the events, following rel="next", is the history the two lists describe, newest first
    // (ties by id), plus the one acknowledgement (incident 1, 12:05).
    const pages: Obj[][] = [];
    for (let next: string | undefined = '/v2/alerts_events.json'; next !== undefined;) {
      const reply = await rest(ts, 'GET', next);
      pages.push(reply.json().recent_events);
      const m = /<http:\/\/localhost:80([^>]+)>;rel="next"/.exec(String(reply.headers.link));
      next = m?.[1];
    }
    const violations = (await rest(ts, 'GET', '/v2/alerts_violations.json')).json().violations.concat((await rest(ts, 'GET', '/v2/alerts_violations.json?page=2')).json().violations) as Obj[];
    const incidentsAll = (await rest(ts, 'GET', '/v2/alerts_incidents.json')).json().incidents.concat(all.json().incidents) as Obj[];
    const expected = [
      ...violations.flatMap((v) => [[v.id * 8 + 1, 'VIOLATION_OPEN', v.opened_at], ...(v.closed_at !== undefined ? [[v.id * 8 + 2, 'VIOLATION_CLOSE', v.closed_at]] : [])]),
      ...incidentsAll.flatMap((i) => [[i.id * 8 + 3, 'INCIDENT_OPEN', i.opened_at], ...(i.closed_at !== undefined ? [[i.id * 8 + 5, 'INCIDENT_CLOSE', i.closed_at]] : [])]),
      [1 * 8 + 4, 'INCIDENT_ACKNOWLEDGED', T0 + 5 * MIN],
    ].sort((a, b) => (b[2] as number) - (a[2] as number) || (b[0] as number) - (a[0] as number));
    assert.deepEqual(pages.map((p) => p.length), [25, 25, expected.length - 50]);
    assert.deepEqual(pages.flat().map((e) => [e.id, e.event_type, e.timestamp]), expected);
    const events = await rest(ts, 'GET', '/v2/alerts_events.json?filter[incident_id]=2&filter[event_type]=VIOLATION');
    assert.deepEqual(events.json().recent_events.map((e: Obj) => [e.event_type, e.incident_id, e.product, e.entity_type]), [['VIOLATION_OPEN', 2, 'NRQL', 'Query']]);
  });
});

describe('a REST update of a condition made through NerdGraph', () => {
  it('keeps what REST cannot say: description, evaluationDelay, ignoreOnExpectedTermination', async () => {
    const made = await graphData(ts, 'mutation($c:AlertsNrqlConditionStaticInput!){alertsNrqlConditionStaticCreate(accountId:1,policyId:"1",condition:$c){id}}', {
      c: {
        name: 'from the graph', enabled: false, description: 'written in NerdGraph', nrql: { query: 'SELECT count(*) FROM Transaction' },
        terms: [{ operator: 'ABOVE', priority: 'CRITICAL', threshold: 1.5, thresholdDuration: 90, thresholdOccurrences: 'ALL' }],
        signal: { aggregationWindow: 30, evaluationDelay: 120 }, expiration: { expirationDuration: 600, ignoreOnExpectedTermination: true },
      },
    });
    const id = made.alertsNrqlConditionStaticCreate.id;
    const listed = (await rest(ts, 'GET', '/v2/alerts_nrql_conditions.json?policy_id=1')).json().nrql_conditions.find((c: Obj) => c.id === Number(id));
    // 90 s is not whole minutes: REST shows the decimal.
    assert.deepEqual(listed.terms, [{ duration: '1.5', operator: 'above', priority: 'critical', threshold: '1.5', time_function: 'all' }]);
    const put = await rest(ts, 'PUT', `/v2/alerts_nrql_conditions/${id}.json`, { body: { nrql_condition: { name: 'renamed in REST' } } });
    assert.equal(put.status, 200, put.text);
    const read = await graphData(ts, `{ actor { account(id: 1) { alerts { nrqlCondition(id: "${id}") { name description signal { aggregationWindow evaluationDelay } expiration { expirationDuration ignoreOnExpectedTermination } terms { thresholdDuration threshold } } } } } }`);
    assert.deepEqual(read.actor.account.alerts.nrqlCondition, {
      name: 'renamed in REST', description: 'written in NerdGraph', signal: { aggregationWindow: 30, evaluationDelay: 120 },
      expiration: { expirationDuration: 600, ignoreOnExpectedTermination: true }, terms: [{ thresholdDuration: 90, threshold: 1.5 }],
    });
  });
});
