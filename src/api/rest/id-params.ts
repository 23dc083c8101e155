import type { FastifyRequest } from 'fastify';
import { RestError } from './rest-error.js';
import type { RestParams } from './rest-params.js';

/** Objects per page of the entity lists (New Relic's page size for applications, the one clients were written against). */
export const ENTITY_PAGE_SIZE = 200;

/** A numeric id in the path; anything else names nothing, so it is a 404 like an unknown id. */
export function pathId(request: Pick<FastifyRequest, 'params'>, param: string, what: string): number {
  const text = (request.params as Record<string, string | undefined>)[param] ?? '';
  const id = /^[0-9]{1,15}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(id)) throw RestError.notFound(`No ${what} with id '${text}'`);
  return id;
}

/**
 * `filter[ids]` (or the `filter[id]` one New Relic docs page shows): comma-separated ids, as
 * every client joins them; undefined when absent, a 422 when a part is not a whole number.
 */
export function idsFilter(params: RestParams, what: string): Set<number> | undefined {
  const text = params.one('filter[ids]') ?? params.one('filter[id]');
  if (text === undefined) return undefined;
  const parts = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (parts.some((p) => !/^\d{1,15}$/.test(p))) throw RestError.unprocessable(`Invalid filter[ids] '${text}': expected comma-separated ${what} ids`);
  return new Set(parts.map(Number));
}
