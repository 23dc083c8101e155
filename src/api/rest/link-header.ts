import { RestError } from './rest-error.js';

/**
 * REST v2 pagination (rest-v2.md §1.6): `?page=N`, 1-based; the `Link` header names the other
 * pages and is absent when everything fits on one page; a page past the end is an empty 200
 * (scripts page until the list comes back empty).
 */
export interface Page<T> {
  readonly pageItems: T[];
  readonly page: number;
  /** 1 when there is nothing at all: an empty list is one empty page. */
  readonly lastPage: number;
}

export function paginate<T>(items: readonly T[], page: number, perPage: number): Page<T> {
  if (!Number.isSafeInteger(page) || page < 1) throw new RangeError(`page must be a positive integer, got ${page}`);
  if (!Number.isSafeInteger(perPage) || perPage < 1) throw new RangeError(`perPage must be a positive integer, got ${perPage}`);
  const start = (page - 1) * perPage;
  return { pageItems: items.slice(start, start + perPage), page, lastPage: Math.max(1, Math.ceil(items.length / perPage)) };
}

/**
 * The `page` parameter: absent, empty or 0 means 1 (the Java client's page builder allows 0).
 * Anything but a whole number is a 422, the
 * code New Relic documents for invalid parameter values (§1.4); 400 is kept for requests whose
 * syntax is broken (a body that is not JSON). A page given twice is refused rather than guessed.
 */
export function parsePage(value: unknown): number {
  if (value === undefined || value === '') return 1;
  if (typeof value === 'string' && /^\d+$/.test(value)) {
    const page = Number(value);
    if (page === 0) return 1;
    if (Number.isSafeInteger(page)) return page;
  }
  throw RestError.unprocessable(`Invalid page ${describe(value)}: page must be a positive integer`);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return `(given ${value.length} times)`;
  return `'${String(value)}'`;
}

/**
 * The `Link` header for `page` of `lastPage`, in New Relic's spelling (`<url>;rel="next", …`),
 * or undefined when there is only one page. Targets are `requestUrl` (absolute, or an absolute
 * path) with `page` replaced and every other parameter kept as sent: clients request the
 * `next` target as it is, so it must carry the filters. `rel="first"` and `rel="prev"` are
 * added on later pages; New Relic shows neither, and clients look only for `next`.
 */
export function linkHeader(requestUrl: string, page: number, lastPage: number): string | undefined {
  if (lastPage <= 1) return undefined;
  const target = pageUrlTemplate(requestUrl);
  const links: string[] = [];
  if (page < lastPage) links.push(`<${target(page + 1)}>;rel="next"`);
  links.push(`<${target(lastPage)}>;rel="last"`);
  if (page > 1) {
    links.push(`<${target(1)}>;rel="first"`);
    links.push(`<${target(Math.min(page - 1, lastPage))}>;rel="prev"`);
  }
  return links.join(', ');
}

function pageUrlTemplate(requestUrl: string): (page: number) => string {
  const withoutFragment = requestUrl.split('#', 1)[0] ?? '';
  const q = withoutFragment.indexOf('?');
  const base = q < 0 ? withoutFragment : withoutFragment.slice(0, q);
  const params = q < 0 ? [] : withoutFragment.slice(q + 1).split('&').filter((p) => p !== '');
  const pageAt = params.findIndex(isPageParam);
  const others = params.filter((p) => !isPageParam(p)).map(safeInLink);
  const safeBase = safeInLink(base);
  return (page) => {
    const all = [...others];
    all.splice(pageAt < 0 ? all.length : pageAt, 0, `page=${page}`);
    return `${safeBase}?${all.join('&')}`;
  };
}

function isPageParam(param: string): boolean {
  const rawName = param.split('=', 1)[0] ?? '';
  try {
    return decodeURIComponent(rawName.replace(/\+/g, ' ')) === 'page';
  } catch {
    return false;
  }
}

/**
 * Percent-encodes what may not appear raw in a Link target. `,` and `;` are legal in a URI but
 * common Link parsers (the one the Go client uses among them) split the header on them, and
 * `filter[ids]=1,2` is a usual parameter; `%2C` decodes to the same value on our side.
 * Brackets stay as they are: `filter[name]` is how every client spells its filters.
 */
function safeInLink(text: string): string {
  return text
    .replace(/%(?![0-9A-Fa-f]{2})/g, '%25')
    .replace(/[^A-Za-z0-9\-._~!$&'()*+=:@/?%[\]]/gu, (c) =>
      [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
    );
}

/**
 * A `Link` with `rel="next"` alone, for lists whose length is not counted (the alert violation and
 * incident lists: New Relic's violations never send `rel="last"`, clients follow `next` until it is
 * absent); undefined when there is no next page.
 */
export function nextOnlyLinkHeader(requestUrl: string, page: number, hasNext: boolean): string | undefined {
  return hasNext ? `<${pageUrlTemplate(requestUrl)(page + 1)}>;rel="next"` : undefined;
}
