import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCollectorCertificate } from './tls.js';

test('the certificate names localhost, 127.0.0.1 and the extra hosts, never a wildcard listen address', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'timeslice-tls-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const made = await ensureCollectorCertificate(dir, ['apm.example', '10.0.0.5', '0.0.0.0', 'localhost']);
  const cert = new X509Certificate(made.cert);
  assert.equal(cert.subjectAltName, 'DNS:localhost, DNS:apm.example, IP Address:127.0.0.1, IP Address:10.0.0.5');
  assert.ok(cert.checkPrivateKey((await import('node:crypto')).createPrivateKey(made.key)));
  assert.equal(made.certPath, join(dir, 'tls/cert.pem'));
});

test('a certificate already in place is used as it is', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'timeslice-tls-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const first = await ensureCollectorCertificate(dir);
  await writeFile(join(dir, 'tls/cert.pem'), first.cert);
  const again = await ensureCollectorCertificate(dir, ['other.example']);
  assert.equal(again.cert, first.cert);
  assert.equal(again.key, first.key);
});
