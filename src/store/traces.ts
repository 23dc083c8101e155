/** The traces agents sent (error traces, transaction traces, slow SQL), read back for people. */
export const TRACE_KINDS = ['transaction', 'error', 'sql'] as const;
export type TraceKind = (typeof TRACE_KINDS)[number];

export interface TraceQuery {
  readonly accountId: number;
  readonly appId: number;
  readonly fromMs: number;
  readonly toMs: number;
  readonly limit: number;
}

/** One error trace: the message, class and transaction, and the agent's parameters (stack trace among them). */
export interface ErrorTrace {
  readonly timestamp: number;
  readonly transactionName: string | null;
  readonly message: string | null;
  readonly errorClass: string | null;
  /** As the agent sent it (JSON): `stack_trace`, `userAttributes`, `agentAttributes`, `intrinsics`. */
  readonly params: unknown;
}

/** One transaction trace: the segment tree as the agent sent it (decoded JSON). */
export interface TransactionTrace {
  readonly timestamp: number;
  readonly durationMs: number | null;
  readonly transactionName: string | null;
  readonly uri: string | null;
  readonly trace: unknown;
}

/** One slow SQL statement, aggregated by the agent over its harvest. */
export interface SqlTrace {
  readonly timestamp: number;
  readonly transactionName: string | null;
  readonly url: string | null;
  readonly sql: string | null;
  readonly metricName: string | null;
  readonly callCount: number | null;
  readonly totalMs: number | null;
  readonly minMs: number | null;
  readonly maxMs: number | null;
}

/** Newest first, in [fromMs, toMs), at most `limit`. */
export interface TraceStore {
  errors(query: TraceQuery): Promise<ErrorTrace[]>;
  transactions(query: TraceQuery): Promise<TransactionTrace[]>;
  sql(query: TraceQuery): Promise<SqlTrace[]>;
}

/** A stored trace cell as the trace fields carry it, whichever engine read it: text or null. */
export const traceText = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
/** A number or null (engines may hand back 64-bit integers as bigint or text). */
export const traceNumber = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
/** A JSON column as sent (the parsed value), the text itself when it is not JSON, null when absent. */
export function traceJson(v: unknown): unknown {
  if (typeof v !== 'string') return null;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}
