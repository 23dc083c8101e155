/**
 * Properties of the entity-search language over generated input (no I/O):
 * - round trip: random trees print as text that parses back to the same tree, and printing is
 *   idempotent;
 * - client spellings: the same trees written with any keyword and field case, spacing,
 *   redundant parentheses, backticked tag keys and leading zeros parse to the same tree;
 * - fuzz: random and mutated texts give a tree (which itself round-trips) or an
 *   EntitySearchError with a parser code and an offset inside the text — nothing else;
 * - builders: the generated query finds exactly the entities the builder's fields describe;
 * - pages: following nextCursor returns what one big page would, and entities present
 *   throughout are returned exactly once however the set changes between pages.
 * fast-check prints the seed of a failure; set FC_SEED to replay it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { stripSpans } from '../../../nrql/ast.js';
import type { FieldRef, SearchCondition, Span, Value } from './ast.js';
import { EntitySearchError } from './entity-search-error.js';
import { formatEntitySearch, quoteString } from './format.js';
import { isPlainTagKey } from './lexer.js';
import { likeMatches } from './like-match.js';
import { matches } from './matches.js';
import { MAX_QUERY_LENGTH, parseEntitySearch } from './parser.js';
import { queryFromBuilder, type EntitySearchQueryBuilder } from './query-builder.js';
import { SEARCH_FIELDS, takesLike, type FieldKind, type SearchField } from './search-fields.js';
import { searchPage, type SearchPage, type SearchSort } from './search-page.js';
import type { SearchableEntity } from './searchable-entity.js';
import { FUZZ_SEED, scaledRuns } from '../../../../test/helpers/fuzz-scale.js';

const seed = FUZZ_SEED;
const runs = (numRuns: number): fc.Parameters<unknown> => ({ numRuns: scaledRuns(numRuns), ...(seed === undefined ? {} : { seed }) });

// Written out, not read from the code's catalogue: a new parser code must be added here on purpose.
const PARSER_CODES: ReadonlySet<string> = new Set([
  'ENTITY_SEARCH_EMPTY', 'ENTITY_SEARCH_TOO_LONG', 'ENTITY_SEARCH_TOO_DEEP', 'ENTITY_SEARCH_SYNTAX', 'ENTITY_SEARCH_UNTERMINATED',
  'ENTITY_SEARCH_UNKNOWN_FIELD', 'ENTITY_SEARCH_BAD_VALUE', 'ENTITY_SEARCH_BAD_OPERATOR',
]);

const S: Span = { start: 0, end: 0 };
const FIELD_NAMES = Object.keys(SEARCH_FIELDS) as SearchField[];

// ── generated trees ──────────────────────────────────────────────────────────────────────────

const anyString = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom("O'Brien", 'C:\\temp', '\\', "'", '%x%', ''));
const finiteNumber = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));

const tagKey = fc.oneof(
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,5}(?:\.[A-Za-z0-9_-]{1,4}){0,2}$/),
  fc.string({ minLength: 1, maxLength: 6 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }),
);

const fieldRef: fc.Arbitrary<FieldRef> = fc.oneof(
  fc.constantFrom(...FIELD_NAMES).map((name): FieldRef => ({ kind: 'field', name, span: S })),
  tagKey.map((key): FieldRef => ({ kind: 'tag', key, span: S })),
);

const str = (value: string): Value => ({ kind: 'string', value, span: S });
const num = (value: number): Value => ({ kind: 'number', value, span: S });
const bool = (value: boolean): Value => ({ kind: 'boolean', value, span: S });

/** Values the parser accepts for a field of `kind`. */
function valueFor(kind: FieldKind | 'tag'): fc.Arbitrary<Value> {
  switch (kind) {
    case 'integer':
      return fc.oneof(fc.integer().map(num), fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map((b) => str(String(b))));
    case 'boolean':
      return fc.oneof(fc.boolean().map(bool), fc.constantFrom('true', 'false', 'TRUE', 'False').map(str));
    case 'time':
      return fc.oneof(finiteNumber.map(num), fc.nat().map((n) => str(String(n))));
    default:
      return fc.oneof(anyString.map(str), finiteNumber.map(num), fc.boolean().map(bool));
  }
}

const leaf: fc.Arbitrary<SearchCondition> = fieldRef.chain((field) => {
  const kind: FieldKind | 'tag' = field.kind === 'tag' ? 'tag' : SEARCH_FIELDS[field.name];
  const forms: fc.Arbitrary<SearchCondition>[] = [
    fc.tuple(fc.constantFrom('=' as const, '!=' as const), valueFor(kind)).map(([op, value]): SearchCondition => ({ kind: 'compare', field, op, value, span: S })),
    fc.tuple(fc.array(valueFor(kind), { minLength: 1, maxLength: 3 }), fc.boolean()).map(([values, negated]): SearchCondition => ({ kind: 'in', field, values, negated, span: S })),
    fc.boolean().map((negated): SearchCondition => ({ kind: 'isNull', field, negated, span: S })),
  ];
  if (takesLike(kind)) forms.push(fc.tuple(anyString, fc.boolean()).map(([pattern, negated]): SearchCondition => ({ kind: 'like', field, pattern, negated, span: S })));
  return fc.oneof(...forms);
});

function condition(depth: number): fc.Arbitrary<SearchCondition> {
  if (depth === 0) return leaf;
  const branch = fc
    .tuple(fc.constantFrom('and' as const, 'or' as const), condition(depth - 1), condition(depth - 1))
    .map(([kind, left, right]): SearchCondition => ({ kind, left, right, span: S }));
  return fc.oneof({ weight: 2, arbitrary: leaf }, { weight: 3, arbitrary: branch });
}

const tree = condition(4);

// ── a client's spelling of a tree ───────────────────────────────────────────────────────────

/** Writes `c` the way some client might: any case, any spacing, extra parentheses. */
function render(c: SearchCondition, next: () => number): string {
  const pick = <T>(...options: T[]): T => options[Math.floor(next() * options.length)]!;
  const anyCase = (word: string) => [...word].map((ch) => (next() < 0.5 ? ch.toUpperCase() : ch.toLowerCase())).join('');
  const gap = () => pick(' ', '  ', '\n', '\t ', ' \u00a0');
  const optionalGap = () => pick('', '', ' ', '\n');
  const field = (f: FieldRef) => {
    if (f.kind === 'field') return anyCase(f.name);
    const prefix = pick('tags.', 'TAGS.', 'Tags.');
    return isPlainTagKey(f.key) && next() < 0.5 ? prefix + f.key : `${prefix}\`${f.key.replaceAll('`', '``')}\``;
  };
  const value = (v: Value) => {
    if (v.kind === 'string') return quoteString(v.value);
    if (v.kind === 'boolean') return anyCase(String(v.value));
    if (Object.is(v.value, -0)) return '-0';
    return Number.isInteger(v.value) && v.value >= 0 && next() < 0.3 ? `00${v.value}` : String(v.value);
  };
  const operand = (child: SearchCondition, needed: boolean) => (needed ? `(${optionalGap()}${render(child, next)}${optionalGap()})` : render(child, next));
  let text: string;
  switch (c.kind) {
    case 'compare':
      text = `${field(c.field)}${optionalGap()}${c.op}${optionalGap()}${value(c.value)}`;
      break;
    case 'in':
      text = `${field(c.field)}${gap()}${c.negated ? `${anyCase('not')}${gap()}` : ''}${anyCase('in')}${optionalGap()}(${c.values.map((v) => optionalGap() + value(v) + optionalGap()).join(',')})`;
      break;
    case 'like':
      text = `${field(c.field)}${gap()}${c.negated ? `${anyCase('not')}${gap()}` : ''}${anyCase('like')}${optionalGap()}${quoteString(c.pattern)}`;
      break;
    case 'isNull':
      text = `${field(c.field)}${gap()}${anyCase('is')}${gap()}${c.negated ? `${anyCase('not')}${gap()}` : ''}${anyCase('null')}`;
      break;
    case 'and':
      text = `${operand(c.left, c.left.kind === 'or' || next() < 0.1)}${gap()}${anyCase('and')}${gap()}${operand(c.right, c.right.kind === 'and' || c.right.kind === 'or')}`;
      break;
    case 'or':
      text = `${operand(c.left, next() < 0.1)}${gap()}${anyCase('or')}${gap()}${operand(c.right, c.right.kind === 'or')}`;
      break;
  }
  return next() < 0.05 ? `(${text})` : text;
}

/** A small deterministic generator (mulberry32) for the spelling choices. */
function random(seedValue: number): () => number {
  let a = seedValue;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ── properties ───────────────────────────────────────────────────────────────────────────────

test('round trip: random trees print as text that parses back to them; printing is idempotent', (t) => {
  let checked = 0;
  fc.assert(
    fc.property(tree, (c) => {
      const text = formatEntitySearch(c);
      fc.pre(text.length <= MAX_QUERY_LENGTH);
      const parsed = parseEntitySearch(text);
      assert.deepEqual(stripSpans(parsed), stripSpans(c), text);
      assert.equal(formatEntitySearch(parsed), text);
      checked++;
    }),
    runs(3000),
  );
  t.diagnostic(`round trip: ${checked} generated trees`);
  assert.ok(checked > scaledRuns(2500), `only ${checked} generated trees were short enough`);
});

test("client spellings: any case, spacing, extra parentheses and backticks parse to the same tree", () => {
  fc.assert(
    fc.property(tree, fc.integer(), (c, spellingSeed) => {
      const text = render(c, random(spellingSeed));
      fc.pre(text.length <= MAX_QUERY_LENGTH);
      assert.deepEqual(stripSpans(parseEntitySearch(text)), stripSpans(c), text);
    }),
    runs(3000),
  );
});

const FRAGMENTS = [
  'name', 'domain', 'accountId', 'reporting', 'indexedAt', 'tags.', 'tags.a.b', '`k`', '`', "'x'", "'", "\\'", '\\', '=', '!=', '!', '<', '>',
  'IN', 'NOT', 'LIKE', 'IS', 'NULL', 'AND', 'OR', 'and', 'true', 'FALSE', '(', ')', ',', '1', '-', '-2.5', '1e5', '1.', '.', '"', '%', 'nmae', ' ', '\n',
  "name = 'a'", "tags.`a b` = 'c'", "accountId LIKE 'x'", "reporting = 'yes'", 'indexedAt IS NULL',
];

const fuzzText = fc.oneof(
  fc.tuple(tree, fc.integer()).map(([c, spellingSeed]) => render(c, random(spellingSeed))),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 14 }).chain((parts) => fc.constantFrom(parts.join(' '), parts.join(''))),
  // A valid query with a few random edits: near misses find the most interesting errors.
  fc.tuple(tree, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.constantFrom(...FRAGMENTS)), { minLength: 1, maxLength: 3 })).map(([c, edits]) => {
    let text = formatEntitySearch(c);
    for (const [at, remove, insert] of edits) {
      const i = at % (text.length + 1);
      text = text.slice(0, i) + insert + text.slice(i + (remove % 3));
    }
    return text;
  }),
);

test('fuzz: any text gives a tree or an EntitySearchError with a parser code and an offset in the text', (t) => {
  const outcomes = new Map<string, number>();
  fc.assert(
    fc.property(fuzzText, (text) => {
      let outcome: string;
      try {
        const parsed = parseEntitySearch(text);
        const canonical = formatEntitySearch(parsed);
        assert.deepEqual(stripSpans(parseEntitySearch(canonical)), stripSpans(parsed), `${text} → ${canonical}`);
        outcome = 'tree';
      } catch (error) {
        assert.ok(error instanceof EntitySearchError, `${JSON.stringify(text)} threw ${String(error)}`);
        assert.ok(PARSER_CODES.has(error.code), `${JSON.stringify(text)}: ${error.code}`);
        assert.ok(error.offset !== null && error.offset >= 0 && error.offset <= text.length, `${JSON.stringify(text)}: offset ${error.offset}`);
        assert.ok(error.message.length > 0);
        outcome = error.code;
      }
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }),
    runs(10_000),
  );
  t.diagnostic(`outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  // The generators reach both sides of the contract, and most of the error codes.
  assert.ok((outcomes.get('tree') ?? 0) >= scaledRuns(1000), JSON.stringify(Object.fromEntries(outcomes)));
  for (const code of ['ENTITY_SEARCH_EMPTY', 'ENTITY_SEARCH_SYNTAX', 'ENTITY_SEARCH_UNTERMINATED', 'ENTITY_SEARCH_UNKNOWN_FIELD', 'ENTITY_SEARCH_BAD_VALUE', 'ENTITY_SEARCH_BAD_OPERATOR']) {
    assert.ok((outcomes.get(code) ?? 0) >= scaledRuns(10), `${code}: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  }
});

// ── builders and entities ────────────────────────────────────────────────────────────────────

const TAG_KEYS = ['team', 'Team', 'language', 'my key'];
const TAG_VALUES = ['core', 'Core', 'java', 'x y', "it's"];

const entityArb: fc.Arbitrary<SearchableEntity> = fc
  .record({
    guid: fc.stringMatching(/^[A-Za-z0-9]{1,6}$/),
    name: fc.constantFrom('billing-api', 'Billing API', 'checkout', 'check out', "O'Brien \\ co", 'svc'),
    accountId: fc.constantFrom(1, 2),
    domain: fc.constantFrom('APM', 'BROWSER', 'MOBILE'),
    type: fc.constantFrom('APPLICATION', 'KEY_TRANSACTION'),
    alertSeverity: fc.constantFrom('NOT_CONFIGURED', 'CRITICAL', 'WARNING'),
    reporting: fc.boolean(),
    tags: fc.dictionary(fc.constantFrom(...TAG_KEYS), fc.array(fc.constantFrom(...TAG_VALUES), { maxLength: 2 }), { maxKeys: 3 }),
  })
  .map((e) => ({ ...e, domainId: '1', indexedAt: null, firstIndexedAt: null, lastReportingChangeAt: null, tags: new Map(Object.entries(e.tags)) }));

/** Mostly null (or, through requiredKeys, absent), so that several fields together still match often. */
const rarely = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });

const builderArb: fc.Arbitrary<EntitySearchQueryBuilder> = fc.record(
  {
    domain: rarely(fc.constantFrom('APM', 'BROWSER', 'MOBILE', 'INFRA')),
    type: rarely(fc.constantFrom('APPLICATION', 'KEY_TRANSACTION', 'HOST')),
    name: rarely(fc.constantFrom('api', 'billing api', 'BILLING', 'check', "o'brien", '\\', '%', '')),
    reporting: rarely(fc.boolean()),
    alertSeverity: rarely(fc.constantFrom('NOT_CONFIGURED', 'CRITICAL', 'NOT_ALERTING')),
    alertable: rarely(fc.boolean()),
    tags: fc.array(fc.record({ key: fc.constantFrom(...TAG_KEYS, 'tags.team', 'tags.my key'), value: fc.constantFrom(...TAG_VALUES, 'CORE') }), { maxLength: 1 }),
  },
  { requiredKeys: [] },
);

/** What a builder asks for, written against the entity directly (not through the language). */
function builderWants(b: EntitySearchQueryBuilder, e: SearchableEntity): boolean {
  const same = (x: string, y: string) => x.toLowerCase() === y.toLowerCase();
  if (b.domain != null && !same(b.domain, e.domain)) return false;
  if (b.type != null && !same(b.type, e.type)) return false;
  if (b.name != null && !likeMatches(b.name, e.name)) return false;
  if (b.reporting != null && b.reporting !== e.reporting) return false;
  if (b.alertSeverity != null && !same(b.alertSeverity, e.alertSeverity)) return false;
  if (b.alertable === false) return false;
  return (b.tags ?? []).every(({ key, value }) => {
    const bare = key.startsWith('tags.') ? key.slice(5) : key;
    return [...e.tags].some(([k, values]) => same(k, bare) && values.some((v) => same(v, value)));
  });
}

test('builders: the generated query finds exactly the entities the fields describe', (t) => {
  let hits = 0;
  let total = 0;
  fc.assert(
    fc.property(builderArb, fc.array(entityArb, { maxLength: 12 }), (builder, entities) => {
      let text: string;
      try {
        text = queryFromBuilder(builder);
      } catch (error) {
        const empty = builder.domain == null && builder.type == null && builder.name == null && builder.reporting == null &&
          builder.alertSeverity == null && builder.alertable == null && (builder.tags ?? []).length === 0;
        assert.ok(empty && error instanceof EntitySearchError && error.code === 'ENTITY_SEARCH_EMPTY', String(error));
        return;
      }
      const condition = parseEntitySearch(text);
      for (const entity of entities) {
        const wanted = builderWants(builder, entity);
        assert.equal(matches(condition, entity), wanted, `${text} on ${entity.name}`);
        total++;
        if (wanted) hits++;
      }
    }),
    runs(3000),
  );
  t.diagnostic(`builders: ${hits} of ${total} entity checks matched`);
  assert.ok(hits >= scaledRuns(1000) && total - hits >= scaledRuns(1000), `too one-sided: ${hits} of ${total}`);
});

// ── pages ────────────────────────────────────────────────────────────────────────────────────

const sortArb: fc.Arbitrary<SearchSort[]> = fc.array(
  fc.oneof(
    fc.record({ attribute: fc.constantFrom('NAME', 'DOMAIN', 'TYPE', 'REPORTING', 'ALERT_SEVERITY', 'MOST_RELEVANT' as const), direction: fc.constantFrom('ASC' as const, 'DESC' as const) }),
    fc.record({ tag: fc.constantFrom(...TAG_KEYS), direction: fc.constantFrom('ASC' as const, 'DESC' as const) }),
  ),
  { maxLength: 3 },
);

/** Distinct GUIDs, as a search's matches have. */
const entitySetArb = fc.uniqueArray(entityArb, { selector: (e) => e.guid, maxLength: 60 });

test('pages: following nextCursor returns exactly what one big page would', () => {
  fc.assert(
    fc.property(entitySetArb, sortArb, fc.integer({ min: 1, max: 25 }), (entities, sort, limit) => {
      const whole = searchPage(entities, { queryText: 'q', sort }).entities.map((e) => e.guid);
      const paged: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: SearchPage<SearchableEntity> = searchPage(entities, { queryText: 'q', sort, limit, cursor });
        assert.ok(page.entities.length <= limit);
        assert.ok(page.nextCursor === null || page.entities.length === limit, 'only the last page may be short');
        paged.push(...page.entities.map((e) => e.guid));
        cursor = page.nextCursor;
        pages++;
        assert.ok(pages <= entities.length + 1, 'paging does not end');
      } while (cursor !== null);
      assert.deepEqual(paged, whole);
      assert.equal(pages, Math.max(1, Math.ceil(entities.length / limit)));
    }),
    runs(1000),
  );
});

test('pages: with entities added and removed between pages, those present throughout come exactly once', () => {
  fc.assert(
    fc.property(
      entitySetArb,
      fc.array(entityArb, { maxLength: 20 }),
      fc.array(fc.tuple(fc.boolean(), fc.nat()), { maxLength: 40 }),
      sortArb,
      fc.integer({ min: 1, max: 10 }),
      (initial, pool, changes, sort, limit) => {
        let current = [...initial];
        const everRemoved = new Set<string>();
        const seen: string[] = [];
        let cursor: string | null = null;
        let step = 0;
        do {
          const page: SearchPage<SearchableEntity> = searchPage(current, { queryText: 'q', sort, limit, cursor });
          seen.push(...page.entities.map((e) => e.guid));
          cursor = page.nextCursor;
          assert.ok(step <= initial.length + pool.length + changes.length, 'paging does not end');
          // Between pages: add one from the pool (a new GUID) or remove one.
          const [add, which] = changes[step++] ?? [false, -1];
          if (add && pool.length > 0) {
            const candidate = pool[which % pool.length]!;
            const guid = `+${step}:${candidate.guid}`;
            if (!everRemoved.has(guid)) current.push({ ...candidate, guid });
          } else if (which >= 0 && current.length > 0) {
            const gone = current[which % current.length]!;
            everRemoved.add(gone.guid);
            current = current.filter((e) => e !== gone);
          }
        } while (cursor !== null);
        assert.equal(new Set(seen).size, seen.length, 'no entity twice');
        for (const e of initial) {
          if (!everRemoved.has(e.guid)) assert.ok(seen.includes(e.guid), `${e.guid} was never returned`);
        }
      },
    ),
    runs(1000),
  );
});
