import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getIntrospectionQuery } from 'graphql';
import { DocumentCache, MAX_CACHED_DOCUMENT_LENGTH, MAX_DOCUMENT_DEPTH } from './document-cache.js';
import { buildGraphSchema } from './graph-schema.js';

const schema = buildGraphSchema();

/** `{ actor { … { user { id } } } }` with `depth` inline fragments between: valid at any depth. */
const nested = (depth: number) => `{ actor ${'{ ... on Actor '.repeat(depth)}{ user { id } }${' }'.repeat(depth)} }`;

const messagesOf = (checked: ReturnType<DocumentCache['get']>) => ('errors' in checked ? checked.errors.map((e) => e.message) : []);

describe('DocumentCache', () => {
  it('refuses a document nested past the limit with a located error, where graphql-js would overflow the stack', () => {
    const cache = new DocumentCache(schema);
    // Nesting braces 5,000 deep takes 10,001 tokens, within the token limit.
    const deep = `{${' a {'.repeat(5000)} b${' }'.repeat(5000)} }`;
    const checked = cache.get(deep);
    assert.ok('errors' in checked);
    assert.deepEqual(checked.errors.map((e) => ({ message: e.message, locations: e.locations })), [{
      message: `The document nests braces, brackets and parentheses more than ${MAX_DOCUMENT_DEPTH} deep`,
      // The opening brace of level 65: the document's own, then 64 of ' a {'.
      locations: [{ line: 1, column: 1 + 4 * MAX_DOCUMENT_DEPTH }],
    }]);
    const lists = cache.get(`{ actor { entities(guids: ${'['.repeat(3000)}"x"${']'.repeat(3000)}) { guid } } }`);
    assert.deepEqual(messagesOf(lists), [`The document nests braces, brackets and parentheses more than ${MAX_DOCUMENT_DEPTH} deep`]);
  });

  it('takes documents at the limit, and introspection', () => {
    const cache = new DocumentCache(schema);
    // `nested(n)` nests n + 3 levels: the operation, actor, each fragment, user.
    assert.deepEqual(messagesOf(cache.get(nested(MAX_DOCUMENT_DEPTH - 3))), []);
    assert.deepEqual(messagesOf(cache.get(nested(MAX_DOCUMENT_DEPTH - 2))), [`The document nests braces, brackets and parentheses more than ${MAX_DOCUMENT_DEPTH} deep`]);
    assert.deepEqual(messagesOf(cache.get(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }))), []);
  });

  it('leaves text the lexer refuses to the parser’s syntax error', () => {
    assert.deepEqual(messagesOf(new DocumentCache(schema).get('{ actor { user { id } } } "unterminated')), ['Syntax Error: Unterminated string.']);
  });

  it('keeps short documents and checks long ones every time, so a full cache holds little', () => {
    const cache = new DocumentCache(schema);
    const short = '{ actor { user { id } } }';
    assert.equal(cache.get(short), cache.get(short), 'the same entry');
    const padded = (n: number) => `# ${'x'.repeat(n)}\n${short}`;
    const atLimit = padded(MAX_CACHED_DOCUMENT_LENGTH - short.length - 3);
    assert.equal(atLimit.length, MAX_CACHED_DOCUMENT_LENGTH);
    assert.equal(cache.get(atLimit), cache.get(atLimit));
    const over = padded(MAX_CACHED_DOCUMENT_LENGTH - short.length - 2);
    const first = cache.get(over);
    const second = cache.get(over);
    assert.notEqual(first, second, 'checked again, not kept');
    assert.ok('document' in first && 'document' in second);
  });

  it('says what to change when graphql-js gives up validating a costly document', () => {
    const checked = new DocumentCache(schema).get(`{ actor { ${'user { id } '.repeat(3000)}} }`);
    assert.deepEqual(messagesOf(checked), [
      'Validation aborted: the document is too costly to check (the same field selected very many times, or fragments spread very many times); select each field once',
    ]);
  });
});
