/**
 * Where the ClickHouse data store is: `clickhouse://[user[:password]@]host:port[,host:port…]/database[?cluster=name]`
 * (ClickHouse's HTTP port; `clickhouses://` for HTTPS). With `cluster`, each host listed is a
 * shard of that cluster (as `remote_servers` names it on them): Timeslice creates the MergeTree
 * tables on every host as `<table>_local` and a Distributed table `<table>` over them, and talks to
 * the first host. Without it, one server holds the MergeTree tables under their own names.
 */
export interface ClickHouseConfig {
  readonly hosts: readonly { readonly host: string; readonly port: number }[];
  readonly database: string;
  readonly user: string;
  readonly password: string;
  readonly secure: boolean;
  readonly cluster: string | undefined;
}

/** A TIMESLICE_STORE value that is not a ClickHouse URL Timeslice can use; the message names what is wrong. */
export class ClickHouseUrlError extends Error {}

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function parseClickHouseUrl(text: string): ClickHouseConfig {
  const bad = (why: string) => new ClickHouseUrlError(`TIMESLICE_STORE '${redact(text)}' is not a usable ClickHouse URL: ${why} (expected clickhouse://host:8123/database)`);
  const m = /^(clickhouses?):\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#]+)\/([^/?#]*)(?:\?([^#]*))?$/.exec(text.trim());
  if (!m) throw bad('it does not have the form scheme://host:port/database');
  const [, scheme, user, password, hostList, database, query] = m;
  const hosts = hostList!.split(',').map((part) => {
    const hp = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(part);
    if (!hp) throw bad(`'${part}' is not host:port`);
    const port = hp[2] === undefined ? (scheme === 'clickhouses' ? 8443 : 8123) : Number(hp[2]);
    if (port < 1 || port > 65535) throw bad(`port ${hp[2]} is out of range`);
    return { host: hp[1]!, port };
  });
  const db = decodeURIComponent(database!);
  if (!NAME.test(db)) throw bad(db === '' ? 'the database is missing' : `database '${db}' must be letters, digits and _`);
  const params = new URLSearchParams(query ?? '');
  for (const key of params.keys()) if (key !== 'cluster') throw bad(`unknown option '${key}' (only cluster=…)`);
  const cluster = params.get('cluster') ?? undefined;
  if (cluster !== undefined && !NAME.test(cluster)) throw bad(`cluster '${cluster}' must be letters, digits and _`);
  if (cluster === undefined && hosts.length > 1) throw bad('several hosts need ?cluster=<name> (the cluster they are shards of)');
  return {
    hosts, database: db, user: decodeURIComponent(user || 'default'), password: decodeURIComponent(password ?? ''),
    secure: scheme === 'clickhouses', cluster,
  };
}

/** The URL without its password, for messages. */
export function redact(text: string): string {
  return text.replace(/(:\/\/[^:@/]*:)[^@/]*@/, '$1***@');
}

export function hostUrl(config: ClickHouseConfig, index = 0): string {
  const h = config.hosts[index]!;
  return `${config.secure ? 'https' : 'http'}://${h.host}:${h.port}`;
}
