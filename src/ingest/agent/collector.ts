import Fastify, { type FastifyInstance } from 'fastify';
import { fastifyBaseOptions } from '../../http/fastify-options.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import { agentConfigOf } from '../../domain/agent-settings/agent-config.js';
import { entityGuid } from '../../domain/entity-guid.js';
import { StoreBusyError, WriteTooLargeError, type BatchWriter, type WriteTicket } from '../../store/batch-writer.js';
import type { AgentRun, Application, Catalog, ConnectFacts } from '../../store/catalog.js';
import type { MetricIndex } from '../../store/metric-index.js';
import { CollectorError, malformed } from './collector-error.js';
import { decodeAgentBody } from './decode-body.js';
import type { AgentDecoder } from './agent-decoder.js';
import { STORED_METHODS, type DecodedCall } from './decode-call.js';
import { timesliceRows, unscopedNames, type IngestContext, type MetricDataPayload } from './payloads.js';
import { CUSTOM_EVENTS, Rows } from '../../store/append-tables.js';
import { MAX_NAME_LENGTH, truncate } from '../ingest-limits.js';
import { pushIntegrationError } from '../integration-error.js';
import { grantedHarvestLimits, requestedHarvestLimits, type HarvestLimitMode, type HarvestLimits } from './harvest-limits.js';

export const PROTOCOL_VERSION = 17;
/** The agents' own default for `max_payload_size_in_bytes`, measured on the wire (compressed). */
export const MAX_PAYLOAD_BYTES = 1_000_000;

export interface CollectorDeps {
  readonly catalog: Catalog;
  readonly writer: BatchWriter;
  /** Metric names → ids, and which metrics each application reports: written with the timeslices. */
  readonly metrics: MetricIndex;
  /** Where bodies of data calls are inflated, parsed and converted (a worker pool in the service). */
  readonly decoder: AgentDecoder;
  readonly clock: Clock;
  /** The port agents reach the collector on; preconnect sends them there. */
  readonly publicPort: () => number;
  /** How often agents send events (and spans). */
  readonly eventHarvestPeriodMs?: number;
  /** Which event limits agents are handed (`harvest-limits.ts`): by default what they ask for. */
  readonly harvestLimits?: HarvestLimitMode;
  readonly https?: { readonly key: string; readonly cert: string };
  readonly logger?: FastifyBaseLogger;
  /** Apdex T per key transaction of an application (by transaction metric name), handed out at connect. */
  readonly keyTransactionApdex?: (appId: number) => Readonly<Record<string, number>>;
  /**
   * The connect-reply keys that let the agent inject the browser agent into its pages (`browser_key`,
   * `beacon`, `error_beacon`, `js_agent_loader`, …) for an application with browser monitoring on;
   * undefined leaves them out, and the agent's `getBrowserTimingHeader()` writes nothing.
   */
  readonly browserMonitoring?: (app: Application, agentHostname: string) => Readonly<Record<string, unknown>> | undefined;
  /** Every license key an agent presented that the catalog accepted (browser ingest reads obfuscated names with it). */
  readonly onLicenseKey?: (accountId: number, licenseKey: string) => void;
}

/** Application names a connect may give (New Relic agents: the primary and up to two roll-ups); more are ignored. */
export const MAX_APP_NAMES = 3;
/** The largest pid and port a connect is stored with: past them, the fact is recorded as unknown. */
const MAX_PID = 2 ** 31 - 1;
const MAX_PORT = 65_535;

/** Methods some agents call that need a specific empty answer. */
const EMPTY_LIST_METHODS = new Set(['get_agent_commands']);

/**
 * The agent collector, protocol 17: `POST|PUT /agent_listener/invoke_raw_method?method=…`.
 * Replies are uncompressed `{"return_value": …}`; refusals are status codes chosen for what
 * the agent then does (see CollectorError).
 */
export function buildCollector(deps: CollectorDeps): FastifyInstance {
  const app = Fastify({
    ...(deps.https ? { https: { key: deps.https.key, cert: deps.https.cert } } : {}),
    bodyLimit: MAX_PAYLOAD_BYTES,
    ...fastifyBaseOptions(deps.logger),
  }) as unknown as FastifyInstance;

  // Agents label bodies application/json, octet-stream (Go) or nothing: read every body raw.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    if (error instanceof CollectorError) return reply.code(error.statusCode).send(error.body);
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) {
      const e = new CollectorError(413, `payload exceeds ${MAX_PAYLOAD_BYTES} bytes`, 'NewRelic::Agent::PayloadTooLarge');
      return reply.code(413).send(e.body);
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(400).send(malformed(error.message).body);
    }
    if (error instanceof WriteTooLargeError) {
      // Never storable, so discarded (413) rather than kept and resent with every harvest (503).
      request.log.warn(error.message);
      return reply.code(413).send(new CollectorError(413, `${error.message}: the payload is discarded`, 'NewRelic::Agent::PayloadTooLarge').body);
    }
    if (error instanceof StoreBusyError) {
      request.log.warn(error.message);
      return reply.code(503).send(new CollectorError(503, `${error.message}; send it again later`, 'NewRelic::Agent::ServiceUnavailable').body);
    }
    request.log.error({ err: error }, 'collector request failed');
    // 503 makes the agent keep the data and send it with its next harvest.
    const e = new CollectorError(503, 'the collector could not store this payload; it will be accepted on retry', 'NewRelic::Agent::ServiceUnavailable');
    return reply.code(503).send(e.body);
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ exception: { message: `no collector endpoint at ${request.method} ${request.url.split('?')[0]}`, error_type: 'NotFound' } });
  });

  app.route({
    method: ['GET', 'HEAD', 'DELETE', 'PATCH', 'OPTIONS'],
    url: '/agent_listener/invoke_raw_method',
    handler: async (request, reply) => {
      reply.code(405).header('allow', 'POST, PUT');
      return new CollectorError(405, `${request.method} is not allowed: agents POST (or PUT) to invoke_raw_method`, 'MethodNotAllowed').body;
    },
  });

  app.route({
    method: ['POST', 'PUT'],
    url: '/agent_listener/invoke_raw_method',
    handler: async (request) => {
      const query = request.query as Record<string, string | string[] | undefined>;
      const param = (name: string) => {
        const v = query[name];
        return Array.isArray(v) ? v[0] : v;
      };
      const method = param('method');
      if (!method) throw malformed('the "method" query parameter is required');
      const version = param('protocol_version');
      if (version === undefined || !/^\d+$/.test(version)) {
        throw malformed('the "protocol_version" query parameter is required and must be a number');
      }
      if (Number(version) !== PROTOCOL_VERSION) {
        throw new CollectorError(410, `protocol_version ${version} is not supported; this collector speaks ${PROTOCOL_VERSION}`, 'NewRelic::Agent::UnsupportedProtocolVersion');
      }
      const marshal = param('marshal_format');
      if (marshal !== undefined && marshal !== 'json') throw malformed(`marshal_format '${marshal}' is not supported; use json`);
      const licenseKey = param('license_key')?.trim();
      if (!licenseKey) throw new CollectorError(401, 'a license_key query parameter is required', 'NewRelic::Agent::LicenseException');
      const accountId = deps.catalog.accountForLicenseKey(licenseKey);
      if (accountId === undefined) throw new CollectorError(401, 'Invalid license key, please contact support@newrelic.com', 'NewRelic::Agent::LicenseException');
      deps.onLicenseKey?.(accountId, licenseKey);

      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const receivedAt = deps.clock.now();

      if (method === 'preconnect') {
        await decodeAgentBody(raw, request.headers['content-encoding']);
        return { return_value: { redirect_host: redirectHost(request.hostname, deps.publicPort(), request.headers['user-agent']) } };
      }
      if (method === 'connect') {
        const body = await decodeAgentBody(raw, request.headers['content-encoding']);
        const facts = parseConnectFacts(body, request.headers['user-agent']);
        const { run, primary } = await deps.catalog.connect(accountId, facts);
        const periodMs = deps.eventHarvestPeriodMs ?? 5_000;
        const limits = grantedHarvestLimits(deps.harvestLimits ?? 'agent', periodMs, requestedHarvestLimits(body));
        const reply = connectReply(run, primary, periodMs, limits, deps.keyTransactionApdex?.(primary.id) ?? {});
        return { return_value: { ...reply, ...deps.browserMonitoring?.(primary, request.hostname.replace(/:\d+$/, '')) } };
      }

      const runId = param('run_id');
      const run = runId ? deps.catalog.run(runId) : undefined;
      if (!run || run.accountId !== accountId || run.shutdown) {
        throw new CollectorError(409, runId ? `run ${runId} is not active: reconnect` : 'run_id is required after connect', 'NewRelic::Agent::ForceRestartException');
      }
      // A run stored before connects were capped may name more applications: each is a copy of every row.
      const targets = run.targets.length > MAX_APP_NAMES ? run.targets.slice(0, MAX_APP_NAMES) : run.targets;
      const ctx = { accountId, targets, receivedAt };
      const stores = STORED_METHODS.has(method);
      const ticket = stores ? deps.writer.announce() : undefined;
      const release = stores ? deps.catalog.holdRun(run.runId) : undefined;
      try {
        const decoded = await deps.decoder.decode({ method, body: raw, contentEncoding: request.headers['content-encoding'], ctx });
        if (method === 'shutdown') await deps.catalog.shutdownRun(run.runId);
        else await store(decoded, ctx, deps, ticket);
      } finally {
        ticket?.release();
        release?.();
      }
      return { return_value: EMPTY_LIST_METHODS.has(method) ? [] : null };
    },
  });
  return app;
}

/** Stores a decoded call; resolves once its rows are committed. */
async function store(decoded: DecodedCall, ctx: IngestContext, deps: CollectorDeps, ticket: WriteTicket | undefined): Promise<void> {
  switch (decoded.kind) {
    case 'accepted':
      return;
    case 'rows':
      return deps.writer.write(decoded.rows, ticket);
    case 'metric_data': {
      const payload = decoded.payload;
      // Refused before a row is built: each metric is written once per application of the run.
      const rows = payload.nameIndex.length * ctx.targets.length;
      if (rows > deps.writer.maxQueuedRows) throw new WriteTooLargeError(rows, deps.writer.maxQueuedRows);
      return deps.metrics.write(
        { names: payload.names, unscoped: unscopedNames(payload), accountId: ctx.accountId, targets: ctx.targets },
        (ids) => (payload.outOfRange > 0 ? [timesliceRows(payload, ctx, ids), outOfRangeError(payload, ctx)] : [timesliceRows(payload, ctx, ids)]),
        ticket,
      );
    }
  }
}

/**
 * Metrics left out of a harvest for a number past 1e100 (a sum over it could not be finite), reported
 * as New Relic reports data it drops: an `NrIntegrationError` event of the account, filed under the
 * run's primary application, committed with the harvest.
 */
function outOfRangeError(payload: MetricDataPayload, ctx: IngestContext): Rows {
  const rows = new Rows(CUSTOM_EVENTS);
  const primary = ctx.targets[0]!;
  pushIntegrationError(rows, { accountId: ctx.accountId, appId: primary.appId, hostId: primary.hostId, instanceId: primary.instanceId, at: ctx.receivedAt }, {
    newRelicFeature: 'Metrics',
    category: 'MetricDataException',
    name: 'MetricValueOutOfRange',
    message: `${payload.outOfRange} metric(s) dropped because a value exceeded the maximum magnitude (1e100)`,
    metricNameSample: payload.outOfRangeSample,
    appId: primary.appId,
  });
  return rows;
}

/**
 * Node and Go split `redirect_host` on ':' (a bare host means port 443); Python, Ruby and Java
 * take it as a host name and keep their configured port, so they get the bare host.
 */
export function redirectHost(hostname: string, port: number, userAgent: string | undefined): string {
  const host = hostname.replace(/:\d+$/, '') || 'localhost';
  const keepsPort = /NodeAgent|Go-Agent|GoAgent/i.test(userAgent ?? '');
  return keepsPort || !userAgent ? `${host}:${port}` : host;
}

export function parseConnectFacts(body: unknown, userAgent: string | undefined): ConnectFacts {
  const facts = Array.isArray(body) ? body[0] : body;
  if (typeof facts !== 'object' || facts === null || Array.isArray(facts)) throw malformed('connect body must be [{facts}]');
  const f = facts as Record<string, unknown>;
  const rawNames = typeof f.app_name === 'string' ? f.app_name.split(/[;,]/) : f.app_name;
  if (!Array.isArray(rawNames)) throw malformed('connect facts need "app_name": a list of application names');
  // Names are cut to 255 characters and only the first three are read (agents send at most three: the
  // primary and two roll-ups). A refusal would not help: agents retry a refused connect forever.
  const appNames: string[] = [];
  for (const raw of rawNames) {
    if (appNames.length === MAX_APP_NAMES) break;
    if (typeof raw !== 'string') continue;
    const name = truncate(raw.trim(), MAX_NAME_LENGTH).trim();
    if (name !== '' && !appNames.includes(name)) appNames.push(name);
  }
  if (appNames.length === 0) throw malformed('connect facts name no application ("app_name" is empty)');
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? truncate(v.trim(), MAX_NAME_LENGTH) : null);
  // A pid or port that does not fit its column is not known rather than a connect that can never be stored.
  const inRange = (v: unknown, max: number) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,10}$/.test(v) ? Number(v) : NaN;
    return Number.isInteger(n) && n >= 0 && n <= max ? n : null;
  };
  return {
    appNames,
    language: text(f.language),
    agentVersion: text(f.agent_version),
    host: text(f.host) ?? 'unknown',
    displayHost: text(f.display_host),
    pid: inRange(f.pid, MAX_PID),
    port: inRange(f.port, MAX_PORT),
    userAgent: userAgent === undefined ? null : truncate(userAgent, MAX_NAME_LENGTH),
  };
}

/**
 * The reply to connect, for the run's primary application: its ids, Apdex T and key transactions'
 * Apdex Ts, harvest limits, and with server-side configuration on, its agent settings as
 * `agent_config` (which agents lay over their own configuration); else an empty `agent_config`.
 */
function connectReply(
  run: AgentRun, app: Application, periodMs: number, limits: HarvestLimits, keyTransactionApdex: Readonly<Record<string, number>>,
): Record<string, unknown> {
  const { span_event_data: spanLimit, ...eventLimits } = limits;
  const appId = app.id;
  return {
    agent_run_id: run.runId,
    messages: [{ message: `Reporting to Timeslice (account ${run.accountId}, application ${appId})`, level: 'INFO' }],
    entity_guid: entityGuid(run.accountId, 'APM', 'APPLICATION', appId),
    account_id: String(run.accountId),
    application_id: String(appId),
    primary_application_id: String(appId),
    trusted_account_key: String(run.accountId),
    apdex_t: app.apdexT,
    // Agents classify a key transaction's Apdex (Apdex/… and its share of Apdex) by its own T.
    web_transactions_apdex: keyTransactionApdex,
    collect_errors: true,
    collect_traces: true,
    collect_error_events: true,
    collect_analytics_events: true,
    collect_custom_events: true,
    collect_span_events: true,
    sampling_target: 10,
    sampling_target_period_in_seconds: 60,
    max_payload_size_in_bytes: MAX_PAYLOAD_BYTES,
    request_headers_map: {},
    event_harvest_config: {
      report_period_ms: periodMs,
      harvest_limits: eventLimits,
    },
    span_event_harvest_config: { report_period_ms: periodMs, harvest_limit: spanLimit },
    agent_config: app.useServerSideConfig ? agentConfigOf(app.agentSettings, app.apdexT) : {},
  };
}
