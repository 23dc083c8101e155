/**
 * The real `newrelic` agent reports to node 1 (`timeslice serve`, data on ClickHouse, catalog on
 * PostgreSQL); node 2 (another process's store on the same two servers) answers NRQL and the graph
 * API with node 1's numbers, value for value. Then node 1 is killed with SIGKILL: node 2 takes the
 * background lease and still answers the same.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { withAgentApp } from '../helpers/agent-app.js';
import { clickhouseMissing, startClickHouse } from '../helpers/clickhouse.js';
import { startPostgres } from '../helpers/postgres.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const APP = 'two-node-app';

test('the real agent on node 1; NRQL and the graph API on node 2 give the same answers, also after node 1 is killed', { skip: clickhouseMissing(), timeout: 180_000 }, async (t) => {
  const [pg, clickhouse] = await Promise.all([startPostgres(), startClickHouse()]);
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-two-nodes-'));
  let child: ChildProcess | undefined;
  let two: TestServer | undefined;
  t.after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await two?.stop();
    await rm(dataDir, { recursive: true, force: true });
    await clickhouse.stop();
    await pg.stop();
  });
  const env = { TIMESLICE_STORE: `clickhouse://127.0.0.1:${clickhouse.httpPort}/nodes`, TIMESLICE_CATALOG: await pg.createDatabase('nodes') };
  child = spawn(process.execPath, ['bin/timeslice.js', 'serve', '--port', '0', '--collector-port', '0', '--data', dataDir], {
    cwd: repoRoot,
    env: { ...process.env, ...env, TIMESLICE_LICENSE_KEY: TEST_LICENSE_KEY, TIMESLICE_API_KEY: TEST_API_KEY, TIMESLICE_EVENT_HARVEST_MS: '5000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  while (!/NODE_EXTRA_CA_CERTS=\S+/.test(out)) {
    assert.equal(child.exitCode, null, out);
    await new Promise((r) => setTimeout(r, 100));
  }
  const apiUrl = /API:\s+(http:\/\/\S+)/.exec(out)![1]!;
  const collectorPort = Number(/NEW_RELIC_PORT=(\d+)/.exec(out)![1]);
  const certPath = /NODE_EXTRA_CA_CERTS=(\S+)/.exec(out)![1]!;
  two = await startTestServer(env, { alertIntervalMs: 0 });

  const paths = ['/fast/1', '/fast/2', '/fast/3', '/error/1'];
  await withAgentApp({ appName: APP, licenseKey: TEST_LICENSE_KEY, collectorPort, certPath, logDir: dataDir }, async ({ port }) => {
    for (const path of paths) await (await fetch(`http://127.0.0.1:${port}${path}`)).text();
  });

  const post = async (base: string, path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'x-api-key': TEST_API_KEY, 'api-key': TEST_API_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = await res.json() as Record<string, unknown>;
    assert.equal(res.status, 200, JSON.stringify(json));
    return json;
  };
  const queries = [
    `SELECT count(newrelic.timeslice.value) AS n FROM Metric WHERE appName = '${APP}' AND metricTimesliceName = 'HttpDispatcher' SINCE 1 hour ago`,
    `SELECT count(*) AS n, uniques(request.uri) AS uris FROM Transaction WHERE appName = '${APP}' SINCE 1 hour ago`,
    `SELECT count(*) AS n FROM Transaction WHERE appName = '${APP}' FACET http.statusCode SINCE 1 hour ago`,
  ];
  const graph = '{ actor { entitySearch(query: "domain = \'APM\'") { results { entities { name guid } } } } }';
  const answers = async (base: string) => ({
    nrql: await Promise.all(queries.map(async (query) => (await post(base, '/timeslice/v1/nrql', { query })).results)),
    graph: await post(base, '/graphql', { query: graph }),
  });
  const one = await answers(apiUrl);
  assert.deepEqual((one.nrql[0] as unknown[])[0], { n: paths.length }, 'every request reached node 1');
  assert.deepEqual(await answers(two.server.apiUrl), one, 'node 2 answers as node 1');

  child.kill('SIGKILL');
  await once(child, 'exit');
  const started = performance.now();
  while (!two.server.store.lease.held()) {
    assert.ok(performance.now() - started < 10_000, 'node 2 did not take the lease');
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(await answers(two.server.apiUrl), one, 'node 1 gone, node 2 answers the same');
});
