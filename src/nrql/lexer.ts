import type { Span } from './ast.js';
import { NRQL_ERROR_CODES, NrqlError, positionOf } from './nrql-error.js';

export type SymbolText = '=' | '!=' | '<>' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '(' | ')' | ',' | '[' | ']' | ':' | ';';

/**
 * One lexical unit. Words are identifiers and keywords alike, as written: which words are
 * keywords depends on where they stand, so the parser decides.
 */
export type Token =
  /** `lower`: the text in lower case, what keywords are compared with. */
  | { readonly kind: 'word'; readonly text: string; readonly lower: string; readonly span: Span }
  /** `` `Logged-in user` ``: always a name, never a keyword. */
  | { readonly kind: 'quotedName'; readonly name: string; readonly span: Span }
  /** `'…'`, or `r'…'` (`raw`) whose backslashes are kept. */
  | { readonly kind: 'string'; readonly value: string; readonly raw: boolean; readonly span: Span }
  /** `integer`: written with digits only, as LIMIT, OFFSET, intervals and epoch times must be. */
  | { readonly kind: 'number'; readonly value: number; readonly integer: boolean; readonly span: Span }
  | { readonly kind: 'symbol'; readonly symbol: SymbolText; readonly span: Span }
  | { readonly kind: 'end'; readonly span: Span };

/**
 * Words the grammar gives a meaning wherever they stand, so they can never be an attribute,
 * event type or function name unless backtick-quoted. Every other keyword (`AUTO`, `DESC`,
 * `minutes`, `today`…) is recognised only where the grammar expects it and stays usable as a name.
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'select', 'from', 'where', 'facet', 'timeseries', 'since', 'until', 'compare', 'limit', 'offset', 'order', 'with',
  'extrapolate', 'join', 'and', 'or', 'not', 'in', 'like', 'rlike', 'is', 'as', 'null', 'true', 'false',
]);

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*(?:(?:\.[A-Za-z0-9_]|:[A-Za-z_])[A-Za-z0-9_]*)*$/;

/** Whether `name` can be written without backticks: it lexes as one word and is not reserved. */
export function isPlainName(name: string): boolean {
  return PLAIN_NAME.test(name) && !RESERVED_WORDS.has(name.toLowerCase());
}

const ONE_CHAR_SYMBOLS: ReadonlySet<string> = new Set(['=', '+', '-', '*', '/', '(', ')', ',', '[', ']', ':', ';']);

/**
 * Splits query text into tokens, ending with an `end` token. Words take letters, digits, `_`,
 * and `.` or `:` between such characters: a `.` must be followed by a letter, digit or `_`, and
 * a `:` by a letter or `_`, so `t: 0.5` and `t:0.5` are a named argument while `Mobile:Crash`
 * stays one name (and so does `exclusiveTime:true`: write a space after the colon there).
 */
export function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isSpace(c, text, i)) {
      i++;
    } else if (isWordStart(c)) {
      if ((c === R || c === R_UPPER) && text.charCodeAt(i + 1) === QUOTE) {
        const { value, end } = readQuoted(text, i + 1, "'", true);
        tokens.push({ kind: 'string', value, raw: true, span: { start: i, end } });
        i = end;
      } else {
        const end = wordEnd(text, i);
        const word = text.slice(i, end);
        tokens.push({ kind: 'word', text: word, lower: word.toLowerCase(), span: { start: i, end } });
        i = end;
      }
    } else if (isDigit(c) || (c === DOT && isDigit(text.charCodeAt(i + 1)))) {
      i = readNumber(text, i, tokens);
    } else if (c === QUOTE) {
      const { value, end } = readQuoted(text, i, "'", false);
      tokens.push({ kind: 'string', value, raw: false, span: { start: i, end } });
      i = end;
    } else if (c === BACKTICK) {
      const { value, end } = readQuoted(text, i, '`', false);
      tokens.push({ kind: 'quotedName', name: value, span: { start: i, end } });
      i = end;
    } else {
      const symbol = symbolAt(text, i);
      if (symbol === undefined) {
        const width = String.fromCodePoint(text.codePointAt(i)!).length;
        // SQL habits write "…" for strings or names; say what NRQL uses instead.
        const expected = c === DOUBLE_QUOTE ? "a string in single quotes or a name in backticks" : 'a name, number, string or operator';
        throw lexError(text, { start: i, end: i + width }, `unexpected '${text.slice(i, i + width)}'; expected ${expected}`);
      }
      tokens.push({ kind: 'symbol', symbol, span: { start: i, end: i + symbol.length } });
      i += symbol.length;
    }
  }
  tokens.push({ kind: 'end', span: { start: text.length, end: text.length } });
  return tokens;
}

// Character codes: the lexer looks at UTF-16 units as numbers (`charCodeAt` past the end is NaN,
// which no test below matches).
const DOT = 46;
const COLON = 58;
const QUOTE = 39;
const DOUBLE_QUOTE = 34;
const BACKTICK = 96;
const R = 114;
const R_UPPER = 82;

function symbolAt(text: string, i: number): SymbolText | undefined {
  const c = text[i]!;
  const next = text[i + 1];
  if (c === '<') return next === '=' ? '<=' : next === '>' ? '<>' : '<';
  if (c === '>') return next === '=' ? '>=' : '>';
  if (c === '!') return next === '=' ? '!=' : undefined;
  return ONE_CHAR_SYMBOLS.has(c) ? (c as SymbolText) : undefined;
}

/** Space, tab, line breaks, and any other Unicode white space (a pasted no-break space). */
function isSpace(c: number, text: string, i: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || (c > 126 && /\s/.test(text[i]!));
}

function isWordStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isWordPart(c: number): boolean {
  return isWordStart(c) || isDigit(c);
}

function wordEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const c = text.charCodeAt(i);
    if (isWordPart(c)) i++;
    else if (c === DOT && isWordPart(text.charCodeAt(i + 1))) i += 2;
    else if (c === COLON && isWordStart(text.charCodeAt(i + 1))) i += 2;
    else return i;
  }
}

function readNumber(text: string, start: number, tokens: Token[]): number {
  let i = start;
  while (isDigit(text.charCodeAt(i))) i++;
  let integer = true;
  if (text.charCodeAt(i) === DOT && isDigit(text.charCodeAt(i + 1))) {
    integer = false;
    i++;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  const e = text[i];
  if (e === 'e' || e === 'E') {
    const signed = text[i + 1] === '+' || text[i + 1] === '-';
    if (isDigit(text.charCodeAt(i + (signed ? 2 : 1)))) {
      integer = false;
      i += signed ? 2 : 1;
      while (isDigit(text.charCodeAt(i))) i++;
    }
  }
  const span = { start, end: i };
  const value = Number(text.slice(start, i));
  if (!Number.isFinite(value)) throw lexError(text, span, `number out of range '${shorten(text.slice(start, i))}'; expected a number below 1.8e308`);
  tokens.push({ kind: 'number', value, integer, span });
  return i;
}

/**
 * Reads a quoted string or name starting at the opening `quote`. A doubled quote stands for
 * one. In strings a backslash escapes the next character: `\'` and `\\` become `'` and `\`,
 * any other pair is kept as written; raw strings keep every backslash (a `\'` still does not end
 * them), which is what regular expressions need.
 */
function readQuoted(text: string, open: number, quote: string, raw: boolean): { value: string; end: number } {
  let value = '';
  let i = open + 1;
  // Where the next quote and backslash are, found once each so a long string is scanned once.
  let nextQuote = -1;
  let nextBackslash = quote === "'" ? -1 : text.length;
  while (i < text.length) {
    const c = text[i]!;
    if (c !== quote && c !== '\\') {
      if (nextQuote < i) nextQuote = indexOrEnd(text, quote, i);
      if (nextBackslash < i) nextBackslash = indexOrEnd(text, '\\', i);
      const end = Math.min(nextQuote, nextBackslash);
      value += text.slice(i, end);
      i = end;
    } else if (c === quote) {
      if (text[i + 1] !== quote) return { value, end: i + 1 };
      value += quote;
      i += 2;
    } else if (c === '\\' && quote === "'" && i + 1 < text.length) {
      const next = text[i + 1]!;
      value += raw || (next !== "'" && next !== '\\') ? c + next : next;
      i += 2;
    } else {
      value += c;
      i++;
    }
  }
  const what = quote === '`' ? 'name' : raw ? 'regular expression' : 'string';
  const start = raw ? open - 1 : open;
  throw new NrqlError(
    NRQL_ERROR_CODES.UNTERMINATED,
    `${where(text, start)}, unterminated ${what}: no closing ${quote}`,
    { start, end: open + 1 },
  );
}

function indexOrEnd(text: string, search: string, from: number): number {
  const index = text.indexOf(search, from);
  return index < 0 ? text.length : index;
}

function lexError(text: string, span: Span, what: string): NrqlError {
  return new NrqlError(NRQL_ERROR_CODES.SYNTAX, `${where(text, span.start)}, ${what}`, span);
}

/** `Error at line 1 position 8`: New Relic's prefix for every positioned query error. */
export function where(text: string, offset: number): string {
  const { line, column } = positionOf(text, offset);
  return `Error at line ${line} position ${column}`;
}

/** Token text quoted in messages is cut to 40 characters, so a huge literal does not flood them. */
export function shorten(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
