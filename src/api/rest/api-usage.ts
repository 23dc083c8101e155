import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import { hashKey } from '../../security/keys.js';
import { CUSTOM_EVENTS, Rows } from '../../store/append-tables.js';
import type { BatchWriter } from '../../store/batch-writer.js';
import type { Catalog } from '../../store/catalog.js';
import { pathOf, routePatternOf, type RestApiName } from './sunset.js';
import { attributeJson } from '../../store/attribute-json.js';

/**
 * Every REST v2 and Deployments v0 call, recorded as an event so that what still calls REST can
 * be found before the end of life: `SELECT count(*) FROM TimesliceApiCall FACET route, apiKeyId
 * SINCE 1 week ago`. One row of `custom_events` per call (event type `TimesliceApiCall`, timed when
 * the response was sent, under the account of the key that authenticated it, or account 0 when no
 * key did), attributes:
 *
 * | attribute | value |
 * |---|---|
 * | `api` | `REST v2` or `Deployments v0` |
 * | `method` | the HTTP method |
 * | `route` | the endpoint as registered, `{name}` for parameters (`/v2/applications/{id}.json`); `(no route)` for a path no endpoint serves |
 * | `path` | the path asked for, without the query string |
 * | `format` | `json` or `xml`, by the path's suffix |
 * | `status` | the response status |
 * | `apiKeyId` | the id of the key that authenticated the call (never the key); absent when none did |
 * | `service.source` | `timeslice:rest-v2` or `timeslice:deployments-v0` |
 * | `userAgent` | the `User-Agent` header, when sent |
 * | `durationMs` | time from the request's arrival to the response's end, milliseconds |
 * | `appId` | the application the call named, when it named one of the account's |
 *
 * The row is made after the response is sent (onResponse) and written with the others of the
 * last second in one batch: a transaction per call would cost the store about a millisecond each
 * (measured: 2000 one-row commits take 2.6 s). Rows still waiting are written when the app closes.
 * A failure to store them is logged and never touches a call.
 */
export const API_USAGE_EVENT_TYPE = 'TimesliceApiCall';

export const SERVICE_SOURCE: Readonly<Record<RestApiName, string>> = {
  'REST v2': 'timeslice:rest-v2',
  'Deployments v0': 'timeslice:deployments-v0',
};

export interface ApiUsageDeps {
  readonly catalog: Pick<Catalog, 'accountForUserKey' | 'accountForLicenseKey' | 'keyId' | 'application'>;
  readonly writer: Pick<BatchWriter, 'write'>;
  readonly clock: Clock;
  readonly logger?: FastifyBaseLogger;
}

/** How long a call's row waits for others to share its write, at most. */
export const USAGE_FLUSH_MS = 1000;
/** A batch this large is written at once. */
const USAGE_BATCH_ROWS = 1000;

/** Headers a REST v2 or v0 caller may put its key in, in the order they are tried. */
const KEY_HEADERS = ['x-api-key', 'api-key', 'x-license-key'] as const;

export class ApiUsageRecorder {
  /** Key hash → the key's id. Only keys the catalog knows are looked up, so this holds real keys only. */
  private readonly keyIds = new Map<string, number>();
  private readonly applications = new WeakMap<FastifyRequest, number>();
  private pending = new Rows(CUSTOM_EVENTS);
  /** Calls whose row is still being made (their key's id may need a query). */
  private readonly making = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ApiUsageDeps) {}

  /** Records every call of `app` whose path `applies` (its routes and its not-found handler). */
  addHooks(app: FastifyInstance, api: RestApiName, applies: (path: string) => boolean): void {
    app.addHook('onClose', async () => this.flush());
    app.addHook('onResponse', async (request, reply) => {
      const path = pathOf(request.url);
      if (!applies(path)) return;
      // The response is gone: nothing here may throw into Fastify, and the write is not awaited.
      try {
        const call: ApiCall = {
          api,
          timestamp: this.deps.clock.now(),
          method: request.method,
          route: routePatternOf(request),
          path,
          status: reply.statusCode,
          durationMs: reply.elapsedTime,
          userAgent: request.headers['user-agent'],
          keys: KEY_HEADERS.flatMap((h) => [request.headers[h]].flat()).filter((k): k is string => typeof k === 'string'),
          appId: this.applications.get(request) ?? appIdParam(request),
        };
        const making = this.record(call).catch((error: unknown) => this.deps.logger?.warn({ err: error }, 'could not record a REST call'));
        this.making.add(making);
        void making.finally(() => this.making.delete(making));
      } catch (error) {
        this.deps.logger?.warn({ err: error }, 'could not record a REST call');
      }
    });
  }

  /** The application a call acted on when its path does not name it by id (deployments.xml by name). */
  noteApplication(request: FastifyRequest, appId: number): void {
    this.applications.set(request, appId);
  }

  /** Writes every call recorded so far; resolves once they are committed (or the write failed and was logged). */
  async flush(): Promise<void> {
    await Promise.all([...this.making]);
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const rows = this.pending;
    this.pending = new Rows(CUSTOM_EVENTS);
    await this.deps.writer.write([rows]).catch((error: unknown) => this.deps.logger?.warn({ err: error }, `could not store ${rows.length} REST call events`));
  }

  private async record(call: ApiCall): Promise<void> {
    const key = await this.identify(call.keys);
    const accountId = key?.accountId ?? 0;
    const app = call.appId === undefined ? undefined : this.deps.catalog.application(call.appId);
    const attributes: Record<string, string | number> = {
      api: call.api,
      method: call.method,
      route: call.route ?? '(no route)',
      path: call.path,
      format: call.path.endsWith('.xml') ? 'xml' : 'json',
      status: call.status,
    };
    if (key) attributes.apiKeyId = key.id;
    attributes['service.source'] = SERVICE_SOURCE[call.api];
    if (call.userAgent) attributes.userAgent = call.userAgent;
    attributes.durationMs = Math.round(call.durationMs * 1000) / 1000;
    const ownApp = app !== undefined && app.accountId === accountId ? app : undefined;
    if (ownApp) attributes.appId = ownApp.id;
    this.pending.push(accountId, ownApp?.id ?? 0, 0, 0, call.timestamp, API_USAGE_EVENT_TYPE, attributeJson(attributes));
    if (this.pending.length >= USAGE_BATCH_ROWS) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), USAGE_FLUSH_MS).unref();
  }

  /** The first of the sent keys the catalog knows (user or license), with its id. */
  private async identify(keys: readonly string[]): Promise<{ id: number; accountId: number } | undefined> {
    for (const raw of keys) {
      const key = raw.trim();
      if (key === '') continue;
      const accountId = this.deps.catalog.accountForUserKey(key) ?? this.deps.catalog.accountForLicenseKey(key);
      if (accountId === undefined) continue;
      const hash = hashKey(key);
      let id = this.keyIds.get(hash);
      if (id === undefined) {
        id = this.deps.catalog.keyId(key);
        if (id === undefined) continue;
        this.keyIds.set(hash, id);
      }
      return { id, accountId };
    }
    return undefined;
  }
}

interface ApiCall {
  readonly api: RestApiName;
  /** When the response was sent (epoch ms): the event's time. */
  readonly timestamp: number;
  readonly method: string;
  readonly route: string | undefined;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  readonly userAgent: string | undefined;
  readonly keys: readonly string[];
  readonly appId: number | undefined;
}

/** `/v2/applications/{id}/…` names its application by the `id` parameter. */
function appIdParam(request: FastifyRequest): number | undefined {
  if (!(request.routeOptions.url ?? '').startsWith('/v2/applications/:id')) return undefined;
  const text = (request.params as Record<string, string | undefined>).id ?? '';
  return /^[0-9]{1,15}$/.test(text) ? Number(text) : undefined;
}
