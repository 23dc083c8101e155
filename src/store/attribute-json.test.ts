import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attributeJson } from './attribute-json.js';

test('lone surrogates become U+FFFD; pairs, escaped backslashes and other text are kept', () => {
  assert.equal(attributeJson({ a: 'x\ud800y' }), '{"a":"x\\ufffdy"}');
  assert.equal(attributeJson({ a: 'x\udc00' }), '{"a":"x\\ufffd"}');
  assert.equal(attributeJson({ 'k\ud83d': 1 }), '{"k\\ufffd":1}');
  assert.equal(attributeJson({ a: '😀' }), '{"a":"😀"}');
  // The text backslash + "ud800" is no escape: it stays as written.
  assert.equal(attributeJson({ a: '\\ud800' }), '{"a":"\\\\ud800"}');
  assert.equal(attributeJson({ a: '\\\ud800' }), '{"a":"\\\\\\ufffd"}');
  assert.deepEqual(JSON.parse(attributeJson({ a: 'x\ud800y', b: [1, 'é'] })), { a: 'x\ufffdy', b: [1, 'é'] });
});
