/**
 * A throwaway PostgreSQL server for tests: initdb into a temporary directory, the server on a free
 * loopback port, stopped and removed by `stop()`. PostgreSQL refuses to run as root, so when the
 * tests run as root (CI) the directory belongs to the `postgres` system user and both programs run
 * as that user (setpriv, which execs in place: the pid we hold is the server's).
 *
 * Connections from 127.0.0.1 need a password (scram-sha-256), so a wrong one is a real
 * authentication failure; `createDatabase` gives each test a database of its own.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const PG_USER = 'timeslice';
export const PG_PASSWORD = 'timeslice-test';

/** Where Debian puts the server programs; PG_BIN overrides. */
function pgBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  for (const version of ['17', '16', '15', '14', '13']) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(dir, 'postgres'))) return dir;
  }
  throw new Error('PostgreSQL server programs not found (apt-get install postgresql, or set PG_BIN)');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface TestPostgres {
  readonly port: number;
  /** The server's pid (SIGSTOP/SIGKILL in fault tests). */
  readonly pid: number;
  /** postgres://timeslice:…@127.0.0.1:port/<database> */
  url(database?: string): string;
  /** A new empty database; its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (fast shutdown: clients are disconnected), keeping its data. */
  halt(): Promise<void>;
  /** Starts it again on the same port and data after `halt`. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

const asRoot = process.getuid?.() === 0;

function asServerUser(program: string, args: string[]): [string, string[]] {
  return asRoot ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', program, ...args]] : [program, args];
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = pgBin();
  const dir = mkdtempSync(join(tmpdir(), 'timeslice-pg-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${PG_PASSWORD}\n`);
  if (asRoot) {
    const pw = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const uid = Number(pw.stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  const [initProgram, initArgs] = asServerUser(join(bin, 'initdb'), [
    '-D', data, '-U', PG_USER, `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync', '--locale=C',
  ]);
  const init = spawnSync(initProgram, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  }
  const port = await freePort();
  const url = (database = 'postgres') => `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/${database}`;
  let child: ChildProcess;
  let exited: Promise<void>;
  const launch = async (): Promise<void> => {
    const [program, args] = asServerUser(join(bin, 'postgres'), [
      '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1',
      // A test server: durability is not what is tested here, speed is.
      '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'shared_buffers=16MB', '-c', 'max_connections=60',
    ]);
    const started = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child = started;
    let log = '';
    started.stderr!.on('data', (b: Buffer) => { log = (log + b.toString()).slice(-4000); });
    exited = new Promise<void>((resolve) => started.once('exit', () => resolve()));
    const deadline = Date.now() + 30_000;
    for (;;) {
      const client = new pg.Client({ connectionString: url() });
      try {
        await client.connect();
        await client.end();
        return;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (started.exitCode !== null || Date.now() > deadline) {
          started.kill('SIGKILL');
          throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${log}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const halt = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      // Fast shutdown: disconnect clients, stop.
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
  try {
    await launch();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    port,
    get pid() { return child.pid!; },
    url,
    halt,
    async resume() { await launch(); },
    async createDatabase(name: string): Promise<string> {
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async stop(): Promise<void> {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
