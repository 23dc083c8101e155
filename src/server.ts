import { join } from 'node:path';
import pino from 'pino';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApiApp } from './app/api-app.js';
import { deploymentsV0Plugin } from './api/deployments-v0.js';
import { collectorDeploymentsPlugin } from './api/rest/deployment-routes.js';
import { createRateLimits } from './http/rate-limit.js';
import { ApiUsageRecorder } from './api/rest/api-usage.js';
import { AlertService } from './alerts/alert-service.js';
import { expectedTerminations } from './alerts/expected-termination.js';
import type { WebhookOptions } from './alerts/webhook-sender.js';
import { withCommitSignal } from './alerts/commit-signal.js';
import { systemClock, type Clock } from './clock.js';
import type { ServeConfig } from './config.js';
import { inlineDecoder, WorkerDecoderPool, type AgentDecoder } from './ingest/agent/agent-decoder.js';
import { buildCollector } from './ingest/agent/collector.js';
import { eventApiPlugin } from './ingest/event-api/event-api.js';
import { openAgentFiles } from './ingest/browser/agent-files.js';
import { browserIngestPlugin, versionedAgentPath } from './ingest/browser/browser-ingest.js';
import { ObfuscationKeys } from './ingest/browser/obfuscation.js';
import { apmJsAgentLoader } from './domain/browser-loader-script.js';
import { storeDictionaries } from './nrql/dictionaries.js';
import { NrqlEngine } from './nrql/nrql-engine.js';
import { preparePrivateDataDir } from './security/private-data-dir.js';
import { ensureCollectorCertificate } from './security/tls.js';
import type { BatchWriter } from './store/batch-writer.js';
import type { Catalog, CreatedKeys } from './store/catalog.js';
import { Database } from './store/duckdb/database.js';
import { DuckDbStore } from './store/duckdb/duckdb-store.js';
import type { EntityStores } from './store/entity-stores.js';
import type { MetricIndex } from './store/metric-index.js';
import { openStore } from './store/open-store.js';
import { QueryAdmission } from './nrql/query-admission.js';
import type { Store } from './store/store.js';

export interface RunningServer {
  readonly apiUrl: string;
  readonly collectorUrl: string;
  readonly collectorHost: string;
  readonly collectorPort: number;
  readonly certPath: string;
  readonly databasePath: string;
  /** Keys in clear when this start created them (first start) or was given them; else undefined. */
  readonly createdKeys: CreatedKeys | undefined;
  /** The store the configuration chose; the services below are its. */
  readonly store: Store;
  /** The DuckDB store's database, for tests and tools that look at its tables (DuckDB is the only engine today). */
  readonly db: Database;
  readonly catalog: Catalog;
  /** Metric names ↔ ids, the unscoped metrics each application/host/instance reported, and when it last did. */
  readonly metrics: MetricIndex;
  /** Key transactions, mobile and browser applications. */
  readonly entities: EntityStores;
  readonly writer: BatchWriter;
  readonly api: FastifyInstance;
  /** Records REST v2 and v0 calls; `flush()` writes the ones waiting for their batch now. */
  readonly apiUsage: ApiUsageRecorder;
  /** Alerting: conditions evaluated every minute; `evaluateOnce()` runs a cycle now. */
  readonly alerts: AlertService;
  /** Moves old timeslices into clustered order on a timer; `compactOnce()` runs it now. */
  readonly compactor: Pick<Store, 'compactOnce'>;
  /** Admits the queries of every surface (TIMESLICE_QUERY_*). */
  readonly admission: QueryAdmission;
  /** Stops accepting, waits for requests in flight, commits pending writes, closes the store. */
  close(): Promise<void>;
}

export interface StartOptions {
  readonly clock?: Clock;
  readonly logger?: FastifyBaseLogger;
  /** Rows the batch writer queues at most (default MAX_QUEUED_ROWS); tests lower it to reach it with small payloads. */
  readonly maxQueuedRows?: number;
  /** How often alert conditions are evaluated (default one minute; 0 = only on `alerts.evaluateOnce()`). */
  readonly alertIntervalMs?: number;
  /** Webhook timeouts, retries and answer size (default DEFAULT_WEBHOOK_OPTIONS); tests shorten them. */
  readonly alertWebhook?: WebhookOptions;
}

/** Opens the store and starts both listeners: the HTTP API and the HTTPS agent collector. */
export async function startServer(config: ServeConfig, options: StartOptions = {}): Promise<RunningServer> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? (pino({ level: config.logLevel }) as unknown as FastifyBaseLogger);
  await preparePrivateDataDir(config.dataDir);
  const databasePath = join(config.dataDir, 'timeslice.duckdb');
  const store = await openStore({
    engine: config.store, ...(config.storeUrl ? { dataUrl: config.storeUrl } : {}), dataDir: config.dataDir, memoryLimit: config.memoryLimit, clock, compaction: config.compaction, upkeep: config.upkeep,
    ...(config.catalog !== undefined ? { catalogUrl: config.catalog } : {}),
    maxMetricNamesPerApp: config.maxMetricNamesPerApp, ...(options.maxQueuedRows !== undefined ? { maxQueuedRows: options.maxQueuedRows } : {}),
    ...(config.duckdbThreads ? { threads: config.duckdbThreads } : {}),
  });
  let ready = false;
  let collector: FastifyInstance | undefined;
  let api: FastifyInstance | undefined;
  let decoder: AgentDecoder | undefined;
  let alerts: AlertService | undefined;
  try {
    if (!(store instanceof DuckDbStore)) throw new Error(`store engine ${store.engine} has no database to show`);
    const { catalog, metrics, entities, writer, executor, deployments, traces } = store;
    // What agents and the Event API write: each commit tells alerting, which evaluates it seconds later.
    const ingestWriter = withCommitSignal(writer, () => alerts?.dataCommitted());
    const tls = await ensureCollectorCertificate(config.dataDir, [config.host, ...config.certHosts]);
    decoder = config.ingestWorkers > 0 ? new WorkerDecoderPool(config.ingestWorkers) : inlineDecoder;
    let collectorPort = config.collectorPort;
    let apiPort = config.port;
    const agentFiles = await openAgentFiles();
    const obfuscationKeys = new ObfuscationKeys();
    collector = buildCollector({
      onLicenseKey: (accountId, key) => obfuscationKeys.learn(accountId, key),
      // Pages of an application with browser monitoring on report to TIMESLICE_BROWSER_ORIGIN, else to
      // the API port (plain HTTP) on the host name the agent reached the collector by.
      browserMonitoring: (app, agentHostname) => {
        const side = entities.browserApplications.list(app.accountId).find((b) => b.apmApplicationId === app.id);
        if (!side) return undefined;
        const origin = config.browserOrigin
          ?? `http://${agentHostname.includes(':') && !agentHostname.startsWith('[') ? `[${agentHostname}]` : agentHostname}:${apiPort}`;
        const host = new URL(origin).host;
        return {
          browser_key: side.browserMonitoringKey,
          beacon: host,
          error_beacon: host,
          js_agent_file: '',
          js_agent_loader: apmJsAgentLoader({
            accountId: app.accountId, applicationId: app.id, browserMonitoringKey: side.browserMonitoringKey, settings: side.settings,
            origin, agentPath: versionedAgentPath(agentFiles),
          }),
          'browser_monitoring.loader': { SPA: 'spa', PRO: 'full', LITE: 'rum' }[side.settings.loaderType],
          'browser_monitoring.loader_version': agentFiles.version ?? '',
        };
      },
      keyTransactionApdex: (appId) => Object.fromEntries(entities.keyTransactions.forApplication(appId).map((k) => [k.metricName, k.apdexT])),
      catalog, writer: ingestWriter, metrics, clock, logger, decoder,
      publicPort: () => collectorPort,
      eventHarvestPeriodMs: config.eventHarvestPeriodMs,
      harvestLimits: config.harvestLimits,
      https: { key: tls.key, cert: tls.cert },
    });
    // Deployments v0 and the Event API answer on the collector too (their docs' host names may point either way).
    const apiUsage = new ApiUsageRecorder({ catalog, writer, clock, logger });
    const admission = new QueryAdmission(config.queryAdmission);
    // REST's deployment reads on the collector port go through NRQL, as on the API port, under the same admission.
    const nrql = new NrqlEngine({ executor, dictionaries: storeDictionaries(catalog, metrics), clock, admission });
    // One budget per key (REST) and per account (NRQL), whichever port a request comes in on.
    const rateLimits = createRateLimits(clock, config.rateLimits);
    await collector.register(deploymentsV0Plugin({
      catalog, deployments, nrql, clock, sunset: config.restSunset, usage: apiUsage, limiter: rateLimits.rest,
      graphqlUrl: (request) => `http://${request.hostname}:${apiPort}/graphql`,
    }));
    await collector.register(eventApiPlugin({ catalog, writer: ingestWriter, clock }));
    await collector.register(browserIngestPlugin({
      catalog, writer: ingestWriter, metrics, clock, agentFiles, obfuscationKeys, browserApplications: entities.browserApplications,
    }));
    await collector.register(collectorDeploymentsPlugin({ catalog, deployments, nrql, clock, sunset: config.restSunset, usage: apiUsage, limiter: rateLimits.rest }));
    // Conditions' queries go through the same NRQL engine and admission as every other query (one at a
    // time: a cycle is sequential).
    alerts = await AlertService.open({
      records: store.alerts,
      nrql,
      clock,
      intervalMs: options.alertIntervalMs ?? config.alertIntervalMs ?? 60_000,
      log: (message, error) => logger.warn({ err: error }, message),
      writeEvents: (rows) => writer.write(rows),
      ...(options.alertWebhook ? { webhook: options.alertWebhook } : {}),
      // Where nodes share the alert state, only the lease holder sends what is pending (after reloading).
      dispatchOnOpen: !store.lease.shared,
      // The API's address once it listens (its port may be chosen by the system).
      origin: () => `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${apiPort}`,
      endedExpectedly: () => expectedTerminations(catalog),
      accountName: (accountId) => catalog.account(accountId)?.name,
      applications: (accountId) => catalog.applications(accountId),
    });
    api = await buildApiApp({
      catalog, metrics, executor, clock, entities, ready: () => ready, logger,
      deployments, traces, writer: ingestWriter, restSunset: config.restSunset, apiUsage, rateLimits, alerts, admission, upkeep: store, browser: { agentFiles, obfuscationKeys },
    });
    await collector.listen({ host: config.host, port: config.collectorPort });
    collectorPort = (collector.server.address() as { port: number }).port;
    await api.listen({ host: config.host, port: config.port });
    apiPort = (api.server.address() as { port: number }).port;
    // Only once both ports listen: keys made by a start that then fails (a port in use) would
    // exist only as hashes, and the next start, finding the account, would have none to show.
    const createdKeys = await catalog.bootstrap({
      ...(config.apiKey ? { userKey: config.apiKey } : {}),
      ...(config.licenseKey ? { licenseKey: config.licenseKey } : {}),
      ...(config.adminName ? { userName: config.adminName } : {}),
      ...(config.adminEmail ? { userEmail: config.adminEmail } : {}),
    });
    const keysToShow = createdKeys ?? (config.apiKey && config.licenseKey ? { userKey: config.apiKey, licenseKey: config.licenseKey } : undefined);
    ready = true;
    store.start();
    // Alerts are evaluated and notifications sent by the one node holding the background lease.
    const alerting = alerts;
    // A configuration change made through another node: every node reads alerting's state again.
    store.alerts.watch?.(() =>
      alerting.reload({ dispatch: store.lease.held() }).catch((error: unknown) => logger.warn({ err: error }, 'alert state could not be reloaded')));
    const stopWatching = store.lease.watch((held) => {
      if (!held) {
        alerting.pause();
      } else if (!store.lease.shared) {
        alerting.start();
      } else {
        // Other nodes may have changed alert configuration and state since this one loaded it.
        alerting.reload().then(
          () => { if (store.lease.held()) alerting.start(); },
          (error: unknown) => logger.warn({ err: error }, 'alert state could not be reloaded; alerts not evaluated on this node'),
        );
      }
    });
    const urlHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
    const collectorHost = urlHost === '127.0.0.1' ? 'localhost' : urlHost;
    const d = decoder;
    const c = collector;
    const a = api;
    let closing: Promise<void> | undefined;
    return {
      apiUrl: `http://${urlHost}:${apiPort}`,
      collectorUrl: `https://${collectorHost}:${collectorPort}`,
      collectorHost,
      collectorPort,
      certPath: tls.certPath,
      databasePath,
      createdKeys: keysToShow,
      store, db: store.db, catalog, metrics, entities, writer, api: a, compactor: store, apiUsage, admission, alerts: alerting,
      close: () => (closing ??= (async () => {
        ready = false;
        await c.close();
        await a.close();
        await d.close();
        stopWatching();
        await alerting.stop();
        await store.close();
      })()),
    };
  } catch (error) {
    await collector?.close().catch(() => undefined);
    await api?.close().catch(() => undefined);
    await decoder?.close().catch(() => undefined);
    await alerts?.stop().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw error;
  }
}
