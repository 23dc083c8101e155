import type { Summary } from '../../domain/timeslice.js';
import { harvestMinute } from '../../domain/timeslice.js';
import { LAST_TIME_MS } from '../../domain/time/time-range.js';
import type { RunTarget } from '../../store/catalog.js';
import {
  CUSTOM_EVENTS, ERROR_EVENTS, ERROR_TRACES, LOG_EVENTS, Rows, SPAN_EVENTS, SQL_TRACES, TIMESLICES,
  TRANSACTION_EVENTS, TRANSACTION_TRACES, type AppendTable, type Cell,
} from '../../store/append-tables.js';
import { inflateSync } from 'node:zlib';
import { malformed } from './collector-error.js';
import { attributeJson } from '../../store/attribute-json.js';
import {
  boundAttributes, isStorableNumber, MAX_JSON_DEPTH, MAX_LOG_MESSAGE_LENGTH, MAX_NAME_LENGTH,
  MAX_VALUE_LENGTH, nestedDeeperThan, truncate,
} from '../ingest-limits.js';

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
const isStorable = (v: Json): v is number => typeof v === 'number' && isStorableNumber(v);

function expectArray(v: Json, what: string): Json[] {
  if (!Array.isArray(v)) throw malformed(`${what} must be a JSON array`);
  return v;
}

/** A text column: strings are cut at `limit` characters (the value limit unless a name). */
function str(v: Json, limit: number = MAX_VALUE_LENGTH): string | null {
  if (typeof v === 'string') return truncate(v, limit);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/** A name column (transaction, metric, error class): New Relic's 255 characters. */
const nameStr = (v: Json) => str(v, MAX_NAME_LENGTH);

function num(v: Json): number | null {
  if (isStorable(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && v.length < 400 && isStorableNumber(Number(v))) return Number(v);
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
  /** Metrics left out because a number was past MAX_NUMBER_MAGNITUDE, and the first one's name. */
  readonly outOfRange: number;
  readonly outOfRangeSample: string | null;
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
  let nameIndex = new Int32Array(entries.length);
  let scopeIndex = new Int32Array(entries.length);
  let stats = new Float64Array(entries.length * 6);
  let kept = 0;
  let outOfRange = 0;
  let outOfRangeSample: string | null = null;
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
      throw malformed(`metric ${i} (${truncate(spec.name, MAX_NAME_LENGTH)}): values must be six finite numbers [count, total, exclusive, min, max, sumOfSquares]`);
    }
    // Well formed but past what sums can hold: this metric is left out (and reported), the harvest stored.
    if (!isStorable(count) || !isStorable(total) || !isStorable(exclusive) || !isStorable(min) || !isStorable(max) || !isStorable(sumOfSquares)) {
      outOfRange++;
      outOfRangeSample ??= truncate(spec.name, MAX_NAME_LENGTH);
      continue;
    }
    // Longer names are cut, as New Relic cuts them: two names alike in their first 255 characters are one metric.
    nameIndex[kept] = intern(spec.name.length > MAX_NAME_LENGTH ? truncate(spec.name, MAX_NAME_LENGTH) : spec.name);
    scopeIndex[kept] = typeof scope === 'string' && scope !== '' ? intern(scope.length > MAX_NAME_LENGTH ? truncate(scope, MAX_NAME_LENGTH) : scope) : -1;
    const o = kept * 6;
    stats[o] = count; stats[o + 1] = total; stats[o + 2] = exclusive; stats[o + 3] = min; stats[o + 4] = max; stats[o + 5] = sumOfSquares;
    kept++;
  }
  if (kept < entries.length) {
    nameIndex = nameIndex.slice(0, kept);
    scopeIndex = scopeIndex.slice(0, kept);
    stats = stats.slice(0, kept * 6);
  }
  return { beginMs: begin * 1000, endMs: end * 1000, names, nameIndex, scopeIndex, stats, outOfRange, outOfRangeSample };
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

/**
 * The harvest's timeslices, one row per metric and target. A metric whose name or scope has no id
 * is left out: the metric index gives none to names past an application's limit.
 */
export function timesliceRows(payload: MetricDataPayload, ctx: IngestContext, ids: ReadonlyMap<string, number>): Rows {
  const rows = new Rows(TIMESLICES);
  const ts = harvestMinute(payload.beginMs, payload.endMs);
  const idOf = Int32Array.from(payload.names, (name) => ids.get(name) ?? -1);
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
      if (idOf[nameIndex[i]!]! < 0 || (scopeAt >= 0 && idOf[scopeAt]! < 0)) continue;
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

interface AgentEvent {
  /** The timestamp as sent: checked before the attributes are bounded, so a time past the year 9999 is refused, not dropped. */
  readonly timestamp: Json;
  readonly intrinsics: Attributes;
  readonly user: Attributes;
  readonly agent: Attributes;
}

/** Intrinsics that are transaction or span names get New Relic's name limit; other values the value limit. */
const NAME_INTRINSICS: ReadonlySet<string> = new Set(['name', 'transactionName', 'transaction.name', 'nr.transactionName']);
const intrinsicLimit = (attribute: string) => (NAME_INTRINSICS.has(attribute) ? MAX_NAME_LENGTH : MAX_VALUE_LENGTH);

function agentEvents(body: Json, what: string): AgentEvent[] {
  return eventList(body, what).map((entry, i) => {
    const parts = expectArray(entry, `${what} event ${i}`);
    const [intrinsics, user = {}, agent = {}] = parts;
    if (!isRecord(intrinsics) || !isRecord(user) || !isRecord(agent)) {
      throw malformed(`${what} event ${i}: must be [intrinsics, userAttributes, agentAttributes] objects`);
    }
    return { timestamp: intrinsics.timestamp, intrinsics: boundAttributes(intrinsics, intrinsicLimit), user: boundAttributes(user), agent: boundAttributes(agent) };
  });
}

/**
 * Agents use ms for most timestamps but seconds (as a float) for TransactionError, and 0 when
 * they have none. A value below 1e11 cannot be ms of this century, so it is seconds.
 */
function eventTime(v: Json, receivedAt: number): number {
  const n = isFiniteNumber(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null;
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
  return perEvent(agentEvents(body, 'analytic_event_data'), ctx, TRANSACTION_EVENTS, ({ timestamp, intrinsics: i, user, agent }) => [
    eventTime(timestamp, ctx.receivedAt),
    nameStr(i.name), num(i.duration), num(i.totalTime), num(i.queueDuration),
    typeof i.error === 'boolean' ? i.error : null,
    int(agent['http.statusCode'] ?? agent.httpResponseCode ?? agent['response.status']),
    str(i.traceId), str(i.guid), json(i), json(user), json(agent),
  ]);
}

export function errorEventRows(body: Json, ctx: IngestContext): Rows {
  return perEvent(agentEvents(body, 'error_event_data'), ctx, ERROR_EVENTS, ({ timestamp, intrinsics: i, user, agent }) => [
    eventTime(timestamp, ctx.receivedAt),
    nameStr(i['error.class']), str(i['error.message']), nameStr(i.transactionName), num(i.duration), str(i.traceId),
    json(i), json(user), json(agent),
  ]);
}

export function spanEventRows(body: Json, ctx: IngestContext): Rows {
  return perEvent(agentEvents(body, 'span_event_data'), ctx, SPAN_EVENTS, ({ timestamp, intrinsics: i, user, agent }) => [
    eventTime(timestamp, ctx.receivedAt),
    nameStr(i.name), str(i.category), num(i.duration), str(i.traceId), str(i.guid), str(i.parentId), str(i.transactionId),
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
    return { head, attributes: boundAttributes(attributes) };
  });
  return perEvent(events, ctx, CUSTOM_EVENTS, ({ head, attributes }) => [
    eventTime(head.timestamp, ctx.receivedAt), nameStr(head.type), json(attributes),
  ]);
}

/** `[{common: {attributes}, logs: [{timestamp, level, message, …}]}, …]`; no run id in the body. */
export function logEventRows(body: Json, ctx: IngestContext): Rows {
  const logs: { timestamp: Json; log: Attributes }[] = [];
  for (const [b, block] of expectArray(body, 'log_event_data body').entries()) {
    if (!isRecord(block)) throw malformed(`log block ${b} must be an object with "logs"`);
    const common = isRecord(block.common) && isRecord(block.common.attributes) ? block.common.attributes : {};
    for (const [i, log] of expectArray(block.logs ?? [], `log block ${b} logs`).entries()) {
      if (!isRecord(log)) throw malformed(`log block ${b}, log ${i} must be an object`);
      const { attributes, ...fields } = log;
      logs.push({ timestamp: log.timestamp, log: boundAttributes({ ...common, ...(isRecord(attributes) ? attributes : {}), ...fields }, logValueLimit) });
    }
  }
  return perEvent(logs, ctx, LOG_EVENTS, ({ timestamp, log }) => [
    eventTime(timestamp, ctx.receivedAt),
    str(log.level ?? log['log.level']), str(log.message, MAX_LOG_MESSAGE_LENGTH), str(log['trace.id']), str(log['span.id']), json(log),
  ]);
}

const logValueLimit = (attribute: string) => (attribute === 'message' ? MAX_LOG_MESSAGE_LENGTH : MAX_VALUE_LENGTH);

// ── traces ──────────────────────────────────────────────────────────────────────────────────

/**
 * Transaction traces kept from one payload. Agents send their slowest transaction or a few per
 * harvest (the Java agent's `top_n` at most 20); the rest of a longer list is dropped.
 */
export const MAX_TRANSACTION_TRACES = 20;
/** SQL traces kept from one payload: agents send their slowest 10 statements per harvest (`slow_sql.max_samples`), configurable. */
export const MAX_SQL_TRACES = 50;
/** Bytes one trace tree (or SQL parameter set) may inflate to, and characters of the JSON kept for it. */
export const MAX_TRACE_FIELD_BYTES = 4 * 1024 * 1024;
/** Characters of trace JSON kept from one payload; traces past it are dropped. */
export const MAX_TRACE_PAYLOAD_CHARS = 8 * 1024 * 1024;

/** The entries of a trace list, each at least `minFields` long; entries past `max` are dropped unread. */
function traceList(body: Json, what: string, minFields: number, max = Infinity): Json[][] {
  const rest = dropRunId(expectArray(body, `${what} body`));
  const list = expectArray(rest[0] ?? [], what);
  return list.slice(0, max).map((t, i) => {
    const entry = expectArray(t, `${what} ${i}`);
    if (entry.length < minFields) throw malformed(`${what} ${i}: an entry has at least ${minFields} fields, this one ${entry.length}`);
    return entry;
  });
}

/** `[run_id, [[timestamp, txName, message, errorClass, {params}, txGuid], …]]`; the timestamp is 0 from Node. */
export function errorTraceRows(body: Json, ctx: IngestContext): Rows {
  return perEvent(traceList(body, 'error_data', 5), ctx, ERROR_TRACES, (t) => {
    const params = t[4] ?? {};
    if (nestedDeeperThan(params, MAX_JSON_DEPTH)) throw malformed(`error_data: parameters nest more than ${MAX_JSON_DEPTH} levels`);
    return [eventTime(t[0], ctx.receivedAt), nameStr(t[1]), str(t[2]), nameStr(t[3]), str(t[5]), json(params)];
  });
}

/** `[run_id, [[startMs, durationMs, txName, uri, encodedTrace, txGuid, …], …]]` */
export function transactionTraceRows(body: Json, ctx: IngestContext): Rows {
  const budget = { remaining: MAX_TRACE_PAYLOAD_CHARS };
  const kept: Cell[][] = [];
  for (const t of traceList(body, 'transaction_sample_data', 5, MAX_TRANSACTION_TRACES)) {
    const start = eventTime(t[0], ctx.receivedAt);
    const trace = traceText(t[4], budget);
    if (trace !== undefined) kept.push([start, num(t[1]), nameStr(t[2]), str(t[3]), str(t[5]), trace]);
  }
  return perEvent(kept, ctx, TRANSACTION_TRACES, (row) => row);
}

/** `[run_id?, [[txName, url, sqlId, sql, metricName, callCount, total, min, max, params], …]]` */
export function sqlTraceRows(body: Json, ctx: IngestContext): Rows {
  const budget = { remaining: MAX_TRACE_PAYLOAD_CHARS };
  const kept: Cell[][] = [];
  for (const t of traceList(body, 'sql_trace_data', 9, MAX_SQL_TRACES)) {
    const params = traceText(t[9] ?? {}, budget);
    if (params === undefined) continue;
    kept.push([ctx.receivedAt, nameStr(t[0]), str(t[1]), str(t[2]), str(t[3]), nameStr(t[4]), num(t[5]), num(t[6]), num(t[7]), num(t[8]), params]);
  }
  return perEvent(kept, ctx, SQL_TRACES, (row) => row);
}

/**
 * The JSON text kept for a trace tree or SQL parameter set, within the field's and the payload's
 * limits: the decoded tree, or the value as the agent sent it when it does not decode within them
 * (past MAX_TRACE_FIELD_BYTES inflated, or nested past MAX_JSON_DEPTH); undefined when even that
 * does not fit, and the trace is dropped. Plain JSON (`simple_compression`) nested too deep is refused.
 */
function traceText(v: Json, budget: { remaining: number }): string | undefined {
  if (typeof v !== 'string' && nestedDeeperThan(v, MAX_JSON_DEPTH)) throw malformed(`a trace nests more than ${MAX_JSON_DEPTH} levels`);
  const limit = Math.min(MAX_TRACE_FIELD_BYTES, budget.remaining);
  if (limit <= 0) return undefined;
  const text = json(decodeTrace(v, limit));
  if (text.length > limit) return undefined;
  budget.remaining -= text.length;
  return text;
}

/**
 * Traces and SQL parameters arrive as base64(zlib(JSON)), or as plain JSON when the agent runs
 * with `simple_compression`. A value that does not decode within `maxBytes` inflated and
 * MAX_JSON_DEPTH levels is kept as it came.
 */
export function decodeTrace(v: Json, maxBytes: number = MAX_TRACE_FIELD_BYTES): Json {
  if (typeof v !== 'string') return v;
  try {
    const tree: Json = JSON.parse(inflateSync(Buffer.from(v, 'base64'), { maxOutputLength: maxBytes }).toString('utf8'));
    return nestedDeeperThan(tree, MAX_JSON_DEPTH) ? v : tree;
  } catch {
    return v;
  }
}
