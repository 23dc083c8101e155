import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { invoke, replyJson, type CollectorTarget } from '../helpers/collector-client.js';
import { startTestServer, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * Agents other than Node's speak the same protocol with their own habits (agent-protocol.md §1, §2.1,
 * §11): Go gzips everything as octet-stream, Python writes "Identity" and reads return_value from
 * every reply, Java may PUT and puts `method` first, Ruby sends [run_id, time] on shutdown, and
 * Python, Ruby and Java take redirect_host as a bare host name.
 */

let ts: TestServer;
let target: CollectorTarget;
before(async () => {
  ts = await startTestServer();
  target = { collectorPort: ts.server.collectorPort, certPath: ts.server.certPath };
});
after(() => ts.stop());

interface Dialect {
  readonly userAgent: string;
  readonly verb: 'POST' | 'PUT';
  readonly encode: (json: unknown) => { body: Buffer; headers: Record<string, string> };
  readonly query: (method: string, runId?: string) => Record<string, string | undefined>;
  readonly redirect: (port: number) => string;
  readonly shutdownBody: (runId: string) => unknown;
}

const methodFirst = (method: string, runId?: string) => ({
  method, license_key: TEST_LICENSE_KEY, marshal_format: 'json', protocol_version: '17', ...(runId ? { run_id: runId } : {}),
});
const nodeOrder = (method: string, runId?: string) => ({
  marshal_format: 'json', protocol_version: '17', license_key: TEST_LICENSE_KEY, method, ...(runId ? { run_id: runId } : {}),
});

const DIALECTS: Record<string, Dialect> = {
  go: {
    userAgent: 'NewRelic-Go-Agent/3.35.1',
    verb: 'POST',
    encode: (json) => ({ body: gzipSync(JSON.stringify(json)), headers: { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' } }),
    query: nodeOrder,
    redirect: (port) => `localhost:${port}`,
    shutdownBody: () => [],
  },
  python: {
    userAgent: 'NewRelic-PythonAgent/10.3.0 (Python 3.12.1 linux)',
    verb: 'POST',
    encode: (json) => ({ body: Buffer.from(JSON.stringify(json)), headers: { 'content-type': 'application/json', 'content-encoding': 'Identity' } }),
    query: nodeOrder,
    redirect: () => 'localhost',
    shutdownBody: () => [],
  },
  java: {
    userAgent: 'NewRelic-JavaAgent/8.16.0 (java 17.0.15 amd64 Linux)',
    verb: 'PUT',
    encode: (json) => ({ body: Buffer.from(JSON.stringify(json)), headers: { 'content-type': 'application/json', 'content-encoding': 'identity' } }),
    query: methodFirst,
    redirect: () => 'localhost',
    shutdownBody: () => [],
  },
  ruby: {
    userAgent: 'NewRelic-RubyAgent/9.12.0 (ruby 3.3.0 x86_64-linux)',
    verb: 'POST',
    encode: (json) => ({ body: Buffer.from(JSON.stringify(json)), headers: { 'content-type': 'application/octet-stream', 'content-encoding': 'identity' } }),
    query: nodeOrder,
    redirect: () => 'localhost',
    shutdownBody: (runId) => [runId, 1795318994],
  },
};

for (const [name, d] of Object.entries(DIALECTS)) {
  test(`the ${name} agent's dialect: handshake, data, shutdown`, async () => {
    const call = async (method: string, json: unknown, runId?: string) => {
      const { body, headers } = d.encode(json);
      const reply = await invoke(target, { verb: d.verb, query: d.query(method, runId), body, headers: { ...headers, 'user-agent': d.userAgent } });
      assert.equal(reply.status, 200, `${name} ${method}: ${reply.text}`);
      const parsed = replyJson(reply) as Record<string, unknown>;
      assert.ok('return_value' in parsed, `${name} ${method}: every 200 reply carries return_value`);
      return parsed.return_value as Record<string, unknown>;
    };

    const pre = await call('preconnect', [{ high_security: false }]);
    assert.equal(pre.redirect_host, d.redirect(target.collectorPort));

    const appName = `dialect-${name}`;
    const connect = await call('connect', [{ app_name: [appName], language: name, host: `${name}-host`, pid: 4242, agent_version: '1.0' }]);
    const runId = connect.agent_run_id as string;
    const app = ts.server.catalog.applications(1).find((a) => a.name === appName)!;
    assert.equal(connect.application_id, String(app.id));
    assert.equal(connect.account_id, '1');
    assert.equal(connect.apdex_t, 0.5, "New Relic's default Apdex T for a new application");
    assert.equal(Buffer.from(connect.entity_guid as string, 'base64').toString(), `1|APM|APPLICATION|${app.id}`);
    assert.deepEqual(connect.event_harvest_config, {
      report_period_ms: 5000,
      // A connect that asks for no limits gets New Relic's per-minute figures for each 5 s harvest.
      harvest_limits: { analytic_event_data: 10000, custom_event_data: 3000, error_event_data: 100, log_event_data: 10000 },
    });

    assert.equal(await call('agent_settings', [{}], runId), null);
    assert.deepEqual(await call('get_agent_commands', [runId], runId), []);
    // Java sends the harvest bounds as whole seconds.
    await call('metric_data', [runId, 1795318934, 1795318994, [[{ name: 'HttpDispatcher' }, [3, 0.3, 0.3, 0.05, 0.15, 0.035]]]], runId);
    await call('analytic_event_data', [runId, { reservoir_size: 833, events_seen: 1 }, [[{ type: 'Transaction', name: 'WebTransaction/Go/x', timestamp: 1795318950000, duration: 0.1 }, {}, {}]]], runId);
    assert.equal(await call('shutdown', d.shutdownBody(runId), runId), null);

    const [row] = await ts.server.db.all<{ calls: number; total: number }>(`
      SELECT sum(call_count) AS calls, sum(total) AS total FROM timeslices t JOIN metric_names m ON m.id = t.metric_id
      WHERE t.app_id = $1 AND m.name = 'HttpDispatcher'`, [app.id]);
    assert.deepEqual(row, { calls: 3, total: 0.3 });
    const events = await ts.server.db.all<{ name: string; ts: string }>(
      `SELECT name, strftime(timestamp, '%Y-%m-%dT%H:%M:%S') AS ts FROM transaction_events WHERE app_id = $1`, [app.id]);
    assert.deepEqual(events, [{ name: 'WebTransaction/Go/x', ts: '2026-11-22T03:42:30' }]);
    const [instance] = ts.server.catalog.instancesOf(app.id);
    assert.equal(instance?.pid, 4242);
    assert.equal(ts.server.catalog.hostsOf(app.id)[0]?.name, `${name}-host`);
  });
}
