import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServeConfig } from '../config.js';
import { generateLicenseKey } from '../security/keys.js';
import { startServer, type RunningServer } from '../server.js';
import { describeServer, uiLink } from './serve.js';

export const DEMO_APP_NAME = 'Timeslice Demo';
/** demo/app.cjs at the package root; this file runs from dist/src/cli. */
const DEMO_APP_PATH = fileURLToPath(new URL('../../../demo/app.cjs', import.meta.url));

const REQUESTS_PER_SECOND = 15;
const PROGRESS_EVERY_MS = 5_000;
const AGENT_CONNECT_PATIENCE_MS = 30_000;
const APP_START_TIMEOUT_MS = 20_000;
/** The agent's own shutdown timeout is 10 s; give it that plus room to exit. */
const APP_STOP_TIMEOUT_MS = 20_000;
/** The Node agent sends metrics every 60 s (fixed), plus once about 1 s after connecting. */
const METRIC_HARVEST_MS = 60_000;

const KINDS = ['fast', 'slow', 'external', 'error', 'noticed'] as const;
type Kind = (typeof KINDS)[number];
/** One cycle of the traffic mix: mostly fast, some slow and external, a few errors. */
const MIX: readonly Kind[] = [
  'fast', 'slow', 'fast', 'external', 'fast', 'error', 'fast', 'fast', 'noticed', 'slow',
  'fast', 'external', 'fast', 'fast', 'error', 'fast', 'slow', 'fast', 'external', 'fast',
];
const EXPECTED_STATUS: Record<Kind, number> = { fast: 200, slow: 200, external: 200, error: 500, noticed: 200 };

/**
 * `timeslice demo`: the service, a small node:http app instrumented with the real `newrelic`
 * agent, and steady traffic at it, so a newcomer sees real data arrive within two minutes.
 * The app reports with a license key made for this run (or TIMESLICE_LICENSE_KEY), which the
 * catalog registers for account 1 like any key given at start.
 */
export async function demoCommand(config: ServeConfig, durationSeconds: number): Promise<number> {
  const licenseKey = config.licenseKey ?? generateLicenseKey();
  const stop = new StopSignal();
  stop.listen();
  const server = await startServer({ ...config, licenseKey }).catch((error: unknown) => {
    stop.unlisten();
    throw error;
  });
  let app: DemoApp | undefined;
  let traffic: TrafficDriver | undefined;
  let progress: NodeJS.Timeout | undefined;
  try {
    say(describeServer(server));
    say('');
    say(licenseNote(server, config, licenseKey));
    if (stop.isStopped) return interrupted();
    say(`Starting the demo app (node:http + newrelic agent; agent log: ${agentLogPath(config)})…`);
    app = await DemoApp.start(server, config, licenseKey);
    stop.onForce(() => {
      if (app?.kill()) say('\nSecond interrupt: killed the demo app (its last data are lost).');
    });
    const appPort = await Promise.race([app.listening, stop.stopped]);
    if (appPort === undefined) return interrupted();
    say(`  app listening on http://127.0.0.1:${appPort} (pid ${app.pid})`);

    const accountId = server.catalog.accountForLicenseKey(licenseKey) ?? 1;
    const watch = new StoreWatch(server, accountId, app.pid);
    say('  waiting for the agent to connect…');
    const connected = await Promise.race([watch.waitForConnect(AGENT_CONNECT_PATIENCE_MS, stop), stop.stopped]);
    if (stop.isStopped) return interrupted();
    if (connected) {
      say(`  agent connected: application "${DEMO_APP_NAME}" (id ${watch.appId}) in account ${accountId}.`);
    } else {
      say(`  the agent has not connected after ${AGENT_CONNECT_PATIENCE_MS / 1000} s; driving traffic anyway.`);
      say(`  Look at ${agentLogPath(config)} for the reason (certificate, license key, host/port).`);
    }

    const driver = new TrafficDriver(`http://127.0.0.1:${appPort}`);
    traffic = driver;
    say('');
    say(
      `Driving ~${REQUESTS_PER_SECOND} requests/s ` +
        (durationSeconds > 0 ? `for ${formatDuration(durationSeconds * 1000)}` : 'until you press Ctrl-C') + ` at the demo app's routes:\n` +
        '  /fast (a few ms), /slow (300-800 ms), /external (calls /fast over HTTP),\n' +
        '  /error (fails with a 500), /noticed (reports a handled error, answers 200);\n' +
        'every third request carries an X-Request-Start header, so queue time shows up.\n' +
        'Events (transactions, errors, spans, custom events) arrive every few seconds. The agent sends\n' +
        'metrics (timeslices such as HttpDispatcher) once a minute, so they show up about a minute in.\n' +
        `While the demo runs, the API answers at ${server.apiUrl}, and the web UI at\n` +
        `  ${uiLink(server.apiUrl, config.apiKey ?? server.createdKeys?.userKey)}\n`,
    );
    say('');
    const startedAt = Date.now();
    driver.start();
    progress = setInterval(() => {
      void watch.stats().then((stats) => say(progressLines(Date.now() - startedAt, driver, stats, watch)), () => undefined);
    }, PROGRESS_EVERY_MS);
    const end = await Promise.race([
      durationSeconds > 0 ? sleep(durationSeconds * 1000).then(() => 'time' as const) : new Promise<never>(() => undefined),
      stop.stopped.then(() => 'interrupted' as const),
      app.exited.then((how) => how),
    ]);
    clearInterval(progress);
    progress = undefined;

    if (end !== 'time' && end !== 'interrupted') {
      await driver.stop();
      throw new DemoError(`the demo app stopped unexpectedly (${end})`);
    }
    say(end === 'interrupted' ? '\nInterrupted: stopping traffic…' : '\nTime is up: stopping traffic…');
    await driver.stop();
    say('Shutting the demo app down; its agent sends what it still holds (the final metric harvest)…');
    const exit = await app.stop();
    if (!exit.graceful) say(`  the demo app did not stop in time and was killed.`);
    const stats = await watch.stats();
    say('');
    say(summary(Date.now() - startedAt, driver, stats, watch, server, config));
    if (watch.appId !== undefined) say(await restHeadline(server, config, watch.appId, startedAt));
    return 0;
  } catch (error) {
    if (!(error instanceof DemoError)) throw error;
    process.stderr.write(`timeslice demo: ${error.message}\n  The agent's log may say more: ${agentLogPath(config)}\n`);
    return 1;
  } finally {
    if (progress) clearInterval(progress);
    await traffic?.stop();
    await app?.stop();
    if (isRunKey(server, config, licenseKey)) await server.catalog.revokeKey(licenseKey);
    await server.close();
    stop.unlisten();
  }

  function interrupted(): number {
    say('Interrupted before any traffic was sent; stopping.');
    return 0;
  }
}

/** A demo step that failed in a way worth a plain message rather than a stack trace. */
class DemoError extends Error {}

function say(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

function agentLogPath(config: ServeConfig): string {
  return join(config.dataDir, 'demo-agent.log');
}

/** A key made for this demo run alone (not the environment's, not account 1's first key): revoked at the end. */
function isRunKey(server: RunningServer, config: ServeConfig, licenseKey: string): boolean {
  return !config.licenseKey && server.createdKeys?.licenseKey !== licenseKey;
}

function licenseNote(server: RunningServer, config: ServeConfig, licenseKey: string): string {
  if (config.licenseKey) return 'The demo app reports with the license key from TIMESLICE_LICENSE_KEY.\n';
  if (!isRunKey(server, config, licenseKey)) return "The demo app reports with account 1's license key shown above.\n";
  return (
    `The demo app reports with a license key made for this run and registered for account 1\n` +
    `(stored hashed like every key; it is revoked when the demo ends):\n` +
    `  ${licenseKey}\n`
  );
}

/** Resolves once: on SIGINT/SIGTERM. A second signal forces the way out. */
class StopSignal {
  private resolveStopped!: () => void;
  readonly stopped = new Promise<undefined>((resolve) => { this.resolveStopped = () => resolve(undefined); });
  isStopped = false;
  private force: (() => void) | undefined;
  private readonly onSignal = (): void => {
    if (this.isStopped) {
      this.force?.();
      return;
    }
    this.isStopped = true;
    this.resolveStopped();
  };

  listen(): void {
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  unlisten(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }

  onForce(force: () => void): void {
    this.force = force;
  }
}

/** The instrumented app as a child process; it tells us its port over IPC. */
class DemoApp {
  readonly listening: Promise<number>;
  /** Settles when the app exits, with how it ended. */
  readonly exited: Promise<string>;
  private stopping: Promise<{ graceful: boolean }> | undefined;

  private constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? `exit code ${code}`)));
    this.listening = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new DemoError(`the demo app did not start listening within ${APP_START_TIMEOUT_MS / 1000} s`)), APP_START_TIMEOUT_MS);
      child.on('message', (message: { type?: string; port?: number }) => {
        if (message?.type === 'listening' && typeof message.port === 'number') {
          clearTimeout(timer);
          resolve(message.port);
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new DemoError(`the demo app exited before it was ready (${signal ?? `exit code ${code}`})`));
      });
    });
    this.listening.catch(() => undefined);
    // Only problems reach the app's stderr; pass them on, marked as the app's.
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        for (const line of chunk.split('\n')) if (line.trim()) process.stdout.write(`  [demo app] ${line}\n`);
      });
    }
  }

  static async start(server: RunningServer, config: ServeConfig, licenseKey: string): Promise<DemoApp> {
    // The agent reads only our settings: NEW_RELIC_* from the user's shell could point it elsewhere.
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NEW_RELIC_')));
    const env: NodeJS.ProcessEnv = {
      ...inherited,
      NEW_RELIC_APP_NAME: DEMO_APP_NAME,
      NEW_RELIC_LICENSE_KEY: licenseKey,
      NEW_RELIC_HOST: server.collectorHost,
      NEW_RELIC_PORT: String(server.collectorPort),
      NODE_EXTRA_CA_CERTS: server.certPath,
      NEW_RELIC_NO_CONFIG_FILE: 'true',
      NEW_RELIC_LOG: agentLogPath(config),
      NEW_RELIC_LOG_LEVEL: 'info',
      // No cloud metadata probes: they only slow the connect down on a laptop.
      NEW_RELIC_UTILIZATION_DETECT_AWS: 'false',
      NEW_RELIC_UTILIZATION_DETECT_AZURE: 'false',
      NEW_RELIC_UTILIZATION_DETECT_GCP: 'false',
      NEW_RELIC_UTILIZATION_DETECT_PCF: 'false',
      NEW_RELIC_UTILIZATION_DETECT_KUBERNETES: 'false',
    };
    const child = spawn(process.execPath, [DEMO_APP_PATH], {
      cwd: config.dataDir,
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      // Its own process group: Ctrl-C reaches only us, and we stop the app in order.
      detached: true,
      windowsHide: true,
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    return new DemoApp(child);
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** Asks the app to shut down (its agent flushes first); kills it if it takes too long. */
  stop(): Promise<{ graceful: boolean }> {
    return (this.stopping ??= (async () => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return { graceful: true };
      if (this.child.connected) this.child.send({ type: 'shutdown' });
      else this.child.kill('SIGTERM');
      const timedOut = await Promise.race([this.exited.then(() => false), sleep(APP_STOP_TIMEOUT_MS).then(() => true)]);
      if (timedOut) {
        this.kill();
        await this.exited;
      }
      return { graceful: !timedOut };
    })());
  }

  /** True if the app was still running. */
  kill(): boolean {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return false;
    return this.child.kill('SIGKILL');
  }
}

interface Counts {
  readonly sent: Record<Kind, number>;
  queued: number;
  unexpected: number;
  failed: number;
}

/** Steady traffic through one cycle of MIX; every third request carries X-Request-Start. */
class TrafficDriver {
  readonly counts: Counts = { sent: { fast: 0, slow: 0, external: 0, error: 0, noticed: 0 }, queued: 0, unexpected: 0, failed: 0 };
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private next = 0;
  lastFailure: string | undefined;

  constructor(private readonly baseUrl: string) {}

  get total(): number {
    return KINDS.reduce((sum, k) => sum + this.counts.sent[k], 0);
  }

  start(): void {
    this.timer = setInterval(() => this.fire(), 1000 / REQUESTS_PER_SECOND);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.inFlight]);
  }

  private fire(): void {
    const n = this.next++;
    const kind = MIX[n % MIX.length]!;
    const headers: Record<string, string> = {};
    if (n % 3 === 0) {
      // Queue time as a front proxy reports it: when the request entered, in µs since the epoch.
      const enteredAt = Date.now() - (5 + Math.random() * 55);
      headers['x-request-start'] = `t=${Math.round(enteredAt * 1000)}`;
      this.counts.queued++;
    }
    this.counts.sent[kind]++;
    const request = fetch(`${this.baseUrl}/${kind}`, { headers, signal: AbortSignal.timeout(10_000) })
      .then(async (response) => {
        await response.arrayBuffer();
        if (response.status !== EXPECTED_STATUS[kind]) {
          this.counts.unexpected++;
          this.lastFailure = `/${kind} answered ${response.status}`;
        }
      })
      .catch((error: Error) => {
        this.counts.failed++;
        this.lastFailure = `/${kind}: ${error.message}`;
      })
      .finally(() => this.inFlight.delete(request));
    this.inFlight.add(request);
  }
}

interface StoredStats {
  readonly transactions: number;
  readonly errorEvents: number;
  readonly spans: number;
  readonly customEvents: number;
  readonly timeslices: number;
  readonly httpDispatcher: number;
  readonly errorsAll: number;
  readonly queueTimeCalls: number;
  readonly queueTimeTotal: number;
}

/** What the store holds from the demo app's agent: one instance, found by the app's pid. */
class StoreWatch {
  appId: number | undefined;
  instanceId: number | undefined;
  /** When we saw the agent connect; metric harvests follow it every 60 s. */
  connectedAt: number | undefined;

  constructor(private readonly server: RunningServer, private readonly accountId: number, private readonly pid: number) {}

  private find(): boolean {
    if (this.instanceId !== undefined) return true;
    const app = this.server.catalog.applications(this.accountId).find((a) => a.name === DEMO_APP_NAME);
    const instance = app && this.server.catalog.instancesOf(app.id).find((i) => i.pid === this.pid);
    if (!app || !instance) return false;
    this.appId = app.id;
    this.instanceId = instance.id;
    this.connectedAt = Date.now();
    return true;
  }

  async waitForConnect(patienceMs: number, stop: StopSignal): Promise<boolean> {
    const giveUpAt = Date.now() + patienceMs;
    while (!this.find()) {
      if (stop.isStopped || Date.now() >= giveUpAt) return false;
      await sleep(200);
    }
    return true;
  }

  /** Milliseconds until the agent's next metric harvest, as far as we can tell. */
  nextMetricHarvestIn(): number | undefined {
    if (this.connectedAt === undefined) return undefined;
    const since = Date.now() - this.connectedAt;
    return METRIC_HARVEST_MS - (since % METRIC_HARVEST_MS);
  }

  async stats(): Promise<StoredStats | undefined> {
    if (!this.find()) return undefined;
    const [row] = await this.server.db.all<Record<keyof StoredStats, number>>(
      `WITH m AS (
         SELECT n.name, sum(t.call_count) AS calls, sum(t.total) AS total
         FROM timeslices t JOIN metric_names n ON n.id = t.metric_id
         WHERE t.app_id = $1 AND t.instance_id = $2 AND t.scope_id = 0
           AND n.name IN ('HttpDispatcher', 'Errors/all', 'WebFrontend/QueueTime')
         GROUP BY n.name)
       SELECT
         (SELECT count(*) FROM transaction_events WHERE app_id = $1 AND instance_id = $2)::INTEGER AS transactions,
         (SELECT count(*) FROM error_events WHERE app_id = $1 AND instance_id = $2)::INTEGER AS errorEvents,
         (SELECT count(*) FROM span_events WHERE app_id = $1 AND instance_id = $2)::INTEGER AS spans,
         (SELECT count(*) FROM custom_events WHERE app_id = $1 AND instance_id = $2)::INTEGER AS customEvents,
         (SELECT count(*) FROM timeslices WHERE app_id = $1 AND instance_id = $2)::INTEGER AS timeslices,
         coalesce((SELECT calls FROM m WHERE name = 'HttpDispatcher'), 0)::DOUBLE AS httpDispatcher,
         coalesce((SELECT calls FROM m WHERE name = 'Errors/all'), 0)::DOUBLE AS errorsAll,
         coalesce((SELECT calls FROM m WHERE name = 'WebFrontend/QueueTime'), 0)::DOUBLE AS queueTimeCalls,
         coalesce((SELECT total FROM m WHERE name = 'WebFrontend/QueueTime'), 0)::DOUBLE AS queueTimeTotal`,
      [this.appId!, this.instanceId!],
    );
    return row;
  }
}

function progressLines(elapsedMs: number, traffic: TrafficDriver, stats: StoredStats | undefined, watch: StoreWatch): string {
  const clock = formatClock(elapsedMs);
  const pad = ' '.repeat(clock.length);
  const lines = [`${clock}  sent    ${trafficText(traffic)}`];
  if (!stats) {
    lines.push(`${pad}  stored  nothing yet: the agent has not connected`);
  } else {
    const next = watch.nextMetricHarvestIn();
    const nextText = next === undefined
      ? 'metrics come once a minute'
      : next > METRIC_HARVEST_MS - 5_000 ? 'metric harvest due now' : `next metric harvest in ~${Math.ceil(next / 1000)} s`;
    const metrics = stats.httpDispatcher > 0
      ? `HttpDispatcher ${num(stats.httpDispatcher)} calls (${nextText})`
      : `HttpDispatcher not yet (${nextText})`;
    lines.push(
      `${pad}  stored  ${count(stats.transactions, 'transaction')} · ${count(stats.errorEvents, 'error')} · ${count(stats.spans, 'span')} · ` +
        `${count(stats.customEvents, 'custom event')} · ${count(stats.timeslices, 'timeslice')} · ${metrics}`,
    );
  }
  return lines.join('\n');
}

function trafficText(traffic: TrafficDriver): string {
  const c = traffic.counts;
  const mix = KINDS.map((k) => `${num(c.sent[k])} ${k}`).join(', ');
  const problems = c.failed + c.unexpected > 0 ? `; ${num(c.failed + c.unexpected)} went wrong (last: ${traffic.lastFailure})` : '';
  return `${count(traffic.total, 'request')}: ${mix} (${num(c.queued)} with X-Request-Start)${problems}`;
}

function summary(
  elapsedMs: number, traffic: TrafficDriver, stats: StoredStats | undefined, watch: StoreWatch,
  server: RunningServer, config: ServeConfig,
): string {
  const lines = [
    `Demo finished after ${formatDuration(elapsedMs)} of traffic.`,
    `  Sent:     ${trafficText(traffic)}`,
  ];
  if (!stats) {
    lines.push(`  Stored:   nothing: the agent never connected. See ${agentLogPath(config)}.`);
    return lines.join('\n') + '\n';
  }
  const queueMs = stats.queueTimeCalls > 0 ? ` (average ${Math.round((stats.queueTimeTotal / stats.queueTimeCalls) * 1000)} ms)` : '';
  lines.push(
    `  Stored from this run of "${DEMO_APP_NAME}" (application id ${watch.appId}):`,
    `            ${count(stats.transactions, 'transaction event')}, ${count(stats.errorEvents, 'error event')}, ` +
      `${count(stats.spans, 'span')}, ${count(stats.customEvents, 'custom event')}`,
    `            ${count(stats.timeslices, 'timeslice')}: HttpDispatcher ${num(stats.httpDispatcher)} calls, Errors/all ${num(stats.errorsAll)}, ` +
      `WebFrontend/QueueTime ${num(stats.queueTimeCalls)} calls${queueMs}`,
    '  Metrics count every request (each /external is two: it calls /fast). Error events and spans',
    '  are samples: the agent keeps within the per-minute limits the collector grants, as with New Relic.',
    '',
    ...whereToLook(server, config, watch.appId!),
  );
  return lines.join('\n') + '\n';
}

function whereToLook(server: RunningServer, config: ServeConfig, appId: number): string[] {
  const api = new URL(server.apiUrl);
  if (config.port === 0) api.port = '3000';
  const serve = `timeslice serve --data ${config.dataDir}` + (config.port === 0 || config.port === 3000 ? '' : ` --port ${config.port}`);
  const userKey = config.apiKey ?? server.createdKeys?.userKey ?? '<your user API key>';
  const base = api.origin;
  return [
    'Where to look:',
    `  The data stay in ${server.databasePath}. Serve them again with`,
    `    ${serve}`,
    `  The web UI: ${uiLink(base, config.apiKey ?? server.createdKeys?.userKey, `/ui/apm/${appId}`)}`,
    `  The API will answer at ${base}, for example REST v2 metric data:`,
    `    curl -H 'X-Api-Key: ${userKey}' '${base}/v2/applications/${appId}/metrics/data.json?names[]=HttpDispatcher&summarize=true'`,
    `  The agent's own log is ${agentLogPath(config)}.`,
  ];
}

/**
 * The run's Apdex and response time as REST v2 reports them, read through the service's own API
 * (in-process), with the NRQL each number equals.
 */
async function restHeadline(server: RunningServer, config: ServeConfig, appId: number, startedAt: number): Promise<string> {
  const userKey = config.apiKey ?? server.createdKeys?.userKey;
  if (!userKey) return '';
  const from = new Date(Math.floor(startedAt / 60_000) * 60_000 - 60_000).toISOString();
  const to = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 60_000).toISOString();
  const url = `/v2/applications/${appId}/metrics/data.json?names[]=Apdex&names[]=HttpDispatcher&names[]=WebFrontend/QueueTime` +
    `&values[]=score&values[]=call_count&values[]=average_call_time&values[]=average_response_time&summarize=true&from=${from}&to=${to}`;
  const reply = await server.api.inject({ method: 'GET', url, headers: { 'x-api-key': userKey } });
  if (reply.statusCode !== 200) return `REST v2 answered ${reply.statusCode}: ${reply.body}\n`;
  type Metric = { name: string; timeslices: { values: Record<string, number> }[] };
  const metrics = (JSON.parse(reply.body) as { metric_data: { metrics: Metric[] } }).metric_data.metrics;
  const values = (name: string) => metrics.find((m) => m.name === name)?.timeslices[0]?.values ?? {};
  const web = values('HttpDispatcher');
  const queue = values('WebFrontend/QueueTime');
  const calls = web.call_count ?? 0;
  const responseTime = (web.average_call_time ?? 0) + (calls > 0 ? ((queue.call_count ?? 0) * (queue.average_response_time ?? 0)) / calls : 0);
  const nrql = reply.headers['x-timeslice-nrql'];
  const first = Array.isArray(nrql) ? nrql[0] : nrql;
  return [
    'REST v2 over the complete minutes of this run (GET …/metrics/data.json, summarize=true; the current minute is still open):',
    `  Apdex score ${values('Apdex').score ?? 0}; response time ${Math.round(responseTime * 10) / 10} ms ` +
      `(HttpDispatcher ${web.average_call_time ?? 0} ms + queue time spread over ${calls} requests)`,
    ...(first ? [`  The same numbers in NRQL (X-Timeslice-NRQL): ${first}`] : []),
    '',
  ].join('\n');
}

function num(n: number): string {
  return n.toLocaleString('en-US');
}

function count(n: number, noun: string): string {
  return `${num(n)} ${noun}${n === 1 ? '' : 's'}`;
}

function formatClock(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  return s % 60 === 0 ? `${s / 60} min` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** Unref'd: a wait that lost a race must not hold the process open after everything closed. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => { setTimeout(resolve, ms).unref(); });
}
