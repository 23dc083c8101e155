import type { Exception, ModuleRule } from './import-graph.js';

/**
 * The layer rules of ARCHITECTURE.md as data: each module of src/ (path prefixes, longest match
 * wins) and the modules it may import. Packages are free except those named by a `packages` module.
 *
 * Bottom to top: the clock and the domain core; plans; SQL rendering; the store (the seam and the
 * engine-neutral stores), with each engine in its own folder; the NRQL pipeline; the application
 * rules and summaries; the surfaces, which never import one another; the composition that wires
 * them (app/, server.ts, config.ts) and the CLI.
 */
const LOWER = ['clock', 'domain', 'plan', 'sql', 'security', 'store'] as const;
const SURFACE_MAY_IMPORT = [...LOWER, 'nrql', 'applications', 'accounts', 'alerts', 'http'] as const;

export const MODULES: Readonly<Record<string, ModuleRule>> = {
  clock: { paths: ['clock.ts'], mayImport: [] },
  domain: { paths: ['domain'], mayImport: ['clock'] },
  plan: { paths: ['plan'], mayImport: ['clock', 'domain'] },
  sql: { paths: ['sql'], mayImport: ['domain', 'plan'] },
  security: { paths: ['security'], mayImport: [] },
  store: { paths: ['store'], mayImport: ['clock', 'domain', 'plan', 'sql', 'security'] },
  // Opens the engine the configuration names: the one file of the seam that knows the engines.
  'store/open-store': { paths: ['store/open-store.ts'], mayImport: ['clock', 'domain', 'plan', 'sql', 'security', 'store', 'store/duckdb', 'store/clickhouse', 'store/postgres'] },
  'store/duckdb': { paths: ['store/duckdb'], mayImport: ['clock', 'domain', 'plan', 'sql', 'security', 'store', 'duckdb-package'] },
  'duckdb-package': { paths: ['@duckdb/node-api'], mayImport: [], packages: true },
  // Timeslices, events and traces on ClickHouse; the only module that may import @clickhouse/client.
  'store/clickhouse': { paths: ['store/clickhouse'], mayImport: ['clock', 'domain', 'plan', 'sql', 'security', 'store', 'clickhouse-package'] },
  'clickhouse-package': { paths: ['@clickhouse/client'], mayImport: [], packages: true },
  // The shared catalog and alert state of a scale-out deployment; the only module that may import pg.
  'store/postgres': { paths: ['store/postgres'], mayImport: ['clock', 'domain', 'plan', 'sql', 'security', 'store', 'pg-package'] },
  'pg-package': { paths: ['pg'], mayImport: [], packages: true },
  nrql: { paths: ['nrql'], mayImport: ['clock', 'domain', 'plan', 'sql', 'store'] },
  applications: { paths: ['applications'], mayImport: ['clock', 'domain', 'plan', 'nrql', 'store'] },
  // Alerting's service: evaluates conditions through NRQL, keeps its state in the store, sends webhooks.
  // Its pure model and evaluator live in domain/alerts; the surfaces render it.
  alerts: { paths: ['alerts'], mayImport: ['clock', 'domain', 'plan', 'nrql', 'store'] },
  http: { paths: ['http'], mayImport: ['clock', 'domain'] },
  // Accounts, users and keys: the operations the admin route and `timeslice accounts|users|keys --data` run.
  accounts: { paths: ['accounts'], mayImport: ['clock', 'domain', 'security', 'store'] },

  // Surfaces. Deployments v0 is REST's legacy sibling: it shares REST's errors, sunset headers and usage record.
  'api/rest': { paths: ['api/rest', 'api/deployments-v0.ts'], mayImport: SURFACE_MAY_IMPORT },
  'api/graphql': { paths: ['api/graphql'], mayImport: SURFACE_MAY_IMPORT },
  'api/nrql-route': { paths: ['api/nrql-route.ts'], mayImport: SURFACE_MAY_IMPORT },
  'api/index-page': { paths: ['api/index-page.ts'], mayImport: SURFACE_MAY_IMPORT },
  'api/management': { paths: ['api/management.ts'], mayImport: SURFACE_MAY_IMPORT },
  // The store's upkeep over HTTP (`timeslice status`, `timeslice maintain`).
  'api/store-route': { paths: ['api/store-route.ts'], mayImport: SURFACE_MAY_IMPORT },
  // The web UI's server side: its bundle and the reads its pages make beside NRQL.
  'api/ui': { paths: ['api/ui'], mayImport: SURFACE_MAY_IMPORT },
  // The ingest surfaces share what sits directly in ingest/ (the limits of what may be stored); nothing else reads it.
  ingest: { paths: ['ingest'], mayImport: ['clock', 'domain', 'plan', 'sql', 'security', 'store', 'http'] },
  'ingest/agent': { paths: ['ingest/agent'], mayImport: [...SURFACE_MAY_IMPORT, 'ingest'] },
  'ingest/event-api': { paths: ['ingest/event-api'], mayImport: [...SURFACE_MAY_IMPORT, 'ingest'] },
  'ingest/browser': { paths: ['ingest/browser'], mayImport: [...SURFACE_MAY_IMPORT, 'ingest'] },

  // Composition: builds the apps from the surfaces and chooses the store by configuration.
  app: {
    paths: ['app', 'server.ts', 'config.ts'],
    mayImport: [
      ...SURFACE_MAY_IMPORT,
      'store/open-store',
      'store/duckdb',
      // config.ts checks a TIMESLICE_STORE URL's form with the engine's own parser.
      'store/clickhouse',
      'api/rest',
      'api/graphql',
      'api/nrql-route',
      'api/index-page',
      'api/management',
      'api/store-route',
      'api/ui',
      'ingest/agent',
      'ingest/event-api',
      'ingest/browser',
    ],
  },
  // The CLI starts the composed service or opens a store of its own; it is a client of the surfaces, never their importer.
  cli: { paths: ['cli'], mayImport: [...SURFACE_MAY_IMPORT, 'app', 'store/open-store', 'store/duckdb'] },
};

/**
 * Imports that break the rules and are being removed, each naming what it allows and why; delete an
 * entry once nothing matches it (the test reports unused entries). None today.
 */
export const EXCEPTIONS: readonly Exception[] = [];

/**
 * Imports that close an import cycle and are being removed, named with their reason like the
 * exceptions above; cycles are found without them. None today.
 */
export const CYCLE_EXCEPTIONS: readonly Exception[] = [];
