/**
 * Server-side configuration with the real Node agent (13.x). Two applications get the same agent
 * settings (transaction tracer off; status codes 404 and 500 ignored), one with server-side
 * configuration on. The connect reply carries the settings as `agent_config` for that one only,
 * and the agents show they applied them in what they send: the same requests (three 500s and one
 * transaction slower than 4 × Apdex T) leave no error events and no transaction trace from the
 * configured application, and three error events and a trace from the other. The agent also logs
 * each server-side value it changed (at debug level: "Configuration of … was changed to … by New
 * Relic.", lib/config/merge-server-config.js).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withAgentApp } from '../helpers/agent-app.js';
import { connectAgent } from '../helpers/collector-client.js';
import { sample } from '../helpers/samples.js';
import { startTestServer, TEST_LICENSE_KEY } from '../helpers/test-server.js';

const connectBody = (appName: string) => {
  const body = structuredClone(sample('connect-request').body) as [Record<string, unknown>];
  body[0] = { ...body[0], app_name: [appName] };
  return body;
};

/** What the reply must carry for the settings below, in New Relic's names and units, written out. */
const EXPECTED_AGENT_CONFIG = {
  'transaction_tracer.enabled': false,
  'transaction_tracer.transaction_threshold': 'apdex_f',
  'transaction_tracer.record_sql': 'obfuscated',
  'transaction_tracer.explain_enabled': true,
  'transaction_tracer.explain_threshold': 0.5,
  'transaction_tracer.stack_trace_threshold': 0.5,
  'transaction_tracer.log_sql': false,
  'error_collector.enabled': true,
  'error_collector.ignore_status_codes': [404, 500],
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
};

test('server-side configuration reaches the real Node agent, and only when it is on', { timeout: 120_000 }, async (t) => {
  const ts = await startTestServer();
  t.after(() => ts.stop());
  const { catalog, db, collectorPort, certPath } = ts.server;
  const target = { collectorPort, certPath };

  const ids: Record<'on' | 'off', number> = { on: 0, off: 0 };
  for (const which of ['on', 'off'] as const) {
    const { connectReply } = await connectAgent(target, TEST_LICENSE_KEY, connectBody(`ssc-${which}`));
    assert.deepEqual(connectReply.agent_config, {}, 'server-side configuration starts off');
    ids[which] = Number(connectReply.application_id);
    await catalog.updateApplication(ids[which], {
      useServerSideConfig: which === 'on',
      agentSettings: { transactionTracer: { enabled: false }, errorCollector: { ignoredErrorCodes: ['404', '500'] } },
    });
  }
  assert.deepEqual((await connectAgent(target, TEST_LICENSE_KEY, connectBody('ssc-on'))).connectReply.agent_config, EXPECTED_AGENT_CONFIG);
  assert.deepEqual((await connectAgent(target, TEST_LICENSE_KEY, connectBody('ssc-off'))).connectReply.agent_config, {});

  const requests = ['error/1', 'error/2', 'error/3', 'frustrating/4'];
  await Promise.all((['on', 'off'] as const).map((which) => withAgentApp({
    appName: `ssc-${which}`, licenseKey: TEST_LICENSE_KEY, collectorPort, certPath, logDir: ts.dataDir, env: { NEW_RELIC_LOG_LEVEL: 'debug' },
  }, async (ready) => {
    assert.equal(Number(ready.appId), ids[which], 'the agent reports into the application configured above');
    await Promise.all(requests.map(async (path) => {
      const res = await fetch(`http://127.0.0.1:${ready.port}/${path}`);
      await res.text();
      assert.equal(res.status, path.startsWith('error') ? 500 : 200);
    }));
  })));

  const count = async (table: string, appId: number) =>
    Number((await db.all<{ n: bigint }>(`SELECT count(*) AS n FROM ${table} WHERE app_id = $1`, [appId]))[0]!.n);
  const observed = async (appId: number) => ({
    transactions: await count('transaction_events', appId),
    errors: await count('error_events', appId),
    traces: await count('transaction_traces', appId),
  });
  assert.deepEqual(await observed(ids.on), { transactions: 4, errors: 0, traces: 0 }, 'the configured agent ignored the 500s and traced nothing');
  assert.deepEqual(await observed(ids.off), { transactions: 4, errors: 3, traces: 1 }, 'the other agent kept its own configuration');

  const log = (which: string) => readFile(join(ts.dataDir, `ssc-${which}.log`), 'utf8');
  const applied = /Configuration of transaction_tracer\.enabled was changed to false by New Relic\./;
  assert.match(await log('on'), applied);
  assert.doesNotMatch(await log('off'), applied);
});
