import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian's package puts the server (CI installs it: .ci/run). */
export const CLICKHOUSE_BINARY = process.env.TIMESLICE_CLICKHOUSE_BINARY ?? '/usr/sbin/clickhouse-server';

/** Whether a ClickHouse server can be started here; tests that need one are skipped with this reason otherwise. */
export function clickhouseMissing(): string | false {
  return existsSync(CLICKHOUSE_BINARY) ? false : `no ClickHouse server at ${CLICKHOUSE_BINARY} (apt-get install clickhouse-server)`;
}

/** One ClickHouse server on loopback ports, its data in a temp directory. */
export interface ClickHouseServer {
  readonly httpPort: number;
  readonly tcpPort: number;
  /** `http://127.0.0.1:<httpPort>` */
  readonly url: string;
  readonly dir: string;
  /** Runs one statement over HTTP and returns the body (tests and setup). */
  query(sql: string): Promise<string>;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s), keeping its data directory. */
  pause(): Promise<void>;
  /** Starts it again on the same ports and data after `pause()`. */
  resume(): Promise<void>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

export interface ClusterShard {
  readonly tcpPort: number;
}

export interface ClickHouseOptions {
  /** A cluster named `name` in remote_servers, one shard per entry (each one replica on 127.0.0.1). */
  readonly cluster?: { readonly name: string; readonly shards: readonly ClusterShard[] };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const xml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;');

/**
 * A small server for tests: caches and memory held low (the test machine has 2 cores shared with
 * other work), loopback only, everything under `dir`.
 */
function configXml(dir: string, ports: { http: number; tcp: number; interserver: number }, options: ClickHouseOptions): string {
  const cluster = options.cluster
    ? `<remote_servers><${options.cluster.name}>${options.cluster.shards
      .map((s) => `<shard><replica><host>127.0.0.1</host><port>${s.tcpPort}</port></replica></shard>`).join('')}</${options.cluster.name}></remote_servers>`
    : '<remote_servers></remote_servers>';
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${xml(join(dir, 'server.log'))}</log><errorlog>${xml(join(dir, 'server.err.log'))}</errorlog><console>0</console></logger>
  <http_port>${ports.http}</http_port>
  <tcp_port>${ports.tcp}</tcp_port>
  <interserver_http_port>${ports.interserver}</interserver_http_port>
  <interserver_http_host>127.0.0.1</interserver_http_host>
  <listen_host>127.0.0.1</listen_host>
  <max_connections>64</max_connections>
  <keep_alive_timeout>3</keep_alive_timeout>
  <max_concurrent_queries>32</max_concurrent_queries>
  <uncompressed_cache_size>16777216</uncompressed_cache_size>
  <mark_cache_size>16777216</mark_cache_size>
  <path>${xml(dir)}/data/</path>
  <tmp_path>${xml(dir)}/tmp/</tmp_path>
  <user_files_path>${xml(dir)}/user_files/</user_files_path>
  <format_schema_path>${xml(dir)}/format_schemas/</format_schema_path>
  <users_config>users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
  <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
  <max_session_timeout>3600</max_session_timeout>
  <default_session_timeout>60</default_session_timeout>
  ${cluster}
</yandex>
`;
}

const USERS_XML = `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default>
      <max_memory_usage>1000000000</max_memory_usage>
      <max_threads>2</max_threads>
      <load_balancing>random</load_balancing>
    </default>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;

async function httpQuery(url: string, sql: string): Promise<string> {
  const response = await fetch(`${url}/`, { method: 'POST', body: sql, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  if (!response.ok) throw new Error(`ClickHouse answered ${response.status}: ${text.trim()}`);
  return text;
}

async function waitUntilUp(url: string, child: ChildProcess, dir: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let exited: number | null = null;
  child.once('exit', (code) => { exited = code ?? -1; });
  for (;;) {
    if (exited !== null) throw new Error(`clickhouse-server exited with ${exited} before answering (logs in ${dir})`);
    try {
      await httpQuery(url, 'SELECT 1');
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`clickhouse-server did not answer within 60 s (logs in ${dir})`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** Starts one ClickHouse server; `ports` lets a cluster's shards know each other's TCP ports before they start. */
export async function startClickHouse(options: ClickHouseOptions = {}, fixedTcpPort?: number): Promise<ClickHouseServer> {
  const dir = await mkdtemp(join(tmpdir(), 'timeslice-clickhouse-'));
  const ports = { http: await freePort(), tcp: fixedTcpPort ?? await freePort(), interserver: await freePort() };
  await writeFile(join(dir, 'config.xml'), configXml(dir, ports, options));
  await writeFile(join(dir, 'users.xml'), USERS_XML);
  const url = `http://127.0.0.1:${ports.http}`;
  let child: ChildProcess | undefined;
  const launch = async () => {
    child = spawn(CLICKHOUSE_BINARY, [`--config-file=${join(dir, 'config.xml')}`], { cwd: dir, stdio: 'ignore' });
    await waitUntilUp(url, child, dir);
  };
  const halt = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    c.kill('SIGTERM');
    const timer = setTimeout(() => c.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await launch();
  } catch (error) {
    await halt();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    httpPort: ports.http,
    tcpPort: ports.tcp,
    url,
    dir,
    query: (sql) => httpQuery(url, sql),
    pause: halt,
    resume: launch,
    async stop() {
      await halt();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Two servers, each a shard of the cluster `name` (both know it), so a Distributed table on
 * either spreads rows over both. Stopped together.
 */
export async function startClickHouseCluster(name = 'timeslice_test'): Promise<{ shards: ClickHouseServer[]; cluster: string; stop(): Promise<void> }> {
  const tcpPorts = [await freePort(), await freePort()];
  const cluster = { name, shards: tcpPorts.map((tcpPort) => ({ tcpPort })) };
  const shards: ClickHouseServer[] = [];
  try {
    for (const port of tcpPorts) shards.push(await startClickHouse({ cluster }, port));
  } catch (error) {
    await Promise.all(shards.map((s) => s.stop()));
    throw error;
  }
  return { shards, cluster: name, stop: async () => { await Promise.all(shards.map((s) => s.stop())); } };
}
