import type { Catalog, KeyInfo, User } from '../store/catalog.js';

/**
 * Accounts, users and keys: the operations `timeslice accounts|users|keys` run, through
 * `POST /timeslice/v1/admin` while the service runs (an admin's user key) or on a stopped data
 * directory (the recovery when every key is lost). Keys appear in clear only in the answer that
 * made them; lists show hints.
 */
export type ManagementRequest =
  | { readonly op: 'accounts.list' }
  | { readonly op: 'accounts.create'; readonly name: string }
  | { readonly op: 'users.list'; readonly account?: number }
  | { readonly op: 'users.create'; readonly account: number; readonly name: string; readonly email: string; readonly admin?: boolean }
  | { readonly op: 'keys.list'; readonly account?: number }
  | { readonly op: 'keys.create'; readonly account: number; readonly kind: 'user' | 'license'; readonly user?: number }
  | { readonly op: 'keys.revoke'; readonly id: number }
  | { readonly op: 'keys.rotate'; readonly id: number };

export type ManagementCatalog = Pick<
  Catalog,
  'accounts' | 'account' | 'createAccount' | 'createLicenseKey' | 'createUserKey' | 'createUser' | 'users' | 'user' | 'keys' | 'keyId' | 'revokeKeyById' | 'rotateKey'
>;

/** A refused operation: its HTTP status and a message for the person. */
export class ManagementError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const OPS = ['accounts.list', 'accounts.create', 'users.list', 'users.create', 'keys.list', 'keys.create', 'keys.revoke', 'keys.rotate'];

/** Checks a request body's shape; a ManagementError (400) says what is wrong. */
export function parseManagementRequest(body: unknown): ManagementRequest {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b !== 'object' || typeof b.op !== 'string' || !OPS.includes(b.op)) {
    throw new ManagementError(400, `The body must be JSON with "op", one of ${OPS.join(', ')}`);
  }
  const id = (field: string, optional = false): number | undefined => {
    const v = b[field];
    if (v === undefined && optional) return undefined;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw new ManagementError(400, `"${field}" must be a positive whole number`);
    return v;
  };
  const text = (field: string): string => {
    if (typeof b[field] !== 'string') throw new ManagementError(400, `"${field}" must be a string`);
    return b[field] as string;
  };
  switch (b.op) {
    case 'accounts.list': return { op: b.op };
    case 'accounts.create': return { op: b.op, name: text('name') };
    case 'users.list':
    case 'keys.list': {
      const account = id('account', true);
      return account === undefined ? { op: b.op } : { op: b.op, account };
    }
    case 'users.create': {
      if (b.admin !== undefined && typeof b.admin !== 'boolean') throw new ManagementError(400, '"admin" must be true or false');
      return { op: b.op, account: id('account')!, name: text('name'), email: text('email'), admin: b.admin === true };
    }
    case 'keys.create': {
      if (b.kind !== 'user' && b.kind !== 'license') throw new ManagementError(400, '"kind" must be "user" or "license"');
      const user = id('user', true);
      return { op: b.op, account: id('account')!, kind: b.kind, ...(user !== undefined ? { user } : {}) };
    }
    default: return { op: b.op as 'keys.revoke' | 'keys.rotate', id: id('id')! };
  }
}

function userView(u: User) {
  return { id: u.id, accountId: u.accountId, name: u.name, email: u.email, admin: u.admin, createdAt: new Date(u.createdAt).toISOString() };
}

function keyView(k: KeyInfo) {
  return {
    id: k.id, accountId: k.accountId, kind: k.kind, userId: k.userId ?? null, hint: k.hint, createdAt: new Date(k.createdAt).toISOString(),
    ...(k.transient ? { transient: true } : {}),
  };
}

/** Runs one operation on the catalog; what it answers is what the HTTP route sends. */
export async function manage(catalog: ManagementCatalog, request: ManagementRequest): Promise<Record<string, unknown>> {
  const infoOf = (key: string): KeyInfo => {
    const id = catalog.keyId(key);
    return catalog.keys().find((k) => k.id === id)!;
  };
  const requireAccount = (id: number): void => {
    if (!catalog.account(id)) throw new ManagementError(404, `Account ${id} does not exist`);
  };
  try {
    switch (request.op) {
      case 'accounts.list':
        return { accounts: catalog.accounts() };
      case 'accounts.create': {
        const account = await catalog.createAccount(request.name);
        return { account, licenseKey: await catalog.createLicenseKey(account.id) };
      }
      case 'users.list':
        if (request.account !== undefined) requireAccount(request.account);
        return { users: catalog.users(request.account).map(userView) };
      case 'users.create': {
        requireAccount(request.account);
        const { user, key } = await catalog.createUser({ accountId: request.account, name: request.name, email: request.email, admin: request.admin ?? false });
        return { user: userView(user), key };
      }
      case 'keys.list':
        if (request.account !== undefined) requireAccount(request.account);
        return { keys: catalog.keys(request.account).map(keyView) };
      case 'keys.create': {
        requireAccount(request.account);
        if (request.user !== undefined && catalog.user(request.user)?.accountId !== request.account) {
          throw new ManagementError(404, `User ${request.user} does not exist in account ${request.account}`);
        }
        if (request.kind === 'license') {
          if (request.user !== undefined) throw new ManagementError(400, 'A license key belongs to an account, not a user: leave "user" out');
          const key = await catalog.createLicenseKey(request.account);
          return { key, info: keyView(infoOf(key)) };
        }
        const key = await catalog.createUserKey(request.account, request.user);
        return { key, info: keyView(infoOf(key)) };
      }
      case 'keys.revoke': {
        const info = catalog.keys().find((k) => k.id === request.id);
        if (!info || !(await catalog.revokeKeyById(request.id))) throw new ManagementError(404, `Key ${request.id} does not exist`);
        return { revoked: keyView(info) };
      }
      case 'keys.rotate': {
        const rotated = await catalog.rotateKey(request.id);
        if (!rotated) throw new ManagementError(404, `Key ${request.id} does not exist`);
        return { key: rotated.key, info: keyView(rotated.info), revoked: request.id };
      }
    }
  } catch (error) {
    if (error instanceof RangeError) throw new ManagementError(400, error.message);
    throw error;
  }
}
