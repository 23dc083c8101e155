import { manage, ManagementError, parseManagementRequest, type ManagementRequest } from '../accounts/account-management.js';
import { ADMIN_ROUTE } from '../http/service-paths.js';
import { ConfigError } from '../config.js';
import { openDataDirStore, type DataDirOptions } from './data-dir-store.js';
import { renderTable } from './query.js';

export interface ManageCommandOptions extends DataDirOptions {
  /** `accounts`, `users` or `keys`. */
  readonly noun: string;
  readonly verb: string | undefined;
  readonly args: readonly string[];
  readonly flags: {
    readonly account?: string; readonly kind?: string; readonly user?: string; readonly name?: string; readonly email?: string;
    readonly admin?: boolean; readonly json?: boolean;
  };
  readonly url: string;
  readonly apiKey: string | undefined;
}

const VERBS: Readonly<Record<string, readonly string[]>> = {
  accounts: ['list', 'create'],
  users: ['list', 'create'],
  keys: ['list', 'create', 'revoke', 'rotate'],
};

function whole(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(value)) throw new ConfigError(`${flag} must be a positive whole number, got '${value}'`);
  return Number(value);
}

/** The command line as a management request; a ConfigError says what is missing. */
export function managementRequest(options: Pick<ManageCommandOptions, 'noun' | 'verb' | 'args' | 'flags'>): ManagementRequest {
  const { noun, verb, args, flags } = options;
  if (!verb || !VERBS[noun]!.includes(verb)) throw new ConfigError(`${noun} takes one of: ${VERBS[noun]!.join(', ')}`);
  const account = whole('--account', flags.account);
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new ConfigError(`${noun} ${verb} needs ${what}`);
    return value;
  };
  const body: Record<string, unknown> = { op: `${noun}.${verb}` };
  if (noun === 'accounts' && verb === 'create') body.name = need(args[0], 'a name: timeslice accounts create "Staging"');
  if (verb === 'list' && account !== undefined) body.account = account;
  if (noun === 'users' && verb === 'create') {
    Object.assign(body, {
      account: need(account, '--account <id>'), name: need(flags.name, '--name "<full name>"'), email: need(flags.email, '--email <address>'), admin: flags.admin ?? false,
    });
  }
  if (noun === 'keys' && verb === 'create') {
    Object.assign(body, { account: need(account, '--account <id>'), kind: need(flags.kind, '--kind user|license') });
    const user = whole('--user', flags.user);
    if (user !== undefined) body.user = user;
  }
  if (noun === 'keys' && (verb === 'revoke' || verb === 'rotate')) body.id = need(whole('the key id', args[0]), `a key id (see timeslice keys list): timeslice keys ${verb} 3`);
  try {
    return parseManagementRequest(body);
  } catch (error) {
    if (error instanceof ManagementError) throw new ConfigError(error.message);
    throw error;
  }
}

/** `timeslice accounts|users|keys <verb>`: through a running service, or on a stopped data directory. */
export async function manageCommand(options: ManageCommandOptions, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  const request = managementRequest(options);
  const label = `timeslice ${options.noun} ${options.verb}`;
  let answer: Record<string, unknown>;
  if (options.dataDir !== undefined) {
    // With --data (the service stopped): the recovery when every key is lost.
    const store = await openDataDirStore({ ...options, dataDir: options.dataDir });
    try {
      answer = await manage(store.catalog, request);
    } catch (error) {
      if (!(error instanceof ManagementError)) throw error;
      err.write(`${label}: ${error.message}\n`);
      return 1;
    } finally {
      await store.close();
    }
  } else {
    if (!options.apiKey) {
      err.write(`${label}: no API key; set TIMESLICE_API_KEY or pass --api-key (an admin's user key), or --data <dir> while the service is stopped\n`);
      return 2;
    }
    let response: Response;
    try {
      response = await fetch(new URL(ADMIN_ROUTE, options.url), {
        method: 'POST', headers: { 'content-type': 'application/json', 'api-key': options.apiKey }, body: JSON.stringify(request),
      });
    } catch (error) {
      const cause = (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message;
      err.write(`${label}: cannot reach ${options.url} (${cause}); is \`npx timeslice serve\` running? (--url, or --data <dir> while it is stopped)\n`);
      return 1;
    }
    answer = await response.json() as Record<string, unknown>;
    if (!response.ok) {
      err.write(`${label}: ${(answer.error as { title?: string } | undefined)?.title ?? `HTTP ${response.status}`}\n`);
      return 1;
    }
  }
  out.write(options.flags.json ? `${JSON.stringify(answer, null, 2)}\n` : humanText(answer));
  return 0;
}

function humanText(answer: Record<string, unknown>): string {
  const list = answer.accounts ?? answer.users ?? answer.keys;
  if (Array.isArray(list)) return renderTable(list as Record<string, unknown>[]);
  const lines: string[] = [];
  if (answer.account) lines.push(`Account ${(answer.account as { id: number }).id} created.`, `  License key (agents): ${answer.licenseKey as string}`);
  if (answer.user) {
    const u = answer.user as { id: number; name: string; email: string; accountId: number; admin: boolean };
    lines.push(`User ${u.id} (${u.name} <${u.email}>) created in account ${u.accountId}${u.admin ? ', an admin' : ''}.`, `  User API key: ${answer.key as string}`);
  } else if (answer.info) {
    const k = answer.info as { id: number; kind: string; accountId: number };
    if (answer.revoked !== undefined) lines.push(`Key ${answer.revoked as number} revoked; its replacement:`);
    lines.push(`Key ${k.id} (${k.kind}, account ${k.accountId}): ${answer.key as string}`);
  } else if (answer.revoked) {
    const k = answer.revoked as { id: number; hint: string };
    lines.push(`Key ${k.id} (${k.hint}) revoked: it authenticates nothing from now on.`);
  }
  if (answer.key || answer.licenseKey) lines.push('Shown once: only its hash is stored.');
  return `${lines.join('\n')}\n`;
}
