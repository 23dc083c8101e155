import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentConfigOf } from './agent-config.js';
import { DEFAULT_APM_AGENT_SETTINGS } from './model.js';
import { applySettingsPatch } from './validation.js';

test('agent_config: every setting under the name agents read, in New Relic\'s units', () => {
  assert.deepEqual(agentConfigOf(DEFAULT_APM_AGENT_SETTINGS, 0.5), {
    'transaction_tracer.enabled': true,
    'transaction_tracer.transaction_threshold': 'apdex_f',
    'transaction_tracer.record_sql': 'obfuscated',
    'transaction_tracer.explain_enabled': true,
    'transaction_tracer.explain_threshold': 0.5,
    'transaction_tracer.stack_trace_threshold': 0.5,
    'transaction_tracer.log_sql': false,
    'error_collector.enabled': true,
    'error_collector.ignore_status_codes': [404],
    'error_collector.expected_status_codes': [],
    'error_collector.ignore_classes': [],
    'error_collector.expected_classes': [],
    'slow_sql.enabled': true,
    'thread_profiler.enabled': true,
    'jfr.enabled': false,
    'capture_memcache_keys': false,
    'application_logging.enabled': true,
    'application_logging.forwarding.enabled': true,
    'application_logging.forwarding.max_samples_stored': 10000,
    'application_logging.local_decorating.enabled': false,
    'application_logging.metrics.enabled': true,
    'distributed_tracing.enabled': true,
    'cross_application_tracer.enabled': false,
  });
  const changed = applySettingsPatch(DEFAULT_APM_AGENT_SETTINGS, {
    transactionTracer: { transactionThresholdType: 'VALUE', transactionThresholdValue: 1.25, explainThresholdType: 'APDEX_F', recordSql: 'OFF' },
    errorCollector: { ignoredErrorCodes: ['404', '503'], expectedErrorCodes: ['409'], ignoredErrorClasses: ['AbortError'], expectedErrorClasses: ['ValidationError'] },
    tracerType: 'CROSS_APPLICATION_TRACER',
  });
  const config = agentConfigOf(changed, 0.2);
  assert.equal(config['transaction_tracer.transaction_threshold'], 1.25);
  assert.equal(config['transaction_tracer.explain_threshold'], 0.8, 'APDEX_F explain threshold: 4 × Apdex T 0.2');
  assert.equal(config['transaction_tracer.record_sql'], 'off');
  assert.deepEqual(config['error_collector.ignore_status_codes'], [404, 503]);
  assert.deepEqual(config['error_collector.expected_status_codes'], [409]);
  assert.deepEqual(config['error_collector.ignore_classes'], ['AbortError']);
  assert.deepEqual(config['error_collector.expected_classes'], ['ValidationError']);
  assert.deepEqual([config['distributed_tracing.enabled'], config['cross_application_tracer.enabled']], [false, true]);
  const none = agentConfigOf(applySettingsPatch(DEFAULT_APM_AGENT_SETTINGS, { tracerType: 'NONE' }), 0.5);
  assert.deepEqual([none['distributed_tracing.enabled'], none['cross_application_tracer.enabled']], [false, false]);
  const optOut = agentConfigOf(applySettingsPatch(DEFAULT_APM_AGENT_SETTINGS, { tracerType: 'OPT_OUT' }), 0.5);
  assert.equal('distributed_tracing.enabled' in optOut || 'cross_application_tracer.enabled' in optOut, false, 'OPT_OUT leaves tracing to the agent');
});
