import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { catalogUrl, ConfigError, resolveServeConfig, storeSetting } from '../config.js';
import { serveCommand } from './serve.js';
import { DEMO_DATA_DIR, demoCommand } from './demo.js';
import { queryCommand } from './query.js';
import { manageCommand } from './manage.js';
import { storeCommand } from './store-commands.js';
import { StoreLockedError, StoreSetupError } from '../store/store.js';

const USAGE = `Usage: timeslice <command> [options]

Commands:
  serve   Run the service: HTTP API and HTTPS agent collector on the embedded store
  demo    Run the service with an instrumented app and live traffic, to see data within two minutes
  query   Run one NRQL query on a running service: timeslice query "SELECT count(*) FROM Transaction"
  status  Show the store: size, rows and oldest data per table, retention, last rollup and deletion runs
  maintain  Roll up closed hours and delete expired data now
  accounts list | create "<name>"                         accounts (create also makes the account's license key)
  users    list | create --account N --name "<name>" --email <address> [--admin]
  keys     list | create --account N --kind user|license [--user ID] | revoke ID | rotate ID
           (accounts, users, keys: through the running service with an admin's user key; or, with the
            service stopped, --data <dir> directly: the recovery when every key is lost)
  version  Print the version (also --version, -v)

Options (serve, demo):
  --host <addr>            listen address            (TIMESLICE_HOST, default 127.0.0.1)
  --port <n>               HTTP API port             (TIMESLICE_PORT, default 3000)
  --collector-port <n>     HTTPS collector port      (TIMESLICE_COLLECTOR_PORT, default 3443)
  --data <dir>             data directory            (TIMESLICE_DATA, default ./data; demo: ./demo-data)
  --store <engine>         duckdb, or clickhouse://host:8123/database[?cluster=name] for timeslices,
                           events and traces on ClickHouse (TIMESLICE_STORE; docs/scale-out.md)
  --catalog <url>          keep the catalog and alert state in PostgreSQL, shared by every node
                           (TIMESLICE_CATALOG=postgres://user@host:5432/database; docs/scale-out.md)
Options (demo):
  --duration <seconds>     how long to drive traffic (default 150; 0 = until interrupted)

Options (query):
  --account <id>           account to read           (default: the API key's account)
  --json                   print NerdGraph's result container as JSON instead of a table
  --utc                    print times in UTC            (default: the local time zone, with its offset)
  --wide                   print whole values: no cell cut to 60 characters, numbers unrounded
  --url <url>              the service's HTTP API    (TIMESLICE_URL, default http://127.0.0.1:<TIMESLICE_PORT or 3000>)
  --api-key <key>          a user API key            (TIMESLICE_API_KEY)
  --data <dir>             read a data directory directly instead (only while no service runs on it)
  --timeout <seconds>      statement timeout         (default 30)
Options (status, maintain): --json, --url, --api-key, --data as for query.

Options (accounts, users, keys): --url, --api-key (an admin's), --data, --account, --json as for query.

Environment: TIMESLICE_API_KEY and TIMESLICE_LICENSE_KEY: account 1's keys when its first start creates
it (emulator mode); on a later start a key not stored is accepted for that run only, never stored.
`;

const SERVE_OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'collector-port': { type: 'string' },
  data: { type: 'string' },
  store: { type: 'string' },
  catalog: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve': {
        const { values } = parseArgs({ args: [...rest], options: SERVE_OPTIONS, strict: true });
        if (values.help) return usage(0);
        return await serveCommand(resolveServeConfig(values, process.env));
      }
      case 'demo': {
        const { values } = parseArgs({ args: [...rest], options: { ...SERVE_OPTIONS, duration: { type: 'string' } }, strict: true });
        if (values.help) return usage(0);
        const duration = values.duration ?? '150';
        if (!/^\d+$/.test(duration)) throw new ConfigError(`--duration must be a whole number of seconds, got '${duration}'`);
        // Its own data directory, so the demo's application never joins the ones `serve` shows.
        const data = values.data ?? (process.env.TIMESLICE_DATA ? undefined : DEMO_DATA_DIR);
        return await demoCommand(resolveServeConfig({ ...values, ...(data !== undefined ? { data } : {}) }, process.env), Number(duration));
      }
      case 'query': {
        const { values, positionals } = parseArgs({
          args: [...rest],
          allowPositionals: true,
          options: {
            account: { type: 'string' }, json: { type: 'boolean' }, url: { type: 'string' }, 'api-key': { type: 'string' }, data: { type: 'string' },
            timeout: { type: 'string' }, utc: { type: 'boolean' }, wide: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
          },
          strict: true,
        });
        if (values.help) return usage(0);
        if (positionals.length !== 1) throw new ConfigError('query takes one NRQL query, quoted: timeslice query "SELECT count(*) FROM Transaction"');
        if (values.account !== undefined && !/^\d+$/.test(values.account)) throw new ConfigError(`--account must be an account id, got '${values.account}'`);
        if (values.timeout !== undefined && !/^\d+(\.\d+)?$/.test(values.timeout)) throw new ConfigError(`--timeout must be a number of seconds, got '${values.timeout}'`);
        return await queryCommand({
          query: positionals[0]!,
          url: values.url ?? defaultUrl(),
          apiKey: values['api-key'] ?? process.env.TIMESLICE_API_KEY,
          json: values.json ?? false,
          style: { utc: values.utc ?? false, wide: values.wide ?? false },
          ...(values.data !== undefined ? { dataDir: values.data, ...storeSetting(process.env.TIMESLICE_STORE), ...sharedCatalog() } : {}),
          ...(values.account !== undefined ? { accountId: Number(values.account) } : {}),
          ...(values.timeout !== undefined ? { timeoutSeconds: Number(values.timeout) } : {}),
        });
      }
      case 'accounts':
      case 'users':
      case 'keys': {
        const { values, positionals } = parseArgs({
          args: [...rest],
          allowPositionals: true,
          options: {
            account: { type: 'string' }, kind: { type: 'string' }, user: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' },
            admin: { type: 'boolean' }, json: { type: 'boolean' }, url: { type: 'string' }, 'api-key': { type: 'string' }, data: { type: 'string' },
            help: { type: 'boolean', short: 'h' },
          },
          strict: true,
        });
        if (values.help) return usage(0);
        const { url, 'api-key': apiKey, data, help: _help, ...flags } = values;
        return await manageCommand({
          noun: command, verb: positionals[0], args: positionals.slice(1), flags,
          url: url ?? defaultUrl(),
          apiKey: apiKey ?? process.env.TIMESLICE_API_KEY,
          ...(data !== undefined ? { dataDir: data, ...storeSetting(process.env.TIMESLICE_STORE), ...sharedCatalog() } : {}),
        });
      }
      case 'version':
      case '--version':
      case '-v':
        process.stdout.write(`timeslice ${packageVersion()}\n`);
        return 0;
      case 'status':
      case 'maintain': {
        const { values } = parseArgs({
          args: [...rest],
          options: { json: { type: 'boolean' }, url: { type: 'string' }, 'api-key': { type: 'string' }, data: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
          strict: true,
        });
        if (values.help) return usage(0);
        return await storeCommand({
          command,
          url: values.url ?? process.env.TIMESLICE_URL ?? `http://127.0.0.1:${process.env.TIMESLICE_PORT || '3000'}`,
          apiKey: values['api-key'] ?? process.env.TIMESLICE_API_KEY,
          json: values.json ?? false,
          ...(values.data !== undefined
            ? { dataDir: values.data, ...storeSetting(process.env.TIMESLICE_STORE), ...sharedCatalog(), upkeep: resolveServeConfig({}, process.env).upkeep }
            : {}),
        });
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        return usage(command === undefined ? 1 : 0);
      default:
        process.stderr.write(`timeslice: unknown command '${command}'\n\n`);
        return usage(1);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (error instanceof ConfigError || code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`timeslice: ${(error as Error).message}\n`);
      return 2;
    }
    if (error instanceof StoreLockedError || error instanceof StoreSetupError) {
      process.stderr.write(`timeslice: ${error.message}\n`);
      return 1;
    }
    if (code === 'EADDRINUSE') {
      process.stderr.write(`timeslice: ${(error as Error).message}: pick another --port/--collector-port\n`);
      return 1;
    }
    throw error;
  }
}

/** With --data: the shared catalog the data directory's service uses (TIMESLICE_CATALOG), when it has one. */
function sharedCatalog(): { catalog?: string } {
  const url = catalogUrl(process.env.TIMESLICE_CATALOG);
  return url === undefined ? {} : { catalog: url };
}

function defaultUrl(): string {
  return process.env.TIMESLICE_URL ?? `http://127.0.0.1:${process.env.TIMESLICE_PORT || '3000'}`;
}

/** package.json at the package root; this file runs from dist/src/cli. */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

function usage(exitCode: number): number {
  (exitCode === 0 ? process.stdout : process.stderr).write(USAGE);
  return exitCode;
}
