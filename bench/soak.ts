/**
 * Soak: the service ingesting at a steady rate under an accelerated clock for longer than its
 * retention, with compaction, rollups and retention running as they do in production. Shows
 * whether the data file's size levels off and what ingest latency does while upkeep runs.
 *
 * `--agents` agents (default 4) each send one `metric_data` harvest of `--metrics` unscoped
 * metrics (default 200) per simulated minute through the collector (`inject`, the real decode,
 * metric index and batch writer). The clock moves one minute per round; every 10 simulated
 * minutes compaction and upkeep start (not awaited: ingest goes on meanwhile, as with the timers).
 * Retention is shortened so the run passes it several times: 1-minute data `--minute-hours`
 * (default 12), rollups `--hourly-hours` (default 24), over `--hours` simulated hours (default 72).
 * Deletion steps are the default, at most 200 000 rows.
 *
 * Reported: the data file's size every 6 simulated hours (after a CHECKPOINT), and the harvest
 * latency (inject of the call, answered after COMMIT) while no upkeep runs and while it runs.
 *
 * Run: `npx tsc -p tsconfig.json && node dist/bench/soak.js [--hours=72] [--agents=4] [--metrics=200]`.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveServeConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { connectApp, sendMetrics } from '../test/helpers/rest-fixture.js';
import { TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../test/helpers/test-server.js';
import { machineFacts } from './machine.js';

const MINUTE = 60_000;
const START = Date.UTC(2026, 10, 1, 0, 0, 0);

function flag(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.split('=')[1]) : fallback;
}

const quantile = (xs: number[], q: number) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!);

async function main(): Promise<void> {
  const hours = flag('hours', 72);
  const agents = flag('agents', 4);
  const metrics = flag('metrics', 200);
  const minuteHours = flag('minute-hours', 12);
  const hourlyHours = flag('hourly-hours', 24);
  const dir = await mkdtemp(join(tmpdir(), 'timeslice-bench-soak-'));
  const clock = { ms: START, now() { return this.ms; } };
  const config = resolveServeConfig({ host: '127.0.0.1', port: '0', 'collector-port': '0', data: dir }, {
    TIMESLICE_API_KEY: TEST_API_KEY, TIMESLICE_LICENSE_KEY: TEST_LICENSE_KEY, TIMESLICE_MEMORY_LIMIT: '512MB', TIMESLICE_LOG_LEVEL: 'error',
    TIMESLICE_UPKEEP_EVERY_MS: '0', TIMESLICE_COMPACT_EVERY_MS: '0', TIMESLICE_INGEST_WORKERS: '0',
    TIMESLICE_RETENTION: `minute=${minuteHours}h,hourly=${hourlyHours}h,key=${hourlyHours}h`,
  });
  const server = await startServer(config, { clock });
  const file = join(dir, 'timeslice.duckdb');
  try {
    const ts = { server } as unknown as TestServer;
    const runs = [];
    for (let a = 0; a < agents; a++) runs.push((await connectApp(ts, `soak-${a}`, `soak-host-${a}`, 6000 + a)).runId);
    const names = Array.from({ length: metrics }, (_, i) => (i === 0 ? 'HttpDispatcher' : `Custom/soak/${i}`));
    const latency = { idle: [] as number[], upkeep: [] as number[] };
    const sizes: { hour: number; mib: number; minuteRows: number; hourlyRows: number }[] = [];
    let upkeep: Promise<unknown> | undefined;
    let upkeepRuns = 0;
    let upkeepMs = 0;
    const started = performance.now();
    for (let minute = 0; minute < hours * 60; minute++) {
      clock.ms = START + minute * MINUTE + 30_000;
      if (minute % 10 === 0 && !upkeep) {
        const t0 = performance.now();
        upkeep = (async () => {
          await server.compactor.compactOnce();
          await server.store.maintain();
        })().finally(() => { upkeep = undefined; upkeepRuns++; upkeepMs += performance.now() - t0; });
      }
      const begin = START + minute * MINUTE;
      for (const [a, runId] of runs.entries()) {
        const during = upkeep !== undefined;
        const t0 = performance.now();
        await sendMetrics(ts, runId, begin, begin + MINUTE, names.map((n, i) => [n, '', [1 + ((minute + i + a) % 9), 0.1, 0.05, 0.01, 0.3, 0.02]] as const));
        (during ? latency.upkeep : latency.idle).push(performance.now() - t0);
      }
      if ((minute + 1) % (6 * 60) === 0) {
        await upkeep;
        await server.db.all('CHECKPOINT');
        const counts = (await server.db.all<{ m: bigint; h: bigint }>(
          `SELECT (SELECT count(*) FROM timeslices) + (SELECT count(*) FROM timeslices_compacted) + (SELECT count(*) FROM timeslices_daily) AS m,
                  (SELECT count(*) FROM timeslices_hourly) AS h`,
        ))[0]!;
        sizes.push({ hour: (minute + 1) / 60, mib: Math.round((await stat(file)).size / 2 ** 20 * 10) / 10, minuteRows: Number(counts.m), hourlyRows: Number(counts.h) });
        console.error(`simulated hour ${(minute + 1) / 60}: ${sizes.at(-1)!.mib} MiB`);
      }
    }
    await upkeep;
    const p = (xs: number[]) => ({ n: xs.length, p50: Math.round(quantile(xs, 0.5) * 10) / 10, p99: Math.round(quantile(xs, 0.99) * 10) / 10 });
    const idle = p(latency.idle);
    const during = p(latency.upkeep);
    console.log(JSON.stringify({
      machine: machineFacts(), hours, agents, metrics, retention: { minuteHours, hourlyHours },
      wallSeconds: Math.round((performance.now() - started) / 1000), upkeepRuns, upkeepMeanMs: Math.round(upkeepMs / Math.max(1, upkeepRuns)),
      latencyMs: { withoutUpkeep: idle, duringUpkeep: during, p99Ratio: Math.round((during.p99 / idle.p99) * 100) / 100 },
      sizes,
    }, null, 2));
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
