/**
 * The web UI's Summary page in Chromium on the REST benchmark store (fixtures/timeslice-store.ts:
 * 40 applications × 4 hosts × 8 days, ≈ 280 M timeslices): from navigation to every chart drawn
 * and every table filled, for application 7 over 30 minutes, 24 hours and 7 days ending at the
 * store's "now", and the JavaScript a page loads (bytes on the wire, gzipped).
 *
 * Each run opens a fresh browser context (no cached assets, no cached answers). The time is the
 * page's own performance.now() (milliseconds since navigation started) at the first animation
 * frame where all six panels are ready, none shows an error, and the four plots hold their data.
 * The service runs in this process on the store, its clock at the store's "now"; the rounds of the
 * three windows are interleaved. Options: `--rounds=N` (default 7, after one warm-up round).
 */
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { resolveServeConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { DEFAULT_STORE_SHAPE, ensureTimesliceStore } from './fixtures/timeslice-store.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const API_KEY = 'NRAK-BENCHWEBUI0000000000000000';
const APP_ID = 7;
const MINUTE = 60_000;
const CASES = [
  { label: '30m', minutes: 30, targetMs: 1500 },
  { label: '24h', minutes: 1440, targetMs: 3000 },
  { label: '7d', minutes: 10080, targetMs: 3000 },
] as const;
const JS_TARGET_GZIP = 250 * 1024;

export interface WebUiBenchResult {
  readonly cases: { label: string; targetMs: number; runsMs: number[]; medianMs: number; maxMs: number }[];
  readonly jsBytesGzip: number;
  readonly jsBytes: number;
  readonly nrqlQueries: number;
}

const log = (m: string) => process.stderr.write(`[web-ui] ${m}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function webUiBench(values: Map<string, string>): Promise<WebUiBenchResult> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing`);
  const rounds = Number(values.get('rounds') ?? 7);
  const store = await ensureTimesliceStore(DEFAULT_STORE_SHAPE, { log });
  const started = Date.now();
  const clock = { now: () => store.nowMs + (Date.now() - started) };
  const server = await startServer(
    resolveServeConfig({ host: '127.0.0.1', port: '0', 'collector-port': '0', data: store.dataDir }, {
      ...process.env, TIMESLICE_API_KEY: API_KEY, TIMESLICE_LOG_LEVEL: process.env.TIMESLICE_LOG_LEVEL ?? 'warn',
    }),
    { clock },
  );
  const moved = await server.compactor.compactOnce();
  log(`service up; compaction moved ${moved} timeslices`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const to = Math.floor(store.nowMs / MINUTE) * MINUTE;
  const runs = new Map<string, number[]>(CASES.map((c) => [c.label, []]));
  let jsBytesGzip = 0;
  let jsBytes = 0;
  let nrqlQueries = 0;
  try {
    for (let round = 0; round <= rounds; round++) {
      for (const c of CASES) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        const page = await context.newPage();
        const scripts: Promise<{ wire: number; body: number }>[] = [];
        let queries = 0;
        page.on('requestfinished', (r) => {
          if (r.url().endsWith('/timeslice/v1/nrql')) queries++;
          if (r.resourceType() === 'script') scripts.push(Promise.all([r.sizes(), r.response().then((res) => res!.body())]).then(([s, b]) => ({ wire: s.responseBodySize, body: b.length })));
        });
        await page.goto(`${server.apiUrl}/ui/apm/${APP_ID}?from=${to - c.minutes * MINUTE}&to=${to}#key=${API_KEY}`);
        const drawnAt = await page.waitForFunction(() => {
          const d = (globalThis as any).document;
          const panels = [...d.querySelectorAll('section.panel[data-state]')];
          const plots = [...d.querySelectorAll('[data-testid^="plot-"]')];
          const ready = panels.length === 6 && panels.every((p: any) => p.getAttribute('data-state') === 'ready')
            && plots.length === 4 && plots.every((p: any) => p.__uplot?.data?.[0]?.length > 0);
          return ready ? (globalThis as any).performance.now() : false;
        }, undefined, { polling: 'raf', timeout: 60_000 }).then((h) => h.jsonValue() as Promise<number>);
        const errors = await page.$$eval('[data-testid="error"]', (els) => els.map((e) => e.textContent));
        if (errors.length > 0) throw new Error(`${c.label}: ${errors.join('; ')}`);
        const sizes = await Promise.all(scripts);
        jsBytesGzip = sizes.reduce((n, s) => n + s.wire, 0);
        jsBytes = sizes.reduce((n, s) => n + s.body, 0);
        nrqlQueries = queries;
        if (round > 0) runs.get(c.label)!.push(drawnAt);
        log(`round ${round}${round === 0 ? ' (warm-up)' : ''} ${c.label}: ${drawnAt.toFixed(0)} ms`);
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return {
    cases: CASES.map((c) => {
      const xs = runs.get(c.label)!;
      return { label: c.label, targetMs: c.targetMs, runsMs: xs.map((x) => Math.round(x)), medianMs: Math.round(median(xs)), maxMs: Math.round(Math.max(...xs)) };
    }),
    jsBytesGzip,
    jsBytes,
    nrqlQueries,
  };
}

export function formatWebUiResult(r: WebUiBenchResult): string {
  const lines = ['Summary page of application 7, navigation → every chart drawn (Chromium, fresh context per run)', '',
    '| window | target | median | max | runs (ms) |', '|---|---|---|---|---|'];
  for (const c of r.cases) lines.push(`| ${c.label} | ${c.targetMs} ms | ${c.medianMs} ms | ${c.maxMs} ms | ${c.runsMs.join(', ')} |`);
  lines.push('', `JavaScript loaded: ${(r.jsBytes / 1024).toFixed(1)} KiB, ${(r.jsBytesGzip / 1024).toFixed(1)} KiB on the wire (gzip; target < ${JS_TARGET_GZIP / 1024} KiB)`,
    `NRQL queries per page: ${r.nrqlQueries}`);
  return lines.join('\n');
}
