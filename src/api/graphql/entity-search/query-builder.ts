import { ENTITY_SEARCH_ERROR_CODES, EntitySearchError } from './entity-search-error.js';
import { formatTagField, quoteString } from './format.js';

/** NerdGraph's `EntitySearchQueryBuilder` input; GraphQL sends an absent field as null or leaves it out. */
export interface EntitySearchQueryBuilder {
  readonly alertSeverity?: string | null;
  readonly alertable?: boolean | null;
  readonly domain?: string | null;
  /** Deprecated in NerdGraph; refused here, as this service holds no infrastructure entities. */
  readonly infrastructureIntegrationType?: string | null;
  /** A LIKE match, as newrelic-cli uses it. */
  readonly name?: string | null;
  readonly reporting?: boolean | null;
  /** `key` with or without the `tags.` prefix. */
  readonly tags?: readonly { readonly key: string; readonly value: string }[] | null;
  readonly type?: string | null;
}

/**
 * The query text a builder stands for — what `entitySearch { query }` reports and what is then
 * parsed and run: clauses joined by ` AND ` in the order domain, type, name, reporting,
 * alertSeverity, alertable, then the tags as given, e.g.
 * `domain = 'APM' AND type = 'APPLICATION' AND tags.accountId = '1'`.
 */
export function queryFromBuilder(builder: EntitySearchQueryBuilder): string {
  if (isSet(builder.infrastructureIntegrationType)) {
    throw new EntitySearchError(
      ENTITY_SEARCH_ERROR_CODES.BAD_BUILDER,
      'queryBuilder.infrastructureIntegrationType is not supported: this service holds no infrastructure entities',
      null,
    );
  }
  const clauses: string[] = [];
  if (isSet(builder.domain)) clauses.push(`domain = ${quoteString(builder.domain)}`);
  if (isSet(builder.type)) clauses.push(`type = ${quoteString(builder.type)}`);
  if (isSet(builder.name)) clauses.push(`name LIKE ${quoteString(builder.name)}`);
  if (isSet(builder.reporting)) clauses.push(`reporting = '${builder.reporting}'`);
  if (isSet(builder.alertSeverity)) clauses.push(`alertSeverity = ${quoteString(builder.alertSeverity)}`);
  if (isSet(builder.alertable)) clauses.push(`alertable = '${builder.alertable}'`);
  for (const { key, value } of builder.tags ?? []) {
    const bare = key.toLowerCase().startsWith('tags.') ? key.slice('tags.'.length) : key;
    if (bare === '') {
      throw new EntitySearchError(ENTITY_SEARCH_ERROR_CODES.BAD_BUILDER, 'queryBuilder.tags: a tag key cannot be empty', null);
    }
    clauses.push(`${formatTagField(bare)} = ${quoteString(value)}`);
  }
  if (clauses.length === 0) {
    throw new EntitySearchError(
      ENTITY_SEARCH_ERROR_CODES.EMPTY,
      'The entity search query builder is empty; set at least one of its fields, such as domain',
      null,
    );
  }
  return clauses.join(' AND ');
}

function isSet<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}
