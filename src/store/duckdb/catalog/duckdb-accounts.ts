import {
  checkedAccountName, checkedUser, type Account, type AccountsAndKeys, type BootstrapKeys, type CreatedKeys, type KeyInfo, type KeyKind,
  type KeyUser, type NewUser, type User,
} from '../../catalog/accounts.js';
import { generateLicenseKey, generateUserKey, hashKey, keyHint } from '../../../security/keys.js';
import { timestampValue } from '../duckdb-values.js';
import type { CatalogWrites } from './catalog-writes.js';

/** The first user's name and email when none are configured (TIMESLICE_ADMIN_NAME / TIMESLICE_ADMIN_EMAIL). */
export const FIRST_USER = { name: 'Admin', email: 'admin@localhost' } as const;

/** Accounts, users and hashed keys (`accounts`, `users`, `api_keys`), in memory and written through. */
export class DuckDbAccounts implements AccountsAndKeys {
  private readonly accountsById = new Map<number, Account>();
  private readonly usersById = new Map<number, User>();
  /** By key hash. */
  private readonly keysByHash = new Map<string, KeyInfo>();
  private nextKeyId = 1;
  private nextUserId = 1;

  constructor(private readonly w: CatalogWrites) {}

  async load(): Promise<void> {
    for (const r of await this.w.db.all<{ id: number; name: string }>('SELECT id, name FROM accounts')) {
      this.accountsById.set(r.id, { id: r.id, name: r.name });
    }
    for (const r of await this.w.db.all<{ id: number; account_id: number; name: string; email: string | null; admin: boolean; created_ms: bigint }>(
      'SELECT id, account_id, name, email, admin, epoch_ms(created_at) AS created_ms FROM users',
    )) {
      this.usersById.set(r.id, { id: r.id, accountId: r.account_id, name: r.name, email: r.email, admin: r.admin, createdAt: Number(r.created_ms) });
      this.nextUserId = Math.max(this.nextUserId, r.id + 1);
    }
    for (const r of await this.w.db.all<{ id: number; account_id: number; kind: KeyKind; key_hash: string; hint: string; created_ms: bigint; user_id: number | null }>(
      'SELECT id, account_id, kind, key_hash, hint, epoch_ms(created_at) AS created_ms, user_id FROM api_keys',
    )) {
      this.keysByHash.set(r.key_hash, {
        id: r.id, accountId: r.account_id, kind: r.kind, userId: r.user_id ?? undefined, hint: r.hint, createdAt: Number(r.created_ms), transient: false,
      });
      this.nextKeyId = Math.max(this.nextKeyId, r.id + 1);
    }
  }

  async bootstrap(given: BootstrapKeys = {}): Promise<CreatedKeys | undefined> {
    return this.w.mutex.run(async () => {
      if (this.accountsById.size > 0) {
        // A key the environment names but the store lacks: accepted while this process runs, never written.
        const admin = this.firstUser(1);
        for (const [kind, key] of [['user', given.userKey], ['license', given.licenseKey]] as const) {
          if (!key || this.keysByHash.has(hashKey(key))) continue;
          if (kind === 'user' && !admin) continue;
          this.keysByHash.set(hashKey(key), {
            id: this.nextKeyId++, accountId: 1, kind, userId: kind === 'user' ? admin!.id : undefined, hint: keyHint(key), createdAt: this.w.clock.now(), transient: true,
          });
        }
        return undefined;
      }
      await this.w.exec('INSERT INTO accounts VALUES (1, $1, $2)', ['Default', this.w.now()]);
      this.accountsById.set(1, { id: 1, name: 'Default' });
      const first = checkedUser(given.userName ?? FIRST_USER.name, given.userEmail ?? FIRST_USER.email);
      const user = await this.insertUser({ accountId: 1, ...first, admin: true });
      const keys = { userKey: given.userKey ?? generateUserKey(), licenseKey: given.licenseKey ?? generateLicenseKey() };
      await this.insertKey(1, 'user', keys.userKey, user.id);
      await this.insertKey(1, 'license', keys.licenseKey, undefined);
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

  async createUser(spec: NewUser): Promise<{ user: User; key: string }> {
    const checked = checkedUser(spec.name, spec.email);
    return this.w.mutex.run(async () => {
      this.requireAccount(spec.accountId);
      const user = await this.insertUser({ accountId: spec.accountId, ...checked, admin: spec.admin ?? false });
      const key = generateUserKey();
      await this.insertKey(spec.accountId, 'user', key, user.id);
      return { user, key };
    });
  }

  user(id: number): User | undefined {
    return this.usersById.get(id);
  }

  users(accountId?: number): User[] {
    return [...this.usersById.values()].filter((u) => accountId === undefined || u.accountId === accountId).sort((a, b) => a.id - b.id);
  }

  createUserKey(accountId: number, userId?: number): Promise<string> {
    return this.w.mutex.run(async () => {
      this.requireAccount(accountId);
      let owner = userId === undefined ? this.firstUser(accountId) : this.usersById.get(userId);
      if (userId !== undefined && owner?.accountId !== accountId) throw new RangeError(`user ${userId} does not exist in account ${accountId}`);
      owner ??= await this.insertUser({ accountId, name: `Account ${accountId} user`, email: `account-${accountId}@localhost`, admin: false });
      const key = generateUserKey();
      await this.insertKey(accountId, 'user', key, owner.id);
      return key;
    });
  }

  createLicenseKey(accountId: number): Promise<string> {
    return this.w.mutex.run(async () => {
      this.requireAccount(accountId);
      const key = generateLicenseKey();
      await this.insertKey(accountId, 'license', key, undefined);
      return key;
    });
  }

  async revokeKey(key: string): Promise<void> {
    const hash = hashKey(key.trim());
    await this.w.mutex.run(async () => {
      await this.w.exec('DELETE FROM api_keys WHERE key_hash = $1', [hash]);
      this.keysByHash.delete(hash);
    });
  }

  revokeKeyById(id: number): Promise<boolean> {
    return this.w.mutex.run(async () => this.deleteById(id));
  }

  rotateKey(id: number): Promise<{ key: string; info: KeyInfo } | undefined> {
    return this.w.mutex.run(async () => {
      const old = this.keyById(id);
      if (!old) return undefined;
      const key = old.kind === 'user' ? generateUserKey() : generateLicenseKey();
      // The new key is stored before the old one goes: a failure between leaves both, never neither.
      const info = await this.insertKey(old.accountId, old.kind, key, old.userId);
      await this.deleteById(id);
      return { key, info };
    });
  }

  keys(accountId?: number): KeyInfo[] {
    return [...this.keysByHash.values()].filter((k) => accountId === undefined || k.accountId === accountId).sort((a, b) => a.id - b.id);
  }

  accountForLicenseKey(key: string): number | undefined {
    const found = this.keysByHash.get(hashKey(key.trim()));
    return found?.kind === 'license' ? found.accountId : undefined;
  }

  accountForUserKey(key: string): number | undefined {
    const found = this.keysByHash.get(hashKey(key.trim()));
    return found?.kind === 'user' ? found.accountId : undefined;
  }

  keyId(key: string): number | undefined {
    return this.keysByHash.get(hashKey(key.trim()))?.id;
  }

  userOfKey(key: string): KeyUser | undefined {
    const found = this.keysByHash.get(hashKey(key.trim()));
    const user = found?.kind === 'user' && found.userId !== undefined ? this.usersById.get(found.userId) : undefined;
    return user && { ...user, hint: found!.hint };
  }

  private requireAccount(accountId: number): void {
    if (!this.accountsById.has(accountId)) throw new RangeError(`account ${accountId} does not exist`);
  }

  private firstUser(accountId: number): User | undefined {
    return this.users(accountId)[0];
  }

  private keyById(id: number): KeyInfo | undefined {
    for (const k of this.keysByHash.values()) if (k.id === id) return k;
    return undefined;
  }

  private async deleteById(id: number): Promise<boolean> {
    for (const [hash, k] of this.keysByHash) {
      if (k.id !== id) continue;
      if (!k.transient) await this.w.exec('DELETE FROM api_keys WHERE id = $1', [id]);
      this.keysByHash.delete(hash);
      return true;
    }
    return false;
  }

  private async insertUser(spec: Omit<User, 'id' | 'createdAt'>): Promise<User> {
    const user: User = { id: this.nextUserId++, ...spec, createdAt: this.w.clock.now() };
    await this.w.exec('INSERT INTO users VALUES ($1, $2, $3, $4, $5, $6)', [user.id, user.accountId, user.name, user.email, user.admin, timestampValue(user.createdAt)]);
    this.usersById.set(user.id, user);
    return user;
  }

  private async insertKey(accountId: number, kind: KeyKind, key: string, userId: number | undefined): Promise<KeyInfo> {
    const info: KeyInfo = { id: this.nextKeyId++, accountId, kind, userId, hint: keyHint(key), createdAt: this.w.clock.now(), transient: false };
    await this.w.exec('INSERT INTO api_keys VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      info.id, accountId, kind, hashKey(key), info.hint, timestampValue(info.createdAt), userId ?? null,
    ]);
    this.keysByHash.set(hashKey(key), info);
    return info;
  }
}
