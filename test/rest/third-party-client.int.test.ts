import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ensureCollectorCertificate } from '../../src/security/tls.js';
import { repoRoot } from '../helpers/samples.js';
import { TEST_API_KEY } from '../helpers/test-server.js';
import { rest, startScenario, type Scenario } from './rest-scenario.js';

/*
 * An unmodified third-party REST v2 client from npm, `newrelic-api-client` 0.1.7 (its URLs are
 * fixed to https://api.newrelic.com), run against the service with its base URL redirected the
 * way a network redirects it, not by changing its code: the client's HTTP library honours
 * HTTPS_PROXY, so the client process gets a proxy that tunnels `api.newrelic.com:443` to a
 * TLS-terminating front (a certificate for api.newrelic.com, trusted through NODE_EXTRA_CA_CERTS)
 * that forwards to the test server as any reverse proxy does (Host kept, X-Forwarded-Proto https).
 * Its key comes from NEWRELIC_REST_API_KEY, as its README says. It lists and shows applications,
 * lists metric names and metric data (its names[0]=… form), hosts, instances, key transactions, mobile
 * and browser applications, and lists deployments across two pages by following rel="next".
 */

let s: Scenario;
let front: Server;
let proxy: Server;
let certDir: string;
const tunnels: string[] = [];
const sockets = new Set<Socket>();

before(async () => {
  s = await startScenario();
  certDir = await mkdtemp(join(tmpdir(), 'timeslice-nr-cert-'));
  const tls = await ensureCollectorCertificate(certDir, ['api.newrelic.com']);
  const apiPort = Number(new URL(s.ts.server.apiUrl).port);

  front = createHttpsServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const upstream = httpRequest({
      host: '127.0.0.1', port: apiPort, method: req.method, path: req.url,
      headers: { ...req.headers, 'x-forwarded-proto': 'https' },
    }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const frontPort = (front.address() as AddressInfo).port;

  proxy = createHttpServer((_req, res) => res.writeHead(403).end());
  proxy.on('connect', (req, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    tunnels.push(req.url ?? '');
    if (req.url !== 'api.newrelic.com:443') {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(frontPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
});

after(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => proxy?.close(resolve));
  await new Promise((resolve) => front?.close(resolve));
  await s?.ts.stop();
  if (certDir) await rm(certDir, { recursive: true, force: true });
});

/** What the client's callbacks give: status and body of each call. */
interface ClientResult {
  readonly status: number;
  readonly body: Record<string, any>;
}

/**
 * Runs the client in its own process (its configuration is read from the environment when it is
 * loaded) and returns the results of `calls`, each a JavaScript expression over `client` and `cb`.
 */
async function runClient(calls: Record<string, string>): Promise<Record<string, ClientResult>> {
  const script = `
    const client = require('newrelic-api-client');
    const calls = ${JSON.stringify(calls)};
    const results = {};
    const names = Object.keys(calls);
    const next = (i) => {
      if (i === names.length) { process.stdout.write(JSON.stringify(results)); return; }
      const cb = (error, response, body) => {
        if (error) { process.stderr.write(String(error.stack || error)); process.exit(2); }
        results[names[i]] = { status: response.statusCode, body };
        next(i + 1);
      };
      new Function('client', 'cb', calls[names[i]])(client, cb);
    };
    next(0);`;
  const run = promisify(execFile);
  const root = repoRoot();
  const { stdout } = await run(process.execPath, ['-e', script], {
    cwd: root,
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
    env: {
      PATH: process.env.PATH ?? '',
      HTTPS_PROXY: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      NODE_EXTRA_CA_CERTS: join(certDir, 'tls', 'cert.pem'),
      NODE_CONFIG_DIR: join(root, 'node_modules', 'newrelic-api-client', 'config'),
      NEWRELIC_REST_API_KEY: TEST_API_KEY,
      NEWRELIC_ACCOUNT_ID: '1',
      SUPPRESS_NO_CONFIG_WARNING: 'y',
    },
  });
  return JSON.parse(stdout) as Record<string, ClientResult>;
}

describe('newrelic-api-client 0.1.7, unmodified, against Timeslice', () => {
  it('lists and shows applications, reads metric names and data, lists hosts, instances, key transactions, mobile and browser apps, pages through deployments', async () => {
    // Two pages of deployments for checkout-web: 201, the oldest first.
    for (let i = 1; i <= 201; i++) {
      const reply = await rest(s.ts, 'POST', `/v2/applications/${s.checkout}/deployments.json`, { body: { deployment: { revision: `r${i}`, user: 'ci' } } });
      assert.equal(reply.status, 201);
    }
    const results = await runClient({
      list: "client.api.apps.list('newrelic', cb)",
      show: `client.api.apps.show(${s.checkout}, 'newrelic', cb)`,
      metricNames: `client.api.apps.metricNames(${s.billing}, 'newrelic', cb)`,
      deployments: `client.api.appDeployments.list(${s.checkout}, 'newrelic', cb)`,
      none: `client.api.appDeployments.list(${s.billing}, 'newrelic', cb)`,
      // Sends names as names[0]=…&names[1]=… (request's qs style).
      metricData: `client.api.apps.metricData(${s.billing}, ['HttpDispatcher', 'Apdex', 'Nope'], 'newrelic', cb)`,
      hosts: `client.api.appHosts.list(${s.billing}, 'newrelic', cb)`,
      instances: `client.api.appInstances.list(${s.billing}, 'newrelic', cb)`,
      keyTransactions: "client.api.keyTransactions.list('newrelic', cb)",
      mobile: "client.api.mobile.list('newrelic', cb)",
      browser: "client.api.browser.list('newrelic', cb)",
    });
    assert.ok(tunnels.length > 0 && tunnels.every((t) => t === 'api.newrelic.com:443'), `tunnels: ${tunnels.join(', ')}`);

    assert.equal(results.list!.status, 200);
    assert.deepEqual(results.list!.body.applications.map((a: { id: number; name: string }) => [a.id, a.name]), [[s.billing, 'billing-worker'], [s.checkout, 'checkout-web']]);
    assert.equal(results.show!.status, 200);
    assert.deepEqual([results.show!.body.application.id, results.show!.body.application.name, results.show!.body.application.language], [s.checkout, 'checkout-web', 'nodejs']);
    assert.equal(results.metricNames!.status, 200);
    assert.deepEqual(results.metricNames!.body.metrics.map((m: { name: string }) => m.name), ['Apdex', 'HttpDispatcher', 'OtherTransaction/all']);

    // The client follows rel="next" (over HTTPS, to api.newrelic.com) and concatenates the pages.
    const deployments = results.deployments!.body.deployments as { id: number; revision: string; user: string }[];
    assert.equal(results.deployments!.status, 200);
    assert.equal(deployments.length, 201);
    assert.deepEqual(deployments.map((d) => d.revision), Array.from({ length: 201 }, (_, i) => `r${201 - i}`));
    assert.deepEqual(new Set(deployments.map((d) => d.user)), new Set(['ci']));
    assert.deepEqual(results.none!.body.deployments, []);

    assert.equal(results.metricData!.status, 200);
    assert.deepEqual([results.metricData!.body.metric_data.metrics_found, results.metricData!.body.metric_data.metrics_not_found], [['HttpDispatcher', 'Apdex'], ['Nope']]);
    assert.equal(results.hosts!.status, 200);
    assert.ok(results.hosts!.body.application_hosts.length > 0);
    assert.equal(results.instances!.status, 200);
    assert.ok(results.instances!.body.application_instances.length > 0);
    for (const [name, key] of [['keyTransactions', 'key_transactions'], ['mobile', 'applications'], ['browser', 'browser_applications']] as const) {
      assert.equal(results[name]!.status, 200, name);
      assert.ok(Array.isArray(results[name]!.body[key]), `${name}: ${JSON.stringify(results[name]!.body).slice(0, 200)}`);
    }

    // Each call (and the second page) reached the service as REST calls, recorded as such.
    await s.ts.server.apiUsage.flush();
    const recorded = await s.ts.server.db.all<{ path: string; n: bigint }>(
      `SELECT json_extract_string(attributes, '$.path') AS path, count(*) AS n FROM custom_events
       WHERE event_type = 'TimesliceApiCall' AND json_extract_string(attributes, '$.method') = 'GET' GROUP BY path ORDER BY path`,
    );
    assert.deepEqual(recorded.map((r) => [r.path, Number(r.n)]), [
      ['/v2/applications.json', 1],
      [`/v2/applications/${s.checkout}.json`, 1],
      [`/v2/applications/${s.checkout}/deployments.json`, 2],
      [`/v2/applications/${s.billing}/deployments.json`, 1],
      [`/v2/applications/${s.billing}/metrics.json`, 1],
      [`/v2/applications/${s.billing}/metrics/data.json`, 1],
      [`/v2/applications/${s.billing}/hosts.json`, 1],
      [`/v2/applications/${s.billing}/instances.json`, 1],
      ['/v2/key_transactions.json', 1],
      ['/v2/mobile_applications.json', 1],
      ['/v2/browser_applications.json', 1],
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))));
  });
});
