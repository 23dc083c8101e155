import { entityGuid, parseEntityGuid, type EntityDomain } from '../../domain/entity-guid.js';
import type { Application } from '../../store/catalog.js';
import type { BrowserApplication } from '../../store/browser-applications.js';
import type { KeyTransaction } from '../../store/key-transactions.js';
import type { MobileApplication } from '../../store/mobile-applications.js';
import type { GraphServices } from './graph-services.js';
import { entityTypeOf } from './entity-search/entity-types.js';

/**
 * The entities the graph API shows, one per thing Timeslice stores: APM applications (made by
 * agents connecting), browser and mobile applications and key transactions (made through the
 * APIs). Each is the store's own record plus its GUID; every field the graph answers is read
 * from the record or computed from stored data when asked.
 */
export type GraphEntity = (
  | { readonly kind: 'apm'; readonly guid: string; readonly accountId: number; readonly record: Application }
  | { readonly kind: 'browser'; readonly guid: string; readonly accountId: number; readonly record: BrowserApplication }
  | { readonly kind: 'mobile'; readonly guid: string; readonly accountId: number; readonly record: MobileApplication }
  | { readonly kind: 'keyTransaction'; readonly guid: string; readonly accountId: number; readonly record: KeyTransaction }
) & {
  /** Search results asked with `options.tagFilter`: only these tag keys are shown. */
  readonly tagFilter?: ReadonlySet<string>;
};

export type EntityKind = GraphEntity['kind'];

export interface EntityKindInfo {
  readonly domain: EntityDomain;
  readonly type: string;
  readonly entityType: string;
  /** `__typename` in search results (`EntityOutline`) and in `entity(guid)` (`Entity`). */
  readonly outlineTypename: string;
  readonly entityTypename: string;
}

/** A kind's facts; its `entityType` is entity search's table's, so the two cannot disagree. */
function kindInfo(domain: EntityDomain, type: string, outlineTypename: string, entityTypename: string): EntityKindInfo {
  const entityType = entityTypeOf(domain, type);
  if (entityType === null) throw new Error(`no entityType for ${domain}/${type}`);
  return { domain, type, entityType, outlineTypename, entityTypename };
}

export const ENTITY_KINDS: Readonly<Record<EntityKind, EntityKindInfo>> = {
  apm: kindInfo('APM', 'APPLICATION', 'ApmApplicationEntityOutline', 'ApmApplicationEntity'),
  browser: kindInfo('BROWSER', 'APPLICATION', 'BrowserApplicationEntityOutline', 'BrowserApplicationEntity'),
  mobile: kindInfo('MOBILE', 'APPLICATION', 'MobileApplicationEntityOutline', 'MobileApplicationEntity'),
  keyTransaction: kindInfo('APM', 'KEY_TRANSACTION', 'KeyTransactionEntityOutline', 'KeyTransactionEntity'),
};

export function guidOf(kind: EntityKind, accountId: number, id: number): string {
  const info = ENTITY_KINDS[kind];
  return entityGuid(accountId, info.domain, info.type, id);
}

export function apmEntity(record: Application): GraphEntity {
  return { kind: 'apm', guid: guidOf('apm', record.accountId, record.id), accountId: record.accountId, record };
}
export function browserEntity(record: BrowserApplication): GraphEntity {
  return { kind: 'browser', guid: guidOf('browser', record.accountId, record.id), accountId: record.accountId, record };
}
export function mobileEntity(record: MobileApplication): GraphEntity {
  return { kind: 'mobile', guid: guidOf('mobile', record.accountId, record.id), accountId: record.accountId, record };
}
export function keyTransactionEntity(record: KeyTransaction): GraphEntity {
  return { kind: 'keyTransaction', guid: guidOf('keyTransaction', record.accountId, record.id), accountId: record.accountId, record };
}

/** The kind a GUID's domain and type name, or undefined for entities Timeslice does not have. */
function kindOf(domain: string, type: string): EntityKind | undefined {
  for (const [kind, info] of Object.entries(ENTITY_KINDS) as [EntityKind, EntityKindInfo][]) {
    if (info.domain === domain && info.type === type) return kind;
  }
  return undefined;
}

/** A GUID's parts when it is well formed: unpadded base64 of four `|`-separated parts, the first numeric. */
export function decodeGuid(guid: string): ReturnType<typeof parseEntityGuid> {
  if (!/^[A-Za-z0-9+/]+$/.test(guid)) return undefined;
  const parts = parseEntityGuid(guid);
  // Only the canonical encoding names an entity: re-encoding must give the same text.
  if (!parts || entityGuid(parts.accountId, parts.domain as EntityDomain, parts.type, parts.domainId) !== guid) return undefined;
  return parts;
}

/** The entity a GUID names, if it exists (in any account: callers check access). */
export function entityByGuid(services: GraphServices, guid: string): GraphEntity | undefined {
  const parts = decodeGuid(guid);
  if (!parts || !/^[1-9]\d*$/.test(parts.domainId) || !Number.isSafeInteger(Number(parts.domainId))) return undefined;
  const kind = kindOf(parts.domain, parts.type);
  const id = Number(parts.domainId);
  let entity: GraphEntity | undefined;
  switch (kind) {
    case 'apm': {
      const r = services.catalog.application(id);
      entity = r && apmEntity(r);
      break;
    }
    case 'browser': {
      const r = services.entities.browserApplications.get(id);
      entity = r && browserEntity(r);
      break;
    }
    case 'mobile': {
      const r = services.entities.mobileApplications.get(id);
      entity = r && mobileEntity(r);
      break;
    }
    case 'keyTransaction': {
      const r = services.entities.keyTransactions.get(id);
      entity = r && keyTransactionEntity(r);
      break;
    }
    case undefined:
      return undefined;
  }
  return entity && entity.accountId === parts.accountId ? entity : undefined;
}

/** Every entity of an account. */
export function accountEntities(services: GraphServices, accountId: number): GraphEntity[] {
  return [
    ...services.catalog.applications(accountId).map(apmEntity),
    ...services.entities.browserApplications.list(accountId).map(browserEntity),
    ...services.entities.mobileApplications.list(accountId).map(mobileEntity),
    ...services.entities.keyTransactions.list(accountId).map(keyTransactionEntity),
  ];
}

/** The entity's display name. */
export function entityName(entity: GraphEntity): string {
  return entity.record.name;
}
