import type { SearchField } from './search-fields.js';

/**
 * The entity-search syntax tree: immutable plain data with a `kind`, produced by
 * `parseEntitySearch` and printed by `formatEntitySearch`. Values are kept as written (a quoted
 * 'true' stays a string); what they mean for a field is the matcher's business.
 *
 * Round-trip contract: `parseEntitySearch(formatEntitySearch(c))` equals `c` once spans are
 * removed (`stripSpans` from the NRQL tree, which works on any plain tree).
 */

/** Offsets into the query text: `start` inclusive, `end` exclusive, 0-based UTF-16 units. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** A root field by its canonical spelling, or a tag by its key as written (without `tags.`). */
export type FieldRef =
  | { readonly kind: 'field'; readonly name: SearchField; readonly span: Span }
  | { readonly kind: 'tag'; readonly key: string; readonly span: Span };

export type Value =
  | { readonly kind: 'string'; readonly value: string; readonly span: Span }
  | { readonly kind: 'number'; readonly value: number; readonly span: Span }
  /** `true` / `false` written without quotes. */
  | { readonly kind: 'boolean'; readonly value: boolean; readonly span: Span };

export type SearchCondition =
  | { readonly kind: 'compare'; readonly field: FieldRef; readonly op: '=' | '!='; readonly value: Value; readonly span: Span }
  | { readonly kind: 'in'; readonly field: FieldRef; readonly values: readonly Value[]; readonly negated: boolean; readonly span: Span }
  | { readonly kind: 'like'; readonly field: FieldRef; readonly pattern: string; readonly negated: boolean; readonly span: Span }
  | { readonly kind: 'isNull'; readonly field: FieldRef; readonly negated: boolean; readonly span: Span }
  /** Binary and left-associative as parsed: `a AND b AND c` is `and(and(a, b), c)`. */
  | { readonly kind: 'and' | 'or'; readonly left: SearchCondition; readonly right: SearchCondition; readonly span: Span };
