import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface WebhookOptions {
  /** Per attempt: connect, send, and the answer's headers and body (default 10 s). */
  readonly timeoutMs: number;
  /** Waits before each retry (default 1 s, 4 s, 16 s: three retries). */
  readonly retryDelaysMs: readonly number[];
  /** Bytes of an answer read at most; the rest is not read (default 64 KiB). */
  readonly maxResponseBytes: number;
}

export const DEFAULT_WEBHOOK_OPTIONS: WebhookOptions = { timeoutMs: 10_000, retryDelaysMs: [1_000, 4_000, 16_000], maxResponseBytes: 64 * 1024 };

export interface WebhookAttempt {
  readonly status: number | null;
  readonly error: string | null;
  readonly transient: boolean;
  readonly durationMs: number;
}

export interface WebhookResult {
  readonly ok: boolean;
  readonly attempts: readonly WebhookAttempt[];
}

/**
 * POSTs a JSON body to a webhook. 2xx is success; network errors, timeouts, 429 and 5xx are retried
 * with capped backoff; every other answer (4xx, and 3xx: redirects are not followed) is final. A
 * receiver that hangs costs at most the timeout per attempt, one that answers forever at most
 * `maxResponseBytes` of memory.
 */
export async function sendWebhook(
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  options: WebhookOptions = DEFAULT_WEBHOOK_OPTIONS,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<WebhookResult> {
  const attempts: WebhookAttempt[] = [];
  for (let i = 0; ; i++) {
    const attempt = await attemptOnce(url, body, headers, options);
    attempts.push(attempt);
    if (attempt.status !== null && attempt.status >= 200 && attempt.status < 300) return { ok: true, attempts };
    const delay = options.retryDelaysMs[i];
    if (!attempt.transient || delay === undefined) return { ok: false, attempts };
    await sleep(delay);
  }
}

function attemptOnce(url: string, body: string, headers: Readonly<Record<string, string>>, options: WebhookOptions): Promise<WebhookAttempt> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (status: number | null, error: string | null, transient: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, error, transient, durationMs: performance.now() - started });
    };
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      done(null, `not a URL: ${url}`, false);
      return;
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      done(null, `only http and https URLs can receive webhooks, not ${target.protocol}`, false);
      return;
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (res) => {
      const status = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > options.maxResponseBytes) {
          res.destroy();
          req.destroy();
          finish();
        }
      });
      const finish = () => {
        if (status >= 200 && status < 300) done(status, null, false);
        else if (status >= 300 && status < 400) done(status, `HTTP ${status}: redirects are not followed`, false);
        else done(status, `HTTP ${status}`, status === 429 || status >= 500);
      };
      res.on('end', finish);
      res.on('error', finish);
    });
    const timer = setTimeout(() => {
      req.destroy();
      done(null, `no answer within ${options.timeoutMs} ms`, true);
    }, options.timeoutMs);
    req.on('error', (error) => done(null, error.message, true));
    req.end(body);
  });
}
