import { checkedAccountName, type Account, type AccountsAndKeys, type BootstrapKeys, type CreatedKeys, type KeyUser } from '../../catalog/accounts.js';
import { generateLicenseKey, generateUserKey, hashKey, keyHint } from '../../../security/keys.js';
import { timestampValue } from '../duckdb-values.js';
import type { CatalogWrites } from './catalog-writes.js';

interface StoredKey { id: number; accountId: number; kind: 'user' | 'license'; hint: string; createdAt: number }

/** Accounts and hashed keys (`accounts`, `api_keys`), in memory and written through. */
export class DuckDbAccounts implements AccountsAndKeys {
  private readonly accountsById = new Map<number, Account>();
  /** By key hash. */
  private readonly keys = new Map<string, StoredKey>();
  private nextKeyId = 1;

  constructor(private readonly w: CatalogWrites) {}

  async load(): Promise<void> {
    for (const r of await this.w.db.all<{ id: number; name: string }>('SELECT id, name FROM accounts')) {
      this.accountsById.set(r.id, { id: r.id, name: r.name });
    }
    for (const r of await this.w.db.all<{ id: number; account_id: number; kind: 'user' | 'license'; key_hash: string; hint: string; created_ms: bigint }>(
      'SELECT id, account_id, kind, key_hash, hint, epoch_ms(created_at) AS created_ms FROM api_keys',
    )) {
      this.keys.set(r.key_hash, { id: r.id, accountId: r.account_id, kind: r.kind, hint: r.hint, createdAt: Number(r.created_ms) });
      this.nextKeyId = Math.max(this.nextKeyId, r.id + 1);
    }
  }

  async bootstrap(given: BootstrapKeys = {}): Promise<CreatedKeys | undefined> {
    return this.w.mutex.run(async () => {
      if (this.accountsById.size > 0) {
        for (const [kind, key] of [['user', given.userKey], ['license', given.licenseKey]] as const) {
          if (key && !this.keys.has(hashKey(key))) await this.insertKey(1, kind, key);
        }
        return undefined;
      }
      await this.w.exec('INSERT INTO accounts VALUES (1, $1, $2)', ['Default', this.w.now()]);
      this.accountsById.set(1, { id: 1, name: 'Default' });
      const keys = { userKey: given.userKey ?? generateUserKey(), licenseKey: given.licenseKey ?? generateLicenseKey() };
      await this.insertKey(1, 'user', keys.userKey);
      await this.insertKey(1, 'license', keys.licenseKey);
      return keys;
    });
  }

  async createAccount(name: string): Promise<Account> {
    const trimmed = checkedAccountName(name);
    return this.w.mutex.run(async () => {
      const account: Account = { id: Math.max(0, ...this.accountsById.keys()) + 1, name: trimmed };
      await this.w.exec('INSERT INTO accounts VALUES ($1, $2, $3)', [account.id, account.name, this.w.now()]);
      this.accountsById.set(account.id, account);
      return account;
    });
  }

  account(id: number): Account | undefined {
    return this.accountsById.get(id);
  }

  accounts(): Account[] {
    return [...this.accountsById.values()].sort((a, b) => a.id - b.id);
  }

  createUserKey(accountId: number): Promise<string> {
    return this.createKey(accountId, 'user', generateUserKey());
  }

  createLicenseKey(accountId: number): Promise<string> {
    return this.createKey(accountId, 'license', generateLicenseKey());
  }

  private async createKey(accountId: number, kind: 'user' | 'license', key: string): Promise<string> {
    return this.w.mutex.run(async () => {
      if (!this.accountsById.has(accountId)) throw new RangeError(`account ${accountId} does not exist`);
      await this.insertKey(accountId, kind, key);
      return key;
    });
  }

  async revokeKey(key: string): Promise<void> {
    const hash = hashKey(key.trim());
    await this.w.mutex.run(async () => {
      await this.w.exec('DELETE FROM api_keys WHERE key_hash = $1', [hash]);
      this.keys.delete(hash);
    });
  }

  private async insertKey(accountId: number, kind: 'user' | 'license', key: string): Promise<void> {
    const id = this.nextKeyId++;
    const createdAt = this.w.clock.now();
    await this.w.exec('INSERT INTO api_keys VALUES ($1, $2, $3, $4, $5, $6)', [id, accountId, kind, hashKey(key), keyHint(key), timestampValue(createdAt)]);
    this.keys.set(hashKey(key), { id, accountId, kind, hint: keyHint(key), createdAt });
  }

  accountForLicenseKey(key: string): number | undefined {
    const found = this.keys.get(hashKey(key.trim()));
    return found?.kind === 'license' ? found.accountId : undefined;
  }

  accountForUserKey(key: string): number | undefined {
    const found = this.keys.get(hashKey(key.trim()));
    return found?.kind === 'user' ? found.accountId : undefined;
  }

  keyId(key: string): number | undefined {
    return this.keys.get(hashKey(key.trim()))?.id;
  }

  userOfKey(key: string): KeyUser | undefined {
    const found = this.keys.get(hashKey(key.trim()));
    return found?.kind === 'user' ? { id: found.id, accountId: found.accountId, hint: found.hint, name: `User of key ${found.hint}`, createdAt: found.createdAt } : undefined;
  }
}
