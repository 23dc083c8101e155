/**
 * The fields an entity search can name besides `tags.<key>`, each with the kind of value it
 * holds. The kind decides which values a query may compare it with (checked by the parser) and
 * how values compare (the matcher).
 */
export const SEARCH_FIELDS = {
  /** The entity GUID: compared exactly (GUIDs are base64, so case matters). */
  id: 'guid',
  name: 'text',
  domain: 'text',
  type: 'text',
  domainType: 'text',
  alertSeverity: 'text',
  accountId: 'integer',
  /** Decimal text for our entities, but text in general (synthetics monitors use UUIDs). */
  domainId: 'identifier',
  reporting: 'boolean',
  /**
   * Not in NerdGraph's list of searchable properties, but the query builder has it, and its
   * query text must parse. Every entity this service holds is alertable (all four outline types
   * implement AlertableEntityOutline), so it is true for all of them.
   */
  alertable: 'boolean',
  indexedAt: 'time',
  firstIndexedAt: 'time',
  lastReportingChangeAt: 'time',
} as const;

export type SearchField = keyof typeof SEARCH_FIELDS;
export type FieldKind = (typeof SEARCH_FIELDS)[SearchField];

const BY_LOWER_NAME: ReadonlyMap<string, SearchField> = new Map(
  (Object.keys(SEARCH_FIELDS) as SearchField[]).map((name) => [name.toLowerCase(), name]),
);

/** The field `written` names, ignoring case (`accountid`, `DOMAINID`), or undefined. */
export function searchFieldNamed(written: string): SearchField | undefined {
  return BY_LOWER_NAME.get(written.toLowerCase());
}

/** Fields that only take `=`, `!=`, `IN`, `NOT IN` and `IS [NOT] NULL`: their values are not text. */
export function takesLike(kind: FieldKind | 'tag'): boolean {
  return kind !== 'integer' && kind !== 'boolean' && kind !== 'time';
}

/** Text that is a whole number: how `accountId = '12345'` and `domainId = '077'` are recognised as numbers. */
export const INTEGER_TEXT = /^-?\d+$/;
/** A number as the query language writes one, unquoted (`1754900000000`, `-2.5`, `1e+21`). */
export const NUMBER_SYNTAX = String.raw`-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?`;
/** Text that is such a number (`'1754900000000'` for a time field). */
export const NUMBER_TEXT = new RegExp(`^${NUMBER_SYNTAX}$`);
