import { NRQL_ROUTE } from '../http/service-paths.js';
import { systemClock } from '../clock.js';
import { storeDictionaries } from '../nrql/dictionaries.js';
import { NrqlEngine, type NrqlAnswer } from '../nrql/nrql-engine.js';
import { NrqlError, nrqlErrorBody } from '../nrql/nrql-error.js';
import { openDataDirStore, type DataDirOptions } from './data-dir-store.js';

export interface QueryCommandOptions extends DataDirOptions {
  readonly query: string;
  /** Base URL of a running service's HTTP API. */
  readonly url: string;
  readonly apiKey: string | undefined;
  readonly accountId?: number;
  readonly json: boolean;
  readonly timeoutSeconds?: number;
  readonly style?: TableStyle;
}

/** Runs the query on a data directory in this process: the same engine the service runs. */
async function runOnDataDirectory(options: QueryCommandOptions & { dataDir: string }): Promise<{ ok: true; answer: NrqlAnswer } | { ok: false; body: ErrorBody }> {
  const store = await openDataDirStore(options);
  try {
    const { executor, catalog, metrics } = store;
    const engine = new NrqlEngine({ executor, dictionaries: storeDictionaries(catalog, metrics), clock: systemClock });
    try {
      const answer = await engine.run(options.query, {
        accountIds: [options.accountId ?? 1],
        ...(options.timeoutSeconds !== undefined ? { timeoutMs: options.timeoutSeconds * 1000 } : {}),
      });
      return { ok: true, answer };
    } catch (error) {
      if (error instanceof NrqlError) return { ok: false, body: nrqlErrorBody(error, options.query) };
      throw error;
    }
  } finally {
    await store.close();
  }
}

interface ErrorBody {
  readonly error?: { readonly title?: string; readonly code?: string; readonly line?: number; readonly column?: number; readonly suggestion?: string };
}

/** `timeslice query '<NRQL>'`: runs one query on a running service and prints a table or JSON. */
export async function queryCommand(options: QueryCommandOptions, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  if (options.dataDir !== undefined) {
    const outcome = await runOnDataDirectory({ ...options, dataDir: options.dataDir });
    if (!outcome.ok) return printError(outcome.body, options.query, err, 'refused');
    return printAnswer(outcome.answer, options.json, out, options.style);
  }
  if (!options.apiKey) {
    err.write('timeslice query: no API key; set TIMESLICE_API_KEY or pass --api-key (the user API key printed on first start)\n');
    return 2;
  }
  let response: Response;
  try {
    response = await fetch(new URL(NRQL_ROUTE, options.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-key': options.apiKey },
      body: JSON.stringify({
        query: options.query,
        ...(options.accountId !== undefined ? { accounts: [options.accountId] } : {}),
        ...(options.timeoutSeconds !== undefined ? { timeout: options.timeoutSeconds } : {}),
      }),
    });
  } catch (error) {
    err.write(`timeslice query: cannot reach ${options.url} (${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}); is \`npx timeslice serve\` running? (--url)\n`);
    return 1;
  }
  const body = await response.json() as NrqlAnswer & ErrorBody;
  if (!response.ok) return printError(body, options.query, err, `HTTP ${response.status}`);
  return printAnswer(body, options.json, out, options.style);
}

function printError(body: ErrorBody, query: string, err: NodeJS.WritableStream, fallback: string): number {
  const e = body.error ?? {};
  const at = e.line !== undefined ? ` (line ${e.line}, column ${e.column})` : '';
  err.write(`timeslice query: ${e.title ?? fallback}${at}${e.code ? ` [${e.code}]` : ''}\n`);
  if (e.line !== undefined && e.column !== undefined) {
    const line = query.split('\n')[e.line - 1] ?? '';
    err.write(`  ${line}\n  ${' '.repeat(Math.max(0, e.column - 1))}^\n`);
  }
  return 1;
}

/** How the table shows values: times in the local zone or UTC, cells cut to a width or whole. */
export interface TableStyle {
  readonly utc: boolean;
  readonly wide: boolean;
  /** The zone offset in minutes east of UTC for an instant (the local zone unless `utc`); tests pass their own. */
  readonly offsetMinutes?: (epochMs: number) => number;
}

const DEFAULT_STYLE: TableStyle = { utc: false, wide: false };

function printAnswer(body: NrqlAnswer, json: boolean, out: NodeJS.WritableStream, style: TableStyle = DEFAULT_STYLE): number {
  if (json) {
    const { results, totalResult, otherResult, currentResults, previousResults, metadata, nrql } = body;
    const compared = currentResults !== null ? { currentResults, previousResults } : {};
    out.write(`${JSON.stringify({ results, totalResult, otherResult, ...compared, metadata, nrql }, null, 2)}\n`);
    return 0;
  }
  const facets = body.metadata.facets ?? [];
  out.write(renderTable(body.results, style, facets));
  if (body.totalResult && !Array.isArray(body.totalResult) && facets.length > 0) out.write(`\nTotal: ${cellText('', body.totalResult, style)}\n`);
  const window = body.metadata.timeWindow;
  out.write(`\n${body.results.length} row${body.results.length === 1 ? '' : 's'} · ${isoTime(window.begin, style)} – ${isoTime(window.end, style)}\n`);
  return 0;
}

/** Widest cell shown unless --wide. */
const CELL_WIDTH = 60;

/**
 * Rows as an aligned text table: times as ISO instants, numbers rounded for reading (formatNumber),
 * nested values (uniques, percentiles, Apdex) as compact JSON. The `facet` column is left out when the
 * facets have their own columns, which hold the same values.
 */
export function renderTable(rows: readonly Record<string, unknown>[], style: TableStyle = DEFAULT_STYLE, facets: readonly string[] = []): string {
  if (rows.length === 0) return '(no rows)\n';
  let columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (facets.length > 0 && facets.every((f) => columns.includes(f))) columns = columns.filter((c) => c !== 'facet');
  const cells = rows.map((r) => columns.map((c) => cellText(c, r[c], style)));
  const widths = columns.map((c, i) => {
    const widest = Math.max(c.length, ...cells.map((row) => row[i]!.length));
    return style.wide ? widest : Math.min(CELL_WIDTH, widest);
  });
  const line = (values: readonly string[]) => values.map((v, i) => (v.length > widths[i]! ? `${v.slice(0, widths[i]! - 1)}…` : v.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n') + '\n';
}

/** Columns that hold instants: NerdGraph's bucket bounds (seconds) and event timestamps (milliseconds). */
const SECONDS_COLUMNS = new Set(['beginTimeSeconds', 'endTimeSeconds']);
const MILLISECONDS_COLUMNS = new Set(['timestamp']);

function cellText(column: string, value: unknown, style: TableStyle): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') {
    if (SECONDS_COLUMNS.has(column)) return isoTime(value * 1000, style);
    if (MILLISECONDS_COLUMNS.has(column)) return isoTime(value, style);
    return style.wide ? String(value) : formatNumber(value);
  }
  if (typeof value === 'string') return value;
  if (!style.wide) return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' ? Number(formatNumber(v).replace(/,/g, '')) : v));
  return JSON.stringify(value);
}

/**
 * A number as a person reads it in a table: at most three decimals, trailing zeros dropped, a
 * thousands separator from 1,000 on; a value too small for three decimals keeps three significant
 * digits. New Relic's UI rounds its tables' numbers but does not document the rule; this is ours
 * (docs/nrql.md). --wide prints the value unrounded.
 */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const rounded = Math.round(value * 1000) / 1000;
  if (rounded === 0 && value !== 0) return Number(value.toPrecision(3)).toString();
  const [whole, fraction] = Math.abs(rounded).toFixed(3).replace(/\.?0+$/, '').split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${rounded < 0 ? '-' : ''}${grouped}${fraction ? `.${fraction}` : ''}`;
}

/** An instant as ISO 8601: in UTC (`Z`), or in the local zone with its offset. */
export function isoTime(epochMs: number, style: TableStyle): string {
  if (style.utc) return new Date(epochMs).toISOString();
  const offset = style.offsetMinutes ? style.offsetMinutes(epochMs) : -new Date(epochMs).getTimezoneOffset();
  const shifted = new Date(epochMs + offset * 60_000).toISOString().slice(0, -1);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${shifted}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
