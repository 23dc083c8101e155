/**
 * Durability benchmark: random `kill -9` of a real `timeslice serve` under ingest, then count what
 * was stored against what was acknowledged.
 *
 * `--agents` agents (default 4) post `metric_data` back to back, each payload one metric of its
 * own (`Durability/a<agent>/p<n>`, count 1), so every payload is one stored row that can be
 * found by name. A payload is sent until it is acknowledged (200), as an agent keeps unsent data
 * for its next harvest: a connection refused or reset while the service is down is retried every
 * 50 ms, a 503 too, and a 409 (run unknown) reconnects first. Meanwhile the service is killed
 * with SIGKILL `--kills` times (default 8) at random moments (`--seed`, default 1: the same
 * seed gives the same schedule and payloads; how far ingest got at each kill depends on the
 * machine) and restarted on the same data directory and ports.
 *
 * Afterwards the service is stopped gracefully and the DuckDB file read directly:
 * - lost: acknowledged payloads with no row (must be 0; the run fails otherwise);
 * - duplicated: payloads with more than one row. A payload committed just before a kill whose
 *   acknowledgement never left the process is sent again and stored twice: protocol 17 has no
 *   request id to recognize it by (docs/collector.md). Counted and reported.
 *
 *   npm run bench -- durability [--seed=1] [--kills=8] [--agents=4] [--min-ms=500] [--max-ms=3000]
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../test/helpers/seeded-random.js';
import { machineFacts, type MachineFacts } from './machine.js';
import { BenchAgent, startServe, stopServe, type ServeProcess } from './serve-process.js';
import { runAlone } from './run-alone.js';

export interface DurabilityOptions {
  readonly seed: number;
  readonly kills: number;
  readonly agents: number;
  /** Time between a restart and the next kill: uniform in [minMs, maxMs). */
  readonly minMs: number;
  readonly maxMs: number;
  readonly keep: boolean;
}

export const DEFAULT_DURABILITY_OPTIONS: DurabilityOptions = { seed: 1, kills: 8, agents: 4, minMs: 500, maxMs: 3000, keep: false };

export interface DurabilityResult {
  readonly machine: MachineFacts;
  readonly options: DurabilityOptions;
  readonly kills: number;
  readonly elapsedSeconds: number;
  readonly acknowledged: number;
  /** Posts that got no answer (connection refused or reset) and were sent again. */
  readonly resent: number;
  readonly stored: number;
  readonly lost: readonly string[];
  readonly duplicated: readonly string[];
  /** Milliseconds from SIGKILL to the restarted service's first acknowledgement, per kill. */
  readonly recoveryMs: readonly number[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runDurability(options: DurabilityOptions = DEFAULT_DURABILITY_OPTIONS): Promise<DurabilityResult> {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-durability-'));
  const random = seededRandom(options.seed);
  try {
    let serve: ServeProcess = await startServe({ dataDir });
    const ports = { apiPort: serve.apiPort, collectorPort: serve.collectorPort };
    const target = { collectorPort: serve.collectorPort, cert: serve.cert };
    const agents = Array.from({ length: options.agents }, (_, i) => new BenchAgent(target, `durability-${i}`, `durable-${i}`, 7000 + i));
    for (const a of agents) await a.connect();

    const acknowledged = new Set<string>();
    let resent = 0;
    let stopping = false;
    let killedAt: number | undefined;
    const recoveryMs: number[] = [];
    const t0 = performance.now();
    const minuteS = Math.floor(Date.now() / 60_000) * 60;

    const agentLoops = agents.map(async (agent, a) => {
      for (let n = 0; !stopping; n++) {
        const name = `Durability/a${a}/p${n}`;
        for (let attempt = 0; ; attempt++) {
          if (attempt > 0) resent++;
          try {
            const reply = await agent.metricData(minuteS, minuteS + 60, [[name, 1]]);
            if (reply.status === 200) {
              acknowledged.add(name);
              if (killedAt !== undefined) {
                recoveryMs.push(Math.round(performance.now() - killedAt));
                killedAt = undefined;
              }
              break;
            }
            if (reply.status === 409) await agent.connect().catch(() => undefined);
            else if (reply.status !== 503) throw new Error(`metric_data answered ${reply.status}: ${reply.text}`);
          } catch (error) {
            if (error instanceof Error && error.message.startsWith('metric_data answered')) throw error;
            // The service is down (refused) or went down during the post (reset): send it again.
          }
          await sleep(50);
        }
      }
    });

    let kills = 0;
    const killer = (async () => {
      for (; kills < options.kills; kills++) {
        await sleep(options.minMs + random() * (options.maxMs - options.minMs));
        serve.child.kill('SIGKILL');
        killedAt = performance.now();
        await serve.exited;
        serve = await startServe({ dataDir, ...ports });
      }
      // Let ingest run a moment on the last start before stopping.
      await sleep(options.minMs);
      stopping = true;
    })();
    await killer;
    await Promise.all(agentLoops);
    const elapsedSeconds = Math.round((performance.now() - t0) / 100) / 10;
    for (const a of agents) a.close();
    await stopServe(serve);

    const rows = new Map<string, number>();
    const instance = await DuckDBInstance.create(join(dataDir, 'timeslice.duckdb'));
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll(`
        SELECT n.name, count(*) AS n FROM (
          SELECT metric_id FROM timeslices UNION ALL SELECT metric_id FROM timeslices_compacted UNION ALL SELECT metric_id FROM timeslices_daily
        ) t JOIN metric_names n ON n.id = t.metric_id
        WHERE n.name LIKE 'Durability/%' GROUP BY n.name`);
      for (const row of reader.getRowObjectsJS()) rows.set(String(row.name), Number(row.n));
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
    const lost = [...acknowledged].filter((name) => !rows.has(name)).sort();
    const duplicated = [...rows].filter(([, n]) => n > 1).map(([name, n]) => `${name} ×${n}`).sort();
    return {
      machine: machineFacts(), options, kills, elapsedSeconds, acknowledged: acknowledged.size, resent,
      stored: [...rows.values()].reduce((s, n) => s + n, 0), lost, duplicated, recoveryMs,
    };
  } finally {
    if (options.keep) console.error(`data kept in ${dataDir}`);
    else await rm(dataDir, { recursive: true, force: true });
  }
}

export function formatDurability(r: DurabilityResult): string {
  const sorted = [...r.recoveryMs].sort((a, b) => a - b);
  return [
    `durability: seed ${r.options.seed}, ${r.kills} × kill -9 over ${r.elapsedSeconds} s, ${r.options.agents} agents posting back to back`,
    `machine: ${r.machine.cpus} cpus (${r.machine.cpuModel}), node ${r.machine.node}, duckdb ${r.machine.duckdb}, load average ${r.machine.loadAverage.join(' ')}`,
    `  acknowledged payloads ${r.acknowledged}; posts sent again after no answer ${r.resent}; rows stored ${r.stored}`,
    `  lost (acknowledged, not stored): ${r.lost.length}${r.lost.length ? ` (${r.lost.slice(0, 5).join(', ')}…)` : ''}`,
    `  duplicated (committed, unacknowledged, sent again): ${r.duplicated.length}${r.duplicated.length ? ` (${r.duplicated.slice(0, 5).join(', ')})` : ''}`,
    `  kill → first acknowledgement after restart: median ${sorted[Math.floor(sorted.length / 2)] ?? 'n/a'} ms, max ${sorted.at(-1) ?? 'n/a'} ms`,
  ].join('\n');
}

export async function durabilityBench(flags: ReadonlyMap<string, string>): Promise<DurabilityResult> {
  const number = (name: string, fallback: number) => {
    const v = flags.get(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number ≥ 0, got '${v}'`);
    return n;
  };
  const d = DEFAULT_DURABILITY_OPTIONS;
  const options: DurabilityOptions = {
    seed: number('seed', d.seed), kills: Math.round(number('kills', d.kills)), agents: Math.max(1, Math.round(number('agents', d.agents))),
    minMs: number('min-ms', d.minMs), maxMs: number('max-ms', d.maxMs), keep: flags.has('keep'),
  };
  if (options.maxMs < options.minMs) throw new Error('--max-ms must be at least --min-ms');
  const result = await runDurability(options);
  console.log(formatDurability(result));
  if (result.lost.length > 0) throw new Error(`${result.lost.length} acknowledged payloads were not stored`);
  return result;
}

// Runnable alone: `node dist/bench/durability.js [--seed=N …]`.
runAlone(import.meta.url, durabilityBench);
