import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Tests run compiled from dist/test; the fixture stays in the source tree.
const FIXTURES = fileURLToPath(new URL('../../../test/e2e/fixtures/', import.meta.url));

export function waitForExit(child: ChildProcess, ms: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    const timer = setTimeout(() => reject(new Error(`process ${child.pid} did not exit within ${ms} ms`)), ms);
    child.once('exit', (code) => { clearTimeout(timer); resolve(code); });
  });
}

/** What the fixture app reports once its agent has connected. */
export interface AgentAppReady {
  readonly port: number;
  readonly apdexT: number;
  readonly appId: number;
  /** `event_harvest_config.harvest_limits` as the agent holds them after its connect. */
  readonly harvestLimits: Readonly<Record<string, number>>;
}

export interface AgentAppOptions {
  readonly appName: string;
  readonly licenseKey: string;
  readonly collectorPort: number;
  readonly certPath: string;
  /** The agent's log goes to `<logDir>/<appName>.log`. */
  readonly logDir: string;
  /** More environment for the app, applied last (e.g. `DYNO`, which the agent reports as the host name). */
  readonly env?: Readonly<Record<string, string>>;
  /** The app under test/e2e/fixtures/ to run (default agent-app.cjs). */
  readonly fixture?: string;
}

/**
 * Runs `test/e2e/fixtures/agent-app.cjs` under the real `newrelic` agent pointed at a collector,
 * calls `drive` with its HTTP port once the agent has connected, then shuts it down gracefully
 * (the agent sends its final harvest) and fails unless it exits 0. The app is killed if anything fails.
 */
export async function withAgentApp<T>(options: AgentAppOptions, drive: (ready: AgentAppReady) => Promise<T>): Promise<T> {
  const app = fork(join(FIXTURES, options.fixture ?? 'agent-app.cjs'), [], {
    execArgv: ['-r', 'newrelic'],
    env: {
      ...process.env,
      NEW_RELIC_APP_NAME: options.appName,
      NEW_RELIC_LICENSE_KEY: options.licenseKey,
      NEW_RELIC_HOST: 'localhost',
      NEW_RELIC_PORT: String(options.collectorPort),
      NODE_EXTRA_CA_CERTS: options.certPath,
      NEW_RELIC_NO_CONFIG_FILE: 'true',
      NEW_RELIC_LOG: join(options.logDir, `${options.appName}.log`),
      NEW_RELIC_LOG_LEVEL: 'info',
      ...options.env,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const ready = await new Promise<AgentAppReady>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${options.appName}: agent did not connect within 30 s (see ${options.logDir})`)), 30_000);
      app.once('message', (m: AgentAppReady) => { clearTimeout(timer); resolve(m); });
      app.once('exit', (code) => reject(new Error(`${options.appName} exited with ${code}`)));
    });
    const result = await drive(ready);
    app.send('shutdown');
    assert.equal(await waitForExit(app, 40_000), 0, `${options.appName} agent shutdown failed`);
    return result;
  } finally {
    if (app.exitCode === null) app.kill('SIGKILL');
  }
}
