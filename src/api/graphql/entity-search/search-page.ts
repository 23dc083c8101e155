/**
 * The fields of NerdGraph's `EntitySearch` computed from the entities a search matched:
 * `results` (searchPage), `types` (searchTypes) and `counts` (searchCounts).
 */
import { createHash } from 'node:crypto';
import { ENTITY_SEARCH_ERROR_CODES, EntitySearchError } from './entity-search-error.js';
import { entityTypeOf } from './entity-types.js';
import { domainTypeOf, type SearchableEntity } from './searchable-entity.js';

/** Most entities in one page of `results`; `limit` can only lower it. */
export const PAGE_SIZE = 200;

export type SortAttribute = 'NAME' | 'DOMAIN' | 'TYPE' | 'REPORTING' | 'ALERT_SEVERITY' | 'MOST_RELEVANT';
export type SortDirection = 'ASC' | 'DESC';

/**
 * One sort criterion: NerdGraph's `sortBy` entries and `sortByWithDirection` (exactly one of
 * `attribute` and `tag`; direction ASC when absent).
 */
export interface SearchSort {
  readonly attribute?: SortAttribute | null;
  readonly tag?: string | null;
  readonly direction?: SortDirection | null;
}

export interface SearchPageRequest {
  /** Empty or absent: name ascending. */
  readonly sort?: readonly SearchSort[] | null;
  /** Page size, 1 or more; above `PAGE_SIZE` it is `PAGE_SIZE`. Absent: `PAGE_SIZE`. */
  readonly limit?: number | null;
  /** `nextCursor` of the previous page; absent for the first page. */
  readonly cursor?: string | null;
  /**
   * The query text that selected `entities` (for a query builder, the generated text). A cursor
   * only continues the query and sort it was issued for; pass anything else that changes which
   * entities match as part of this text.
   */
  readonly queryText: string;
}

export interface SearchPage<E> {
  readonly entities: E[];
  /** Null on the last page. */
  readonly nextCursor: string | null;
}

type KeyPart = string | number | null;

/**
 * How each criterion sorts, as a tuple of parts compared in order. Texts sort by their lower-case
 * form first, then as written, so the order is total and does not depend on the locale.
 */
const SORT_KEYS: Readonly<Record<SortAttribute, { readonly parts: (e: SearchableEntity) => KeyPart[]; readonly types: readonly ('string' | 'number')[] }>> = {
  NAME: { parts: (e) => folded(e.name), types: ['string', 'string'] },
  // There is no relevance model here; ranking by name keeps the results useful and pageable.
  MOST_RELEVANT: { parts: (e) => folded(e.name), types: ['string', 'string'] },
  DOMAIN: { parts: (e) => folded(e.domain), types: ['string', 'string'] },
  TYPE: { parts: (e) => folded(e.type), types: ['string', 'string'] },
  // Not reporting before reporting, ascending.
  REPORTING: { parts: (e) => [e.reporting ? 1 : 0], types: ['number'] },
  // By severity, least severe first ascending; an unknown severity after the known ones.
  ALERT_SEVERITY: { parts: (e) => [SEVERITY_RANK.get(e.alertSeverity) ?? SEVERITY_RANK.size, e.alertSeverity], types: ['number', 'string'] },
};

const SEVERITY_RANK: ReadonlyMap<string, number> = new Map([
  ['NOT_CONFIGURED', 0],
  ['NOT_ALERTING', 1],
  ['WARNING', 2],
  ['CRITICAL', 3],
]);

/** A place in the sorted order: a sort key and the GUID that breaks ties. */
interface Position {
  readonly parts: readonly KeyPart[];
  readonly guid: string;
}

interface Keyed<E> extends Position {
  readonly entity: E;
}

/**
 * One page of `entities` (the search's matches, in any order) under `sort`, ties broken by GUID
 * so the order is total. Cursors are keyset positions: the last entity's sort key and GUID,
 * bound to the query text and sort. Entities added or removed between pages therefore neither
 * shift the next page nor repeat one: every entity present throughout is returned exactly once.
 * A tag criterion sorts by the tag's smallest value; entities without the tag come last in
 * either direction.
 */
export function searchPage<E extends SearchableEntity>(entities: readonly E[], request: SearchPageRequest): SearchPage<E> {
  const sort = normalizeSort(request.sort);
  const limit = pageLimit(request.limit);
  const binding = bindingOf(request.queryText, sort);
  const after = request.cursor === null || request.cursor === undefined ? undefined : readCursor(request.cursor, binding, sort);
  const directions = sort.flatMap((criterion) => partTypes(criterion).map(() => criterion.direction));
  const compare = (a: Position, b: Position): number => comparePositions(a, b, directions);
  const keyed: Keyed<E>[] = entities.map((entity) => ({ entity, guid: entity.guid, parts: sort.flatMap((criterion) => partsOf(criterion, entity)) }));
  // Only what lies past the cursor is sorted, so later pages cost less.
  const remaining = (after === undefined ? keyed : keyed.filter((k) => compare(k, after) > 0)).sort(compare);
  const page = remaining.slice(0, limit);
  const last = page.at(-1);
  return {
    entities: page.map((k) => k.entity),
    nextCursor: remaining.length > limit && last !== undefined ? writeCursor(binding, last) : null,
  };
}

/** A criterion with its direction settled; attribute XOR tag checked. */
type Criterion = { readonly attribute: SortAttribute; readonly direction: SortDirection } | { readonly tag: string; readonly direction: SortDirection };

function normalizeSort(sort: readonly SearchSort[] | null | undefined): Criterion[] {
  if (sort === null || sort === undefined || sort.length === 0) return [{ attribute: 'NAME', direction: 'ASC' }];
  return sort.map((criterion) => {
    const direction = criterion.direction ?? 'ASC';
    const hasAttribute = criterion.attribute !== null && criterion.attribute !== undefined;
    const hasTag = criterion.tag !== null && criterion.tag !== undefined;
    if (hasAttribute === hasTag) {
      throw new EntitySearchError(ENTITY_SEARCH_ERROR_CODES.BAD_PAGE, 'A sort criterion takes exactly one of attribute and tag', null);
    }
    if (hasAttribute && !Object.hasOwn(SORT_KEYS, criterion.attribute!)) {
      throw new EntitySearchError(ENTITY_SEARCH_ERROR_CODES.BAD_PAGE, `Unknown sort attribute '${criterion.attribute}'`, null);
    }
    if (direction !== 'ASC' && direction !== 'DESC') {
      throw new EntitySearchError(ENTITY_SEARCH_ERROR_CODES.BAD_PAGE, `A sort direction is ASC or DESC, not '${direction}'`, null);
    }
    return hasAttribute ? { attribute: criterion.attribute!, direction } : { tag: criterion.tag!, direction };
  });
}

function pageLimit(limit: number | null | undefined): number {
  if (limit === null || limit === undefined) return PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new EntitySearchError(
      ENTITY_SEARCH_ERROR_CODES.BAD_PAGE,
      `options.limit must be a whole number of at least 1 (a page holds at most ${PAGE_SIZE} entities), not ${limit}`,
      null,
    );
  }
  return Math.min(limit, PAGE_SIZE);
}

function partsOf(criterion: Criterion, entity: SearchableEntity): KeyPart[] {
  if ('attribute' in criterion) return SORT_KEYS[criterion.attribute].parts(entity);
  const key = criterion.tag.toLowerCase();
  const values = [...entity.tags].flatMap(([k, v]) => (k.toLowerCase() === key ? v : []));
  if (values.length === 0) return [null, null];
  return values.map(folded).reduce((least, parts) => (compareParts(parts, least, ['ASC', 'ASC']) < 0 ? parts : least));
}

/** The type of each part a criterion's key has; tag parts may also be null. */
function partTypes(criterion: Criterion): readonly ('string' | 'number')[] {
  return 'attribute' in criterion ? SORT_KEYS[criterion.attribute].types : ['string', 'string'];
}

function folded(text: string): [string, string] {
  return [text.toLowerCase(), text];
}

function comparePositions(a: Position, b: Position, directions: readonly SortDirection[]): number {
  const byParts = compareParts(a.parts, b.parts, directions);
  if (byParts !== 0) return byParts;
  return a.guid < b.guid ? -1 : a.guid > b.guid ? 1 : 0;
}

/** Part by part; null (a missing tag) after any value whatever the direction. */
function compareParts(a: readonly KeyPart[], b: readonly KeyPart[], directions: readonly SortDirection[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (x === null) return 1;
    if (y === null) return -1;
    const order = x < y ? -1 : 1;
    return directions[i] === 'DESC' ? -order : order;
  }
  return 0;
}

/** What a cursor is bound to: the query text and the sort, hashed so cursors stay short. */
function bindingOf(queryText: string, sort: readonly Criterion[]): string {
  return createHash('sha256').update(JSON.stringify([queryText, sort])).digest('base64url').slice(0, 16);
}

interface CursorData {
  /** Binding. */
  readonly b: string;
  /** Sort key parts of the last entity on the page. */
  readonly k: readonly KeyPart[];
  /** Its GUID. */
  readonly g: string;
}

function writeCursor(binding: string, last: Position): string {
  const data: CursorData = { b: binding, k: last.parts, g: last.guid };
  return Buffer.from(JSON.stringify(data), 'utf8').toString('base64url');
}

/** The position a cursor stands for: just after the last entity of the page it ended. */
function readCursor(cursor: string, binding: string, sort: readonly Criterion[]): Position {
  const data = decodeCursor(cursor);
  const types = sort.flatMap(partTypes);
  const nullable = sort.flatMap((criterion) => partTypes(criterion).map(() => !('attribute' in criterion)));
  const wellFormed =
    data !== undefined &&
    typeof data.b === 'string' &&
    typeof data.g === 'string' &&
    Array.isArray(data.k) &&
    data.k.every((part: unknown, i: number) => typeof part === types[i] || (part === null && nullable[i] === true));
  if (!wellFormed || data.b !== binding || data.k.length !== types.length) {
    const reason = wellFormed && data.b !== binding ? 'it was issued for a different query or sort' : 'this service did not issue it';
    throw new EntitySearchError(ENTITY_SEARCH_ERROR_CODES.BAD_CURSOR, `Invalid cursor: ${reason}; repeat the search without a cursor`, null);
  }
  return { parts: data.k, guid: data.g };
}

function decodeCursor(cursor: string): CursorData | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const data: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as CursorData) : undefined;
  } catch {
    return undefined;
  }
}

export interface SearchTypeCount {
  readonly count: number;
  readonly domain: string;
  /** Null for a domain and type this service does not hold. */
  readonly entityType: string | null;
  readonly type: string;
}

/** `EntitySearch.types`: how many entities of each domain and type, most first (then by domain and type). */
export function searchTypes(entities: readonly SearchableEntity[]): SearchTypeCount[] {
  const counts = new Map<string, { domain: string; type: string; count: number }>();
  for (const { domain, type } of entities) {
    const key = JSON.stringify([domain, type]);
    const entry = counts.get(key) ?? { domain, type, count: 0 };
    entry.count++;
    counts.set(key, entry);
  }
  return [...counts.values()]
    .sort((a, b) => b.count - a.count || compareValues(a.domain, b.domain) || compareValues(a.type, b.type))
    .map(({ count, domain, type }) => ({ count, domain, entityType: entityTypeOf(domain, type), type }));
}

/**
 * The facet object's keys for each `EntitySearchCountsFacet`: the search field names, with
 * accountId a number and reporting a boolean. (What NerdGraph itself puts in the `facet`
 * AttributeMap is not documented; these keys are ours.)
 */
export const COUNT_FACETS = {
  ACCOUNT_ID: { key: 'accountId', value: (e: SearchableEntity) => e.accountId },
  ALERT_SEVERITY: { key: 'alertSeverity', value: (e: SearchableEntity) => e.alertSeverity },
  DOMAIN: { key: 'domain', value: (e: SearchableEntity) => e.domain },
  DOMAIN_TYPE: { key: 'domainType', value: (e: SearchableEntity) => domainTypeOf(e) },
  NAME: { key: 'name', value: (e: SearchableEntity) => e.name },
  REPORTING: { key: 'reporting', value: (e: SearchableEntity) => e.reporting },
  TYPE: { key: 'type', value: (e: SearchableEntity) => e.type },
} as const;

export type CountFacet = keyof typeof COUNT_FACETS;
type FacetValue = string | number | boolean;

export interface SearchCount {
  readonly count: number;
  readonly facet: Readonly<Record<string, FacetValue>>;
}

/**
 * `EntitySearch.counts(facet:)`: one entry per distinct combination of the facets' values, most
 * entities first, ties in the order of the values (facets as listed). A facet named twice counts
 * once; no facets at all give one entry for all entities (none when there are no entities).
 */
export function searchCounts(entities: readonly SearchableEntity[], facets: readonly string[]): SearchCount[] {
  const chosen = [...new Set(facets)].map((name) => {
    if (!Object.hasOwn(COUNT_FACETS, name)) {
      throw new EntitySearchError(
        ENTITY_SEARCH_ERROR_CODES.BAD_FACET,
        `Unknown counts facet '${name}'; the facets are ${Object.keys(COUNT_FACETS).join(', ')}`,
        null,
      );
    }
    return COUNT_FACETS[name as CountFacet];
  });
  const groups = new Map<string, { values: FacetValue[]; count: number }>();
  for (const entity of entities) {
    const values = chosen.map((facet) => facet.value(entity));
    const key = JSON.stringify(values);
    const group = groups.get(key) ?? { values, count: 0 };
    group.count++;
    groups.set(key, group);
  }
  return [...groups.values()]
    .sort((a, b) => b.count - a.count || a.values.reduce<number>((order, value, i) => order || compareValues(value, b.values[i]!), 0))
    .map(({ values, count }) => ({ count, facet: Object.fromEntries(chosen.map((facet, i) => [facet.key, values[i]!])) }));
}

/** Values of one facet are all of one kind: numbers by value, false before true, text by code unit. */
function compareValues(a: FacetValue, b: FacetValue): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
