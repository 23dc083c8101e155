import { closestMatch } from '../../../nrql/nrql-error.js';
import type { FieldRef, SearchCondition, Span, Value } from './ast.js';
import { ENTITY_SEARCH_ERROR_CODES, EntitySearchError, type EntitySearchErrorCode } from './entity-search-error.js';
import { formatField } from './format.js';
import { atCharacter, isPlainTagKey, lex, type SymbolText, type Token } from './lexer.js';
import { INTEGER_TEXT, NUMBER_TEXT, SEARCH_FIELDS, searchFieldNamed, takesLike, type FieldKind } from './search-fields.js';

/** Longest query text accepted, in UTF-16 units (NerdGraph's query strings are capped at 4 KB too). */
export const MAX_QUERY_LENGTH = 4096;
/** Deepest parenthesis nesting accepted. */
export const MAX_NESTING = 32;

/** Words with a meaning in the grammar: never a field name, so a message can say a field was expected. */
const KEYWORDS: ReadonlySet<string> = new Set(['and', 'or', 'not', 'in', 'like', 'is', 'null', 'true', 'false']);

/** Names people reach for that are spelled differently here. */
const FIELD_HINTS: ReadonlyMap<string, string> = new Map([
  ['guid', 'id'],
  ['entityguid', 'id'],
  ['appid', 'domainId'],
  ['applicationid', 'domainId'],
  ['entitytype', 'type'],
]);

/**
 * Parses entity-search text (NerdGraph's `entitySearch(query:)`) into a condition tree:
 *
 *   search   = or ;   or = and { OR and } ;   and = term { AND term } ;
 *   term     = "(" or ")" | field ( ("=" | "!=") value | [NOT] IN "(" value { "," value } ")"
 *              | [NOT] LIKE string | IS [NOT] NULL ) ;
 *   field    = one of SEARCH_FIELDS, any case | "tags." key | "tags." "`" key "`" ;
 *   value    = string | number | true | false ;
 *
 * Keywords and field names are case-insensitive (clients send `like`, `and`, `accountid`);
 * tag keys are kept as written. Values are checked against the field's kind here, so
 * `reporting = 'yes'` is an error at the value rather than a search that finds nothing.
 * Throws `EntitySearchError` with the offset of the text at fault.
 */
export function parseEntitySearch(text: string): SearchCondition {
  if (text.length > MAX_QUERY_LENGTH) {
    throw new EntitySearchError(
      ENTITY_SEARCH_ERROR_CODES.TOO_LONG,
      `The entity search query has ${text.length} characters; the limit is ${MAX_QUERY_LENGTH}`,
      MAX_QUERY_LENGTH,
    );
  }
  const tokens = lex(text);
  if (tokens[0]!.kind === 'end') {
    throw new EntitySearchError(
      ENTITY_SEARCH_ERROR_CODES.EMPTY,
      "The entity search query is empty; give at least one condition, such as domain = 'APM'",
      0,
    );
  }
  return new Parser(tokens).search();
}

class Parser {
  private position = 0;
  private depth = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  search(): SearchCondition {
    const condition = this.or();
    const next = this.peek();
    if (next.kind !== 'end') {
      const hint = next.kind === 'symbol' && next.symbol === ')' ? 'this ) has no ( before it' : 'join conditions with AND or OR';
      this.fail(ENTITY_SEARCH_ERROR_CODES.SYNTAX, next.span.start, `unexpected ${describe(next)} after a complete condition; ${hint}`);
    }
    return condition;
  }

  private or(): SearchCondition {
    let left = this.and();
    while (this.atKeyword('or')) {
      this.position++;
      const right = this.and();
      left = { kind: 'or', left, right, span: join(left.span, right.span) };
    }
    return left;
  }

  private and(): SearchCondition {
    let left = this.term();
    while (this.atKeyword('and')) {
      this.position++;
      const right = this.term();
      left = { kind: 'and', left, right, span: join(left.span, right.span) };
    }
    return left;
  }

  private term(): SearchCondition {
    const open = this.peek();
    if (open.kind === 'symbol' && open.symbol === '(') {
      if (this.depth >= MAX_NESTING) {
        this.fail(ENTITY_SEARCH_ERROR_CODES.TOO_DEEP, open.span.start, `parentheses nest deeper than ${MAX_NESTING} levels`);
      }
      this.position++;
      this.depth++;
      const inner = this.or();
      this.depth--;
      this.expectSymbol(')', `a ')' to close the '(' at character ${open.span.start + 1}`);
      return inner;
    }
    const field = this.field();
    const kind: FieldKind | 'tag' = field.kind === 'tag' ? 'tag' : SEARCH_FIELDS[field.name];
    const op = this.next();
    if (op.kind === 'symbol' && (op.symbol === '=' || op.symbol === '!=')) {
      const value = this.value(field, kind);
      return { kind: 'compare', field, op: op.symbol, value, span: join(field.span, value.span) };
    }
    if (op.kind === 'word') {
      const negated = op.lower === 'not';
      const keyword = negated ? this.next() : op;
      if (keyword.kind === 'word' && keyword.lower === 'in') return this.inList(field, kind, negated);
      if (keyword.kind === 'word' && keyword.lower === 'like') return this.like(field, kind, negated, keyword);
      if (!negated && op.lower === 'is') return this.isNull(field);
      if (negated) this.fail(ENTITY_SEARCH_ERROR_CODES.SYNTAX, keyword.span.start, `expected IN or LIKE after NOT, found ${describe(keyword)}`);
    }
    return this.fail(
      ENTITY_SEARCH_ERROR_CODES.SYNTAX,
      op.span.start,
      `expected =, !=, IN, NOT IN, LIKE, NOT LIKE or IS [NOT] NULL after ${formatField(field)}, found ${describe(op)}`,
    );
  }

  private inList(field: FieldRef, kind: FieldKind | 'tag', negated: boolean): SearchCondition {
    this.expectSymbol('(', "a '(' to open the list of values after IN");
    const values: Value[] = [this.value(field, kind)];
    for (;;) {
      const token = this.next();
      if (token.kind === 'symbol' && token.symbol === ',') {
        values.push(this.value(field, kind));
      } else if (token.kind === 'symbol' && token.symbol === ')') {
        return { kind: 'in', field, values, negated, span: join(field.span, token.span) };
      } else {
        this.fail(ENTITY_SEARCH_ERROR_CODES.SYNTAX, token.span.start, `expected ',' or ')' in the list of values after IN, found ${describe(token)}`);
      }
    }
  }

  private like(field: FieldRef, kind: FieldKind | 'tag', negated: boolean, keyword: Token): SearchCondition {
    if (!takesLike(kind)) {
      this.fail(
        ENTITY_SEARCH_ERROR_CODES.BAD_OPERATOR,
        keyword.span.start,
        `LIKE matches text, and ${formatField(field)} is not text; it takes =, !=, IN, NOT IN and IS [NOT] NULL`,
      );
    }
    const pattern = this.next();
    if (pattern.kind !== 'string') {
      return this.fail(ENTITY_SEARCH_ERROR_CODES.SYNTAX, pattern.span.start, `LIKE takes a string in single quotes, found ${describe(pattern)}`);
    }
    return { kind: 'like', field, pattern: pattern.value, negated, span: join(field.span, pattern.span) };
  }

  private isNull(field: FieldRef): SearchCondition {
    let token = this.next();
    const negated = token.kind === 'word' && token.lower === 'not';
    if (negated) token = this.next();
    if (token.kind !== 'word' || token.lower !== 'null') {
      this.fail(ENTITY_SEARCH_ERROR_CODES.SYNTAX, token.span.start, `expected ${negated ? 'NULL after IS NOT' : 'NULL or NOT NULL after IS'}, found ${describe(token)}`);
    }
    return { kind: 'isNull', field, negated, span: join(field.span, token.span) };
  }

  private field(): FieldRef {
    const token = this.next();
    if (token.kind !== 'word' || KEYWORDS.has(token.lower)) {
      return this.fail(ENTITY_SEARCH_ERROR_CODES.SYNTAX, token.span.start, `expected a field name such as name, domain or tags.<key>, found ${describe(token)}`);
    }
    if (token.lower.startsWith('tags.')) return this.tag(token);
    const name = searchFieldNamed(token.text);
    if (name !== undefined) return { kind: 'field', name, span: token.span };
    if (token.lower === 'tags') {
      return this.fail(ENTITY_SEARCH_ERROR_CODES.UNKNOWN_FIELD, token.span.start, "a tag is named tags.<key>, e.g. tags.language = 'nodejs'");
    }
    const suggestion = FIELD_HINTS.get(token.lower) ?? closestMatch(token.text, Object.keys(SEARCH_FIELDS));
    const hint = suggestion === undefined ? `; the fields are ${Object.keys(SEARCH_FIELDS).join(', ')} and tags.<key>` : `; did you mean '${suggestion}'?`;
    return this.fail(ENTITY_SEARCH_ERROR_CODES.UNKNOWN_FIELD, token.span.start, `unknown field '${token.text}'${hint}`);
  }

  /** `tags.aws.awsRegion`, or `` tags.`my key` `` with the backtick name right after the dot. */
  private tag(word: Token & { kind: 'word' }): FieldRef {
    const key = word.text.slice('tags.'.length);
    if (key === '') {
      const quoted = this.peek();
      if (quoted.kind === 'quotedName' && quoted.span.start === word.span.end) {
        this.position++;
        if (quoted.name === '') this.fail(ENTITY_SEARCH_ERROR_CODES.SYNTAX, quoted.span.start, 'a tag key cannot be empty');
        return { kind: 'tag', key: quoted.name, span: join(word.span, quoted.span) };
      }
      return this.fail(ENTITY_SEARCH_ERROR_CODES.SYNTAX, word.span.end, "expected a tag key after 'tags.', e.g. tags.language or tags.`my key`");
    }
    if (!isPlainTagKey(key)) {
      return this.fail(ENTITY_SEARCH_ERROR_CODES.SYNTAX, word.span.start + 'tags.'.length, `the tag key '${key}' has an empty part between dots; quote it in backticks: tags.\`${key}\``);
    }
    return { kind: 'tag', key, span: word.span };
  }

  /** A value, checked against what the field holds. */
  private value(field: FieldRef, kind: FieldKind | 'tag'): Value {
    const token = this.next();
    let value: Value;
    if (token.kind === 'string' || token.kind === 'number') {
      value = { kind: token.kind, value: token.value, span: token.span } as Value;
    } else if (token.kind === 'word' && (token.lower === 'true' || token.lower === 'false')) {
      value = { kind: 'boolean', value: token.lower === 'true', span: token.span };
    } else {
      return this.fail(ENTITY_SEARCH_ERROR_CODES.SYNTAX, token.span.start, `expected a value (a string in single quotes, a number, true or false), found ${describe(token)}`);
    }
    const problem = valueProblem(kind, value);
    if (problem !== undefined) this.fail(ENTITY_SEARCH_ERROR_CODES.BAD_VALUE, token.span.start, `${formatField(field)} ${problem}, not ${describe(token)}`);
    return value;
  }

  private expectSymbol(symbol: SymbolText, expected: string): void {
    const token = this.next();
    if (token.kind !== 'symbol' || token.symbol !== symbol) {
      this.fail(ENTITY_SEARCH_ERROR_CODES.SYNTAX, token.span.start, `expected ${expected}, found ${describe(token)}`);
    }
  }

  private atKeyword(lower: string): boolean {
    const token = this.peek();
    return token.kind === 'word' && token.lower === lower;
  }

  private peek(): Token {
    return this.tokens[this.position]!;
  }

  /** The current token, moving past it (never past `end`). */
  private next(): Token {
    const token = this.tokens[this.position]!;
    if (token.kind !== 'end') this.position++;
    return token;
  }

  private fail(code: EntitySearchErrorCode, offset: number, what: string): never {
    throw new EntitySearchError(code, atCharacter(offset, what), offset);
  }
}

/** Why `value` cannot stand for a field of `kind`, or undefined when it can. */
function valueProblem(kind: FieldKind | 'tag', value: Value): string | undefined {
  switch (kind) {
    case 'integer':
      return (value.kind === 'number' && Number.isInteger(value.value)) || (value.kind === 'string' && INTEGER_TEXT.test(value.value))
        ? undefined
        : 'takes a whole number';
    case 'boolean':
      return value.kind === 'boolean' || (value.kind === 'string' && /^(?:true|false)$/i.test(value.value)) ? undefined : 'takes true or false';
    case 'time':
      return value.kind === 'number' || (value.kind === 'string' && NUMBER_TEXT.test(value.value)) ? undefined : 'takes a time in epoch milliseconds';
    case 'guid':
    case 'text':
    case 'identifier':
    case 'tag':
      return undefined;
    default: {
      const never: never = kind;
      return never;
    }
  }
}

function join(a: Span, b: Span): Span {
  return { start: a.start, end: b.end };
}

/** How a token reads in a message; long strings are cut short. */
function describe(token: Token): string {
  const short = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);
  switch (token.kind) {
    case 'word':
      return `'${short(token.text)}'`;
    case 'quotedName':
      return `\`${short(token.name)}\``;
    case 'string':
      return `the string '${short(token.value)}'`;
    case 'number':
      return `the number ${token.value}`;
    case 'symbol':
      return `'${token.symbol}'`;
    case 'end':
      return 'the end of the query';
    default: {
      const never: never = token;
      return never;
    }
  }
}
