import type pg from 'pg';
import type { Clock } from '../../../clock.js';
import { generateLicenseKey, generateUserKey, hashKey, keyHint } from '../../../security/keys.js';
import {
  checkedAccountName, checkedUser, type Account, type AccountsAndKeys, type BootstrapKeys, type CreatedKeys, type KeyInfo, type KeyKind,
  type KeyUser, type NewUser, type User,
} from '../../catalog/accounts.js';
import { notifyChange, type PgChangeFeed } from '../pg-change-feed.js';
import type { PostgresDatabase } from '../pg-database.js';
import { refuseNul } from '../pg-text.js';

/** The first user's name and email when none are configured (as the embedded store's). */
const FIRST_USER = { name: 'Admin', email: 'admin@localhost' } as const;
const TOPIC = 'accounts';

interface Snapshot {
  readonly accounts: Map<number, Account>;
  readonly users: Map<number, User>;
  /** By key hash. */
  readonly keys: Map<string, KeyInfo>;
}

/**
 * Accounts, users and hashed keys in PostgreSQL, shared by every node. Each node holds them in
 * memory (every request authenticates without a query); a write commits, updates this node's
 * memory, and notifies the others, which reload (`PgChangeFeed`): a key created or revoked on one
 * node authenticates, or stops, on the others within a notification's round trip. Ids come from
 * the database (identity columns; accounts under a table lock), so nodes never hand out the same.
 */
export class PgAccounts implements AccountsAndKeys {
  private snapshot: Snapshot = { accounts: new Map(), users: new Map(), keys: new Map() };
  /** Keys the environment gave this node for its run only: never stored, kept across reloads. */
  private readonly transient = new Map<string, KeyInfo>();

  constructor(private readonly db: PostgresDatabase, private readonly clock: Clock, feed: PgChangeFeed) {
    feed.on(TOPIC, () => this.load());
  }

  async load(): Promise<void> {
    const accounts = new Map<number, Account>();
    const users = new Map<number, User>();
    const keys = new Map<string, KeyInfo>();
    // One snapshot: the three reads see the same committed state.
    await this.db.transaction(async (c) => {
      await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      for (const r of (await c.query<{ id: number; name: string }>('SELECT id, name FROM accounts')).rows) accounts.set(r.id, { id: r.id, name: r.name });
      for (const r of (await c.query<{ id: number; account_id: number; name: string; email: string | null; admin: boolean; created_at: number }>(
        'SELECT id, account_id, name, email, admin, created_at FROM users',
      )).rows) {
        users.set(r.id, { id: r.id, accountId: r.account_id, name: r.name, email: r.email, admin: r.admin, createdAt: r.created_at });
      }
      for (const r of (await c.query<{ id: number; account_id: number; kind: KeyKind; key_hash: string; hint: string; created_at: number; user_id: number | null }>(
        'SELECT id, account_id, kind, key_hash, hint, created_at, user_id FROM api_keys',
      )).rows) {
        keys.set(r.key_hash, { id: r.id, accountId: r.account_id, kind: r.kind, userId: r.user_id ?? undefined, hint: r.hint, createdAt: r.created_at, transient: false });
      }
    });
    for (const [hash, info] of this.transient) if (!keys.has(hash)) keys.set(hash, info);
    this.snapshot = { accounts, users, keys };
  }

  /** Runs a write in one transaction that notifies the other nodes, then reloads this node's memory. */
  private async write<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const result = await this.db.transaction(async (c) => {
      const out = await work(c);
      await notifyChange(c, TOPIC);
      return out;
    });
    await this.load();
    return result;
  }

  async bootstrap(given: BootstrapKeys = {}): Promise<CreatedKeys | undefined> {
    const created = await this.write(async (c) => {
      // Nodes starting together: one creates account 1, the others find it.
      await c.query('LOCK TABLE accounts IN EXCLUSIVE MODE');
      if ((await c.query('SELECT 1 FROM accounts LIMIT 1')).rowCount !== 0) return undefined;
      const now = this.clock.now();
      await c.query('INSERT INTO accounts VALUES (1, $1, $2)', ['Default', now]);
      const first = checkedUser(given.userName ?? FIRST_USER.name, given.userEmail ?? FIRST_USER.email);
      refuseNul(first.name, 'a user name');
      refuseNul(first.email, 'an email address');
      const userId = await this.insertUser(c, { accountId: 1, ...first, admin: true });
      const keys = { userKey: given.userKey ?? generateUserKey(), licenseKey: given.licenseKey ?? generateLicenseKey() };
      await this.insertKey(c, 1, 'user', keys.userKey, userId);
      await this.insertKey(c, 1, 'license', keys.licenseKey, undefined);
      return keys;
    });
    if (created) return created;
    // A key the environment names but the store lacks: accepted while this process runs, never written.
    const admin = this.users(1)[0];
    for (const [kind, key] of [['user', given.userKey], ['license', given.licenseKey]] as const) {
      if (!key || this.snapshot.keys.has(hashKey(key))) continue;
      if (kind === 'user' && !admin) continue;
      const id = (await this.db.pool.query<{ id: number }>("SELECT nextval(pg_get_serial_sequence('api_keys', 'id'))::int AS id")).rows[0]!.id;
      const info: KeyInfo = { id, accountId: 1, kind, userId: kind === 'user' ? admin!.id : undefined, hint: keyHint(key), createdAt: this.clock.now(), transient: true };
      this.transient.set(hashKey(key), info);
      this.snapshot.keys.set(hashKey(key), info);
    }
    return undefined;
  }

  async createAccount(name: string): Promise<Account> {
    const trimmed = refuseNul(checkedAccountName(name), 'an account name');
    const id = await this.write(async (c) => {
      await c.query('LOCK TABLE accounts IN EXCLUSIVE MODE');
      const next = (await c.query<{ id: number }>('SELECT coalesce(max(id), 0) + 1 AS id FROM accounts')).rows[0]!.id;
      await c.query('INSERT INTO accounts VALUES ($1, $2, $3)', [next, trimmed, this.clock.now()]);
      return next;
    });
    return { id, name: trimmed };
  }

  account(id: number): Account | undefined {
    return this.snapshot.accounts.get(id);
  }

  accounts(): Account[] {
    return [...this.snapshot.accounts.values()].sort((a, b) => a.id - b.id);
  }

  async createUser(spec: NewUser): Promise<{ user: User; key: string }> {
    const checked = checkedUser(spec.name, spec.email);
    refuseNul(checked.name, 'a user name');
    refuseNul(checked.email, 'an email address');
    const key = generateUserKey();
    const id = await this.write(async (c) => {
      await this.lockAccount(c, spec.accountId);
      const userId = await this.insertUser(c, { accountId: spec.accountId, ...checked, admin: spec.admin ?? false });
      await this.insertKey(c, spec.accountId, 'user', key, userId);
      return userId;
    });
    return { user: this.snapshot.users.get(id)!, key };
  }

  user(id: number): User | undefined {
    return this.snapshot.users.get(id);
  }

  users(accountId?: number): User[] {
    return [...this.snapshot.users.values()].filter((u) => accountId === undefined || u.accountId === accountId).sort((a, b) => a.id - b.id);
  }

  async createUserKey(accountId: number, userId?: number): Promise<string> {
    const key = generateUserKey();
    await this.write(async (c) => {
      await this.lockAccount(c, accountId);
      let owner: number | undefined;
      if (userId !== undefined) {
        const found = await c.query('SELECT 1 FROM users WHERE id = $1 AND account_id = $2', [userId, accountId]);
        if (found.rowCount === 0) throw new RangeError(`user ${userId} does not exist in account ${accountId}`);
        owner = userId;
      } else {
        owner = (await c.query<{ id: number }>('SELECT id FROM users WHERE account_id = $1 ORDER BY id LIMIT 1', [accountId])).rows[0]?.id;
        owner ??= await this.insertUser(c, { accountId, name: `Account ${accountId} user`, email: `account-${accountId}@localhost`, admin: false });
      }
      await this.insertKey(c, accountId, 'user', key, owner);
    });
    return key;
  }

  async createLicenseKey(accountId: number): Promise<string> {
    const key = generateLicenseKey();
    await this.write(async (c) => {
      await this.lockAccount(c, accountId);
      await this.insertKey(c, accountId, 'license', key, undefined);
    });
    return key;
  }

  async revokeKey(key: string): Promise<void> {
    const hash = hashKey(key.trim());
    this.transient.delete(hash);
    await this.write(async (c) => {
      await c.query('DELETE FROM api_keys WHERE key_hash = $1', [hash]);
    });
  }

  async revokeKeyById(id: number): Promise<boolean> {
    for (const [hash, k] of this.transient) {
      if (k.id !== id) continue;
      this.transient.delete(hash);
      this.snapshot.keys.delete(hash);
      return true;
    }
    return this.write(async (c) => (await c.query('DELETE FROM api_keys WHERE id = $1', [id])).rowCount === 1);
  }

  async rotateKey(id: number): Promise<{ key: string; info: KeyInfo } | undefined> {
    const old = this.keys().find((k) => k.id === id);
    if (!old) return undefined;
    const key = old.kind === 'user' ? generateUserKey() : generateLicenseKey();
    if (old.transient) {
      for (const [hash, k] of this.transient) if (k.id === id) this.transient.delete(hash);
    }
    // The new key and the old one's removal commit together: never both, never neither.
    const rotated = await this.write(async (c) => {
      if (!old.transient && (await c.query('DELETE FROM api_keys WHERE id = $1', [id])).rowCount === 0) return false;
      await this.insertKey(c, old.accountId, old.kind, key, old.userId);
      return true;
    });
    if (!rotated) return undefined;
    return { key, info: this.snapshot.keys.get(hashKey(key))! };
  }

  keys(accountId?: number): KeyInfo[] {
    return [...this.snapshot.keys.values()].filter((k) => accountId === undefined || k.accountId === accountId).sort((a, b) => a.id - b.id);
  }

  accountForLicenseKey(key: string): number | undefined {
    const found = this.snapshot.keys.get(hashKey(key.trim()));
    return found?.kind === 'license' ? found.accountId : undefined;
  }

  accountForUserKey(key: string): number | undefined {
    const found = this.snapshot.keys.get(hashKey(key.trim()));
    return found?.kind === 'user' ? found.accountId : undefined;
  }

  keyId(key: string): number | undefined {
    return this.snapshot.keys.get(hashKey(key.trim()))?.id;
  }

  userOfKey(key: string): KeyUser | undefined {
    const found = this.snapshot.keys.get(hashKey(key.trim()));
    const user = found?.kind === 'user' && found.userId !== undefined ? this.snapshot.users.get(found.userId) : undefined;
    return user && { ...user, hint: found!.hint };
  }

  /** The account exists (on the database, not just this node's memory) and stays while the write runs. */
  private async lockAccount(c: pg.PoolClient, accountId: number): Promise<void> {
    const found = await c.query('SELECT 1 FROM accounts WHERE id = $1 FOR SHARE', [accountId]);
    if (found.rowCount === 0) throw new RangeError(`account ${accountId} does not exist`);
  }

  private async insertUser(c: pg.PoolClient, spec: Omit<User, 'id' | 'createdAt'>): Promise<number> {
    const { rows } = await c.query<{ id: number }>(
      'INSERT INTO users (account_id, name, email, admin, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id',
      [spec.accountId, spec.name, spec.email, spec.admin, this.clock.now()],
    );
    return rows[0]!.id;
  }

  private async insertKey(c: pg.PoolClient, accountId: number, kind: KeyKind, key: string, userId: number | undefined): Promise<void> {
    await c.query(
      'INSERT INTO api_keys (account_id, kind, key_hash, hint, created_at, user_id) VALUES ($1, $2, $3, $4, $5, $6)',
      [accountId, kind, hashKey(key), keyHint(key), this.clock.now(), userId ?? null],
    );
  }
}
