/**
 * The browser agent's querypack format (`bel.6`, `bel.7`), the body of `POST /events/1/{key}`:
 * `bel.<version>;node;node;…`, each node `typeId,field,field,…` with fields in schema order.
 *
 * Field tokens: empty = the field's default; `!` = null (a token of its own: no comma follows it);
 * `'text` = a new string, added to the payload's string table (`\,` `\;` `\\` escape); a base-36
 * integer = a number, or for a string field an index into the string table; `12.5` / `5.` = a
 * double; an enum is a base-36 index into its values. A `nodeList` field is a count of the nodes
 * that follow (depth first) as its children; a `node` field takes the next node after them.
 * Timestamps `relative: first` add the payload's first timestamp (the first one decoded is taken
 * as it is); `relative: previous` add the last timestamp decoded. Both span the whole payload.
 */

export type QpValue = string | number | boolean | null;

/** One decoded node: its type name, its fields by name, its children and its `node` fields. */
export interface QpNode {
  readonly type: string;
  readonly fields: Readonly<Record<string, QpValue>>;
  readonly children: readonly QpNode[];
  readonly nodes: Readonly<Record<string, QpNode | null>>;
}

/** The body is not querypack this decoder knows: the agent's data is dropped (400). */
export class QuerypackError extends Error {}

type FieldKind = 'nodeList' | 'node' | 'timestampFirst' | 'timestampPrevious' | 'integer' | 'double' | 'string' | 'enum';

interface FieldSpec {
  readonly name: string;
  readonly kind: FieldKind;
  readonly nullable?: boolean;
  readonly defaultValue?: QpValue;
  readonly values?: readonly string[];
}

interface NodeSpec {
  readonly type: string;
  readonly fields: readonly FieldSpec[];
}

const f = (name: string, kind: FieldKind, extra: Partial<FieldSpec> = {}): FieldSpec => ({ name, kind, ...extra });
const str = (name: string, defaultValue: string | null = '', nullable = false): FieldSpec => f(name, 'string', { defaultValue, nullable });
const int = (name: string, defaultValue: number | null = 0, nullable = false): FieldSpec => f(name, 'integer', { defaultValue, nullable });

const TIMED: readonly FieldSpec[] = [
  f('children', 'nodeList'), f('start', 'timestampFirst'), f('end', 'timestampPrevious'), f('callbackEnd', 'timestampPrevious'), int('callbackDuration'),
];
const NAV_TIMING_FIELDS = [
  'unloadEventStart', 'redirectStart', 'unloadEventEnd', 'redirectEnd', 'fetchStart', 'domainLookupStart', 'domainLookupEnd', 'connectStart',
  'secureConnectionStart', 'connectEnd', 'requestStart', 'responseStart', 'responseEnd', 'domLoading', 'domInteractive',
  'domContentLoadedEventStart', 'domContentLoadedEventEnd', 'domComplete', 'loadEventStart', 'loadEventEnd',
] as const;
export type NavTimingField = (typeof NAV_TIMING_FIELDS)[number];

function schema(version: 6 | 7): ReadonlyMap<number, NodeSpec> {
  const categories = ['Initial page load', 'Route change', 'Custom', ...(version === 7 ? ['Route change page load'] : [])];
  const ajaxTail = version === 7 ? [str('guid', null, true), str('traceId', null, true), int('timestamp', null, true)] : [];
  const key = str('key');
  return new Map<number, NodeSpec>([
    [1, { type: 'interaction', fields: [
      f('children', 'nodeList'), f('start', 'timestampFirst'), f('end', 'timestampPrevious'), f('callbackEnd', 'timestampFirst'), int('callbackDuration'),
      str('trigger'), str('initialPageURL'), str('oldURL'), str('newURL'), str('customName', null, true),
      f('category', 'enum', { values: categories, defaultValue: 'Initial page load' }),
      f('navTiming', 'node', { nullable: true }),
      int('queueTime', 0, true), int('appTime', 0, true), str('previousRouteName', null, true), str('targetRouteName', null, true),
      str('id', null), str('nodeId', null), int('firstPaint', null, true), int('firstContentfulPaint', null, true),
    ] }],
    [2, { type: 'ajax', fields: [
      ...TIMED, str('method'), int('status'), str('domain'), str('path'), int('requestBodySize'), int('responseBodySize'),
      f('requestedWith', 'enum', { values: ['XMLHttpRequest', 'fetch', 'JSONP'], defaultValue: 'XMLHttpRequest' }), str('nodeId', null), ...ajaxTail,
    ] }],
    [3, { type: 'customEnd', fields: [f('time', 'timestampFirst', { defaultValue: 0 })] }],
    [4, { type: 'customTracer', fields: [...TIMED, str('name'), int('tracedCallbackDuration', null, true), str('nodeId', null)] }],
    [5, { type: 'stringAttribute', fields: [key, str('value')] }],
    [6, { type: 'doubleAttribute', fields: [key, f('value', 'double', { defaultValue: 0 })] }],
    [7, { type: 'trueAttribute', fields: [key] }],
    [8, { type: 'falseAttribute', fields: [key] }],
    [9, { type: 'nullAttribute', fields: [key] }],
    [10, { type: 'apmAttributes', fields: [str('obfuscatedAttributes')] }],
    [11, { type: 'navTiming', fields: NAV_TIMING_FIELDS.map((name, i) => f(name, i === 0 ? 'timestampFirst' : 'timestampPrevious', { nullable: true })) }],
    [12, { type: 'baseNode', fields: [] }],
    [13, { type: 'timedNode', fields: TIMED }],
    [14, { type: 'timing', fields: [str('name', null), int('value', null, true), f('attributes', 'nodeList')] }],
  ]);
}

const SCHEMAS: ReadonlyMap<string, ReadonlyMap<number, NodeSpec>> = new Map([['bel.6', schema(6)], ['bel.7', schema(7)]]);

/** Querypack schemas this decoder reads. */
export const QUERYPACK_SCHEMAS: readonly string[] = [...SCHEMAS.keys()];

/** Nodes one payload may hold at most, children included (the agent's harvests hold tens). */
export const MAX_QUERYPACK_NODES = 20_000;
const MAX_DEPTH = 32;
const NAV_TIMING_TYPE_ID = (11).toString(36);
const BASE36 = /^-?[0-9a-z]+$/;
const DOUBLE = /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** A token: null (`!`), a new string, or raw text (empty = default). */
type Token = { kind: 'null' } | { kind: 'string'; text: string } | { kind: 'raw'; text: string };

class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  /** Whether the next node is of type `typeId` (base 36 as written). */
  startsNode(typeId: string): boolean {
    return this.text.startsWith(typeId, this.pos) && [',', ';', undefined].includes(this.text[this.pos + typeId.length]);
  }

  atNodeEnd(): boolean {
    return this.pos >= this.text.length || this.text[this.pos] === ';';
  }

  /** The next field token of the current node; consumes the comma after it (none follows `!`). */
  token(): Token {
    const t = this.text;
    if (t[this.pos] === '!') {
      this.pos++;
      return { kind: 'null' };
    }
    let quoted = false;
    if (t[this.pos] === "'") {
      quoted = true;
      this.pos++;
    }
    let out = '';
    while (this.pos < t.length) {
      const c = t[this.pos]!;
      if (c === '\\' && quoted) {
        const next = t[this.pos + 1];
        if (next === undefined) throw new QuerypackError('the payload ends inside an escape');
        out += next;
        this.pos += 2;
        continue;
      }
      if (c === ',' || c === ';') break;
      out += c;
      this.pos++;
    }
    if (t[this.pos] === ',') this.pos++;
    return quoted ? { kind: 'string', text: out } : { kind: 'raw', text: out };
  }

  /** Moves past the `;` ending a node; anything else left in it is an error. */
  endNode(type: string): void {
    if (this.pos < this.text.length && this.text[this.pos] !== ';') throw new QuerypackError(`a ${type} node has more fields than its schema`);
    if (this.pos < this.text.length) this.pos++;
  }
}

class Decoder {
  private readonly strings: string[] = [];
  private first: number | undefined;
  private last = 0;
  private count = 0;

  constructor(private readonly reader: Reader, private readonly types: ReadonlyMap<number, NodeSpec>) {}

  roots(): QpNode[] {
    const roots: QpNode[] = [];
    while (this.reader.pos < this.reader.text.length) roots.push(this.node(0));
    return roots;
  }

  private node(depth: number): QpNode {
    if (depth > MAX_DEPTH) throw new QuerypackError(`nodes nest deeper than ${MAX_DEPTH}`);
    if (++this.count > MAX_QUERYPACK_NODES) throw new QuerypackError(`more than ${MAX_QUERYPACK_NODES} nodes`);
    if (this.reader.atNodeEnd()) throw new QuerypackError('an empty node');
    const typeToken = this.reader.token();
    if (typeToken.kind !== 'raw' || !BASE36.test(typeToken.text)) throw new QuerypackError('a node does not start with a type id');
    const spec = this.types.get(parseInt(typeToken.text, 36));
    if (!spec) throw new QuerypackError(`unknown node type ${typeToken.text}`);
    const fields: Record<string, QpValue> = {};
    const counts: [string, number][] = [];
    const nodeFields: string[] = [];
    for (const field of spec.fields) {
      if (field.kind === 'node') {
        nodeFields.push(field.name);
        continue;
      }
      // The agent writes every field (an empty one as nothing between commas): a node that stops early was cut off.
      if (this.reader.atNodeEnd() && !this.lastWasSeparator()) throw new QuerypackError(`a ${spec.type} node ends before its field ${field.name}`);
      const token = this.reader.atNodeEnd() ? { kind: 'raw' as const, text: '' } : this.reader.token();
      if (field.kind === 'nodeList') counts.push([field.name, this.countOf(token, spec.type)]);
      else fields[field.name] = this.value(field, token, spec.type);
    }
    this.reader.endNode(spec.type);
    const children: QpNode[] = [];
    for (const [, n] of counts) for (let i = 0; i < n; i++) children.push(this.node(depth + 1));
    const nodes: Record<string, QpNode | null> = {};
    // A node field is nullable: it is there only when the next node is of its type (navTiming).
    for (const name of nodeFields) nodes[name] = this.reader.startsNode(NAV_TIMING_TYPE_ID) ? this.node(depth + 1) : null;
    return { type: spec.type, fields, children, nodes };
  }

  /** Whether the text just read ended a field (a comma, or a null, which takes none), so an empty last field may follow. */
  private lastWasSeparator(): boolean {
    const previous = this.reader.text[this.reader.pos - 1];
    return previous === ',' || previous === '!';
  }

  private countOf(token: Token, type: string): number {
    if (token.kind !== 'raw' || !/^[0-9a-z]*$/.test(token.text)) throw new QuerypackError(`a ${type} node's child count is not a number`);
    const n = token.text === '' ? 0 : parseInt(token.text, 36);
    if (n > MAX_QUERYPACK_NODES) throw new QuerypackError(`a ${type} node claims ${n} children`);
    return n;
  }

  private value(field: FieldSpec, token: Token, type: string): QpValue {
    const where = `${type}.${field.name}`;
    if (token.kind === 'null') {
      if (!field.nullable) throw new QuerypackError(`${where} is not nullable`);
      // A null first-relative timestamp still moves the base of the previous-relative ones to the first.
      if (field.kind === 'timestampFirst') this.last = this.first ?? 0;
      return null;
    }
    switch (field.kind) {
      case 'string':
        if (token.kind === 'string') {
          this.strings.push(token.text);
          return token.text;
        }
        if (token.text === '') return field.defaultValue ?? null;
        return this.stringAt(token.text, where);
      case 'integer':
        if (token.kind === 'string') throw new QuerypackError(`${where} is a number, not a string`);
        return token.text === '' ? (field.defaultValue ?? null) : this.integer(token.text, where);
      case 'double':
        if (token.kind === 'string') throw new QuerypackError(`${where} is a number, not a string`);
        if (token.text === '') return field.defaultValue ?? 0;
        if (!DOUBLE.test(token.text)) throw new QuerypackError(`${where} '${token.text}' is not a number`);
        return Number(token.text);
      case 'enum': {
        if (token.kind === 'string') throw new QuerypackError(`${where} is an enum index, not a string`);
        if (token.text === '') return field.defaultValue ?? null;
        const v = field.values![this.integer(token.text, where)];
        if (v === undefined) throw new QuerypackError(`${where} index ${token.text} is not one of its ${field.values!.length} values`);
        return v;
      }
      case 'timestampFirst':
      case 'timestampPrevious': {
        if (token.kind === 'string') throw new QuerypackError(`${where} is a timestamp, not a string`);
        const offset = token.text === '' ? 0 : this.integer(token.text, where);
        let at: number;
        if (field.kind === 'timestampFirst') {
          if (this.first === undefined) this.first = offset;
          else return this.setLast(this.first + offset);
          at = offset;
        } else {
          at = this.last + offset;
        }
        return this.setLast(at);
      }
      default:
        throw new QuerypackError(`${where} has no value`);
    }
  }

  private setLast(at: number): number {
    this.last = at;
    return at;
  }

  private integer(text: string, where: string): number {
    if (!BASE36.test(text)) throw new QuerypackError(`${where} '${text.slice(0, 40)}' is not a base-36 integer`);
    const n = parseInt(text, 36);
    if (!Number.isSafeInteger(n)) throw new QuerypackError(`${where} '${text.slice(0, 40)}' is out of range`);
    return n;
  }

  private stringAt(text: string, where: string): string {
    const s = this.strings[this.integer(text, where)];
    if (s === undefined) throw new QuerypackError(`${where} refers to string ${text}, which the payload has not defined`);
    return s;
  }
}

/** Decodes one querypack payload into its root nodes; a QuerypackError says what is wrong. */
export function decodeQuerypack(body: string): { readonly schema: string; readonly nodes: QpNode[] } {
  const semi = body.indexOf(';');
  const id = semi < 0 ? body : body.slice(0, semi);
  const types = SCHEMAS.get(id);
  if (!types) throw new QuerypackError(`schema '${id.slice(0, 40)}' is not one of ${QUERYPACK_SCHEMAS.join(', ')}`);
  if (semi < 0) return { schema: id, nodes: [] };
  return { schema: id, nodes: new Decoder(new Reader(body.slice(semi + 1)), types).roots() };
}

/** A node's attribute children (string, double, true, false, null attributes) as key → value. */
export function attributesOf(nodes: readonly QpNode[]): Record<string, QpValue> {
  const out: Record<string, QpValue> = {};
  for (const n of nodes) {
    const key = n.fields.key;
    if (typeof key !== 'string' || key === '') continue;
    switch (n.type) {
      case 'stringAttribute': case 'doubleAttribute': out[key] = n.fields.value ?? null; break;
      case 'trueAttribute': out[key] = true; break;
      case 'falseAttribute': out[key] = false; break;
      case 'nullAttribute': out[key] = null; break;
    }
  }
  return out;
}
