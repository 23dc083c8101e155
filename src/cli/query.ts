import { NRQL_ROUTE } from '../http/service-paths.js';
import { systemClock } from '../clock.js';
import { storeDictionaries } from '../nrql/dictionaries.js';
import { NrqlEngine, type NrqlAnswer } from '../nrql/nrql-engine.js';
import { NrqlError, nrqlErrorBody } from '../nrql/nrql-error.js';
import { openStore } from '../store/open-store.js';
import type { StoreEngine } from '../store/store.js';

export interface QueryCommandOptions {
  readonly query: string;
  /** Base URL of a running service's HTTP API. */
  readonly url: string;
  readonly apiKey: string | undefined;
  /** Read this data directory directly instead (the service must not be running on it). */
  readonly dataDir?: string;
  /** The engine of that data directory's store (TIMESLICE_STORE). */
  readonly store?: StoreEngine;
  readonly accountId?: number;
  readonly json: boolean;
  readonly timeoutSeconds?: number;
}

/** Runs the query on a data directory in this process: the same engine the service runs. */
async function runOnDataDirectory(options: QueryCommandOptions & { dataDir: string }): Promise<{ ok: true; answer: NrqlAnswer } | { ok: false; body: ErrorBody }> {
  const store = await openStore({
    engine: options.store ?? 'duckdb', dataDir: options.dataDir, memoryLimit: '1GB', clock: systemClock, expireEveryMs: 0,
  });
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
    return printAnswer(outcome.answer, options.json, out);
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
    err.write(`timeslice query: cannot reach ${options.url} (${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}); is \`timeslice serve\` running? (--url)\n`);
    return 1;
  }
  const body = await response.json() as NrqlAnswer & ErrorBody;
  if (!response.ok) return printError(body, options.query, err, `HTTP ${response.status}`);
  return printAnswer(body, options.json, out);
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

function printAnswer(body: NrqlAnswer, json: boolean, out: NodeJS.WritableStream): number {
  if (json) {
    const { results, totalResult, otherResult, currentResults, previousResults, metadata, nrql } = body;
    const compared = currentResults !== null ? { currentResults, previousResults } : {};
    out.write(`${JSON.stringify({ results, totalResult, otherResult, ...compared, metadata, nrql }, null, 2)}\n`);
    return 0;
  }
  out.write(renderTable(body.results));
  if (body.totalResult && !Array.isArray(body.totalResult) && body.metadata.facets) out.write(`\nTotal: ${cellText(body.totalResult)}\n`);
  out.write(`\n${body.results.length} row${body.results.length === 1 ? '' : 's'} · ${new Date(body.metadata.timeWindow.begin).toISOString()} – ${new Date(body.metadata.timeWindow.end).toISOString()}\n`);
  return 0;
}

/** Rows as an aligned text table; nested values (uniques, percentiles, Apdex) as compact JSON. */
export function renderTable(rows: readonly Record<string, unknown>[]): string {
  if (rows.length === 0) return '(no rows)\n';
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cells = rows.map((r) => columns.map((c) => cellText(r[c])));
  const widths = columns.map((c, i) => Math.min(60, Math.max(c.length, ...cells.map((row) => row[i]!.length))));
  const line = (values: readonly string[]) => values.map((v, i) => (v.length > widths[i]! ? `${v.slice(0, widths[i]! - 1)}…` : v.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n') + '\n';
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)));
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}
