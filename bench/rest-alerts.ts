/**
 * `npm run bench -- rest-alerts [--incidents=N]`: what the REST v2 alert history lists cost over a
 * history of N incidents and N issues (docs/limits.md, REST v2 alerts).
 *
 * On the real service (`startServer`, a fresh data directory, a clock the bench moves), one condition
 * per 5000 signals (`FACET shard`, PER_CONDITION_AND_TARGET) opens one incident and one issue per
 * shard; half of them are then closed (the service call behind REST's close). Each list is asked for through the API app (no
 * socket), its status checked, and the median of five answers is reported with its size.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../src/clock.js';
import { resolveServeConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { CUSTOM_EVENTS, Rows } from '../src/store/append-tables.js';
import { machineFacts, type MachineFacts } from './machine.js';

const API_KEY = 'NRAK-BENCHRESTALERTS00000000000';
const MIN = 60_000;
const SIGNALS_PER_CONDITION = 5000;

export interface RestAlertsCase {
  readonly label: string;
  readonly medianMs: number;
  readonly bytes: number;
  readonly items: number;
}

export interface RestAlertsResult {
  readonly date: string;
  readonly machine: MachineFacts;
  readonly incidents: number;
  readonly setupMs: number;
  readonly cases: readonly RestAlertsCase[];
}

class BenchClock implements Clock {
  constructor(public ms: number) {}
  now(): number {
    return this.ms;
  }
}

export async function runRestAlerts(flags: ReadonlyMap<string, string>): Promise<RestAlertsResult> {
  const incidents = Math.max(1, Math.round(Number(flags.get('incidents') ?? 2000)));
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-bench-rest-alerts-'));
  const config = resolveServeConfig({ host: '127.0.0.1', port: '0', 'collector-port': '0', data: dataDir }, {
    TIMESLICE_API_KEY: API_KEY, TIMESLICE_LICENSE_KEY: 'bench0rest0alerts00000000000000000000000', TIMESLICE_LOG_LEVEL: 'error',
  });
  const T0 = Math.floor(Date.now() / MIN) * MIN - 30 * MIN;
  const clock = new BenchClock(T0);
  const server = await startServer(config, { clock, alertIntervalMs: 0 });
  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => {
    const res = await server.api.inject({
      method, url, headers: { 'x-api-key': API_KEY, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
    return res;
  };
  try {
    const started = performance.now();
    const policy = JSON.parse((await call('POST', '/v2/alerts_policies.json', { policy: { name: 'bench', incident_preference: 'PER_CONDITION_AND_TARGET' } })).body).policy;
    const conditions = Math.ceil(incidents / SIGNALS_PER_CONDITION);
    for (let c = 0; c < conditions; c += 1) {
      await call('POST', `/v2/alerts_nrql_conditions/policies/${policy.id}.json`, {
        nrql_condition: {
          name: `shards ${c}`, enabled: true, nrql: { query: `SELECT count(*) FROM Shard WHERE part = ${c} FACET shard` },
          terms: [{ duration: '1', operator: 'above', threshold: '0', time_function: 'all', priority: 'critical' }],
          signal: { aggregation_window: '60', aggregation_method: 'CADENCE', aggregation_delay: 60 },
        },
      });
    }
    const rows = new Rows(CUSTOM_EVENTS);
    for (let i = 0; i < incidents; i += 1) rows.push(1, 0, 0, 0, T0 + MIN + 1000, 'Shard', JSON.stringify({ shard: `s${i}`, part: Math.floor(i / SIGNALS_PER_CONDITION) }));
    await server.writer.write([rows]);
    clock.ms = T0 + 2 * MIN + 30_000;
    await server.alerts.evaluateOnce();
    clock.ms = T0 + 3 * MIN + 30_000;
    await server.alerts.evaluateOnce();
    const open = await server.alerts.restIssues(1, { onlyOpen: true, offset: 0, limit: incidents });
    if (open.length !== incidents) throw new Error(`expected ${incidents} open issues, got ${open.length}`);
    for (const issue of open.slice(0, Math.floor(incidents / 2))) {
      clock.ms += 10;
      // The service's call behind PUT …/close (REST's rate limit would stop a thousand of them in a minute).
      await server.alerts.resolve(1, issue.value.id, 'bench');
    }
    const setupMs = performance.now() - started;

    const lastPage = Math.ceil(incidents / 25);
    const plan: Array<[string, string, string]> = [
      ['alerts_incidents page 1', '/v2/alerts_incidents.json', 'incidents'],
      [`alerts_incidents page ${lastPage}`, `/v2/alerts_incidents.json?page=${lastPage}`, 'incidents'],
      ['alerts_incidents only_open', '/v2/alerts_incidents.json?only_open=true', 'incidents'],
      ['alerts_violations page 1', '/v2/alerts_violations.json', 'violations'],
      ['alerts_violations page 1 (XML)', '/v2/alerts_violations.xml', ''],
      ['alerts_events page 1', '/v2/alerts_events.json', 'recent_events'],
      [`alerts_events page ${lastPage}`, `/v2/alerts_events.json?page=${lastPage}`, 'recent_events'],
      ['alerts_events filter[incident_id]', `/v2/alerts_events.json?filter[incident_id]=${open[0]!.number}`, 'recent_events'],
      ['alerts_events filter[event_type]=VIOLATION_OPEN', '/v2/alerts_events.json?filter[event_type]=VIOLATION_OPEN', 'recent_events'],
    ];
    const cases: RestAlertsCase[] = [];
    for (const [label, url, key] of plan) {
      const times: number[] = [];
      let body = '';
      for (let i = 0; i < 5; i += 1) {
        const t = performance.now();
        body = (await call('GET', url)).body;
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      cases.push({ label, medianMs: times[2]!, bytes: Buffer.byteLength(body), items: key === '' ? 25 : (JSON.parse(body)[key] as unknown[]).length });
    }
    return { date: new Date().toISOString().slice(0, 10), machine: machineFacts(), incidents, setupMs, cases };
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export function formatRestAlertsResult(result: RestAlertsResult): string {
  const lines = [
    `REST v2 alert lists over ${result.incidents} incidents and ${result.incidents} issues (half closed); setup ${Math.round(result.setupMs)} ms`,
    `${result.machine.cpus} CPUs, load ${result.machine.loadAverage.map((l) => l.toFixed(1)).join(' ')}, ${result.date}`,
    '| request | median ms | bytes | items |',
    '|---|---|---|---|',
    ...result.cases.map((c) => `| ${c.label} | ${c.medianMs.toFixed(1)} | ${c.bytes} | ${c.items} |`),
  ];
  return lines.join('\n');
}
