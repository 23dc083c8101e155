/**
 * Browser beacons per second: pages' beacons (a RUM call, a bel.6 timing harvest, a bel.7
 * interaction harvest with two AJAX calls, an ins harvest with three events: the lab's captured
 * beacons) POSTed over HTTP to the API port by `--concurrency` clients for `--seconds`, against the
 * same rows (10 events and 7 timeslices a page) written straight to the store's batch writer with
 * the same concurrency, no HTTP, no parsing. Pages are of an APM application with browser
 * monitoring on, so every RUM call also files its EndUser timeslices.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveServeConfig } from '../src/config.js';
import { eventRows, insRows, rumCallRows, type BeaconRequest, type BeaconTarget } from '../src/ingest/browser/beacon-rows.js';
import { startServer } from '../src/server.js';
import { TIMESLICES, Rows } from '../src/store/append-tables.js';
import { SAMPLES_DIR } from '../test/helpers/samples.js';

interface Sample { path: string; query: Record<string, string>; body?: string }

export interface BrowserBenchResult {
  readonly seconds: number;
  readonly concurrency: number;
  readonly http: { readonly beacons: number; readonly beaconsPerSecond: number; readonly pagesPerSecond: number; readonly failed: number };
  readonly raw: { readonly pages: number; readonly pagesPerSecond: number; readonly beaconEquivalentPerSecond: number };
  readonly ratio: number;
}

export async function browserBeaconsBench(values: ReadonlyMap<string, string>): Promise<BrowserBenchResult> {
  const seconds = Number(values.get('seconds') ?? 10);
  const concurrency = Number(values.get('concurrency') ?? 16);
  const lab = JSON.parse(await readFile(join(SAMPLES_DIR, 'browser-beacons-1.322.0.json'), 'utf8')) as { user_agent: string; samples: Record<string, Sample> };
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-browser-bench-'));
  const config = resolveServeConfig(
    { host: '127.0.0.1', port: '0', 'collector-port': '0', data: dataDir },
    { TIMESLICE_LICENSE_KEY: '0123456789abcdef0123456789abcdef01234567', TIMESLICE_API_KEY: 'NRAK-BENCH0000000000000000000000', TIMESLICE_LOG_LEVEL: 'error' },
  );
  const server = await startServer(config);
  try {
    const { primary } = await server.catalog.connect(1, {
      appNames: ['bench-store'], language: 'nodejs', agentVersion: '13.20.0', host: 'bench', displayHost: null, pid: 1, port: null, userAgent: null,
    });
    const side = await server.entities.browserApplications.create({ accountId: 1, name: 'bench-store', apmApplicationId: primary.id });
    const key = side.browserMonitoringKey;
    const page = ['spa_rum_first_page', 'spa_events_bel6_timings_first', 'spa_events_bel7_initial_page_load', 'spa_ins_pageaction_custom_perf'].map((name) => {
      const s = lab.samples[name]!;
      const query = { ...s.query, a: String(primary.id) };
      delete (query as Record<string, string>).sa;
      return { url: `${server.apiUrl}${s.path.replace('NRJS-testkey0000000', key)}?${new URLSearchParams(query)}`, body: s.body ?? '', query };
    });

    // Over HTTP, as pages send them.
    let beacons = 0;
    let failed = 0;
    const httpEnd = Date.now() + seconds * 1000;
    const httpStart = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (Date.now() < httpEnd) {
        for (const b of page) {
          const res = await fetch(b.url, { method: 'POST', body: b.body, headers: { 'content-type': 'text/plain', 'user-agent': lab.user_agent, origin: 'http://localhost:38507' } });
          await res.arrayBuffer();
          if (res.status === 200) beacons++;
          else failed++;
        }
      }
    }));
    const httpSeconds = (performance.now() - httpStart) / 1000;

    // The same rows, straight to the writer.
    const target: BeaconTarget = { accountId: 1, appId: primary.id, appIdAttribute: primary.id, appName: side.name, entityGuid: 'bench', apdexT: 7 };
    const request = (q: Record<string, string>): BeaconRequest => ({ query: q, receivedAt: Date.now(), userAgent: lab.user_agent });
    const rum = rumCallRows(target, request(page[0]!.query), JSON.parse(page[0]!.body));
    const events = [rum.rows, eventRows(target, request(page[1]!.query), page[1]!.body), eventRows(target, request(page[2]!.query), page[2]!.body), insRows(target, request(page[3]!.query), JSON.parse(page[3]!.body)).rows];
    const ids = new Map(rum.timeslices.map((t) => [t.name, server.metrics.metricId(t.name)!]));
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    let pages = 0;
    const rawEnd = Date.now() + seconds * 1000;
    const rawStart = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (Date.now() < rawEnd) {
        const slices = new Rows(TIMESLICES);
        for (const t of rum.timeslices) slices.push(1, primary.id, 0, 0, ids.get(t.name)!, 0, minute, ...t.stats);
        // Four writes a page, as four beacons are four requests.
        await server.writer.write([events[0]!, slices]);
        await server.writer.write([events[1]!]);
        await server.writer.write([events[2]!]);
        await server.writer.write([events[3]!]);
        pages++;
      }
    }));
    const rawSeconds = (performance.now() - rawStart) / 1000;
    const httpPages = beacons / page.length / httpSeconds;
    const result: BrowserBenchResult = {
      seconds, concurrency,
      http: { beacons, beaconsPerSecond: beacons / httpSeconds, pagesPerSecond: httpPages, failed },
      raw: { pages, pagesPerSecond: pages / rawSeconds, beaconEquivalentPerSecond: (pages * page.length) / rawSeconds },
      ratio: httpPages / (pages / rawSeconds),
    };
    console.log(`browser beacons: ${result.http.beaconsPerSecond.toFixed(0)} beacons/s over HTTP (${httpPages.toFixed(0)} pages/s, ${failed} failed); ` +
      `raw writer ${result.raw.pagesPerSecond.toFixed(0)} pages/s (${result.raw.beaconEquivalentPerSecond.toFixed(0)} beacon-equivalents/s); ratio ${result.ratio.toFixed(2)}`);
    return result;
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
