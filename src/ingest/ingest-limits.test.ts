import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundAttributes, isStorableNumber, longerThan, nestedDeeperThan, truncate } from './ingest-limits.js';

describe('truncate and longerThan count code points', () => {
  it('cuts after `limit` characters and never splits a surrogate pair', () => {
    assert.equal(truncate('abcdef', 3), 'abc');
    assert.equal(truncate('abc', 3), 'abc');
    assert.equal(truncate('😀😀😀', 2), '😀😀');
    assert.equal(truncate('a😀b', 2), 'a😀');
    // A lone high surrogate counts as one character.
    assert.equal(truncate('\ud83d\ud83dxy', 2), '\ud83d\ud83d');
    assert.equal(longerThan('😀'.repeat(255), 255), false);
    assert.equal(longerThan('😀'.repeat(256), 255), true);
    assert.equal(longerThan('a'.repeat(256), 255), true);
  });
});

describe('isStorableNumber', () => {
  it('finite numbers of magnitude at most 1e100', () => {
    assert.deepEqual([0, -1e100, 1e100, 1.0000000000000001e100, 1e101, -1e308, Infinity, NaN].map(isStorableNumber), [true, true, true, true, false, false, false, false]);
  });
});

describe('boundAttributes', () => {
  it('a map within the limits is returned as it is', () => {
    const map = { a: 'x', n: 1.5, b: true, z: null };
    assert.equal(boundAttributes(map), map);
  });

  it('drops objects, arrays, numbers past 1e100 and long names; cuts long strings', () => {
    const map = { keep: 1, obj: { a: 1 }, list: [1], big: 1e101, ['n'.repeat(256)]: 1, ['k'.repeat(255)]: 2, s: 'v'.repeat(5000) };
    assert.deepEqual({ ...boundAttributes(map) }, { keep: 1, ['k'.repeat(255)]: 2, s: 'v'.repeat(4096) });
    assert.deepEqual({ ...boundAttributes({ message: 'm'.repeat(400), other: 'o'.repeat(400) }, (name) => (name === 'message' ? 300 : 256)) }, {
      message: 'm'.repeat(300), other: 'o'.repeat(256),
    });
  });

  it('keeps the first 255 attributes; a __proto__ attribute stays an attribute', () => {
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++) wide[`a${i}`] = i;
    const bounded = boundAttributes(wide);
    assert.deepEqual(Object.keys(bounded), Array.from({ length: 255 }, (_, i) => `a${i}`));
    const proto = boundAttributes(JSON.parse('{"__proto__": "x", "o": {}}') as Record<string, unknown>);
    assert.equal(JSON.stringify(proto), '{"__proto__":"x"}');
  });
});

describe('nestedDeeperThan', () => {
  it('counts objects and arrays, not scalars, iteratively', () => {
    assert.equal(nestedDeeperThan(1, 0), false);
    assert.equal(nestedDeeperThan({}, 1), false);
    assert.equal(nestedDeeperThan({ a: [] }, 1), true);
    assert.equal(nestedDeeperThan({ a: [1, { b: 'x' }] }, 3), false);
    assert.equal(nestedDeeperThan({ a: [1, { b: 'x' }] }, 2), true);
    assert.equal(nestedDeeperThan(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`), 1000), true);
  });
});
