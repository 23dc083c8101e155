import type { Database } from './database.js';
import { traceJson, traceNumber, traceText, type ErrorTrace, type SqlTrace, type TraceQuery, type TraceStore, type TransactionTrace } from '../traces.js';

const WINDOW = 'account_id = $1 AND app_id = $2 AND epoch_ms(timestamp) >= $3 AND epoch_ms(timestamp) < $4';

/** Traces from `error_traces`, `transaction_traces` and `sql_traces`, one small read each. */
export class DuckDbTraceStore implements TraceStore {
  constructor(private readonly db: Database) {}

  async errors(q: TraceQuery): Promise<ErrorTrace[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT epoch_ms(timestamp) AS ms, transaction_name, message, error_class, params FROM error_traces
       WHERE ${WINDOW} ORDER BY timestamp DESC LIMIT $5`, params(q));
    return rows.map((r) => ({
      timestamp: Number(r.ms), transactionName: traceText(r.transaction_name), message: traceText(r.message), errorClass: traceText(r.error_class), params: traceJson(r.params),
    }));
  }

  async transactions(q: TraceQuery): Promise<TransactionTrace[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT epoch_ms(timestamp) AS ms, duration_ms, transaction_name, uri, trace FROM transaction_traces
       WHERE ${WINDOW} ORDER BY timestamp DESC LIMIT $5`, params(q));
    return rows.map((r) => ({
      timestamp: Number(r.ms), durationMs: traceNumber(r.duration_ms), transactionName: traceText(r.transaction_name), uri: traceText(r.uri), trace: traceJson(r.trace),
    }));
  }

  async sql(q: TraceQuery): Promise<SqlTrace[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT epoch_ms(timestamp) AS ms, transaction_name, url, sql, metric_name, call_count, total, min, max FROM sql_traces
       WHERE ${WINDOW} ORDER BY timestamp DESC LIMIT $5`, params(q));
    return rows.map((r) => ({
      timestamp: Number(r.ms), transactionName: traceText(r.transaction_name), url: traceText(r.url), sql: traceText(r.sql), metricName: traceText(r.metric_name),
      callCount: traceNumber(r.call_count), totalMs: traceNumber(r.total), minMs: traceNumber(r.min), maxMs: traceNumber(r.max),
    }));
  }
}

const params = (q: TraceQuery) => [q.accountId, q.appId, q.fromMs, q.toMs, q.limit];
