import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_APM_AGENT_SETTINGS, DEFAULT_BROWSER_MONITORING_SETTINGS, DEFAULT_MOBILE_AGENT_SETTINGS, type ApmAgentSettings, type MaskInputOptions,
} from './model.js';
import {
  applySettingsPatch, browserLoader, validateApmAgentSettings, validateBrowserMonitoringSettings, validateMobileAgentSettings,
  type SettingsPatch,
} from './validation.js';

test('a patch changes what it names; absent and undefined members keep their values; lists are replaced whole', () => {
  const patched = applySettingsPatch(DEFAULT_APM_AGENT_SETTINGS, {
    transactionTracer: { enabled: false, recordSql: 'RAW', explainEnabled: undefined },
    errorCollector: { ignoredErrorCodes: ['500', '503'] },
    tracerType: 'NONE',
  });
  assert.deepEqual(patched.transactionTracer, {
    enabled: false, explainEnabled: true, explainThresholdType: 'VALUE', explainThresholdValue: 0.5, logSql: false, recordSql: 'RAW',
    stackTraceThreshold: 0.5, transactionThresholdType: 'APDEX_F', transactionThresholdValue: 2,
  });
  assert.deepEqual(patched.errorCollector.ignoredErrorCodes, ['500', '503']);
  assert.equal(patched.tracerType, 'NONE');
  assert.deepEqual(patched.applicationLogging, DEFAULT_APM_AGENT_SETTINGS.applicationLogging);
  // The input is left as it was.
  assert.deepEqual(DEFAULT_APM_AGENT_SETTINGS.transactionTracer.enabled, true);
  assert.deepEqual(DEFAULT_APM_AGENT_SETTINGS.errorCollector.ignoredErrorCodes, ['404']);

  const nested = applySettingsPatch(patched, { applicationLogging: { forwarding: { maxSamplesStored: 500 } } });
  assert.deepEqual(nested.applicationLogging, { enabled: true, forwarding: { enabled: true, maxSamplesStored: 500 }, localDecorating: { enabled: false }, metrics: { enabled: true } });
  assert.equal(nested.transactionTracer.recordSql, 'RAW', 'earlier changes stay');
  assert.deepEqual(applySettingsPatch(patched, {}), patched);

  const browser = applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, { pinnedVersion: '1.285.0', ajax: { denyList: ['bam.nr-data.net'] } });
  assert.equal(browser.pinnedVersion, '1.285.0');
  assert.equal(applySettingsPatch(browser, { pinnedVersion: null }).pinnedVersion, null, 'null is a value where the setting may be null');

  // Session replay's masked input types are one object deeper: a patch of one keeps the others.
  const replay = applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, {
    sessionReplay: { maskInputOptions: { email: true, tel: true }, blockSelector: '.card-number', autoStart: false },
    sessionTrace: { mode: 'PROBABILISTIC', samplingRate: 25 },
  });
  assert.deepEqual(replay.sessionReplay, {
    ...DEFAULT_BROWSER_MONITORING_SETTINGS.sessionReplay,
    autoStart: false,
    blockSelector: '.card-number',
    maskInputOptions: { ...DEFAULT_BROWSER_MONITORING_SETTINGS.sessionReplay.maskInputOptions, email: true, tel: true },
  });
  assert.deepEqual(replay.sessionTrace, { enabled: true, mode: 'PROBABILISTIC', samplingRate: 25, errorSamplingRate: 100 });
  validateBrowserMonitoringSettings(replay);
});

test('a patch naming what settings do not have, or giving a value for an object, is refused with its path', () => {
  const refused: [SettingsPatch<ApmAgentSettings>, string][] = [
    [{ transactionTracer: { captureMemcache: true } } as SettingsPatch<ApmAgentSettings>, 'transactionTracer.captureMemcache is not a setting'],
    [{ nonsense: 1 } as SettingsPatch<ApmAgentSettings>, 'nonsense is not a setting'],
    [{ errorCollector: true } as unknown as SettingsPatch<ApmAgentSettings>, 'errorCollector must be an object'],
    [{ applicationLogging: { forwarding: null } } as unknown as SettingsPatch<ApmAgentSettings>, 'applicationLogging.forwarding must be an object'],
  ];
  for (const [patch, message] of refused) {
    assert.throws(() => applySettingsPatch(DEFAULT_APM_AGENT_SETTINGS, patch), (e: unknown) => e instanceof RangeError && e.message === message, message);
  }
});

test('validation names the field and what is wrong with it', () => {
  const apm = (patch: SettingsPatch<ApmAgentSettings>) => () => validateApmAgentSettings(applySettingsPatch(DEFAULT_APM_AGENT_SETTINGS, patch));
  const cases: [() => void, string][] = [
    [apm({ transactionTracer: { stackTraceThreshold: -0.1 } }), 'transactionTracer.stackTraceThreshold must be ≥ 0'],
    [apm({ transactionTracer: { explainThresholdValue: Number.NaN } }), 'transactionTracer.explainThresholdValue must be a number'],
    [apm({ transactionTracer: { transactionThresholdValue: '2' as unknown as number } }), 'transactionTracer.transactionThresholdValue must be a number'],
    [apm({ transactionTracer: { recordSql: 'obfuscated' as 'OBFUSCATED' } }), 'transactionTracer.recordSql must be one of OBFUSCATED, OFF, RAW'],
    [apm({ transactionTracer: { transactionThresholdType: 'APDEX_T' as 'APDEX_F' } }), 'transactionTracer.transactionThresholdType must be one of APDEX_F, VALUE'],
    [apm({ transactionTracer: { enabled: null as unknown as boolean } }), 'transactionTracer.enabled must be true or false'],
    [apm({ errorCollector: { ignoredErrorCodes: ['404', '9999'] } }), "errorCollector.ignoredErrorCodes: '9999' is not an HTTP status"],
    [apm({ errorCollector: { expectedErrorCodes: ['099'] } }), "errorCollector.expectedErrorCodes: '099' is not an HTTP status"],
    [apm({ errorCollector: { expectedErrorCodes: [404 as unknown as string] } }), 'errorCollector.expectedErrorCodes: 404 is not an HTTP status'],
    [apm({ errorCollector: { ignoredErrorCodes: '404' as unknown as string[] } }), 'errorCollector.ignoredErrorCodes must be a list'],
    [apm({ errorCollector: { ignoredErrorClasses: ['TypeError', ' '] } }), 'errorCollector.ignoredErrorClasses[1] must be a non-empty string'],
    [apm({ tracerType: 'ZIPKIN' as 'NONE' }), 'tracerType must be one of CROSS_APPLICATION_TRACER, DISTRIBUTED_TRACING, NONE, OPT_OUT'],
    [apm({ applicationLogging: { forwarding: { maxSamplesStored: 2.5 } } }), 'applicationLogging.forwarding.maxSamplesStored must be a whole number ≥ 0'],
    [() => validateBrowserMonitoringSettings(applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, { sessionReplay: { samplingRate: 101 } })),
      'sessionReplay.samplingRate must be ≤ 100 (a percentage)'],
    [() => validateBrowserMonitoringSettings(applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, { sessionReplay: { errorSamplingRate: -5 } })),
      'sessionReplay.errorSamplingRate must be ≥ 0'],
    [() => validateBrowserMonitoringSettings(applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, { sessionReplay: { maskInputOptions: { week: 'yes' as unknown as boolean } } })),
      'sessionReplay.maskInputOptions.week must be true or false'],
    [() => applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, { sessionReplay: { maskInputOptions: { password: true } as SettingsPatch<MaskInputOptions> } }),
      'sessionReplay.maskInputOptions.password is not a setting'],
    [() => validateBrowserMonitoringSettings(applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, { sessionReplay: { maskTextSelector: 3 as unknown as string } })),
      'sessionReplay.maskTextSelector must be a CSS selector, or empty for none'],
    [() => validateBrowserMonitoringSettings(applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, { sessionReplay: { autoStart: null as unknown as boolean } })),
      'sessionReplay.autoStart must be true or false'],
    [() => validateBrowserMonitoringSettings(applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, { sessionTrace: { mode: 'fixed_rate' as 'FIXED_RATE' } })),
      'sessionTrace.mode must be one of FIXED_RATE, PROBABILISTIC'],
    [() => validateBrowserMonitoringSettings(applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, { loader: 'FULL' as 'PRO' })),
      'loader must be one of SPA, PRO, LITE, NONE'],
    [() => validateBrowserMonitoringSettings(applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, { pinnedVersion: 'latest' })),
      'pinnedVersion must be a browser agent version such as "1.285.0", or null'],
    [() => validateMobileAgentSettings(applySettingsPatch(DEFAULT_MOBILE_AGENT_SETTINGS, {
      networkSettings: { ignoredStatusCodeRules: [{ hosts: ['api.example.com'], statusCodes: ['404', '600'] }] },
    })), "networkSettings.ignoredStatusCodeRules[0].statusCodes: '600' is not an HTTP status"],
    [() => validateMobileAgentSettings(applySettingsPatch(DEFAULT_MOBILE_AGENT_SETTINGS, { networkSettings: { aliases: [{ alias: 'API' } as { alias: string; hosts: string[] }] } })),
      'networkSettings.aliases[0].hosts is missing'],
    [() => validateMobileAgentSettings(applySettingsPatch(DEFAULT_MOBILE_AGENT_SETTINGS, { networkSettings: { filterMode: 'ALL' as 'SHOW' } })),
      'networkSettings.filterMode must be one of DISABLED, HIDE, SHOW'],
  ];
  for (const [run, message] of cases) {
    assert.throws(run, (e: unknown) => e instanceof RangeError && e.message === message, message);
  }
  // Boundaries that pass.
  validateApmAgentSettings(applySettingsPatch(DEFAULT_APM_AGENT_SETTINGS, { transactionTracer: { stackTraceThreshold: 0 }, errorCollector: { ignoredErrorCodes: ['100', '599'] } }));
  validateBrowserMonitoringSettings(applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, { sessionReplay: { samplingRate: 100, errorSamplingRate: 0 } }));
  validateBrowserMonitoringSettings(applySettingsPatch(DEFAULT_BROWSER_MONITORING_SETTINGS, { sessionReplay: { maskTextSelector: '', blockSelector: '' } }));
  validateMobileAgentSettings(applySettingsPatch(DEFAULT_MOBILE_AGENT_SETTINGS, {
    networkSettings: { aliases: [{ alias: 'API', hosts: ['api.example.com', 'api2.example.com'] }], filterMode: 'HIDE', hideList: ['ads.example.com'] },
  }));
});

test('the deprecated FULL loader is PRO', () => {
  assert.deepEqual(['FULL', 'PRO', 'SPA', 'LITE', 'NONE', 'RUM'].map(browserLoader), ['PRO', 'PRO', 'SPA', 'LITE', 'NONE', 'RUM']);
});
