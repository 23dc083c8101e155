/**
 * Every way an entity search can be refused, by stable code. The graph API maps all of them to
 * an `INVALID_INPUT` error on the field that was asked; the message is for people.
 */
export const ENTITY_SEARCH_ERROR_CODES = {
  /** No condition at all: an empty or blank query, or a query builder with no field set. */
  EMPTY: 'ENTITY_SEARCH_EMPTY',
  /** The query text is longer than `MAX_QUERY_LENGTH`. */
  TOO_LONG: 'ENTITY_SEARCH_TOO_LONG',
  /** Parentheses nested deeper than `MAX_NESTING`. */
  TOO_DEEP: 'ENTITY_SEARCH_TOO_DEEP',
  /** The text does not follow the grammar. */
  SYNTAX: 'ENTITY_SEARCH_SYNTAX',
  /** A string or backtick-quoted tag key without its closing quote. */
  UNTERMINATED: 'ENTITY_SEARCH_UNTERMINATED',
  UNKNOWN_FIELD: 'ENTITY_SEARCH_UNKNOWN_FIELD',
  /** A value the field cannot hold (`reporting = 'yes'`, `accountId = 'abc'`). */
  BAD_VALUE: 'ENTITY_SEARCH_BAD_VALUE',
  /** An operator the field does not take (`accountId LIKE '1'`). */
  BAD_OPERATOR: 'ENTITY_SEARCH_BAD_OPERATOR',
  /** A query builder field this service cannot express (`infrastructureIntegrationType`), or a bad tag in it. */
  BAD_BUILDER: 'ENTITY_SEARCH_BAD_BUILDER',
  /** A cursor this service did not issue, or one issued for another query or sort. */
  BAD_CURSOR: 'ENTITY_SEARCH_BAD_CURSOR',
  /** A page limit that is not a positive whole number, or a sort criterion without exactly one of attribute and tag. */
  BAD_PAGE: 'ENTITY_SEARCH_BAD_PAGE',
  /** A `counts` facet that is not one of EntitySearchCountsFacet's values. */
  BAD_FACET: 'ENTITY_SEARCH_BAD_FACET',
} as const;

export type EntitySearchErrorCode = (typeof ENTITY_SEARCH_ERROR_CODES)[keyof typeof ENTITY_SEARCH_ERROR_CODES];

export class EntitySearchError extends Error {
  override readonly name = 'EntitySearchError';

  constructor(
    readonly code: EntitySearchErrorCode,
    message: string,
    /** 0-based offset (UTF-16 units) into the query text the error is about; null when it is not about query text (cursors, limits, builders). */
    readonly offset: number | null,
  ) {
    super(message);
  }
}
