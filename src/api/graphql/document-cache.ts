import { GraphQLError, Lexer, parse, Source, TokenKind, validate, type DocumentNode, type GraphQLSchema, type Token } from 'graphql';
import { GRAPH_VALIDATION_RULES } from './validation-rules.js';

/** Tokens in one document: bounds the work of parsing and validating what a client sends. */
export const MAX_DOCUMENT_TOKENS = 20_000;
/**
 * How deep braces, brackets and parentheses may nest. Real clients' documents nest at most 7
 * levels (newrelic-client-go's entity search) and introspection about 10; graphql-js parses
 * recursively, and a few thousand levels (well within the token limit) overflow the stack.
 */
export const MAX_DOCUMENT_DEPTH = 64;
/** Parsed and validated documents kept, by text: clients send the same few documents over and over. */
export const DOCUMENT_CACHE_SIZE = 500;
/**
 * Longer texts are checked on every request and not kept: a full cache of 1 MiB documents would
 * hold half a gigabyte. The longest client document Timeslice knows (client-go's GetEntity) is
 * about 10 KB.
 */
export const MAX_CACHED_DOCUMENT_LENGTH = 64 * 1024;

export type CheckedDocument = { readonly document: DocumentNode } | { readonly errors: readonly GraphQLError[] };

const OPENING: ReadonlySet<string> = new Set([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING: ReadonlySet<string> = new Set([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/** Parsed and validated documents by text, least recently used dropped first. */
export class DocumentCache {
  private readonly entries = new Map<string, CheckedDocument>();

  constructor(private readonly schema: GraphQLSchema) {}

  get(text: string): CheckedDocument {
    const hit = this.entries.get(text);
    if (hit) {
      this.entries.delete(text);
      this.entries.set(text, hit);
      return hit;
    }
    const entry = check(this.schema, text);
    if (text.length <= MAX_CACHED_DOCUMENT_LENGTH) {
      this.entries.set(text, entry);
      if (this.entries.size > DOCUMENT_CACHE_SIZE) this.entries.delete(this.entries.keys().next().value!);
    }
    return entry;
  }
}

function check(schema: GraphQLSchema, text: string): CheckedDocument {
  const source = new Source(text);
  const deep = tooDeep(source);
  if (deep) {
    return { errors: [new GraphQLError(`The document nests braces, brackets and parentheses more than ${MAX_DOCUMENT_DEPTH} deep`, { source, positions: [deep.start] })] };
  }
  try {
    const document = parse(source, { maxTokens: MAX_DOCUMENT_TOKENS });
    const errors = validate(schema, document, GRAPH_VALIDATION_RULES).map(explainAbort);
    return errors.length > 0 ? { errors } : { document };
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    return { errors: [error] };
  }
}

/** The first opening token past `MAX_DOCUMENT_DEPTH`, if any; text the lexer refuses is left to the parser to report. */
function tooDeep(source: Source): Token | undefined {
  const lexer = new Lexer(source);
  let depth = 0;
  try {
    for (let token = lexer.advance(), n = 0; token.kind !== TokenKind.EOF && n <= MAX_DOCUMENT_TOKENS; token = lexer.advance(), n++) {
      if (OPENING.has(token.kind) && ++depth > MAX_DOCUMENT_DEPTH) return token;
      if (CLOSING.has(token.kind)) depth--;
    }
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
  }
  return undefined;
}

/**
 * graphql-js stops validating a document whose checks would cost too much and says only
 * "Validation aborted."; the caller is told what to change.
 */
function explainAbort(error: GraphQLError): GraphQLError {
  if (error.message !== 'Validation aborted.' || error.locations !== undefined) return error;
  return new GraphQLError(
    'Validation aborted: the document is too costly to check (the same field selected very many times, or fragments spread very many times); select each field once',
  );
}
