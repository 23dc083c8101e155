import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { ConfigError, defaultDuckDbThreads, defaultMemoryLimit, resolveServeConfig } from './config.js';

test('defaults', () => {
  const c = resolveServeConfig({}, {});
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.port, 3000);
  assert.equal(c.collectorPort, 3443);
  assert.equal(c.dataDir, resolve('./data'));
  assert.equal(c.apiKey, undefined);
  assert.equal(c.licenseKey, undefined);
  assert.equal(c.eventHarvestPeriodMs, 5000);
  assert.deepEqual(c.certHosts, []);
  assert.deepEqual(resolveServeConfig({}, { TIMESLICE_CERT_HOSTS: 'apm.example, 10.0.0.5,' }).certHosts, ['apm.example', '10.0.0.5']);
});

test('environment variables, and flags over them', () => {
  const env = { TIMESLICE_HOST: '0.0.0.0', TIMESLICE_PORT: '4000', TIMESLICE_COLLECTOR_PORT: '4443', TIMESLICE_DATA: '/tmp/x', TIMESLICE_API_KEY: 'NRAK-K', TIMESLICE_LICENSE_KEY: 'L' };
  const fromEnv = resolveServeConfig({}, env);
  assert.deepEqual([fromEnv.host, fromEnv.port, fromEnv.collectorPort, fromEnv.dataDir, fromEnv.apiKey, fromEnv.licenseKey], ['0.0.0.0', 4000, 4443, '/tmp/x', 'NRAK-K', 'L']);
  const fromFlags = resolveServeConfig({ host: '::1', port: '0', 'collector-port': '5443', data: '/tmp/y' }, env);
  assert.deepEqual([fromFlags.host, fromFlags.port, fromFlags.collectorPort, fromFlags.dataDir], ['::1', 0, 5443, '/tmp/y']);
});

test('bad ports are configuration errors with a message naming the flag', () => {
  assert.throws(() => resolveServeConfig({ port: 'http' }, {}), (e: unknown) => e instanceof ConfigError && /--port must be a port number/.test(e.message));
  assert.throws(() => resolveServeConfig({}, { TIMESLICE_COLLECTOR_PORT: '70000' }), /--collector-port must be a port number/);
});

test('DuckDB gets a quarter of the machine memory by default, at least 1 GB', () => {
  assert.equal(defaultMemoryLimit(24 * 2 ** 30), '6GB');
  assert.equal(defaultMemoryLimit(2 * 2 ** 30), '1GB');
  assert.equal(defaultMemoryLimit(7 * 2 ** 30), '1GB');
});

test('compaction: every 10 minutes, rows older than 2 hours; both settable, 0 turns it off', () => {
  assert.deepEqual(resolveServeConfig({}, {}).compaction, { intervalMs: 600_000, minAgeMs: 7_200_000 });
  assert.deepEqual(resolveServeConfig({}, { TIMESLICE_COMPACT_EVERY_MS: '0', TIMESLICE_COMPACT_AFTER_MS: '3600000' }).compaction, { intervalMs: 0, minAgeMs: 3_600_000 });
  assert.throws(() => resolveServeConfig({}, { TIMESLICE_COMPACT_EVERY_MS: '10m' }), ConfigError);
});

test('the store engine: duckdb by default, or a ClickHouse URL; anything else is a configuration error naming the choices', () => {
  assert.equal(resolveServeConfig({}, {}).store, 'duckdb');
  assert.equal(resolveServeConfig({}, { TIMESLICE_STORE: 'duckdb' }).store, 'duckdb');
  assert.throws(
    () => resolveServeConfig({}, { TIMESLICE_STORE: 'postgres' }),
    (e: unknown) => e instanceof ConfigError && e.message === "TIMESLICE_STORE must be duckdb or a ClickHouse URL (clickhouse://host:8123/database), got 'postgres'",
  );
  assert.throws(
    () => resolveServeConfig({}, { TIMESLICE_STORE: 'clickhouse' }),
    (e: unknown) => e instanceof ConfigError && e.message === "TIMESLICE_STORE=clickhouse needs the server's URL: clickhouse://host:8123/database",
  );
  const url = resolveServeConfig({ store: 'clickhouse://ch1:8123,ch2:8124/metrics?cluster=two' }, { TIMESLICE_STORE: 'duckdb' });
  assert.deepEqual([url.store, url.storeUrl], ['clickhouse', 'clickhouse://ch1:8123,ch2:8124/metrics?cluster=two']);
  const bad: [string, string][] = [
    ['clickhouse://ch1:8123', "TIMESLICE_STORE 'clickhouse://ch1:8123' is not a usable ClickHouse URL: it does not have the form scheme://host:port/database (expected clickhouse://host:8123/database)"],
    ['clickhouse://ch1:99999/db', "TIMESLICE_STORE 'clickhouse://ch1:99999/db' is not a usable ClickHouse URL: port 99999 is out of range (expected clickhouse://host:8123/database)"],
    ['clickhouse://ch1:8123/my-db', "TIMESLICE_STORE 'clickhouse://ch1:8123/my-db' is not a usable ClickHouse URL: database 'my-db' must be letters, digits and _ (expected clickhouse://host:8123/database)"],
    ['clickhouse://a:1,b:2/db', "TIMESLICE_STORE 'clickhouse://a:1,b:2/db' is not a usable ClickHouse URL: several hosts need ?cluster=<name> (the cluster they are shards of) (expected clickhouse://host:8123/database)"],
    ['clickhouse://u:secret@a:1/db?shards=2', "TIMESLICE_STORE 'clickhouse://u:***@a:1/db?shards=2' is not a usable ClickHouse URL: unknown option 'shards' (only cluster=…) (expected clickhouse://host:8123/database)"],
  ];
  for (const [value, message] of bad) {
    assert.throws(() => resolveServeConfig({}, { TIMESLICE_STORE: value }), (e: unknown) => e instanceof ConfigError && e.message === message, value);
  }
});

test('harvest limits: what agents ask for by default, New Relic\'s scaled figures on request, anything else refused', () => {
  assert.equal(resolveServeConfig({}, {}).harvestLimits, 'agent');
  assert.equal(resolveServeConfig({}, { TIMESLICE_HARVEST_LIMITS: 'newrelic' }).harvestLimits, 'newrelic');
  assert.throws(() => resolveServeConfig({}, { TIMESLICE_HARVEST_LIMITS: 'max' }),
    (e: unknown) => e instanceof ConfigError && e.message === "TIMESLICE_HARVEST_LIMITS must be agent or newrelic, got 'max'");
});

test('query admission and DuckDB threads: one per core but one by default, each settable, nonsense refused', () => {
  const d = resolveServeConfig({}, {});
  const cores = availableParallelism();
  assert.deepEqual(d.queryAdmission, { perNode: Math.max(1, cores - 1), perAccount: Math.max(1, cores - 1), queueMs: 10_000, queueLength: 200 });
  assert.equal(d.duckdbThreads, Math.max(1, cores - 1));
  assert.equal(defaultDuckDbThreads(2), 1);
  assert.equal(defaultDuckDbThreads(16), 15);
  const c = resolveServeConfig({}, {
    TIMESLICE_QUERY_CONCURRENCY: '4', TIMESLICE_QUERY_QUEUE_MS: '0', TIMESLICE_QUERY_QUEUE_LENGTH: '7', TIMESLICE_DUCKDB_THREADS: '3',
  });
  assert.deepEqual(c.queryAdmission, { perNode: 4, perAccount: 4, queueMs: 0, queueLength: 7 });
  assert.equal(c.duckdbThreads, 3);
  assert.equal(resolveServeConfig({}, { TIMESLICE_QUERY_CONCURRENCY_PER_ACCOUNT: '2' }).queryAdmission.perAccount, 2);
  assert.throws(
    () => resolveServeConfig({}, { TIMESLICE_QUERY_CONCURRENCY: '0' }),
    (e: unknown) => e instanceof ConfigError && e.message === "TIMESLICE_QUERY_CONCURRENCY must be a whole number from 1 to 1000000, got '0'",
  );
  assert.throws(() => resolveServeConfig({}, { TIMESLICE_DUCKDB_THREADS: 'all' }), ConfigError);
});

test('the browser origin handed to APM agents: an http(s) origin, its default path dropped; anything else refused', () => {
  const base = { data: '/tmp/x' };
  assert.equal(resolveServeConfig(base, {}).browserOrigin, undefined);
  assert.equal(resolveServeConfig(base, { TIMESLICE_BROWSER_ORIGIN: 'https://apm.example.com/' }).browserOrigin, 'https://apm.example.com');
  assert.equal(resolveServeConfig(base, { TIMESLICE_BROWSER_ORIGIN: 'http://10.0.0.5:8080' }).browserOrigin, 'http://10.0.0.5:8080');
  for (const bad of ['apm.example.com', 'ftp://apm.example.com', 'https://apm.example.com/nr', 'https://u:p@apm.example.com']) {
    assert.throws(() => resolveServeConfig(base, { TIMESLICE_BROWSER_ORIGIN: bad }), (e: unknown) => e instanceof ConfigError && /TIMESLICE_BROWSER_ORIGIN/.test((e as Error).message), bad);
  }
});

test('rollups and retention: TIMESLICE_UPKEEP_EVERY_MS, TIMESLICE_ROLLUP_AFTER_MS, TIMESLICE_RETENTION', () => {
  const defaults = resolveServeConfig({}, {}).upkeep;
  assert.deepEqual([defaults.intervalMs, defaults.rollupDelayMs, defaults.retention.minuteMs], [600_000, 3_600_000, 8 * 86_400_000]);
  const set = resolveServeConfig({}, { TIMESLICE_UPKEEP_EVERY_MS: '0', TIMESLICE_ROLLUP_AFTER_MS: '60000', TIMESLICE_RETENTION: 'minute=3d' }).upkeep;
  assert.deepEqual([set.intervalMs, set.rollupDelayMs, set.retention.minuteMs, set.retention.hourlyMs], [0, 60_000, 3 * 86_400_000, 90 * 86_400_000]);
  assert.throws(() => resolveServeConfig({}, { TIMESLICE_RETENTION: 'minute=3 days' }), (e: unknown) => e instanceof ConfigError
    && e.message === "TIMESLICE_RETENTION: minute must be a whole number of minutes, hours or days (90m, 12h, 8d) or 'forever', got '3 days'");
});

test('the shared catalog: none by default; TIMESLICE_CATALOG or --catalog (the flag wins); only a postgres:// URL with a host and a database', () => {
  assert.equal(resolveServeConfig({}, {}).catalog, undefined);
  assert.equal(resolveServeConfig({}, { TIMESLICE_CATALOG: '' }).catalog, undefined);
  assert.equal(resolveServeConfig({}, { TIMESLICE_CATALOG: 'postgres://ts@db:5432/timeslice' }).catalog, 'postgres://ts@db:5432/timeslice');
  assert.equal(resolveServeConfig({ catalog: 'postgresql://ts@other/t2' }, { TIMESLICE_CATALOG: 'postgres://ts@db/t' }).catalog, 'postgresql://ts@other/t2');
  const refused: [string, string][] = [
    ['mysql://db/timeslice', 'TIMESLICE_CATALOG must be a postgres:// URL, got a mysql:// one'],
    ['db:5432/timeslice', 'TIMESLICE_CATALOG must be a postgres:// URL, got a db:// one'],
    ['not a url', "TIMESLICE_CATALOG must be a URL such as postgres://user@host:5432/database, got 'not a url'"],
    ['postgres://ts@db:5432', 'TIMESLICE_CATALOG must name a host and a database: postgres://user@host:5432/database'],
  ];
  for (const [value, message] of refused) {
    assert.throws(() => resolveServeConfig({}, { TIMESLICE_CATALOG: value }), (e: unknown) => e instanceof ConfigError && e.message === message, value);
  }
});
