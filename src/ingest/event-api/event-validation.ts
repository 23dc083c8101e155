import { MAX_ATTRIBUTES, MAX_ATTRIBUTE_NAME_LENGTH, MAX_EVENT_TYPE_LENGTH, MAX_VALUE_LENGTH } from '../../domain/event-limits.js';
import { LAST_TIME_MS } from '../../domain/time/time-range.js';
import { CUSTOM_EVENTS, Rows } from '../../store/append-tables.js';
import { attributeJson } from '../../store/attribute-json.js';
import * as limits from '../ingest-limits.js';

/**
 * The Event API's per-event rules (New Relic's "Limits and restricted characters" and its list of
 * parsing errors). An event that breaks one is dropped and counted under that rule's message; the
 * others are stored. New Relic reports the drops as `NrIntegrationError` events, one per message,
 * worded "X event(s) rejected because …"; so does Timeslice.
 *
 * - `eventType`: required, a non-empty string of at most 255 letters, digits, `:` and `_`;
 *   `Metric`, `MetricRaw`, `Metric<digit>…` and `Public_…` are New Relic's own and dropped, and so are
 *   the types Timeslice writes itself (`ChangeTrackingEvent`, `NrIntegrationError`,
 *   `TimesliceApiCall`), so no tool can forge a deployment, an ingest error or a REST call.
 * - At most 255 attributes; names non-empty and at most 255 characters; string values at most 4096
 *   characters. Values are strings, numbers or booleans: an object or array value drops the event
 *   (the API "only accepts key-value pairs, not map/object or array values"). A number of magnitude
 *   past 1e100 drops the event too: sums and averages over it could not be finite.
 * - `appId` must be an integer, else that attribute alone is dropped (New Relic drops the name and
 *   value, not the event); `accountId` is dropped from the event (reserved); null values are
 *   dropped (New Relic stores no nulls).
 * - `timestamp`: Unix epoch seconds or milliseconds (below 10^11 is read as seconds); a decimal, or
 *   anything that is not a number in the years 1970–9999, gives the event its arrival time. New
 *   Relic also wants it within a day of now; Timeslice keeps any such time, so tools can backfill.
 *
 * A stored event is a `custom_events` row: `event_type` the `eventType`, `timestamp` as above,
 * `app_id` the `appId` when the account has that application (0 otherwise; the attribute is kept
 * either way), host and instance 0, and the other attributes as JSON.
 */
export interface EventContext {
  readonly accountId: number;
  /** Epoch ms the request arrived: the time of events that give none. */
  readonly receivedAt: number;
  /** Whether the account has the APM application with this id. */
  readonly ownsApplication: (appId: number) => boolean;
}

export interface Rejection {
  /** New Relic's wording: `3 event(s) rejected because attribute name exceeded maximum length`. */
  readonly message: string;
  readonly count: number;
  /** One of the dropped events' types, when it had one. */
  readonly eventTypeSample: string | undefined;
}

export interface ReadEvents {
  readonly rows: Rows;
  readonly rejections: readonly Rejection[];
}

/** Why an event is dropped, as New Relic words it after "X event(s) rejected because". */
const REASONS = {
  notObject: 'the event is not a JSON object',
  noEventType: 'missing required attributes eventType',
  eventTypeChars: 'eventType can only contain letters, digits, colons (:) and underscores (_)',
  eventTypeLength: 'eventType exceeded maximum length',
  eventTypeReserved: 'eventType is reserved (Metric, MetricRaw, Metric<digit>…, Public_…, and ChangeTrackingEvent, NrIntegrationError, TimesliceApiCall, which only the service writes)',
  tooManyAttributes: 'event exceeded maximum number of attributes',
  noName: 'attribute is missing attribute name',
  nameLength: 'attribute name exceeded maximum length',
  valueLength: 'attribute value exceeded maximum length',
  nested: 'an attribute value was an object or array (values are strings, numbers or booleans)',
  numberRange: 'a numeric attribute value exceeded the maximum magnitude (1e100)',
} as const;
type Reason = keyof typeof REASONS;

/** The JSON a client sent: one event object or an array of them. Anything else is not an Event API payload. */
export function isEventPayload(body: unknown): boolean {
  return Array.isArray(body) || isRecord(body);
}

export function readEvents(body: unknown, ctx: EventContext): ReadEvents {
  const events = Array.isArray(body) ? body : [body];
  const rows = new Rows(CUSTOM_EVENTS);
  const dropped = new Map<Reason, { count: number; sample: string | undefined }>();
  for (const event of events) {
    const reason = problemOf(event);
    if (reason !== undefined) {
      const entry = dropped.get(reason) ?? { count: 0, sample: undefined };
      entry.count++;
      const type = isRecord(event) && typeof event.eventType === 'string' && event.eventType !== '' ? event.eventType : undefined;
      entry.sample ??= type;
      dropped.set(reason, entry);
      continue;
    }
    const { eventType, timestamp, accountId: _reserved, ...rest } = event as Record<string, unknown>;
    // No prototype: an attribute named `__proto__` is kept as sent rather than lost to the setter.
    const attributes = Object.create(null) as Record<string, unknown>;
    for (const [name, value] of Object.entries(rest)) if (value !== null) attributes[name] = value;
    if (attributes.appId !== undefined && !(typeof attributes.appId === 'number' && Number.isSafeInteger(attributes.appId))) delete attributes.appId;
    const appId = typeof attributes.appId === 'number' && ctx.ownsApplication(attributes.appId) ? attributes.appId : 0;
    rows.push(ctx.accountId, appId, 0, 0, eventTime(timestamp, ctx.receivedAt), eventType as string, attributeJson(attributes));
  }
  const rejections = [...dropped].map(([reason, { count, sample }]) => ({
    message: `${count} event(s) rejected because ${REASONS[reason]}`,
    count,
    eventTypeSample: sample,
  }));
  return { rows, rejections };
}

function problemOf(event: unknown): Reason | undefined {
  if (!isRecord(event)) return 'notObject';
  const type = event.eventType;
  if (typeof type !== 'string' || type === '') return 'noEventType';
  if (!/^[A-Za-z0-9:_]+$/.test(type)) return 'eventTypeChars';
  if (longerThan(type, MAX_EVENT_TYPE_LENGTH)) return 'eventTypeLength';
  if (/^(Metric|MetricRaw|Metric[0-9].*|Public_.*|ChangeTrackingEvent|NrIntegrationError|TimesliceApiCall)$/.test(type)) return 'eventTypeReserved';
  const names = Object.keys(event);
  if (names.length > MAX_ATTRIBUTES) return 'tooManyAttributes';
  for (const name of names) {
    if (name.trim() === '') return 'noName';
    if (longerThan(name, MAX_ATTRIBUTE_NAME_LENGTH)) return 'nameLength';
    const value = event[name];
    if (typeof value === 'object' && value !== null) return 'nested';
    if (typeof value === 'string' && longerThan(value, MAX_VALUE_LENGTH)) return 'valueLength';
    // appId and timestamp have their own rules (dropped, or the arrival time); accountId is dropped.
    if (typeof value === 'number' && !limits.isStorableNumber(value) && !OWN_RULE_NUMBERS.has(name)) return 'numberRange';
  }
  return undefined;
}

function eventTime(value: unknown, receivedAt: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) return receivedAt;
  const ms = value < 1e11 ? value * 1000 : value;
  return ms > LAST_TIME_MS ? receivedAt : ms;
}

const longerThan = limits.longerThan;
const OWN_RULE_NUMBERS: ReadonlySet<string> = new Set(['appId', 'timestamp', 'accountId']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
