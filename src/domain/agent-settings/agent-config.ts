import { type ApmAgentSettings, type TracerType } from './model.js';

/**
 * The `agent_config` of a connect reply for an application with server-side configuration: its
 * settings under the names agents read (Java's `AgentConfigFactory` and .NET's
 * `ServerConfiguration.AgentConfig` take them dotted like this; the Python and Ruby agents merge
 * any dotted key; the Node agent 13.x applies the error collector's, `slow_sql.enabled`,
 * `transaction_tracer.enabled` and `.transaction_threshold` and `cross_application_tracer.enabled`,
 * and logs the others at debug level as unknown or unsupported).
 *
 * Units are New Relic's: thresholds in seconds; a transaction threshold of type APDEX_F is the
 * string "apdex_f", which the agents turn into 4 × their Apdex T; an explain threshold of type
 * APDEX_F has no such string, so it is sent as 4 × `apdexT` seconds. Status codes go as numbers.
 * The tracer type becomes `distributed_tracing.enabled` and `cross_application_tracer.enabled`;
 * OPT_OUT sends neither, leaving tracing to each agent's own configuration.
 */
export function agentConfigOf(settings: ApmAgentSettings, apdexT: number): Record<string, unknown> {
  const tt = settings.transactionTracer;
  const ec = settings.errorCollector;
  const logging = settings.applicationLogging;
  const tracing: Record<TracerType, Record<string, boolean>> = {
    DISTRIBUTED_TRACING: { 'distributed_tracing.enabled': true, 'cross_application_tracer.enabled': false },
    CROSS_APPLICATION_TRACER: { 'distributed_tracing.enabled': false, 'cross_application_tracer.enabled': true },
    NONE: { 'distributed_tracing.enabled': false, 'cross_application_tracer.enabled': false },
    OPT_OUT: {},
  };
  return {
    'transaction_tracer.enabled': tt.enabled,
    'transaction_tracer.transaction_threshold': tt.transactionThresholdType === 'APDEX_F' ? 'apdex_f' : tt.transactionThresholdValue,
    'transaction_tracer.record_sql': tt.recordSql.toLowerCase(),
    'transaction_tracer.explain_enabled': tt.explainEnabled,
    'transaction_tracer.explain_threshold': tt.explainThresholdType === 'APDEX_F' ? 4 * apdexT : tt.explainThresholdValue,
    'transaction_tracer.stack_trace_threshold': tt.stackTraceThreshold,
    'transaction_tracer.log_sql': tt.logSql,
    'error_collector.enabled': ec.enabled,
    'error_collector.ignore_status_codes': ec.ignoredErrorCodes.map(Number),
    'error_collector.expected_status_codes': ec.expectedErrorCodes.map(Number),
    'error_collector.ignore_classes': [...ec.ignoredErrorClasses],
    'error_collector.expected_classes': [...ec.expectedErrorClasses],
    'slow_sql.enabled': settings.slowSql.enabled,
    'thread_profiler.enabled': settings.threadProfiler.enabled,
    'jfr.enabled': settings.jfr.enabled,
    'capture_memcache_keys': settings.captureMemcacheKeys,
    'application_logging.enabled': logging.enabled,
    'application_logging.forwarding.enabled': logging.forwarding.enabled,
    'application_logging.forwarding.max_samples_stored': logging.forwarding.maxSamplesStored,
    'application_logging.local_decorating.enabled': logging.localDecorating.enabled,
    'application_logging.metrics.enabled': logging.metrics.enabled,
    ...tracing[settings.tracerType],
  };
}
