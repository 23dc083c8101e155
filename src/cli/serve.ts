import { dirname } from 'node:path';
import type { ServeConfig } from '../config.js';
import { startServer, type RunningServer } from '../server.js';

/** The application name the printed agent set-up uses; the person changes it to their app's. */
export const DEFAULT_AGENT_APP_NAME = 'My Application';

/**
 * The environment an agent needs to report to this server, pasted as is into an app's own folder:
 * every path absolute, and an application name (the Node agent refuses to start without one).
 */
export function agentEnvironment(server: RunningServer, licenseKey: string | undefined): Record<string, string> {
  return {
    NEW_RELIC_APP_NAME: DEFAULT_AGENT_APP_NAME,
    NEW_RELIC_HOST: server.collectorHost,
    NEW_RELIC_PORT: String(server.collectorPort),
    NEW_RELIC_LICENSE_KEY: licenseKey ?? '<a license key: shown when created; npx timeslice keys create --account 1 --kind license makes one>',
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
      : `Account 1's keys were shown when they were created and are stored only as hashes. List, create, revoke\n` +
        `or rotate keys with \`npx timeslice keys\` (an admin's user key); lost every key? Stop the service and run\n` +
        `  npx timeslice keys create --account 1 --kind user --data ${shellQuote(dataDirOf(server))}`,
    '',
    'Point a New Relic agent here: in your app\'s folder, run (set NEW_RELIC_APP_NAME to your app\'s name)',
    ...Object.entries(agentEnvironment(server, keys?.licenseKey)).map(([k, v]) => `  export ${k}=${shellQuote(v)}`),
    '  node -r newrelic app.js          # your entry point; Node agent: npm install newrelic',
    '',
    'Read it back with REST API v2, e.g.:',
    `  curl -s ${server.apiUrl}/v2/applications.json -H 'X-Api-Key: ${keys?.userKey ?? '<user API key>'}'`,
    '',
  ];
  return lines.join('\n');
}

function dataDirOf(server: RunningServer): string {
  return dirname(server.databasePath);
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
