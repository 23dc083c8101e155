/**
 * New Relic's obfuscation of what an APM agent puts into a page (`transactionName`, `atts`):
 * base64 of the UTF-8 text XORed byte by byte with the first 13 characters of the APM license
 * key. Browser ingest reads `to` (the obfuscated transaction name) with it, to name a page's
 * `EndUser/WebTransaction/…` timeslices after the APM transaction.
 */
export const OBFUSCATION_KEY_LENGTH = 13;

function xor(bytes: Buffer, key: string): Buffer {
  const k = Buffer.from(key.slice(0, OBFUSCATION_KEY_LENGTH), 'utf8');
  const out = Buffer.alloc(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = bytes[i]! ^ k[i % k.length]!;
  return out;
}

export function obfuscate(text: string, licenseKey: string): string {
  return xor(Buffer.from(text, 'utf8'), licenseKey).toString('base64');
}

export function deobfuscate(obfuscated: string, licenseKey: string): string {
  return xor(Buffer.from(obfuscated, 'base64'), licenseKey).toString('utf8');
}

/**
 * The obfuscation keys of accounts, learned from the license keys their APM agents present (the
 * catalog keeps only hashes, so the service cannot know a key until an agent sends it). Only the
 * 13-character prefix is held, in memory; after a restart, names are read again from the first
 * harvest of each account's agents.
 */
export class ObfuscationKeys {
  private readonly byAccount = new Map<number, string>();

  /** An agent of `accountId` presented `licenseKey` (already checked against the catalog). */
  learn(accountId: number, licenseKey: string): void {
    if (licenseKey.length >= OBFUSCATION_KEY_LENGTH && this.byAccount.get(accountId) !== licenseKey.slice(0, OBFUSCATION_KEY_LENGTH)) {
      this.byAccount.set(accountId, licenseKey.slice(0, OBFUSCATION_KEY_LENGTH));
    }
  }

  /**
   * The APM transaction name an injected page carries, or undefined when the account's key is not
   * known yet or the text does not read as a transaction name.
   */
  transactionName(accountId: number, obfuscated: string | undefined): string | undefined {
    const key = this.byAccount.get(accountId);
    if (key === undefined || obfuscated === undefined || obfuscated === '' || obfuscated.length > 2048) return undefined;
    const name = deobfuscate(obfuscated, key);
    return /^(WebTransaction|OtherTransaction)\//.test(name) && !name.includes('\ufffd') ? name : undefined;
  }
}
