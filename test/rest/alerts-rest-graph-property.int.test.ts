import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import { scaledRuns } from '../helpers/fuzz-scale.js';
import { graphData } from '../helpers/graph-client.js';
import { ManualClock, rest, startTestServer } from '../helpers/rest-fixture.js';
import { seededRandom } from '../helpers/seeded-random.js';
import type { TestServer } from '../helpers/test-server.js';

/*
 * Property: for random alert histories, REST v2's lists (alerts_incidents, alerts_violations,
 * alerts_events) and NerdGraph's aiIssues describe the same issues and incidents — ids, states,
 * priorities, times, entities, policies, conditions and membership. Each history is its own account
 * on one server: random apps, policies (random incident preference), conditions made through REST or
 * NerdGraph, random probe values each minute, one evaluation a minute, and random acknowledgements
 * and closes through either API. The seed of a failing history is in the failure's message.
 */

const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;
const MINUTES = 12;
const clock = new ManualClock(T0);
let ts: TestServer;

before(async () => {
  ts = await startTestServer({}, { clock, alertIntervalMs: 0 });
});
after(() => ts?.stop());

type Obj = Record<string, any>;
const PREFERENCES = ['PER_POLICY', 'PER_CONDITION', 'PER_CONDITION_AND_TARGET'] as const;

/** Every page of a REST list, following `rel="next"`. */
async function allPages(key: string, url: string, listKey: string): Promise<Obj[]> {
  const out: Obj[] = [];
  let next: string | undefined = url;
  while (next !== undefined) {
    const reply = await rest(ts, 'GET', next, { key });
    assert.equal(reply.status, 200, reply.text);
    out.push(...(reply.json()[listKey] as Obj[]));
    const link = String(reply.headers.link ?? '');
    const match = /<([^>]+)>;rel="next"/.exec(link);
    next = match === null ? undefined : new URL(match[1]!).pathname + new URL(match[1]!).search;
  }
  return out;
}

interface Totals {
  issues: number;
  closed: number;
  acknowledged: number;
  violations: number;
}

async function runHistory(seed: number, totals: Totals): Promise<void> {
  const rand = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const catalog = ts.server.catalog;
  const accountId = (await catalog.createAccount(`history ${seed}`)).id;
  const key = await catalog.createUserKey(accountId);
  const apps: number[] = [];
  for (let i = 0; i < 1 + Math.floor(rand() * 3); i += 1) {
    const facts = { appNames: [`app-${seed}-${i}`], language: 'nodejs', agentVersion: '12.0.0', host: `h${i}`, displayHost: null, pid: i + 1, port: null, userAgent: null };
    apps.push((await catalog.connect(accountId, facts)).primary.id);
  }
  const preferences = new Map<number, string>();
  for (let p = 0; p < 1 + Math.floor(rand() * 2); p += 1) {
    const preference = pick(PREFERENCES);
    const policy = (await rest(ts, 'POST', '/v2/alerts_policies.json', { key, body: { policy: { name: `policy ${p}`, incident_preference: preference } } })).json().policy;
    preferences.set(policy.id, preference);
    for (let c = 0; c < 1 + Math.floor(rand() * 2); c += 1) {
      const threshold = 2 + Math.floor(rand() * 5);
      const minutes = 1 + Math.floor(rand() * 2);
      const warning = rand() < 0.3;
      const query = 'SELECT average(value) FROM Probe FACET appName';
      if (rand() < 0.5) {
        const made = await rest(ts, 'POST', `/v2/alerts_nrql_conditions/policies/${policy.id}.json`, {
          key,
          body: {
            nrql_condition: {
              name: `c${p}.${c}`, enabled: true, nrql: { query },
              terms: [{ duration: String(minutes), operator: 'above', threshold: String(threshold), time_function: 'all', priority: warning ? 'warning' : 'critical' }],
              signal: { aggregation_window: '60', aggregation_method: 'CADENCE', aggregation_delay: 60 },
            },
          },
        });
        assert.equal(made.status, 201, made.text);
      } else {
        await graphData(ts, 'mutation($a:Int!,$p:ID!,$c:AlertsNrqlConditionStaticInput!){alertsNrqlConditionStaticCreate(accountId:$a,policyId:$p,condition:$c){id}}', {
          a: accountId, p: String(policy.id),
          c: {
            name: `c${p}.${c}`, enabled: true, nrql: { query },
            terms: [{ operator: 'ABOVE', priority: warning ? 'WARNING' : 'CRITICAL', threshold, thresholdDuration: minutes * 60, thresholdOccurrences: 'ALL' }],
            signal: { aggregationWindow: 60, aggregationMethod: 'CADENCE', aggregationDelay: 60 },
          },
        }, { key });
      }
    }
  }

  const start = clock.ms;
  const base = Math.ceil(start / MIN) * MIN + MIN;
  for (let m = 0; m < MINUTES; m += 1) {
    const rows = new Rows(CUSTOM_EVENTS);
    for (const appId of apps) rows.push(accountId, appId, 0, 0, base + m * MIN + 5_000, 'Probe', JSON.stringify({ value: Math.floor(rand() * 9) }));
    await ts.server.writer.write([rows]);
    clock.ms = base + (m + 1) * MIN + 30_000;
    await ts.server.alerts.evaluateOnce();
    if (rand() < 0.35) {
      const open = (await rest(ts, 'GET', '/v2/alerts_incidents.json?only_open=true', { key })).json().incidents as Obj[];
      if (open.length > 0) {
        const target = pick(open);
        clock.ms += 1_000;
        const close = rand() < 0.4;
        if (rand() < 0.5) {
          const reply = await rest(ts, 'PUT', `/v2/alerts_incidents/${target.id}/${close ? 'close' : 'acknowledge'}.json`, { key });
          assert.equal(reply.status, 200, reply.text);
        } else {
          const issueId = await ts.server.alerts.restIdOf('issue', accountId, target.id);
          const mutation = close ? 'aiIssuesResolveIssue' : 'aiIssuesAckIssue';
          const data = await graphData(ts, `mutation { ${mutation}(accountId: ${accountId}, issueId: "${issueId}") { error } }`, undefined, { key });
          assert.equal(data[mutation].error, null);
        }
      }
    }
  }

  const window = `timeWindow: {startTime: ${start - MIN}, endTime: ${clock.ms + MIN}}`;
  const graph = (await graphData(ts, `{ actor { account(id: ${accountId}) { aiIssues {
    issues(${window}) { issues { issueId state priority createdAt closedAt acknowledgedAt policyIds incidentIds entityNames } nextCursor }
    incidents(${window}) { incidents { incidentId issueId priority state createdAt closedAt title entityNames ... on AiIssuesNewRelicIncident { conditionFamilyId policyIds } } nextCursor } } } } }`, undefined, { key })).actor.account.aiIssues;
  assert.equal(graph.issues.nextCursor, null);
  assert.equal(graph.incidents.nextCursor, null);
  const issues = graph.issues.issues as Obj[];
  const incidents = graph.incidents.incidents as Obj[];
  const restIncidents = await allPages(key, '/v2/alerts_incidents.json', 'incidents');
  const restViolations = await allPages(key, '/v2/alerts_violations.json', 'violations');
  const events = await allPages(key, '/v2/alerts_events.json', 'recent_events');

  const issueNumber = await ts.server.alerts.restNumbers('issue', issues.map((i) => i.issueId));
  const incidentNumber = await ts.server.alerts.restNumbers('incident', incidents.map((i) => i.incidentId));
  // The same objects: one REST id per NerdGraph id, none left over on either side.
  assert.deepEqual(restIncidents.map((r) => r.id).sort((a, b) => a - b), issues.map((i) => issueNumber.get(i.issueId)).sort((a, b) => a! - b!));
  assert.deepEqual(restViolations.map((r) => r.id).sort((a, b) => a - b), incidents.map((i) => incidentNumber.get(i.incidentId)).sort((a, b) => a! - b!));
  assert.equal(new Set(issueNumber.values()).size, issues.length);

  const restIncidentById = new Map(restIncidents.map((r) => [r.id as number, r]));
  for (const i of issues) {
    const r = restIncidentById.get(issueNumber.get(i.issueId)!)!;
    assert.equal(r.opened_at, i.createdAt);
    assert.equal(r.closed_at ?? null, i.closedAt);
    assert.equal(i.state === 'CLOSED', r.closed_at !== undefined);
    assert.equal(r.links.policy_id, i.policyIds[0]);
    assert.equal(r.incident_preference, preferences.get(i.policyIds[0]));
    assert.deepEqual([...r.links.violations].sort((a: number, b: number) => a - b), i.incidentIds.map((id: string) => incidentNumber.get(id)).sort((a: number, b: number) => a - b));
    const acks = events.filter((e) => e.event_type === 'INCIDENT_ACKNOWLEDGED' && e.incident_id === r.id).map((e) => e.timestamp);
    assert.deepEqual(acks, i.acknowledgedAt === null ? [] : [i.acknowledgedAt]);
    const closes = events.filter((e) => e.event_type === 'INCIDENT_CLOSE' && e.incident_id === r.id).map((e) => e.timestamp);
    assert.deepEqual(closes, i.closedAt === null ? [] : [i.closedAt]);
    totals.issues += 1;
    if (i.closedAt !== null) totals.closed += 1;
    if (i.acknowledgedAt !== null) totals.acknowledged += 1;
  }
  const violationById = new Map(restViolations.map((r) => [r.id as number, r]));
  const issueOfIncident = new Map(issues.flatMap((i) => (i.incidentIds as string[]).map((id) => [id, i])));
  for (const j of incidents) {
    const v = violationById.get(incidentNumber.get(j.incidentId)!)!;
    assert.equal(v.opened_at, j.createdAt);
    assert.equal(v.closed_at ?? null, j.closedAt);
    assert.equal(j.state === 'CLOSED', v.closed_at !== undefined);
    assert.equal(v.priority, j.priority === 'CRITICAL' ? 'Critical' : 'Warning');
    assert.equal(v.label, j.title);
    assert.equal(v.entity.name, j.entityNames);
    assert.deepEqual([v.entity.product, v.entity.type], ['Apm', 'Application']);
    assert.equal(v.links.incident_id, issueNumber.get(j.issueId));
    assert.equal(v.links.condition_id, Number(j.conditionFamilyId));
    assert.equal(v.links.policy_id, Number(j.policyIds));
    assert.equal(issueOfIncident.get(j.incidentId)?.issueId, j.issueId);
    const opens = events.filter((e) => e.event_type === 'VIOLATION_OPEN' && e.incident_id === v.links.incident_id && e.timestamp === j.createdAt && e.entity_id === v.entity.id);
    assert.ok(opens.length >= 1, `a VIOLATION_OPEN event for violation ${v.id}`);
    totals.violations += 1;
  }
}

test('REST lists and NerdGraph aiIssues describe the same histories', { timeout: 600_000 }, async () => {
  const totals: Totals = { issues: 0, closed: 0, acknowledged: 0, violations: 0 };
  const runs = scaledRuns(6);
  for (let seed = 1; seed <= runs; seed += 1) {
    try {
      await runHistory(seed, totals);
    } catch (error) {
      throw new Error(`history of seed ${seed}: ${(error as Error).message}`, { cause: error });
    }
  }
  // Not vacuous: the histories opened, acknowledged and closed issues.
  assert.ok(totals.issues >= runs && totals.closed > 0 && totals.acknowledged > 0 && totals.violations >= totals.issues, JSON.stringify(totals));
});
