/**
 * A real `timeslice serve` in a child process, and the small HTTP(S) clients the starvation and
 * durability benchmarks drive it with. The service runs in its own process so that the load
 * generator's work never shares its event loop: every latency measured here is what a separate
 * client sees over loopback.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const BENCH_LICENSE_KEY = 'benchbenchbenchbenchbenchbenchbenchbench';
export const BENCH_API_KEY = 'NRAK-BENCHSERVE000000000000000000';

/** A port free on 127.0.0.1 at the time of asking. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly apiPort: number;
  readonly collectorPort: number;
  readonly cert: string;
  /** Resolves with the exit code or signal once the process has ended. */
  readonly exited: Promise<number | NodeJS.Signals | null>;
}

export interface ServeOptions {
  readonly dataDir: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Extra flags for the service's node (e.g. `--cpu-prof`). */
  readonly nodeArgs?: readonly string[];
  readonly apiPort?: number;
  readonly collectorPort?: number;
}

const BIN = fileURLToPath(new URL('../../bin/timeslice.js', import.meta.url));

/** Starts `timeslice serve` and waits until it prints that it is running (both listeners up). */
export async function startServe(options: ServeOptions): Promise<ServeProcess> {
  const apiPort = options.apiPort ?? await freePort();
  const collectorPort = options.collectorPort ?? await freePort();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, 'serve', '--host', '127.0.0.1', '--port', String(apiPort), '--collector-port', String(collectorPort), '--data', options.dataDir], {
    env: {
      ...process.env,
      TIMESLICE_LICENSE_KEY: BENCH_LICENSE_KEY,
      TIMESLICE_API_KEY: BENCH_API_KEY,
      TIMESLICE_LOG_LEVEL: 'error',
      TIMESLICE_COMPACT_EVERY_MS: '0',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString('utf8');
      if (out.includes('Timeslice is running.')) { child.stdout!.off('data', onData); resolve(); }
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => reject(new Error(`timeslice serve exited (${code}) before it was running: ${out}`)));
  });
  child.stdout!.resume();
  return { child, apiPort, collectorPort, cert: readFileSync(join(options.dataDir, 'tls', 'cert.pem'), 'utf8'), exited };
}

/** SIGTERM (graceful: pending writes committed) and wait for the exit. */
export async function stopServe(p: ServeProcess): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
  await p.exited;
}

export interface Reply {
  readonly status: number;
  readonly text: string;
  readonly ms: number;
}

/** One request; resolves with status, body and the time from send to the last byte. */
export function request(
  transport: 'http' | 'https', agent: http.Agent, port: number, method: string, path: string,
  headers: Record<string, string | number>, body?: Buffer,
): Promise<Reply> {
  const started = performance.now();
  const lib = transport === 'https' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request({
      host: '127.0.0.1', servername: 'localhost', port, method, path, agent,
      headers: { host: 'localhost', ...(body ? { 'content-length': body.length } : {}), ...headers },
    }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8'), ms: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** An agent of one application on its own keep-alive connection to the collector. */
export class BenchAgent {
  readonly agent: https.Agent;
  runId = '';

  constructor(private readonly serve: Pick<ServeProcess, 'collectorPort' | 'cert'>, readonly appName: string, readonly host = 'bench-1', readonly pid = 4242) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: serve.cert });
  }

  async invoke(method: string, body: unknown, runId?: string): Promise<Reply> {
    const json = Buffer.from(JSON.stringify(body), 'utf8');
    const gzip = json.length > 65_536;
    const query = new URLSearchParams({ marshal_format: 'json', protocol_version: '17', license_key: BENCH_LICENSE_KEY, method, ...(runId ? { run_id: runId } : {}) });
    return request('https', this.agent, this.serve.collectorPort, 'POST', `/agent_listener/invoke_raw_method?${query.toString()}`, {
      'user-agent': 'NewRelic-NodeAgent/13.20.0 (nodejs 20 linux-x64)', 'content-type': 'application/json', 'content-encoding': gzip ? 'gzip' : 'identity',
    }, gzip ? gzipSync(json) : json);
  }

  async connect(): Promise<string> {
    const pre = await this.invoke('preconnect', [{ high_security: false }]);
    if (pre.status !== 200) throw new Error(`preconnect answered ${pre.status}: ${pre.text}`);
    const facts = [{
      pid: this.pid, language: 'nodejs', agent_version: '13.20.0', host: this.host, display_host: this.host,
      app_name: [this.appName], identifier: this.appName, labels: [], settings: {}, utilization: {}, environment: [],
      high_security: false, event_harvest_config: { harvest_limits: {} },
    }];
    const reply = await this.invoke('connect', facts);
    if (reply.status !== 200) throw new Error(`connect answered ${reply.status}: ${reply.text}`);
    this.runId = (JSON.parse(reply.text) as { return_value: { agent_run_id: string } }).return_value.agent_run_id;
    return this.runId;
  }

  /** `metric_data` for [beginS, endS) with the given (name, count) pairs, each with count calls of 1 ms. */
  metricData(beginS: number, endS: number, metrics: readonly (readonly [string, number])[]): Promise<Reply> {
    return this.invoke('metric_data', [this.runId, beginS, endS, metrics.map(([name, count]) => [{ name }, [count, count * 0.001, count * 0.001, 0.001, 0.001, count * 1e-6]])], this.runId);
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Quantile q of a list of numbers (nearest rank), or NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
