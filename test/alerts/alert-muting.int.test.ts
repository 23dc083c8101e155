import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import { graph, graphData } from '../helpers/graph-client.js';
import { connectApp, ManualClock } from '../helpers/rest-fixture.js';
import { repoRoot } from '../helpers/samples.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// Muting rules through NerdGraph: newrelic-client-go's documents (the Terraform provider's
// newrelic_alert_muting_rule) replayed verbatim with its Go types' variables, validation, another
// account, and the effect: an incident opening inside the rule's window is muted, its issue is
// FULLY_MUTED, and a workflow that does not notify fully muted issues sends nothing while one that
// notifies all issues does.

const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;
const clock = new ManualClock(T0);
const received: string[] = [];
let rx: Server;
let url: string;
let ts: TestServer;
let appId: number;

const document = (name: string) => readFileSync(join(repoRoot(), 'test/golden/graph/clients', `client-go-alerts-${name}.graphql`), 'utf8').replace(/^(#[^\n]*\n)+/, '').replace(/\n$/, '');

before(async () => {
  rx = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(req.url ?? '');
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => rx.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(rx.address() as AddressInfo).port}`;
  ts = await startTestServer({}, { clock, alertIntervalMs: 0 });
  appId = (await connectApp(ts, 'checkout-web')).appId;
});
after(async () => {
  await ts?.stop();
  await new Promise((resolve) => rx?.close(resolve));
});

test("client-go's muting rule documents: create, read, list, update, delete", async () => {
  const me = (await graphData(ts, '{ actor { user { id name email } } }')).actor.user;
  const user = { email: me.email, gravatar: null, id: me.id, name: me.name };
  const created = (await graphData(ts, document('muting-rule-create'), {
    accountID: 1,
    rule: {
      actionOnMutingRuleWindowEnded: 'CLOSE_ISSUES_ON_INACTIVE',
      condition: { conditions: [{ attribute: 'conditionName', operator: 'EQUALS', values: ['probe value'] }], operator: 'AND' },
      description: 'checkout maintenance', enabled: true, name: 'maintenance window',
      schedule: { endTime: '2026-11-20T14:00:00', startTime: '2026-11-20T12:00:00', timeZone: 'Europe/Paris' },
    },
  })).alertsMutingRuleCreate;
  const id: string = created.id;
  assert.match(id, /^[0-9]+$/);
  const view = {
    accountId: 1, actionOnMutingRuleWindowEnded: 'CLOSE_ISSUES_ON_INACTIVE',
    condition: { conditions: [{ attribute: 'conditionName', operator: 'EQUALS', values: ['probe value'] }], operator: 'AND' },
    id, name: 'maintenance window', enabled: true, description: 'checkout maintenance', createdAt: new Date(T0).toISOString(), createdByUser: user,
    updatedAt: new Date(T0).toISOString(), updatedByUser: user,
    // Paris is UTC+1 in November: the window is 11:00–13:00 UTC.
    schedule: { startTime: '2026-11-20T12:00:00+01:00', endTime: '2026-11-20T14:00:00+01:00', timeZone: 'Europe/Paris', repeat: null, endRepeat: null, repeatCount: null, weeklyRepeatDays: null },
  };
  assert.deepEqual(created, view);
  await ts.restart();
  // client-go sends the rule id as a Go int; the rule was kept across the restart.
  assert.deepEqual((await graphData(ts, document('muting-rule-get'), { accountID: 1, ruleID: Number(id) })).actor.account.alerts.mutingRule, view);
  assert.deepEqual((await graphData(ts, document('muting-rules'), { accountID: 1 })).actor.account.alerts.mutingRules, [
    { id, name: 'maintenance window', description: 'checkout maintenance', enabled: true, condition: { operator: 'AND', conditions: view.condition.conditions } },
  ]);
  const status = async () => (await graphData(ts, `{ actor { account(id: 1) { alerts { mutingRule(id: "${id}") { status } } } } }`)).actor.account.alerts.mutingRule.status;
  assert.equal(await status(), 'ACTIVE');

  // MutingRuleUpdateInput: enabled and every schedule key always sent, null when unset.
  clock.ms = T0 + MIN;
  const updated = (await graphData(ts, document('muting-rule-update'), {
    accountID: 1, ruleID: Number(id),
    rule: {
      actionOnMutingRuleWindowEnded: 'DO_NOTHING', enabled: true, name: 'nightly window',
      schedule: { endRepeat: null, endTime: '2026-11-21T03:00:00', repeat: 'DAILY', repeatCount: 3, startTime: '2026-11-21T01:00:00', timeZone: 'America/New_York', weeklyRepeatDays: null },
    },
  })).alertsMutingRuleUpdate;
  assert.deepEqual(updated, {
    ...view, actionOnMutingRuleWindowEnded: 'DO_NOTHING', name: 'nightly window', updatedAt: new Date(T0 + MIN).toISOString(),
    schedule: { startTime: '2026-11-21T01:00:00-05:00', endTime: '2026-11-21T03:00:00-05:00', timeZone: 'America/New_York', repeat: 'DAILY', endRepeat: null, repeatCount: 3, weeklyRepeatDays: null },
  });
  assert.equal(await status(), 'SCHEDULED');

  const bad = await graph(ts, document('muting-rule-update'), { accountID: 1, ruleID: Number(id), rule: { enabled: true, schedule: { endRepeat: null, endTime: null, repeat: 'WEEKLY', repeatCount: null, startTime: '2026-11-21T01:00:00', timeZone: 'Mars/Olympus', weeklyRepeatDays: null } } });
  assert.deepEqual(bad.body.errors?.map((e) => [e.message, e.extensions]), [['Validation Error', {
    errorClass: 'BAD_USER_INPUT', code: 'BAD_USER_INPUT', validationErrors: [
      { name: 'schedule.timeZone', reason: "'Mars/Olympus' is not an IANA time zone" },
      { name: 'schedule.repeat', reason: 'A repeating schedule needs a startTime and an endTime' },
      { name: 'schedule.weeklyRepeatDays', reason: 'A WEEKLY schedule needs weeklyRepeatDays' },
    ],
  }]]);

  const accountB = (await ts.server.catalog.createAccount('B')).id;
  const keyB = await ts.server.catalog.createUserKey(accountB);
  const asB = await graph(ts, document('muting-rule-delete'), { accountID: accountB, ruleID: Number(id) }, { key: keyB });
  assert.deepEqual(asB.body.errors?.map((e) => [e.message, e.extensions?.code]), [[`Muting rule ${id} Not Found`, 'BAD_USER_INPUT']]);
  assert.deepEqual(await graphData(ts, document('muting-rule-delete'), { accountID: 1, ruleID: Number(id) }), { alertsMutingRuleDelete: { id } });
  assert.deepEqual((await graphData(ts, document('muting-rules'), { accountID: 1 })).actor.account.alerts.mutingRules, []);
});

test('an incident opening in a muting window is muted; workflows notify by their mutingRulesHandling', async () => {
  clock.ms = T0;
  const ruleId = (await graphData(ts, `mutation($r: AlertsMutingRuleInput!) { alertsMutingRuleCreate(accountId: 1, rule: $r) { id status } }`, {
    r: { name: 'probes muted', enabled: true, condition: { operator: 'AND', conditions: [{ attribute: 'tag.appName', operator: 'IN', values: ['checkout-web', 'billing-web'] }] } },
  })).alertsMutingRuleCreate;
  assert.equal(ruleId.status, 'ACTIVE');
  const policyId = (await graphData(ts, 'mutation { alertsPolicyCreate(accountId: 1, policy: {name: "probes", incidentPreference: PER_CONDITION}) { id } }')).alertsPolicyCreate.id;
  await graphData(ts, 'mutation($p: ID!, $c: AlertsNrqlConditionStaticInput!) { alertsNrqlConditionStaticCreate(accountId: 1, policyId: $p, condition: $c) { id } }', {
    p: policyId,
    c: {
      name: 'probe value', enabled: true, nrql: { query: 'SELECT average(value) FROM Probe FACET appName' },
      terms: [{ operator: 'ABOVE', priority: 'CRITICAL', threshold: 2, thresholdDuration: 120, thresholdOccurrences: 'ALL' }],
      signal: { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 0 },
    },
  });
  for (const [path, handling] of [['/all', 'NOTIFY_ALL_ISSUES'], ['/unmuted', 'DONT_NOTIFY_FULLY_MUTED_ISSUES']] as const) {
    const destinationId = (await graphData(ts, `mutation { aiNotificationsCreateDestination(accountId: 1, destination: {name: "${path}", type: WEBHOOK, properties: [{key: "url", value: "${url}${path}"}]}) { destination { id } } }`)).aiNotificationsCreateDestination.destination.id;
    const channelId = (await graphData(ts, `mutation { aiNotificationsCreateChannel(accountId: 1, channel: {name: "${path}", type: WEBHOOK, product: IINT, destinationId: "${destinationId}", properties: []}) { channel { id } } }`)).aiNotificationsCreateChannel.channel.id;
    await graphData(ts, `mutation { aiWorkflowsCreateWorkflow(accountId: 1, createWorkflowData: {name: "${path}", mutingRulesHandling: ${handling}, destinationConfigurations: [{channelId: "${channelId}"}]}) { workflow { id } } }`);
  }

  const rows = new Rows(CUSTOM_EVENTS);
  for (const [minute, value] of [[0, 1], [1, 3], [2, 3], [3, 3]] as const) rows.push(1, appId, 0, 0, T0 + minute * MIN + 5_000, 'Probe', JSON.stringify({ value }));
  await ts.server.writer.write([rows]);
  clock.ms = T0 + 4 * MIN;
  await ts.server.alerts.evaluateOnce();
  await ts.server.alerts.flushNotifications();

  const issues = (await graphData(ts, '{ actor { account(id: 1) { aiIssues { issues { issues { state mutingState } } muted: issues(filter: {mutingStates: [FULLY_MUTED]}) { issues { state } } } } } }')).actor.account.aiIssues;
  assert.deepEqual(issues, { issues: { issues: [{ state: 'ACTIVATED', mutingState: 'FULLY_MUTED' }] }, muted: { issues: [{ state: 'ACTIVATED' }] } });
  assert.deepEqual(received, ['/all'], 'only the workflow that notifies all issues sends');
  const events = await graphData(ts, `{ actor { account(id: 1) { nrql(query: "SELECT muted, mutingRuleId FROM NrAiIncident SINCE ${T0} UNTIL ${T0 + 10 * MIN}") { results } } } }`);
  assert.deepEqual(events.actor.account.nrql.results.map((r: Record<string, unknown>) => [r.muted, r.mutingRuleId]), [[true, Number(ruleId.id)]]);
});
