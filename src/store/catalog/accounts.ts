import { entityName, entityNameRule } from '../../domain/entity-name.js';

export interface Account { readonly id: number; readonly name: string }

/** A person: NerdGraph's `actor.user`. Their user keys reach their one account. */
export interface User {
  readonly id: number;
  readonly accountId: number;
  readonly name: string;
  /** Null for users made from keys that predate users (migration 10). */
  readonly email: string | null;
  /** May manage accounts, users and keys through the service's HTTP API. */
  readonly admin: boolean;
  /** Epoch ms. */
  readonly createdAt: number;
}

/** The user a user key belongs to, and which key it is. */
export interface KeyUser extends User {
  /** The key's kind and last four characters. */
  readonly hint: string;
}

export type KeyKind = 'user' | 'license';

/** What may be shown of a stored key: never the key, only its hint. */
export interface KeyInfo {
  readonly id: number;
  readonly accountId: number;
  readonly kind: KeyKind;
  /** The user a user key belongs to; undefined for license keys. */
  readonly userId: number | undefined;
  readonly hint: string;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Given by the environment (TIMESLICE_API_KEY / TIMESLICE_LICENSE_KEY) for this run only; never stored. */
  readonly transient: boolean;
}

export interface NewUser {
  readonly accountId: number;
  readonly name: string;
  readonly email: string;
  readonly admin?: boolean;
}

export const USER_NAME_LENGTH = 255;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** A user's name and email as stored, trimmed; a RangeError when either is unusable. */
export function checkedUser(name: string, email: string): { name: string; email: string } {
  const n = name.trim();
  const e = email.trim();
  if (n === '' || n.length > USER_NAME_LENGTH) throw new RangeError(`a user name is 1 to ${USER_NAME_LENGTH} characters`);
  if (!EMAIL.test(e) || e.length > 320) throw new RangeError(`'${e}' is not an email address`);
  return { name: n, email: e };
}

export interface BootstrapKeys {
  /** Keys to use for account 1 instead of generated ones (emulator mode). */
  readonly userKey?: string;
  readonly licenseKey?: string;
  /** The first user (account 1's admin): their name and email, when the account is created. */
  readonly userName?: string;
  readonly userEmail?: string;
}

/** Keys in clear, known only at the moment they were created (or given by the environment). */
export interface CreatedKeys { readonly userKey: string; readonly licenseKey: string }

/** The name an account is created with, trimmed; a RangeError when empty or too long. */
export function checkedAccountName(name: string): string {
  const trimmed = entityName(name);
  if (trimmed === undefined) throw new RangeError(entityNameRule('an account'));
  return trimmed;
}

/** Accounts and their keys, held only as hashes: who a key is, for every surface's authentication. */
export interface AccountsAndKeys {
  /**
   * First start: account 1 ("Default"), its first user (an admin), a user key and a license key.
   * Returns the keys in clear when it created them (or was given them), and undefined when the
   * account existed. Keys given on a later start that are not stored are accepted for this run
   * only, held in memory: they are never written, so they end when the process does.
   */
  bootstrap(given?: BootstrapKeys): Promise<CreatedKeys | undefined>;
  /** A new account with the next id; it has no keys until `createUserKey` / `createLicenseKey`. */
  createAccount(name: string): Promise<Account>;
  account(id: number): Account | undefined;
  /** Every account, by id. */
  accounts(): Account[];
  /** A new user with a user key (in clear: only its hash is stored). */
  createUser(user: NewUser): Promise<{ user: User; key: string }>;
  user(id: number): User | undefined;
  /** Users of one account, or every user, by id. */
  users(accountId?: number): User[];
  /**
   * A new user key (REST, the graph API) in clear: only its hash is stored. It belongs to `userId`,
   * or else to the account's first user (one is made when the account has none).
   */
  createUserKey(accountId: number, userId?: number): Promise<string>;
  /** A new license key (agents, ingest) for the account, in clear: only its hash is stored. */
  createLicenseKey(accountId: number): Promise<string>;
  /** Removes a key: it authenticates nothing from now on. */
  revokeKey(key: string): Promise<void>;
  /** Removes a key by id; false when there is none. */
  revokeKeyById(id: number): Promise<boolean>;
  /** A new key of the same kind for the same account (and user) in clear, and the old one revoked; undefined when there is none. */
  rotateKey(id: number): Promise<{ key: string; info: KeyInfo } | undefined>;
  /** Keys of one account, or every key, by id: hints only. */
  keys(accountId?: number): KeyInfo[];
  accountForLicenseKey(key: string): number | undefined;
  accountForUserKey(key: string): number | undefined;
  /** The id of a stored key, user or license (what `TimesliceApiCall` events name a caller by). */
  keyId(key: string): number | undefined;
  /** The user a user key belongs to (NerdGraph's `actor.user`). */
  userOfKey(key: string): KeyUser | undefined;
}
