/**
 * A process for kill -9 tests of the store's upkeep: opens the store in `dir` and runs upkeep
 * once per hour of `from`..`to` (epoch ms) under a clock set to that hour, printing the rollup
 * watermark after each run, until the parent kills it. `minuteRetentionMs` 0 keeps 1-minute data.
 */
import { DEFAULT_RETENTION, DEFAULT_UPKEEP } from '../../src/store/store.js';
import { DuckDbStore } from '../../src/store/duckdb/duckdb-store.js';

const [dir, fromText, toText, retentionText] = process.argv.slice(2);
const clock = { ms: Number(fromText), now() { return this.ms; } };
const minuteMs = Number(retentionText);
const store = await DuckDbStore.open({
  dataDir: dir!, memoryLimit: '256MB', clock, expireEveryMs: 0, compaction: { intervalMs: 0, minAgeMs: 7_200_000 },
  upkeep: { ...DEFAULT_UPKEEP, intervalMs: 0, rollupDelayMs: 0, deleteStepRows: 300, retention: { ...DEFAULT_RETENTION, minuteMs: minuteMs > 0 ? minuteMs : null } },
});
for (let t = Number(fromText); t <= Number(toText); t += 3_600_000) {
  clock.ms = t;
  const report = await store.maintain();
  process.stdout.write(`${store.upkeep.coverage.hourlyUntilMs} ${Object.values(report.deleted).reduce((a, b) => a + b, 0)}\n`);
}
await store.close();
process.stdout.write('done\n');
