import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import { graph, graphData } from '../helpers/graph-client.js';
import { connectApp, ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// A condition's titleTemplate and description through the service: refused when the renderer
// cannot honour them, rendered into the incident, the issue (aiIssues) and NrAiIncident otherwise;
// the entity's alertViolations list it; then a user closes the incident with aiIssuesCloseIncident.

const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64').replace(/=+$/, '');
const clock = new ManualClock(T0);
let ts: TestServer;
let appId: number;

before(async () => {
  ts = await startTestServer({}, { clock, alertIntervalMs: 0 });
  appId = (await connectApp(ts, 'checkout-web')).appId;
});
after(() => ts?.stop());

const CREATE = 'mutation($a:Int!,$p:ID!,$c:AlertsNrqlConditionStaticInput!){alertsNrqlConditionStaticCreate(accountId:$a,policyId:$p,condition:$c){id titleTemplate description}}';

test('title and description templates: validation, the rendered incident, issue and entity alertViolations; then aiIssuesCloseIncident', async () => {
  const policyId = (await graphData(ts, 'mutation { alertsPolicyCreate(accountId: 1, policy: {name: "probes", incidentPreference: PER_CONDITION}) { id } }')).alertsPolicyCreate.id;
  const condition = {
    name: 'probe value', enabled: true, nrql: { query: 'SELECT average(value) FROM Probe FACET appName' },
    runbookUrl: 'https://runbooks.example.test/probe',
    titleTemplate: '{{tag.appName}}: {{conditionName}} {{operator}} {{threshold}} ({{priority}}, policy {{policyName}})',
    description: 'See {{runbookUrl}} for {{json targetName}}',
    terms: [{ operator: 'ABOVE', priority: 'CRITICAL', threshold: 2, thresholdDuration: 120, thresholdOccurrences: 'ALL' }],
    signal: { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 0 },
  };

  const refused = await graph(ts, CREATE, { a: 1, p: policyId, c: { ...condition, titleTemplate: '{{#if tag.appName}}{{tag.appName}}{{/if}} is slow' } });
  assert.equal(refused.body.data?.alertsNrqlConditionStaticCreate, null);
  assert.deepEqual(refused.body.errors?.map((e) => [e.message, e.extensions]), [[
    'Validation Error',
    { errorClass: 'BAD_USER_INPUT', code: 'BAD_USER_INPUT', validationErrors: [{ name: 'titleTemplate', reason: 'Block helpers, partials and comments ({{#if}}, {{#each}}, {{> …}}, {{! …}}) are not supported; use {{variable}} or {{json variable}}' }] },
  ]]);
  const none = await graphData(ts, `{ actor { account(id: 1) { alerts { nrqlConditionsSearch(searchCriteria: {policyId: "${policyId}"}) { totalCount } } } } }`);
  assert.equal(none.actor.account.alerts.nrqlConditionsSearch.totalCount, 0, 'nothing is stored');

  const made = (await graphData(ts, CREATE, { a: 1, p: policyId, c: condition })).alertsNrqlConditionStaticCreate;
  assert.deepEqual(made, { id: made.id, titleTemplate: condition.titleTemplate, description: condition.description });

  const rows = new Rows(CUSTOM_EVENTS);
  for (const [minute, value] of [[0, 1], [1, 3], [2, 3], [3, 3]] as const) rows.push(1, appId, 0, 0, T0 + minute * MIN + 5_000, 'Probe', JSON.stringify({ value }));
  await ts.server.writer.write([rows]);
  clock.ms = T0 + 4 * MIN;
  await ts.server.alerts.evaluateOnce();

  const title = 'checkout-web: probe value > 2 (critical, policy probes)';
  const description = 'See https://runbooks.example.test/probe for "checkout-web"';
  const data = (await graphData(ts, `{ actor { account(id: 1) { aiIssues {
    issues { issues { title description totalIncidents } }
    incidents { incidents { title description } } } } } }`)).actor.account.aiIssues;
  assert.deepEqual(data, {
    issues: { issues: [{ title: [title], description: [description], totalIncidents: 1 }] },
    incidents: { incidents: [{ title, description: [description] }] },
  });
  const events = await graphData(ts, `{ actor { account(id: 1) { nrql(query: "SELECT title, description FROM NrAiIncident WHERE event = 'open' SINCE ${T0} UNTIL ${T0 + 10 * MIN}") { results } } } }`);
  assert.deepEqual(events.actor.account.nrql.results.map((r: Record<string, unknown>) => [r.title, r.description]), [[title, description]]);

  // The entity's alertViolations and recentAlertViolations: the incident, as its FACET names the app.
  const { incidentId, issueId } = (await graphData(ts, '{ actor { account(id: 1) { aiIssues { incidents { incidents { incidentId issueId } } } } } }')).actor.account.aiIssues.incidents.incidents[0];
  const guid = b64(`1|APM|APPLICATION|${appId}`);
  const VIOLATIONS = `{ actor { entity(guid: "${guid}") { permalink
    ... on AlertableEntity { recent: recentAlertViolations { violationId label level alertSeverity openedAt closedAt agentUrl violationUrl }
      during: alertViolations(startTime: ${T0}, endTime: ${T0 + 10 * MIN}) { label openedAt closedAt }
      before: alertViolations(startTime: ${T0 - 10 * MIN}, endTime: ${T0 + MIN}) { label } } } } }`;
  const seen = (await graphData(ts, VIOLATIONS)).actor.entity;
  const origin = seen.permalink.slice(0, seen.permalink.indexOf('/redirect/entity/'));
  assert.match(origin, /^http:\/\/localhost(:80)?$/);
  assert.deepEqual(seen, {
    permalink: `${origin}/redirect/entity/${guid}`,
    recent: [{ violationId: 1, label: title, level: 'CRITICAL', alertSeverity: 'CRITICAL', openedAt: T0 + 3 * MIN, closedAt: null, agentUrl: seen.permalink, violationUrl: `${origin}/accounts/1/issues/${issueId}` }],
    during: [{ label: title, openedAt: T0 + 3 * MIN, closedAt: null }],
    before: [],
  });
  const other = (await connectApp(ts, 'billing-web')).appId;
  const otherApp = await graphData(ts, `{ actor { entity(guid: "${b64(`1|APM|APPLICATION|${other}`)}") { ... on AlertableEntity { recentAlertViolations(count: 500) { label } } } } }`);
  assert.deepEqual(otherApp.actor.entity.recentAlertViolations, []);
  const badCount = await graph(ts, `{ actor { entity(guid: "${guid}") { ... on AlertableEntity { recentAlertViolations(count: 0) { label } } } } }`);
  assert.deepEqual(badCount.body.errors?.map((e) => [e.message, e.extensions?.errorClass]), [['recentAlertViolations.count must be between 1 and 500', 'INVALID_INPUT']]);

  // aiIssuesCloseIncident: the incident closes (USER), and with it its issue, which held no other.
  const accountB = (await ts.server.catalog.createAccount('B')).id;
  const keyB = await ts.server.catalog.createUserKey(accountB);
  const CLOSE = `mutation { aiIssuesCloseIncident(accountId: 1, incidentId: "${incidentId}") { accountId incidentId error } }`;
  assert.deepEqual(await graphData(ts, CLOSE, undefined, { key: keyB }), { aiIssuesCloseIncident: { accountId: 1, incidentId, error: 'Access denied: this API key cannot reach account 1' } });
  clock.ms = T0 + 5 * MIN;
  assert.deepEqual(await graphData(ts, CLOSE), { aiIssuesCloseIncident: { accountId: 1, incidentId, error: null } });
  const closed = (await graphData(ts, `{ actor { account(id: 1) { aiIssues {
    issues(timeWindow: {startTime: ${T0}, endTime: ${T0 + 10 * MIN}}) { issues { state closedAt } }
    incidents(timeWindow: {startTime: ${T0}, endTime: ${T0 + 10 * MIN}}) { incidents { incidentId state closedAt } } } } } }`)).actor.account.aiIssues;
  assert.deepEqual(closed, {
    issues: { issues: [{ state: 'CLOSED', closedAt: T0 + 5 * MIN }] },
    incidents: { incidents: [{ incidentId, state: 'CLOSED', closedAt: T0 + 5 * MIN }] },
  });
  assert.deepEqual(await graphData(ts, CLOSE), { aiIssuesCloseIncident: { accountId: 1, incidentId, error: `Incident ${incidentId} Not Found in account 1, or it is closed` } });
  const afterClose = (await graphData(ts, VIOLATIONS)).actor.entity;
  assert.deepEqual(afterClose.during, [{ label: title, openedAt: T0 + 3 * MIN, closedAt: T0 + 5 * MIN }]);
});
