import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Incident, Issue } from './alert-model.js';
import { checkLegacyConfiguration, formEncode, legacyWebhookPayload, renderLegacyPayload } from './legacy-channel.js';

const T = Date.UTC(2026, 10, 20, 12, 4, 0);

const incident = (id: string, priority: 'CRITICAL' | 'HIGH', closedAt: number | null): Incident => ({
  id, accountId: 3, policyId: '11', conditionId: '21', conditionName: 'errors high', signalKey: '["web"]', facets: { appName: 'web' }, termKey: 'CRITICAL',
  priority, evaluationType: 'Threshold', operator: 'ABOVE', threshold: 5, thresholdDuration: 60, thresholdOccurrences: 'ALL', disableHealthStatusReporting: false,
  title: `web query result is > 5 for 1 minutes on 'errors high' (${id})`, degradationAt: T - 120_000, openedAt: T - 60_000, detectedAt: T, closedAt,
  closeCause: closedAt === null ? null : 'EVALUATOR', closeDetectedAt: closedAt, issueId: 'u-1',
});

const issue: Issue = {
  id: 'u-1', accountId: 3, policyId: '11', policyName: 'checkout', key: '["11"]', state: 'ACTIVATED', priority: 'CRITICAL',
  incidentIds: ['a', 'b', 'c'], openIncidentIds: ['a', 'b'], conditionIds: ['21'], conditionNames: ['errors high'], titles: ['t'], entityNames: ['web'],
  createdAt: T, activatedAt: T, acknowledgedAt: T + 30_000, acknowledgedBy: 'Ada', closedAt: null, closedBy: null, updatedAt: T + 30_000, lastTrigger: 'USER_ACTION',
};

test('the default legacy payload: counts by priority and state, urls from the REST number, the owner', () => {
  const target = { id: '5', name: 'web', link: 'http://ts/v2/applications/5.json', labels: {}, product: 'APM', type: 'Application' };
  const body = legacyWebhookPayload({
    issue, issueNumber: 42, incidents: [incident('a', 'CRITICAL', null), incident('b', 'HIGH', null), incident('c', 'HIGH', T + 10_000)],
    state: 'acknowledged', at: T + 30_000, accountName: 'Acme', origin: 'http://ts', targetOf: () => target, runbookUrl: null, conditionDescription: null,
  });
  assert.deepEqual(body, {
    account_id: 3, account_name: 'Acme', closed_violations_count_critical: 0, closed_violations_count_warning: 1, condition_description: '',
    condition_family_id: 21, condition_id: 21, condition_name: 'errors high', current_state: 'acknowledged', details: "web query result is > 5 for 1 minutes on 'errors high' (a)",
    duration: 30_000, event_type: 'INCIDENT', incident_acknowledge_url: 'http://ts/accounts/3/incidents/42/acknowledge', incident_id: 42,
    incident_url: 'http://ts/accounts/3/incidents/42', open_violations_count_critical: 1, open_violations_count_warning: 1, owner: 'Ada',
    policy_name: 'checkout', policy_url: 'http://ts/accounts/3/policies/11', runbook_url: null, severity: 'CRITICAL', targets: [target],
    timestamp: T + 30_000, timestamp_utc_string: '2026-11-20, 12:04 UTC', violation_callback_url: 'http://ts/accounts/3/incidents/42',
    violation_chart_url: 'http://ts/accounts/3/incidents/42',
  });
});

test('custom payloads: a whole-string $VARIABLE keeps its type, embedded ones become text, unknown ones stay', () => {
  const values = { incident_id: 42, targets: [{ id: '5' }], policy_name: 'checkout', runbook_url: null };
  assert.deepEqual(
    renderLegacyPayload({ id: '$INCIDENT_ID', t: '$TARGETS', text: '$POLICY_NAME #$INCIDENT_ID $NOPE', nested: ['$RUNBOOK_URL', 'x$RUNBOOK_URL'], n: 3 }, values),
    { id: 42, t: [{ id: '5' }], text: 'checkout #42 $NOPE', nested: [null, 'x'], n: 3 },
  );
  assert.equal(formEncode({ a: 'b c', n: 1, o: { k: 'v' }, z: null }), 'a=b+c&n=1&o=%7B%22k%22%3A%22v%22%7D&z=');
});

test('webhook configuration: base_url required and http(s), payload and headers objects or JSON text, other values strings', () => {
  assert.deepEqual(checkLegacyConfiguration('webhook', { base_url: 'https://h/x', headers: '{"A":"1"}', payload: { k: '$SEVERITY' }, auth_username: 7 }), {
    configuration: { base_url: 'https://h/x', headers: { A: '1' }, payload: { k: '$SEVERITY' }, auth_username: '7' }, errors: [],
  });
  assert.deepEqual(checkLegacyConfiguration('webhook', { headers: '[1]', payload_type: 'text/plain' }).errors, [
    'configuration.headers must be a JSON object (or a string holding one)',
    'configuration.base_url is required for a webhook channel',
    "configuration.payload_type must be 'application/json' or 'application/x-www-form-urlencoded'",
  ]);
  assert.deepEqual(checkLegacyConfiguration('email', { include_json_attachment: true }).errors, ['configuration.recipients is required for an email channel']);
});
