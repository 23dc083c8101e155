/**
 * What one stored name, attribute or value may hold, wherever data enters (agents, the Event API).
 * Each limit is checked before anything is built from the value, so nothing stored can break a later
 * read or take a request's memory without bound. docs/limits.md lists them with what a client gets.
 * New Relic's per-event limits themselves are domain/event-limits.ts's, shared with the graph API.
 */
import { MAX_ATTRIBUTES, MAX_ATTRIBUTE_NAME_LENGTH, MAX_VALUE_LENGTH } from '../domain/event-limits.js';

/** Characters (code points) of a metric, scope, transaction, application or attribute name: New Relic's 255, an attribute name's. */
export const MAX_NAME_LENGTH = MAX_ATTRIBUTE_NAME_LENGTH;
/** Characters of a string attribute value: the Event API's 4096. */
export { MAX_VALUE_LENGTH };
/** Characters of a log line's `message`: loggers write stack traces into it, so more than other values. */
export const MAX_LOG_MESSAGE_LENGTH = 32_768;
/** Attributes of one map (an event's intrinsics, user or agent attributes): the Event API's 255. */
export { MAX_ATTRIBUTES };
/**
 * The largest magnitude a stored number may have. Sums, averages, sums of squares and standard
 * deviations over any number of rows a store can hold stay finite below it (1e100² × 2^64 ≈ 1.8e219),
 * while no timing, count or byte total comes near it; 1e308 would make a window's sum Infinity.
 */
export const MAX_NUMBER_MAGNITUDE = 1e100;
/** Nesting of the JSON kept for a trace tree or an error's parameters; deeper would overflow stacks that print or read it. */
export const MAX_JSON_DEPTH = 1000;

/** More than `limit` characters (code points)? Counted only when the UTF-16 length could exceed it. */
export function longerThan(text: string, limit: number): boolean {
  return text.length > limit && codePointsUpTo(text, limit + 1) > limit;
}

/** The first `limit` characters (code points) of `text`: a surrogate pair is never cut in half. */
export function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let units = 0;
  for (let points = 0; points < limit && units < text.length; points++) units += isPairAt(text, units) ? 2 : 1;
  return units >= text.length ? text : text.slice(0, units);
}

export function isStorableNumber(value: number): boolean {
  return Number.isFinite(value) && Math.abs(value) <= MAX_NUMBER_MAGNITUDE;
}

/**
 * An attribute map as it may be stored: agents send scalar values, so an object or array value is
 * dropped (agents themselves refuse them in their APIs), as are numbers past MAX_NUMBER_MAGNITUDE,
 * names longer than MAX_NAME_LENGTH and attributes past MAX_ATTRIBUTES; strings are cut at
 * `valueLimit(name)` characters. A map within the limits (every map a New Relic agent sends) is
 * returned as it is.
 */
export function boundAttributes(
  map: Readonly<Record<string, unknown>>,
  valueLimit: (name: string) => number = () => MAX_VALUE_LENGTH,
): Record<string, unknown> {
  // This runs for every attribute of every event: one pass with the cheap checks first, and a copy only
  // when something must change. Every limit of valueLimit is at least MAX_NAME_LENGTH.
  let count = 0;
  for (const name in map) {
    if (++count > MAX_ATTRIBUTES || (name.length > MAX_NAME_LENGTH && longerThan(name, MAX_NAME_LENGTH))) return bounded(map, valueLimit);
    const value = map[name];
    switch (typeof value) {
      case 'string':
        if (value.length > MAX_NAME_LENGTH && longerThan(value, valueLimit(name))) return bounded(map, valueLimit);
        break;
      case 'number':
        if (!(value <= MAX_NUMBER_MAGNITUDE && value >= -MAX_NUMBER_MAGNITUDE)) return bounded(map, valueLimit);
        break;
      case 'boolean':
        break;
      default:
        if (value !== null) return bounded(map, valueLimit);
    }
  }
  return map as Record<string, unknown>;
}

function bounded(map: Readonly<Record<string, unknown>>, valueLimit: (name: string) => number): Record<string, unknown> {
  // No prototype: a `__proto__` attribute stays an attribute.
  const out = Object.create(null) as Record<string, unknown>;
  let kept = 0;
  for (const name of Object.keys(map)) {
    if (kept === MAX_ATTRIBUTES) break;
    if (longerThan(name, MAX_NAME_LENGTH)) continue;
    const value = map[name];
    if (typeof value === 'string') out[name] = truncate(value, valueLimit(name));
    else if (value === null || typeof value === 'boolean' || (typeof value === 'number' && isStorableNumber(value))) out[name] = value;
    else continue;
    kept++;
  }
  return out;
}

/** Whether `value` nests objects and arrays more than `limit` levels deep; iterative, so any depth is safe to ask about. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

function isPairAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff || i + 1 >= text.length) return false;
  const d = text.charCodeAt(i + 1);
  return d >= 0xdc00 && d <= 0xdfff;
}

/** Code points of `text`, counting no further than `cap`. */
function codePointsUpTo(text: string, cap: number): number {
  let points = 0;
  for (let i = 0; i < text.length && points < cap; points++) i += isPairAt(text, i) ? 2 : 1;
  return points;
}
