import { entityName, entityNameRule } from '../../domain/entity-name.js';

export interface Account { readonly id: number; readonly name: string }

/** Timeslice keeps no user records: a user key stands for its user, whose id is the key's. */
export interface KeyUser {
  readonly id: number;
  /** The one account the key reaches. */
  readonly accountId: number;
  /** The key's kind and last four characters. */
  readonly hint: string;
  readonly name: string;
  /** Epoch ms. */
  readonly createdAt: number;
}

export interface BootstrapKeys {
  /** Keys to use for account 1 instead of generated ones (emulator mode). */
  readonly userKey?: string;
  readonly licenseKey?: string;
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
   * First start: account 1 ("Default") with a user key and a license key. Returns the keys in
   * clear when it created them (or was given them), and undefined when the account existed.
   * Keys given by the environment are registered even on a later start, so an emulator run can
   * always use the keys it was started with.
   */
  bootstrap(given?: BootstrapKeys): Promise<CreatedKeys | undefined>;
  /** A new account with the next id; it has no keys until `createUserKey` / `createLicenseKey`. */
  createAccount(name: string): Promise<Account>;
  account(id: number): Account | undefined;
  /** Every account, by id. */
  accounts(): Account[];
  /** A new user key (REST, the graph API) for the account, in clear: only its hash is stored. */
  createUserKey(accountId: number): Promise<string>;
  /** A new license key (agents, ingest) for the account, in clear: only its hash is stored. */
  createLicenseKey(accountId: number): Promise<string>;
  /** Removes a key: it authenticates nothing from now on. */
  revokeKey(key: string): Promise<void>;
  accountForLicenseKey(key: string): number | undefined;
  accountForUserKey(key: string): number | undefined;
  /** The id of a stored key, user or license (what `TimesliceApiCall` events name a caller by). */
  keyId(key: string): number | undefined;
  /** The user a user key stands for (NerdGraph's `actor.user`), named after the key's hint. */
  userOfKey(key: string): KeyUser | undefined;
}
