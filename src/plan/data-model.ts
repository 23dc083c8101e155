/**
 * Logical facts about the stored data that the query stages rely on, whatever engine holds it:
 * which event types agents report (each into storage of its own, with catalog ids for their
 * application, host and instance), and the internal field names of those ids. Where a field
 * lives physically is each store's business (`store/duckdb/sources.ts`).
 */

/** The event types agents report; every other type is a custom event (Event API, agents' custom events). */
export const AGENT_EVENT_TYPES = ['Transaction', 'TransactionError', 'Span', 'Log'] as const;
export type AgentEventType = (typeof AGENT_EVENT_TYPES)[number];

/** Event type names are case-sensitive, as in New Relic. */
export function isAgentEventType(eventType: string): eventType is AgentEventType {
  return (AGENT_EVENT_TYPES as readonly string[]).includes(eventType);
}

/**
 * Internal fields every event has (custom events included, 0 where the Event API wrote them):
 * the catalog ids the analyzer rewrites `appName`, `host`, `entity.guid` to. `appId` is also
 * New Relic's attribute of that name. The `@` keeps them apart from attribute names.
 */
export const EVENT_ID_FIELDS = { appId: '@appId', hostId: '@hostId', instanceId: '@instanceId' } as const;
