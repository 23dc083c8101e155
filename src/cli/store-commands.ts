import { STORE_ROUTE } from '../http/service-paths.js';
import { openDataDirStore, type DataDirOptions } from './data-dir-store.js';
import type { RetentionOptions, StoreStatus, UpkeepOptions, UpkeepReport } from '../store/store.js';

export interface StoreCommandOptions extends DataDirOptions {
  readonly command: 'status' | 'maintain';
  /** Base URL of a running service's HTTP API. */
  readonly url: string;
  readonly apiKey: string | undefined;
  /** Rollups and retention as configured (TIMESLICE_RETENTION…), for `--data`. */
  readonly upkeep?: UpkeepOptions;
  readonly json: boolean;
}

/**
 * `timeslice status`: the data directory's size, rows and oldest data per table and resolution,
 * the retention in force and the last rollup and deletion runs. `timeslice maintain`: rolls up
 * closed hours and deletes expired data now, and prints what it did. Both ask the running service
 * (`--url`, `TIMESLICE_URL`; `--api-key`, `TIMESLICE_API_KEY`), or with `--data` open a data
 * directory no service is running on.
 */
export async function storeCommand(options: StoreCommandOptions, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  const name = `timeslice ${options.command}`;
  let answer: StoreStatus | UpkeepReport;
  if (options.dataDir !== undefined) {
    const store = await openDataDirStore({ ...options, dataDir: options.dataDir }, options.upkeep);
    try {
      answer = options.command === 'status' ? await store.status() : await store.maintain();
    } finally {
      await store.close();
    }
  } else {
    if (!options.apiKey) {
      err.write(`${name}: no API key; set TIMESLICE_API_KEY or pass --api-key (the user API key printed on first start)\n`);
      return 2;
    }
    let response: Response;
    try {
      response = await fetch(new URL(options.command === 'status' ? STORE_ROUTE : `${STORE_ROUTE}/maintain`, options.url), {
        method: options.command === 'status' ? 'GET' : 'POST',
        headers: { 'api-key': options.apiKey },
      });
    } catch (error) {
      const cause = (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message;
      err.write(`${name}: cannot reach ${options.url} (${cause}); is \`timeslice serve\` running? (--url, or --data for a stopped service's data directory)\n`);
      return 1;
    }
    const body = await response.json() as (StoreStatus | UpkeepReport) & { error?: { title?: string } };
    if (!response.ok) {
      err.write(`${name}: ${body.error?.title ?? `HTTP ${response.status}`}\n`);
      return 1;
    }
    answer = body;
  }
  if (options.json) out.write(`${JSON.stringify(answer, null, 2)}\n`);
  else out.write(options.command === 'status' ? formatStatus(answer as StoreStatus) : formatReport(answer as UpkeepReport));
  return 0;
}

const time = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace('.000Z', 'Z'));

function period(ms: number | null): string {
  if (ms === null) return 'forever';
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000]] as const) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

function retentionText(r: RetentionOptions): string {
  const events = Object.entries(r.eventsMs).map(([type, ms]) => `${type} ${period(ms)}`).join(', ');
  return [
    `  1-minute timeslices  ${period(r.minuteMs)}`,
    `  hourly rollups       ${period(r.hourlyMs)} (key metrics ${period(r.keyMetricsMs)})`,
    `  events               ${events}, other types ${period(r.otherEventsMs)}`,
    `  traces               ${period(r.tracesMs)}`,
  ].join('\n');
}

export function formatStatus(s: StoreStatus): string {
  const rows = s.tables.map((t) => [t.table, t.resolution, String(t.rows), time(t.oldestMs)]);
  const header = ['table', 'resolution', 'rows', 'oldest'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [
    `store: ${s.engine}, ${bytes(s.sizeBytes)} on disk`,
    '',
    line(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map(line),
    '',
    'retention:',
    retentionText(s.retention),
    '',
    `rolled up until:   ${time(s.rolledUpUntilMs)}`,
    `last rollup run:   ${time(s.lastRollupMs)}`,
    `last deletion run: ${time(s.lastRetentionMs)}`,
    '',
  ].join('\n');
}

export function formatReport(r: UpkeepReport): string {
  const deleted = Object.entries(r.deleted);
  return [
    `rolled up ${r.hoursRolledUp} hour${r.hoursRolledUp === 1 ? '' : 's'} into ${r.rollupRows} rollup row${r.rollupRows === 1 ? '' : 's'}`,
    deleted.length === 0 ? 'deleted nothing (nothing had expired)' : `deleted ${deleted.map(([t, n]) => `${n} from ${t}`).join(', ')}`,
    '',
  ].join('\n');
}
