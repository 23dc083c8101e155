// `timeslice demo` end to end: the real CLI, the real `newrelic` agent in the demo app, and the
// data it left in the store, read after the process exited.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Database } from '../../src/store/duckdb/database.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(ROOT, 'bin', 'timeslice.js');

/** Our environment without settings that would change what the CLI or the agent does. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TIMESLICE_') && !k.startsWith('NEW_RELIC_')));
}

interface Finished { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

function runCli(args: string[], timeoutMs: number): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timeslice ${args.join(' ')} did not exit within ${timeoutMs / 1000} s\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('timeslice demo', { timeout: 150_000 }, () => {
  let dataDir: string;
  let run: Finished;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'timeslice-demo-'));
    run = await runCli(['demo', '--duration', '20', '--port', '0', '--collector-port', '0', '--data', dataDir], 90_000);
  });

  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  test('runs to the end and exits 0, printing real ports, progress and a summary', () => {
    assert.equal(run.code, 0, `exit code ${run.code} (${run.signal})\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`);
    const api = /API:\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(run.stdout);
    const collector = /Collector:\s+https:\/\/localhost:(\d+)/.exec(run.stdout);
    assert.ok(api && Number(api[1]) > 0, 'the API URL shows the port it listens on');
    assert.ok(collector && Number(collector[1]) > 0, 'the collector URL shows the port it listens on');
    assert.match(run.stdout, new RegExp(`NEW_RELIC_PORT=${collector[1]}\\b`));
    // A ready link to the web UI, the new user key in its fragment.
    assert.match(run.stdout, new RegExp(`Web UI:\\s+http://127\\.0\\.0\\.1:${api![1]}/ui/#key=NRAK-[A-Za-z0-9]+\\n`));
    assert.match(run.stdout, /agent connected: application "Timeslice Demo"/);
    assert.match(run.stdout, /^0:05 +sent +\d+ requests: \d+ fast/m, 'progress every 5 s');
    assert.match(run.stdout, /next metric harvest in ~\d+ s/);
    assert.match(run.stdout, /Demo finished after/);
    assert.match(run.stdout, /Where to look:/);
    assert.doesNotMatch(run.stdout, /went wrong/, 'every request got the answer it should');
  });

  test('leaves no demo app behind', () => {
    const pid = /app listening on http:\/\/127\.0\.0\.1:\d+ \(pid (\d+)\)/.exec(run.stdout);
    assert.ok(pid, 'the demo app pid is printed');
    assert.equal(alive(Number(pid[1])), false);
  });

  test('real agent data arrived: events, the final metric harvest, errors and queue time', async () => {
    assert.equal(run.code, 0);
    const db = await Database.open({ path: join(dataDir, 'timeslice.duckdb'), memoryLimit: '256MB' });
    try {
      const [app] = await db.all<{ id: number }>(`SELECT id FROM applications WHERE name = 'Timeslice Demo'`);
      assert.ok(app, 'the agent created its application');
      const count = async (table: string, where = 'TRUE') =>
        (await db.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${table} WHERE app_id = $1 AND ${where}`, [app.id]))[0]!.n;
      const calls = async (metric: string) =>
        (await db.all<{ n: number }>(
          `SELECT coalesce(sum(t.call_count), 0)::DOUBLE AS n FROM timeslices t JOIN metric_names m ON m.id = t.metric_id
           WHERE t.app_id = $1 AND t.scope_id = 0 AND m.name = $2`,
          [app.id, metric],
        ))[0]!.n;

      assert.ok((await count('transaction_events')) > 0, 'transaction events');
      assert.ok((await count('transaction_events', 'queue_duration > 0')) > 0, 'transaction events with queue time');
      assert.ok((await count('transaction_events', `name = 'WebTransaction/Custom/slow'`)) > 0, 'readable transaction names');
      assert.ok((await count('error_events')) > 0, 'error events');
      assert.ok((await count('custom_events', `event_type = 'DemoOrder'`)) > 0, 'custom events');
      assert.ok((await calls('HttpDispatcher')) > 0, 'HttpDispatcher call count (the shutdown flush sends the last harvest)');
      assert.ok((await calls('Errors/all')) > 0, 'Errors/all');
      assert.ok((await calls('WebFrontend/QueueTime')) > 0, 'WebFrontend/QueueTime');
      assert.ok((await calls('External/all')) > 0, 'External/all from /external');
      const [shutdown] = await db.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM agent_runs WHERE shutdown_at IS NOT NULL');
      assert.ok(shutdown!.n > 0, 'the agent said goodbye (graceful shutdown)');
    } finally {
      await db.close();
    }
  });
});

describe('timeslice demo flags', () => {
  for (const args of [['--bogus'], ['--duration', 'soon'], ['--duration', '-5'], ['--port', '70000'], ['--collector-port', 'x']]) {
    test(`rejects ${args.join(' ')} with exit code 2`, () => {
      const result = spawnSync(process.execPath, [CLI, 'demo', ...args], { cwd: ROOT, env: cleanEnv(), encoding: 'utf8', timeout: 30_000 });
      assert.equal(result.status, 2, `stdout: ${result.stdout}\nstderr: ${result.stderr}`);
      assert.match(result.stderr, /^timeslice: /);
      assert.equal(result.stdout, '', 'nothing started');
    });
  }
});
