import { readFileSync } from 'node:fs';
import { request } from 'node:https';

export interface HttpsReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/**
 * One HTTPS request to the collector port, trusting only the server's own certificate, as a tool
 * pointed at the collector's host name (`insights-collector`, `rpm`) sends it.
 */
export async function httpsRequest(
  target: { readonly collectorPort: number; readonly certPath: string },
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer | string = Buffer.alloc(0),
): Promise<HttpsReply> {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return new Promise<HttpsReply>((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      servername: 'localhost',
      port: target.collectorPort,
      method,
      path,
      headers: { host: 'localhost', 'content-length': String(bytes.length), ...headers },
      ca: readFileSync(target.certPath, 'utf8'),
      agent: false,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(bytes);
  });
}
