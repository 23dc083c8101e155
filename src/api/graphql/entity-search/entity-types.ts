/** NerdGraph's `entityType` for each domain and type of entity this service holds. */
export const ENTITY_TYPES: Readonly<Record<string, string>> = {
  'APM-APPLICATION': 'APM_APPLICATION_ENTITY',
  'BROWSER-APPLICATION': 'BROWSER_APPLICATION_ENTITY',
  'MOBILE-APPLICATION': 'MOBILE_APPLICATION_ENTITY',
  'APM-KEY_TRANSACTION': 'KEY_TRANSACTION_ENTITY',
};

/** The `entityType` of a domain and type, or null for one this service does not hold. */
export function entityTypeOf(domain: string, type: string): string | null {
  return Object.hasOwn(ENTITY_TYPES, `${domain}-${type}`) ? ENTITY_TYPES[`${domain}-${type}`]! : null;
}
