import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveServeConfig, type ServeConfig } from '../../src/config.js';
import { startServer, type RunningServer, type StartOptions } from '../../src/server.js';

/** The fake 40-character license key the lab agent used: the samples carry it in their query strings. */
export const TEST_LICENSE_KEY = '0123456789abcdef0123456789abcdef01234567';
export const TEST_API_KEY = 'NRAK-TESTKEY0000000000000000000';

export interface TestServer {
  readonly dataDir: string;
  readonly config: ServeConfig;
  /** The running server; replaced by `restart()`. */
  readonly server: RunningServer;
  /** Closes the server and starts a new one on the same data directory. */
  restart(): Promise<RunningServer>;
  /** Closes the server (if running) and removes the data directory. */
  stop(): Promise<void>;
}

/**
 * A real server on 127.0.0.1 with both listeners on free ports and its data in a fresh temp
 * directory, keyed with TEST_LICENSE_KEY / TEST_API_KEY through the environment.
 */
export async function startTestServer(env: NodeJS.ProcessEnv = {}, options: StartOptions = {}): Promise<TestServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'timeslice-test-'));
  // TIMESLICE_TEST_POSTGRES=postgres://…/postgres runs every test server on a fresh PostgreSQL catalog
  // database of that server (the suites' own expectations, on the shared catalog).
  const shared = env.TIMESLICE_CATALOG === undefined && process.env.TIMESLICE_TEST_POSTGRES
    ? { TIMESLICE_CATALOG: await freshCatalogDatabase(process.env.TIMESLICE_TEST_POSTGRES) } : {};
  const config = resolveServeConfig(
    { host: '127.0.0.1', port: '0', 'collector-port': '0', data: dataDir },
    {
      TIMESLICE_LICENSE_KEY: TEST_LICENSE_KEY,
      TIMESLICE_API_KEY: TEST_API_KEY,
      TIMESLICE_MEMORY_LIMIT: '256MB',
      TIMESLICE_LOG_LEVEL: 'error',
      ...shared,
      ...env,
    },
  );
  let server: RunningServer | undefined;
  try {
    server = await startServer(config, options);
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  let running: RunningServer | undefined = server;
  const handle: TestServer = {
    dataDir,
    config,
    get server() {
      if (!running) throw new Error('the test server is not running');
      return running;
    },
    async restart() {
      if (running) await running.close();
      running = undefined;
      running = await startServer(config, options);
      return running;
    },
    async stop() {
      const r = running;
      running = undefined;
      try {
        if (r) await r.close();
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
  return handle;
}

async function freshCatalogDatabase(adminUrl: string): Promise<string> {
  const { default: pg } = await import('pg');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
