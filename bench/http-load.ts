/**
 * A closed-loop HTTP load generator in a child process: N connections, each with one request in
 * flight, sending the same request back to back for a given time over keep-alive sockets
 * (`node:http` with an `Agent` of N sockets). It runs in its own process so that the client's
 * work is not done on the event loop of the service it measures; its CPU time is reported so the
 * reader can see what it took from the shared cores.
 *
 * Every response must have the expected status and, when given, the expected body (byte-equal,
 * or the same JSON with numbers within `RELATIVE_TOLERANCE`: parallel sums vary in their last
 * bits): a benchmark that times answers it has checked once must not time errors afterwards.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { jsonDifference } from './same-json.js';

export interface LoadSpec {
  readonly port: number;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Connections, each with one request in flight. */
  readonly concurrency: number;
  readonly durationMs: number;
  readonly expectedStatus: number;
  /** When set, every response body must be the same JSON (numbers within `RELATIVE_TOLERANCE`). */
  readonly expectedBody?: string;
}

export interface LoadResult {
  /** Requests answered as expected. */
  readonly requests: number;
  /** From the first request sent to the last answer received. */
  readonly elapsedMs: number;
  /** Per request, send to last byte. */
  readonly latenciesMs: readonly number[];
  /** CPU time of the client process during the run. */
  readonly clientCpuMs: number;
  /** Sockets opened while the clock ran (0 when keep-alive held: the connections are opened before it starts). */
  readonly socketsOpened: number;
}

const CLIENT_FLAG = '--timeslice-bench-http-load';

type ToClient = { readonly kind: 'run'; readonly spec: LoadSpec } | { readonly kind: 'close' };
type FromClient = { readonly kind: 'result'; readonly result: LoadResult } | { readonly kind: 'error'; readonly message: string };

/** The parent's handle on the load process. One run at a time. */
export class HttpLoad {
  private constructor(private readonly child: ChildProcess) {}

  static start(): HttpLoad {
    const child = fork(fileURLToPath(import.meta.url), [CLIENT_FLAG], { execArgv: ['--enable-source-maps'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    return new HttpLoad(child);
  }

  async run(spec: LoadSpec): Promise<LoadResult> {
    const reply = new Promise<FromClient>((resolve, reject) => {
      const onMessage = (m: FromClient) => { cleanup(); resolve(m); };
      const onExit = (code: number | null) => { cleanup(); reject(new Error(`the load process exited (${code}) during a run`)); };
      const cleanup = () => { this.child.off('message', onMessage); this.child.off('exit', onExit); };
      this.child.on('message', onMessage);
      this.child.on('exit', onExit);
    });
    this.child.send({ kind: 'run', spec } satisfies ToClient);
    const m = await reply;
    if (m.kind === 'error') throw new Error(`load run ${spec.method} ${spec.path} (×${spec.concurrency}) failed: ${m.message}`);
    return m.result;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || !this.child.connected) return;
    const exited = once(this.child, 'exit');
    this.child.send({ kind: 'close' } satisfies ToClient);
    await exited;
  }
}

// ── the child ───────────────────────────────────────────────────────────────────────────────

function request(agent: http.Agent, spec: LoadSpec, body: Buffer | undefined, sockets: Set<unknown>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port: spec.port, method: spec.method, path: spec.path, agent,
      headers: { ...spec.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
    }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('socket', (socket) => sockets.add(socket));
    req.on('error', reject);
    req.end(body);
  });
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.concurrency });
  const sockets = new Set<unknown>();
  const body = spec.body === undefined ? undefined : Buffer.from(spec.body, 'utf8');
  const expected = spec.expectedBody === undefined ? undefined : parseOrText(spec.expectedBody);
  const send = async () => {
    const answer = await request(agent, spec, body, sockets);
    if (answer.status !== spec.expectedStatus) throw new Error(`status ${answer.status}, expected ${spec.expectedStatus}: ${answer.text.slice(0, 300)}`);
    if (expected !== undefined && answer.text !== spec.expectedBody) {
      const difference = jsonDifference(parseOrText(answer.text), expected);
      if (difference) throw new Error(`the body differs from the checked one at ${difference}`);
    }
  };
  try {
    // Open every connection before the clock starts, so a run times requests, not handshakes.
    await Promise.all(Array.from({ length: spec.concurrency }, send));
    const warm = sockets.size;
    const latenciesMs: number[] = [];
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const deadline = t0 + spec.durationMs;
    await Promise.all(Array.from({ length: spec.concurrency }, async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        await send();
        latenciesMs.push(performance.now() - started);
      }
    }));
    const elapsedMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return { requests: latenciesMs.length, elapsedMs, latenciesMs, clientCpuMs: (cpu.user + cpu.system) / 1000, socketsOpened: sockets.size - warm };
  } finally {
    agent.destroy();
  }
}

async function clientMain(): Promise<void> {
  const send = (m: FromClient) => new Promise<void>((resolve) => process.send!(m, () => resolve()));
  for (;;) {
    const [message] = (await once(process, 'message')) as [ToClient];
    if (message.kind === 'close') break;
    try {
      await send({ kind: 'result', result: await runLoad(message.spec) });
    } catch (error) {
      await send({ kind: 'error', message: (error as Error).stack ?? String(error) });
    }
  }
  process.disconnect();
}

if (process.argv.includes(CLIENT_FLAG)) void clientMain();
