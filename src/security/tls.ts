import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
  readonly certPath: string;
}

/**
 * The collector's certificate: made once, self-signed, valid for `localhost`, `127.0.0.1` and the
 * extra hosts given (the listen address, TIMESLICE_CERT_HOSTS), kept under `<data>/tls/`. Agents
 * trust it through NODE_EXTRA_CA_CERTS (or their CA-bundle setting), which is why it stays the
 * same across restarts. A certificate and key put there by hand are used as they are.
 */
export async function ensureCollectorCertificate(dataDir: string, extraHosts: readonly string[] = []): Promise<TlsMaterial> {
  const dir = join(dataDir, 'tls');
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  if (existsSync(certPath) && existsSync(keyPath)) {
    return { cert: await readFile(certPath, 'utf8'), key: await readFile(keyPath, 'utf8'), certPath };
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const hosts = [...new Set(extraHosts.filter((h) => h !== '0.0.0.0' && h !== '::'))];
  const dnsNames = ['localhost', ...hosts.filter((h) => !isIp(h) && h !== 'localhost')];
  const ips = ['127.0.0.1', ...hosts.filter((h) => isIp(h) && h !== '127.0.0.1')];
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore.getTime() + 10 * 365 * 24 * 3600 * 1000);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: notBefore,
    notAfterDate: notAfter,
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [...dnsNames.map((value) => ({ type: 2 as const, value })), ...ips.map((ip) => ({ type: 7 as const, ip }))],
      },
    ],
  });
  await writeFile(keyPath, pems.private, { mode: 0o600 });
  await writeFile(certPath, pems.cert, { mode: 0o600 });
  return { cert: pems.cert, key: pems.private, certPath };
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}
