import { APPEND_TABLES_BY_NAME, Rows, type Cell } from '../../store/append-tables.js';
import { CollectorError } from './collector-error.js';
import { decodeAgentBody } from './decode-body.js';
import {
  customEventRows, errorEventRows, errorTraceRows, logEventRows, parseMetricData, spanEventRows, sqlTraceRows,
  transactionEventRows, transactionTraceRows, type IngestContext, type MetricDataPayload,
} from './payloads.js';

/** What one agent call's body becomes before anything touches the store. */
export type DecodedCall =
  /** A valid body of a method that stores nothing (agent_settings, shutdown, …): nothing to carry back. */
  | { readonly kind: 'accepted' }
  | { readonly kind: 'rows'; readonly rows: readonly Rows[] }
  | { readonly kind: 'metric_data'; readonly payload: MetricDataPayload };

export interface DecodeRequest {
  readonly method: string;
  readonly body: Uint8Array;
  readonly contentEncoding: string | undefined;
  readonly ctx: IngestContext;
}

/**
 * Methods whose payload becomes rows without the store's help (metric_data needs the name dictionary).
 * A Map, not an object: the method name comes from the request, and `toString`, `constructor` or
 * `__proto__` must find nothing rather than Object.prototype's members.
 */
const ROW_METHODS: ReadonlyMap<string, (body: unknown, ctx: IngestContext) => Rows> = new Map([
  ['analytic_event_data', transactionEventRows],
  ['error_event_data', errorEventRows],
  ['span_event_data', spanEventRows],
  ['custom_event_data', customEventRows],
  ['log_event_data', logEventRows],
  ['error_data', errorTraceRows],
  ['transaction_sample_data', transactionTraceRows],
  ['sql_trace_data', sqlTraceRows],
]);

export const STORED_METHODS: ReadonlySet<string> = new Set([...ROW_METHODS.keys(), 'metric_data']);

/** Inflate, parse and convert one call's body. Pure but for the clock-free context it is given. */
export async function decodeCall(request: DecodeRequest): Promise<DecodedCall> {
  const raw = Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
  const json = await decodeAgentBody(raw, request.contentEncoding);
  if (request.method === 'metric_data') return { kind: 'metric_data', payload: parseMetricData(json) };
  const toRows = ROW_METHODS.get(request.method);
  return toRows ? { kind: 'rows', rows: [toRows(json, request.ctx)] } : { kind: 'accepted' };
}

// ── crossing a thread boundary ──────────────────────────────────────────────────────────────

/** A DecodedCall as structured-clone data, and the buffers to transfer rather than copy. */
export interface WireCall {
  readonly call: WireDecoded;
  readonly transfer: ArrayBuffer[];
}
type WireDecoded =
  | { readonly kind: 'accepted' }
  | { readonly kind: 'rows'; readonly rows: readonly { readonly table: string; readonly columns: Cell[][] }[] }
  | { readonly kind: 'metric_data'; readonly payload: MetricDataPayload };

export function toWire(call: DecodedCall): WireCall {
  switch (call.kind) {
    case 'accepted':
      return { call, transfer: [] };
    case 'rows':
      return { call: { kind: 'rows', rows: call.rows.map((r) => ({ table: r.table.name, columns: r.columns })) }, transfer: [] };
    case 'metric_data': {
      const p = call.payload;
      return { call, transfer: [p.nameIndex.buffer, p.scopeIndex.buffer, p.stats.buffer] as ArrayBuffer[] };
    }
  }
}

export function fromWire(wire: WireDecoded): DecodedCall {
  if (wire.kind !== 'rows') return wire;
  return {
    kind: 'rows',
    rows: wire.rows.map((r) => {
      const table = APPEND_TABLES_BY_NAME.get(r.table);
      if (!table) throw new Error(`decoded rows name an unknown table '${r.table}'`);
      return new Rows(table, r.columns);
    }),
  };
}

/** A refusal as plain data, so a worker can report it and the collector can answer it. */
export interface WireError {
  readonly statusCode?: CollectorError['statusCode'];
  readonly errorType?: string;
  readonly message: string;
}

export function errorToWire(error: unknown): WireError {
  if (error instanceof CollectorError) return { statusCode: error.statusCode, errorType: error.errorType, message: error.message };
  return { message: error instanceof Error ? error.stack ?? error.message : String(error) };
}

export function errorFromWire(wire: WireError): Error {
  return wire.statusCode ? new CollectorError(wire.statusCode, wire.message, wire.errorType ?? 'Error') : new Error(wire.message);
}
