import type { Summary } from '../../domain/timeslice.js';
import { harvestMinute } from '../../domain/timeslice.js';
import { LAST_TIME_MS } from '../../domain/time/time-range.js';
import type { RunTarget } from '../../store/catalog.js';
import {
  CUSTOM_EVENTS, ERROR_EVENTS, ERROR_TRACES, LOG_EVENTS, Rows, SPAN_EVENTS, SQL_TRACES, TIMESLICES,
  TRANSACTION_EVENTS, TRANSACTION_TRACES, type AppendTable, type Cell,
} from '../../store/duckdb/append-tables.js';
import { inflateSync } from 'node:zlib';
import { malformed } from './collector-error.js';
import { attributeJson } from '../../store/attribute-json.js';

/** Who sent a payload and when: every row is written once per target application of the run. */
export interface IngestContext {
  readonly accountId: number;
  readonly targets: readonly RunTarget[];
  /** Epoch ms at which the request arrived; stands in for timestamps agents leave at 0. */
  readonly receivedAt: number;
}

type Json = unknown;
type Attributes = Record<string, Json>;

const isRecord = (v: Json): v is Attributes => typeof v === 'object' && v !== null && !Array.isArray(v);
const isFiniteNumber = (v: Json): v is number => typeof v === 'number' && Number.isFinite(v);

function expectArray(v: Json, what: string): Json[] {
  if (!Array.isArray(v)) throw malformed(`${what} must be a JSON array`);
  return v;
}

function str(v: Json): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

function num(v: Json): number | null {
  if (isFiniteNumber(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

function int(v: Json): number | null {
  const n = num(v);
  return n !== null && Number.isInteger(n) && Math.abs(n) <= 2 ** 31 - 1 ? n : null;
}

/** Body layouts begin with the run id on most methods; it duplicates the query parameter. */
function dropRunId(body: Json[]): Json[] {
  return typeof body[0] === 'string' ? body.slice(1) : body;
}

// ── metric_data ─────────────────────────────────────────────────────────────────────────────

/**
 * A harvest in a compact, transferable form: the distinct metric and scope names once, and per
 * metric the index of its name and scope and its six numbers, so it crosses from a decoding
 * worker thread as two small arrays and three typed arrays.
 */
export interface MetricDataPayload {
  readonly beginMs: number;
  readonly endMs: number;
  /** Distinct metric names and scopes, in order of first appearance. */
  readonly names: readonly string[];
  /** Per metric: index into `names`. */
  readonly nameIndex: Int32Array;
  /** Per metric: index into `names` of its scope, or -1 when unscoped. */
  readonly scopeIndex: Int32Array;
  /** Per metric, six numbers: count, total, exclusive, min, max, sumOfSquares. */
  readonly stats: Float64Array;
}

/**
 * `[run_id, begin_s, end_s, [[{name[, scope]}, [count, total, exclusive, min, max, sumOfSquares]], …]]`
 *
 * This runs for every metric of every harvest, so it is a plain loop: error labels are built
 * only when a metric is refused, and the six values are checked without a callback.
 */
export function parseMetricData(body: Json): MetricDataPayload {
  const [begin, end, list] = dropRunId(expectArray(body, 'metric_data body'));
  if (!isFiniteNumber(begin) || !isFiniteNumber(end) || begin <= 0 || end < begin || end * 1000 > LAST_TIME_MS) {
    throw malformed('metric_data needs harvest begin and end as epoch seconds, begin <= end, before the year 10000');
  }
  const entries = expectArray(list, 'metric_data metrics');
  const names: string[] = [];
  const indexOf = new Map<string, number>();
  const intern = (name: string) => {
    let i = indexOf.get(name);
    if (i === undefined) {
      i = names.length;
      names.push(name);
      indexOf.set(name, i);
    }
    return i;
  };
  const nameIndex = new Int32Array(entries.length);
  const scopeIndex = new Int32Array(entries.length);
  const stats = new Float64Array(entries.length * 6);
  for (let i = 0; i < entries.length; i++) {
    const pair = entries[i];
    if (!Array.isArray(pair)) throw malformed(`metric ${i} must be a JSON array`);
    const spec: Json = pair[0];
    const values: Json = pair[1];
    if (!isRecord(spec) || typeof spec.name !== 'string' || spec.name === '') {
      throw malformed(`metric ${i}: the spec must be an object with a non-empty "name"`);
    }
    const scope = spec.scope;
    if (scope !== undefined && scope !== null && typeof scope !== 'string') {
      throw malformed(`metric ${i} (${spec.name}): "scope" must be a string`);
    }
    if (!Array.isArray(values)) throw malformed(`metric ${i} (${spec.name}) values must be a JSON array`);
    const count: Json = values[0], total: Json = values[1], exclusive: Json = values[2];
    const min: Json = values[3], max: Json = values[4], sumOfSquares: Json = values[5];
    if (
      values.length !== 6 || !isFiniteNumber(count) || !isFiniteNumber(total) || !isFiniteNumber(exclusive)
      || !isFiniteNumber(min) || !isFiniteNumber(max) || !isFiniteNumber(sumOfSquares)
    ) {
      throw malformed(`metric ${i} (${spec.name}): values must be six finite numbers [count, total, exclusive, min, max, sumOfSquares]`);
    }
    nameIndex[i] = intern(spec.name);
    scopeIndex[i] = typeof scope === 'string' && scope !== '' ? intern(scope) : -1;
    const o = i * 6;
    stats[o] = count; stats[o + 1] = total; stats[o + 2] = exclusive; stats[o + 3] = min; stats[o + 4] = max; stats[o + 5] = sumOfSquares;
  }
  return { beginMs: begin * 1000, endMs: end * 1000, names, nameIndex, scopeIndex, stats };
}

/** The harvest's metrics as objects: for reading and tests, not for the ingest path. */
export function metricsOf(payload: MetricDataPayload): { name: string; scope: string; stats: Summary }[] {
  return Array.from(payload.nameIndex, (n, i) => {
    const o = i * 6;
    const s = payload.stats;
    const scope = payload.scopeIndex[i]!;
    return {
      name: payload.names[n]!,
      scope: scope < 0 ? '' : payload.names[scope]!,
      stats: { count: s[o]!, total: s[o + 1]!, exclusive: s[o + 2]!, min: s[o + 3]!, max: s[o + 4]!, sumOfSquares: s[o + 5]! },
    };
  });
}

/** The names the harvest reports as unscoped metrics (scoped ones repeat them per transaction). */
export function unscopedNames(payload: MetricDataPayload): string[] {
  const unscoped = new Uint8Array(payload.names.length);
  for (let i = 0; i < payload.nameIndex.length; i++) if (payload.scopeIndex[i]! < 0) unscoped[payload.nameIndex[i]!] = 1;
  return payload.names.filter((_, i) => unscoped[i] === 1);
}

export function timesliceRows(payload: MetricDataPayload, ctx: IngestContext, ids: ReadonlyMap<string, number>): Rows {
  const rows = new Rows(TIMESLICES);
  const ts = harvestMinute(payload.beginMs, payload.endMs);
  const idOf = Int32Array.from(payload.names, (name) => {
    const id = ids.get(name);
    if (id === undefined) throw new Error(`no id for metric name '${name}'`);
    return id;
  });
  // Straight into the columns (in TIMESLICES order): Rows.push's spread costs more than the row.
  const [account, app, host, instance, metric, scope, time, count, total, exclusive, min, max, sumOfSquares] = rows.columns as [
    Cell[], Cell[], Cell[], Cell[], Cell[], Cell[], Cell[],
    Cell[], Cell[], Cell[], Cell[], Cell[], Cell[],
  ];
  const { nameIndex, scopeIndex, stats: s } = payload;
  for (const target of ctx.targets) {
    for (let i = 0; i < nameIndex.length; i++) {
      const o = i * 6;
      const scopeAt = scopeIndex[i]!;
      account.push(ctx.accountId); app.push(target.appId); host.push(target.hostId); instance.push(target.instanceId);
      metric.push(idOf[nameIndex[i]!]!); scope.push(scopeAt < 0 ? 0 : idOf[scopeAt]!); time.push(ts);
      count.push(s[o]!); total.push(s[o + 1]!); exclusive.push(s[o + 2]!); min.push(s[o + 3]!); max.push(s[o + 4]!); sumOfSquares.push(s[o + 5]!);
    }
  }
  return rows;
}

// ── events ──────────────────────────────────────────────────────────────────────────────────

/**
 * The event list of `[run_id, {reservoir_size, events_seen}, [event, …]]`; older agents leave
 * out the reservoir object.
 */
function eventList(body: Json, what: string): Json[] {
  const rest = dropRunId(expectArray(body, `${what} body`));
  const list = isRecord(rest[0]) ? rest[1] : rest[0];
  if (list === undefined) return [];
  return expectArray(list, `${what} events`);
}

interface AgentEvent { readonly intrinsics: Attributes; readonly user: Attributes; readonly agent: Attributes }

function agentEvents(body: Json, what: string): AgentEvent[] {
  return eventList(body, what).map((entry, i) => {
    const parts = expectArray(entry, `${what} event ${i}`);
    const [intrinsics, user = {}, agent = {}] = parts;
    if (!isRecord(intrinsics) || !isRecord(user) || !isRecord(agent)) {
      throw malformed(`${what} event ${i}: must be [intrinsics, userAttributes, agentAttributes] objects`);
    }
    return { intrinsics, user, agent };
  });
}

/**
 * Agents use ms for most timestamps but seconds (as a float) for TransactionError, and 0 when
 * they have none. A value below 1e11 cannot be ms of this century, so it is seconds.
 */
function eventTime(v: Json, receivedAt: number): number {
  const n = num(v);
  if (n === null || n <= 0) return receivedAt;
  const ms = n < 1e11 ? n * 1000 : n;
  // Refused here (400: the agent discards it) rather than failing the store's commit (503: resent forever).
  if (ms > LAST_TIME_MS) throw malformed(`timestamp ${n} is not a time: expected epoch ms (or s) before the year 10000`);
  return ms;
}

function perEvent<E>(events: readonly E[], ctx: IngestContext, table: AppendTable, row: (e: E) => Cell[]): Rows {
  const rows = new Rows(table);
  const values = events.map(row);
  for (const target of ctx.targets) {
    for (const v of values) rows.push(ctx.accountId, target.appId, target.hostId, target.instanceId, ...v);
  }
  return rows;
}

const json = (v: Json) => attributeJson(v);

export function transactionEventRows(body: Json, ctx: IngestContext): Rows {
  return perEvent(agentEvents(body, 'analytic_event_data'), ctx, TRANSACTION_EVENTS, ({ intrinsics: i, user, agent }) => [
    eventTime(i.timestamp, ctx.receivedAt),
    str(i.name), num(i.duration), num(i.totalTime), num(i.queueDuration),
    typeof i.error === 'boolean' ? i.error : null,
    int(agent['http.statusCode'] ?? agent.httpResponseCode ?? agent['response.status']),
    str(i.traceId), str(i.guid), json(i), json(user), json(agent),
  ]);
}

export function errorEventRows(body: Json, ctx: IngestContext): Rows {
  return perEvent(agentEvents(body, 'error_event_data'), ctx, ERROR_EVENTS, ({ intrinsics: i, user, agent }) => [
    eventTime(i.timestamp, ctx.receivedAt),
    str(i['error.class']), str(i['error.message']), str(i.transactionName), num(i.duration), str(i.traceId),
    json(i), json(user), json(agent),
  ]);
}

export function spanEventRows(body: Json, ctx: IngestContext): Rows {
  return perEvent(agentEvents(body, 'span_event_data'), ctx, SPAN_EVENTS, ({ intrinsics: i, user, agent }) => [
    eventTime(i.timestamp, ctx.receivedAt),
    str(i.name), str(i.category), num(i.duration), str(i.traceId), str(i.guid), str(i.parentId), str(i.transactionId),
    json(i), json(user), json(agent),
  ]);
}

/** `[run_id, [[{type, timestamp}, {attributes}], …]]` (some agents add a reservoir object). */
export function customEventRows(body: Json, ctx: IngestContext): Rows {
  const events = eventList(body, 'custom_event_data').map((entry, i) => {
    const [head, attributes = {}] = expectArray(entry, `custom event ${i}`);
    if (!isRecord(head) || typeof head.type !== 'string' || head.type === '' || !isRecord(attributes)) {
      throw malformed(`custom event ${i}: must be [{type, timestamp}, {attributes}] with a non-empty type`);
    }
    return { head, attributes };
  });
  return perEvent(events, ctx, CUSTOM_EVENTS, ({ head, attributes }) => [
    eventTime(head.timestamp, ctx.receivedAt), head.type as string, json(attributes),
  ]);
}

/** `[{common: {attributes}, logs: [{timestamp, level, message, …}]}, …]`; no run id in the body. */
export function logEventRows(body: Json, ctx: IngestContext): Rows {
  const logs: Attributes[] = [];
  for (const [b, block] of expectArray(body, 'log_event_data body').entries()) {
    if (!isRecord(block)) throw malformed(`log block ${b} must be an object with "logs"`);
    const common = isRecord(block.common) && isRecord(block.common.attributes) ? block.common.attributes : {};
    for (const [i, log] of expectArray(block.logs ?? [], `log block ${b} logs`).entries()) {
      if (!isRecord(log)) throw malformed(`log block ${b}, log ${i} must be an object`);
      const { attributes, ...fields } = log;
      logs.push({ ...common, ...(isRecord(attributes) ? attributes : {}), ...fields });
    }
  }
  return perEvent(logs, ctx, LOG_EVENTS, (log) => [
    eventTime(log.timestamp, ctx.receivedAt),
    str(log.level ?? log['log.level']), str(log.message), str(log['trace.id']), str(log['span.id']), json(log),
  ]);
}

// ── traces ──────────────────────────────────────────────────────────────────────────────────

function traceList(body: Json, what: string): Json[][] {
  const rest = dropRunId(expectArray(body, `${what} body`));
  return expectArray(rest[0] ?? [], what).map((t, i) => expectArray(t, `${what} ${i}`));
}

/** `[run_id, [[timestamp, txName, message, errorClass, {params}, txGuid], …]]`; the timestamp is 0 from Node. */
export function errorTraceRows(body: Json, ctx: IngestContext): Rows {
  return perEvent(traceList(body, 'error_data'), ctx, ERROR_TRACES, (t) => [
    eventTime(t[0], ctx.receivedAt), str(t[1]), str(t[2]), str(t[3]), str(t[5]), json(t[4] ?? {}),
  ]);
}

/** `[run_id, [[startMs, durationMs, txName, uri, encodedTrace, txGuid, …], …]]` */
export function transactionTraceRows(body: Json, ctx: IngestContext): Rows {
  return perEvent(traceList(body, 'transaction_sample_data'), ctx, TRANSACTION_TRACES, (t) => [
    eventTime(t[0], ctx.receivedAt), num(t[1]), str(t[2]), str(t[3]), str(t[5]), json(decodeTrace(t[4])),
  ]);
}

/** `[run_id?, [[txName, url, sqlId, sql, metricName, callCount, total, min, max, params], …]]` */
export function sqlTraceRows(body: Json, ctx: IngestContext): Rows {
  return perEvent(traceList(body, 'sql_trace_data'), ctx, SQL_TRACES, (t) => [
    ctx.receivedAt, str(t[0]), str(t[1]), str(t[2]), str(t[3]), str(t[4]),
    num(t[5]), num(t[6]), num(t[7]), num(t[8]), json(decodeTrace(t[9] ?? {})),
  ]);
}

/**
 * Traces and SQL parameters arrive as base64(zlib(JSON)), or as plain JSON when the agent runs
 * with `simple_compression`. A value that does not decode is kept as it came.
 */
export function decodeTrace(v: Json): Json {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(inflateSync(Buffer.from(v, 'base64'), { maxOutputLength: 16 * 1024 * 1024 }).toString('utf8'));
  } catch {
    return v;
  }
}

