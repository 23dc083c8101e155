import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { clickhouseMissing, startClickHouse } from '../helpers/clickhouse.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

function post(port: number, ca: string, query: Record<string, string>, body: unknown): Promise<{ status: number; body: string }> {
  const qs = new URLSearchParams({ marshal_format: 'json', protocol_version: '17', ...query });
  return new Promise((resolve, reject) => {
    const req = request({ host: 'localhost', port, method: 'POST', path: `/agent_listener/invoke_raw_method?${qs}`, ca, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/**
 * `kill -9` of a Timeslice node on ClickHouse while agents post: every payload it acknowledged is
 * in ClickHouse afterwards. Each payload's call count is unique, so the stored rows name which
 * payloads arrived, without the killed node's catalog.
 */
test('kill -9 of a node under ingest loses no acknowledged timeslice', { skip: clickhouseMissing(), timeout: 120_000 }, async (t) => {
  const clickhouse = await startClickHouse();
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-ch-kill-'));
  let child: ChildProcess | undefined;
  t.after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    await clickhouse.stop();
  });
  const licenseKey = 'fedcba9876543210fedcba9876543210fedcba98';
  child = spawn(process.execPath, ['bin/timeslice.js', 'serve', '--port', '0', '--collector-port', '0', '--data', dataDir, '--store', `clickhouse://127.0.0.1:${clickhouse.httpPort}/killed`], {
    cwd: repoRoot, env: { ...process.env, TIMESLICE_LICENSE_KEY: licenseKey, TIMESLICE_LOG_LEVEL: 'error' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  while (!/NEW_RELIC_PORT=(\d+)/.test(out)) {
    assert.equal(child.exitCode, null, out);
    await new Promise((r) => setTimeout(r, 50));
  }
  const port = Number(/NEW_RELIC_PORT=(\d+)/.exec(out)![1]);
  const ca = await readFile(join(dataDir, 'tls/cert.pem'), 'utf8');

  const acknowledged: number[] = [];
  let sent = 0;
  const agent = async (n: number) => {
    const connect = await post(port, ca, { method: 'connect', license_key: licenseKey }, [{ app_name: [`killed-${n}`], host: `h${n}`, pid: 100 + n, language: 'nodejs' }]);
    assert.equal(connect.status, 200, connect.body);
    const runId = JSON.parse(connect.body).return_value.agent_run_id as string;
    for (let seq = 1; ; seq++) {
      const calls = n * 100_000 + seq;
      const now = Date.now() / 1000;
      sent++;
      try {
        const reply = await post(port, ca, { method: 'metric_data', license_key: licenseKey, run_id: runId }, [runId, now - 60, now, [[{ name: `Custom/kill/${n}` }, [calls, 1, 1, 0.1, 0.9, 1]]]]);
        if (reply.status === 200) acknowledged.push(calls);
      } catch {
        return; // the node is gone
      }
    }
  };
  const agents = Array.from({ length: 6 }, (_, n) => agent(n + 1));
  while (acknowledged.length < 60) await new Promise((r) => setTimeout(r, 20));
  child.kill('SIGKILL');
  await new Promise((r) => child!.once('exit', r));
  await Promise.all(agents);

  const stored = new Set((await clickhouse.query('SELECT toUInt64(call_count) FROM killed.timeslices FORMAT TSV')).trim().split('\n').map(Number));
  const lost = acknowledged.filter((c) => !stored.has(c));
  assert.deepEqual(lost, [], `${acknowledged.length} acknowledged of ${sent} sent, ${stored.size} stored`);
  assert.ok(acknowledged.length >= 60);
});
