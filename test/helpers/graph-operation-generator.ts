import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import {
  getNamedType, isEnumType, isInputObjectType, isInterfaceType, isLeafType, isUnionType, isListType, isNonNullType, isObjectType, isScalarType,
  type GraphQLArgument, type GraphQLField, type GraphQLInputType, type GraphQLInterfaceType, type GraphQLNamedType,
  type GraphQLObjectType, type GraphQLSchema,
} from 'graphql';
import { anyText, nrqlArbitraries } from './nrql-generator.js';
import { format } from '../../src/nrql/format.js';

/*
 * Random GraphQL operations read off a schema: queries and mutations selecting random fields
 * (aliases, `__typename`, inline and named fragments on the concrete entity types, directives),
 * with argument values that mix what a client means to send with what a hostile or broken one
 * sends: GUIDs of existing entities, of other accounts' and of none, malformed ones; NRQL and
 * entity-search text that is valid, broken, long or hostile; cursors; awkward numbers and
 * strings; deeply nested input objects and JSON scalars. A value goes into the document as a
 * literal or travels in `variables`. About a third of the operations are what a careful client
 * sends (so that mutations go through and what they store can be checked); of the rest, some make
 * one deliberate mistake (a wrong declaration, a missing value, an undeclared variable, an
 * unknown field, a syntax error…), so that refusals are exercised without every document being
 * refused. Built with `fc.gen()`, so a run is reproduced by its seed.
 *
 * Values only known while the run goes on (cursors and GUIDs from earlier answers) stand in the
 * generated text as `@@dyn:<pool>:<n>@@` and are filled in by `resolveDynamic` just before the
 * operation is sent.
 */

/** What the values are drawn from: the server's real entities and accounts, from the key's point of view. */
export interface GraphFuzzPools {
  /** The key's account, and another existing one. */
  readonly ownAccountId: number;
  readonly otherAccountId: number;
  /** GUIDs of entities in the key's account: these answer and mutate. */
  readonly ownGuids: readonly string[];
  /** GUIDs of entities in the other account: never readable with this key. */
  readonly otherGuids: readonly string[];
  /** NRQL that runs on the stored data. */
  readonly nrql: readonly string[];
  /** Application names and metric names that exist (entity search, key transactions). */
  readonly appNames: readonly string[];
  readonly metricNames: readonly string[];
  /** The server's clock: times are drawn around it (change tracking takes only ±24 h). */
  readonly nowMs: number;
}

/** A value to send: renders as a GraphQL literal or as JSON for `variables`. */
type Val =
  | { readonly k: 'null' }
  | { readonly k: 'bool'; readonly v: boolean }
  /** A number as written: the literal text; JSON takes the text too (see `RawJsonNumber`). */
  | { readonly k: 'num'; readonly text: string }
  | { readonly k: 'str'; readonly v: string; readonly block?: boolean }
  | { readonly k: 'enum'; readonly v: string }
  | { readonly k: 'list'; readonly items: readonly Val[] }
  | { readonly k: 'obj'; readonly fields: readonly (readonly [string, Val])[] }
  /** Any JSON (a JSON scalar's value, or the wrong kind of value on purpose). */
  | { readonly k: 'json'; readonly v: unknown }
  /** Inside a literal input object: a variable of the member's type carrying `value` (`{query: $v3}`). */
  | { readonly k: 'var'; readonly type: GraphQLInputType; readonly value: Val };

/**
 * A number whose JSON text is sent as written (`1e309`, `-0`, `9007199254740993`), which
 * `JSON.stringify` cannot do; `toJSON` gives the nearest double for senders that can only stringify.
 */
export class RawJsonNumber {
  constructor(readonly text: string) {}
  toJSON(): number | null {
    const n = Number(this.text);
    return Number.isFinite(n) ? n : null;
  }
}

/** Which keys a selection set's answer must have and may have, and the sets below them. */
export interface ShapeNode {
  readonly always: Set<string>;
  readonly sometimes: Set<string>;
  readonly children: Map<string, ShapeNode[]>;
}

export interface GeneratedOperation {
  readonly root: 'query' | 'mutation';
  readonly text: string;
  /** Undefined when the operation sends none. May hold `RawJsonNumber`s (see `hasRawNumbers`). */
  readonly variables: Record<string, unknown> | undefined;
  readonly operationName: string | undefined;
  /** Top-level response keys and the root field each one selects. */
  readonly topLevel: Readonly<Record<string, string>>;
  readonly shape: ShapeNode;
  /** Whether `variables` holds numbers JSON.stringify cannot write. */
  readonly hasRawNumbers: boolean;
  /** How values travelled and what the document used, for the run's counts. */
  readonly features: readonly string[];
}

export interface OperationOptions {
  readonly root: 'query' | 'mutation';
}

const MAX_DEPTH = 5;

/** Fields picked more often than others: the ones with the most behind them, and what paging needs. */
const FIELD_WEIGHTS: Readonly<Record<string, number>> = {
  'Actor.entity': 4, 'Actor.entities': 3, 'Actor.entitySearch': 4, 'Actor.nrql': 3, 'Actor.account': 3, 'Actor.accounts': 1,
  'Actor.nrqlQueryProgress': 1, 'Actor.user': 1,
  'RootQueryType.actor': 6, 'RootQueryType.requestContext': 1,
  'RootMutationType.agentApplicationSettingsUpdate': 5, 'RootMutationType.changeTrackingCreateEvent': 4,
  'RootMutationType.changeTrackingCreateDeployment': 3, 'RootMutationType.keyTransactionCreate': 3,
  'RootMutationType.agentApplicationCreateMobile': 2, 'RootMutationType.agentApplicationCreateBrowser': 2,
  'EntitySearch.results': 4, 'EntitySearchResult.nextCursor': 3, 'EntitySearchResult.entities': 3,
};

/** Optional input members without which the input is always refused: given more often, so that more inputs get through. */
const USUALLY_GIVEN: Readonly<Record<string, number>> = {
  'ChangeTrackingCreateEventInput.categoryAndTypeData': 0.9, 'ChangeTrackingCategoryRelatedInput.kind': 0.9,
  'ChangeTrackingCategoryRelatedInput.categoryFields': 0.8, 'ChangeTrackingCategoryFieldsInput.deployment': 0.7,
};

/** How likely a careful client gives an optional member: always the ones needed, and a category's own fields only for it. */
function benignMember(b: Build, type: string, member: string): number | undefined {
  if (type === 'ChangeTrackingCategoryFieldsInput') {
    const category = categoryPairOf(b)[0].toLowerCase();
    return (member === 'deployment' && category === 'deployment') || (member === 'featureFlag' && category === 'feature flag') ? 1 : 0;
  }
  return USUALLY_GIVEN[`${type}.${member}`] === undefined ? undefined : 1;
}

function categoryPairOf(b: Build): readonly [string, string] {
  return (b.categoryPair ??= b.p.pick(b.benign ? CATEGORY_PAIRS.slice(0, 7) : CATEGORY_PAIRS));
}

/** Fields not named above: those with arguments (where values reach resolvers) are picked more often. */
const weightOf = (owner: string, field: GraphQLField<unknown, unknown>) => FIELD_WEIGHTS[`${owner}.${field.name}`] ?? (field.args.length > 0 ? 3 : 1);

// --- Hostile corpora ------------------------------------------------------------------------------

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64').replace(/=+$/, '');

/** Strings no API should trip over. */
const HOSTILE_STRINGS: readonly string[] = [
  '', ' ', '\u0000', 'a\u0000b', '\ud800', 'x\udc00y', "'", '"', '\\', "\\'", '\\"', "O'Brien", "''", '%', '%%', '_', '*',
  'x'.repeat(300), 'y'.repeat(5000), '🙂'.repeat(4100), 'e\u0301', '\u202eevil', '\ufeffbom', '<script>alert(1)</script>', '${x}',
  '%s%n', '../../etc/passwd', '\r\n', '\t', 'null', 'undefined', '__proto__', 'constructor', '{"a":1}', '1e308', 'NaN', '-0',
  'Robert\'); DROP TABLE applications;--', "' OR '1'='1", '日本語のアプリ', 'ünïcödé', '`tick`', 'a|b|c', '\n\n\n',
];

/** Text that is valid JSON and a valid GraphQL variable value but not well-formed Unicode, or awkward to store. */
const ENCODING_HAZARDS: readonly string[] = ['\ud800', 'x\udc00y', '\udfff\ud800', 'ok\ud83d', 'a\u0000b', '\u0000', '\ufeffbom', '\u202eevil', 'e\u0301', '\uffff', '\u0085\u2028'];

const NRQL_BROKEN: readonly string[] = [
  '', ' ', 'SELECT', 'SELECT count(* FROM Metric', "SELECT * FROM Metric WHERE appName = 'unterminated", 'FROM', 'DROP TABLE metrics',
  'SELECT * FROM Metric LIMIT -1', 'SELECT * FROM Metric LIMIT 99999999999999999999', "SELECT * FROM Metric SINCE 'garbage'",
  'SELECT * FROM Metric SINCE 100000 years ago', 'SELECT count(*) FROM Metric SINCE 1e400', 'SELECT count(*) FROM Metric UNTIL 5 minutes ago SINCE now',
  'SELECT nope(x) FROM Metric', 'SELECT count(*) FROM', 'SELECT count(*) FROM Metric FACET', 'SELECT count(*) FROM Metric TIMESERIES 0 seconds',
  'SELECT count(*) FROM Metric SINCE 1 day ago COMPARE WITH', 'SELECT count(*) FROM Metric WHERE', 'select * from `unterminated',
  'SELECT percentile(duration, 101) FROM Transaction', 'SELECT histogram(duration, -1, 0) FROM Transaction', 'SELECT 1/0 FROM Metric',
  'SELECT count(*) FROM Metric TIMESERIES 1 second SINCE 1 year ago', 'SELECT * FROM Metric LIMIT MAX OFFSET 99999999999',
];

/** Hostile NRQL under the 4096-character limit, so that the parser, the planner and DuckDB all see it, and some past it. */
const NRQL_HOSTILE: readonly string[] = [
  "SELECT * FROM Metric WHERE appName = '\\'; DROP TABLE x; --'", "SELECT * FROM `Metric'); DROP TABLE x; --` ", "SELECT count(*) FROM Metric WHERE appName = '\u0000'",
  `SELECT count(*) FROM Metric WHERE appName LIKE '${'%'.repeat(2000)}'`, `SELECT count(*) FROM Metric WHERE appName LIKE '${'%_'.repeat(1900)}'`,
  "SELECT count(*) FROM Metric WHERE appName RLIKE r'(a+)+$'", `SELECT count(*) FROM Metric WHERE appName RLIKE r'${'(a*)*'.repeat(700)}b'`,
  "SELECT capture(appName, r'(?P<x>.*)') FROM Metric", "SELECT aparse(appName, '%*%*%*%*%') FROM Metric", 'SELECT count(*) FROM Metric\u0000',
  `SELECT count(*) FROM Metric WHERE ${'('.repeat(1900)}true${')'.repeat(1900)}`, `SELECT count(*) FROM Metric WHERE ${'NOT '.repeat(950)}true`,
  // Long chains of one operator: shallow for the parser, deep for whatever evaluates them.
  `SELECT ${'1+'.repeat(1990)}1 FROM Metric`, `SELECT ${'2*'.repeat(1990)}1 FROM Metric`, `SELECT ${'9-'.repeat(1990)}1 FROM Metric`,
  `SELECT count(*) FROM Metric WHERE ${'1+'.repeat(1900)}1 > 0`, `SELECT count(*) FROM Metric FACET ${'1/'.repeat(1900)}1`,
  `SELECT latest(${'duration+'.repeat(120)}1) FROM PageView`, `SELECT count(*) FROM Metric WHERE ${'true AND '.repeat(440)}true`,
  `SELECT count(*) FROM Metric WHERE ${Array.from({ length: 300 }, (_, i) => `appId = ${i}`).join(' OR ')}`, `SELECT ${'-'.repeat(3900)}1 FROM Metric`,
  `SELECT ${Array.from({ length: 400 }, () => 'count(*)').join(', ')} FROM Metric`, `SELECT count(*) FROM Metric WHERE appName IN (${Array.from({ length: 900 }, (_, i) => `'a${i}'`).join(',')})`,
  `SELECT count(*) FROM Metric WHERE appName = '${'\\'.repeat(999)}'`, "SELECT count(*) FROM Metric WHERE appName = '\ud800'", 'SELECT count(*) FROM Mobile:Crash, `x`y`',
  `SELECT count(*) FROM Metric FACET ${Array.from({ length: 60 }, (_, i) => `a${i}`).join(', ')}`, 'SELECT count(*) FROM Metric TIMESERIES 1 minute SINCE 10 years ago',
  `SELECT ${'abs('.repeat(600)}1${')'.repeat(600)} FROM Metric`, `SELECT ${'if('.repeat(400)}true, 1, 0${')'.repeat(400)} FROM Metric`,
  `SELECT count(*) FROM Metric FACET cases(${Array.from({ length: 100 }, (_, i) => `WHERE appId = ${i} AS 'x${i}'`).join(', ')})`,
  `SELECT percentile(newrelic.timeslice.value, ${Array.from({ length: 500 }, (_, i) => String(i / 5)).join(', ')}) FROM Metric`,
  "SELECT count(*) FROM Metric SINCE 9007199254740991", "SELECT count(*) FROM Metric SINCE 1 day ago COMPARE WITH 100000 weeks ago",
  "SELECT count(*) FROM Metric LIMIT MAX FACET appName TIMESERIES MAX", "SELECT uniques(appName, 99999999999) FROM Metric", `SELECT count(*) FROM Metric WITH TIMEZONE '${'x'.repeat(1000)}'`,
  'x'.repeat(5000), `SELECT count(*) FROM Metric WHERE appName = '${'é'.repeat(4500)}'`,
];

const SEARCH_BROKEN: readonly string[] = [
  'domain =', 'name LIKE', '((', "domain = 'APM", 'foo bar', 'name IN ()', "= 'x'", "tags. = 'x'", 'AND', "name = 'a' AND", "name == 'x'",
  "reporting = 'maybe'", "domainId = 'abc'", "accountId = 'x'", 'name IS', 'name NOT', "`tags.x = 'y'", "name LIKE 5", "unknownField = 'x'", ')',
];

/** Hostile entity searches, most under the 4096-character limit. */
const SEARCH_HOSTILE: readonly string[] = [
  `${'('.repeat(1900)}name = 'x'${')'.repeat(1900)}`, `${'('.repeat(33)}name = 'x'${')'.repeat(33)}`, `name = '${'x'.repeat(100_000)}'`, "name = '\u0000'", "name = '\\'",
  "name = '\\\\'", `name LIKE '${'%'.repeat(4000)}'`, `name LIKE '${'%a'.repeat(1900)}b'`, `name IN (${Array.from({ length: 900 }, (_, i) => `'n${i}'`).join(', ')})`,
  `${Array.from({ length: 300 }, (_, i) => `name = 'n${i}'`).join(' OR ')}`, `${Array.from({ length: 400 }, () => "domain = 'APM'").join(' AND ')}`, "name = '\ud800'",
  `tags.\`${'k'.repeat(300)}\` = 'v'`, 'domainId = 99999999999999999999', 'domainId = -1', 'domainId = 1.5', 'accountId = 1e308', `${'NOT '.repeat(900)}name = 'x'`,
  "tags.__proto__ = 'x'", "tags.constructor = 'x'", "tags.toString IS NOT NULL", "name LIKE '\\%'", "name = 'a' OR name = 'b' AND NOT name = 'c'",
];

/** Cursors a client might forge: none was issued by the server. */
const FORGED_CURSORS: readonly string[] = [
  '', ' ', 'x', 'not a cursor!', '%%%', 'eyJ9', b64('{}'), b64('[]'), b64('null'), b64('"text"'), b64('1e308'), b64('{"b":"x","k":[],"g":"y"}'),
  b64('{"b":1,"k":"x","g":null}'), b64('{"__proto__":{"polluted":1},"b":"x","k":[],"g":"g"}'), b64(`{"b":"x","k":[${'['.repeat(5000)}${']'.repeat(5000)}],"g":"g"}`),
  b64('{"b":"x","k":[1e308,null,"a"],"g":"g"}'), Buffer.from('\u0000\u0001\u00ff binary', 'latin1').toString('base64url'), 'A'.repeat(50_000),
  Buffer.from(JSON.stringify({ b: 'x'.repeat(16), k: ['a', 'a'], g: 'g' })).toString('base64url'),
];

const QUERY_IDS: readonly string[] = ['', 'x', '00000000-0000-0000-0000-000000000000', 'not-an-id', '1', '-1', '\u0000', 'q'.repeat(10_000), '../../etc'];

const EVENT_TYPE_NAMES: readonly string[] = ['Metric', 'Mobile', 'PageView', 'Transaction', 'ChangeTrackingEvent', 'Nope', '', '`', "'"];

const CATEGORY_PAIRS: readonly (readonly [string, string])[] = [
  ['Deployment', 'Basic'], ['deployment', 'blue_green'], ['DEPLOYMENT', 'CANARY'], ['Feature Flag', 'Basic'], ['Operational', 'Crash'],
  ['Business Event', 'Conventions'], ['Deployment Lifecycle', 'Image Push'], ['Custom', 'Thing'], ['', ''], [' ', 'x'], ['Deployment', ''],
  ['Deployment', 'Teleport'], ['\u0000', '\ud800'],
];

/** GUIDs that name nothing, or are not GUIDs at all: built from the real ones and from parts. */
function forgedGuids(own: readonly string[], ownAccount: number): string[] {
  const first = own[0] ?? b64(`${ownAccount}|APM|APPLICATION|1`);
  const parts = (p: string) => b64(p);
  return [
    parts(`${ownAccount}|APM|APPLICATION|999999`), parts(`${ownAccount}|MOBILE|APPLICATION|77777`), parts(`${ownAccount}|INFRA|HOST|5`),
    parts(`${ownAccount}|APM|KEY_TRANSACTION|424242`), parts('99|APM|APPLICATION|1'), parts(`${ownAccount}|apm|application|1`),
    `${first}=`, `${first}==`, first.replace(/[+/]/g, (c) => (c === '+' ? '-' : '_')), ` ${first}`, `${first}\n`, first.toLowerCase(),
    'not a guid!', '%%%', '', ' ', 'MXxBUE18QVBQTElDQVRJT058', 'A'.repeat(100_000), first.repeat(400), '√©🙂', parts('ü|APM|APPLICATION|1'),
    parts(`${ownAccount}|APM|APPLICATION|1|2`), parts(`${ownAccount}||APPLICATION|1`), parts('|||'), parts(`${ownAccount}|APM|APPLICATION|`),
    parts(`${ownAccount}|APM|APPLICATION|1a`), parts(`${ownAccount}|APM|APPLICATION|-1`), parts(`${ownAccount}|APM|APPLICATION|0`),
    parts(`${ownAccount}|APM|APPLICATION|1.5`), parts(`${ownAccount}|APM|APPLICATION|1e3`), parts(`${ownAccount}|APM|APPLICATION|99999999999999999999`),
    parts(`${ownAccount}|APM|APPLICATION|9007199254740993`), parts(`${ownAccount}|APM|APPLICATION|0x10`), parts(`${ownAccount}|APM|APPLICATION| 1`),
    parts(`-1|APM|APPLICATION|1`), parts('0|APM|APPLICATION|1'), parts('1.0|APM|APPLICATION|1'), parts('99999999999999999999|APM|APPLICATION|1'),
    parts('NaN|APM|APPLICATION|1'), parts(`0${ownAccount}|APM|APPLICATION|1`), parts(`${ownAccount}|APM|APPLICATION|\u0000`),
    parts(`${ownAccount}|APM|APPLICATION|1\ud800`), '\ud800', 'a\u0000b', "'; DROP TABLE--",
  ];
}

// --- Picking ----------------------------------------------------------------------------------------

/**
 * fast-check's generator as a few plain calls. Integers are drawn without fast-check's bias
 * towards small values, so that a chance of 0.05 is one in twenty and picks are even.
 */
class Picker {
  constructor(private readonly g: fc.GeneratorValue) {}

  int(min: number, max: number): number {
    return this.g((lo: number, hi: number) => fc.noBias(fc.integer({ min: lo, max: hi })), min, max);
  }
  chance(p: number): boolean {
    return this.int(0, 9999) < p * 10_000;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }
  weighted<T>(choices: readonly (readonly [number, () => T])[]): T {
    const total = choices.reduce((s, [w]) => s + w, 0);
    let n = this.int(0, total - 1);
    for (const [w, make] of choices) {
      if (n < w) return make();
      n -= w;
    }
    return choices.at(-1)![1]();
  }
  from<T>(arbitrary: fc.Arbitrary<T>): T {
    return this.g(() => arbitrary);
  }
}

/** Valid NRQL of every construct, from the NRQL fuzzers' generator. */
const GENERATED_NRQL = nrqlArbitraries({ maxDepth: 3 }).selectQuery.map((q) => format(q));
const ANY_TEXT = anyText(24);

// --- One operation --------------------------------------------------------------------------------

/** What one operation accumulates while it is generated. */
class Build {
  readonly declarations: string[] = [];
  readonly variables: Record<string, unknown> = {};
  readonly fragments: string[] = [];
  readonly features = new Set<string>();
  hasRawNumbers = false;
  /** Deliberate mistakes (invalid documents) this operation may still make: most make none. */
  mistakes = 0;
  /**
   * Whether this operation sends only what a careful client would (valid-looking GUIDs, text and
   * times of its own account): a share of operations do, so that mutations also go through and
   * what they store is checked.
   */
  benign = false;
  /** The category and type of change tracking input: one pair per operation, so that the two agree. */
  categoryPair: readonly [string, string] | undefined;
  private counter = 0;

  /** `Boolean!`, the type of a directive's `if`. */
  readonly booleanType: GraphQLInputType;

  constructor(readonly p: Picker, readonly pools: GraphFuzzPools, readonly schema: GraphQLSchema) {
    this.booleanType = schema.getDirective('include')!.args[0]!.type;
  }

  next(prefix: string): string {
    return `${prefix}${this.counter++}`;
  }

  /** Whether to make a mistake of this kind here, spending the operation's allowance. */
  mistake(probability: number, kind: string): boolean {
    if (this.mistakes === 0 || !this.p.chance(probability)) return false;
    this.mistakes--;
    this.features.add(kind);
    return true;
  }
}

function newShape(): ShapeNode {
  return { always: new Set(), sometimes: new Set(), children: new Map() };
}

function addChild(shape: ShapeNode, key: string, child: ShapeNode | undefined, always: boolean): void {
  (always ? shape.always : shape.sometimes).add(key);
  if (child) shape.children.set(key, [...(shape.children.get(key) ?? []), child]);
}

/** Merges a fragment on a concrete type into the selection: its keys are there only for entities of that type. */
function mergeShape(into: ShapeNode, from: ShapeNode): void {
  for (const key of [...from.always, ...from.sometimes]) into.sometimes.add(key);
  for (const [key, children] of from.children) into.children.set(key, [...(into.children.get(key) ?? []), ...children]);
}

/** Fewest levels below a type before a leaf can be selected: what keeps selections finite. */
function leafDepths(schema: GraphQLSchema): Map<string, number> {
  const depths = new Map<string, number>();
  const composite = Object.values(schema.getTypeMap()).filter((t) => (isObjectType(t) || isInterfaceType(t)) && !t.name.startsWith('__')) as (GraphQLObjectType | GraphQLInterfaceType)[];
  for (let changed = true; changed;) {
    changed = false;
    for (const type of composite) {
      let best = Number.POSITIVE_INFINITY;
      for (const field of Object.values(type.getFields())) {
        const named = getNamedType(field.type);
        best = Math.min(best, isLeafType(named) ? 0 : 1 + (depths.get(named.name) ?? Number.POSITIVE_INFINITY));
      }
      if (best < (depths.get(type.name) ?? Number.POSITIVE_INFINITY)) {
        depths.set(type.name, best);
        changed = true;
      }
    }
  }
  return depths;
}

const depthCache = new WeakMap<GraphQLSchema, Map<string, number>>();

function depthOf(schema: GraphQLSchema, type: GraphQLNamedType): number {
  if (isLeafType(type)) return 0;
  let depths = depthCache.get(schema);
  if (!depths) depthCache.set(schema, (depths = leafDepths(schema)));
  return depths.get(type.name) ?? 0;
}

/** A selection set of `type`: `{ … }` text and the keys its answer must and may have. */
function selectionSet(b: Build, type: GraphQLObjectType | GraphQLInterfaceType, depth: number, level: Set<string> = new Set()): { text: string; shape: ShapeNode } {
  const { p } = b;
  const shape = newShape();
  const parts: string[] = [];
  const fields = Object.values(type.getFields());
  // Deep down, only fields that end soon; otherwise any, the heavier ones more often.
  const budget = MAX_DEPTH - depth;
  let candidates = fields.filter((f) => depthOf(b.schema, getNamedType(f.type)) < budget);
  if (candidates.length === 0) {
    const least = Math.min(...fields.map((f) => depthOf(b.schema, getNamedType(f.type))));
    candidates = fields.filter((f) => depthOf(b.schema, getNamedType(f.type)) === least);
  }
  const count = p.weighted<number>([[8, () => 1], [4, () => 2], [2, () => 3], [1, () => Math.min(candidates.length, 6)]]);
  const chosen: GraphQLField<unknown, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const field = p.weighted(candidates.map((f) => [weightOf(type.name, f), () => f] as const));
    chosen.push(field);
  }
  for (const field of chosen) {
    const { text, key, child, always } = fieldSelection(b, type.name, field, depth, level);
    parts.push(text);
    addChild(shape, key, child, always);
  }
  if (p.chance(0.15)) {
    parts.push('__typename');
    shape.always.add('__typename');
  }
  const possible = isInterfaceType(type) ? b.schema.getPossibleTypes(type) : [];
  if (possible.length > 0 && depth < MAX_DEPTH && p.chance(0.5)) {
    b.features.add('fragment');
    for (let i = p.int(1, 2); i > 0; i--) {
      const on = p.pick(possible);
      // The fragment's fields answer at this level: their keys must not clash with the ones here.
      const inner = selectionSet(b, on, depth + 1, level);
      if (p.chance(0.3)) {
        const name = b.next('F');
        b.fragments.push(`fragment ${name} on ${on.name} ${inner.text}`);
        parts.push(`...${name}`);
        b.features.add('namedFragment');
      } else {
        parts.push(`... on ${on.name} ${inner.text}`);
      }
      mergeShape(shape, inner.shape);
    }
  }
  if (b.mistake(0.1, 'invalidSelection')) {
    // Mistakes a client makes: a field of another type, a misspelt one, a fragment on a type that cannot apply.
    parts.push(p.pick(['notAField', 'guid { id }', `... on ${isObjectType(type) && type.name === 'Account' ? 'User' : 'Account'} { id }`, 'name(x: 1)', '__typename { x }']));
  }
  return { text: `{ ${parts.join(' ')} }`, shape };
}

function fieldSelection(
  b: Build, owner: string, field: GraphQLField<unknown, unknown>, depth: number, level: Set<string>,
): { text: string; key: string; child: ShapeNode | undefined; always: boolean } {
  const { p } = b;
  if (owner === 'Actor' && field.name === 'entitySearch' && p.chance(0.3)) return pagedSearch(b, level);
  let key = field.name;
  let prefix = '';
  // Two selections under one key must agree in arguments and type; an alias keeps them apart.
  if (level.has(key) || p.chance(0.2)) {
    key = b.next(p.pick(['a', 'alias_', 'x']));
    prefix = `${key}: `;
    b.features.add('alias');
  }
  level.add(key);
  const args = argumentsOf(b, `${owner}.${field.name}`, field.args);
  let directive = '';
  let always = true;
  if (depth > 0 && p.chance(0.05)) {
    const condition = boolValue(b);
    directive = ` @${p.pick(['include', 'skip'])}(if: ${p.chance(0.3) ? variable(b, b.booleanType, condition) : literal(b, condition)})`;
    always = false;
    b.features.add('directive');
  }
  const named = getNamedType(field.type);
  if (isLeafType(named)) return { text: `${prefix}${field.name}${args}${directive}`, key, child: undefined, always };
  // A union (alerting's auth and error payloads): its members share no field but __typename.
  if (isUnionType(named)) {
    const child = newShape();
    child.always.add('__typename');
    return { text: `${prefix}${field.name}${args}${directive} { __typename }`, key, child, always };
  }
  const inner = selectionSet(b, named as GraphQLObjectType | GraphQLInterfaceType, depth + 1);
  return { text: `${prefix}${field.name}${args}${directive} ${inner.text}`, key, child: inner.shape, always };
}

/**
 * A search paged the way clients page: a valid query with a small page, and a cursor a previous
 * answer to the same query gave (pool `cursor<n>`, filled from answers under `page<n>_…` keys),
 * so that real cursors are followed as well as forged ones refused. The response key says which:
 * `page<n>_c…` follows a cursor, `page<n>_f…` is a first page.
 */
function pagedSearch(b: Build, level: Set<string>): { text: string; key: string; child: ShapeNode; always: boolean } {
  const { p, pools } = b;
  const n = p.int(0, pagedSearchQueries(pools).length - 1);
  const cursor = p.chance(0.7) ? `(cursor: ${JSON.stringify(`@@dyn:cursor${n}:${p.int(0, 9)}@@`)})` : '';
  const key = b.next(`page${n}_${cursor ? 'c' : 'f'}`);
  level.add(key);
  const query = JSON.stringify(pagedSearchQueries(pools)[n]);
  const child = newShape();
  child.always.add('results');
  child.always.add('count');
  const results = newShape();
  results.always.add('nextCursor');
  results.always.add('entities');
  const entities = newShape();
  entities.always.add('guid');
  entities.always.add('name');
  results.children.set('entities', [entities]);
  child.children.set('results', [results]);
  return { text: `${key}: entitySearch(query: ${query}, options: {limit: ${p.int(1, 2)}}) { count results${cursor} { nextCursor entities { guid name } } }`, key, child, always: true };
}

/** The queries `pagedSearch` pages through: each matches several entities of the key's account. */
function pagedSearchQueries(pools: GraphFuzzPools): readonly string[] {
  return [`accountId = ${pools.ownAccountId}`, "domain = 'APM'", "type = 'APPLICATION'", "domain IN ('APM', 'MOBILE', 'BROWSER') AND name NOT LIKE 'zzz'"];
}

function argumentsOf(b: Build, owner: string, args: readonly GraphQLArgument[]): string {
  const { p } = b;
  const given: string[] = [];
  for (const arg of args) {
    const required = isNonNullType(arg.type) && arg.defaultValue === undefined;
    if (required ? b.mistake(0.05, 'missingRequired') : !p.chance(0.6)) continue;
    given.push(`${arg.name}: ${argumentValue(b, `${owner}.${arg.name}`, arg.type)}`);
  }
  if (b.mistake(0.05, 'unknownArgument')) given.push(`${p.pick(['bogus', 'limit', 'accountId', 'guid'])}: ${p.pick(['1', '"x"', 'null', '[]'])}`);
  return given.length === 0 ? '' : `(${given.join(', ')})`;
}

/** One argument's text: a literal, or a variable declared (rightly or wrongly) and given in `variables`. */
function argumentValue(b: Build, context: string, type: GraphQLInputType): string {
  const value = valueFor(b, context, type, 0);
  if (b.p.chance(0.5)) {
    b.features.add('literal');
    return literal(b, value);
  }
  return variable(b, type, value);
}

function variable(b: Build, type: GraphQLInputType, value: Val): string {
  const { p } = b;
  b.features.add('variables');
  const undeclared = b.mistake(0.1, 'undeclaredVariable');
  const name = b.next(undeclared ? 'undeclared' : 'v');
  if (undeclared) {
    b.variables[name] = json(b, value);
    return `$${name}`;
  }
  let declared = String(type);
  if (b.mistake(0.1, 'wrongDeclaration')) {
    declared = p.pick([declared.endsWith('!') ? declared.slice(0, -1) : `${declared}!`, 'String', '[Int]', 'NoSuchType', 'Boolean!']);
  }
  const defaultValue = !declared.endsWith('!') && p.chance(0.1) ? ` = ${literal(b, value, true)}` : '';
  b.declarations.push(`$${name}: ${declared}${defaultValue}`);
  const leftOut = declared.endsWith('!') ? b.mistake(0.05, 'requiredVariableLeftOut') : p.chance(0.07);
  if (!leftOut) b.variables[name] = json(b, value);
  else b.features.add('variableLeftOut');
  return `$${name}`;
}

// --- Values ----------------------------------------------------------------------------------------

function boolValue(b: Build): Val {
  if (b.mistake(0.1, 'wrongBoolean')) return b.p.pick<Val>([{ k: 'str', v: 'true' }, { k: 'num', text: '1' }]);
  return { k: 'bool', v: b.p.chance(0.5) };
}

const str = (v: string): Val => ({ k: 'str', v });
const num = (text: string): Val => ({ k: 'num', text });
const dyn = (pool: string, n: number): Val => str(`@@dyn:${pool}:${n}@@`);

/** A value for an input position: its type decides the shape, `context` (owner.name) the pool. */
function valueFor(b: Build, context: string, type: GraphQLInputType, depth: number): Val {
  const { p } = b;
  if (isNonNullType(type)) {
    if (b.mistake(0.05, 'nullForNonNull')) return { k: 'null' };
    return valueOfType(b, context, type.ofType, depth);
  }
  if (p.chance(0.04)) return { k: 'null' };
  return valueOfType(b, context, type, depth);
}

/** A value that is not null for a nullable type's inner type. */
function valueOfType(b: Build, context: string, type: GraphQLInputType, depth: number): Val {
  const { p } = b;
  if (isListType(type)) {
    const item = type.ofType as GraphQLInputType;
    return p.weighted<Val>([
      [3, () => ({ k: 'list', items: [valueFor(b, context, item, depth + 1)] })],
      [2, () => ({ k: 'list', items: [valueFor(b, context, item, depth + 1), valueFor(b, context, item, depth + 1)] })],
      [1, () => ({ k: 'list', items: [] })],
      [1, () => ({ k: 'list', items: Array.from({ length: 30 }, () => valueFor(b, context, item, depth + 1)) })],
      // One value where a list is expected: GraphQL takes it as a list of one.
      [2, () => valueFor(b, context, item, depth + 1)],
    ]);
  }
  if (isEnumType(type)) {
    const values = type.getValues().map((v) => v.name);
    if (b.mistake(0.1, 'wrongEnum')) return p.chance(0.5) ? { k: 'enum', v: p.pick(['NOPE', 'apm', 'Null', 'true']) } : str(p.pick(values));
    return { k: 'enum', v: p.pick(values) };
  }
  if (isInputObjectType(type)) {
    const fields: (readonly [string, Val])[] = [];
    for (const field of Object.values(type.getFields())) {
      const required = isNonNullType(field.type);
      const given = b.benign ? benignMember(b, type.name, field.name) : USUALLY_GIVEN[`${type.name}.${field.name}`];
      if (required ? b.mistake(0.05, 'missingRequiredMember') : depth > 6 || !p.chance(given ?? 0.6)) continue;
      const value = valueFor(b, `${type.name}.${field.name}`, field.type, depth + 1);
      fields.push([field.name, p.chance(0.05) ? { k: 'var', type: field.type, value } : value]);
    }
    if (b.mistake(0.05, 'unknownMember')) fields.push([p.pick(['bogus', 'enabled', 'apdexTarget']), num('1')]);
    return { k: 'obj', fields };
  }
  if (isScalarType(type)) return scalarValue(b, context, type.name, depth);
  return { k: 'null' };
}

function scalarValue(b: Build, context: string, scalar: string, depth: number): Val {
  const { p } = b;
  const name = context.slice(context.lastIndexOf('.') + 1);
  const wrongKind = (): Val => p.pick<Val>([num('1'), str('1'), { k: 'bool', v: true }, { k: 'list', items: [] }, { k: 'obj', fields: [] }, { k: 'enum', v: 'X' }]);
  if (b.mistake(0.05, 'wrongKind')) return wrongKind();
  switch (scalar) {
    case 'EntityGuid':
      return guidValue(b);
    case 'Nrql':
      return nrqlValue(b);
    case 'Seconds':
      if (b.benign) return p.pick([num('5'), num('10'), num('30'), num('120')]);
      if (b.mistake(0.2, 'uncoercible')) return p.pick([str('abc'), str('NaN'), str(''), num('1e309'), { k: 'bool', v: true }]);
      return p.pick([num('5'), num('0'), num('-1'), num('10'), num('120'), num('121'), num('0.5'), num('1e308'), num('-0'), str('10'), str(' 7 ')]);
    case 'EpochMilliseconds':
      if (b.benign) return num(String(b.pools.nowMs - p.int(0, 23) * 3_600_000 - p.int(0, 59) * 60_000));
      if (b.mistake(0.2, 'uncoercible')) return p.pick([num('9007199254740993'), num('1e20'), num('1.5'), str('now'), str('')]);
      return p.weighted<Val>([
        [5, () => num(String(b.pools.nowMs - p.int(0, 48) * 3_600_000 + p.int(-5, 5) * 60_000))],
        [4, () => p.pick([num('0'), num('-1'), num('8640000000000001'), num('-8640000000000001'), num('9007199254740991'), num(String(b.pools.nowMs + 25 * 3_600_000)), str(String(b.pools.nowMs)), str('1e3'), num('-0')])],
      ]);
    case 'Boolean':
      return boolValue(b);
    case 'Int':
      return intValue(b, name);
    case 'Float':
      if (b.benign) return p.pick([num('0.5'), num('1'), num('2'), num('0.1'), num('7')]);
      if (b.mistake(0.1, 'wrongFloat')) return p.pick([str('0.5'), str('NaN'), { k: 'enum', v: 'Infinity' }]);
      if (b.mistake(0.1, 'uncoercible')) return num('1e309');
      return p.pick([num('0.5'), num('1'), num('0.1'), num('0'), num('-1'), num('1e308'), num('-0'), num('5e-324'), num('3'), num('1.0'), num('9007199254740993')]);
    case 'ID':
      return name === 'queryId'
        ? p.weighted<Val>([[3, () => dyn('queryId', p.int(0, 5))], [4, () => str(p.pick(QUERY_IDS))], [1, () => num('1')]])
        : str(p.pick(QUERY_IDS));
    case 'AgentApplicationSettingsErrorCollectorHttpStatus':
      return p.pick([str('404'), str('500'), str('503'), str('4xx'), str('abc'), str(''), str('99999'), str('-1'), num('404'), str('200-299')]);
    case 'ChangeTrackingRawCustomAttributesMap':
    case 'AttributeMap':
    case 'NrdbResult':
    case 'NrdbRawResults':
    case 'AgentApplicationSettingsRawJsConfiguration':
      return { k: 'json', v: p.chance(0.85) ? attributesObject(b, depth) : jsonValue(b, 0) };
    default:
      return stringValue(b, context, name);
  }
}

function intValue(b: Build, name: string): Val {
  const { p, pools } = b;
  if (b.benign) return name === 'limit' ? num(String(p.int(1, 200))) : name === 'maxSamplesStored' ? num('10000') : num(String(pools.ownAccountId));
  // Outside GraphQL's 32-bit Int, or not whole: refused by validation.
  if (b.mistake(0.1, 'wrongInt')) return p.pick([num('2147483648'), num('-2147483649'), num('1.5'), num('1e3'), str('1'), num('99999999999999999999')]);
  if (name === 'id' || name === 'accountId' || name === 'accounts') {
    return p.weighted<Val>([
      [8, () => num(String(pools.ownAccountId))],
      [3, () => num(String(pools.otherAccountId))],
      [2, () => p.pick([num('0'), num('-1'), num('999'), num('2147483647'), num('-2147483648')])],
    ]);
  }
  if (name === 'limit') return p.pick([num('1'), num('1'), num('2'), num('3'), num('200'), num('201'), num('0'), num('-5'), num('2147483647'), num('5001')]);
  if (name === 'maxSamplesStored') return p.pick([num('0'), num('1'), num('10000'), num('-1'), num('2147483647')]);
  return p.pick([num('0'), num('1'), num('-1'), num('2147483647'), num('-2147483648')]);
}

function guidValue(b: Build): Val {
  const { p, pools } = b;
  // The key's entities as they are when the operation is sent (earlier mutations delete some).
  if (b.benign) return dyn('ownGuid', p.int(0, 99));
  return p.weighted<Val>([
    [12, () => str(p.pick(pools.ownGuids))],
    [3, () => str(p.pick(pools.otherGuids))],
    [3, () => dyn('guid', p.int(0, 40))],
    [5, () => str(p.pick(forgedGuids(pools.ownGuids, pools.ownAccountId)))],
    [1, () => str(p.from(ANY_TEXT))],
  ]);
}

function nrqlValue(b: Build): Val {
  const { p, pools } = b;
  if (b.benign) return str(p.pick(pools.nrql));
  return p.weighted<Val>([
    [8, () => str(p.pick(pools.nrql))],
    [4, () => str(p.from(GENERATED_NRQL))],
    [3, () => str(p.pick(NRQL_BROKEN))],
    [3, () => str(p.pick(NRQL_HOSTILE))],
    [1, () => str(p.pick(HOSTILE_STRINGS))],
  ]);
}

/** Entity search text: valid over the real entities, broken, or hostile. */
function searchValue(b: Build): Val {
  const { p, pools } = b;
  const guid = p.pick([...pools.ownGuids, ...pools.otherGuids]);
  const app = p.pick(pools.appNames);
  const valid = [
    "domain = 'APM'", "domain IN ('MOBILE', 'BROWSER')", "type = 'APPLICATION'", "type = 'KEY_TRANSACTION'", `name = '${app.replace(/'/g, "\\'")}'`,
    `name LIKE '%${app.slice(0, 4).replace(/'/g, "\\'")}%'`, `id = '${guid}'`, `accountId = ${pools.ownAccountId}`, `accountId = '0${pools.ownAccountId}'`,
    'reporting = true', "reporting = 'false'", "tags.language = 'nodejs'", "`tags.account` IS NOT NULL", "alertSeverity = 'NOT_CONFIGURED'",
    "(domain = 'APM' OR domain = 'MOBILE') AND name NOT LIKE 'zzz'", 'domainId = 1', "domainType = 'APM-APPLICATION'", 'name IS NULL',
    "lastReportingChangeAt IS NOT NULL", "DOMAIN = 'apm' and NAME like 'web'", "entityType = 'APM_APPLICATION_ENTITY'",
  ];
  if (b.benign) return str(p.pick(valid));
  return p.weighted<Val>([
    [8, () => str(p.pick(valid))],
    [3, () => str(p.pick(SEARCH_BROKEN))],
    [2, () => str(p.pick(SEARCH_HOSTILE))],
    [1, () => str(p.pick(HOSTILE_STRINGS))],
    [1, () => str(p.from(ANY_TEXT))],
  ]);
}

function stringValue(b: Build, context: string, name: string): Val {
  const { p, pools } = b;
  const hostile = (): Val => str(p.weighted<string>([[3, () => p.pick(HOSTILE_STRINGS)], [2, () => p.pick(ENCODING_HAZARDS)], [2, () => p.from(ANY_TEXT)]]));
  // A careful client still sends odd Unicode now and then: it is valid input, and must be stored as sent.
  const mostly = (valid: () => Val): Val =>
    (b.benign ? (p.chance(0.2) ? str(p.pick(ENCODING_HAZARDS)) : valid()) : p.weighted<Val>([[2, valid], [1, hostile]]));
  if (context === 'Actor.entitySearch.query' || context === 'ChangeTrackingEntitySearchInput.query') {
    if (context.startsWith('Change') && b.benign) return str(`id = '@@dyn:ownGuid:${p.int(0, 99)}@@'`);
    if (context.startsWith('Change') && p.chance(0.6)) return str(`id = '${p.pick([...pools.ownGuids, ...pools.ownGuids, ...pools.otherGuids])}'`);
    return searchValue(b);
  }
  if (context === 'ChangeTrackingSearchFilter.query') {
    if (b.benign) return str(p.pick(["version LIKE '1.%'", "user = 'ana'", 'timestamp > 0']));
    return p.weighted<Val>([
      [4, () => str(p.pick(["version LIKE '1.%'", "user = 'ana'", "deploymentType = 'Basic'", 'timestamp > 0', "changelog IS NULL", "version = '\\''"]))],
      [2, () => str(p.pick(['SINCE 1 day ago', 'true LIMIT 5', "version = 'x' FACET user", '1', 'x =', ') OR (1=1']))],
      [1, hostile],
    ]);
  }
  switch (name) {
    case 'cursor':
      if (b.benign) return dyn('cursor', p.int(0, 20));
      return p.weighted<Val>([[4, () => dyn('cursor', p.int(0, 20))], [3, () => str(p.pick(FORGED_CURSORS))], [1, hostile]]);
    case 'name':
    case 'alias':
      return mostly(() => str(p.pick([...pools.appNames, 'fuzz-app', `fuzz ${p.int(0, 9999)}`, 'Checkout', 'x', 'Ünïcode app 🙂'])));
    case 'metricName':
      return mostly(() => str(p.pick([...pools.metricNames, 'WebTransaction/Expressjs/GET//fuzz', 'OtherTransaction/all', ''])));
    case 'filter':
    case 'eventNamespaces':
      return mostly(() => str(p.pick(EVENT_TYPE_NAMES)));
    case 'category':
    case 'type':
      if (context.startsWith('ChangeTrackingCategoryAndTypeInput')) {
        const pair = categoryPairOf(b);
        return mostly(() => str(name === 'category' ? pair[0] : pair[1]));
      }
      return hostile();
    case 'version':
      return mostly(() => str(p.pick(['1.0.0', '2.3.4-rc.1', 'v9', ...(b.benign ? [] : ['', ' ', 'x'.repeat(5000)])])));
    case 'tag':
    case 'key':
      return mostly(() => str(p.pick(['language', 'accountId', 'account', 'trustedAccountId', 'nope', 'a.b', ''])));
    case 'value':
      return mostly(() => str(p.pick(['nodejs', String(pools.ownAccountId), 'Account 1', ''])));
    case 'pinnedVersion':
      return mostly(() => str(p.pick(['1.250.0', '1', 'latest', ''])));
    case 'deepLink':
      return mostly(() => str(p.pick(['https://example.com/deploy/1', 'javascript:alert(1)', 'not a url'])));
    default:
      return mostly(() => str(p.pick(['fuzz', 'ana', 'a change', 'abc123', 'group-1', 'https://example.com/x'])));
  }
}

const ATTRIBUTE_KEYS: readonly string[] = [
  'region', 'pods', 'canary', 'ratio', 'a.b', 'timestamp', 'entity.guid', 'SELECT', 'version', '', ' ', 'k'.repeat(300), 'é', '日本', 'with space',
  '__proto__', 'constructor', 'toString', 'customAttributes.x', 'x\u0000y',
];

/** Custom attributes: values of every JSON type, nested objects and arrays among them, at times very many. */
function attributesObject(b: Build, depth: number): Record<string, unknown> {
  const { p } = b;
  if (b.benign) {
    const keys = ['region', 'pods', 'canary', 'ratio', 'team', 'build'].slice(0, p.int(0, 6));
    return Object.fromEntries(keys.map((k) => [k, p.pick<unknown>(['eu-west-1', 12, true, 0.25, 'ünïcode 🙂', -3])]));
  }
  const out: Record<string, unknown> = {};
  const count = p.weighted<number>([[8, () => p.int(0, 4)], [1, () => 250], [1, () => 20]]);
  for (let i = 0; i < count; i++) {
    const key = count > 20 ? `attr${i}` : p.weighted<string>([[4, () => p.pick(ATTRIBUTE_KEYS)], [1, () => `k${p.int(0, 99)}`]]);
    // `__proto__` as an own key (as JSON.parse would make it), not the prototype.
    Object.defineProperty(out, key, { value: jsonValue(b, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function jsonValue(b: Build, depth: number): unknown {
  const { p } = b;
  return p.weighted<unknown>([
    [4, () => p.pick(['eu-west-1', '', 'x'.repeat(5000), '\u0000', '\ud800', "'", '🙂'.repeat(4100)])],
    [3, () => p.pick([0, 1, -1, 12, 0.5, 1e308, -0, 2 ** 53 + 1, 5e-324])],
    [2, () => new RawJsonNumber(p.pick(['1e309', '-1e309', '-0', '9007199254740993', '1E2', '0.0000000000000000000001']))],
    [2, () => p.chance(0.5)],
    [1, () => null],
    [depth < 4 ? 2 : 0, () => Array.from({ length: p.int(0, 3) }, () => jsonValue(b, depth + 1))],
    [depth < 4 ? 2 : 0, () => attributesObject(b, depth + 1)],
    [depth === 0 ? 1 : 0, () => JSON.parse(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`)],
  ]);
}

// --- Rendering ----------------------------------------------------------------------------------------

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * GraphQL literal text of a value; `constant` (a default value) writes nested variables' values
 * in place. JSON object keys that are not names make a document that does not parse, as they should.
 */
function literal(b: Build, value: Val, constant = false): string {
  switch (value.k) {
    case 'null':
      return 'null';
    case 'bool':
      return String(value.v);
    case 'num':
      return value.text;
    case 'str': {
      // GraphQL's strings cannot hold a lone surrogate: sent as one, it is a syntax error, made only as a deliberate mistake.
      const text = LONE_SURROGATE.test(value.v) && !b.mistake(0.5, 'loneSurrogateLiteral') ? value.v.replace(LONE_SURROGATES, '\ufffd') : value.v;
      if (value.block || (b.p.chance(0.05) && !/"""|\\|[\u0000-\u0008\u000b-\u001f]/.test(text))) return `"""${text}"""`;
      return JSON.stringify(text);
    }
    case 'enum':
      return value.v;
    case 'list':
      return `[${value.items.map((v) => literal(b, v, constant)).join(', ')}]`;
    case 'obj':
      return `{${value.fields.map(([k, v]) => `${k}: ${literal(b, v, constant)}`).join(', ')}}`;
    case 'json':
      return jsonLiteral(b, value.v);
    case 'var':
      return constant ? literal(b, value.value, true) : variable(b, value.type, value.value);
  }
}

/** JSON as a GraphQL literal: keys that are not names can only be written as a (deliberate) syntax error, so they are left out. */
function jsonLiteral(b: Build, value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof RawJsonNumber) return value.text;
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return literal(b, str(value));
  if (Array.isArray(value)) return `[${value.map((v) => jsonLiteral(b, v)).join(', ')}]`;
  const members = Object.entries(value as Record<string, unknown>)
    .filter(([k]) => NAME.test(k) || b.mistake(0.5, 'badObjectKey'))
    .map(([k, v]) => `${NAME.test(k) ? k : JSON.stringify(k)}: ${jsonLiteral(b, v)}`);
  return `{${members.join(', ')}}`;
}

/** The value as `variables` carries it. */
function json(b: Build, value: Val): unknown {
  switch (value.k) {
    case 'null':
      return null;
    case 'bool':
      return value.v;
    case 'num': {
      const n = Number(value.text);
      if (!Number.isFinite(n) || Object.is(n, -0) || (Number.isInteger(n) && !Number.isSafeInteger(n) && /^-?\d+$/.test(value.text))) {
        if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value.text)) {
          b.hasRawNumbers = true;
          return new RawJsonNumber(value.text);
        }
        return value.text;
      }
      return n;
    }
    case 'str':
    case 'enum':
      return value.v;
    case 'list':
      return value.items.map((v) => json(b, v));
    case 'obj':
      return Object.fromEntries(value.fields.map(([k, v]) => [k, json(b, v)]));
    case 'json':
      if (containsRaw(value.v)) b.hasRawNumbers = true;
      return value.v;
    case 'var':
      return json(b, value.value);
  }
}

function containsRaw(value: unknown): boolean {
  if (value instanceof RawJsonNumber) return true;
  if (Array.isArray(value)) return value.some(containsRaw);
  if (typeof value === 'object' && value !== null) return Object.values(value).some(containsRaw);
  return false;
}

/** Root fields beyond the schema's own: introspection, as GraphiQL and codegen tools send it. */
function introspectionField(b: Build): { text: string; key: string } {
  const { p } = b;
  return p.pick([
    { text: '__schema { queryType { name } mutationType { name } types { name kind } }', key: '__schema' },
    { text: `__type(name: ${JSON.stringify(p.pick(['Actor', 'Entity', 'NoSuchType', '', 'AgentApplicationSettingsUpdateInput', '__Schema']))}) { name kind fields { name } inputFields { name } }`, key: '__type' },
    { text: '__typename', key: '__typename' },
  ]);
}

/** The arbitrary of operations on `schema` with values from `pools`. */
export function graphOperations(schema: GraphQLSchema, pools: GraphFuzzPools, options: OperationOptions): fc.Arbitrary<GeneratedOperation> {
  const rootType = options.root === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
  return fc.gen().map((g) => {
    const p = new Picker(g);
    const b = new Build(p, pools, schema);
    b.benign = p.chance(0.3);
    b.mistakes = !b.benign && p.chance(0.3) ? 1 : 0;
    if (b.benign) b.features.add('benign');
    const shape = newShape();
    const topLevel: Record<string, string> = {};
    const parts: string[] = [];
    const fields = Object.values(rootType.getFields());
    const count = options.root === 'mutation' ? p.weighted<number>([[8, () => 1], [2, () => 2]]) : p.weighted<number>([[7, () => 1], [3, () => 2], [1, () => 3]]);
    const level = new Set<string>();
    for (let i = 0; i < count; i++) {
      if (options.root === 'query' && p.chance(0.04)) {
        const intro = introspectionField(b);
        if (level.has(intro.key)) continue;
        level.add(intro.key);
        parts.push(intro.text);
        shape.always.add(intro.key);
        topLevel[intro.key] = intro.key;
        continue;
      }
      const field = p.weighted(fields.map((f) => [weightOf(rootType.name, f), () => f] as const));
      const selected = fieldSelection(b, rootType.name, field, 0, level);
      parts.push(selected.text);
      addChild(shape, selected.key, selected.child, true);
      topLevel[selected.key] = field.name;
    }
    const named = p.chance(0.1);
    const operationName = named ? b.next('Op') : undefined;
    const declarations = b.declarations.length > 0 ? `(${b.declarations.join(', ')})` : '';
    const head = operationName || declarations || options.root === 'mutation' || p.chance(0.3) ? `${options.root}${operationName ? ` ${operationName}` : ''}${declarations} ` : '';
    let text = [`${head}{ ${parts.join(' ')} }`, ...b.fragments].join('\n');
    let sentName = operationName;
    if (named && p.chance(0.3)) {
      // A second operation in the document: the name picks one, or (left out) the request is refused.
      text += `\nquery Other { requestContext { userId } }`;
      b.features.add('twoOperations');
      if (b.mistake(0.3, 'operationNotNamed')) sentName = undefined;
    } else if (named && b.mistake(0.1, 'unknownOperationName')) {
      sentName = 'NoSuchOperation';
    }
    if (b.mistake(0.1, 'syntaxError')) {
      // A document cut short or with a stray character.
      const at = p.int(1, Math.max(1, text.length - 1));
      text = p.chance(0.5) ? text.slice(0, at) : `${text.slice(0, at)}${p.pick(['}', '{', '"', '$', '!', '\u0000', '#'])}${text.slice(at)}`;
    }
    // Values the operation does not declare: client-go sends extra ones; they are ignored.
    if (p.chance(0.05)) b.variables[b.next('extra')] = p.pick<unknown>([1, 'x', null, { a: [1] }]);
    const hasVariables = Object.keys(b.variables).length > 0;
    return {
      root: options.root,
      text,
      variables: hasVariables ? b.variables : undefined,
      operationName: sentName,
      topLevel,
      shape,
      hasRawNumbers: b.hasRawNumbers,
      features: [...b.features].sort(),
    };
  });
}

// --- Dynamic values ------------------------------------------------------------------------------

/** Values seen in earlier answers, by pool: `cursor`, `guid`, `queryId`; and `ownGuid`, the key's entities now. */
export type DynamicPools = Readonly<Record<string, readonly string[]>>;

/** What stands in for a pool that has nothing yet (`cursor3` falls back as `cursor`): a value of the right look the server never issued. */
const FALLBACK: Readonly<Record<string, string>> = {
  cursor: b64('{"b":"AAAAAAAAAAAAAAAA","k":["a","a"],"g":"x"}').replace(/\+/g, '-').replace(/\//g, '_'),
  guid: b64('1|APM|APPLICATION|31337'),
  ownGuid: b64('1|APM|APPLICATION|31337'),
  queryId: '11111111-1111-1111-1111-111111111111',
};

const DYN = /@@dyn:(\w+):(\d+)@@/g;

function fill(text: string, pools: DynamicPools): string {
  return text.replace(DYN, (_m, pool: string, n: string) => {
    const values = pools[pool] ?? [];
    return values.length === 0 ? FALLBACK[pool.replace(/\d+$/, '')] ?? '' : values[Number(n) % values.length]!;
  });
}

function fillDeep(value: unknown, pools: DynamicPools): unknown {
  if (typeof value === 'string') return fill(value, pools);
  if (Array.isArray(value)) return value.map((v) => fillDeep(v, pools));
  if (value instanceof RawJsonNumber || value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: fillDeep(v, pools), enumerable: true, writable: true, configurable: true });
  return out;
}

/** The operation with the values of earlier answers put in; `usedDynamic` says whether it had any. */
export function resolveDynamic(op: GeneratedOperation, pools: DynamicPools): { text: string; variables: Record<string, unknown> | undefined; usedDynamic: boolean } {
  const usedDynamic = op.text.includes('@@dyn:') || (op.variables !== undefined && JSON.stringify(op.variables).includes('@@dyn:'));
  return {
    text: fill(op.text, pools),
    variables: op.variables === undefined ? undefined : (fillDeep(op.variables, pools) as Record<string, unknown>),
    usedDynamic,
  };
}

/** JSON text of a request body, with `RawJsonNumber`s written as given. */
export function jsonText(value: unknown): string {
  if (value instanceof RawJsonNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : jsonText(v))).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

// --- Raw HTTP requests -----------------------------------------------------------------------------

/** One request as bytes on the wire: the body is built from the operation once its dynamic values are in. */
export interface RawRequestPlan {
  readonly label: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  /** The path with its query string, from the operation's text and variables JSON (GET), or `/graphql`. */
  readonly path: (query: string, variablesJson: string | undefined) => string;
  /** The body from the request's JSON text and the bare document; undefined for none. */
  readonly body: (json: string, query: string) => Buffer | undefined;
}

const MIB = 1024 * 1024;

/**
 * Requests a client library would never send but a script or a proxy might: compressed and
 * corrupt bodies, JSON that is not JSON or not the right JSON, other content types and encodings,
 * bodies past the limit, GET with odd parameters, no key or a wrong one.
 */
export function rawRequestPlans(key: string): fc.Arbitrary<RawRequestPlan> {
  return fc.gen().map((g): RawRequestPlan => {
    const p = new Picker(g);
    const json = { 'content-type': 'application/json', 'api-key': key };
    const post = (label: string, body: RawRequestPlan['body'], headers: Record<string, string> = json): RawRequestPlan =>
      ({ label, method: 'POST', headers, path: () => '/graphql', body });
    const junk = () => Buffer.from(Array.from({ length: p.int(0, 64) }, () => p.int(0, 255)));
    return p.weighted<RawRequestPlan>([
      [3, () => post('gzip body', (j) => gzipSync(j), { ...json, 'content-encoding': p.pick(['gzip', 'GZIP', ' gzip ']) })],
      [2, () => post('deflate body', (j) => (p.chance(0.5) ? deflateSync(j) : deflateRawSync(j)), { ...json, 'content-encoding': 'deflate' })],
      [2, () => post('gzip junk', () => junk(), { ...json, 'content-encoding': p.pick(['gzip', 'deflate']) })],
      [2, () => {
        const cut = p.int(1, 40);
        return post('truncated gzip', (j) => { const z = gzipSync(j); return z.subarray(0, Math.max(1, z.length - cut)); }, { ...json, 'content-encoding': 'gzip' });
      }],
      [1, () => post('gzip of non-JSON', () => gzipSync(p.pick(['not json', '{', '\u0000\u0001', ''])), { ...json, 'content-encoding': 'gzip' })],
      [1, () => post('gzip twice', (j) => gzipSync(gzipSync(j)), { ...json, 'content-encoding': 'gzip' })],
      [1, () => post('other encoding', (j) => Buffer.from(j), { ...json, 'content-encoding': p.pick(['br', 'x-gzip', 'gzip, deflate', 'compress', 'zstd', 'identity', '']) })],
      [3, () => {
        const at = p.int(0, 200);
        return post('truncated JSON', (j) => Buffer.from(j.slice(0, Math.min(at, j.length - 1))));
      }],
      [3, () => post('not the right JSON', () => Buffer.from(p.pick([
        'null', '[]', '"text"', '1', 'true', '{}', '{"query": null}', '{"query": ""}', '{"query": ["{ actor { user { id } } }"]}', "{'query': '{ __typename }'}",
        '{"query": "{ __typename }",}', '{"query": "{ __typename }", "variables": "{}"}', '{"query": "{ __typename }", "variables": 5}',
        '{"query": "{ __typename }", "variables": [1]}', '{"query": "{ __typename }", "operationName": ["x"]}', '{"query": "{ __typename }", "operationName": ""}',
        '{"query": "{ __typename }", "__proto__": {"x": 1}}', '{"query": "{ __typename }", "constructor": {"prototype": {"x": 1}}}',
        '{"query": "{ __typename }", "variables": {"__proto__": {"admin": true}}}', '{"query": "{ __typename }", "query": "{ actor { user { id } } }"}',
        '\ufeff{"query": "{ __typename }"}', '{"query": "{ __typename }"} trailing', '{"query": NaN}', `${'['.repeat(50_000)}${']'.repeat(50_000)}`,
        `{"query": "{ __typename }", "variables": ${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`, '{"query": "\\ud800"}', '{"query": "{ __typename }\\u0000"}',
        '{"query":"query($a: Int) { __typename }","variables":{"a":1e999}}', '{"query": "{ __typename }", "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "x"}}}',
      ])))],
      [1, () => post('random bytes', () => junk())],
      [1, () => post('UTF-16 JSON', (j) => Buffer.from(j, 'utf16le'))],
      [3, () => {
        const type = p.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/graphql', 'application/graphql; charset=utf-8',
          'application/json; charset=latin1', 'application/xml', '', 'APPLICATION/JSON', 'application/graphql-response+json', '*/*']);
        const sendDocument = type.startsWith('application/graphql') ? p.chance(0.7) : p.chance(0.2);
        const headers: Record<string, string> = { 'api-key': key };
        if (type !== '') headers['content-type'] = type;
        return post(`content type '${type}'`, (j, q) => Buffer.from(sendDocument ? q : type.startsWith('application/x-www') ? `query=${encodeURIComponent(q)}` : j), headers);
      }],
      [1, () => post('over 1 MiB', (j) => Buffer.from(`${j.slice(0, -1)}${' '.repeat(MIB)}}`))],
      [1, () => post('inflates past 1 MiB', () => gzipSync(Buffer.from(`{"query": "{ __typename }", "pad": "${'0'.repeat(2 * MIB)}"}`)), { ...json, 'content-encoding': 'gzip' })],
      [1, () => post('empty body', () => Buffer.alloc(0))],
      [2, () => {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        const kind = p.pick(['none', 'wrong', 'blank', 'license-like', 'x-api-key', 'huge', 'control']);
        if (kind === 'wrong') headers['api-key'] = 'NRAK-NOTAKEY000000000000000000';
        if (kind === 'blank') headers['api-key'] = '   ';
        if (kind === 'license-like') headers['api-key'] = '0123456789abcdef0123456789abcdef01234567';
        if (kind === 'x-api-key') headers['x-api-key'] = key;
        if (kind === 'huge') headers['api-key'] = 'K'.repeat(8000);
        if (kind === 'control') headers['api-key'] = `${key}\t`;
        return post(`key: ${kind}`, (j) => Buffer.from(j), headers);
      }],
      [4, () => {
        const variables = p.weighted<(v: string | undefined) => string | undefined>([
          [4, () => (v) => v], [1, () => () => '{not json'], [1, () => () => '[1,2]'], [1, () => () => '5'], [1, () => () => ''], [1, () => () => 'null'],
        ]);
        const operationName = p.chance(0.2) ? p.pick(['', 'Nope', 'Op0']) : undefined;
        return {
          label: 'GET',
          method: 'GET',
          headers: { 'api-key': key },
          path: (query, variablesJson) => {
            const search = new URLSearchParams();
            // Node refuses request lines past 16 KiB before the application sees them: long documents go by POST.
            if (!p.chance(0.05)) search.set('query', query.length > 4000 ? '{ requestContext { userId } }' : query);
            const v = variables(variablesJson);
            if (v !== undefined) search.set('variables', v.length > 4000 ? '{}' : v);
            if (operationName !== undefined) search.set('operationName', operationName);
            return `/graphql?${search.toString()}`;
          },
          body: () => undefined,
        };
      }],
    ]);
  });
}
