import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { decodeCall, errorFromWire, fromWire, type DecodeRequest, type DecodedCall, type WireError } from './decode-call.js';

/** Turns agent bodies into rows: on the event loop, or on a pool of worker threads. */
export interface AgentDecoder {
  decode(request: DecodeRequest): Promise<DecodedCall>;
  close(): Promise<void>;
}

/** Decodes on the calling thread: for tests and for a one-core machine. */
export const inlineDecoder: AgentDecoder = {
  decode: decodeCall,
  close: async () => undefined,
};

interface Pending {
  readonly resolve: (call: DecodedCall) => void;
  readonly reject: (error: Error) => void;
}

interface PoolWorker {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
}

/** One less than the cores: the event loop keeps one for TLS, routing and DuckDB appends. */
export function defaultDecodeWorkers(): number {
  return Math.max(1, availableParallelism() - 1);
}

/**
 * Parsing JSON is the largest cost of ingest (gunzip, JSON.parse and validation are about half of
 * the event loop's time per timeslice), so it runs on worker threads and the event loop is left
 * with the network, the dictionary and the appends. Each call goes to the least busy worker; a
 * worker that dies fails only its own calls (503, the agent resends) and is replaced.
 */
export class WorkerDecoderPool implements AgentDecoder {
  private readonly workers: PoolWorker[] = [];
  private nextId = 1;
  private closed = false;

  constructor(size: number = defaultDecodeWorkers()) {
    for (let i = 0; i < size; i++) this.workers.push(this.spawn());
  }

  private spawn(): PoolWorker {
    const worker = new Worker(new URL('./decode-worker.js', import.meta.url));
    const entry: PoolWorker = { worker, pending: new Map() };
    worker.unref();
    worker.on('message', (message: { id: number; call?: Parameters<typeof fromWire>[0]; error?: WireError }) => {
      const pending = entry.pending.get(message.id);
      if (!pending) return;
      entry.pending.delete(message.id);
      if (message.error) pending.reject(errorFromWire(message.error));
      else pending.resolve(fromWire(message.call!));
    });
    let failure: Error | undefined;
    worker.on('error', (error) => { failure = error; });
    worker.on('exit', (code) => {
      const error = failure ?? new Error(`decode worker exited with code ${code}`);
      for (const p of entry.pending.values()) p.reject(error);
      entry.pending.clear();
      const index = this.workers.indexOf(entry);
      if (index >= 0 && !this.closed) this.workers[index] = this.spawn();
    });
    return entry;
  }

  decode(request: DecodeRequest): Promise<DecodedCall> {
    if (this.closed) return Promise.reject(new Error('the decoder is closed'));
    let target = this.workers[0]!;
    for (const w of this.workers) if (w.pending.size < target.pending.size) target = w;
    const id = this.nextId++;
    // A copy the worker can own: the request's buffer may be a view into a shared pool.
    const body = new Uint8Array(request.body);
    return new Promise<DecodedCall>((resolve, reject) => {
      target.pending.set(id, { resolve, reject });
      target.worker.postMessage({ id, request: { ...request, body } }, [body.buffer]);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }
}
