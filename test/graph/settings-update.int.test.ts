import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { graph, graphData } from '../helpers/graph-client.js';
import { rest } from '../helpers/rest-fixture.js';
import {
  apmGuid, browserGuid, connect, keyTransactionGuid, mobileGuid, refusal, secondAccount, startGraphFixture, type GraphFixture,
} from './mutations-fixture.js';

/*
 * agentApplicationSettingsUpdate on APM, browser and mobile applications, and the entity fields
 * that show the same settings. Expected values are written out from the input and New Relic's
 * defaults (domain/agent-settings/model.ts's table, restated here as literals).
 */

const APM_SETTINGS = `apmSettings {
  alias originalName apdexTarget useServerSideConfig apmConfig { apdexTarget useServerSideConfig }
  applicationLogging { enabled forwarding { enabled maxSamplesStored } localDecorating { enabled } metrics { enabled } }
  captureMemcacheKeys errorCollector { enabled expectedErrorClasses expectedErrorCodes ignoredErrorClasses ignoredErrorCodes }
  jfr { enabled } slowSql { enabled } threadProfiler { enabled } tracerType
  transactionTracer { captureMemcacheKeys enabled explainEnabled explainThresholdType explainThresholdValue logSql recordSql
    stackTraceThreshold transactionThresholdType transactionThresholdValue }
}`;
const BROWSER_SETTINGS = `browserSettings {
  browserConfig { apdexTarget }
  browserMonitoring { ajax { denyList } distributedTracing { allowedOrigins corsEnabled corsUseNewrelicHeader corsUseTracecontextHeaders enabled excludeNewrelicHeader }
    loader pinnedVersion privacy { cookiesEnabled } }
  sessionReplay { enabled errorSamplingRate samplingRate } sessionTrace { enabled errorSamplingRate samplingRate }
}`;
const MOBILE_SETTINGS = `mobileSettings {
  applicationExitInfo { enabled } useCrashReports
  networkSettings { aliases { alias hosts } filterMode hideList showList ignoredStatusCodeRules { hosts statusCodes } }
}`;
const UPDATE = `mutation($guid: EntityGuid!, $settings: AgentApplicationSettingsUpdateInput!) {
  agentApplicationSettingsUpdate(guid: $guid, settings: $settings) {
    guid alias name ${APM_SETTINGS} ${BROWSER_SETTINGS} ${MOBILE_SETTINGS}
    applicationLogging { enabled } browserProperties { jsLoaderScript jsConfig jsConfigScript } errors { description errorClass field }
  }
}`;

let f: GraphFixture;
let appId: number;
before(async () => {
  f = await startGraphFixture();
  appId = Number((await connect(f.ts, 'checkout-web')).application_id);
});
after(() => f?.ts.stop());

/** The APM settings after the first update below, written out field by field. */
const UPDATED_APM = {
  alias: 'Checkout (prod)',
  originalName: 'checkout-web',
  apdexTarget: 0.4,
  useServerSideConfig: true,
  apmConfig: { apdexTarget: 0.4, useServerSideConfig: true },
  applicationLogging: { enabled: true, forwarding: { enabled: true, maxSamplesStored: 5000 }, localDecorating: { enabled: true }, metrics: { enabled: true } },
  captureMemcacheKeys: true,
  errorCollector: { enabled: true, expectedErrorClasses: ['TimeoutError'], expectedErrorCodes: [], ignoredErrorClasses: [], ignoredErrorCodes: ['404', '503'] },
  jfr: { enabled: true },
  slowSql: { enabled: false },
  threadProfiler: { enabled: false },
  tracerType: 'CROSS_APPLICATION_TRACER',
  transactionTracer: {
    captureMemcacheKeys: true, enabled: false, explainEnabled: true, explainThresholdType: 'VALUE', explainThresholdValue: 0.5, logSql: false,
    recordSql: 'RAW', stackTraceThreshold: 0.5, transactionThresholdType: 'VALUE', transactionThresholdValue: 1.5,
  },
};

describe('agentApplicationSettingsUpdate: APM applications', () => {
  it('changes the name, Apdex Ts and agent settings; the result, the entity and REST show them', async () => {
    const data = await graphData(f.ts, UPDATE, {
      guid: apmGuid(appId),
      settings: {
        alias: 'Checkout (prod)',
        apmConfig: { apdexTarget: 0.4, useServerSideConfig: true },
        browserConfig: { apdexTarget: 3 },
        errorCollector: { ignoredErrorCodes: ['404', '503'], expectedErrorClasses: ['TimeoutError'] },
        transactionTracer: { enabled: false, transactionThresholdType: 'VALUE', transactionThresholdValue: 1.5, recordSql: 'RAW' },
        slowSql: { enabled: false },
        threadProfiler: { enabled: false },
        jfr: { enabled: true },
        tracerType: { value: 'CROSS_APPLICATION_TRACER' },
        captureMemcacheKeys: true,
        applicationLogging: { forwarding: { maxSamplesStored: 5000 }, localDecorating: { enabled: true } },
      },
    });
    assert.deepEqual(data.agentApplicationSettingsUpdate, {
      guid: apmGuid(appId),
      alias: 'Checkout (prod)',
      name: 'Checkout (prod)',
      apmSettings: UPDATED_APM,
      browserSettings: null,
      mobileSettings: null,
      applicationLogging: { enabled: true },
      browserProperties: null,
      errors: [],
    });

    const entity = await graphData(f.ts, `query($guid: EntityGuid!) { actor { entity(guid: $guid) { name ... on ApmApplicationEntity { settings { apdexTarget serverSideConfig } ${APM_SETTINGS} } } } }`, { guid: apmGuid(appId) });
    assert.deepEqual(entity.actor.entity, { name: 'Checkout (prod)', settings: { apdexTarget: 0.4, serverSideConfig: true }, apmSettings: UPDATED_APM });

    const shown = (await rest(f.ts, 'GET', `/v2/applications/${appId}.json`)).json().application;
    assert.equal(shown.name, 'Checkout (prod)');
    assert.deepEqual(shown.settings, { app_apdex_threshold: 0.4, end_user_apdex_threshold: 3, enable_real_user_monitoring: false, use_server_side_config: true });
  });

  it('the new Apdex T and the agent settings reach the agent on its next connect', async () => {
    const reply = await connect(f.ts, 'checkout-web');
    assert.equal(Number(reply.application_id), appId, 'the agent still reports under its original name');
    assert.equal(reply.apdex_t, 0.4);
    assert.deepEqual(reply.agent_config, {
      'transaction_tracer.enabled': false,
      'transaction_tracer.transaction_threshold': 1.5,
      'transaction_tracer.record_sql': 'raw',
      'transaction_tracer.explain_enabled': true,
      'transaction_tracer.explain_threshold': 0.5,
      'transaction_tracer.stack_trace_threshold': 0.5,
      'transaction_tracer.log_sql': false,
      'error_collector.enabled': true,
      'error_collector.ignore_status_codes': [404, 503],
      'error_collector.expected_status_codes': [],
      'error_collector.ignore_classes': [],
      'error_collector.expected_classes': ['TimeoutError'],
      'slow_sql.enabled': false,
      'thread_profiler.enabled': false,
      'jfr.enabled': true,
      'capture_memcache_keys': true,
      'application_logging.enabled': true,
      'application_logging.forwarding.enabled': true,
      'application_logging.forwarding.max_samples_stored': 5000,
      'application_logging.local_decorating.enabled': true,
      'application_logging.metrics.enabled': true,
      'distributed_tracing.enabled': false,
      'cross_application_tracer.enabled': true,
    });
  });

  it('what a second update leaves out keeps its value; the deprecated name and transactionTracer.captureMemcacheKeys work', async () => {
    const data = await graphData(f.ts, UPDATE, {
      guid: apmGuid(appId),
      settings: { name: 'Checkout', apmConfig: { apdexTarget: 0.25 }, transactionTracer: { captureMemcacheKeys: false, explainThresholdValue: null } },
    });
    const result = data.agentApplicationSettingsUpdate;
    assert.equal(result.alias, 'Checkout');
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.apmSettings, {
      ...UPDATED_APM,
      alias: 'Checkout',
      apdexTarget: 0.25,
      apmConfig: { apdexTarget: 0.25, useServerSideConfig: true },
      captureMemcacheKeys: false,
      transactionTracer: { ...UPDATED_APM.transactionTracer, captureMemcacheKeys: false },
    });
    assert.equal((await connect(f.ts, 'checkout-web')).apdex_t, 0.25);
  });

  it('refuses bad values and settings of other kinds in errors, each naming its field, and changes nothing', async () => {
    const data = await graphData(f.ts, UPDATE, {
      guid: apmGuid(appId),
      settings: {
        alias: 'Never applied',
        apmConfig: { apdexTarget: -1 },
        errorCollector: { ignoredErrorCodes: ['999'] },
        transactionTracer: { stackTraceThreshold: -2 },
        browserMonitoring: { privacy: { cookiesEnabled: false } },
        mobileSettings: { useCrashReports: false },
      },
    });
    const result = data.agentApplicationSettingsUpdate;
    assert.deepEqual(result.errors, [
      { field: 'apmConfig.apdexTarget', errorClass: 'INVALID_INPUT', description: 'apmConfig.apdexTarget must be a positive number of seconds, not -1' },
      { field: 'errorCollector.ignoredErrorCodes', errorClass: 'INVALID_INPUT', description: "errorCollector.ignoredErrorCodes: '999' is not an HTTP status" },
      { field: 'transactionTracer.stackTraceThreshold', errorClass: 'INVALID_INPUT', description: 'transactionTracer.stackTraceThreshold must be ≥ 0' },
      {
        field: 'browserMonitoring', errorClass: 'NOT_FOUND',
        description: `Application ${appId} has no browser monitoring; turn it on with agentApplicationEnableApmBrowser first`,
      },
      { field: 'mobileSettings', errorClass: 'INVALID_INPUT', description: `mobileSettings does not apply to an APM application; ${apmGuid(appId)} is one` },
    ]);
    assert.equal(result.alias, 'Checkout', 'the result shows the application as it still is');
    assert.equal(result.apmSettings.apmConfig.apdexTarget, 0.25);
    assert.deepEqual(result.apmSettings.errorCollector.ignoredErrorCodes, ['404', '503']);
    const shown = (await rest(f.ts, 'GET', `/v2/applications/${appId}.json`)).json().application;
    assert.equal(shown.name, 'Checkout');
    assert.equal(shown.settings.app_apdex_threshold, 0.25);
    assert.equal((await connect(f.ts, 'checkout-web')).apdex_t, 0.25);
  });

  it('an unknown GUID is NOT_FOUND, a malformed one and a key transaction INVALID_INPUT; the field is null', async () => {
    const missing = await refusal(f.ts, UPDATE, { guid: apmGuid(999), settings: { alias: 'x' } });
    assert.deepEqual(missing, {
      message: `No entity with GUID '${apmGuid(999)}' in the accounts this API key can reach`, errorClass: 'NOT_FOUND',
      data: { agentApplicationSettingsUpdate: null }, path: ['agentApplicationSettingsUpdate'],
    });
    const malformed = await refusal(f.ts, UPDATE, { guid: 'not a guid', settings: { alias: 'x' } });
    assert.equal(malformed.errorClass, 'INVALID_INPUT');
    assert.equal(malformed.message, "guid 'not a guid' is not an entity GUID: expected unpadded base64 of accountId|DOMAIN|TYPE|domainId");
    assert.deepEqual(malformed.data, { agentApplicationSettingsUpdate: null });

    const kt = await f.ts.server.entities.keyTransactions.create({ application: f.ts.server.catalog.application(appId)!, name: 'Checkout submit', metricName: 'WebTransaction/Expressjs/POST//checkout' });
    const ofKeyTransaction = await refusal(f.ts, UPDATE, { guid: keyTransactionGuid(kt.id), settings: { alias: 'x' } });
    assert.equal(ofKeyTransaction.errorClass, 'INVALID_INPUT');
    assert.equal(ofKeyTransaction.message,
      `agentApplicationSettingsUpdate takes the GUID of an APM application or a browser application or a mobile application; ${keyTransactionGuid(kt.id)} is a key transaction (KEY_TRANSACTION_ENTITY)`);
    assert.equal(f.ts.server.entities.keyTransactions.get(kt.id)!.name, 'Checkout submit');
  });

  it('a key of another account gets NOT_FOUND for this account\'s application, and cannot read it', async () => {
    const other = await secondAccount(f.ts);
    const denied = await refusal(f.ts, UPDATE, { guid: apmGuid(appId), settings: { alias: 'Hijacked', apmConfig: { apdexTarget: 9 } } }, other.userKey);
    assert.deepEqual(denied, {
      message: `No entity with GUID '${apmGuid(appId)}' in the accounts this API key can reach`, errorClass: 'NOT_FOUND',
      data: { agentApplicationSettingsUpdate: null }, path: ['agentApplicationSettingsUpdate'],
    });
    const read = await graphData(f.ts, `query($guid: EntityGuid!) { actor { entity(guid: $guid) { name } } }`, { guid: apmGuid(appId) }, { key: other.userKey });
    assert.deepEqual(read, { actor: { entity: null } });
    assert.equal(f.ts.server.catalog.application(appId)!.name, 'Checkout');
    assert.equal(f.ts.server.catalog.application(appId)!.apdexT, 0.25);
  });
});

/** New Relic's browser monitoring defaults, as domain/agent-settings/model.ts documents them. */
const DEFAULT_MONITORING = {
  ajax: { denyList: [] },
  distributedTracing: { allowedOrigins: [], corsEnabled: false, corsUseNewrelicHeader: false, corsUseTracecontextHeaders: false, enabled: true, excludeNewrelicHeader: false },
  loader: 'SPA',
  pinnedVersion: null,
  privacy: { cookiesEnabled: true },
};

describe('agentApplicationSettingsUpdate: browser applications', () => {
  let browserId: number;
  before(async () => {
    const created = await graphData(f.ts, 'mutation { agentApplicationCreateBrowser(accountId: 1, name: "marketing-site") { guid } }');
    browserId = Number(Buffer.from(created.agentApplicationCreateBrowser.guid, 'base64').toString('utf8').split('|')[3]);
  });

  it('starts at the defaults; changes name, Apdex T, monitoring, session replay and trace', async () => {
    const before = await graphData(f.ts, `query($guid: EntityGuid!) { actor { entity(guid: $guid) { ... on BrowserApplicationEntity { settings { apdexTarget } ${BROWSER_SETTINGS} } } } }`, { guid: browserGuid(browserId) });
    assert.deepEqual(before.actor.entity, {
      settings: { apdexTarget: 7 },
      browserSettings: {
        browserConfig: { apdexTarget: 7 }, browserMonitoring: DEFAULT_MONITORING,
        sessionReplay: { enabled: false, errorSamplingRate: 100, samplingRate: 10 }, sessionTrace: { enabled: true, errorSamplingRate: 100, samplingRate: 100 },
      },
    });

    const data = await graphData(f.ts, UPDATE, {
      guid: browserGuid(browserId),
      settings: {
        alias: 'Marketing site',
        browserConfig: { apdexTarget: 4 },
        browserMonitoring: {
          loader: 'FULL',
          privacy: { cookiesEnabled: false },
          ajax: { denyList: ['cdn.example.com'] },
          pinnedVersion: '1.285.0',
          distributedTracing: { corsEnabled: true, allowedOrigins: ['https://api.example.com'] },
        },
        sessionReplay: { enabled: true, samplingRate: 25 },
        sessionTrace: { samplingRate: 50 },
      },
    });
    const expected = {
      browserConfig: { apdexTarget: 4 },
      browserMonitoring: {
        ajax: { denyList: ['cdn.example.com'] },
        distributedTracing: { ...DEFAULT_MONITORING.distributedTracing, corsEnabled: true, allowedOrigins: ['https://api.example.com'] },
        loader: 'PRO',
        pinnedVersion: '1.285.0',
        privacy: { cookiesEnabled: false },
      },
      sessionReplay: { enabled: true, errorSamplingRate: 100, samplingRate: 25 },
      sessionTrace: { enabled: true, errorSamplingRate: 100, samplingRate: 50 },
    };
    const result = data.agentApplicationSettingsUpdate;
    assert.deepEqual({ ...result, browserProperties: undefined }, {
      guid: browserGuid(browserId), alias: 'Marketing site', name: 'Marketing site', apmSettings: null, browserSettings: expected,
      mobileSettings: null, applicationLogging: null, browserProperties: undefined, errors: [],
    });
    const script: string = result.browserProperties.jsLoaderScript;
    assert.ok(script.startsWith('<script type="text/javascript">') && script.endsWith('</script>\n'));
    assert.ok(script.includes('nr-loader-full.min.js'), 'the PRO loader is the "full" one');
    assert.ok(script.includes('privacy:{cookies_enabled:false}'));
    assert.ok(script.includes(`applicationID:"${browserId}"`));

    // REST lists the same application, renamed, with the same snippet.
    const listed = (await rest(f.ts, 'GET', `/v2/browser_applications.json?filter[ids]=${browserId}`)).json().browser_applications;
    assert.deepEqual(listed.map((b: { name: string }) => b.name), ['Marketing site']);
    assert.equal(listed[0].loader_script, script);

    // The configuration alone: the snippet's NREUM objects, as data and as a script of their own.
    const key: string = listed[0].browser_monitoring_key;
    const host = /beacon:"([^"]+)"/.exec(script)![1]!;
    assert.deepEqual(result.browserProperties.jsConfig, {
      init: { distributed_tracing: { enabled: true }, privacy: { cookies_enabled: false }, ajax: { deny_list: [host] }, ssl: false },
      loader_config: { accountID: '1', trustKey: '1', agentID: String(browserId), licenseKey: key, applicationID: String(browserId) },
      info: { beacon: host, errorBeacon: host, licenseKey: key, applicationID: String(browserId), sa: 1 },
    });
    const configScript: string = result.browserProperties.jsConfigScript;
    assert.ok(configScript.endsWith(';</script>\n'));
    assert.ok(script.startsWith(configScript.slice(0, -'</script>\n'.length)), 'the snippet begins with the configuration script');

    const entity = await graphData(f.ts, `query($guid: EntityGuid!) { actor { entity(guid: $guid) { name ... on BrowserApplicationEntity { settings { apdexTarget } ${BROWSER_SETTINGS} browserProperties { jsLoaderScript } } } } }`, { guid: browserGuid(browserId) });
    assert.deepEqual(entity.actor.entity, { name: 'Marketing site', settings: { apdexTarget: 4 }, browserSettings: expected, browserProperties: { jsLoaderScript: script } });
    const outline = await graphData(f.ts, `{ actor { entitySearch(query: "domain = 'BROWSER'") { results { entities { name ... on BrowserApplicationEntityOutline { settings { apdexTarget } } } } } } }`);
    assert.deepEqual(outline.actor.entitySearch.results.entities, [{ name: 'Marketing site', settings: { apdexTarget: 4 } }]);
  });

  it('refuses the NONE loader, a sampling rate over 100 and APM or mobile settings; nothing changes', async () => {
    const data = await graphData(f.ts, UPDATE, {
      guid: browserGuid(browserId),
      settings: {
        alias: 'Never applied',
        browserMonitoring: { loader: 'NONE' },
        sessionReplay: { samplingRate: 150 },
        apmConfig: { apdexTarget: 1 },
        mobileSettings: { useCrashReports: true },
      },
    });
    assert.deepEqual(data.agentApplicationSettingsUpdate.errors, [
      { field: 'browserMonitoring.loader', errorClass: 'INVALID_INPUT', description: "browserMonitoring.loader NONE has no loader snippet: Timeslice's browser applications load the SPA, PRO (FULL) or LITE agent" },
      { field: 'sessionReplay.samplingRate', errorClass: 'INVALID_INPUT', description: 'sessionReplay.samplingRate must be ≤ 100 (a percentage)' },
      { field: 'apmConfig', errorClass: 'INVALID_INPUT', description: `apmConfig does not apply to a browser application; ${browserGuid(browserId)} is one` },
      { field: 'mobileSettings', errorClass: 'INVALID_INPUT', description: `mobileSettings does not apply to a browser application; ${browserGuid(browserId)} is one` },
    ]);
    const stored = f.ts.server.entities.browserApplications.get(browserId)!;
    assert.equal(stored.name, 'Marketing site');
    assert.equal(stored.monitoring.loader, 'PRO');
    assert.equal(stored.monitoring.sessionReplay.samplingRate, 25);
  });

  it('a browser side: its APM application takes browserMonitoring, and its Apdex T is the APM end-user Apdex T', async () => {
    const apmId = Number((await connect(f.ts, 'billing-api')).application_id);
    const enabled = await graphData(f.ts, 'mutation($guid: EntityGuid!) { agentApplicationEnableApmBrowser(guid: $guid, settings: {loaderType: LITE}) { name } }', { guid: apmGuid(apmId) });
    assert.equal(enabled.agentApplicationEnableApmBrowser.name, 'billing-api');
    const side = f.ts.server.entities.browserApplications.list(1).find((b) => b.apmApplicationId === apmId)!;

    const viaApm = await graphData(f.ts, UPDATE, { guid: apmGuid(apmId), settings: { browserMonitoring: { privacy: { cookiesEnabled: false } }, sessionTrace: { enabled: false } } });
    const result = viaApm.agentApplicationSettingsUpdate;
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.browserSettings, {
      browserConfig: { apdexTarget: 7 },
      browserMonitoring: { ...DEFAULT_MONITORING, loader: 'LITE', privacy: { cookiesEnabled: false } },
      sessionReplay: { enabled: false, errorSamplingRate: 100, samplingRate: 10 },
      sessionTrace: { enabled: false, errorSamplingRate: 100, samplingRate: 100 },
    });
    assert.ok(result.browserProperties.jsLoaderScript.includes('nr-loader-rum.min.js'), 'LITE loads the "rum" loader');
    assert.equal(f.ts.server.entities.browserApplications.get(side.id)!.monitoring.privacy.cookiesEnabled, false);

    const viaSide = await graphData(f.ts, UPDATE, { guid: browserGuid(side.id), settings: { browserConfig: { apdexTarget: 2.5 } } });
    assert.deepEqual(viaSide.agentApplicationSettingsUpdate.errors, []);
    assert.equal(viaSide.agentApplicationSettingsUpdate.browserSettings.browserConfig.apdexTarget, 2.5);
    assert.equal(f.ts.server.catalog.application(apmId)!.endUserApdexT, 2.5);
    assert.equal((await rest(f.ts, 'GET', `/v2/applications/${apmId}.json`)).json().application.settings.end_user_apdex_threshold, 2.5);
  });
});

describe('agentApplicationSettingsUpdate: mobile applications', () => {
  let mobileId: number;
  before(async () => {
    const created = await graphData(f.ts, 'mutation { agentApplicationCreateMobile(accountId: 1, name: "shop-ios") { guid } }');
    mobileId = Number(Buffer.from(created.agentApplicationCreateMobile.guid, 'base64').toString('utf8').split('|')[3]);
  });

  it('changes the name and the mobile settings; the entity and REST show them', async () => {
    const settings = {
      applicationExitInfo: { enabled: true },
      useCrashReports: false,
      networkSettings: {
        aliases: [{ alias: 'api', hosts: ['api.example.com', 'api2.example.com'] }],
        filterMode: 'HIDE',
        hideList: ['ads.example.com'],
        showList: [],
        ignoredStatusCodeRules: [{ hosts: ['api.example.com'], statusCodes: ['404', '410'] }],
      },
    };
    const data = await graphData(f.ts, UPDATE, {
      guid: mobileGuid(mobileId),
      settings: { alias: 'Shop (iOS)', mobileSettings: { useCrashReports: false, networkSettings: { ...settings.networkSettings, showList: undefined } } },
    });
    assert.deepEqual(data.agentApplicationSettingsUpdate, {
      guid: mobileGuid(mobileId), alias: 'Shop (iOS)', name: 'Shop (iOS)', apmSettings: null, browserSettings: null, mobileSettings: settings,
      applicationLogging: null, browserProperties: null, errors: [],
    });
    const entity = await graphData(f.ts, `query($guid: EntityGuid!) { actor { entity(guid: $guid) { name ... on MobileApplicationEntity { ${MOBILE_SETTINGS} } } } }`, { guid: mobileGuid(mobileId) });
    assert.deepEqual(entity.actor.entity, { name: 'Shop (iOS)', mobileSettings: settings });
    assert.equal((await rest(f.ts, 'GET', `/v2/mobile_applications/${mobileId}.json`)).json().application.name, 'Shop (iOS)');
  });

  it('refuses a status code that is none and APM settings, naming the fields; nothing changes', async () => {
    const data = await graphData(f.ts, UPDATE, {
      guid: mobileGuid(mobileId),
      settings: {
        mobileSettings: { useCrashReports: true, networkSettings: { ignoredStatusCodeRules: [{ hosts: ['a.example.com'], statusCodes: ['abc'] }] } },
        jfr: { enabled: true },
      },
    });
    assert.deepEqual(data.agentApplicationSettingsUpdate.errors, [
      {
        field: 'mobileSettings.networkSettings.ignoredStatusCodeRules[0].statusCodes', errorClass: 'INVALID_INPUT',
        description: "mobileSettings.networkSettings.ignoredStatusCodeRules[0].statusCodes: 'abc' is not an HTTP status",
      },
      { field: 'jfr', errorClass: 'INVALID_INPUT', description: `jfr does not apply to a mobile application; ${mobileGuid(mobileId)} is one` },
    ]);
    assert.equal(f.ts.server.entities.mobileApplications.get(mobileId)!.settings.useCrashReports, false);
  });

  it('a name taken by another mobile application is refused in errors', async () => {
    await graphData(f.ts, 'mutation { agentApplicationCreateMobile(accountId: 1, name: "shop-android") { guid } }');
    const reply = await graph(f.ts, UPDATE, { guid: mobileGuid(mobileId), settings: { alias: 'shop-android' } });
    assert.deepEqual(reply.body.data.agentApplicationSettingsUpdate.errors, [
      { field: 'alias', errorClass: 'INVALID_INPUT', description: "a mobile application named 'shop-android' already exists" },
    ]);
    assert.equal(reply.body.data.agentApplicationSettingsUpdate.alias, 'Shop (iOS)');
  });
});
