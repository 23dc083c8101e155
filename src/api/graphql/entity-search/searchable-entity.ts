/**
 * What entity search reads of one entity (an APM, browser or mobile application, or a key
 * transaction). The graph API builds one per entity from the store; everything in this folder
 * is plain functions over these.
 */
export interface SearchableEntity {
  /** The entity GUID (search field `id`). */
  readonly guid: string;
  readonly name: string;
  readonly accountId: number;
  /** 'APM' | 'BROWSER' | 'MOBILE' */
  readonly domain: string;
  /** 'APPLICATION' | 'KEY_TRANSACTION' */
  readonly type: string;
  /** The REST v2 id as decimal text, e.g. '77001'. */
  readonly domainId: string;
  /** 'NOT_CONFIGURED', 'NOT_ALERTING', 'WARNING', 'CRITICAL'. */
  readonly alertSeverity: string;
  readonly reporting: boolean;
  /** Epoch milliseconds. */
  readonly indexedAt: number | null;
  readonly firstIndexedAt: number | null;
  readonly lastReportingChangeAt: number | null;
  /** Tag key → its values, e.g. accountId → ['1'], language → ['nodejs']. */
  readonly tags: ReadonlyMap<string, readonly string[]>;
}

/** The search field `domainType`: `APM-APPLICATION`, `BROWSER-APPLICATION`… */
export function domainTypeOf(entity: Pick<SearchableEntity, 'domain' | 'type'>): string {
  return `${entity.domain}-${entity.type}`;
}
