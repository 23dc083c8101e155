import { CUSTOM_EVENTS, LOG_EVENTS, Rows } from '../../store/append-tables.js';
import { attributeJson } from '../../store/attribute-json.js';
import { boundAttributes, isStorableNumber, MAX_LOG_MESSAGE_LENGTH, MAX_NAME_LENGTH, MAX_VALUE_LENGTH, truncate } from '../ingest-limits.js';
import { attributesOf, decodeQuerypack, type NavTimingField, type QpNode, type QpValue } from './querypack.js';
import { userAgentFacts } from './user-agent.js';

/**
 * The browser agent's beacons → stored rows: events (`PageView`, `PageViewTiming`,
 * `BrowserInteraction`, `AjaxRequest`, `JavaScriptError`, `PageAction` and other `ins` events) as
 * custom events, log lines as `Log` events, and the `EndUser*` timeslices of a page view. Pure:
 * the plugin (browser-ingest.ts) authenticates, reads bodies and writes what these return.
 * Times in beacons are milliseconds since the page's origin (navigation start) except where
 * noted; stored durations are seconds, as New Relic's.
 */

/** Who a beacon belongs to, resolved from its key and `a` by the plugin. */
export interface BeaconTarget {
  readonly accountId: number;
  /** The catalog application the rows are filed under (the APM application of an injected page), or 0 for a standalone browser application. */
  readonly appId: number;
  /** `appId` as the events carry it: the `a` the page sent (APM id when injected, browser application id for copy/paste). */
  readonly appIdAttribute: number;
  /** The browser application's name (a browser side is named after its APM application). */
  readonly appName: string;
  readonly entityGuid: string;
  /** Seconds: the browser Apdex T pages are classified by. */
  readonly apdexT: number;
}

/** One beacon as received: its query string, the server's receive time and the page's User-Agent. */
export interface BeaconRequest {
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly receivedAt: number;
  readonly userAgent: string | undefined;
  /** The APM transaction name (`to`, de-obfuscated), when the plugin could read it. */
  readonly transactionName?: string;
}

/** One timeslice of the `EndUser*` family: `[count, total, exclusive, min, max, sumOfSquares]`, seconds. */
export interface BrowserTimeslice {
  readonly name: string;
  readonly stats: readonly [number, number, number, number, number, number];
}

/** A body the agent sent that cannot be read: refused with 400 (the agent drops it). */
export class BeaconError extends Error {}

const EARLIEST_MS = Date.UTC(2000, 0, 1);
const LATEST_MS = Date.UTC(9999, 11, 31);
/** Events of one `err` bucket at most: `metrics.count` occurrences become that many events, up to this. */
export const MAX_EVENTS_PER_ERROR_BUCKET = 1000;
/** Events one beacon may carry (ins events, querypack nodes, error occurrences). */
export const MAX_EVENTS_PER_BEACON = 5000;

/** The page's origin (navigation start) as epoch ms: receive time less `rst` (ms since origin when sent). */
export function pageOrigin(request: BeaconRequest): number {
  const rst = numberParam(request.query.rst);
  return rst !== undefined && rst >= 0 && rst < request.receivedAt - EARLIEST_MS ? request.receivedAt - rst : request.receivedAt;
}

function numberParam(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

function text(value: string | undefined, limit = MAX_VALUE_LENGTH): string | undefined {
  return value === undefined || value === '' ? undefined : truncate(value, limit);
}

/** Attributes every event of a page carries, from the base query and the request headers. */
function commonAttributes(target: BeaconTarget, request: BeaconRequest): Record<string, unknown> {
  const q = request.query;
  const out: Record<string, unknown> = {
    appId: target.appIdAttribute,
    appName: target.appName,
    entityGuid: target.entityGuid,
    ...userAgentFacts(request.userAgent),
  };
  const set = (name: string, value: unknown) => {
    if (value !== undefined) out[name] = value;
  };
  set('session', text(q.s));
  set('sessionTraceId', text(q.ptid));
  set('pageUrl', text(q.ref));
  set('agentVersion', text(q.v, MAX_NAME_LENGTH));
  if (q.sa === '1') out.standalone = true;
  return out;
}

function transactionNames(request: BeaconRequest): { name: string; browserTransactionName: string } {
  const q = request.query;
  const custom = text(q.ct, MAX_NAME_LENGTH);
  const apm = request.transactionName;
  const plain = text(q.t, MAX_NAME_LENGTH);
  const url = text(q.ref, MAX_NAME_LENGTH);
  const name = custom ?? apm ?? plain ?? 'Unnamed Transaction';
  // Copy/paste pages have no transaction name: the page URL (without query) names them.
  const browserTransactionName = custom ?? apm ?? (plain !== undefined && plain !== 'Unnamed Transaction' ? plain : (url ?? name));
  return { name, browserTransactionName };
}

/** An epoch-ms time a beacon gave, or the receive time when it is not a number between 2000 and 9999. */
function eventTime(value: unknown, receivedAt: number): number {
  return typeof value === 'number' && value >= EARLIEST_MS && value <= LATEST_MS ? Math.round(value) : receivedAt;
}

function pushEvent(rows: Rows, target: BeaconTarget, at: number, eventType: string, attributes: Record<string, unknown>): void {
  rows.push(target.accountId, target.appId, 0, 0, Math.round(at), eventType, attributeJson(boundAttributes(attributes)));
}

const seconds = (ms: number | undefined | null) => (ms === undefined || ms === null ? undefined : ms / 1000);

function defined(map: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(map)) if (map[key] === undefined) delete map[key];
  return map;
}

// ── the RUM call: PageView and the page's timeslices ────────────────────────────────────────────

interface RumTiming {
  readonly be: number;
  readonly fe: number;
  readonly dc: number;
  readonly qt: number;
  readonly ap: number;
}

/** The RUM call's timing parameters (ms); refused when `be` or `fe` is missing or not a number. */
function rumTiming(query: BeaconRequest['query']): RumTiming {
  const ms = (name: string, required: boolean): number => {
    const v = numberParam(query[name]);
    if (v === undefined) {
      if (required) throw new BeaconError(`the RUM call needs '${name}' (milliseconds)`);
      return 0;
    }
    if (v < 0 || v > 86_400_000) throw new BeaconError(`'${name}' ${v} is not a page timing in milliseconds`);
    return v;
  };
  return { be: ms('be', true), fe: ms('fe', true), dc: ms('dc', false), qt: ms('qt', false), ap: ms('ap', false) };
}

/** `perf.timing` of the RUM query: navigation timing in ms since origin (`c`, `ce`, `dn`, `dne`, `s`…). */
function perfTiming(query: BeaconRequest['query']): Record<string, number> {
  if (!query.perf) return {};
  try {
    const perf = JSON.parse(query.perf) as { timing?: unknown };
    if (typeof perf !== 'object' || perf === null || typeof perf.timing !== 'object' || perf.timing === null) return {};
    return Object.fromEntries(Object.entries(perf.timing).filter(([, v]) => typeof v === 'number' && isStorableNumber(v))) as Record<string, number>;
  } catch {
    return {};
  }
}

/** The satisfied / tolerating / frustrated class of a page load of `loadSeconds` against Apdex T `t`. */
export function apdexClass(loadSeconds: number, t: number): 's' | 't' | 'f' {
  if (loadSeconds <= t) return 's';
  return loadSeconds <= 4 * t ? 't' : 'f';
}

/**
 * The load time page-load aggregates use: past `max(4.5·T, 13.5 s)` a load is clamped to that value
 * (New Relic's outlier rule); the Apdex class comes from the real value.
 */
export function clampedLoadTime(loadSeconds: number, t: number): number {
  return Math.min(loadSeconds, Math.max(4.5 * t, 13.5));
}

/** What the RUM call of one page view becomes. */
export interface RumCall {
  readonly rows: Rows;
  readonly timeslices: BrowserTimeslice[];
}

/**
 * A RUM call (`POST /1/{key}`, body `{"ja": {…custom attributes}}`) → one `PageView` and the page's
 * timeslices: `EndUser` `[1, load, fe, load, load, app]`, `EndUser/RB` `[1, dc, queue, dc, dc, 0]`,
 * `EndUser/Apdex` `[S, T, F, T, T, 0]`, `Browser` `[1, 0…]`, the same `EndUser` numbers under
 * `EndUser/UserAgent/<device>/Browser`, and with an APM transaction name `EndUser/WebTransaction/<name>`
 * and `EndUser/Apdex/<name>`.
 */
export function rumCallRows(target: BeaconTarget, request: BeaconRequest, body: unknown): RumCall {
  const timing = rumTiming(request.query);
  const custom = customAttributes(body);
  const origin = pageOrigin(request);
  const perf = perfTiming(request.query);
  const load = (timing.be + timing.fe) / 1000;
  const names = transactionNames(request);
  const common = commonAttributes(target, request);
  const attributes = defined({
    ...custom,
    ...common,
    name: names.name,
    browserTransactionName: names.browserTransactionName,
    duration: load,
    backendDuration: timing.be / 1000,
    domProcessingDuration: timing.dc / 1000,
    pageRenderingDuration: Math.max(0, timing.fe - timing.dc) / 1000,
    networkDuration: Math.max(0, timing.be - timing.ap - timing.qt) / 1000,
    webAppDuration: request.query.ap !== undefined ? timing.ap / 1000 : undefined,
    queueDuration: request.query.qt !== undefined ? timing.qt / 1000 : undefined,
    connectionSetupDuration: perf.ce !== undefined && perf.c !== undefined ? (perf.ce - perf.c) / 1000 : undefined,
    dnsLookupDuration: perf.dne !== undefined && perf.dn !== undefined ? (perf.dne - perf.dn) / 1000 : undefined,
    secureHandshakeDuration: perf.ce !== undefined && perf.s !== undefined ? (perf.ce - perf.s) / 1000 : undefined,
    firstPaint: seconds(numberParam(request.query.fp)),
    firstContentfulPaint: seconds(numberParam(request.query.fcp)),
    apdexPerfZone: { s: 'S', t: 'T', f: 'F' }[apdexClass(load, target.apdexT)],
  });
  const rows = new Rows(CUSTOM_EVENTS);
  pushEvent(rows, target, origin, 'PageView', attributes);

  const t = target.apdexT;
  const clamped = clampedLoadTime(load, t);
  const endUser: BrowserTimeslice['stats'] = [1, clamped, timing.fe / 1000, clamped, clamped, timing.ap / 1000];
  const cls = apdexClass(load, t);
  const apdex: BrowserTimeslice['stats'] = [cls === 's' ? 1 : 0, cls === 't' ? 1 : 0, cls === 'f' ? 1 : 0, t, t, 0];
  const timeslices: BrowserTimeslice[] = [
    { name: 'EndUser', stats: endUser },
    { name: 'EndUser/RB', stats: [1, timing.dc / 1000, timing.qt / 1000, timing.dc / 1000, timing.dc / 1000, 0] },
    { name: 'EndUser/Apdex', stats: apdex },
    { name: 'Browser', stats: [1, 0, 0, 0, 0, 0] },
    { name: `EndUser/UserAgent/${String(common.deviceType)}/Browser`, stats: endUser },
  ];
  if (request.transactionName !== undefined) {
    timeslices.push({ name: truncate(`EndUser/WebTransaction/${request.transactionName}`, MAX_NAME_LENGTH), stats: endUser });
    timeslices.push({ name: truncate(`EndUser/Apdex/${request.transactionName}`, MAX_NAME_LENGTH), stats: apdex });
  }
  return { rows, timeslices };
}

/** The RUM body's `ja` (custom attributes); an empty body has none. */
function customAttributes(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new BeaconError('the RUM body must be a JSON object');
  const ja = (body as { ja?: unknown }).ja;
  if (ja === undefined || ja === null) return {};
  if (typeof ja !== 'object' || Array.isArray(ja)) throw new BeaconError("the RUM body's 'ja' must be an object of attributes");
  return { ...(ja as Record<string, unknown>) };
}

// ── /events: PageViewTiming, BrowserInteraction, AjaxRequest ────────────────────────────────────

/** Where each timing's value lands, in seconds (cls: the agent sends it ×1000). */
const TIMING_ATTRIBUTE: Readonly<Record<string, string>> = {
  fp: 'firstPaint', fcp: 'firstContentfulPaint', lcp: 'largestContentfulPaint', fi: 'firstInteraction', inp: 'interactionToNextPaint',
  cls: 'cumulativeLayoutShift', load: 'windowLoad', pageHide: 'pageHide', unload: 'windowUnload',
};
/** Timing attributes New Relic renames. */
const TIMING_RENAMES: Readonly<Record<string, string>> = { eid: 'elementId', size: 'elementSize', type: 'interactionType' };

/** A querypack harvest (`POST /events/1/{key}`) → its events; a QuerypackError for a body that is not querypack. */
export function eventRows(target: BeaconTarget, request: BeaconRequest, body: string): Rows {
  const { nodes } = decodeQuerypack(body);
  const origin = pageOrigin(request);
  const common = commonAttributes(target, request);
  const rows = new Rows(CUSTOM_EVENTS);
  for (const node of nodes) {
    switch (node.type) {
      case 'timing':
        pushTiming(rows, target, origin, common, node);
        break;
      case 'interaction':
        pushInteraction(rows, target, origin, common, node);
        break;
      case 'ajax':
        pushAjax(rows, target, origin, common, node, undefined);
        break;
      default:
        // Other root nodes (custom tracers of the removed SPA feature) carry nothing New Relic stores.
        break;
    }
    if (rows.length > MAX_EVENTS_PER_BEACON) throw new BeaconError(`more than ${MAX_EVENTS_PER_BEACON} events in one harvest`);
  }
  return rows;
}

const num = (v: QpValue | undefined): number | undefined => (typeof v === 'number' ? v : undefined);
const str = (v: QpValue | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

function pushTiming(rows: Rows, target: BeaconTarget, origin: number, common: Record<string, unknown>, node: QpNode): void {
  const name = str(node.fields.name) ?? '';
  const value = num(node.fields.value);
  const attributes: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(attributesOf(node.children))) attributes[TIMING_RENAMES[key] ?? key] = v;
  const slot = TIMING_ATTRIBUTE[name];
  if (slot !== undefined && value !== undefined) attributes[slot] = value / 1000;
  const isTime = name !== 'cls' && value !== undefined;
  pushEvent(rows, target, isTime ? origin + value : origin, 'PageViewTiming', { ...attributes, ...common, timingName: name });
}

function navTimingAttributes(nav: QpNode | null | undefined, start: number): Record<string, unknown> {
  if (!nav) return {};
  const out: Record<string, unknown> = {};
  for (const [field, v] of Object.entries(nav.fields) as [NavTimingField, QpValue][]) {
    if (typeof v === 'number') out[`timeTo${field[0]!.toUpperCase()}${field.slice(1)}`] = (v - start) / 1000;
  }
  return out;
}

function pushInteraction(rows: Rows, target: BeaconTarget, origin: number, common: Record<string, unknown>, node: QpNode): void {
  const f = node.fields;
  const start = num(f.start) ?? 0;
  const end = num(f.end) ?? start;
  const own = attributesOf(node.children);
  const id = str(f.id);
  pushEvent(rows, target, origin + start, 'BrowserInteraction', defined({
    ...own,
    ...common,
    ...navTimingAttributes(node.nodes.navTiming, start),
    browserInteractionId: id,
    browserInteractionName: str(f.customName) ?? str(f.newURL),
    trigger: str(f.trigger),
    category: str(f.category),
    duration: Math.max(0, end - start) / 1000,
    previousUrl: str(f.oldURL),
    targetUrl: str(f.newURL),
    initialPageUrl: str(f.initialPageURL),
    previousRouteName: str(f.previousRouteName),
    targetRouteName: str(f.targetRouteName),
    firstPaint: seconds(num(f.firstPaint)),
    firstContentfulPaint: seconds(num(f.firstContentfulPaint)),
    queueTime: seconds(num(f.queueTime)),
    appTime: seconds(num(f.appTime)),
  }));
  for (const child of node.children) {
    if (child.type === 'ajax') pushAjax(rows, target, origin, common, child, { id, start, name: str(f.customName) ?? str(f.newURL), category: str(f.category) });
  }
}

function pushAjax(
  rows: Rows, target: BeaconTarget, origin: number, common: Record<string, unknown>, node: QpNode,
  interaction: { id: string | undefined; start: number; name: string | undefined; category: string | undefined } | undefined,
): void {
  const f = node.fields;
  const start = num(f.start) ?? 0;
  const end = num(f.end) ?? start;
  const callbackEnd = num(f.callbackEnd) ?? end;
  const domain = str(f.domain) ?? '';
  const colon = domain.lastIndexOf(':');
  const hostname = colon > 0 ? domain.slice(0, colon) : domain;
  const port = colon > 0 ? Number(domain.slice(colon + 1)) : undefined;
  pushEvent(rows, target, origin + start, 'AjaxRequest', defined({
    ...attributesOf(node.children),
    ...common,
    httpMethod: str(f.method),
    httpResponseCode: num(f.status),
    hostname,
    port: port !== undefined && Number.isInteger(port) ? port : undefined,
    requestUrl: `${domain}${str(f.path) ?? ''}`,
    requestBodySize: num(f.requestBodySize),
    responseBodySize: num(f.responseBodySize),
    requestedWith: str(f.requestedWith),
    duration: Math.max(0, end - start) / 1000,
    timeToLoadEventStart: Math.max(0, end - start) / 1000,
    timeToLastCallbackEnd: Math.max(0, callbackEnd - start) / 1000,
    guid: str(f.guid),
    traceId: str(f.traceId),
    ...(interaction ? {
      browserInteractionId: interaction.id,
      browserInteractionName: interaction.name,
      browserInteractionCategory: interaction.category,
      timeSinceBrowserInteractionStart: Math.max(0, start - interaction.start) / 1000,
    } : {}),
  }));
}

// ── /jserrors: JavaScriptError ──────────────────────────────────────────────────────────────────

/** A `/jserrors/1` harvest → its `JavaScriptError` events and how many errors occurred (`EndUser/errors`). */
export function jsErrorRows(target: BeaconTarget, request: BeaconRequest, body: unknown): { rows: Rows; occurrences: number } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BeaconError('a /jserrors body must be a JSON object');
  const b = body as Record<string, unknown>;
  for (const key of ['err', 'ierr', 'xhr', 'sm', 'cm']) {
    if (b[key] !== undefined && !Array.isArray(b[key])) throw new BeaconError(`'${key}' must be a list`);
  }
  const rows = new Rows(CUSTOM_EVENTS);
  const common = commonAttributes(target, request);
  let occurrences = 0;
  for (const bucket of (b.err as unknown[] | undefined) ?? []) {
    if (typeof bucket !== 'object' || bucket === null || Array.isArray(bucket)) throw new BeaconError("each 'err' entry must be an object");
    const { params, custom, metrics } = bucket as { params?: unknown; custom?: unknown; metrics?: unknown };
    if (typeof params !== 'object' || params === null || Array.isArray(params)) throw new BeaconError("an 'err' entry needs 'params', an object");
    const p = params as Record<string, unknown>;
    const count = typeof metrics === 'object' && metrics !== null ? (metrics as { count?: unknown }).count : 1;
    if (count !== undefined && (typeof count !== 'number' || !Number.isInteger(count) || count < 0)) {
      throw new BeaconError("an 'err' entry's metrics.count must be a whole number");
    }
    const n = (count as number | undefined) ?? 1;
    occurrences += n;
    const at = eventTime(p.timestamp, request.receivedAt);
    const attributes = defined({
      ...(typeof custom === 'object' && custom !== null && !Array.isArray(custom) ? custom as Record<string, unknown> : {}),
      ...common,
      errorClass: typeof p.exceptionClass === 'string' ? p.exceptionClass : undefined,
      errorMessage: typeof p.message === 'string' ? p.message : undefined,
      stackTrace: typeof p.stack_trace === 'string' ? p.stack_trace : undefined,
      stackHash: typeof p.stackHash === 'number' ? p.stackHash : undefined,
      browserStackHash: typeof p.browser_stack_hash === 'number' ? p.browser_stack_hash : undefined,
      requestUri: typeof p.request_uri === 'string' ? p.request_uri : undefined,
      releaseIds: typeof p.releaseIds === 'string' ? p.releaseIds : undefined,
      browserInteractionId: typeof p.browserInteractionId === 'string' ? p.browserInteractionId : undefined,
      firstErrorInSession: p.pageview === 1 ? true : undefined,
      errorGroup: typeof p.errorGroup === 'string' ? p.errorGroup : undefined,
    });
    // One event per occurrence, so count(*) counts errors (the bucket stands for n of them).
    for (let i = 0; i < Math.min(n, MAX_EVENTS_PER_ERROR_BUCKET); i++) pushEvent(rows, target, at, 'JavaScriptError', attributes);
    if (rows.length > MAX_EVENTS_PER_BEACON) throw new BeaconError(`more than ${MAX_EVENTS_PER_BEACON} events in one harvest`);
  }
  return { rows, occurrences };
}

// ── /ins: PageAction, UserAction, custom events ─────────────────────────────────────────────────

const EVENT_TYPE = /^[A-Za-z0-9_:]{1,255}$/;

/** An `/ins/1` harvest (`{"ins": [event, …]}`) → the events; one without a valid `eventType` is dropped. */
export function insRows(target: BeaconTarget, request: BeaconRequest, body: unknown): { rows: Rows; dropped: number } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BeaconError('an /ins body must be a JSON object');
  const list = (body as { ins?: unknown }).ins;
  if (list === undefined) return { rows: new Rows(CUSTOM_EVENTS), dropped: 0 };
  if (!Array.isArray(list)) throw new BeaconError("'ins' must be a list of events");
  if (list.length > MAX_EVENTS_PER_BEACON) throw new BeaconError(`more than ${MAX_EVENTS_PER_BEACON} events in one harvest`);
  const rows = new Rows(CUSTOM_EVENTS);
  const common = commonAttributes(target, request);
  let dropped = 0;
  for (const event of list) {
    if (typeof event !== 'object' || event === null || Array.isArray(event)) {
      dropped++;
      continue;
    }
    const e = event as Record<string, unknown>;
    const type = e.eventType;
    if (typeof type !== 'string' || !EVENT_TYPE.test(type)) {
      dropped++;
      continue;
    }
    const at = eventTime(e.timestamp, request.receivedAt);
    const { eventType: _type, timestamp: _at, ...own } = e;
    // The event's own pageUrl (its initial URL without query) wins over the query's `ref`.
    pushEvent(rows, target, at, type, { ...common, ...own });
  }
  return { rows, dropped };
}

// ── /browser/logs: Log ──────────────────────────────────────────────────────────────────────────

/** A `/browser/logs` body (`[{common: {attributes}, logs: [{timestamp, message, level, attributes}]}]`) → `Log` events. */
export function logRows(target: BeaconTarget, request: BeaconRequest, body: unknown): Rows {
  if (!Array.isArray(body)) throw new BeaconError('a /browser/logs body must be a JSON list');
  const rows = new Rows(LOG_EVENTS);
  for (const block of body) {
    if (typeof block !== 'object' || block === null) throw new BeaconError('each /browser/logs entry must be an object');
    const { common, logs } = block as { common?: { attributes?: unknown }; logs?: unknown };
    if (!Array.isArray(logs)) throw new BeaconError("each /browser/logs entry needs 'logs', a list");
    const shared = typeof common?.attributes === 'object' && common.attributes !== null ? common.attributes as Record<string, unknown> : {};
    for (const line of logs) {
      if (typeof line !== 'object' || line === null) throw new BeaconError('each log line must be an object');
      const l = line as Record<string, unknown>;
      const at = eventTime(l.timestamp, request.receivedAt);
      const own = typeof l.attributes === 'object' && l.attributes !== null ? l.attributes as Record<string, unknown> : {};
      const message = typeof l.message === 'string' ? truncate(l.message, MAX_LOG_MESSAGE_LENGTH) : '';
      const level = typeof l.level === 'string' ? truncate(l.level, MAX_NAME_LENGTH) : null;
      const attributes = boundAttributes({ ...shared, ...own, appId: target.appIdAttribute, appName: target.appName, 'entity.guid': target.entityGuid });
      rows.push(target.accountId, target.appId, 0, 0, at, level, message, null, null, attributeJson(attributes));
      if (rows.length > MAX_EVENTS_PER_BEACON) throw new BeaconError(`more than ${MAX_EVENTS_PER_BEACON} log lines in one harvest`);
    }
  }
  return rows;
}
