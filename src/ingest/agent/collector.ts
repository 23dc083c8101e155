import Fastify, { type FastifyInstance } from 'fastify';
import { fastifyBaseOptions } from '../../http/fastify-options.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import { agentConfigOf } from '../../domain/agent-settings/agent-config.js';
import { entityGuid } from '../../domain/entity-guid.js';
import { StoreBusyError, type BatchWriter, type WriteTicket } from '../../store/batch-writer.js';
import type { AgentRun, Application, Catalog, ConnectFacts } from '../../store/catalog.js';
import type { MetricIndex } from '../../store/metric-index.js';
import { CollectorError, malformed } from './collector-error.js';
import { decodeAgentBody } from './decode-body.js';
import type { AgentDecoder } from './agent-decoder.js';
import { STORED_METHODS, type DecodedCall } from './decode-call.js';
import { timesliceRows, unscopedNames, type IngestContext } from './payloads.js';
import { MAX_ENTITY_NAME_LENGTH } from '../../domain/entity-name.js';

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
  /** How often agents send events (and spans); per-minute limits are scaled to it, as New Relic does. */
  readonly eventHarvestPeriodMs?: number;
  readonly https?: { readonly key: string; readonly cert: string };
  readonly logger?: FastifyBaseLogger;
  /** Apdex T per key transaction of an application (by transaction metric name), handed out at connect. */
  readonly keyTransactionApdex?: (appId: number) => Readonly<Record<string, number>>;
}

/** Per-minute event limits the collector grants; the same numbers New Relic's collector hands out. */
const HARVEST_LIMITS_PER_MINUTE = {
  analytic_event_data: 10_000,
  custom_event_data: 3_000,
  error_event_data: 100,
  log_event_data: 10_000,
} as const;
const SPAN_LIMIT_PER_MINUTE = 2_000;

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

      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const receivedAt = deps.clock.now();

      if (method === 'preconnect') {
        await decodeAgentBody(raw, request.headers['content-encoding']);
        return { return_value: { redirect_host: redirectHost(request.hostname, deps.publicPort(), request.headers['user-agent']) } };
      }
      if (method === 'connect') {
        const facts = parseConnectFacts(await decodeAgentBody(raw, request.headers['content-encoding']), request.headers['user-agent']);
        const { run, primary } = await deps.catalog.connect(accountId, facts);
        return { return_value: connectReply(run, primary, deps.eventHarvestPeriodMs ?? 5_000, deps.keyTransactionApdex?.(primary.id) ?? {}) };
      }

      const runId = param('run_id');
      const run = runId ? deps.catalog.run(runId) : undefined;
      if (!run || run.accountId !== accountId || run.shutdown) {
        throw new CollectorError(409, runId ? `run ${runId} is not active: reconnect` : 'run_id is required after connect', 'NewRelic::Agent::ForceRestartException');
      }
      const ctx = { accountId, targets: run.targets, receivedAt };
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
      return deps.metrics.write(
        { names: payload.names, unscoped: unscopedNames(payload), accountId: ctx.accountId, targets: ctx.targets },
        (ids) => [timesliceRows(payload, ctx, ids)],
        ticket,
      );
    }
  }
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
  const appNames = [...new Set(rawNames.filter((n): n is string => typeof n === 'string').map((n) => n.trim()).filter(Boolean))];
  if (appNames.length === 0) throw malformed('connect facts name no application ("app_name" is empty)');
  if (appNames.some((n) => n.length > MAX_ENTITY_NAME_LENGTH)) throw malformed(`application names are at most ${MAX_ENTITY_NAME_LENGTH} characters`);
  const host = typeof f.host === 'string' && f.host.trim() ? f.host.trim() : 'unknown';
  const integer = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null);
  return {
    appNames,
    language: typeof f.language === 'string' ? f.language : null,
    agentVersion: typeof f.agent_version === 'string' ? f.agent_version : null,
    host,
    displayHost: typeof f.display_host === 'string' ? f.display_host : null,
    pid: integer(f.pid),
    port: integer(f.port),
    userAgent: userAgent ?? null,
  };
}

/**
 * The reply to connect, for the run's primary application: its ids, Apdex T and key transactions'
 * Apdex Ts, harvest limits, and with server-side configuration on, its agent settings as
 * `agent_config` (which agents lay over their own configuration); else an empty `agent_config`.
 */
function connectReply(run: AgentRun, app: Application, periodMs: number, keyTransactionApdex: Readonly<Record<string, number>>): Record<string, unknown> {
  const perPeriod = (perMinute: number) => Math.max(1, Math.round((perMinute * periodMs) / 60_000));
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
      harvest_limits: Object.fromEntries(Object.entries(HARVEST_LIMITS_PER_MINUTE).map(([k, v]) => [k, perPeriod(v)])),
    },
    span_event_harvest_config: { report_period_ms: periodMs, harvest_limit: perPeriod(SPAN_LIMIT_PER_MINUTE) },
    agent_config: app.useServerSideConfig ? agentConfigOf(app.agentSettings, app.apdexT) : {},
  };
}
