import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_APM_AGENT_SETTINGS, DEFAULT_BROWSER_MONITORING_SETTINGS, DEFAULT_MOBILE_AGENT_SETTINGS } from './model.js';
import { validateApmAgentSettings, validateBrowserMonitoringSettings, validateMobileAgentSettings } from './validation.js';

test('defaults: New Relic\'s, written out', () => {
  assert.deepEqual(DEFAULT_APM_AGENT_SETTINGS, {
    errorCollector: { enabled: true, expectedErrorClasses: [], expectedErrorCodes: [], ignoredErrorClasses: [], ignoredErrorCodes: ['404'] },
    transactionTracer: {
      enabled: true, explainEnabled: true, explainThresholdType: 'VALUE', explainThresholdValue: 0.5, logSql: false, recordSql: 'OBFUSCATED',
      stackTraceThreshold: 0.5, transactionThresholdType: 'APDEX_F', transactionThresholdValue: 2,
    },
    slowSql: { enabled: true },
    threadProfiler: { enabled: true },
    jfr: { enabled: false },
    tracerType: 'DISTRIBUTED_TRACING',
    captureMemcacheKeys: false,
    applicationLogging: { enabled: true, forwarding: { enabled: true, maxSamplesStored: 10000 }, localDecorating: { enabled: false }, metrics: { enabled: true } },
  });
  assert.deepEqual(DEFAULT_BROWSER_MONITORING_SETTINGS.loader, 'SPA');
  assert.deepEqual(DEFAULT_BROWSER_MONITORING_SETTINGS.privacy, { cookiesEnabled: true });
  assert.equal(DEFAULT_BROWSER_MONITORING_SETTINGS.distributedTracing.enabled, true);
  assert.deepEqual(DEFAULT_BROWSER_MONITORING_SETTINGS.sessionReplay, {
    enabled: false, autoStart: true, samplingRate: 10, errorSamplingRate: 100, blockSelector: '', maskTextSelector: '*', maskAllInputs: true,
    maskInputOptions: {
      color: false, date: false, datetimeLocal: false, email: false, month: false, number: false, range: false, search: false, select: false,
      tel: false, text: false, textArea: false, time: false, url: false, week: false,
    },
    collectFonts: false, inlineImages: false, inlineStylesheet: true,
  });
  assert.deepEqual(DEFAULT_BROWSER_MONITORING_SETTINGS.sessionTrace, { enabled: true, mode: 'FIXED_RATE', samplingRate: 100, errorSamplingRate: 100 });
  assert.deepEqual(DEFAULT_MOBILE_AGENT_SETTINGS, {
    applicationExitInfo: { enabled: true },
    networkSettings: { aliases: [], filterMode: 'DISABLED', hideList: [], showList: [], ignoredStatusCodeRules: [] },
    useCrashReports: true,
  });
  // The defaults pass their own validation.
  validateApmAgentSettings(DEFAULT_APM_AGENT_SETTINGS);
  validateBrowserMonitoringSettings(DEFAULT_BROWSER_MONITORING_SETTINGS);
  validateMobileAgentSettings(DEFAULT_MOBILE_AGENT_SETTINGS);
});
