/**
 * `npm run bench -- rest-limits`: what REST metric data costs at and past its limits (docs/limits.md).
 *
 * On the real service (`startServer`, a fresh data directory, default limits), one agent posts two
 * `metric_data` harvests of 10 000 new names each (the reproduction), then REST asks, over
 * real HTTP with a form-encoded GET body, for: all 20 000 names; 1000 names over the default 30
 * minutes; the largest series inside the values limit (16 metrics × 3000 slices × 10 values); and
 * the windows that once built millions of slices or failed with 500. Each answer's status is
 * checked (the run fails otherwise); the figures are wall time, body size and the growth of the
 * process's resident memory while the request ran (server and client share the process).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveServeConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';
import { machineFacts, type MachineFacts } from './machine.js';

const LICENSE_KEY = 'bench0rest0limits000000000000000000000000';
const API_KEY = 'NRAK-BENCHRESTLIMITS00000000000';
const PERIOD_3D_MS = 259_200_000;

export interface LimitCase {
  readonly label: string;
  readonly format: 'json' | 'xml';
  readonly status: number;
  readonly ms: number;
  readonly bytes: number;
  readonly rssGrowthMiB: number;
  readonly title: string | undefined;
}

export interface RestLimitsResult {
  readonly date: string;
  readonly machine: MachineFacts;
  readonly namesStored: number;
  readonly ingestMs: number;
  readonly cases: readonly LimitCase[];
}

export async function runRestLimits(): Promise<RestLimitsResult> {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-bench-limits-'));
  const config = resolveServeConfig({ host: '127.0.0.1', port: '0', 'collector-port': '0', data: dataDir }, {
    TIMESLICE_LICENSE_KEY: LICENSE_KEY, TIMESLICE_API_KEY: API_KEY, TIMESLICE_LOG_LEVEL: 'error',
  });
  const server = await startServer(config);
  try {
    const agent = new https.Agent({ keepAlive: true, ca: await readFile(server.certPath, 'utf8') });
    const connect = await invoke(agent, server, 'connect', undefined,
      [{ pid: 1, host: 'bench-1', app_name: ['limits'], language: 'nodejs', agent_version: '12.0.0', identifier: 'limits' }]) as { return_value: { agent_run_id: string; application_id: string } };
    const runId = connect.return_value.agent_run_id;
    const appId = connect.return_value.application_id;
    const endMs = Math.floor(Date.now() / 60_000) * 60_000;
    const names = Array.from({ length: 20_000 }, (_, i) => `Custom/Limits/${i}`);
    const started = performance.now();
    for (const part of [names.slice(0, 10_000), names.slice(10_000)]) {
      await invoke(agent, server, 'metric_data', runId,
        [runId, (endMs - 120_000) / 1000, (endMs - 60_000) / 1000, part.map((name) => [{ name }, [1, 0.5, 0.5, 0.5, 0.5, 0.25]])]);
    }
    const ingestMs = performance.now() - started;
    agent.destroy();
    const [stored] = await server.db.all<{ n: bigint }>('SELECT count(DISTINCT metric_id) AS n FROM timeslices');

    const path = (format: string) => `/v2/applications/${appId}/metrics/data.${format}`;
    const series = `&from=${new Date(endMs - 3000 * PERIOD_3D_MS).toISOString()}&to=${new Date(endMs).toISOString()}`;
    const plan: [string, 'json' | 'xml', readonly string[], string, number][] = [
      ['20 000 names', 'json', names, '', 422],
      ['20 000 names', 'xml', names, '', 422],
      ['1000 names, 30 minutes', 'json', names.slice(0, 1000), '', 200],
      ['1000 names, 30 minutes', 'xml', names.slice(0, 1000), '', 200],
      ['16 metrics × 3000 slices × 10 values', 'json', names.slice(0, 16), series, 200],
      ['16 metrics × 3000 slices × 10 values', 'xml', names.slice(0, 16), series, 200],
      ['17 metrics × 3000 slices × 10 values', 'json', names.slice(0, 17), series, 422],
      ['from=-271821-04-20T00:00:00Z', 'json', names.slice(0, 1), '&from=-271821-04-20T00:00:00Z', 422],
      ['to=-271821-04-20T00:00:00Z', 'json', names.slice(0, 1), '&to=-271821-04-20T00:00:00Z', 422],
      ['from=0000-01-01 (246 439 slices of 3 days)', 'json', names.slice(0, 1), '&from=0000-01-01T00:00:00Z', 422],
      ['period=9007199254740991, 30 days', 'json', names.slice(0, 1), `&from=${new Date(endMs - 30 * 86_400_000).toISOString()}&period=9007199254740991`, 422],
    ];
    const cases: LimitCase[] = [];
    for (const [label, format, list, extra, expected] of plan) {
      const body = list.map((n) => `names[]=${encodeURIComponent(n)}`).join('&') + extra;
      const rss = process.memoryUsage().rss;
      const t = performance.now();
      const reply = await formGet(server, path(format), body);
      const ms = performance.now() - t;
      if (reply.status !== expected) throw new Error(`${label} (${format}): expected ${expected}, got ${reply.status}: ${reply.text.slice(0, 300)}`);
      const title = reply.status === 200 ? undefined : /<title>([^<]*)<\/title>|"title":"([^"]*)"/.exec(reply.text)?.slice(1).find(Boolean);
      cases.push({ label, format, status: reply.status, ms, bytes: reply.bytes, rssGrowthMiB: (process.memoryUsage().rss - rss) / 2 ** 20, title });
    }
    return { date: new Date().toISOString().slice(0, 10), machine: machineFacts(), namesStored: Number(stored!.n), ingestMs, cases };
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export function formatRestLimitsResult(r: RestLimitsResult): string {
  const m = r.machine;
  const lines = [
    `REST metric data at its limits (${r.date}): ${m.cpus} CPUs (${m.cpuModel}), Node ${m.node}, load average ${m.loadAverage.join(' ')}`,
    `  two metric_data posts of 10 000 new names: ${r.namesStored} names stored (the per-application limit), ${(r.ingestMs / 1000).toFixed(1)} s`,
    '',
    '  request                                   format  status      ms       MB   RSS +MiB',
  ];
  for (const c of r.cases) {
    lines.push(`  ${c.label.padEnd(42)}${c.format.padEnd(8)}${String(c.status).padStart(6)}${c.ms.toFixed(0).padStart(8)}${(c.bytes / 1e6).toFixed(2).padStart(9)}${c.rssGrowthMiB.toFixed(0).padStart(11)}`);
  }
  return lines.join('\n');
}

function invoke(agent: https.Agent, server: RunningServer, method: string, runId: string | undefined, body: unknown): Promise<unknown> {
  const search = new URLSearchParams({ marshal_format: 'json', protocol_version: '17', license_key: LICENSE_KEY, method, ...(runId ? { run_id: runId } : {}) });
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  return new Promise((resolve, reject) => {
    const req = https.request({
      host: '127.0.0.1', servername: 'localhost', port: server.collectorPort, method: 'POST', agent,
      path: `/agent_listener/invoke_raw_method?${search.toString()}`,
      headers: { 'content-type': 'application/json', 'content-length': String(bytes.length) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) reject(new Error(`${method} answered ${res.statusCode}: ${text.slice(0, 300)}`));
        else resolve(JSON.parse(text));
      });
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

/** A GET with a form body, as New Relic's `curl -X GET … -d 'names[]=…'` examples send it. */
function formGet(server: RunningServer, path: string, body: string): Promise<{ status: number; bytes: number; text: string }> {
  const url = new URL(path, server.apiUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: url.hostname, port: url.port, path: url.pathname, method: 'GET',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const all = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, bytes: all.length, text: all.subarray(0, 2000).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
