import type { Database } from './database.js';
import type { ErrorTrace, SqlTrace, TraceQuery, TraceStore, TransactionTrace } from '../traces.js';

const WINDOW = 'account_id = $1 AND app_id = $2 AND epoch_ms(timestamp) >= $3 AND epoch_ms(timestamp) < $4';

/** Traces from `error_traces`, `transaction_traces` and `sql_traces`, one small read each. */
export class DuckDbTraceStore implements TraceStore {
  constructor(private readonly db: Database) {}

  async errors(q: TraceQuery): Promise<ErrorTrace[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT epoch_ms(timestamp) AS ms, transaction_name, message, error_class, params FROM error_traces
       WHERE ${WINDOW} ORDER BY timestamp DESC LIMIT $5`, params(q));
    return rows.map((r) => ({
      timestamp: Number(r.ms), transactionName: text(r.transaction_name), message: text(r.message), errorClass: text(r.error_class), params: parsed(r.params),
    }));
  }

  async transactions(q: TraceQuery): Promise<TransactionTrace[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT epoch_ms(timestamp) AS ms, duration_ms, transaction_name, uri, trace FROM transaction_traces
       WHERE ${WINDOW} ORDER BY timestamp DESC LIMIT $5`, params(q));
    return rows.map((r) => ({
      timestamp: Number(r.ms), durationMs: number(r.duration_ms), transactionName: text(r.transaction_name), uri: text(r.uri), trace: parsed(r.trace),
    }));
  }

  async sql(q: TraceQuery): Promise<SqlTrace[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT epoch_ms(timestamp) AS ms, transaction_name, url, sql, metric_name, call_count, total, min, max FROM sql_traces
       WHERE ${WINDOW} ORDER BY timestamp DESC LIMIT $5`, params(q));
    return rows.map((r) => ({
      timestamp: Number(r.ms), transactionName: text(r.transaction_name), url: text(r.url), sql: text(r.sql), metricName: text(r.metric_name),
      callCount: number(r.call_count), totalMs: number(r.total), minMs: number(r.min), maxMs: number(r.max),
    }));
  }
}

const params = (q: TraceQuery) => [q.accountId, q.appId, q.fromMs, q.toMs, q.limit];
const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
const number = (v: unknown) => (v === null || v === undefined ? null : Number(v));
function parsed(v: unknown): unknown {
  if (typeof v !== 'string') return null;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}
