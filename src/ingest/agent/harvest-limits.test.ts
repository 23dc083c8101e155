import assert from 'node:assert/strict';
import { test } from 'node:test';
import { grantedHarvestLimits, MAX_HARVEST_LIMIT, requestedHarvestLimits } from './harvest-limits.js';

// The Node agent 13.x's connect facts carry its configured reservoirs (lib/collector/facts.js).
const NODE_FACTS = [{
  app_name: ['a'],
  event_harvest_config: { harvest_limits: { analytic_event_data: 10000, custom_event_data: 3000, error_event_data: 100, span_event_data: 2000, log_event_data: 10000 } },
}];

test('agent mode: each harvest keeps what the agent asks for, unscaled', () => {
  assert.deepEqual(grantedHarvestLimits('agent', 5_000, requestedHarvestLimits(NODE_FACTS)),
    { analytic_event_data: 10000, custom_event_data: 3000, error_event_data: 100, log_event_data: 10000, span_event_data: 2000 });
  const raised = [{ event_harvest_config: { harvest_limits: { error_event_data: 500, custom_event_data: 0, span_event_data: 10 ** 9 } } }];
  assert.deepEqual(grantedHarvestLimits('agent', 5_000, requestedHarvestLimits(raised)),
    { analytic_event_data: 10000, custom_event_data: 0, error_event_data: 500, log_event_data: 10000, span_event_data: MAX_HARVEST_LIMIT });
});

test('agent mode: a limit the agent does not send, or sends malformed, is New Relic\'s per-minute figure', () => {
  const odd = [{ event_harvest_config: { harvest_limits: { error_event_data: -1, analytic_event_data: '50', log_event_data: 2.5 } } }];
  for (const facts of [[{}], odd, 'x', null, [{ event_harvest_config: [] }]]) {
    assert.deepEqual(grantedHarvestLimits('agent', 5_000, requestedHarvestLimits(facts)),
      { analytic_event_data: 10000, custom_event_data: 3000, error_event_data: 100, log_event_data: 10000, span_event_data: 2000 });
  }
});

test('newrelic mode: New Relic\'s per-minute figures scaled to the period, whatever the agent asks', () => {
  // 5 s is a twelfth of a minute: 10000/12 = 833.3, 3000/12 = 250, 100/12 = 8.3, 2000/12 = 166.7.
  assert.deepEqual(grantedHarvestLimits('newrelic', 5_000, requestedHarvestLimits(NODE_FACTS)),
    { analytic_event_data: 833, custom_event_data: 250, error_event_data: 8, log_event_data: 833, span_event_data: 167 });
  assert.deepEqual(grantedHarvestLimits('newrelic', 60_000, {}),
    { analytic_event_data: 10000, custom_event_data: 3000, error_event_data: 100, log_event_data: 10000, span_event_data: 2000 });
  assert.equal(grantedHarvestLimits('newrelic', 1_000, {}).error_event_data, 2);
});
