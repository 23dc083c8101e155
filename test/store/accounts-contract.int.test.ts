/**
 * Accounts, users and keys (`AccountsAndKeys`) on every engine: the embedded DuckDB catalog and the
 * shared PostgreSQL one answer the same; on PostgreSQL two nodes see each other's changes within a
 * second.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashKey } from '../../src/security/keys.js';
import type { AccountsAndKeys } from '../../src/store/catalog/accounts.js';
import { Database } from '../../src/store/duckdb/database.js';
import { DuckDbCatalog } from '../../src/store/duckdb/duckdb-catalog.js';
import { openPostgresCatalog, type PostgresCatalog } from '../../src/store/postgres/open-postgres-catalog.js';
import { PostgresConfigError } from '../../src/store/postgres/pg-database.js';
import { startPostgres, PG_PASSWORD, PG_USER, freePort, type TestPostgres } from '../helpers/postgres.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const clock = { now: () => NOW };

interface Opened {
  readonly accounts: AccountsAndKeys;
  /** The stored (account, kind, hash) of an account's keys. */
  storedKeys(accountId: number): Promise<Array<{ account_id: number; kind: string; key_hash: string }>>;
  close(): Promise<void>;
}

interface Engine {
  readonly name: string;
  /** A new empty catalog; `reopen` opens the same one again (after the first is closed). */
  create(): Promise<{ open(): Promise<Opened> }>;
}

let server: TestPostgres;
let databases = 0;
const dirs: string[] = [];

const ENGINES: Engine[] = [
  {
    name: 'duckdb',
    async create() {
      const dir = mkdtempSync(join(tmpdir(), 'timeslice-accounts-'));
      dirs.push(dir);
      return {
        async open() {
          const db = await Database.open({ path: join(dir, 'catalog.duckdb'), memoryLimit: '256MB' });
          const catalog = await DuckDbCatalog.load(db, clock);
          return {
            accounts: catalog,
            storedKeys: (id) => db.all('SELECT account_id, kind, key_hash FROM api_keys WHERE account_id = $1 ORDER BY kind, key_hash', [id]),
            close: () => db.close(),
          };
        },
      };
    },
  },
  {
    name: 'postgres',
    async create() {
      const url = await server.createDatabase(`accounts_${++databases}`);
      return {
        async open() {
          const pgc = await openPostgresCatalog(url, { clock });
          return {
            accounts: pgc.catalog,
            storedKeys: async (id) => (await pgc.db.pool.query('SELECT account_id, kind, key_hash FROM api_keys WHERE account_id = $1 ORDER BY kind, key_hash', [id])).rows,
            close: () => pgc.close(),
          };
        },
      };
    },
  },
];

before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

for (const engine of ENGINES) {
  describe(`accounts and keys on ${engine.name}`, () => {
    test('bootstrap once; accounts with the next id; keys authenticate to their account only; all of it persisted', async () => {
      const made = await engine.create();
      let store = await made.open();
      try {
        const { accounts: catalog } = store;
        const keys = (await catalog.bootstrap({ userKey: 'NRAK-GIVENGIVENGIVENGIVENGIVENGIV', userName: 'Ada', userEmail: 'ada@example.com' }))!;
        assert.equal(keys.userKey, 'NRAK-GIVENGIVENGIVENGIVENGIVENGIV');
        assert.match(keys.licenseKey, /^[0-9a-f]{40}$/);
        assert.equal(await catalog.bootstrap(), undefined, 'a second bootstrap creates nothing');
        assert.deepEqual(catalog.accounts(), [{ id: 1, name: 'Default' }]);
        assert.deepEqual(catalog.users(1).map((u) => [u.name, u.email, u.admin, u.createdAt]), [['Ada', 'ada@example.com', true, NOW]]);

        const second = await catalog.createAccount('  Staging ');
        assert.deepEqual(second, { id: 2, name: 'Staging' });
        assert.deepEqual(catalog.account(2), second);
        assert.equal(catalog.account(3), undefined);
        await assert.rejects(catalog.createAccount(' '), { name: 'RangeError', message: 'an account name is 1 to 255 characters' });

        const userKey = await catalog.createUserKey(2);
        const licenseKey = await catalog.createLicenseKey(2);
        assert.match(userKey, /^NRAK-[A-Z0-9]{27}$/);
        assert.equal(catalog.accountForUserKey(userKey), 2);
        assert.equal(catalog.accountForLicenseKey(licenseKey), 2);
        assert.equal(catalog.accountForLicenseKey(userKey), undefined, 'a user key is not a license key');
        assert.equal(catalog.accountForUserKey(licenseKey), undefined);
        assert.equal(catalog.accountForUserKey(` ${userKey} `), 2, 'surrounding blanks are ignored');
        await assert.rejects(catalog.createUserKey(9), { name: 'RangeError', message: 'account 9 does not exist' });
        await assert.rejects(catalog.createLicenseKey(9), { name: 'RangeError', message: 'account 9 does not exist' });
        const user = catalog.userOfKey(userKey)!;
        assert.deepEqual({ ...user, id: typeof user.id }, {
          id: 'number', accountId: 2, hint: `NRAK-…${userKey.slice(-4)}`, name: 'Account 2 user', email: 'account-2@localhost', admin: false, createdAt: NOW,
        });
        assert.equal(catalog.userOfKey(licenseKey), undefined);
        await assert.rejects(catalog.createUserKey(2, 999), { name: 'RangeError', message: 'user 999 does not exist in account 2' });
        const { user: bob, key: bobKey } = await catalog.createUser({ accountId: 2, name: ' Bob ', email: 'bob@example.com' });
        assert.deepEqual([bob.name, bob.accountId, bob.admin, catalog.userOfKey(bobKey)?.id], ['Bob', 2, false, bob.id]);
        const expected = [
          { account_id: 2, kind: 'license', key_hash: hashKey(licenseKey) },
          ...[hashKey(userKey), hashKey(bobKey)].sort().map((key_hash) => ({ account_id: 2, kind: 'user', key_hash })),
        ];
        assert.deepEqual(await store.storedKeys(2), expected);
        assert.deepEqual(catalog.keys(2).map((k) => [k.kind, k.hint, k.transient]), [
          ['user', `NRAK-…${userKey.slice(-4)}`, false], ['license', `…${licenseKey.slice(-4)}`, false], ['user', `NRAK-…${bobKey.slice(-4)}`, false],
        ]);

        await store.close();
        store = await made.open();
        const again = store.accounts;
        assert.deepEqual(again.accounts(), [{ id: 1, name: 'Default' }, { id: 2, name: 'Staging' }]);
        assert.equal(again.accountForUserKey(userKey), 2);
        assert.equal(again.accountForLicenseKey(keys.licenseKey), 1);
        assert.deepEqual(again.userOfKey(userKey), user);
        assert.equal((await again.createAccount('Third')).id, 3);
      } finally {
        await store.close();
      }
    });

    test('revoke, revoke by id and rotate: the old key authenticates nothing, the new one its account and user', async () => {
      const made = await engine.create();
      const store = await made.open();
      try {
        const catalog = store.accounts;
        const keys = (await catalog.bootstrap())!;
        const extra = await catalog.createUserKey(1);
        await catalog.revokeKey(extra);
        assert.equal(catalog.accountForUserKey(extra), undefined);
        const licenseId = catalog.keyId(keys.licenseKey)!;
        const rotated = (await catalog.rotateKey(licenseId))!;
        assert.equal(catalog.accountForLicenseKey(keys.licenseKey), undefined);
        assert.equal(catalog.accountForLicenseKey(rotated.key), 1);
        assert.deepEqual([rotated.info.kind, rotated.info.accountId, rotated.info.hint], ['license', 1, `…${rotated.key.slice(-4)}`]);
        assert.equal(await catalog.rotateKey(licenseId), undefined, 'the old id is gone');
        const userId = catalog.userOfKey(keys.userKey)!.id;
        const userKeyId = catalog.keyId(keys.userKey)!;
        const newUser = (await catalog.rotateKey(userKeyId))!;
        assert.equal(catalog.userOfKey(newUser.key)?.id, userId);
        assert.equal(await catalog.revokeKeyById(newUser.info.id), true);
        assert.equal(await catalog.revokeKeyById(newUser.info.id), false);
        assert.equal(catalog.accountForUserKey(newUser.key), undefined);
        assert.deepEqual(catalog.keys(1).map((k) => k.kind), ['license']);
      } finally {
        await store.close();
      }
    });

    test('keys the environment gives on a later start hold for that run only', async () => {
      const made = await engine.create();
      let store = await made.open();
      try {
        await store.accounts.bootstrap();
        await store.close();
        store = await made.open();
        const given = { userKey: 'NRAK-TRANSIENTTRANSIENTTRANSIENTT', licenseKey: 'f'.repeat(40) };
        assert.equal(await store.accounts.bootstrap(given), undefined);
        assert.equal(store.accounts.accountForUserKey(given.userKey), 1);
        assert.equal(store.accounts.accountForLicenseKey(given.licenseKey), 1);
        assert.deepEqual(store.accounts.keys(1).map((k) => k.transient), [false, false, true, true]);
        assert.deepEqual(await store.storedKeys(1).then((rows) => rows.length), 2, 'never written');
        await store.accounts.createAccount('changes reload nothing away');
        assert.equal(store.accounts.accountForLicenseKey(given.licenseKey), 1);
        await store.close();
        store = await made.open();
        assert.equal(store.accounts.accountForLicenseKey(given.licenseKey), undefined);
      } finally {
        await store.close();
      }
    });
  });
}

describe('accounts shared by two nodes (PostgreSQL)', () => {
  async function until(what: () => boolean, withinMs: number): Promise<number> {
    const started = performance.now();
    while (!what()) {
      if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return performance.now() - started;
  }

  test('a key created or revoked on one node authenticates, or stops, on the other within a second', async () => {
    const url = await server.createDatabase(`accounts_shared_${++databases}`);
    const nodes: PostgresCatalog[] = [];
    try {
      nodes.push(await openPostgresCatalog(url, { clock }), await openPostgresCatalog(url, { clock }));
      const [one, two] = nodes as [PostgresCatalog, PostgresCatalog];
      // Both start at once: one account 1, one admin, one pair of keys.
      const boots = await Promise.all([one.catalog.bootstrap(), two.catalog.bootstrap()]);
      assert.equal(boots.filter((b) => b !== undefined).length, 1);
      const keys = boots.find((b) => b !== undefined)!;
      await until(() => one.catalog.accountForLicenseKey(keys.licenseKey) === 1 && two.catalog.accountForLicenseKey(keys.licenseKey) === 1, 1000);

      const account = await one.catalog.createAccount('Remote');
      const license = await one.catalog.createLicenseKey(account.id);
      const seenMs = await until(() => two.catalog.accountForLicenseKey(license) === account.id, 1000);
      assert.deepEqual(two.catalog.account(account.id), { id: 2, name: 'Remote' });
      // Ids come from the database: both nodes creating at once never collide.
      const made = await Promise.all([one.catalog.createAccount('A'), two.catalog.createAccount('B'), one.catalog.createAccount('C')]);
      assert.deepEqual(made.map((a) => a.id).sort(), [3, 4, 5]);
      await until(() => two.catalog.accounts().length === 5 && one.catalog.accounts().length === 5, 1000);

      await two.catalog.revokeKey(license);
      const goneMs = await until(() => one.catalog.accountForLicenseKey(license) === undefined, 1000);
      assert.ok(seenMs < 1000 && goneMs < 1000, `seen after ${seenMs} ms, revoked after ${goneMs} ms`);
    } finally {
      for (const node of nodes) await node.close();
    }
  });
});

describe('a node whose listening connection is lost (PostgreSQL)', () => {
  test('reconnects and reloads: a key created while it was not listening authenticates within seconds', async () => {
    const url = await server.createDatabase(`accounts_lost_${++databases}`);
    const nodes: PostgresCatalog[] = [];
    try {
      nodes.push(await openPostgresCatalog(url, { clock }), await openPostgresCatalog(url, { clock }));
      const [one, two] = nodes as [PostgresCatalog, PostgresCatalog];
      await one.catalog.bootstrap();
      // The server ends every LISTEN connection (a failover, an administrator): changes meanwhile are not notified.
      const ended = await one.db.pool.query<{ n: number }>(
        "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'");
      assert.equal(ended.rows[0]!.n, 2);
      const key = await one.catalog.createLicenseKey(1);
      const started = performance.now();
      while (two.catalog.accountForLicenseKey(key) !== 1) {
        assert.ok(performance.now() - started < 5000, 'not seen within 5 s');
        await new Promise((r) => setTimeout(r, 20));
      }
      // Listening again: the next change arrives by notification.
      const next = await one.catalog.createLicenseKey(1);
      const again = performance.now();
      while (two.catalog.accountForLicenseKey(next) !== 1) {
        assert.ok(performance.now() - again < 1000, 'not seen within a second');
        await new Promise((r) => setTimeout(r, 5));
      }
    } finally {
      for (const node of nodes) await node.close();
    }
  });
});

describe('TIMESLICE_CATALOG checked at start', () => {
  test('unreachable, wrong password, missing database and a bad URL each name the problem', async () => {
    const closedPort = await freePort();
    await assert.rejects(openPostgresCatalog(`postgres://${PG_USER}@127.0.0.1:${closedPort}/x`, { clock }), (e: Error) => {
      assert.ok(e instanceof PostgresConfigError);
      assert.equal(e.message, `cannot reach PostgreSQL at postgres://${PG_USER}@127.0.0.1:${closedPort}/x (ECONNREFUSED): is the server running and listening there?`);
      return true;
    });
    await assert.rejects(openPostgresCatalog(`postgres://${PG_USER}:wrong@127.0.0.1:${server.port}/postgres`, { clock }), (e: Error) => {
      assert.ok(e instanceof PostgresConfigError);
      assert.equal(e.message, `PostgreSQL at postgres://${PG_USER}:***@127.0.0.1:${server.port}/postgres refused the credentials: password authentication failed for user "${PG_USER}"`);
      return true;
    });
    await assert.rejects(openPostgresCatalog(server.url('nosuch'), { clock }), {
      message: `PostgreSQL at postgres://${PG_USER}:***@127.0.0.1:${server.port}/nosuch: database "nosuch" does not exist (create it first: createdb)`,
    });
    await assert.rejects(openPostgresCatalog('mysql://h/db', { clock }), { message: 'TIMESLICE_CATALOG mysql://h/db: the scheme must be postgres:// (got mysql://)' });
    await assert.rejects(openPostgresCatalog(`postgres://127.0.0.1:${server.port}`, { clock }), { message: `TIMESLICE_CATALOG postgres://127.0.0.1:${server.port} names no database (…/database)` });
    assert.ok(!PG_PASSWORD.includes('***'));
  });
});
