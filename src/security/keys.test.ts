import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { generateLicenseKey, generateUserKey, hashKey, keyHint } from './keys.js';

test('user keys look like New Relic user keys', () => {
  const keys = new Set(Array.from({ length: 200 }, generateUserKey));
  assert.equal(keys.size, 200);
  for (const key of keys) assert.match(key, /^NRAK-[A-Z0-9]{27}$/);
});

test('license keys are 40 lower-case hex characters (the Go agent checks the length)', () => {
  for (let i = 0; i < 200; i++) assert.match(generateLicenseKey(), /^[0-9a-f]{40}$/);
});

test('keys are stored as SHA-256 hex, shown as a hint', () => {
  assert.equal(hashKey('abc'), createHash('sha256').update('abc').digest('hex'));
  assert.equal(hashKey('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(keyHint('NRAK-ABCDEFGHIJKLMNOPQRSTUVWXYZ0'), 'NRAK-…XYZ0');
  assert.equal(keyHint('0123456789abcdef0123456789abcdef01234567'), '…4567');
});
