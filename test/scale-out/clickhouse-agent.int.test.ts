import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { waitForExit, withAgentApp } from '../helpers/agent-app.js';
import { clickhouseMissing, startClickHouse } from '../helpers/clickhouse.js';

/*
 * The real `newrelic` agent reporting to `timeslice serve --store clickhouse://…`: a known mix of
 * requests, then NRQL (and REST's application list) read back from the running service (data in ClickHouse) give the
 * numbers the request plan says, not numbers from the server's code.
 */
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const LICENSE_KEY = '0123456789abcdef0123456789abcdef01234567';
const API_KEY = 'NRAK-E2ETESTKEY0000000000000000';
const APP = 'ch-agent-app';
const MIX = { fast: 5, tolerating: 2, frustrating: 1, error: 2 } as const;
type Kind = keyof typeof MIX;
const DURATION_S: Record<Kind, number> = { fast: 0.005, tolerating: 0.7, frustrating: 2.1, error: 0.005 };

test('the real Node agent reports into ClickHouse: NRQL gives the requests sent', { skip: clickhouseMissing(), timeout: 180_000 }, async (t) => {
  const clickhouse = await startClickHouse();
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-ch-agent-'));
  let child: ChildProcess | undefined;
  t.after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    await clickhouse.stop();
  });
  child = spawn(process.execPath, ['bin/timeslice.js', 'serve', '--port', '0', '--collector-port', '0', '--data', dataDir], {
    cwd: repoRoot,
    env: {
      ...process.env, TIMESLICE_LICENSE_KEY: LICENSE_KEY, TIMESLICE_API_KEY: API_KEY, TIMESLICE_EVENT_HARVEST_MS: '5000',
      TIMESLICE_STORE: `clickhouse://127.0.0.1:${clickhouse.httpPort}/agent`,
    },
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

  const sent = await withAgentApp({ appName: APP, licenseKey: LICENSE_KEY, collectorPort, certPath, logDir: dataDir }, async ({ port }) => {
    const paths = (Object.keys(MIX) as Kind[]).flatMap((kind) => Array.from({ length: MIX[kind] }, (_, i) => `/${kind}/${i + 1}`));
    await Promise.all(paths.map(async (path) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      await res.text();
    }));
    return paths;
  });

  const nrql = async (query: string) => {
    const res = await fetch(`${apiUrl}/timeslice/v1/nrql`, { method: 'POST', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    const body = await res.json() as { results: Record<string, unknown>[] };
    assert.equal(res.status, 200, JSON.stringify(body));
    return body.results;
  };
  const requests = sent.length;
  assert.deepEqual(await nrql(`SELECT count(newrelic.timeslice.value) AS n FROM Metric WHERE appName = '${APP}' AND metricTimesliceName = 'HttpDispatcher' SINCE 1 hour ago`), [{ n: requests }]);
  assert.deepEqual(await nrql(`SELECT count(newrelic.timeslice.value) AS n FROM Metric WHERE appName = '${APP}' AND metricTimesliceName = 'Errors/all' SINCE 1 hour ago`), [{ n: MIX.error }]);
  const [uris] = await nrql(`SELECT uniques(request.uri) AS uris, count(*) AS n FROM Transaction WHERE appName = '${APP}' SINCE 1 hour ago`);
  assert.deepEqual([...(uris!.uris as string[])].sort(), [...sent].sort());
  assert.equal(uris!.n, requests);
  assert.deepEqual(await nrql(`SELECT count(*) AS n FROM Transaction WHERE appName = '${APP}' AND http.statusCode = 500 SINCE 1 hour ago`), [{ n: MIX.error }]);
  const [slow] = await nrql(`SELECT min(duration) AS d FROM Transaction WHERE appName = '${APP}' AND name = 'WebTransaction/Custom/frustrating' SINCE 1 hour ago`);
  assert.ok(Number(slow!.d) >= DURATION_S.frustrating - 0.002, `frustrating took ${slow!.d} s`);

  // Apdex zones by the apdex_t the application was handed (0.5 s): fast → s, 700 ms → t, 2.1 s and
  // errors → f; the Apdex timeslice keeps s as its count and t as its total. (REST's windows end at the
  // last whole minute, which the harvest just written is not yet: REST is compared in clickhouse-cluster.)
  const apps = await (await fetch(`${apiUrl}/v2/applications.json`, { headers: { 'x-api-key': API_KEY } })).json() as { applications: { name: string; settings: { app_apdex_threshold: number } }[] };
  assert.equal(apps.applications.find((a) => a.name === APP)!.settings.app_apdex_threshold, 0.5);
  assert.deepEqual(
    await nrql(`SELECT count(newrelic.timeslice.value) AS s, sum(newrelic.timeslice.value) AS t, apdex(newrelic.timeslice.value) AS score FROM Metric WHERE appName = '${APP}' AND metricTimesliceName = 'Apdex' SINCE 1 hour ago`),
    [{
      s: MIX.fast, t: MIX.tolerating,
      score: { s: MIX.fast, t: MIX.tolerating, f: MIX.frustrating + MIX.error, count: sent.length, score: (MIX.fast + MIX.tolerating / 2) / sent.length },
    }],
  );

  child.kill('SIGTERM');
  assert.equal(await waitForExit(child, 30_000), 0, out);
});
