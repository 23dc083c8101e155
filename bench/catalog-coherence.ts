/**
 * The shared PostgreSQL catalog's two timing promises, measured on a throwaway server
 * (test/helpers/postgres.ts): how long a change made on one node takes to be seen on another
 * (a license key created; an agent's run after its connect), and how long the background lease
 * takes to move when its holder is killed with SIGKILL (default ttl and renewal period).
 * `node dist/bench/catalog-coherence.js [--trials=50] [--kills=3]`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { openPostgresCatalog } from '../src/store/postgres/open-postgres-catalog.js';
import { openPostgresDatabase } from '../src/store/postgres/pg-database.js';
import { DEFAULT_LEASE_RENEW_MS, DEFAULT_LEASE_TTL_MS, PgLease } from '../src/store/postgres/pg-lease.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { runAlone } from './run-alone.js';

const clock = { now: () => Date.now() };

async function until(what: () => boolean, withinMs: number): Promise<number> {
  const started = performance.now();
  while (!what()) {
    if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((r) => setImmediate(r));
  }
  return performance.now() - started;
}

function summary(label: string, ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
  return `${label}: n=${ms.length} p50=${at(0.5)} ms p99=${at(0.99)} ms max=${sorted.at(-1)!.toFixed(1)} ms`;
}

export async function runCatalogCoherence(flags: ReadonlyMap<string, string>): Promise<void> {
  const trials = Number(flags.get('trials') ?? 50);
  const kills = Number(flags.get('kills') ?? 3);
  const server = await startPostgres();
  try {
    const url = await server.createDatabase('coherence');
    const one = await openPostgresCatalog(url, { clock });
    const two = await openPostgresCatalog(url, { clock });
    await one.catalog.bootstrap();
    const keys: number[] = [];
    const runs: number[] = [];
    for (let i = 0; i < trials; i++) {
      const key = await one.catalog.createLicenseKey(1);
      keys.push(await until(() => two.catalog.accountForLicenseKey(key) === 1, 5000));
      const { run } = await one.catalog.connect(1, {
        appNames: [`app-${i % 5}`], language: 'nodejs', agentVersion: '13.0.0', host: `h${i}`, displayHost: null, pid: i, port: null, userAgent: null,
      });
      runs.push(await until(() => two.catalog.run(run.runId) !== undefined, 5000));
    }
    await one.close();
    await two.close();
    console.log(summary('license key created on node 1 → accepted on node 2', keys));
    console.log(summary('agent connect on node 1 → run known on node 2', runs));

    const takeovers: number[] = [];
    const child = fileURLToPath(new URL('../test/helpers/lease-child.js', import.meta.url));
    for (let k = 0; k < kills; k++) {
      const db = await openPostgresDatabase(await server.createDatabase(`lease_${k}`));
      const holder = spawn(process.execPath, [child, server.url(`lease_${k}`), String(DEFAULT_LEASE_TTL_MS), String(DEFAULT_LEASE_RENEW_MS)], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      holder.stdout!.on('data', (b: Buffer) => { out += b.toString(); });
      await until(() => out.includes('held'), 15_000);
      const survivor = new PgLease(db);
      survivor.start();
      // Kill at a random point of the holder's renewal period.
      await new Promise((r) => setTimeout(r, 500 + Math.random() * DEFAULT_LEASE_RENEW_MS));
      if (survivor.held()) throw new Error('two holders');
      holder.kill('SIGKILL');
      await once(holder, 'exit');
      takeovers.push(await until(() => survivor.held(), 30_000));
      await survivor.close();
      await db.close();
    }
    console.log(summary(`lease takeover after SIGKILL (ttl ${DEFAULT_LEASE_TTL_MS} ms, renewed every ${DEFAULT_LEASE_RENEW_MS} ms)`, takeovers));
  } finally {
    await server.stop();
  }
}

runAlone(import.meta.url, runCatalogCoherence);
