import type { FieldRef, SearchCondition, Value } from './ast.js';
import { likeMatches } from './like-match.js';
import { INTEGER_TEXT, NUMBER_TEXT, SEARCH_FIELDS, type FieldKind } from './search-fields.js';
import { domainTypeOf, type SearchableEntity } from './searchable-entity.js';

export interface MatchOptions {
  /** NerdGraph's `options.caseSensitiveTagMatching`: tag keys and values compare exactly. Off by default. */
  readonly caseSensitiveTagMatching?: boolean;
}

/**
 * Whether `entity` satisfies `condition`. The rules:
 *
 * - `=` and `IN` by the field's kind:
 *   - `id`: the GUID exactly (GUIDs are case-sensitive base64);
 *   - `name`, `domain`, `type`, `domainType`, `alertSeverity`: ignoring case;
 *   - `accountId`, `domainId` and tag values: as whole numbers when both sides are whole-number
 *     text (`domainId = '077'` finds 77; `accountId = '12345'` and `accountId = 12345` agree),
 *     otherwise as text ignoring case — for tags, exactly when `caseSensitiveTagMatching`;
 *   - `reporting`, `alertable`: `true`/`false`, bare or quoted, any case (every entity here is
 *     alertable: see SEARCH_FIELDS);
 *   - `indexedAt`, `firstIndexedAt`, `lastReportingChangeAt`: as numbers (epoch ms).
 *   A number or boolean compared with a text field stands for its text (`name = 42` is `name = '42'`).
 * - `LIKE`: the word match of `likeMatches`, on the field's text.
 * - A tag matches when any of its values does; with several keys differing only in case (and
 *   case-insensitive matching) all their values count.
 * - `IS NULL`: the field has no value. Only the three time fields and tags can be null; a tag is
 *   null when the entity lacks it (or has it with no values).
 * - The negated forms are exact complements: `a != v` is `NOT (a = v)`, likewise `NOT IN`,
 *   `NOT LIKE` and `IS NOT NULL`. So `tags.team != 'x'` holds for an entity without that tag,
 *   and `indexedAt != 5` for one never indexed.
 *
 * Values the parser would refuse for a field (built by hand) match nothing rather than throw.
 */
export function matches(condition: SearchCondition, entity: SearchableEntity, options: MatchOptions = {}): boolean {
  switch (condition.kind) {
    case 'and':
      return matches(condition.left, entity, options) && matches(condition.right, entity, options);
    case 'or':
      return matches(condition.left, entity, options) || matches(condition.right, entity, options);
    case 'isNull':
      return (valuesOf(condition.field, entity, options).length === 0) !== condition.negated;
    case 'compare': {
      const found = anyEqual(condition.field, entity, [condition.value], options);
      return condition.op === '=' ? found : !found;
    }
    case 'in':
      return anyEqual(condition.field, entity, condition.values, options) !== condition.negated;
    case 'like':
      return valuesOf(condition.field, entity, options).some((actual) => likeMatches(condition.pattern, String(actual))) !== condition.negated;
    default: {
      const never: never = condition;
      return never;
    }
  }
}

type Actual = string | number | boolean;

function anyEqual(field: FieldRef, entity: SearchableEntity, values: readonly Value[], options: MatchOptions): boolean {
  const kind: FieldKind | 'tag' = field.kind === 'tag' ? 'tag' : SEARCH_FIELDS[field.name];
  const caseSensitive = kind === 'tag' && options.caseSensitiveTagMatching === true;
  const actuals = valuesOf(field, entity, options);
  return values.some((value) => actuals.some((actual) => equal(kind, actual, value, caseSensitive)));
}

/** The field's values on the entity: none when it is null, several for a tag with several values. */
function valuesOf(field: FieldRef, entity: SearchableEntity, options: MatchOptions): readonly Actual[] {
  if (field.kind === 'tag') {
    if (options.caseSensitiveTagMatching === true) return entity.tags.get(field.key) ?? [];
    const key = field.key.toLowerCase();
    const values: string[] = [];
    for (const [k, v] of entity.tags) if (k.toLowerCase() === key) values.push(...v);
    return values;
  }
  switch (field.name) {
    case 'id':
      return [entity.guid];
    case 'domainType':
      return [domainTypeOf(entity)];
    case 'alertable':
      return [true];
    case 'indexedAt':
    case 'firstIndexedAt':
    case 'lastReportingChangeAt': {
      const time = entity[field.name];
      return time === null ? [] : [time];
    }
    default:
      return [entity[field.name]];
  }
}

function equal(kind: FieldKind | 'tag', actual: Actual, value: Value, caseSensitive: boolean): boolean {
  switch (kind) {
    case 'guid':
      return textOf(value) === actual;
    case 'text':
      return textOf(value).toLowerCase() === String(actual).toLowerCase();
    case 'integer':
    case 'identifier':
    case 'tag':
      return sameIdentifier(String(actual), textOf(value), caseSensitive);
    case 'boolean':
      return booleanOf(value) === actual;
    case 'time':
      return numberOf(value) === actual;
    default: {
      const never: never = kind;
      return never;
    }
  }
}

function sameIdentifier(a: string, b: string, caseSensitive: boolean): boolean {
  if (a === b) return true;
  if (INTEGER_TEXT.test(a) && INTEGER_TEXT.test(b)) return canonicalInteger(a) === canonicalInteger(b);
  return !caseSensitive && a.toLowerCase() === b.toLowerCase();
}

/** Whole-number text without leading zeros, and without the sign of zero: '-007' → '-7', '-00' → '0'. */
function canonicalInteger(text: string): string {
  const negative = text.startsWith('-');
  const digits = (negative ? text.slice(1) : text).replace(/^0+(?=\d)/, '');
  return negative && digits !== '0' ? `-${digits}` : digits;
}

function textOf(value: Value): string {
  return String(value.value);
}

function booleanOf(value: Value): boolean | undefined {
  if (value.kind === 'boolean') return value.value;
  if (value.kind === 'string' && /^(?:true|false)$/i.test(value.value)) return value.value.toLowerCase() === 'true';
  return undefined;
}

function numberOf(value: Value): number | undefined {
  if (value.kind === 'number') return value.value;
  if (value.kind === 'string' && NUMBER_TEXT.test(value.value)) return Number(value.value);
  return undefined;
}
