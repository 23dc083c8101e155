import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENTITY_SEARCH_ERROR_CODES, EntitySearchError } from './entity-search-error.js';
import { ENTITY_TYPES, entityTypeOf } from './entity-types.js';
import { PAGE_SIZE, searchCounts, searchPage, searchTypes, type SearchPage, type SearchPageRequest, type SearchSort } from './search-page.js';
import type { SearchableEntity } from './searchable-entity.js';

function entity(guid: string, fields: Partial<Omit<SearchableEntity, 'guid' | 'tags'>> & { tags?: Record<string, string[]> } = {}): SearchableEntity {
  return {
    guid,
    name: guid,
    accountId: 1,
    domain: 'APM',
    type: 'APPLICATION',
    domainId: '1',
    alertSeverity: 'NOT_CONFIGURED',
    reporting: true,
    indexedAt: null,
    firstIndexedAt: null,
    lastReportingChangeAt: null,
    ...fields,
    tags: new Map(Object.entries(fields.tags ?? {})),
  };
}

const pad = (n: number) => String(n).padStart(4, '0');

/** A small deterministic generator (mulberry32), so shuffles are the same on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const next = random(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Entity i is named so that name order is i's order: three entities share each name (ties go
 * to the GUID, which also follows i), and the case alternates between names, which must not
 * change their order.
 */
function generated(count: number): SearchableEntity[] {
  return Array.from({ length: count }, (_, i) => {
    const group = Math.floor(i / 3);
    return entity(`G${pad(i)}`, { name: `${group % 2 === 0 ? 'svc' : 'SVC'}-${pad(group)}` });
  });
}

/** Every page of the search, following nextCursor; fails if it does not end. */
function allPages(entities: () => readonly SearchableEntity[], request: Omit<SearchPageRequest, 'cursor'>): SearchableEntity[][] {
  const pages: SearchableEntity[][] = [];
  let cursor: string | null = null;
  do {
    const page: SearchPage<SearchableEntity> = searchPage(entities(), { ...request, cursor });
    pages.push(page.entities);
    cursor = page.nextCursor;
    assert.ok(pages.length < 1000, 'paging does not end');
  } while (cursor !== null);
  return pages;
}

const guids = (list: readonly SearchableEntity[]) => list.map((e) => e.guid);

test('pages of 200 over 450 entities: every entity once, in name order, ties by GUID; nextCursor null on the last page', () => {
  const all = generated(450);
  const pages = allPages(() => shuffled(all, 7), { queryText: "domain = 'APM'" });
  assert.deepEqual(pages.map((p) => p.length), [200, 200, 50]);
  assert.deepEqual(guids(pages.flat()), guids(all));
});

test('a page that ends exactly at the end has no next cursor', () => {
  const all = generated(400);
  const pages = allPages(() => all, { queryText: 'q' });
  assert.deepEqual(pages.map((p) => p.length), [200, 200]);
  assert.deepEqual(searchPage([], { queryText: 'q' }), { entities: [], nextCursor: null });
  assert.deepEqual(searchPage(all.slice(0, 3), { queryText: 'q', limit: 3 }), { entities: all.slice(0, 3), nextCursor: null });
});

test('limit lowers the page size; above 200 it is 200; below 1 or fractional it is refused', () => {
  const all = generated(130);
  assert.deepEqual(allPages(() => all, { queryText: 'q', limit: 50 }).map((p) => p.length), [50, 50, 30]);
  assert.deepEqual(allPages(() => generated(401), { queryText: 'q', limit: 5000 }).map((p) => p.length), [200, 200, 1]);
  assert.equal(PAGE_SIZE, 200);
  for (const limit of [0, -1, 1.5, Number.NaN]) {
    assert.throws(
      () => searchPage(all, { queryText: 'q', limit }),
      (error: unknown) =>
        error instanceof EntitySearchError &&
        error.code === ENTITY_SEARCH_ERROR_CODES.BAD_PAGE &&
        error.message === `options.limit must be a whole number of at least 1 (a page holds at most 200 entities), not ${limit}` &&
        error.offset === null,
    );
  }
});

test('keyset cursors: entities added or removed between pages neither repeat nor shift the next page', () => {
  const initial = generated(300);
  let current: SearchableEntity[] = shuffled(initial, 11);
  const request = { queryText: "name LIKE 'svc'", limit: 40 };
  const first = searchPage(current, request);
  assert.deepEqual(guids(first.entities), guids(initial.slice(0, 40)));

  // Remove two already seen and two not yet seen; add one before the cursor and two after it.
  const removed = new Set(['G0003', 'G0030', 'G0100', 'G0250']);
  const addedBefore = entity('G0001x', { name: 'svc-0000' });
  const addedAfter = [entity('G0152x', { name: 'svc-0050' }), entity('Gzzzz', { name: 'zzz' })];
  current = shuffled([...current.filter((e) => !removed.has(e.guid)), addedBefore, ...addedAfter], 12);

  const rest: SearchableEntity[] = [];
  let cursor = first.nextCursor;
  while (cursor !== null) {
    const page = searchPage(current, { ...request, cursor });
    rest.push(...page.entities);
    cursor = page.nextCursor;
  }
  // Expected, built without the sort: the initial order past the first page, less the removed,
  // with G0152x after the three named svc-0050 (G0150..G0152 sort before it by GUID) and zzz last.
  const expected = guids(initial.slice(40)).filter((g) => !removed.has(g));
  expected.splice(expected.indexOf('G0152') + 1, 0, 'G0152x');
  expected.push('Gzzzz');
  assert.deepEqual(guids(rest), expected);
  assert.equal(new Set([...guids(first.entities), ...guids(rest)]).size, first.entities.length + rest.length);
});

test('a cursor whose entity was removed still continues right after where it stood', () => {
  const all = generated(10);
  const first = searchPage(all, { queryText: 'q', limit: 4 });
  const withoutLast = all.filter((e) => e.guid !== 'G0003');
  assert.deepEqual(guids(searchPage(withoutLast, { queryText: 'q', limit: 4, cursor: first.nextCursor }).entities), ['G0004', 'G0005', 'G0006', 'G0007']);
});

test('sort criteria: direction, several criteria, reporting, severity rank, most relevant', () => {
  const list = [
    entity('a', { name: 'beta', domain: 'BROWSER', reporting: false, alertSeverity: 'CRITICAL' }),
    entity('b', { name: 'Alpha', domain: 'APM', reporting: true, alertSeverity: 'NOT_ALERTING' }),
    entity('c', { name: 'alpha', domain: 'MOBILE', reporting: false, alertSeverity: 'WARNING' }),
    entity('d', { name: 'gamma', domain: 'APM', type: 'KEY_TRANSACTION', reporting: true, alertSeverity: 'NOT_CONFIGURED' }),
    entity('e', { name: 'alpha', domain: 'APM', reporting: true, alertSeverity: 'SOMETHING_NEW' }),
  ];
  const order = (sort: SearchSort[] | undefined) => guids(searchPage(list, { queryText: 'q', sort }).entities);
  // Names fold case first ('alpha' = 'Alpha'), then as written ('Alpha' < 'alpha'), then GUID.
  assert.deepEqual(order(undefined), ['b', 'c', 'e', 'a', 'd']);
  assert.deepEqual(order([]), ['b', 'c', 'e', 'a', 'd']);
  assert.deepEqual(order([{ attribute: 'NAME', direction: 'DESC' }]), ['d', 'a', 'c', 'e', 'b']);
  assert.deepEqual(order([{ attribute: 'MOST_RELEVANT' }]), ['b', 'c', 'e', 'a', 'd']);
  assert.deepEqual(order([{ attribute: 'DOMAIN', direction: 'ASC' }, { attribute: 'NAME', direction: 'DESC' }]), ['d', 'e', 'b', 'a', 'c']);
  assert.deepEqual(order([{ attribute: 'TYPE', direction: 'DESC' }]), ['d', 'a', 'b', 'c', 'e']);
  assert.deepEqual(order([{ attribute: 'REPORTING', direction: 'ASC' }]), ['a', 'c', 'b', 'd', 'e']);
  assert.deepEqual(order([{ attribute: 'REPORTING', direction: 'DESC' }, { attribute: 'NAME', direction: 'ASC' }]), ['b', 'e', 'd', 'c', 'a']);
  assert.deepEqual(order([{ attribute: 'ALERT_SEVERITY', direction: 'ASC' }]), ['d', 'b', 'c', 'a', 'e']);
  assert.deepEqual(order([{ attribute: 'ALERT_SEVERITY', direction: 'DESC' }]), ['e', 'a', 'c', 'b', 'd']);
});

test('a tag sorts by its smallest value; entities without it come last either way', () => {
  const list = [
    entity('a', { tags: { team: ['zeta', 'Beta'] } }),
    entity('b', { tags: {} }),
    entity('c', { tags: { Team: ['alpha'] } }),
    entity('d', { tags: { team: ['gamma'] } }),
    entity('e', { tags: { team: [] } }),
  ];
  const order = (direction: 'ASC' | 'DESC') => guids(searchPage(list, { queryText: 'q', sort: [{ tag: 'team', direction }] }).entities);
  assert.deepEqual(order('ASC'), ['c', 'a', 'd', 'b', 'e']);
  assert.deepEqual(order('DESC'), ['d', 'a', 'c', 'b', 'e']);
  // Paging through a tag sort, with the nulls at the end, returns each entity once.
  const pages = allPages(() => list, { queryText: 'q', limit: 2, sort: [{ tag: 'team', direction: 'DESC' }] });
  assert.deepEqual(pages.map(guids), [['d', 'a'], ['c', 'b'], ['e']]);
});

test('sort criteria need exactly one of attribute and tag, a known attribute and direction', () => {
  const refused = (sort: SearchSort[], message: string) =>
    assert.throws(
      () => searchPage([], { queryText: 'q', sort }),
      (error: unknown) => error instanceof EntitySearchError && error.code === ENTITY_SEARCH_ERROR_CODES.BAD_PAGE && error.message === message,
    );
  refused([{ attribute: 'NAME', tag: 'team' }], 'A sort criterion takes exactly one of attribute and tag');
  refused([{ direction: 'ASC' }], 'A sort criterion takes exactly one of attribute and tag');
  refused([{ attribute: 'SIZE' as 'NAME' }], "Unknown sort attribute 'SIZE'");
  refused([{ attribute: 'NAME', direction: 'UP' as 'ASC' }], "A sort direction is ASC or DESC, not 'UP'");
});

test('cursors are bound to the query text and the sort; garbage is refused', () => {
  const all = generated(10);
  const { nextCursor } = searchPage(all, { queryText: "domain = 'APM'", limit: 3 });
  assert.ok(nextCursor !== null && /^[A-Za-z0-9_-]+$/.test(nextCursor), 'cursors are base64url');
  const refusal = (message: string) => (error: unknown) =>
    error instanceof EntitySearchError && error.code === ENTITY_SEARCH_ERROR_CODES.BAD_CURSOR && error.message === message && error.offset === null;
  const otherQuery = refusal('Invalid cursor: it was issued for a different query or sort; repeat the search without a cursor');
  const garbage = refusal('Invalid cursor: this service did not issue it; repeat the search without a cursor');

  assert.throws(() => searchPage(all, { queryText: "domain = 'BROWSER'", limit: 3, cursor: nextCursor }), otherQuery);
  assert.throws(() => searchPage(all, { queryText: "domain = 'APM'", limit: 3, cursor: nextCursor, sort: [{ attribute: 'NAME', direction: 'DESC' }] }), otherQuery);
  assert.throws(() => searchPage(all, { queryText: "domain = 'APM'", cursor: nextCursor, sort: [{ tag: 'team' }] }), otherQuery);
  // The limit is not part of the binding: a client may change page size mid-way.
  assert.deepEqual(guids(searchPage(all, { queryText: "domain = 'APM'", limit: 2, cursor: nextCursor }).entities), ['G0003', 'G0004']);

  const forged = (data: unknown) => Buffer.from(JSON.stringify(data)).toString('base64url');
  const binding = (JSON.parse(Buffer.from(nextCursor, 'base64url').toString()) as { b: string }).b;
  for (const cursor of [
    'not a cursor!',
    'abc',
    '',
    forged([1, 2]),
    forged('text'),
    forged({ b: binding, k: ['svc-0000'], g: 'G0001' }),
    forged({ b: binding, k: ['svc-0000', 7], g: 'G0001' }),
    forged({ b: binding, k: [null, null], g: 'G0001' }),
    forged({ b: binding, k: ['svc-0000', 'svc-0000', 'x'], g: 'G0001' }),
    forged({ b: binding, k: ['svc-0000', 'svc-0000'] }),
    forged({ k: ['svc-0000', 'svc-0000'], g: 'G0001' }),
  ]) {
    assert.throws(() => searchPage(all, { queryText: "domain = 'APM'", cursor }), garbage, cursor);
  }
  assert.deepEqual(
    guids(searchPage(all, { queryText: "domain = 'APM'", limit: 2, cursor: forged({ b: binding, k: ['svc-0001', 'SVC-0001'], g: 'G0003' }) }).entities),
    ['G0004', 'G0005'],
  );
});

test('types: one entry per domain and type with its entityType, most first', () => {
  const list = [
    entity('1'), entity('2'), entity('3', { domain: 'BROWSER' }), entity('4', { type: 'KEY_TRANSACTION' }), entity('5', { domain: 'MOBILE' }),
    entity('6', { domain: 'BROWSER' }), entity('7', { domain: 'SYNTH', type: 'MONITOR' }),
  ];
  assert.deepEqual(searchTypes(list), [
    { count: 2, domain: 'APM', entityType: 'APM_APPLICATION_ENTITY', type: 'APPLICATION' },
    { count: 2, domain: 'BROWSER', entityType: 'BROWSER_APPLICATION_ENTITY', type: 'APPLICATION' },
    { count: 1, domain: 'APM', entityType: 'KEY_TRANSACTION_ENTITY', type: 'KEY_TRANSACTION' },
    { count: 1, domain: 'MOBILE', entityType: 'MOBILE_APPLICATION_ENTITY', type: 'APPLICATION' },
    { count: 1, domain: 'SYNTH', entityType: null, type: 'MONITOR' },
  ]);
  assert.deepEqual(searchTypes([]), []);
  assert.deepEqual(ENTITY_TYPES, {
    'APM-APPLICATION': 'APM_APPLICATION_ENTITY',
    'BROWSER-APPLICATION': 'BROWSER_APPLICATION_ENTITY',
    'MOBILE-APPLICATION': 'MOBILE_APPLICATION_ENTITY',
    'APM-KEY_TRANSACTION': 'KEY_TRANSACTION_ENTITY',
  });
  assert.equal(entityTypeOf('APM', 'toString'), null);
});

test('counts: one entry per combination of the facets, most first, then by value', () => {
  const list = [
    entity('1', { accountId: 2, reporting: false }),
    entity('2', { accountId: 1 }),
    entity('3', { accountId: 1, domain: 'BROWSER' }),
    entity('4', { accountId: 1, type: 'KEY_TRANSACTION', alertSeverity: 'CRITICAL' }),
    entity('5', { accountId: 2, domain: 'BROWSER', reporting: false }),
    entity('6', { accountId: 2, domain: 'BROWSER', reporting: false }),
  ];
  assert.deepEqual(searchCounts(list, ['DOMAIN']), [
    { count: 3, facet: { domain: 'APM' } },
    { count: 3, facet: { domain: 'BROWSER' } },
  ]);
  assert.deepEqual(searchCounts(list, ['ACCOUNT_ID', 'REPORTING']), [
    { count: 3, facet: { accountId: 1, reporting: true } },
    { count: 3, facet: { accountId: 2, reporting: false } },
  ]);
  assert.deepEqual(searchCounts(list, ['REPORTING', 'DOMAIN_TYPE', 'REPORTING']), [
    { count: 2, facet: { reporting: false, domainType: 'BROWSER-APPLICATION' } },
    { count: 1, facet: { reporting: false, domainType: 'APM-APPLICATION' } },
    { count: 1, facet: { reporting: true, domainType: 'APM-APPLICATION' } },
    { count: 1, facet: { reporting: true, domainType: 'APM-KEY_TRANSACTION' } },
    { count: 1, facet: { reporting: true, domainType: 'BROWSER-APPLICATION' } },
  ]);
  assert.deepEqual(searchCounts(list, ['ALERT_SEVERITY', 'TYPE']), [
    { count: 5, facet: { alertSeverity: 'NOT_CONFIGURED', type: 'APPLICATION' } },
    { count: 1, facet: { alertSeverity: 'CRITICAL', type: 'KEY_TRANSACTION' } },
  ]);
  assert.deepEqual(searchCounts(list.slice(0, 2), ['NAME']), [{ count: 1, facet: { name: '1' } }, { count: 1, facet: { name: '2' } }]);
  assert.deepEqual(searchCounts(list, []), [{ count: 6, facet: {} }]);
  assert.deepEqual(searchCounts([], ['DOMAIN']), []);
  assert.throws(
    () => searchCounts(list, ['COLOUR']),
    (error: unknown) =>
      error instanceof EntitySearchError &&
      error.code === ENTITY_SEARCH_ERROR_CODES.BAD_FACET &&
      error.message === "Unknown counts facet 'COLOUR'; the facets are ACCOUNT_ID, ALERT_SEVERITY, DOMAIN, DOMAIN_TYPE, NAME, REPORTING, TYPE",
  );
});
