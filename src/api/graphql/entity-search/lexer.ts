import type { Span } from './ast.js';
import { ENTITY_SEARCH_ERROR_CODES, EntitySearchError } from './entity-search-error.js';
import { NUMBER_SYNTAX } from './search-fields.js';

export type SymbolText = '=' | '!=' | '(' | ')' | ',';

/**
 * One lexical unit. Words are field names and keywords alike, as written; the parser decides
 * which is which.
 */
export type Token =
  /** `lower`: the text in lower case, what keywords and field names are compared with. */
  | { readonly kind: 'word'; readonly text: string; readonly lower: string; readonly span: Span }
  /** `` `my key` ``: only valid right after `tags.`. */
  | { readonly kind: 'quotedName'; readonly name: string; readonly span: Span }
  | { readonly kind: 'string'; readonly value: string; readonly span: Span }
  | { readonly kind: 'number'; readonly value: number; readonly span: Span }
  | { readonly kind: 'symbol'; readonly symbol: SymbolText; readonly span: Span }
  | { readonly kind: 'end'; readonly span: Span };

/**
 * Characters a word may hold after its first: letters, digits, `_`, and `.`, `-`, `:`, `/` so
 * that tag keys such as `aws.awsRegion`, `k8s.cluster-name` or `app/tier` need no backticks.
 * A word starts with a letter or `_`.
 */
const WORD_CHAR = /[\p{L}\p{N}_.\-:/]/u;
const WORD_START = /[\p{L}_]/u;
/** A tag key written without backticks: parts of word characters joined by single dots. */
const PLAIN_TAG_KEY = /^[\p{L}\p{N}_\-:/]+(?:\.[\p{L}\p{N}_\-:/]+)*$/u;
const NUMBER = new RegExp(NUMBER_SYNTAX, 'y');

/** Whether `key` can follow `tags.` without backticks. */
export function isPlainTagKey(key: string): boolean {
  return PLAIN_TAG_KEY.test(key);
}

/**
 * Splits query text into tokens, ending with an `end` token. Strings take single quotes, with
 * `\'` for a quote and `\\` for a backslash; any other backslash is kept as it is (clients
 * escape quotes only, so `'C:\temp'` means what it says). Backtick names take `` `` `` for a
 * backtick.
 */
export function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = charAt(text, i);
    if (/\s/u.test(c)) {
      i += c.length;
    } else if (WORD_START.test(c)) {
      const end = wordEnd(text, i);
      const word = text.slice(i, end);
      tokens.push({ kind: 'word', text: word, lower: word.toLowerCase(), span: { start: i, end } });
      i = end;
    } else if (isDigit(c) || ((c === '-' || c === '.') && startsNumber(text, i))) {
      i = readNumber(text, i, tokens);
    } else if (c === "'") {
      i = readString(text, i, tokens);
    } else if (c === '`') {
      i = readQuotedName(text, i, tokens);
    } else if (c === '!' && text[i + 1] === '=') {
      tokens.push({ kind: 'symbol', symbol: '!=', span: { start: i, end: i + 2 } });
      i += 2;
    } else if (c === '=' || c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: 'symbol', symbol: c, span: { start: i, end: i + 1 } });
      i += 1;
    } else {
      throw new EntitySearchError(ENTITY_SEARCH_ERROR_CODES.SYNTAX, atCharacter(i, unexpectedCharacter(text, i, c)), i);
    }
  }
  tokens.push({ kind: 'end', span: { start: text.length, end: text.length } });
  return tokens;
}

/** `Invalid entity search query at character N: …`, N counted from 1 for people. */
export function atCharacter(offset: number, what: string): string {
  return `Invalid entity search query at character ${offset + 1}: ${what}`;
}

function unexpectedCharacter(text: string, i: number, c: string): string {
  if (c === '"') return `unexpected '"'; strings take single quotes, e.g. name = 'checkout'`;
  if (c === '<' || c === '>') {
    const op = text[i + 1] === '=' || (c === '<' && text[i + 1] === '>') ? c + text[i + 1] : c;
    return `unexpected '${op}'; entity search compares with =, !=, IN, NOT IN, LIKE, NOT LIKE and IS [NOT] NULL`;
  }
  return `unexpected '${c}'`;
}

/** The whole code point at `i` (one or two UTF-16 units). */
function charAt(text: string, i: number): string {
  return String.fromCodePoint(text.codePointAt(i)!);
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

function startsNumber(text: string, i: number): boolean {
  const next = text[i + 1] ?? '';
  if (text[i] === '-') return isDigit(next) || (next === '.' && isDigit(text[i + 2] ?? ''));
  return isDigit(next);
}

function wordEnd(text: string, start: number): number {
  let i = start;
  while (i < text.length) {
    const c = charAt(text, i);
    if (!WORD_CHAR.test(c)) break;
    i += c.length;
  }
  return i;
}

/** A number must end where a word would: `12abc` and `1.2.3` are refused as a whole. */
function readNumber(text: string, start: number, tokens: Token[]): number {
  NUMBER.lastIndex = start;
  const match = NUMBER.exec(text);
  const end = start + (match?.[0].length ?? 0);
  const runEnd = wordEnd(text, end);
  if (match === null || runEnd > end) {
    const written = text.slice(start, runEnd);
    throw new EntitySearchError(ENTITY_SEARCH_ERROR_CODES.SYNTAX, atCharacter(start, `'${written}' is not a number`), start);
  }
  const value = Number(match[0]);
  if (!Number.isFinite(value)) {
    throw new EntitySearchError(ENTITY_SEARCH_ERROR_CODES.BAD_VALUE, atCharacter(start, `the number ${match[0]} is out of range`), start);
  }
  tokens.push({ kind: 'number', value, span: { start, end } });
  return end;
}

function readString(text: string, start: number, tokens: Token[]): number {
  let value = '';
  let i = start + 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\' && (text[i + 1] === "'" || text[i + 1] === '\\')) {
      value += text[i + 1];
      i += 2;
    } else if (c === "'") {
      tokens.push({ kind: 'string', value, span: { start, end: i + 1 } });
      return i + 1;
    } else {
      value += c;
      i += 1;
    }
  }
  throw new EntitySearchError(
    ENTITY_SEARCH_ERROR_CODES.UNTERMINATED,
    atCharacter(start, "this string has no closing quote (write \\' for a quote inside a string)"),
    start,
  );
}

function readQuotedName(text: string, start: number, tokens: Token[]): number {
  let name = '';
  let i = start + 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '`' && text[i + 1] === '`') {
      name += '`';
      i += 2;
    } else if (c === '`') {
      tokens.push({ kind: 'quotedName', name, span: { start, end: i + 1 } });
      return i + 1;
    } else {
      name += c;
      i += 1;
    }
  }
  throw new EntitySearchError(
    ENTITY_SEARCH_ERROR_CODES.UNTERMINATED,
    atCharacter(start, 'this backtick-quoted tag key has no closing backtick'),
    start,
  );
}
