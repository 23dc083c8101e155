/**
 * `timeslice query` as a user runs it: the real CLI in a child process against a running
 * service, printing a table, NerdGraph-shaped JSON, or the error with a caret under its column.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { agentQuery, invoke } from '../helpers/collector-client.js';
import { connectApp, ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

function cli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/timeslice.js', ...args], { env: { PATH: process.env.PATH, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const expect = { dashes: (n: number) => '-'.repeat(n) };

describe('timeslice query', () => {
  const T = Date.UTC(2025, 7, 11, 8, 0);
  const clock = new ManualClock(T + 10 * 60_000);
  let ts: TestServer;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    ts = await startTestServer({}, { clock });
    for (const [app, durations] of [['checkout', [0.1, 0.3, 1.2]], ['search', [0.05]]] as const) {
      const { runId } = await connectApp(ts, app);
      const events = durations.map((duration, i) => [{ type: 'Transaction', timestamp: T + i * 1000, name: 'WebTransaction/Expressjs/GET//', duration }, {}, {}]);
      const reply = await invoke(ts.server, { query: agentQuery('analytic_event_data', TEST_LICENSE_KEY, runId), body: [runId, { reservoir_size: 10, events_seen: events.length }, events] });
      assert.equal(reply.status, 200, reply.text);
    }
    env = { TIMESLICE_URL: ts.server.apiUrl, TIMESLICE_API_KEY: TEST_API_KEY };
  });
  after(async () => { await ts?.stop(); });

  it('prints a table of the facets', async () => {
    const { code, stdout, stderr } = await cli(['query', '--utc', `SELECT count(*), max(duration) FROM Transaction FACET appName SINCE ${T} UNTIL ${T + 60_000}`], env);
    assert.equal(code, 0, stderr);
    const lines = stdout.split('\n');
    // The facet's values show once, under its own name.
    assert.match(lines[0]!, /^appName\s+count\s+max\.duration$/);
    assert.match(lines[2]!, /^checkout\s+3\s+1\.2$/);
    assert.match(lines[3]!, /^search\s+1\s+0\.05$/);
    assert.match(stdout, /Total: \{"count":4,"max\.duration":1\.2\}/);
    assert.match(stdout, /2 rows · 2025-08-11T08:00:00\.000Z – 2025-08-11T08:01:00\.000Z/);
  });

  it('prints times in ISO, in the local zone or with --utc; numbers rounded, whole with --wide', async () => {
    const local = { ...env, TZ: 'Asia/Kolkata' };
    const series = await cli(['query', `SELECT count(*) FROM Transaction WHERE appName = 'checkout' SINCE ${T} UNTIL ${T + 120_000} TIMESERIES 1 minute`], local);
    assert.equal(series.code, 0, series.stderr);
    assert.deepEqual(series.stdout.split('\n').slice(0, 4).map((l) => l.split(/\s{2,}/)), [
      ['beginTimeSeconds', 'endTimeSeconds', 'count'],
      [expect.dashes(29), expect.dashes(29), '-----'],
      ['2025-08-11T13:30:00.000+05:30', '2025-08-11T13:31:00.000+05:30', '3'],
      ['2025-08-11T13:31:00.000+05:30', '2025-08-11T13:32:00.000+05:30', '0'],
    ]);
    assert.match(series.stdout, /2 rows · 2025-08-11T13:30:00\.000\+05:30 – 2025-08-11T13:32:00\.000\+05:30/);
    const utc = await cli(['query', '--utc', `SELECT timestamp, duration FROM Transaction WHERE appName = 'checkout' SINCE ${T} UNTIL ${T + 60_000} ORDER BY timestamp LIMIT 1`], local);
    assert.equal(utc.code, 0, utc.stderr);
    assert.match(utc.stdout, /^2025-08-11T08:00:00\.000Z\s+0\.1$/m);
    // (0.1 + 0.3 + 1.2) / 3 in doubles is 0.5333333333333333: three decimals, or every digit with --wide.
    const query = `SELECT average(duration) FROM Transaction WHERE appName = 'checkout' SINCE ${T} UNTIL ${T + 60_000}`;
    const rounded = await cli(['query', query], env);
    assert.equal(rounded.stdout.split('\n')[2], '0.533');
    const wide = await cli(['query', '--wide', query], env);
    assert.equal(wide.stdout.split('\n')[2], String((0.1 + 0.3 + 1.2) / 3));
  });

  it('--json prints the result container with the query as sent', async () => {
    const { code, stdout, stderr } = await cli(['query', '--json', `select average(duration) from Transaction where appName = 'checkout' since ${T} until ${T + 60_000}`], env);
    assert.equal(code, 0, stderr);
    const body = JSON.parse(stdout) as { results: Record<string, number>[]; nrql: string; metadata: { eventTypes: string[] } };
    assert.ok(Math.abs(body.results[0]!['average.duration']! - 1.6 / 3) < 1e-12);
    assert.deepEqual(body.metadata.eventTypes, ['Transaction']);
    assert.equal(body.nrql, `select average(duration) from Transaction where appName = 'checkout' since ${T} until ${T + 60_000}`);
  });

  it('a bad query exits 1 with the message, its code and a caret under the column', async () => {
    const { code, stdout, stderr } = await cli(['query', 'SELECT uniquecont(host) FROM Transaction'], env);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.equal(stderr, [
      'timeslice query: unknown function uniquecont(); did you mean uniqueCount()? (line 1, column 8) [NRQL_UNKNOWN_FUNCTION]',
      '  SELECT uniquecont(host) FROM Transaction',
      '         ^',
      '',
    ].join('\n'));
  });

  it('another account, a wrong key, no key and no service are told apart', async () => {
    const denied = await cli(['query', '--account', '2', 'SELECT count(*) FROM Transaction'], env);
    assert.deepEqual([denied.code, denied.stderr], [1, 'timeslice query: This API key cannot read account 2\n']);
    const wrongKey = await cli(['query', 'SELECT count(*) FROM Transaction'], { ...env, TIMESLICE_API_KEY: 'NRAK-WRONG' });
    assert.deepEqual([wrongKey.code, wrongKey.stderr], [1, 'timeslice query: Invalid API key\n']);
    const noKey = await cli(['query', 'SELECT count(*) FROM Transaction'], { TIMESLICE_URL: env.TIMESLICE_URL });
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /no API key/);
    const down = await cli(['query', 'SELECT count(*) FROM Transaction'], { ...env, TIMESLICE_URL: 'http://127.0.0.1:9' });
    assert.equal(down.code, 1);
    assert.match(down.stderr, /cannot reach http:\/\/127\.0\.0\.1:9/);
  });

  it('--data reads a data directory directly, once no service holds it', async () => {
    const query = `SELECT count(*) FROM Transaction WHERE appName = 'checkout' SINCE ${T} UNTIL ${T + 60_000}`;
    const locked = await cli(['query', '--data', ts.dataDir, query], {});
    assert.equal(locked.code, 1);
    assert.match(locked.stderr, /is open in another process/);
    await ts.server.close();
    const direct = await cli(['query', '--data', ts.dataDir, '--json', query], {});
    assert.equal(direct.code, 0, direct.stderr);
    assert.deepEqual(JSON.parse(direct.stdout).results, [{ count: 3 }]);
  });
});
