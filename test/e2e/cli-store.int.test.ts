/**
 * `timeslice status` and `timeslice maintain` as a user runs them: the real CLI in a child
 * process against a running service (TIMESLICE_URL, TIMESLICE_API_KEY).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { connectApp, ManualClock, sendMetrics } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/test-server.js';

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

describe('timeslice status and maintain', () => {
  const T = Date.UTC(2025, 7, 11, 0, 0);
  const clock = new ManualClock(T + 5 * 3_600_000 + 30_000);
  let ts: TestServer;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    ts = await startTestServer({ TIMESLICE_UPKEEP_EVERY_MS: '0', TIMESLICE_RETENTION: 'Log=30d,key=400d' }, { clock });
    const { runId } = await connectApp(ts, 'status-app');
    // Three harvests of two metrics in each of the hours 00:00–02:00.
    for (let m = 0; m < 180; m += 20) {
      await sendMetrics(ts, runId, T + m * 60_000, T + (m + 1) * 60_000, [['HttpDispatcher', '', [1, 0.1, 0.1, 0.1, 0.1, 0.01]], ['Apdex', '', [1, 0, 0, 0.5, 0.5, 0]]]);
    }
    env = { TIMESLICE_URL: ts.server.apiUrl, TIMESLICE_API_KEY: TEST_API_KEY };
  });
  after(async () => { await ts?.stop(); });

  it('maintain rolls closed hours up through the service and says what it did', async () => {
    const { code, stdout, stderr } = await cli(['maintain'], env);
    assert.equal(code, 0, stderr);
    // Hours 00:00, 01:00 and 02:00 (one rollup row per metric each); 03:00 held nothing.
    assert.equal(stdout, 'rolled up 3 hours into 6 rollup rows\ndeleted nothing (nothing had expired)\n');
  });

  it('status shows rows and oldest data per table and resolution, the retention in force and the last runs', async () => {
    const { code, stdout, stderr } = await cli(['status'], env);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^store: duckdb, [\d.]+ (KiB|MiB) on disk\n/);
    assert.match(stdout, /\ntimeslices_hourly +hour +6 +2025-08-11T00:00:00Z\n/);
    assert.match(stdout, /\ntimeslices +minute +18 +2025-08-11T00:00:00Z\n/);
    assert.match(stdout, /\n {2}1-minute timeslices {2}8d\n {2}hourly rollups {7}90d \(key metrics 400d\)\n/);
    assert.match(stdout, /Log 30d/);
    assert.match(stdout, /\nrolled up until: {3}2025-08-11T04:00:00Z\n/);
    assert.match(stdout, /\nlast rollup run: {3}2025-08-11T05:00:30Z\n/);

    const json = await cli(['status', '--json'], env);
    const status = JSON.parse(json.stdout) as { rolledUpUntilMs: number; tables: { table: string; rows: number }[] };
    assert.equal(status.rolledUpUntilMs, T + 4 * 3_600_000);
    assert.equal(status.tables.find((t) => t.table === 'timeslices_hourly')?.rows, 6);
  });

  it('a wrong key is refused with the reason', async () => {
    const { code, stderr } = await cli(['status'], { ...env, TIMESLICE_API_KEY: 'NRAK-WRONG' });
    assert.equal(code, 1);
    assert.equal(stderr, 'timeslice status: Invalid API key\n');
  });
});
