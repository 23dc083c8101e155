import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import { entityGuid } from '../../domain/entity-guid.js';
import { BROWSER_AGENT_PATH } from '../../domain/browser-loader-script.js';
import { StoreBusyError, WriteTooLargeError, type BatchWriter } from '../../store/batch-writer.js';
import { browserApdexT, type BrowserApplication, type BrowserApplications } from '../../store/browser-applications.js';
import type { Catalog } from '../../store/catalog.js';
import type { MetricIndex } from '../../store/metric-index.js';
import { Rows, TIMESLICES } from '../../store/append-tables.js';
import type { AgentFiles } from './agent-files.js';
import {
  BeaconError, eventRows, insRows, jsErrorRows, logRows, rumCallRows, type BeaconRequest, type BeaconTarget, type BrowserTimeslice,
} from './beacon-rows.js';
import type { ObfuscationKeys } from './obfuscation.js';
import { QuerypackError } from './querypack.js';

/**
 * The browser agent's side of Timeslice, on the API port and the collector port alike: the loaders
 * (`GET /browser-agent/…`) and the beacons — the RUM call `POST /1/{key}`, `POST /events/1/{key}`
 * (querypack), `/jserrors/1/{key}`, `/ins/1/{key}` and the raw `/browser/logs` and
 * `/browser/blobs`. Status codes are the ones the agent acts on (its `send.js`): 408, 429, 500,
 * 502–504 make it keep the data and send it again; any other status drops it, and a RUM call
 * that fails stops the agent on that page. See docs/browser.md.
 */
export interface BrowserIngestDeps {
  readonly catalog: Pick<Catalog, 'accounts' | 'application'>;
  readonly browserApplications: Pick<BrowserApplications, 'list' | 'get'>;
  readonly writer: Pick<BatchWriter, 'write' | 'maxQueuedRows'>;
  readonly metrics: Pick<MetricIndex, 'write'>;
  readonly clock: Clock;
  readonly agentFiles: AgentFiles;
  readonly obfuscationKeys: ObfuscationKeys;
}

/** The most a beacon body may hold, as sent: the agent warns past 750 000 characters and splits harvests at 16 kB. */
export const MAX_BEACON_BYTES = 1_000_000;
/** How long a browser keeps the loader at its unversioned path before revalidating (the versioned path is immutable). */
const LOADER_MAX_AGE_SECONDS = 7 * 86_400;
const IMMUTABLE_MAX_AGE_SECONDS = 365 * 86_400;

/** The RUM reply's feature flags: errors, page actions and SPA on; traces, replays and logs off (not stored). */
const RUM_FLAGS = { err: 1, ins: 1, spa: 1, st: 0, sts: 0, sr: 0, srs: 0, log: 0, logapi: 0 } as const;

class Refusal extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** The versioned loader path (`/browser-agent/1.322.0`), when the loaders are built. */
export function versionedAgentPath(files: AgentFiles): string {
  return files.version === undefined ? BROWSER_AGENT_PATH : `${BROWSER_AGENT_PATH}/${files.version}`;
}

export function browserIngestPlugin(deps: BrowserIngestDeps): FastifyPluginAsync {
  return async (app) => {
    // XHRs send text/plain, sendBeacon text/plain;charset=UTF-8 or no type at all: read every body as bytes.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BEACON_BYTES }, (_request, body, done) => done(null, body));

    // The page reads the RUM reply across origins: echo its Origin (the agent sends no credentials, but may).
    app.addHook('onRequest', async (request, reply) => {
      const origin = request.headers.origin;
      if (origin) {
        reply.header('access-control-allow-origin', origin);
        reply.header('access-control-allow-credentials', 'true');
        reply.header('vary', 'Origin');
      }
    });

    app.setErrorHandler((error: FastifyError, request, reply) => {
      const refusal = asRefusal(error);
      if (!refusal) request.log.error({ err: error }, 'browser beacon failed');
      const sent = refusal ?? new Refusal(503, 'the beacon could not be stored now; the agent sends it again');
      return reply.code(sent.status).send({ error: { title: sent.message } });
    });

    const notPost = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.header('allow', 'POST, OPTIONS');
      throw new Refusal(405, `${request.method} is not accepted: the browser agent POSTs its beacons`);
    };
    const preflight = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.header('access-control-allow-methods', 'POST');
      const asked = request.headers['access-control-request-headers'];
      if (asked) reply.header('access-control-allow-headers', asked);
      reply.header('access-control-max-age', '86400');
      return reply.code(204).send();
    };
    for (const url of ['/1/:key', '/events/:version/:key', '/jserrors/:version/:key', '/ins/:version/:key', '/browser/logs', '/browser/blobs']) {
      app.route({ method: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH'], url, handler: notPost });
      app.options(url, preflight);
    }

    app.post('/1/:key', async (request) => {
      const { target, beacon } = resolve(deps, request, keyParam(request));
      const { rows, timeslices } = rumCallRows(target, beacon, jsonBody(request, true));
      await writeWithTimeslices(deps, target, beacon.receivedAt, [rows], timeslices);
      return { ...RUM_FLAGS, app: { agents: [{ entityGuid: target.entityGuid }], nrServerTime: deps.clock.now() } };
    });

    app.post('/events/:version/:key', async (request, reply) => {
      checkVersion(request);
      const { target, beacon } = resolve(deps, request, keyParam(request));
      const rows = eventRows(target, beacon, textBody(request));
      if (rows.length > 0) await deps.writer.write([rows]);
      return reply.code(200).send('');
    });

    app.post('/jserrors/:version/:key', async (request, reply) => {
      checkVersion(request);
      const { target, beacon } = resolve(deps, request, keyParam(request));
      const { rows, occurrences } = jsErrorRows(target, beacon, jsonBody(request, false));
      const timeslices: BrowserTimeslice[] = occurrences > 0 && target.appId !== 0 ? [{ name: 'EndUser/errors', stats: [occurrences, 0, 0, 0, 0, 0] }] : [];
      await writeWithTimeslices(deps, target, beacon.receivedAt, rows.length > 0 ? [rows] : [], timeslices);
      return reply.code(200).send('');
    });

    app.post('/ins/:version/:key', async (request, reply) => {
      checkVersion(request);
      const { target, beacon } = resolve(deps, request, keyParam(request));
      const { rows } = insRows(target, beacon, jsonBody(request, false));
      if (rows.length > 0) await deps.writer.write([rows]);
      return reply.code(200).send('');
    });

    app.post('/browser/logs', async (request, reply) => {
      const key = rawKeyParam(request);
      if (!applicationsOfKey(deps, key)) throw new Refusal(403, 'unknown browser monitoring key');
      const body = jsonBody(request, false);
      if (!Array.isArray(body)) throw new Refusal(400, 'a /browser/logs body must be a JSON list');
      // The logs endpoint has no base query: the application is in the entries' common attributes.
      const common = Array.isArray(body) ? (body[0] as { common?: { attributes?: Record<string, unknown> } } | undefined)?.common?.attributes : undefined;
      const { target, beacon } = resolve(deps, request, key, {
        a: common?.appId === undefined ? undefined : String(common.appId),
        sa: common?.standalone === true ? '1' : undefined,
      });
      const rows = logRows(target, beacon, body);
      if (rows.length > 0) await deps.writer.write([rows]);
      return reply.code(200).send('');
    });

    app.post('/browser/blobs', async (request) => {
      resolve(deps, request, rawKeyParam(request));
      // The RUM reply turns traces and replays off (st:0, sr:0), so only an old session's cached flags send these.
      throw new Refusal(400, 'session traces and replays are not stored by Timeslice; the agent drops them');
    });

    app.get(`${BROWSER_AGENT_PATH}/:file`, async (request, reply) => serveLoader(deps.agentFiles, request, reply, false));
    app.get(`${BROWSER_AGENT_PATH}/:version/:file`, async (request, reply) => {
      const { version } = request.params as { version: string };
      if (version !== deps.agentFiles.version) throw new Refusal(404, `browser agent ${version} is not served here; this is ${deps.agentFiles.version ?? 'none'}`);
      return serveLoader(deps.agentFiles, request, reply, true);
    });
  };
}

async function serveLoader(files: AgentFiles, request: FastifyRequest, reply: FastifyReply, immutable: boolean) {
  const { file } = request.params as { file: string };
  const loader = await files.get(file);
  if (!loader) {
    const why = files.version === undefined ? ' (the loaders are not built: run `npm run build`)' : '';
    throw new Refusal(404, `no browser agent file '${file}'${why}`);
  }
  reply.header('cache-control', immutable ? `public, max-age=${IMMUTABLE_MAX_AGE_SECONDS}, immutable` : `public, max-age=${LOADER_MAX_AGE_SECONDS}`);
  reply.header('etag', loader.etag);
  reply.header('content-type', 'application/javascript; charset=utf-8');
  if (request.headers['if-none-match'] === loader.etag) return reply.code(304).send();
  return reply.send(loader.body);
}

function keyParam(request: FastifyRequest): string {
  return (request.params as { key: string }).key;
}

function rawKeyParam(request: FastifyRequest): string {
  const key = (request.query as Record<string, unknown>).browser_monitoring_key;
  return typeof key === 'string' ? key : '';
}

function checkVersion(request: FastifyRequest): void {
  const { version } = request.params as { version: string };
  // Version 2 is what micro-frontends registered with `register()` use; the bodies are the same.
  if (version !== '1' && version !== '2') throw new Refusal(404, `no beacon endpoint version ${version}`);
}

function bodyBytes(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
}

function textBody(request: FastifyRequest): string {
  const text = bodyBytes(request).toString('utf8');
  if (text.includes('\ufffd')) throw new Refusal(400, 'the body is not UTF-8 text');
  return text;
}

function jsonBody(request: FastifyRequest, emptyAllowed: boolean): unknown {
  const text = textBody(request);
  if (text.trim() === '') {
    if (emptyAllowed) return undefined;
    throw new Refusal(400, 'the body is empty');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Refusal(400, `the body is not JSON: ${(error as Error).message}`);
  }
}

function singleQuery(request: FastifyRequest): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(request.query as Record<string, unknown>)) {
    const value = Array.isArray(v) ? v[0] : v;
    if (typeof value === 'string') out[k] = value;
  }
  return out;
}

/** The browser applications of the account holding `key`, and that account. */
function applicationsOfKey(deps: BrowserIngestDeps, key: string): { accountId: number; apps: BrowserApplication[] } | undefined {
  if (key === '') return undefined;
  for (const account of deps.catalog.accounts()) {
    const apps = deps.browserApplications.list(account.id);
    if (apps.some((a) => a.browserMonitoringKey === key)) return { accountId: account.id, apps };
  }
  return undefined;
}

/**
 * The application a beacon belongs to. A copy/paste page (`sa=1`) names its browser application in
 * `a`; an APM-injected page names its APM application, which must have browser monitoring on (a
 * browser side). An unknown key or application is a 403: the agent drops the data.
 */
function resolve(
  deps: BrowserIngestDeps, request: FastifyRequest, key: string, fromBody: Record<string, string | undefined> = {},
): { target: BeaconTarget; beacon: BeaconRequest } {
  const query = { ...singleQuery(request), ...fromBody };
  const owner = applicationsOfKey(deps, key);
  if (!owner) throw new Refusal(403, 'unknown browser monitoring key');
  const a = query.a ?? query.app_id;
  const id = a !== undefined && /^\d{1,10}$/.test(a) ? Number(a) : undefined;
  if (id === undefined) throw new Refusal(403, "the beacon names no application ('a')");
  let app: BrowserApplication | undefined;
  if (query.sa === '1') app = owner.apps.find((b) => b.id === id);
  app ??= owner.apps.find((b) => b.apmApplicationId === id) ?? (query.sa === undefined ? owner.apps.find((b) => b.id === id && b.apmApplicationId === null) : undefined);
  if (!app) throw new Refusal(403, `application ${id} has no browser monitoring in this account`);
  const apmId = app.apmApplicationId;
  const target: BeaconTarget = {
    accountId: owner.accountId,
    appId: apmId ?? 0,
    appIdAttribute: id,
    // A browser side is named after its APM application; summaries match events by this name.
    appName: app.name,
    entityGuid: entityGuid(owner.accountId, 'BROWSER', 'APPLICATION', app.id),
    apdexT: browserApdexT(app, deps.catalog),
  };
  const transactionName = apmId !== null ? deps.obfuscationKeys.transactionName(owner.accountId, query.to) : undefined;
  const beacon: BeaconRequest = {
    query, receivedAt: deps.clock.now(), userAgent: request.headers['user-agent'],
    ...(transactionName !== undefined ? { transactionName } : {}),
  };
  return { target, beacon };
}

/**
 * Writes a beacon's events and, for a page of an APM application, its timeslices, in one commit.
 * A standalone browser application has no catalog application to file timeslices under: its
 * numbers come from its events (docs/browser.md).
 */
async function writeWithTimeslices(
  deps: BrowserIngestDeps, target: BeaconTarget, receivedAt: number, rows: Rows[], timeslices: readonly BrowserTimeslice[],
): Promise<void> {
  if (target.appId === 0 || timeslices.length === 0) {
    if (rows.length > 0) await deps.writer.write(rows);
    return;
  }
  const names = timeslices.map((t) => t.name);
  const minute = Math.floor(receivedAt / 60_000) * 60_000;
  await deps.metrics.write(
    { names, unscoped: names, accountId: target.accountId, targets: [{ appId: target.appId, hostId: 0, instanceId: 0 }] },
    (ids) => {
      const slices = new Rows(TIMESLICES);
      for (const t of timeslices) {
        const id = ids.get(t.name);
        if (id === undefined) continue;
        slices.push(target.accountId, target.appId, 0, 0, id, 0, minute, ...t.stats);
      }
      return [...rows, slices];
    },
  );
}

function asRefusal(error: FastifyError): Refusal | undefined {
  if (error instanceof Refusal) return error;
  if (error instanceof BeaconError || error instanceof QuerypackError) return new Refusal(400, error.message);
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new Refusal(413, `the beacon is over ${MAX_BEACON_BYTES} bytes`);
  if (error instanceof WriteTooLargeError) return new Refusal(413, error.message);
  // 503 is one of the statuses the agent keeps its data for and sends again.
  if (error instanceof StoreBusyError) return new Refusal(503, `${error.message}; the agent sends it again`);
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) return new Refusal(400, error.message);
  return undefined;
}
