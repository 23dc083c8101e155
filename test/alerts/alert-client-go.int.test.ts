import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../helpers/rest-fixture.js';
import { repoRoot } from '../helpers/samples.js';
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/test-server.js';
import { httpRequest } from '../graph/graph-scenario.js';

/*
 * The Terraform provider's lifecycle of an alerting setup, as newrelic-client-go sends it: every
 * document is read verbatim from test/golden/graph/clients/client-go-alerts-*.graphql (each file
 * names the client's source file, constant and commit), the variables are what the client's Go
 * input types encode to (zero values of non-pointer structs included, keys sorted as Go writes a
 * map), and the headers are the provider's. Each reply must carry no `errors` (client-go turns any
 * into the call's failure) and the exact stored values.
 */

const CLIENTS_DIR = join(repoRoot(), 'test/golden/graph/clients');
const document = (name: string) => readFileSync(join(CLIENTS_DIR, `client-go-alerts-${name}.graphql`), 'utf8').replace(/^(#[^\n]*\n)+/, '').replace(/\n$/, '');

function goJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(goJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, goJson((value as Record<string, unknown>)[k])]));
  }
  return value;
}

/** One request as the Terraform provider sends it through client-go; the reply's data, or a failed assertion. */
async function terraform(name: string, variables: Record<string, unknown>): Promise<any> {
  const reply = await httpRequest(ts, {
    headers: {
      'Api-Key': TEST_API_KEY,
      'Content-Type': 'application/json',
      'User-Agent': 'newrelic/newrelic-client-go/2.93.1 (https://github.com/newrelic/newrelic-client-go)',
      'NewRelic-Requesting-Services': 'terraform-provider-newrelic|newrelic-client-go',
      'X-Query-Source-Capability-Id': 'TERRAFORM',
    },
    body: JSON.stringify({ query: document(name), variables: goJson(variables) }),
  });
  assert.equal(reply.status, 200, reply.text.slice(0, 500));
  const body = reply.json();
  assert.deepEqual(body.errors ?? [], [], `${name}: client-go returns these as the call's error`);
  return body.data;
}

const T0 = Date.parse('2026-11-20T12:00:00Z');
const clock = new ManualClock(T0);
const iso = (ms: number) => new Date(ms).toISOString();
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64').replace(/=+$/, '');
let ts: TestServer;

before(async () => {
  ts = await startTestServer({}, { clock, alertIntervalMs: 0 });
});
after(() => ts?.stop());

/** What client-go's AiNotificationsCredentialsInput encodes for a TOKEN credential: the other kinds as zero structs. */
const tokenAuth = (token: string) => ({
  basic: { password: '', user: '' },
  oauth2: { accessTokenUrl: '', authorizationUrl: '', clientId: '', clientSecret: '', refreshable: false, token: '' },
  token: { prefix: 'Bearer', token },
  type: 'TOKEN',
});

test('policy and NRQL condition: create, read, search, update, delete as the provider does', async () => {
  const policy = (await terraform('policy-create', { accountID: 1, policy: { incidentPreference: 'PER_CONDITION_AND_TARGET', name: 'checkout-web' } })).alertsPolicyCreate;
  const policyId: string = policy.id;
  assert.match(policyId, /^[0-9]+$/);
  const policyView = (name: string, preference: string) => ({ id: policyId, name, incidentPreference: preference, accountId: 1, entityGuid: b64(`1|AIOPS|POLICY|${policyId}`) });
  assert.deepEqual(policy, policyView('checkout-web', 'PER_CONDITION_AND_TARGET'));
  assert.deepEqual((await terraform('policy-get', { accountID: 1, policyID: policyId })).actor.account.alerts.policy, policyView('checkout-web', 'PER_CONDITION_AND_TARGET'));
  // The client names its variable searchCriteria while the document declares $criteria: the search is unfiltered.
  const search = (await terraform('policy-search', { accountID: 1, cursor: null, searchCriteria: { ids: [policyId] } })).actor.account.alerts.policiesSearch;
  assert.deepEqual(search, { nextCursor: null, totalCount: 1, policies: [{ accountId: 1, id: policyId, incidentPreference: 'PER_CONDITION_AND_TARGET', name: 'checkout-web', entityGuid: b64(`1|AIOPS|POLICY|${policyId}`) }] });
  assert.deepEqual(
    (await terraform('policy-update', { accountID: 1, policyID: policyId, policy: { incidentPreference: 'PER_POLICY', name: 'checkout-web golden signals' } })).alertsPolicyUpdate,
    policyView('checkout-web golden signals', 'PER_POLICY'),
  );

  // NrqlConditionCreateInput as the provider fills it for a static condition with two terms.
  const query = "SELECT percentile(duration, 95) FROM Transaction WHERE appName = 'checkout-web' FACET host";
  const created = (await terraform('nrql-condition-static-create', {
    accountId: 1,
    policyId,
    condition: {
      description: 'p95 of {{conditionName}} is {{threshold}}', enabled: true, name: 'checkout p95',
      nrql: { dataAccountId: 1, query },
      runbookUrl: 'https://runbooks.example.test/checkout',
      terms: [
        { disableEventCreation: false, disableHealthStatusReporting: false, operator: 'ABOVE', priority: 'CRITICAL', threshold: 1.5, thresholdDuration: 300, thresholdOccurrences: 'ALL' },
        { disableEventCreation: true, disableHealthStatusReporting: true, operator: 'ABOVE_OR_EQUALS', priority: 'WARNING', threshold: 1, thresholdDuration: 600, thresholdOccurrences: 'AT_LEAST_ONCE' },
      ],
      violationTimeLimitSeconds: 86400,
      expiration: { closeViolationsOnExpiration: true, expirationDuration: 600, ignoreOnExpectedTermination: true, openViolationOnExpiration: false },
      signal: { aggregationDelay: 120, aggregationMethod: 'EVENT_FLOW', aggregationWindow: 60, fillOption: 'STATIC', fillValue: 0.25 },
      titleTemplate: '{{conditionName}} slow on {{targetName}}',
      targetEntity: b64('1|APM|APPLICATION|42'),
    },
  })).alertsNrqlConditionStaticCreate;
  const conditionId: string = created.id;
  const expected = {
    id: conditionId, name: 'checkout p95', nrql: { evaluationOffset: null, query, dataAccountId: 1 }, enabled: true,
    entityGuid: b64(`1|AIOPS|CONDITION|${conditionId}`), description: 'p95 of {{conditionName}} is {{threshold}}', titleTemplate: '{{conditionName}} slow on {{targetName}}', policyId,
    runbookUrl: 'https://runbooks.example.test/checkout', targetEntity: b64('1|APM|APPLICATION|42'),
    terms: [
      { operator: 'ABOVE', priority: 'CRITICAL', threshold: 1.5, thresholdDuration: 300, thresholdOccurrences: 'ALL', disableHealthStatusReporting: false, disableEventCreation: false, prediction: null },
      { operator: 'ABOVE_OR_EQUALS', priority: 'WARNING', threshold: 1, thresholdDuration: 600, thresholdOccurrences: 'AT_LEAST_ONCE', disableHealthStatusReporting: true, disableEventCreation: true, prediction: null },
    ],
    type: 'STATIC', violationTimeLimit: 'TWENTY_FOUR_HOURS', violationTimeLimitSeconds: 86400,
    expiration: { closeViolationsOnExpiration: true, expirationDuration: 600, openViolationOnExpiration: false, ignoreOnExpectedTermination: true },
    signal: { aggregationWindow: 60, evaluationOffset: null, evaluationDelay: null, fillOption: 'STATIC', fillValue: 0.25, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 120, aggregationTimer: null, slideBy: null },
  };
  assert.deepEqual(created, expected);
  assert.deepEqual((await terraform('nrql-condition-get', { accountId: 1, id: conditionId })).actor.account.alerts.nrqlCondition, expected);
  assert.deepEqual(
    (await terraform('nrql-condition-search', { accountId: 1, cursor: null, searchCriteria: { policyId } })).actor.account.alerts.nrqlConditionsSearch,
    { nextCursor: null, totalCount: 1, nrqlConditions: [expected] },
  );

  // NrqlConditionUpdateInput: runbookUrl, nrql.evaluationOffset, titleTemplate, targetEntity and the
  // signal's method, delay, timer and slide are always sent, null when unset.
  clock.ms = T0 + 60_000;
  const updated = (await terraform('nrql-condition-static-update', {
    accountId: 1,
    id: conditionId,
    condition: {
      enabled: true, name: 'checkout p95 (timer)',
      nrql: { evaluationOffset: null, query },
      runbookUrl: '',
      terms: [{ disableHealthStatusReporting: false, operator: 'ABOVE', priority: 'CRITICAL', threshold: 2, thresholdDuration: 120, thresholdOccurrences: 'ALL' }],
      violationTimeLimitSeconds: 3600,
      expiration: { closeViolationsOnExpiration: false, expirationDuration: null, ignoreOnExpectedTermination: false, openViolationOnExpiration: false },
      signal: { aggregationDelay: null, aggregationMethod: 'EVENT_TIMER', aggregationTimer: 30, aggregationWindow: 60, fillOption: 'NONE', fillValue: null, slideBy: null },
      titleTemplate: null,
      targetEntity: null,
    },
  })).alertsNrqlConditionStaticUpdate;
  assert.deepEqual(updated, {
    ...expected,
    name: 'checkout p95 (timer)', titleTemplate: null, targetEntity: null, runbookUrl: '',
    terms: [{ operator: 'ABOVE', priority: 'CRITICAL', threshold: 2, thresholdDuration: 120, thresholdOccurrences: 'ALL', disableHealthStatusReporting: false, disableEventCreation: false, prediction: null }],
    violationTimeLimit: 'ONE_HOUR', violationTimeLimitSeconds: 3600,
    expiration: { closeViolationsOnExpiration: false, expirationDuration: null, openViolationOnExpiration: false, ignoreOnExpectedTermination: false },
    signal: { aggregationWindow: 60, evaluationOffset: null, evaluationDelay: null, fillOption: 'NONE', fillValue: null, aggregationMethod: 'EVENT_TIMER', aggregationDelay: null, aggregationTimer: 30, slideBy: null },
  });

  // A condition reads its own account: another dataAccountId is refused, and nothing changes.
  const elsewhere = await httpRequest(ts, {
    headers: { 'Api-Key': TEST_API_KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: document('nrql-condition-static-update'), variables: { accountId: 1, id: conditionId, condition: { enabled: true, nrql: { dataAccountId: 2, evaluationOffset: null, query }, runbookUrl: '' } } }),
  });
  assert.deepEqual(elsewhere.json().errors.map((e: { message: string; extensions: unknown }) => [e.message, e.extensions]), [['Validation Error', {
    errorClass: 'BAD_USER_INPUT', code: 'BAD_USER_INPUT', validationErrors: [{ name: 'nrql.dataAccountId', reason: 'A condition reads the data of its own account (1), not of account 2' }],
  }]]);
  assert.equal((await terraform('nrql-condition-get', { accountId: 1, id: conditionId })).actor.account.alerts.nrqlCondition.name, 'checkout p95 (timer)');

  assert.deepEqual(await terraform('condition-delete', { accountId: 1, id: conditionId }), { alertsConditionDelete: { id: conditionId } });
  assert.deepEqual(
    (await terraform('nrql-condition-search', { accountId: 1, cursor: null, searchCriteria: { policyId } })).actor.account.alerts.nrqlConditionsSearch,
    { nextCursor: null, totalCount: 0, nrqlConditions: [] },
  );
  assert.deepEqual(await terraform('policy-delete', { accountID: 1, policyID: policyId }), { alertsPolicyDelete: { id: policyId } });
  assert.deepEqual((await terraform('policy-search', { accountID: 1, cursor: null })).actor.account.alerts.policiesSearch, { nextCursor: null, totalCount: 0, policies: [] });
});

test('destination, channel and workflow: create, read, update, delete as the provider does', async () => {
  clock.ms = T0 + 10 * 60_000;
  const created = (await terraform('notifications-create-destination', {
    accountId: 1,
    destination: { auth: tokenAuth('s3cr3t'), name: 'oncall webhook', properties: [{ key: 'url', value: 'https://hooks.example.test/nr' }], type: 'WEBHOOK' },
  })).aiNotificationsCreateDestination;
  const destinationId: string = created.destination.id;
  const destination = (name: string, url: string, updatedAt: number) => ({
    accountId: 1, active: true, auth: { authType: 'TOKEN', prefix: 'Bearer' }, createdAt: iso(T0 + 10 * 60_000), guid: b64(`1|AIOPS|DESTINATION|${destinationId}`), id: destinationId,
    isUserAuthenticated: false, lastSent: null, name, properties: [{ displayValue: null, key: 'url', label: null, value: url }], scope: { id: '1', type: 'ACCOUNT' },
    secureUrl: null, status: 'DEFAULT', type: 'WEBHOOK', updatedAt: iso(updatedAt), updatedBy: 0,
  });
  assert.deepEqual(created, { destination: destination('oncall webhook', 'https://hooks.example.test/nr', T0 + 10 * 60_000), errors: [], error: null });
  const read = (await terraform('notifications-destinations', { accountID: 1, filters: { id: destinationId } })).actor.account.aiNotifications.destinations;
  assert.deepEqual(read, { entities: [destination('oncall webhook', 'https://hooks.example.test/nr', T0 + 10 * 60_000)], error: null, errors: [], nextCursor: null, totalCount: 1 });
  clock.ms = T0 + 11 * 60_000;
  const changed = (await terraform('notifications-update-destination', {
    accountId: 1, destinationId,
    destination: { auth: tokenAuth('n3w'), name: 'oncall webhook v2', properties: [{ key: 'url', value: 'https://hooks.example.test/v2' }] },
  })).aiNotificationsUpdateDestination;
  assert.deepEqual(changed, { destination: destination('oncall webhook v2', 'https://hooks.example.test/v2', T0 + 11 * 60_000), errors: [], error: null });

  const template = '{"id": {{ json issueId }}, "title": {{ json annotations.title.[0] }}}';
  const channelMade = (await terraform('notifications-create-channel', {
    accountId: 1,
    channel: { destinationId, name: 'oncall payload', product: 'IINT', properties: [{ key: 'payload', label: 'Payload Template', value: template }], type: 'WEBHOOK' },
  })).aiNotificationsCreateChannel;
  const channelId: string = channelMade.channel.id;
  const channel = (name: string, updatedAt: number) => ({
    accountId: 1, active: true, createdAt: iso(T0 + 11 * 60_000), destinationId, id: channelId, name, product: 'IINT',
    properties: [{ displayValue: null, key: 'payload', label: 'Payload Template', value: template }], status: 'DEFAULT', type: 'WEBHOOK', updatedAt: iso(updatedAt), updatedBy: 0,
  });
  assert.deepEqual(channelMade, { channel: channel('oncall payload', T0 + 11 * 60_000), error: null, errors: [] });
  assert.deepEqual(
    (await terraform('notifications-channels', { accountID: 1, filters: { id: channelId } })).actor.account.aiNotifications.channels,
    { entities: [channel('oncall payload', T0 + 11 * 60_000)], error: null, errors: [], nextCursor: null, totalCount: 1 },
  );
  clock.ms = T0 + 12 * 60_000;
  assert.deepEqual(
    (await terraform('notifications-update-channel', { accountId: 1, channelId, channel: { name: 'oncall payload v2', properties: [{ key: 'payload', label: 'Payload Template', value: template }] } })).aiNotificationsUpdateChannel,
    { channel: channel('oncall payload v2', T0 + 12 * 60_000), error: null, errors: [] },
  );

  const predicates = [{ attribute: 'labels.policyIds', operator: 'EXACTLY_MATCHES', values: ['7'] }];
  const workflowMade = (await terraform('workflows-create', {
    accountId: 1,
    createWorkflowData: {
      destinationConfigurations: [{ channelId, notificationTriggers: ['ACTIVATED', 'CLOSED'], updateOriginalMessage: true }],
      destinationsEnabled: true,
      enrichments: { nrql: [{ configuration: [{ query: "SELECT count(*) FROM Transaction WHERE appName = 'checkout-web' SINCE 10 minutes ago" }], name: 'recent traffic' }] },
      enrichmentsEnabled: true,
      issuesFilter: { name: 'checkout', predicates, type: 'FILTER' },
      mutingRulesHandling: 'NOTIFY_ALL_ISSUES', name: 'checkout on-call', workflowEnabled: true,
    },
  })).aiWorkflowsCreateWorkflow;
  const workflowId: string = workflowMade.workflow.id;
  const filterId: string = workflowMade.workflow.issuesFilter.id;
  const enrichmentId: string = workflowMade.workflow.enrichments[0]?.id;
  const enrichment = (query: string, updatedAt: number) => ({
    accountId: 1, configurations: [{ query }], createdAt: iso(T0 + 12 * 60_000), id: enrichmentId, name: 'recent traffic', type: 'NRQL', updatedAt: iso(updatedAt),
  });
  const firstQuery = "SELECT count(*) FROM Transaction WHERE appName = 'checkout-web' SINCE 10 minutes ago";
  const workflow = (name: string, triggers: string[], updatedAt: number, query = firstQuery) => ({
    accountId: 1, createdAt: iso(T0 + 12 * 60_000),
    destinationConfigurations: [{ channelId, name: 'oncall payload v2', notificationTriggers: triggers, type: 'WEBHOOK', updateOriginalMessage: true }],
    destinationsEnabled: true, enrichments: [enrichment(query, updatedAt)], enrichmentsEnabled: true, guid: b64(`1|AIOPS|WORKFLOW|${workflowId}`), id: workflowId,
    issuesFilter: { accountId: 1, id: filterId, name: 'checkout', predicates, type: 'FILTER' }, lastRun: null, mutingRulesHandling: 'NOTIFY_ALL_ISSUES', name,
    updatedAt: iso(updatedAt), workflowEnabled: true,
  });
  assert.deepEqual(workflowMade, { errors: [], workflow: workflow('checkout on-call', ['ACTIVATED', 'CLOSED'], T0 + 12 * 60_000) });
  // GetWorkflows sends a cursor the document does not declare: an empty string, ignored.
  assert.deepEqual(
    (await terraform('workflows', { accountID: 1, cursor: '', filters: { id: workflowId } })).actor.account.aiWorkflows.workflows,
    { entities: [workflow('checkout on-call', ['ACTIVATED', 'CLOSED'], T0 + 12 * 60_000)], nextCursor: null, totalCount: 1 },
  );
  clock.ms = T0 + 13 * 60_000;
  const workflowChanged = (await terraform('workflows-update', {
    accountId: 1, deleteUnusedChannels: false,
    updateWorkflowData: {
      destinationConfigurations: [{ channelId, notificationTriggers: ['ACTIVATED', 'ACKNOWLEDGED', 'CLOSED'], updateOriginalMessage: true }],
      destinationsEnabled: true,
      enrichments: { nrql: [{ configuration: [{ query: "SELECT average(duration) FROM Transaction WHERE appName = 'checkout-web' SINCE 10 minutes ago" }], id: enrichmentId, name: 'recent traffic' }] },
      enrichmentsEnabled: true, id: workflowId,
      issuesFilter: { filterInput: { name: 'checkout', predicates, type: 'FILTER' }, id: filterId },
      mutingRulesHandling: 'NOTIFY_ALL_ISSUES', name: 'checkout on-call v2', workflowEnabled: true,
    },
  })).aiWorkflowsUpdateWorkflow;
  assert.deepEqual(workflowChanged, {
    errors: [],
    workflow: workflow('checkout on-call v2', ['ACTIVATED', 'ACKNOWLEDGED', 'CLOSED'], T0 + 13 * 60_000, "SELECT average(duration) FROM Transaction WHERE appName = 'checkout-web' SINCE 10 minutes ago"),
  });

  assert.deepEqual(await terraform('workflows-delete', { accountId: 1, deleteChannels: false, id: workflowId }), { aiWorkflowsDeleteWorkflow: { errors: [], id: workflowId } });
  assert.deepEqual(await terraform('notifications-delete-channel', { accountId: 1, channelId }), { aiNotificationsDeleteChannel: { error: null, errors: [], ids: [channelId] } });
  assert.deepEqual(
    await terraform('notifications-delete-destination', { accountId: 1, destinationId }),
    { aiNotificationsDeleteDestination: { error: null, errors: [], ids: [destinationId] } },
  );
  assert.deepEqual(
    (await terraform('notifications-destinations', { accountID: 1, filters: { id: destinationId } })).actor.account.aiNotifications.destinations,
    { entities: [], error: null, errors: [], nextCursor: null, totalCount: 0 },
  );
});
