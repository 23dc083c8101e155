import { traceJson, traceNumber, traceText, type ErrorTrace, type SqlTrace, type TraceQuery, type TraceStore, type TransactionTrace } from '../traces.js';
import type { ClickHouseConnection } from './clickhouse-connection.js';
import { numberLiteral } from './clickhouse-dialect.js';

/** Traces from `error_traces`, `transaction_traces` and `sql_traces` on ClickHouse, one small read each. */
export class ClickHouseTraceStore implements TraceStore {
  constructor(private readonly connection: ClickHouseConnection) {}

  private read(columns: string, table: string, q: TraceQuery): Promise<unknown[][]> {
    const n = (v: number) => numberLiteral(Math.trunc(v));
    return this.connection.rows(
      `SELECT "timestamp", ${columns} FROM "${table}" WHERE "account_id" = ${n(q.accountId)} AND "app_id" = ${n(q.appId)}`
      + ` AND "timestamp" >= ${n(q.fromMs)} AND "timestamp" < ${n(q.toMs)} ORDER BY "timestamp" DESC LIMIT ${n(Math.max(0, q.limit))}`,
    );
  }

  async errors(q: TraceQuery): Promise<ErrorTrace[]> {
    const rows = await this.read('"transaction_name", "message", "error_class", "params"', 'error_traces', q);
    return rows.map(([ms, name, message, errorClass, params]) => ({
      timestamp: Number(ms), transactionName: traceText(name), message: traceText(message), errorClass: traceText(errorClass), params: traceJson(params),
    }));
  }

  async transactions(q: TraceQuery): Promise<TransactionTrace[]> {
    const rows = await this.read('"duration_ms", "transaction_name", "uri", "trace"', 'transaction_traces', q);
    return rows.map(([ms, duration, name, uri, trace]) => ({
      timestamp: Number(ms), durationMs: traceNumber(duration), transactionName: traceText(name), uri: traceText(uri), trace: traceJson(trace),
    }));
  }

  async sql(q: TraceQuery): Promise<SqlTrace[]> {
    const rows = await this.read('"transaction_name", "url", "sql", "metric_name", "call_count", "total", "min", "max"', 'sql_traces', q);
    return rows.map(([ms, name, url, sql, metric, calls, total, min, max]) => ({
      timestamp: Number(ms), transactionName: traceText(name), url: traceText(url), sql: traceText(sql), metricName: traceText(metric),
      callCount: traceNumber(calls), totalMs: traceNumber(total), minMs: traceNumber(min), maxMs: traceNumber(max),
    }));
  }
}

