import type { ServeConfig } from '../config.js';
import { startServer, type RunningServer } from '../server.js';

/** The environment an agent needs to report to this server. */
export function agentEnvironment(server: RunningServer, licenseKey: string | undefined): Record<string, string> {
  return {
    NEW_RELIC_HOST: server.collectorHost,
    NEW_RELIC_PORT: String(server.collectorPort),
    NEW_RELIC_LICENSE_KEY: licenseKey ?? '<the license key printed on first start>',
    NODE_EXTRA_CA_CERTS: server.certPath,
  };
}

export function describeServer(server: RunningServer): string {
  const keys = server.createdKeys;
  const lines = [
    `Timeslice is running.`,
    `  API:        ${server.apiUrl}   (health: ${server.apiUrl}/healthz)`,
    `  Web UI:     ${uiLink(server.apiUrl, keys?.userKey)}`,
    `  Collector:  ${server.collectorUrl}   (agent protocol 17, certificate ${server.certPath})`,
    `  Data:       ${server.databasePath}`,
    '',
    keys
      ? `Account 1 ("Default") keys — shown once, stored only as hashes:\n  User API key (X-Api-Key / Api-Key):  ${keys.userKey}\n  License key (agents):                ${keys.licenseKey}`
      : `Account 1 keys were created on first start and are stored only as hashes; set TIMESLICE_API_KEY and\nTIMESLICE_LICENSE_KEY to choose keys you know.`,
    '',
    'Point a New Relic agent here with:',
    ...Object.entries(agentEnvironment(server, keys?.licenseKey)).map(([k, v]) => `  export ${k}=${shellQuote(v)}`),
    '',
    'Read it back with REST API v2, e.g.:',
    `  curl -s ${server.apiUrl}/v2/applications.json -H 'X-Api-Key: ${keys?.userKey ?? '<user API key>'}'`,
    '',
  ];
  return lines.join('\n');
}

/**
 * The UI's address, with the user key in the fragment when it is known (browsers never send the
 * fragment, and the page drops it from the address bar at once).
 */
export function uiLink(apiUrl: string, userKey: string | undefined, path = '/ui/'): string {
  return `${apiUrl}${path}${userKey ? `#key=${encodeURIComponent(userKey)}` : ''}`;
}

function shellQuote(v: string): string {
  return /^[\w./:@%+-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`;
}

/** Runs until SIGINT/SIGTERM, then shuts down gracefully (pending writes are committed). */
export async function serveCommand(config: ServeConfig): Promise<number> {
  const server = await startServer(config);
  process.stdout.write(describeServer(server));
  await waitForSignal();
  process.stdout.write('Shutting down: committing pending writes…\n');
  await server.close();
  process.stdout.write('Stopped.\n');
  return 0;
}

export function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
