import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import { graph, graphData } from '../helpers/graph-client.js';
import { connectApp, ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// NerdGraph's alerting surface end to end in one process: the reference's documents (alerts.md
// §2.2, §2.4) replayed verbatim, validation and not-found shapes, account isolation, aiIssues
// after a real evaluation over stored events, ack/resolve, and an entity's alertSeverity.

const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;
const clock = new ManualClock(T0);
let ts: TestServer;
let keyB: string;
let accountB: number;
let appId: number;

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64').replace(/=+$/, '');

before(async () => {
  ts = await startTestServer({}, { clock, alertIntervalMs: 0 });
  accountB = (await ts.server.catalog.createAccount('B')).id;
  keyB = await ts.server.catalog.createUserKey(accountB);
  appId = (await connectApp(ts, 'checkout-web')).appId;
});
after(() => ts?.stop());

const POLICY_CREATE = 'mutation($a:Int!,$p:AlertsPolicyInput!){alertsPolicyCreate(accountId:$a,policy:$p){id name incidentPreference accountId entityGuid}}';
const CONDITION_CREATE =
  'mutation($a:Int!,$p:ID!,$c:AlertsNrqlConditionStaticInput!){alertsNrqlConditionStaticCreate(accountId:$a,policyId:$p,condition:$c){id name enabled type entityGuid policyId nrql{query} terms{operator priority threshold thresholdDuration thresholdOccurrences} signal{aggregationWindow aggregationMethod aggregationDelay fillOption fillValue} expiration{expirationDuration openViolationOnExpiration closeViolationsOnExpiration} violationTimeLimitSeconds}}';

test('policies and conditions: the reference documents, validation errors, updates, deletes and another account', async () => {
  const created = await graphData(ts, POLICY_CREATE, { a: 1, p: { name: 'checkout-web golden signals', incidentPreference: 'PER_CONDITION_AND_TARGET' } });
  const policyId = created.alertsPolicyCreate.id;
  assert.deepEqual(created, {
    alertsPolicyCreate: { id: policyId, name: 'checkout-web golden signals', incidentPreference: 'PER_CONDITION_AND_TARGET', accountId: 1, entityGuid: b64(`1|AIOPS|POLICY|${policyId}`) },
  });

  const condition = {
    name: 'checkout p95 latency', enabled: true,
    nrql: { query: "SELECT percentile(duration, 95) FROM Transaction WHERE appName = 'checkout-web'" },
    terms: [
      { operator: 'ABOVE', priority: 'CRITICAL', threshold: 1.5, thresholdDuration: 300, thresholdOccurrences: 'ALL' },
      { operator: 'ABOVE', priority: 'WARNING', threshold: 1.0, thresholdDuration: 600, thresholdOccurrences: 'ALL' },
    ],
    signal: { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 120 },
    violationTimeLimitSeconds: 86400,
  };
  const made = (await graphData(ts, CONDITION_CREATE, { a: 1, p: policyId, c: condition })).alertsNrqlConditionStaticCreate;
  assert.deepEqual(made, {
    id: made.id, name: 'checkout p95 latency', enabled: true, type: 'STATIC', entityGuid: b64(`1|AIOPS|CONDITION|${made.id}`), policyId,
    nrql: { query: "SELECT percentile(duration, 95) FROM Transaction WHERE appName = 'checkout-web'" },
    terms: condition.terms,
    signal: { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 120, fillOption: 'NONE', fillValue: null },
    expiration: { expirationDuration: null, openViolationOnExpiration: false, closeViolationsOnExpiration: false },
    violationTimeLimitSeconds: 86400,
  });

  // NerdGraph's observed reason for a duration that is no multiple of the window.
  const badTerm = await graph(ts, CONDITION_CREATE, { a: 1, p: policyId, c: { ...condition, signal: { aggregationWindow: 120 }, terms: [condition.terms[0]] } });
  assert.equal(badTerm.body.data.alertsNrqlConditionStaticCreate, null);
  assert.deepEqual(badTerm.body.errors?.map((e) => [e.message, e.extensions]), [[
    'Validation Error',
    { errorClass: 'BAD_USER_INPUT', code: 'BAD_USER_INPUT', validationErrors: [{ name: 'terms[].thresholdDuration', reason: 'Term duration must be a multiple of the aggregation window (120 seconds) but was 300 seconds' }] },
  ]]);
  const badQuery = await graph(ts, CONDITION_CREATE, { a: 1, p: policyId, c: { ...condition, nrql: { query: 'SELECT duration FROM Transaction' } } });
  assert.deepEqual(badQuery.body.errors?.[0]?.extensions?.validationErrors, [
    { name: 'nrql.query', reason: 'An alert condition query must select an aggregate function such as average(), count(*) or percentile() (at line 1, column 8)' },
  ]);

  const SEARCH = '{ actor { account(id: 1) { alerts { policiesSearch { policies { id name } totalCount nextCursor } nrqlConditionsSearch(searchCriteria: {nameLike: "P95"}) { nrqlConditions { id name ... on AlertsNrqlStaticCondition { valueFunction } } totalCount nextCursor } } } } }';
  assert.deepEqual((await graphData(ts, SEARCH)).actor.account.alerts, {
    policiesSearch: { policies: [{ id: policyId, name: 'checkout-web golden signals' }], totalCount: 1, nextCursor: null },
    nrqlConditionsSearch: { nrqlConditions: [{ id: made.id, name: 'checkout p95 latency', valueFunction: 'SINGLE_VALUE' }], totalCount: 1, nextCursor: null },
  });

  // Update: absent fields keep their values, the given ones change.
  const UPDATE = 'mutation($a:Int!,$id:ID!,$c:AlertsNrqlConditionUpdateStaticInput!){alertsNrqlConditionStaticUpdate(accountId:$a,id:$id,condition:$c){name enabled terms{priority threshold} signal{aggregationDelay fillOption fillValue}}}';
  assert.deepEqual((await graphData(ts, UPDATE, { a: 1, id: made.id, c: { name: 'renamed', signal: { fillOption: 'STATIC', fillValue: 0.5 } } })).alertsNrqlConditionStaticUpdate, {
    name: 'renamed', enabled: true, terms: [{ priority: 'CRITICAL', threshold: 1.5 }, { priority: 'WARNING', threshold: 1 }], signal: { aggregationDelay: 120, fillOption: 'STATIC', fillValue: 0.5 },
  });

  // Account B's key can neither read nor change account 1's alerting.
  const asB = await graph(ts, '{ actor { account(id: 1) { alerts { policiesSearch { totalCount } } } } }', undefined, { key: keyB });
  assert.equal(asB.body.errors?.[0]?.extensions?.errorClass, 'FORBIDDEN');
  const deleteAsB = await graph(ts, `mutation { alertsPolicyDelete(accountId: 1, id: "${policyId}") { id } }`, undefined, { key: keyB });
  assert.equal(deleteAsB.body.errors?.[0]?.extensions?.errorClass, 'FORBIDDEN');
  const ownB = await graph(ts, `mutation { alertsConditionDelete(accountId: ${accountB}, id: "${made.id}") { id } }`, undefined, { key: keyB });
  assert.deepEqual([ownB.body.errors?.[0]?.message, ownB.body.errors?.[0]?.extensions?.code], [`Condition ${made.id} Not Found`, 'BAD_USER_INPUT']);

  assert.deepEqual(await graphData(ts, `mutation { alertsConditionDelete(accountId: 1, id: "${made.id}") { id } }`), { alertsConditionDelete: { id: made.id } });
  const gone = await graph(ts, `{ actor { account(id: 1) { alerts { nrqlCondition(id: "${made.id}") { id } } } } }`);
  assert.match(gone.body.errors?.[0]?.message ?? '', /Not Found/);
  assert.deepEqual(await graphData(ts, `mutation { alertsPolicyDelete(accountId: 1, id: "${policyId}") { id } }`), { alertsPolicyDelete: { id: policyId } });
});

test('aiIssues after an evaluation: the issue and incident, ack, resolve, and the entity alertSeverity', async () => {
  const policyId = (await graphData(ts, POLICY_CREATE, { a: 1, p: { name: 'probes', incidentPreference: 'PER_CONDITION' } })).alertsPolicyCreate.id;
  const conditionId = (await graphData(ts, CONDITION_CREATE, {
    a: 1, p: policyId,
    c: {
      name: 'probe value', enabled: true, nrql: { query: 'SELECT average(value) FROM Probe FACET appName' },
      terms: [{ operator: 'ABOVE', priority: 'CRITICAL', threshold: 2, thresholdDuration: 120, thresholdOccurrences: 'ALL' }],
      signal: { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 0 },
    },
  })).alertsNrqlConditionStaticCreate.id;
  const SEVERITY = `{ actor { entitySearch(query: "name = 'checkout-web'") { results { entities { alertSeverity } } } } }`;
  const severity = async () => (await graphData(ts, SEVERITY)).actor.entitySearch.results.entities[0].alertSeverity;
  assert.equal(await severity(), 'NOT_CONFIGURED');

  const rows = new Rows(CUSTOM_EVENTS);
  for (const [minute, value] of [[0, 1], [1, 3], [2, 3], [3, 3]] as const) rows.push(1, appId, 0, 0, T0 + minute * MIN + 5_000, 'Probe', JSON.stringify({ value }));
  await ts.server.writer.write([rows]);
  clock.ms = T0 + 4 * MIN;
  await ts.server.alerts.evaluateOnce();
  assert.equal(await severity(), 'CRITICAL');

  const ISSUES = `{ actor { account(id: 1) { aiIssues {
    issues(timeWindow: {startTime: ${T0}, endTime: ${T0 + 10 * MIN}}) { issues { issueId state priority title totalIncidents conditionName conditionFamilyId policyIds policyName entityNames createdAt activatedAt acknowledgedBy closedAt sources origins eventType } nextCursor }
    incidents(filter: {states: [CREATED]}) { incidents { incidentId issueId title priority state createdAt closedAt entityNames ... on AiIssuesNewRelicIncident { conditionFamilyId policyIds } } nextCursor } } } } }`;
  const data = (await graphData(ts, ISSUES)).actor.account.aiIssues;
  const issueId = data.issues.issues[0].issueId;
  const title = "checkout-web query result is > 2 for 2 minutes on 'probe value'";
  assert.deepEqual(data.issues, {
    issues: [{
      issueId, state: 'ACTIVATED', priority: 'CRITICAL', title: [title], totalIncidents: 1, conditionName: ['probe value'], conditionFamilyId: [Number(conditionId)],
      policyIds: [Number(policyId)], policyName: ['probes'], entityNames: ['checkout-web'], createdAt: T0 + 4 * MIN, activatedAt: T0 + 4 * MIN, acknowledgedBy: null,
      closedAt: null, sources: ['newrelic'], origins: ['Alerts'], eventType: 'STATE_CHANGE',
    }],
    nextCursor: null,
  });
  assert.deepEqual(data.incidents, {
    incidents: [{
      incidentId: data.incidents.incidents[0].incidentId, issueId, title, priority: 'CRITICAL', state: 'CREATED', createdAt: T0 + 3 * MIN, closedAt: null,
      entityNames: 'checkout-web', conditionFamilyId: conditionId, policyIds: policyId,
    }],
    nextCursor: null,
  });

  const ack = await graphData(ts, `mutation { aiIssuesAckIssue(accountId: 1, issueId: "${issueId}") { error result { accountId action issueId } } }`);
  assert.deepEqual(ack, { aiIssuesAckIssue: { error: null, result: { accountId: 1, action: 'ACK', issueId } } });
  const ackB = await graphData(ts, `mutation { aiIssuesAckIssue(accountId: 1, issueId: "${issueId}") { error result { issueId } } }`, undefined, { key: keyB });
  assert.deepEqual(ackB, { aiIssuesAckIssue: { error: 'Access denied: this API key cannot reach account 1', result: null } });
  const issuesOfB = await graphData(ts, `{ actor { account(id: ${accountB}) { aiIssues { issues { issues { issueId } } } } } }`, undefined, { key: keyB });
  assert.deepEqual(issuesOfB.actor.account.aiIssues.issues.issues, []);

  clock.ms = T0 + 5 * MIN;
  const resolved = await graphData(ts, `mutation { aiIssuesResolveIssue(accountId: 1, issueId: "${issueId}") { error result { action } } }`);
  assert.deepEqual(resolved, { aiIssuesResolveIssue: { error: null, result: { action: 'RESOLVE' } } });
  const after = (await graphData(ts, ISSUES)).actor.account.aiIssues;
  assert.deepEqual(after.issues.issues.map((i: any) => [i.state, i.closedAt, i.eventType]), [['CLOSED', T0 + 5 * MIN, 'USER_ACTION']]);
  assert.equal(typeof after.issues.issues[0].acknowledgedBy, 'string');
  assert.deepEqual(after.incidents.incidents, [], 'no incident is open after the resolve');
  assert.equal(await severity(), 'NOT_ALERTING');
  const again = await graphData(ts, `mutation { aiIssuesResolveIssue(accountId: 1, issueId: "${issueId}") { error result { action } } }`);
  assert.deepEqual(again, { aiIssuesResolveIssue: { error: `Issue ${issueId} Not Found in account 1, or it is closed`, result: null } });
});

test('destinations, channels and workflows: the reference documents, the spec selection, payload errors and another account', async () => {
  const DEST = 'mutation($a:Int,$d:AiNotificationsDestinationInput!){aiNotificationsCreateDestination(accountId:$a,destination:$d){destination{id name type active status properties{key value} auth{... on AiNotificationsBasicAuth{authType user}}} errors{... on AiNotificationsResponseError{description type details}}}}';
  const dest = (await graphData(ts, DEST, { a: 1, d: { name: 'oncall-bridge', type: 'WEBHOOK', properties: [{ key: 'url', value: 'https://hooks.example.test/nr' }], auth: { type: 'BASIC', basic: { user: 'nr', password: 's3cr3t' } } } })).aiNotificationsCreateDestination;
  const destinationId = dest.destination.id;
  assert.deepEqual(dest, {
    destination: { id: destinationId, name: 'oncall-bridge', type: 'WEBHOOK', active: true, status: 'DEFAULT', properties: [{ key: 'url', value: 'https://hooks.example.test/nr' }], auth: { authType: 'BASIC', user: 'nr' } },
    errors: [],
  });
  const CHANNEL = 'mutation($a:Int!,$c:AiNotificationsChannelInput!){aiNotificationsCreateChannel(accountId:$a,channel:$c){channel{id name type product destinationId active status properties{key value label}} errors{... on AiNotificationsResponseError{description type details}}}}';
  const template = '{"id": {{ json issueId }}, "state": {{ json state }}}';
  const channel = (await graphData(ts, CHANNEL, { a: 1, c: { name: 'oncall-bridge payload', type: 'WEBHOOK', product: 'IINT', destinationId, properties: [{ key: 'payload', label: 'Payload Template', value: template }] } })).aiNotificationsCreateChannel;
  const channelId = channel.channel.id;
  assert.deepEqual(channel, {
    channel: { id: channelId, name: 'oncall-bridge payload', type: 'WEBHOOK', product: 'IINT', destinationId, active: true, status: 'DEFAULT', properties: [{ key: 'payload', value: template, label: 'Payload Template' }] },
    errors: [],
  });
  const badTemplate = (await graphData(ts, CHANNEL, { a: 1, c: { name: 'bad', type: 'WEBHOOK', product: 'IINT', destinationId, properties: [{ key: 'payload', value: '{"id": {{ issueId }}' }] } })).aiNotificationsCreateChannel;
  assert.equal(badTemplate.channel, null);
  assert.equal(badTemplate.errors[0].type, 'INVALID_PARAMETER');
  assert.match(badTemplate.errors[0].description, /^payload: The payload template does not render to valid JSON/);

  const WORKFLOW = 'mutation($a:Int!,$w:AiWorkflowsCreateWorkflowInput!){aiWorkflowsCreateWorkflow(accountId:$a,createWorkflowData:$w){workflow{id guid name workflowEnabled destinationsEnabled mutingRulesHandling issuesFilter{id name type predicates{attribute operator values}} destinationConfigurations{channelId name type notificationTriggers}} errors{description type}}}';
  const created = (await graphData(ts, WORKFLOW, { a: 1, w: { name: 'checkout on-call', mutingRulesHandling: 'DONT_NOTIFY_FULLY_MUTED_ISSUES', issuesFilter: { name: 'checkout policy', type: 'FILTER', predicates: [{ attribute: 'labels.policyIds', operator: 'EXACTLY_MATCHES', values: ['618204'] }] }, destinationConfigurations: [{ channelId, notificationTriggers: ['ACTIVATED', 'CLOSED'] }] } })).aiWorkflowsCreateWorkflow;
  const w = created.workflow;
  assert.deepEqual(created, {
    workflow: {
      id: w.id, guid: b64(`1|AIOPS|WORKFLOW|${w.id}`), name: 'checkout on-call', workflowEnabled: true, destinationsEnabled: true, mutingRulesHandling: 'DONT_NOTIFY_FULLY_MUTED_ISSUES',
      issuesFilter: { id: w.issuesFilter.id, name: 'checkout policy', type: 'FILTER', predicates: [{ attribute: 'labels.policyIds', operator: 'EXACTLY_MATCHES', values: ['618204'] }] },
      destinationConfigurations: [{ channelId, name: 'oncall-bridge payload', type: 'WEBHOOK', notificationTriggers: ['ACTIVATED', 'CLOSED'] }],
    },
    errors: [],
  });
  const again = (await graphData(ts, WORKFLOW, { a: 1, w: { name: 'second', mutingRulesHandling: 'NOTIFY_ALL_ISSUES', destinationConfigurations: [{ channelId }] } })).aiWorkflowsCreateWorkflow;
  assert.deepEqual([again.workflow, again.errors.map((e: any) => e.type)], [null, ['DUPLICATE']]);

  // The spec's selection (service-interface §2.3).
  const SPEC = '{ actor { account(id: 1) { aiWorkflows { workflows(filters: {nameLike: "on-call"}) { entities { guid name workflowEnabled destinationConfigurations { channelId name type } destinationsEnabled lastRun } nextCursor totalCount } } aiNotifications { destinations { entities { id name } totalCount } channels(filters: {destinationId: "' + destinationId + '"}) { entities { id } totalCount } } } } }';
  assert.deepEqual((await graphData(ts, SPEC)).actor.account, {
    aiWorkflows: { workflows: { entities: [{ guid: w.guid, name: 'checkout on-call', workflowEnabled: true, destinationConfigurations: [{ channelId, name: 'oncall-bridge payload', type: 'WEBHOOK' }], destinationsEnabled: true, lastRun: null }], nextCursor: null, totalCount: 1 } },
    aiNotifications: { destinations: { entities: [{ id: destinationId, name: 'oncall-bridge' }], totalCount: 1 }, channels: { entities: [{ id: channelId }], totalCount: 1 } },
  });

  // Account B: refusals in the payloads, and nothing of account 1 in its own lists.
  const asB = (await graphData(ts, `mutation { aiNotificationsDeleteDestination(accountId: 1, destinationId: "${destinationId}") { ids errors { type description } } }`, undefined, { key: keyB })).aiNotificationsDeleteDestination;
  assert.deepEqual(asB, { ids: null, errors: [{ type: 'UNAUTHORIZED_ACCOUNT', description: 'Access denied: this API key cannot reach account 1' }] });
  const wfB = (await graphData(ts, `mutation { aiWorkflowsDeleteWorkflow(accountId: ${accountB}, deleteChannels: false, id: "${w.id}") { id errors { type description } } }`, undefined, { key: keyB })).aiWorkflowsDeleteWorkflow;
  assert.deepEqual(wfB, { id: null, errors: [{ type: 'INVALID_PARAMETER', description: `Workflow ${w.id} Not Found` }] });
  const listB = await graphData(ts, `{ actor { account(id: ${accountB}) { aiWorkflows { workflows { totalCount } } aiNotifications { destinations { totalCount } } } } }`, undefined, { key: keyB });
  assert.deepEqual(listB.actor.account, { aiWorkflows: { workflows: { totalCount: 0 } }, aiNotifications: { destinations: { totalCount: 0 } } });

  const inUse = (await graphData(ts, `mutation { aiNotificationsDeleteDestination(accountId: 1, destinationId: "${destinationId}") { ids errors { type } } }`)).aiNotificationsDeleteDestination;
  assert.deepEqual(inUse, { ids: null, errors: [{ type: 'ENTITY_IN_USE' }] });
  assert.deepEqual(await graphData(ts, `mutation { aiWorkflowsDeleteWorkflow(accountId: 1, deleteChannels: true, id: "${w.id}") { id errors { type } } }`), { aiWorkflowsDeleteWorkflow: { id: w.id, errors: [] } });
  assert.deepEqual(await graphData(ts, `mutation { aiNotificationsDeleteDestination(accountId: 1, destinationId: "${destinationId}") { ids errors { type } } }`), { aiNotificationsDeleteDestination: { ids: [destinationId], errors: [] } });
});

// newrelic-client-go's NRQL condition documents (pkg/alerts/nrql_conditions.go: the struct fields and the
// baseline and static fragments, assembled as the client assembles them), replayed as it sends them.
const CG_FIELDS = `
    id
    name
    nrql {
      evaluationOffset
      query
      dataAccountId
    }
    enabled
    entityGuid
    description
    titleTemplate
    policyId
    runbookUrl
    terms {
      operator
      priority
      threshold
      thresholdDuration
      thresholdOccurrences
    }
    type
    violationTimeLimit
    violationTimeLimitSeconds
    expiration {
      closeViolationsOnExpiration
      expirationDuration
      openViolationOnExpiration
      ignoreOnExpectedTermination
    }
    signal {
      aggregationWindow
      evaluationOffset
      evaluationDelay
      fillOption
      fillValue
      aggregationMethod
      aggregationDelay
      aggregationTimer
      slideBy
    }
  `;
const CG_BASELINE = `
		... on AlertsNrqlBaselineCondition {
			baselineDirection
			signalSeasonality
		}
	`;
const CG_STATIC = `
		... on AlertsNrqlStaticCondition {
			terms {
				prediction {
					predictBy
					preferPredictionViolation
				}
			}
		}
	`;

test("newrelic-client-go's condition documents: create, read, search and update", async () => {
  const policyId = (await graphData(ts, POLICY_CREATE, { a: 1, p: { name: 'client-go', incidentPreference: 'PER_POLICY' } })).alertsPolicyCreate.id;
  const create = `
		mutation($accountId: Int!, $policyId: ID!, $condition: AlertsNrqlConditionStaticInput!) {
			alertsNrqlConditionStaticCreate(accountId: $accountId, policyId: $policyId, condition: $condition) {${CG_FIELDS}${CG_STATIC} } }`;
  const condition = {
    name: 'cg', enabled: true, description: 'from the client', runbookUrl: '', valueFunction: 'SINGLE_VALUE', violationTimeLimitSeconds: 3600,
    nrql: { query: 'SELECT count(*) FROM Transaction' },
    terms: [{ operator: 'ABOVE', priority: 'CRITICAL', threshold: 10, thresholdDuration: 300, thresholdOccurrences: 'AT_LEAST_ONCE' }],
    expiration: { closeViolationsOnExpiration: true, expirationDuration: 600, openViolationOnExpiration: false },
    signal: { aggregationWindow: 60, aggregationMethod: 'EVENT_TIMER', aggregationTimer: 30, fillOption: 'STATIC', fillValue: 0 },
  };
  const made = (await graphData(ts, create, { accountId: 1, policyId, condition })).alertsNrqlConditionStaticCreate;
  const expected = {
    id: made.id, name: 'cg', nrql: { evaluationOffset: null, query: 'SELECT count(*) FROM Transaction', dataAccountId: null }, enabled: true,
    entityGuid: b64(`1|AIOPS|CONDITION|${made.id}`), description: 'from the client', titleTemplate: null, policyId, runbookUrl: '',
    terms: [{ operator: 'ABOVE', priority: 'CRITICAL', threshold: 10, thresholdDuration: 300, thresholdOccurrences: 'AT_LEAST_ONCE', prediction: null }],
    type: 'STATIC', violationTimeLimit: 'ONE_HOUR', violationTimeLimitSeconds: 3600,
    expiration: { closeViolationsOnExpiration: true, expirationDuration: 600, openViolationOnExpiration: false, ignoreOnExpectedTermination: false },
    signal: { aggregationWindow: 60, evaluationOffset: null, evaluationDelay: null, fillOption: 'STATIC', fillValue: 0, aggregationMethod: 'EVENT_TIMER', aggregationDelay: null, aggregationTimer: 30, slideBy: null },
  };
  assert.deepEqual(made, expected);
  const get = `
		query ($accountId: Int!, $id: ID!) {
			actor {
				account(id: $accountId) {
					alerts {
						nrqlCondition(id: $id) {${CG_FIELDS}${CG_BASELINE}${CG_STATIC}} } } } }`;
  assert.deepEqual((await graphData(ts, get, { accountId: 1, id: made.id })).actor.account.alerts.nrqlCondition, expected);
  const search = `
		query($accountId: Int!, $searchCriteria: AlertsNrqlConditionsSearchCriteriaInput, $cursor: String) {
			actor {
				account(id: $accountId) {
					alerts {
						nrqlConditionsSearch(searchCriteria: $searchCriteria, cursor: $cursor) {
							nextCursor
							totalCount
							nrqlConditions {${CG_FIELDS}${CG_BASELINE}${CG_STATIC}} } } } } }`;
  const found = (await graphData(ts, search, { accountId: 1, searchCriteria: { policyId } })).actor.account.alerts.nrqlConditionsSearch;
  assert.deepEqual(found, { nextCursor: null, totalCount: 1, nrqlConditions: [expected] });
  // client-go's update sends the whole signal with nulls for what it does not set: those reset to their
  // defaults, while keys it leaves out (the fill) keep their values.
  const update = `
		mutation($accountId: Int!, $id: ID!, $condition: AlertsNrqlConditionUpdateStaticInput!) {
			alertsNrqlConditionStaticUpdate(accountId: $accountId, id: $id, condition: $condition) {${CG_FIELDS}${CG_STATIC} } }`;
  const updated = (await graphData(ts, update, {
    accountId: 1, id: made.id,
    condition: { name: 'cg2', runbookUrl: '', titleTemplate: null, nrql: { query: 'SELECT count(*) FROM Transaction', evaluationOffset: null }, signal: { aggregationWindow: 60, aggregationMethod: null, aggregationDelay: null, aggregationTimer: null, slideBy: null } },
  })).alertsNrqlConditionStaticUpdate;
  assert.deepEqual([updated.name, updated.runbookUrl, updated.signal], ['cg2', '', { aggregationWindow: 60, evaluationOffset: null, evaluationDelay: null, fillOption: 'STATIC', fillValue: 0, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 120, aggregationTimer: null, slideBy: null }]);
});
