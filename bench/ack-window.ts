/**
 * The acknowledgement window: how long after a COMMIT the agent that sent the committed payload has
 * its 200. A `kill -9` inside that window leaves data stored that the agent was never told about, and
 * the agent resends it (protocol 17 has no request id to recognise the resend), so it counts twice.
 * docs/collector.md ("Acknowledgement and the resend window") quotes the figures.
 *
 * One agent posts `metric_data` harvests one after another to the real service (startServer, HTTPS,
 * worker decoding, group commit) in this process; the append connection's COMMIT is timed as it
 * returns, and each reply as its status line reaches the client. With one request in flight each
 * reply belongs to the commit just before it.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/ack-window.js [--requests=500] [--metrics=150]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request, Agent } from 'node:https';
import { readFileSync } from 'node:fs';
import { resolveServeConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { runAlone } from './run-alone.js';

const LICENSE_KEY = '0123456789abcdef0123456789abcdef01234567';

/** `--name=N` from the command line, or from `npm run bench`'s flags. */
function flagOf(flags: ReadonlyMap<string, string>, name: string, fallback: number): number {
  const value = flags.get(name);
  return value === undefined ? fallback : Number(value);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function ackWindowBench(flags: ReadonlyMap<string, string>): Promise<void> {
  const requests = flagOf(flags, 'requests', 500);
  const metrics = flagOf(flags, 'metrics', 150);
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-ack-window-'));
  const config = resolveServeConfig(
    { host: '127.0.0.1', port: '0', 'collector-port': '0', data: dataDir },
    { TIMESLICE_LICENSE_KEY: LICENSE_KEY, TIMESLICE_API_KEY: 'NRAK-BENCH0000000000000000000000', TIMESLICE_LOG_LEVEL: 'error' },
  );
  const server = await startServer(config);
  const commits: number[] = [];
  const connection = server.db.appendConnection as { run: (sql: string, ...rest: unknown[]) => Promise<unknown> };
  const run = connection.run.bind(connection);
  connection.run = async (sql: string, ...rest: unknown[]) => {
    const result = await run(sql, ...rest);
    if (sql === 'COMMIT') commits.push(performance.now());
    return result;
  };
  const ca = readFileSync(server.certPath, 'utf8');
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
  const post = (method: string, body: unknown, runId?: string) => new Promise<{ status: number; text: string; at: number }>((resolve, reject) => {
    const bytes = Buffer.from(JSON.stringify(body));
    const query = new URLSearchParams({ marshal_format: 'json', protocol_version: '17', license_key: LICENSE_KEY, method, ...(runId ? { run_id: runId } : {}) });
    const req = request({
      host: '127.0.0.1', servername: 'localhost', port: server.collectorPort, method: 'POST', agent,
      path: `/agent_listener/invoke_raw_method?${query}`,
      headers: { host: 'localhost', 'content-type': 'application/json', 'content-length': String(bytes.length) },
    }, (res) => {
      const at = performance.now();
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), at }));
    });
    req.on('error', reject);
    req.end(bytes);
  });
  try {
    const connect = await post('connect', [{ app_name: ['AckWindow'], host: 'bench', pid: 1 }]);
    const runId = (JSON.parse(connect.text) as { return_value: { agent_run_id: string } }).return_value.agent_run_id;
    const gaps: number[] = [];
    const start = Date.now() / 1000 - 3600;
    for (let i = 0; i < requests; i++) {
      const list = Array.from({ length: metrics }, (_, m) => [{ name: `Custom/Ack/${m}` }, [1, 0.5, 0.5, 0.5, 0.5, 0.25]]);
      const before = commits.length;
      const reply = await post('metric_data', [runId, start + i, start + i + 60, list], runId);
      if (reply.status !== 200) throw new Error(`metric_data answered ${reply.status}: ${reply.text}`);
      if (commits.length !== before + 1) throw new Error(`expected one commit per harvest, saw ${commits.length - before}`);
      gaps.push(reply.at - commits[commits.length - 1]!);
    }
    gaps.sort((a, b) => a - b);
    const ms = (v: number) => `${v.toFixed(3)} ms`;
    console.log(`ack window (COMMIT returned → reply status line at the agent), ${requests} harvests of ${metrics} metrics, one in flight:`);
    console.log(`  p50 ${ms(percentile(gaps, 50))}  p90 ${ms(percentile(gaps, 90))}  p99 ${ms(percentile(gaps, 99))}  max ${ms(gaps[gaps.length - 1]!)}`);
  } finally {
    agent.destroy();
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runAlone(import.meta.url, ackWindowBench);
