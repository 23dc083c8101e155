import { readFileSync } from 'node:fs';
import { request } from 'node:https';

/** What an agent sees of a collector reply. */
export interface CollectorReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

export interface CollectorTarget {
  readonly collectorPort: number;
  readonly certPath: string;
}

export interface InvokeOptions {
  /** HTTP verb; agents POST. */
  readonly verb?: string;
  /** Query parameters in the order given; undefined values are left out. */
  readonly query: Record<string, string | undefined>;
  /** Raw bytes to send, or a value to send as JSON text. */
  readonly body?: Buffer | unknown;
  /** Headers on top of the Node agent's; a header set to undefined is not sent. */
  readonly headers?: Record<string, string | undefined>;
  /** Another path on the collector port than invoke_raw_method (browser beacons, the Event API). */
  readonly path?: string;
}

/** The query string the Node agent builds, in its order: marshal_format, protocol_version, license_key, method, run_id. */
export function agentQuery(method: string, licenseKey: string, runId?: string): Record<string, string | undefined> {
  return { marshal_format: 'json', protocol_version: '17', license_key: licenseKey, method, ...(runId !== undefined ? { run_id: runId } : {}) };
}

/**
 * One call to `/agent_listener/invoke_raw_method` over HTTPS, trusting only the server's own
 * certificate, with the headers the Node agent sends (Host without port, its User-Agent,
 * application/json, Content-Encoding identity unless told otherwise).
 */
export async function invoke(target: CollectorTarget, options: InvokeOptions): Promise<CollectorReply> {
  const body = options.body === undefined ? Buffer.alloc(0)
    : Buffer.isBuffer(options.body) ? options.body
    : Buffer.from(JSON.stringify(options.body), 'utf8');
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(options.query)) if (v !== undefined) search.append(k, v);
  const headers: Record<string, string> = {};
  const base: Record<string, string | undefined> = {
    host: 'localhost',
    'user-agent': 'NewRelic-NodeAgent/14.5.1 (nodejs 22.23.3 linux-x64)',
    'content-type': 'application/json',
    'content-encoding': 'identity',
    'content-length': String(body.length),
    ...options.headers,
  };
  for (const [k, v] of Object.entries(base)) if (v !== undefined) headers[k] = v;
  const ca = readFileSync(target.certPath, 'utf8');
  return new Promise<CollectorReply>((resolve, reject) => {
    let settled = false;
    const req = request({
      host: '127.0.0.1',
      servername: 'localhost',
      port: target.collectorPort,
      method: options.verb ?? 'POST',
      path: `${options.path ?? '/agent_listener/invoke_raw_method'}?${search.toString()}`,
      headers,
      ca,
      agent: false,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        settled = true;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', (e) => { if (!settled) { settled = true; reject(e); } });
    });
    // A server that refuses a large body may close before reading all of it; the reply is what counts.
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      reject(e);
    });
    req.end(body);
  });
}

/** The reply body as JSON; fails the test with the text when it is not JSON. */
export function replyJson(reply: CollectorReply): unknown {
  try {
    return JSON.parse(reply.text);
  } catch {
    throw new Error(`reply (status ${reply.status}) is not JSON: ${reply.text.slice(0, 200)}`);
  }
}

/**
 * The agent's handshake with the captured connect request: preconnect, then connect. Returns
 * the run id the server handed out.
 */
export async function connectAgent(
  target: CollectorTarget,
  licenseKey: string,
  connectBody: unknown,
): Promise<{ runId: string; connectReply: Record<string, unknown> }> {
  const pre = await invoke(target, { query: agentQuery('preconnect', licenseKey), body: [{ high_security: false }] });
  if (pre.status !== 200) throw new Error(`preconnect answered ${pre.status}: ${pre.text}`);
  const reply = await invoke(target, { query: agentQuery('connect', licenseKey), body: connectBody });
  if (reply.status !== 200) throw new Error(`connect answered ${reply.status}: ${reply.text}`);
  const value = (replyJson(reply) as { return_value: Record<string, unknown> }).return_value;
  if (typeof value.agent_run_id !== 'string' || value.agent_run_id === '') throw new Error(`connect gave no run id: ${reply.text}`);
  return { runId: value.agent_run_id, connectReply: value };
}
