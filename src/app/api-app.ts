import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Clock } from '../clock.js';
import { eventApiPlugin } from '../ingest/event-api/event-api.js';
import { browserIngestPlugin } from '../ingest/browser/browser-ingest.js';
import type { AgentFiles } from '../ingest/browser/agent-files.js';
import type { ObfuscationKeys } from '../ingest/browser/obfuscation.js';
import type { BatchWriter } from '../store/batch-writer.js';
import type { Deployments } from '../store/deployments.js';
import type { Catalog } from '../store/catalog.js';
import type { EntityStores } from '../store/entity-stores.js';
import type { MetricIndex } from '../store/metric-index.js';
import type { PlanExecutor } from '../store/plan-executor.js';
import type { TraceStore } from '../store/traces.js';
import { storeDictionaries } from '../nrql/dictionaries.js';
import type { AlertService } from '../alerts/alert-service.js';
import { NrqlEngine } from '../nrql/nrql-engine.js';
import { admittedExecutor, defaultAdmissionLimits, QueryAdmission } from '../nrql/query-admission.js';
import { fastifyBaseOptions } from '../http/fastify-options.js';
import { createRateLimits, type RateLimits } from '../http/rate-limit.js';
import { registerNrqlRoute } from '../api/nrql-route.js';
import { registerManagementRoute } from '../api/management.js';
import { registerStoreRoutes } from '../api/store-route.js';
import type { Store } from '../store/store.js';
import { registerApplicationRoutes } from '../api/rest/application-routes.js';
import { registerBrowserApplicationRoutes } from '../api/rest/browser-application-routes.js';
import { registerHostRoutes } from '../api/rest/host-routes.js';
import { registerKeyTransactionRoutes } from '../api/rest/key-transaction-routes.js';
import { registerMetricRoutes } from '../api/rest/metric-routes.js';
import { registerMobileApplicationRoutes } from '../api/rest/mobile-application-routes.js';
import { registerFormBodyParser } from '../api/rest/rest-params.js';
import { restV2Plugin } from '../api/rest/rest-plugin.js';
import type { ApiUsageRecorder } from '../api/rest/api-usage.js';
import { registerDeploymentRoutes } from '../api/rest/deployment-routes.js';
import { registerAlertRoutes } from '../api/rest/alerts/alert-routes.js';
import type { SunsetMode } from '../api/rest/sunset.js';
import { deploymentsV0Plugin } from '../api/deployments-v0.js';
import { graphPlugin } from '../api/graphql/graph-route.js';
import { GRAPHIQL_PATH, graphiqlPlugin } from '../api/graphql/graphiql.js';
import { indexHandler } from '../api/index-page.js';
import { uiPlugin } from '../api/ui/ui-plugin.js';
import { registerTracesRoute } from '../api/ui/traces-route.js';

export interface ApiDeps {
  readonly catalog: Catalog;
  readonly metrics: MetricIndex;
  readonly executor: PlanExecutor;
  readonly clock: Clock;
  /** Key transactions, mobile and browser applications. */
  readonly entities: EntityStores;
  /** True once the store is open and both listeners accept connections. */
  readonly ready: () => boolean;
  readonly logger?: FastifyBaseLogger;
  /** Request budgets, shared with the collector's REST v2 and v0 routes; New Relic's numbers when not given. */
  readonly rateLimits?: RateLimits;
  /** Change tracking events: REST v2 and v0 deployments. */
  readonly deployments: Deployments;
  /** Where the Event API's events go. */
  readonly writer: BatchWriter;
  /** REST v2 and v0 end of life. */
  readonly restSunset: SunsetMode;
  /** Records every REST v2 and v0 call. */
  readonly apiUsage: ApiUsageRecorder;
  /** The browser agent's loaders and beacons (docs/browser.md); left out, neither is served. */
  readonly browser?: { readonly agentFiles: AgentFiles; readonly obfuscationKeys: ObfuscationKeys };
  /** Alerting, for the graph API's alerts and aiIssues fields and entities' alertSeverity. */
  readonly alerts?: AlertService;
  /** The store's upkeep (`timeslice status`, `timeslice maintain`); without it those routes are absent. */
  readonly upkeep?: Pick<Store, 'status' | 'maintain'>;
  /** Error traces, transaction traces and slow SQL, for the web UI. */
  readonly traces: TraceStore;
  /** Admits queries of every surface (NRQL route, graph, REST metric data); without one, the defaults for this machine. */
  readonly admission?: QueryAdmission;
}

/** The HTTP API: health, REST v2; GraphQL and the UI register here as plugins. */
export async function buildApiApp(deps: ApiDeps): Promise<FastifyInstance> {
  // Behind a TLS-terminating proxy, `Link` targets must name the scheme and host the client used.
  const app = Fastify({ ...fastifyBaseOptions(deps.logger), trustProxy: true }) as unknown as FastifyInstance;

  // Routes outside the REST, v0, Event API and graph plugins (health, the index, the NRQL route)
  // answer in REST's error shape; an unexpected failure is logged and says nothing of internals.
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ error: { title: error.message } });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: { title: 'Internal server error' } });
  });

  app.get('/healthz', async (_request, reply) => {
    if (!deps.ready()) return reply.code(503).send({ status: 'starting' });
    return { status: 'ok' };
  });

  app.get('/', indexHandler({
    name: 'Timeslice',
    description: 'Self-hosted APM service speaking the New Relic agent protocol, REST API v2 and NerdGraph.',
    health: '/healthz',
    rest: '/v2/applications.json',
    graphql: '/graphql',
    graphiql: GRAPHIQL_PATH,
  }));

  const admission = deps.admission ?? new QueryAdmission(defaultAdmissionLimits());
  const nrql = new NrqlEngine({ executor: deps.executor, dictionaries: storeDictionaries(deps.catalog, deps.metrics), clock: deps.clock, admission });
  // REST metric data runs one statement per request: each is admitted on its own.
  const admitted = { ...deps, executor: admittedExecutor(deps.executor, admission) };
  const limits = deps.rateLimits ?? createRateLimits(deps.clock);
  registerNrqlRoute(app, { catalog: deps.catalog, nrql, limiter: limits.nrql });
  registerManagementRoute(app, deps.catalog);
  if (deps.upkeep) registerStoreRoutes(app, { catalog: deps.catalog, store: deps.upkeep });
  registerTracesRoute(app, { catalog: deps.catalog, traces: deps.traces, clock: deps.clock, limiter: limits.nrql });
  await app.register(async (graph) => graphPlugin(graph, {
    ...deps,
    nrql,
    principalForKey: (key) => {
      const user = deps.catalog.userOfKey(key);
      return user && { accountId: user.accountId, keyHint: user.hint, userId: user.id, userName: user.name, userEmail: user.email, createdAt: user.createdAt };
    },
  }));
  await app.register(graphiqlPlugin);
  await app.register(uiPlugin);

  registerFormBodyParser(app);
  await app.register(restV2Plugin({
    catalog: deps.catalog,
    clock: deps.clock,
    limiter: limits.rest,
    sunset: deps.restSunset,
    usage: deps.apiUsage,
  }));
  registerDeploymentRoutes(app, { ...deps, nrql });
  await app.register(deploymentsV0Plugin({ ...deps, nrql, sunset: deps.restSunset, usage: deps.apiUsage, limiter: limits.rest }));
  await app.register(eventApiPlugin(deps));
  if (deps.browser) {
    await app.register(browserIngestPlugin({ ...deps, ...deps.browser, browserApplications: deps.entities.browserApplications }));
  }
  registerApplicationRoutes(app, deps);
  registerMetricRoutes(app, admitted);
  registerHostRoutes(app, admitted);
  registerKeyTransactionRoutes(app, { ...deps, keyTransactions: deps.entities.keyTransactions });
  registerBrowserApplicationRoutes(app, deps.entities);
  registerMobileApplicationRoutes(app, { ...admitted, mobileApplications: deps.entities.mobileApplications });
  if (deps.alerts) registerAlertRoutes(app, { alerts: deps.alerts, catalog: deps.catalog, clock: deps.clock });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: { title: `Route ${request.method}:${request.url.split('?')[0]} not found` } });
  });
  return app;
}
