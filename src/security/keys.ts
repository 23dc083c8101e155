import { createHash, randomBytes } from 'node:crypto';

const USER_KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function randomFrom(alphabet: string, length: number): string {
  // Rejection sampling keeps every character equally likely.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

/** A user API key in New Relic's shape: `NRAK-` and 27 upper-case letters and digits. */
export function generateUserKey(): string {
  return `NRAK-${randomFrom(USER_KEY_ALPHABET, 27)}`;
}

/**
 * A license (ingest) key: 40 lower-case hex characters. The Go agent insists on 40 characters,
 * and a key without `x` never makes an agent without NEW_RELIC_HOST guess a regional host.
 */
export function generateLicenseKey(): string {
  return randomBytes(20).toString('hex');
}

/**
 * Keys are random with ≥ 140 bits of entropy, so one SHA-256 is enough to store them: there is
 * nothing to brute-force that a slow hash would protect, and lookup stays a hash-index probe.
 */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** What we may show of a key after it was created: its kind prefix and last four characters. */
export function keyHint(key: string): string {
  const prefix = key.startsWith('NRAK-') ? 'NRAK-' : '';
  return `${prefix}…${key.slice(-4)}`;
}
