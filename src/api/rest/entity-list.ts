import { idsFilter, ENTITY_PAGE_SIZE } from './id-params.js';
import { paginate, parsePage } from './link-header.js';
import type { RestParams } from './rest-params.js';

/** How one list route reads its entities' names and refuses its ids. */
export interface EntityListOptions<T> {
  /** What the list holds, as a bad `filter[ids]` names it: `key transaction`. */
  readonly what: string;
  /** The name `filter[<nameParam>]` matches and the list is sorted by. */
  readonly nameOf: (item: T) => string;
  /** The name filter's parameter: `filter[name]` unless given (hosts and instances take `filter[hostname]`). */
  readonly nameParam?: string;
  /** Objects per page: ENTITY_PAGE_SIZE unless given. */
  readonly perPage?: number;
  /** The route's own filters (applications' `filter[language]` and `filter[host]`), read before the page. */
  readonly where?: (item: T) => boolean;
}

export interface EntityListPage<T> {
  readonly pageItems: T[];
  /** What `restRoute` turns into the `Link` header. */
  readonly pagination: { readonly page: number; readonly lastPage: number };
}

/**
 * The part the REST entity lists share (applications, hosts, instances, key transactions,
 * mobile and browser applications): the name filter (a case-insensitive substring), `filter[ids]`
 * (a 422 for a part that is not an id), the route's own filters, a stable order (name, then id)
 * and the requested page (`page`: a 422 when it is not a whole number; past the end an empty page).
 */
export function entityListPage<T extends { readonly id: number }>(items: readonly T[], params: RestParams, options: EntityListOptions<T>): EntityListPage<T> {
  const name = params.one(options.nameParam ?? 'filter[name]')?.toLowerCase();
  const ids = idsFilter(params, options.what);
  const { nameOf, where } = options;
  const matching = items
    .filter((item) => name === undefined || nameOf(item).toLowerCase().includes(name))
    .filter((item) => ids === undefined || ids.has(item.id))
    .filter((item) => where === undefined || where(item))
    .sort((a, b) => {
      const x = nameOf(a);
      const y = nameOf(b);
      return x < y ? -1 : x > y ? 1 : a.id - b.id;
    });
  const pageNumber = parsePage(params.one('page'));
  const page = paginate(matching, pageNumber, options.perPage ?? ENTITY_PAGE_SIZE);
  return { pageItems: page.pageItems, pagination: { page: pageNumber, lastPage: page.lastPage } };
}
