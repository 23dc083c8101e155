import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APPEND_TABLES, CUSTOM_EVENTS, Rows, TIMESLICES } from '../append-tables.js';
import { DuckDbBatchWriter } from './duckdb-batch-writer.js';
import { DEFAULT_APM_AGENT_SETTINGS } from '../../domain/agent-settings/model.js';
import { hashKey } from '../../security/keys.js';
import { ApplicationNotFoundError, type ConnectFacts, type RunTarget } from '../catalog.js';
import { DuckDbCatalog } from './duckdb-catalog.js';
import { Database } from './database.js';
import type { MetricIndex } from '../metric-index.js';
import { DuckDbMetricIndex } from './duckdb-metric-index.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const clock = { now: () => NOW };
const minute = Date.UTC(2026, 10, 22, 12, 0);

function facts(appNames: string[], overrides: Partial<ConnectFacts> = {}): ConnectFacts {
  return { appNames, language: 'nodejs', agentVersion: '13.0.0', host: 'web-1', displayHost: null, pid: 4242, port: 3000, userAgent: null, ...overrides };
}

interface Store {
  readonly db: Database;
  readonly writer: DuckDbBatchWriter;
  readonly metrics: MetricIndex;
  readonly catalog: DuckDbCatalog;
}

/** A store on a file in a temp directory; `reopen` closes it and opens the same file again. */
async function openStore(t: { after(fn: () => Promise<void>): void }, dependents: { forgetApplication(appId: number): void }[] = []) {
  const dir = await mkdtemp(join(tmpdir(), 'timeslice-catalog-'));
  let current: Store | undefined;
  const open = async (): Promise<Store> => {
    const db = await Database.open({ path: join(dir, 'catalog.duckdb') });
    const writer = new DuckDbBatchWriter(db.appendConnection);
    const metrics = await DuckDbMetricIndex.load(db, writer, clock);
    const catalog = await DuckDbCatalog.load(db, clock, { metrics, dependents });
    await catalog.bootstrap();
    current = { db, writer, metrics, catalog };
    return current;
  };
  const close = async () => {
    if (!current) return;
    await current.writer.close();
    await current.db.close();
    current = undefined;
  };
  t.after(async () => {
    await close();
    await rm(dir, { recursive: true, force: true });
  });
  return { store: await open(), reopen: async () => { await close(); return open(); } };
}

/** One metric_data-like write: each name unscoped for the target, committed with its presence. */
function writeMetrics(metrics: MetricIndex, target: RunTarget, names: readonly string[]): Promise<void> {
  return metrics.write({ names, unscoped: names, accountId: 1, targets: [target] }, (ids) => {
    const rows = new Rows(TIMESLICES);
    for (const name of names) rows.push(1, target.appId, target.hostId, target.instanceId, ids.get(name)!, 0, minute, 1, 1, 1, 1, 1, 1);
    return [rows];
  });
}

function customEvents(target: RunTarget, n: number): Rows {
  const rows = new Rows(CUSTOM_EVENTS);
  for (let i = 0; i < n; i++) rows.push(1, target.appId, target.hostId, target.instanceId, minute, 'Purchase', '{}');
  return rows;
}

async function countFor(db: Database, table: string, column: string, id: number): Promise<number> {
  const [row] = await db.all<{ n: bigint }>(`SELECT count(*) AS n FROM ${table} WHERE ${column} = $1`, [id]);
  return Number(row!.n);
}

test('updateApplication changes display name and settings, written through; the next connect hands out the new apdex_t', async (t) => {
  const { store, reopen } = await openStore(t);
  const { primary } = await store.catalog.connect(1, facts(['checkout']));
  assert.deepEqual(
    [primary.name, primary.agentName, primary.apdexT, primary.endUserApdexT, primary.enableRealUserMonitoring, primary.useServerSideConfig],
    ['checkout', 'checkout', 0.5, 7, false, false],
  );

  const updated = await store.catalog.updateApplication(primary.id, { apdexT: 0.25, enableRealUserMonitoring: true });
  assert.deepEqual([updated.name, updated.apdexT, updated.endUserApdexT, updated.enableRealUserMonitoring], ['checkout', 0.25, 7, true]);
  assert.equal((await store.catalog.connect(1, facts(['checkout']))).primary.apdexT, 0.25);

  await store.catalog.updateApplication(primary.id, { name: '  Checkout (prod) ', endUserApdexT: 3.5 });
  const reopened = await reopen();
  const app = reopened.catalog.application(primary.id)!;
  assert.deepEqual(
    [app.name, app.agentName, app.apdexT, app.endUserApdexT, app.enableRealUserMonitoring, app.useServerSideConfig],
    ['Checkout (prod)', 'checkout', 0.25, 3.5, true, false],
  );
});

test('updateApplication refuses an unknown application and values that cannot be settings', async (t) => {
  const { store } = await openStore(t);
  const { primary } = await store.catalog.connect(1, facts(['checkout']));
  await assert.rejects(store.catalog.updateApplication(999, { name: 'x' }), (e: unknown) => e instanceof ApplicationNotFoundError && e.message === 'application 999 does not exist');
  await assert.rejects(store.catalog.updateApplication(primary.id, { name: '   ' }), { name: 'RangeError', message: 'an application name is 1 to 255 characters' });
  await assert.rejects(store.catalog.updateApplication(primary.id, { apdexT: 0 }), { message: 'apdexT must be a positive number of seconds' });
  await assert.rejects(store.catalog.updateApplication(primary.id, { endUserApdexT: Number.NaN }), { message: 'endUserApdexT must be a positive number of seconds' });
  await assert.rejects(store.catalog.updateApplication(primary.id, { useServerSideConfig: 'yes' as unknown as boolean }), { name: 'RangeError', message: 'useServerSideConfig must be true or false' });
  // A bad agent setting refuses the whole change, name included.
  await assert.rejects(
    store.catalog.updateApplication(primary.id, { name: 'renamed', agentSettings: { transactionTracer: { stackTraceThreshold: -1 } } }),
    { name: 'RangeError', message: 'transactionTracer.stackTraceThreshold must be ≥ 0' },
  );
  await assert.rejects(
    store.catalog.updateApplication(primary.id, { agentSettings: { errorCollector: { ignoredErrorCodes: ['9999'] } } }),
    { name: 'RangeError', message: "errorCollector.ignoredErrorCodes: '9999' is not an HTTP status" },
  );
  await assert.rejects(
    store.catalog.updateApplication(primary.id, { agentSettings: { slowSQL: { enabled: false } } as never }),
    { name: 'RangeError', message: 'slowSQL is not a setting' },
  );
  assert.deepEqual(store.catalog.application(primary.id), primary, 'nothing changed');
  const [row] = await store.db.all<{ name: string; agent_settings: string | null }>('SELECT name, agent_settings FROM applications WHERE id = $1', [primary.id]);
  assert.deepEqual(row, { name: 'checkout', agent_settings: null });
});

test('agent settings and server-side configuration: defaults, a patch merged in, written through in one row, loaded again', async (t) => {
  const { store, reopen } = await openStore(t);
  const { primary } = await store.catalog.connect(1, facts(['billing']));
  assert.deepEqual(primary.agentSettings, DEFAULT_APM_AGENT_SETTINGS);
  const updated = await store.catalog.updateApplication(primary.id, {
    useServerSideConfig: true,
    apdexT: 0.3,
    agentSettings: { transactionTracer: { enabled: false, recordSql: 'RAW' }, errorCollector: { ignoredErrorCodes: ['404', '500'] } },
  });
  const expected = {
    ...DEFAULT_APM_AGENT_SETTINGS,
    transactionTracer: { ...DEFAULT_APM_AGENT_SETTINGS.transactionTracer, enabled: false, recordSql: 'RAW' },
    errorCollector: { ...DEFAULT_APM_AGENT_SETTINGS.errorCollector, ignoredErrorCodes: ['404', '500'] },
  };
  assert.deepEqual([updated.useServerSideConfig, updated.apdexT, updated.agentSettings], [true, 0.3, expected]);
  // A second patch keeps what the first changed.
  const again = await store.catalog.updateApplication(primary.id, { agentSettings: { slowSql: { enabled: false } } });
  const expectedAgain = { ...expected, slowSql: { enabled: false } };
  assert.deepEqual(again.agentSettings, expectedAgain);
  assert.equal(again.useServerSideConfig, true, 'not given, kept');

  const [row] = await store.db.all<{ use_server_side_config: boolean; apdex_t: number; agent_settings: string }>(
    'SELECT use_server_side_config, apdex_t, agent_settings FROM applications WHERE id = $1', [primary.id]);
  assert.deepEqual({ ...row, agent_settings: JSON.parse(row!.agent_settings) }, { use_server_side_config: true, apdex_t: 0.3, agent_settings: expectedAgain });

  const reopened = await reopen();
  assert.deepEqual(reopened.catalog.application(primary.id), again);
  // Settings back at the defaults are stored as NULL: defaults, whatever they are in a later version.
  const reset = await reopened.catalog.updateApplication(primary.id, {
    useServerSideConfig: false,
    agentSettings: { transactionTracer: { enabled: true, recordSql: 'OBFUSCATED' }, errorCollector: { ignoredErrorCodes: ['404'] }, slowSql: { enabled: true } },
  });
  assert.deepEqual([reset.useServerSideConfig, reset.agentSettings], [false, DEFAULT_APM_AGENT_SETTINGS]);
  const [after] = await reopened.db.all<{ agent_settings: string | null }>('SELECT agent_settings FROM applications WHERE id = $1', [primary.id]);
  assert.equal(after!.agent_settings, null);
});

test('accounts: created with the next id, keys made for them authenticate to them only, all of it persisted', async (t) => {
  const { store, reopen } = await openStore(t);
  const { catalog, db } = store;
  assert.deepEqual(catalog.accounts(), [{ id: 1, name: 'Default' }]);
  const second = await catalog.createAccount('  Staging ');
  assert.deepEqual(second, { id: 2, name: 'Staging' });
  assert.deepEqual(catalog.account(2), second);
  assert.equal(catalog.account(3), undefined);
  await assert.rejects(catalog.createAccount(' '), { name: 'RangeError', message: 'an account name is 1 to 255 characters' });
  await assert.rejects(catalog.createAccount('x'.repeat(256)), { name: 'RangeError', message: 'an account name is 1 to 255 characters' });

  const userKey = await catalog.createUserKey(2);
  const licenseKey = await catalog.createLicenseKey(2);
  assert.match(userKey, /^NRAK-[A-Z0-9]{27}$/);
  assert.match(licenseKey, /^[0-9a-f]{40}$/);
  assert.equal(catalog.accountForUserKey(userKey), 2);
  assert.equal(catalog.accountForLicenseKey(licenseKey), 2);
  assert.equal(catalog.accountForLicenseKey(userKey), undefined, 'a user key is not a license key');
  assert.equal(catalog.accountForUserKey(licenseKey), undefined);
  await assert.rejects(catalog.createUserKey(9), { name: 'RangeError', message: 'account 9 does not exist' });

  const user = catalog.userOfKey(userKey)!;
  assert.deepEqual({ ...user, id: typeof user.id }, { id: 'number', accountId: 2, hint: `NRAK-…${userKey.slice(-4)}`, name: `User of key NRAK-…${userKey.slice(-4)}`, createdAt: NOW });
  assert.equal(catalog.userOfKey(licenseKey), undefined, 'a license key stands for no user');
  assert.equal(catalog.userOfKey('NRAK-UNKNOWN'), undefined);

  const stored = await db.all<{ account_id: number; kind: string; key_hash: string }>(
    'SELECT account_id, kind, key_hash FROM api_keys WHERE account_id = 2 ORDER BY kind');
  assert.deepEqual(stored, [{ account_id: 2, kind: 'license', key_hash: hashKey(licenseKey) }, { account_id: 2, kind: 'user', key_hash: hashKey(userKey) }]);
  const reopened = await reopen();
  assert.deepEqual(reopened.catalog.accounts(), [{ id: 1, name: 'Default' }, { id: 2, name: 'Staging' }]);
  assert.equal(reopened.catalog.accountForUserKey(userKey), 2);
  assert.equal(reopened.catalog.accountForLicenseKey(licenseKey), 2);
  assert.deepEqual(reopened.catalog.userOfKey(userKey), user);
  assert.equal((await reopened.catalog.createAccount('Third')).id, 3);
});

test('a renamed application keeps receiving the agents that report under its old name, also after a restart', async (t) => {
  const { store, reopen } = await openStore(t);
  const { primary } = await store.catalog.connect(1, facts(['checkout']));
  await store.catalog.updateApplication(primary.id, { name: 'Checkout storefront' });
  assert.equal((await store.catalog.connect(1, facts(['checkout']))).primary.id, primary.id);

  const reopened = await reopen();
  const again = await reopened.catalog.connect(1, facts(['checkout']));
  assert.equal(again.primary.id, primary.id);
  assert.equal(again.primary.name, 'Checkout storefront');
  // Agents are matched by the name they report under only: the display name is not an agent name.
  const other = await reopened.catalog.connect(1, facts(['Checkout storefront']));
  assert.notEqual(other.primary.id, primary.id);
  assert.equal(reopened.catalog.applications(1).length, 2);
});

test('an application created without a language takes the first one an agent reports', async (t) => {
  const { store, reopen } = await openStore(t);
  const { primary } = await store.catalog.connect(1, facts(['batch'], { language: null }));
  assert.equal(primary.language, null);
  assert.equal((await store.catalog.connect(1, facts(['batch'], { language: 'python' }))).primary.language, 'python');
  assert.equal((await store.catalog.connect(1, facts(['batch'], { language: 'java' }))).primary.language, 'python', 'set once, not overwritten');
  assert.equal((await reopen()).catalog.application(primary.id)!.language, 'python');
});

test('deleteApplication removes the application and all its data in one go, while another application keeps writing', async (t) => {
  const forgotten: number[] = [];
  const { store, reopen } = await openStore(t, [{ forgetApplication: (id) => forgotten.push(id) }, { forgetApplication: (id) => forgotten.push(-id) }]);
  const { db, catalog, metrics, writer } = store;
  const a = await catalog.connect(1, facts(['doomed', 'rollup']));
  const b = await catalog.connect(1, facts(['survivor'], { host: 'web-2', pid: 7 }));
  const [targetA, targetRollup] = a.run.targets as [RunTarget, RunTarget];
  const targetB = b.run.targets[0]!;
  await writeMetrics(metrics, targetA, ['HttpDispatcher', 'Apdex']);
  await writeMetrics(metrics, targetRollup, ['HttpDispatcher']);
  await writer.write([customEvents(targetA, 3)]);
  await writeMetrics(metrics, targetB, ['HttpDispatcher']);

  // Writes for B run on the append connection for as long as the delete of A runs on the catalog connection.
  let deleted = false;
  const deleting = catalog.deleteApplication(targetA.appId).finally(() => { deleted = true; });
  let writesDuring = 0;
  while (!deleted) {
    await Promise.all([writeMetrics(metrics, targetB, ['HttpDispatcher', `Custom/${writesDuring}`]), writer.write([customEvents(targetB, 2)])]);
    writesDuring++;
  }
  await deleting;
  assert.ok(writesDuring > 0);

  for (const table of [...APPEND_TABLES.filter((x) => x.columns.some((c) => c.name === 'app_id')).map((x) => x.name), 'hosts', 'instances']) {
    assert.equal(await countFor(db, table, 'app_id', targetA.appId), 0, `${table} keeps no row of the deleted application`);
  }
  assert.equal(await countFor(db, 'applications', 'id', targetA.appId), 0);
  assert.equal(catalog.application(targetA.appId), undefined);
  assert.deepEqual(catalog.hostsOf(targetA.appId), []);
  assert.deepEqual(catalog.instancesOf(targetA.appId), []);
  assert.deepEqual(metrics.metricNames({ appId: targetA.appId }), []);
  assert.equal(metrics.lastReportedAt({ appId: targetA.appId }), undefined);

  assert.deepEqual(forgotten, [targetA.appId, -targetA.appId], 'each dependent store is told, once');
  assert.equal(catalog.run(a.run.runId)!.shutdown, true, 'the run targeting it is shut down');
  const [run] = await db.all<{ down: boolean }>('SELECT shutdown_at IS NOT NULL AS down FROM agent_runs WHERE run_id = $1', [a.run.runId]);
  assert.equal(run!.down, true);

  // The roll-up application and B are untouched, including what B wrote during the delete.
  assert.equal(await countFor(db, 'timeslices', 'app_id', targetRollup.appId), 1);
  assert.equal(await countFor(db, 'timeslices', 'app_id', targetB.appId), 1 + 2 * writesDuring);
  assert.equal(await countFor(db, 'custom_events', 'app_id', targetB.appId), 2 * writesDuring);
  assert.equal(metrics.knows({ appId: targetB.appId }, `Custom/${writesDuring - 1}`), true);

  // The agent reconnects: a new application, with an id never handed out before, also after a restart.
  const highest = Math.max(...catalog.applications(1).map((x) => x.id), targetA.appId);
  const fresh = await catalog.connect(1, facts(['doomed']));
  assert.ok(fresh.primary.id > highest, `new id ${fresh.primary.id} reuses none up to ${highest}`);
  await catalog.deleteApplication(fresh.primary.id);
  const reopened = await reopen();
  const afterRestart = await reopened.catalog.connect(1, facts(['doomed']));
  assert.ok(afterRestart.primary.id > fresh.primary.id);
  assert.ok(afterRestart.run.targets[0]!.hostId > fresh.run.targets[0]!.hostId, 'host ids are not reused either');
});

test('deleteApplication waits for data calls in progress on the runs it shuts down', async (t) => {
  const { store } = await openStore(t);
  const { db, catalog, metrics } = store;
  const { run } = await catalog.connect(1, facts(['busy']));
  const target = run.targets[0]!;
  const release = catalog.holdRun(run.runId);
  let deleted = false;
  const deleting = catalog.deleteApplication(target.appId).then(() => { deleted = true; });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(deleted, false, 'the delete waits for the call');
  assert.equal(catalog.run(run.runId)!.shutdown, true, 'but new calls on the run are refused already');
  // The call in progress finishes its write, then ends.
  await writeMetrics(metrics, target, ['HttpDispatcher']);
  release();
  release();
  await deleting;
  assert.equal(await countFor(db, 'timeslices', 'app_id', target.appId), 0, 'its rows went with the application');
  assert.deepEqual(metrics.metricNames({ appId: target.appId }), []);
  await assert.rejects(catalog.deleteApplication(target.appId), ApplicationNotFoundError);
});

test('numbers whole to JavaScript beyond 2^53 are written as doubles: an Apdex T of 1e19 or 1e300 is stored, not a DuckDB bigint error', async (t) => {
  const { store, reopen } = await openStore(t);
  const { primary } = await store.catalog.connect(1, facts(['huge']));
  await store.catalog.updateApplication(primary.id, { apdexT: 1e19, endUserApdexT: 1e300 });
  const app = (await reopen()).catalog.application(primary.id)!;
  assert.deepEqual([app.apdexT, app.endUserApdexT], [1e19, 1e300]);
});

test('an instance keeps the agent version it connected with, and a reconnect of the same process with another version updates it', async (t) => {
  const { store, reopen } = await openStore(t);
  const { primary } = await store.catalog.connect(1, facts(['versions'], { agentVersion: '12.9.0' }));
  await store.catalog.connect(1, facts(['versions'], { agentVersion: '13.1.0', pid: 5000 }));
  await store.catalog.connect(1, facts(['versions'], { agentVersion: '13.2.0' }));
  const versions = (await reopen()).catalog.instancesOf(primary.id).map((i) => [i.pid, i.agentVersion]).sort();
  assert.deepEqual(versions, [[4242, '13.2.0'], [5000, '13.1.0']]);
});

test('ids stay unique when the runs that remembered a deleted application expire: the next application after a restart gets a new id', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'timeslice-catalog-'));
  let now = NOW;
  const moving = { now: () => now };
  const open = async () => {
    const db = await Database.open({ path: join(dir, 'catalog.duckdb') });
    const writer = new DuckDbBatchWriter(db.appendConnection);
    const metrics = await DuckDbMetricIndex.load(db, writer, moving);
    return { db, writer, catalog: await DuckDbCatalog.load(db, moving, { metrics }) };
  };
  let s = await open();
  t.after(async () => {
    await s.writer.close();
    await s.db.close();
    await rm(dir, { recursive: true, force: true });
  });
  await s.catalog.bootstrap();
  await s.catalog.connect(1, facts(['kept']));
  const gone = await s.catalog.connect(1, facts(['gone'], { host: 'web-2' }));
  assert.deepEqual(gone.run.targets, [{ appId: 2, hostId: 2, instanceId: 2 }]);
  await s.catalog.deleteApplication(2);
  now += 24 * 3_600_000 + 1;
  assert.deepEqual(await s.catalog.expireIdle(), { runs: 2, instances: 0, hosts: 0 });
  now += 7 * 24 * 3_600_000;
  assert.deepEqual(await s.catalog.expireIdle(), { runs: 0, instances: 1, hosts: 1 }, 'the kept application\'s idle instance and its host');
  assert.deepEqual(await s.db.all('SELECT count(*)::INTEGER AS n FROM agent_runs'), [{ n: 0 }]);
  await s.writer.close();
  await s.db.close();
  s = await open();
  const next = await s.catalog.connect(1, facts(['new'], { host: 'web-3' }));
  assert.deepEqual(next.run.targets, [{ appId: 3, hostId: 3, instanceId: 3 }]);
});
