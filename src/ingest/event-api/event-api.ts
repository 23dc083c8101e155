import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { RateLimiter } from '../../http/rate-limit.js';
import type { Clock } from '../../clock.js';
import { CUSTOM_EVENTS, Rows } from '../../store/append-tables.js';
import { StoreBusyError, WriteTooLargeError, type BatchWriter } from '../../store/batch-writer.js';
import type { Catalog } from '../../store/catalog.js';
import { EventApiError } from './event-api-error.js';
import { decodeEventBody, MAX_PAYLOAD_BYTES } from './event-body.js';
import { isEventPayload, readEvents, type Rejection } from './event-validation.js';
import { INTEGRATION_ERROR_EVENT_TYPE, pushIntegrationError } from '../integration-error.js';

/**
 * New Relic's Event API: `POST /v1/accounts/{accountId}/events`, a JSON array of event objects
 * (or one object), each with an `eventType`. This is how `Mobile`, `PageView` and any custom
 * events get in from tools other than agents. Registered on the API app and on the collector
 * (HTTPS, the agents' port): tools are pointed at `insights-collector` host names, either of
 * which may be Timeslice.
 *
 * - Keys: the account's license key in `Api-Key` (New Relic's current docs), `X-License-Key`, or
 *   `X-Insert-Key`. Timeslice issues no separate insert keys: the license key is the account's
 *   insert key too. A user key, no key, or a key of another account than the path names: 403 `{}`.
 * - Limits: 10^6 bytes per POST as sent (413), 10^7 bytes inflated (413); gzip and deflate
 *   accepted; 100 000 POSTs per minute per account (429), as New Relic's.
 * - New Relic validates the request synchronously and the events after answering: every accepted
 *   request gets `200 {"success": true, "uuid": "…"}`, events that break a rule are dropped and
 *   reported as `NrIntegrationError` events (see event-validation.ts), and a body that is not JSON
 *   is one `NrIntegrationError` ("Error parsing JSON payload"). Timeslice answers after the valid
 *   events and the errors are committed, with the same reply.
 * - `NrIntegrationError` attributes, as New Relic's: `newRelicFeature` `Event API`, `category`
 *   `EventApiException`, `name` `EventValidationException`, `message`, `requestId` (the reply's
 *   uuid), `apiKeyPrefix` (the key's first six characters), `eventTypeSample`.
 */
export interface EventApiDeps {
  readonly catalog: Pick<Catalog, 'accountForLicenseKey' | 'application'>;
  readonly writer: Pick<BatchWriter, 'write'>;
  readonly clock: Clock;
  /** POSTs per minute per account (New Relic's 100 000 when not given). */
  readonly requestsPerMinute?: number;
}

export const EVENT_API_PATH = '/v1/accounts/:accountId/events';
export const EVENT_API_REQUESTS_PER_MINUTE = 100_000;
export { INTEGRATION_ERROR_EVENT_TYPE };

/** Headers a key may come in, in the order they are tried. */
const KEY_HEADERS = ['x-insert-key', 'x-license-key', 'api-key'] as const;

export function eventApiPlugin(deps: EventApiDeps): FastifyPluginAsync {
  return async (app) => {
    const limiter = new RateLimiter(deps.clock, deps.requestsPerMinute ?? EVENT_API_REQUESTS_PER_MINUTE);
    // Any Content-Type is read as JSON ("assumes it can be parsed to JSON"), except multipart/related.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_PAYLOAD_BYTES }, (_request, body, done) => done(null, body));

    app.setErrorHandler((error: FastifyError, request, reply) => {
      const refusal = asEventApiError(error);
      if (!refusal) request.log.error({ err: error }, 'Event API request failed');
      const sent = refusal ?? new EventApiError(503, 'Service temporarily unavailable: retry the request');
      for (const [name, value] of Object.entries(sent.headers)) reply.header(name, value);
      return reply.code(sent.status).send(sent.body);
    });

    app.route({
      method: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH'],
      url: EVENT_API_PATH,
      handler: async (request, reply) => {
        reply.header('allow', 'POST');
        throw new EventApiError(405, `${request.method} is not accepted: POST the events`);
      },
    });

    app.post(EVENT_API_PATH, { bodyLimit: MAX_PAYLOAD_BYTES }, async (request) => {
      const { accountId, key } = authenticate(deps, request);
      const decision = limiter.take(`account:${accountId}`);
      if (!decision.allowed) {
        throw new EventApiError(429, `Too many requests: ${limiter.limitPerMinute} POSTs per minute per account`, { 'retry-after': decision.headers['retry-after'] ?? '60' });
      }
      const type = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
      if (type === 'multipart/related') throw new EventApiError(415, 'Invalid content type: send the events as application/json');
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      if (raw.length === 0) throw new EventApiError(400, 'Missing or invalid content length: unable to process an empty request');
      const text = await decodeEventBody(raw, request.headers['content-encoding']);

      const uuid = randomUUID();
      const receivedAt = deps.clock.now();
      let body: unknown;
      let parseError: string | undefined;
      try {
        body = JSON.parse(text);
        if (!isEventPayload(body)) parseError = 'Error parsing JSON payload: expected an event object or an array of them';
      } catch (error) {
        parseError = `Error parsing JSON payload: ${(error as Error).message}`;
      }
      const rejections: Rejection[] = parseError === undefined ? [] : [{ message: parseError, count: 0, eventTypeSample: undefined }];
      const batch: Rows[] = [];
      if (parseError === undefined) {
        const read = readEvents(body, {
          accountId,
          receivedAt,
          ownsApplication: (appId) => deps.catalog.application(appId)?.accountId === accountId,
        });
        batch.push(read.rows);
        rejections.push(...read.rejections);
      }
      if (rejections.length > 0) batch.push(integrationErrors(rejections, { accountId, receivedAt, uuid, key }));
      await deps.writer.write(batch);
      return { success: true, uuid };
    });
  };
}

function authenticate(deps: EventApiDeps, request: FastifyRequest): { accountId: number; key: string } {
  const pathAccount = (request.params as Record<string, string | undefined>).accountId ?? '';
  for (const header of KEY_HEADERS) {
    for (const raw of [request.headers[header]].flat()) {
      const key = raw?.trim();
      if (!key) continue;
      const accountId = deps.catalog.accountForLicenseKey(key);
      if (accountId === undefined) continue;
      if (String(accountId) !== pathAccount) throw new EventApiError(403, `The key is not one of account ${pathAccount}'s`);
      return { accountId, key };
    }
  }
  throw new EventApiError(403, 'Missing or invalid key: send the account license key in Api-Key, X-License-Key or X-Insert-Key');
}

function integrationErrors(
  rejections: readonly Rejection[],
  request: { accountId: number; receivedAt: number; uuid: string; key: string },
): Rows {
  const rows = new Rows(CUSTOM_EVENTS);
  for (const rejection of rejections) {
    const attributes: Record<string, string> = {
      newRelicFeature: 'Event API',
      category: 'EventApiException',
      name: 'EventValidationException',
      message: rejection.message,
      requestId: request.uuid,
      apiKeyPrefix: request.key.slice(0, 6),
    };
    if (rejection.eventTypeSample !== undefined) attributes.eventTypeSample = rejection.eventTypeSample;
    pushIntegrationError(rows, { accountId: request.accountId, appId: 0, hostId: 0, instanceId: 0, at: request.receivedAt }, attributes);
  }
  return rows;
}

function asEventApiError(error: FastifyError): EventApiError | undefined {
  if (error instanceof EventApiError) return error;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new EventApiError(413, `Content too large: the limit is ${MAX_PAYLOAD_BYTES} bytes per POST`);
  if (error instanceof WriteTooLargeError) return new EventApiError(413, `Content too large: ${error.message}`);
  if (error instanceof StoreBusyError) return new EventApiError(503, `Service temporarily unavailable: ${error.message}; retry the request`);
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) return new EventApiError(400, error.message);
  return undefined;
}
