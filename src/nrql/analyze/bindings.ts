import { assertNever, field, rowArith, type Literal, type Predicate, type RowExpr, type ValueType } from '../../plan/expressions.js';
import { TIMESLICE_VALUE, TIMESLICE_VALUE_FIELDS, type TimesliceValueField } from '../../domain/aggregate/timeslice-value.js';
import { EVENT_ID_FIELDS } from '../../plan/data-model.js';
import type { Expr, Span } from '../ast.js';
import { SHARED_TEXT_DICTIONARIES, sharedTextIds, type DictionaryName } from '../dictionaries.js';
import { DIMENSIONS } from '../dimensional-metrics.js';
import { formatExpr } from '../format.js';
import { AGGREGATE_FUNCTIONS, KNOWN_FUNCTION_NAMES, UNSUPPORTED_FUNCTIONS, type ResolvedRow } from '../functions.js';
import { closestMatch, NrqlError } from '../nrql-error.js';
import type { AnalyzeContext } from './analyzed-query.js';

/*
 * Bindings: what an attribute name means for the rows a query reads (a typed field, a catalog id
 * shown through a dictionary, the timeslice value, nothing), and row-level expressions resolved
 * against them.
 */

/** The spec's name for the timeslice value; New Relic's is `newrelic.timeslice.value`. */
export const SPEC_TIMESLICE_VALUE = 'service.timeslice.value';
/** The most names a dictionary attribute may have to be looked up inside SQL. */
const MAX_LOOKUP_ENTRIES = 10_000;

/**
 * Attributes of `Metric` timeslices: where each lives in the timeslice source. Everything else
 * a Metric query names does not exist on timeslices and reads as null.
 */
export type Binding =
  | { readonly kind: 'field'; readonly name: string; readonly numericId?: boolean }
  | { readonly kind: 'dictionary'; readonly idField: string; readonly dictionary: DictionaryName }
  /** An entity attribute of custom events: the event's own attribute, else the catalog's (when it has an id). */
  | { readonly kind: 'ownOrCatalog'; readonly name: string; readonly catalog: Binding }
  | { readonly kind: 'value' }
  | { readonly kind: 'missing' };

const METRIC_ATTRIBUTES: Readonly<Record<string, Binding>> = {
  appId: { kind: 'field', name: 'appId', numericId: true },
  appName: { kind: 'dictionary', idField: 'appId', dictionary: 'appName' },
  'entity.name': { kind: 'dictionary', idField: 'appId', dictionary: 'appName' },
  'entity.guid': { kind: 'dictionary', idField: 'appId', dictionary: 'entityGuid' },
  host: { kind: 'dictionary', idField: 'hostId', dictionary: 'hostName' },
  realAgentId: { kind: 'field', name: 'instanceId', numericId: true },
  metricTimesliceName: { kind: 'dictionary', idField: 'metricId', dictionary: 'metricName' },
  scope: { kind: 'dictionary', idField: 'scopeId', dictionary: 'scopeName' },
  [TIMESLICE_VALUE]: { kind: 'value' },
  [SPEC_TIMESLICE_VALUE]: { kind: 'value' },
  timestamp: { kind: 'field', name: 'timestamp' },
};

/** Attributes agent events carry as catalog ids (New Relic adds them to every event of an entity). */
const AGENT_EVENT_ATTRIBUTES: Readonly<Record<string, Binding>> = {
  appId: { kind: 'field', name: EVENT_ID_FIELDS.appId, numericId: true },
  appName: { kind: 'dictionary', idField: EVENT_ID_FIELDS.appId, dictionary: 'appName' },
  'entity.name': { kind: 'dictionary', idField: EVENT_ID_FIELDS.appId, dictionary: 'appName' },
  'entity.guid': { kind: 'dictionary', idField: EVENT_ID_FIELDS.appId, dictionary: 'entityGuid' },
  host: { kind: 'dictionary', idField: EVENT_ID_FIELDS.hostId, dictionary: 'hostName' },
  realAgentId: { kind: 'field', name: EVENT_ID_FIELDS.instanceId, numericId: true },
};

export const invalid = (message: string, span: Span) => new NrqlError('NRQL_INVALID_EXPRESSION', message, span);

export function unknownFunction(name: string, span: Span): NrqlError {
  if ((UNSUPPORTED_FUNCTIONS as readonly string[]).some((f) => f.toLowerCase() === name.toLowerCase())) {
    return new NrqlError('NRQL_UNSUPPORTED', `${name}() is not supported by Timeslice's NRQL subset`, span);
  }
  const suggestion = closestMatch(name, KNOWN_FUNCTION_NAMES);
  return new NrqlError('NRQL_UNKNOWN_FUNCTION', `unknown function ${name}()${suggestion ? `; did you mean ${suggestion}()?` : ''}`, span, suggestion);
}

/** A dictionary attribute: the dictionary and the id field its names are kept as. */
export interface DictionaryAttribute {
  readonly dictionary: DictionaryName;
  readonly idField: string;
}

/** The attributes of the rows one query reads. */
export class Bindings {
  constructor(
    readonly ctx: AnalyzeContext,
    /** FROM Metric: the timeslice source. */
    readonly timeslices: boolean,
    /** Agent events only: entity attributes are catalog ids (custom events carry their own). */
    private readonly catalogAttributes: boolean,
    /** A formula over every custom event at once: `eventType()` is the row's own column. */
    private readonly allCustomEvents = false,
  ) {}

  binding(name: string): Binding {
    if (this.timeslices) return METRIC_ATTRIBUTES[name] ?? { kind: 'missing' };
    const catalog = AGENT_EVENT_ATTRIBUTES[name];
    if (!catalog) return { kind: 'field', name };
    // Custom events (the Event API's name their appName…; an agent's have them from the catalog)
    // and FROM lists mixing them with agent events: the event's own attribute, else the catalog's.
    return this.catalogAttributes ? catalog : { kind: 'ownOrCatalog', name, catalog };
  }

  /** The event's own attribute, else the catalog's value for its id, as one SQL expression. */
  ownOrCatalog(b: Extract<Binding, { kind: 'ownOrCatalog' }>, type: ValueType): RowExpr {
    const own: RowExpr = { kind: 'field', name: b.name, type };
    const catalog = b.catalog;
    let fallback: RowExpr;
    if (catalog.kind === 'field') {
      // A number (appId, realAgentId); the stored id is 0 on Event API events, where there is none.
      if (type === 'boolean') return own;
      const as: ValueType = type === 'any' ? 'number' : type;
      const id: RowExpr = { kind: 'field', name: catalog.name, type: as };
      const known: RowExpr = { kind: 'cases', cases: [{ when: { kind: 'compare', op: '!=', left: field(catalog.name), right: { kind: 'literal', value: 0 } }, then: id }] };
      return { kind: 'coalesce', items: [{ ...own, type: as }, known] };
    } else if (catalog.kind === 'dictionary') {
      if (type === 'number' || type === 'boolean') return own;
      const entries = [...this.ctx.dictionaries.entries(catalog.dictionary, this.ctx.accountIds)];
      if (entries.length > MAX_LOOKUP_ENTRIES) return own;
      // Shown as JSON text where values are (row listings, latest…), so the names parse like the attribute's.
      fallback = type === 'json'
        ? { kind: 'lookup', expr: field(catalog.idField), entries: entries.map(([id, text]) => [id, JSON.stringify(text)] as const), json: true }
        : { kind: 'lookup', expr: field(catalog.idField), entries };
    } else {
      return own;
    }
    return { kind: 'coalesce', items: [own, fallback] };
  }

  valuePart(expr: Expr): TimesliceValueField | undefined {
    let target: Expr | undefined;
    let fieldName: string | undefined;
    let span = expr.span;
    if (expr.kind === 'fieldAccess') {
      target = expr.target;
      fieldName = expr.field;
    } else if (expr.kind === 'call' && expr.name.toLowerCase() === 'getfield') {
      const [t, f] = expr.args;
      if (expr.args.length !== 2 || !t || t.kind === 'whereArg' || t.kind === 'namedArg' || !f || f.kind !== 'string') {
        throw new NrqlError('NRQL_BAD_ARGUMENTS', "getField() takes a compound attribute and a field name: getField(newrelic.timeslice.value, 'count')", expr.span);
      }
      target = t;
      fieldName = f.value;
      span = f.span;
    }
    if (target === undefined || fieldName === undefined) return undefined;
    if (!(this.timeslices && target.kind === 'attribute' && METRIC_ATTRIBUTES[target.name]?.kind === 'value')) {
      throw invalid('only the timeslice value has fields (newrelic.timeslice.value[\'count\'])', target.span);
    }
    if (!(TIMESLICE_VALUE_FIELDS as readonly string[]).includes(fieldName)) {
      const suggestion = closestMatch(fieldName, TIMESLICE_VALUE_FIELDS);
      throw new NrqlError('NRQL_INVALID_EXPRESSION', `a timeslice value has no field '${fieldName}' (it has ${TIMESLICE_VALUE_FIELDS.join(', ')})${suggestion ? `; did you mean '${suggestion}'?` : ''}`, span, suggestion);
    }
    return fieldName as TimesliceValueField;
  }

  row(expr: Expr, type: ValueType): ResolvedRow {
    switch (expr.kind) {
      case 'number': case 'string': case 'boolean':
        return { expr: { kind: 'literal', value: literalAs(expr.value, type) } };
      case 'null':
        return { expr: { kind: 'literal', value: null } };
      case 'attribute': {
        const dimension = this.timeslices ? DIMENSIONS.get(expr.name) : undefined;
        if (dimension) return { expr: this.dimension(expr.name, dimension, type, expr.span) };
        const b = this.binding(expr.name);
        switch (b.kind) {
          // Ids are numbers, compared as text only with text (`appId LIKE '1%'`, `appId = 'x'`).
          case 'field': return { expr: { kind: 'field', name: b.name, type: b.numericId && type !== 'string' && type !== 'json' ? 'number' : type } };
          // A name is text: as a number it is null (as any text attribute is), never its id.
          case 'dictionary':
            if (type === 'number' || type === 'boolean') return { expr: { kind: 'literal', value: null } };
            return { expr: this.textId(b.idField, b.dictionary), decode: b.dictionary };
          case 'value': throw invalid(`${expr.name} is a summary of many calls; aggregate it (count, average…) or take a field: ${expr.name}['count']`, expr.span);
          case 'missing': return { expr: { kind: 'literal', value: null } };
          case 'ownOrCatalog': return { expr: this.ownOrCatalog(b, type) };
          default: return assertNever(b);
        }
      }
      case 'fieldAccess':
        return { expr: field(this.valuePart(expr)!) };
      case 'negate':
        return { expr: asType(rowArith('*', { kind: 'literal', value: -1 }, this.numeric(expr.operand)), type) };
      case 'arithmetic':
        return { expr: asType(rowArith(expr.op, this.numeric(expr.left), this.numeric(expr.right)), type) };
      case 'coalesce': {
        const left = this.row(expr.left, type);
        const right = this.row(expr.right, type);
        if (left.decode || right.decode) throw invalid('OR between attributes takes attributes stored as text or numbers', expr.span);
        // SQL's COALESCE wants one type: numbers and booleans are made so by `type`; text and shown
        // values are cast (JSON text where values are shown, so each parses as what it is).
        const uniform = (e: RowExpr): RowExpr => {
          if (type === 'json') return jsonText(e) ? e : { kind: 'cast', expr: e, to: 'json' };
          if (type === 'string' || type === 'any') return { kind: 'cast', expr: e, to: 'string' };
          return e;
        };
        return { expr: { kind: 'coalesce', items: [uniform(left.expr), uniform(right.expr)] } };
      }
      case 'call': {
        const name = expr.name.toLowerCase();
        if (name === 'eventtype') {
          if (expr.args.length > 0) throw new NrqlError('NRQL_BAD_ARGUMENTS', 'eventType() takes no arguments', expr.span);
          // Text: as a number or a boolean it is null.
          if (type === 'number' || type === 'boolean') return { expr: { kind: 'literal', value: null } };
          // Read from every custom event at once, the type is the row's own column.
          return { expr: this.allCustomEvents ? { kind: 'field', name: 'eventType', type: 'string' } : { kind: 'eventType' } };
        }
        if (name === 'getfield') return { expr: field(this.valuePart(expr)!) };
        if (AGGREGATE_FUNCTIONS.has(name)) throw invalid(`the aggregate ${expr.name}() cannot be used here`, expr.span);
        throw unknownFunction(expr.name, expr.span);
      }
      case 'star':
        throw invalid('* is only a SELECT item or the argument of count()', expr.span);
      case 'interval':
        throw invalid('a time interval is only an argument of rate()', expr.span);
      default:
        return assertNever(expr);
    }
  }

  numeric(expr: Expr): RowExpr {
    const r = this.row(expr, 'number');
    if (r.decode) throw invalid(`${formatExpr(expr)} is text, not a number`, expr.span);
    return r.expr;
  }

  isNumericId(expr: Expr): boolean {
    if (expr.kind !== 'attribute') return false;
    const b = this.binding(expr.name);
    return b.kind === 'field' && b.numericId === true;
  }

  /**
   * The id column of a dictionary attribute, as a row expression. Scope id 0 stands for "no scope":
   * it reads as null, so `count(scope)` counts scoped rows and `NOT scope = 'x'` skips unscoped ones.
   */
  dictionaryId(idField: string, dictionary: DictionaryName): RowExpr {
    if (dictionary !== 'scopeName') return field(idField);
    return { kind: 'cases', cases: [{ when: { kind: 'compare', op: '!=', left: field(idField), right: { kind: 'literal', value: 0 } }, then: field(idField) }] };
  }

  /**
   * The id of a dictionary attribute as NRQL counts and groups it: ids sharing their text (one host
   * name under two applications) read as the smallest of them, so `uniqueCount(host)` and `FACET
   * host` see the name once. Conditions need no folding: they match every id of a text.
   */
  textId(idField: string, dictionary: DictionaryName): RowExpr {
    const id = this.dictionaryId(idField, dictionary);
    if (!SHARED_TEXT_DICTIONARIES.has(dictionary)) return id;
    const shared = sharedTextIds(this.ctx.dictionaries.entries(dictionary, this.ctx.accountIds));
    if (shared.length === 0) return id;
    const cases = shared.map(([first, others]) => ({
      when: { kind: 'in', expr: field(idField), values: others, negated: false } as Predicate,
      then: { kind: 'literal', value: first } as RowExpr,
    }));
    return { kind: 'cases', cases, otherwise: id };
  }

  /**
   * A dimension of `apm.service.*` points on FROM Metric (`transactionType`, `transactionName`,
   * `external.host`, `datastoreType`): read from the timeslice's metric name (dimensional-metrics.ts), else null.
   */
  dimension(name: string, of: (metricName: string) => string | undefined, type: ValueType, span: Span): RowExpr {
    if (type === 'number' || type === 'boolean') return { kind: 'literal', value: null };
    const entries: [number, string][] = [];
    for (const [id, metricName] of this.ctx.dictionaries.entries('metricName', this.ctx.accountIds)) {
      const kind = of(metricName);
      if (kind) entries.push([id, type === 'json' ? JSON.stringify(kind) : kind]);
    }
    if (entries.length > MAX_LOOKUP_ENTRIES) {
      throw new NrqlError('NRQL_UNSUPPORTED', `${name} is read from the metric names, and more than ${MAX_LOOKUP_ENTRIES} of these accounts' metric names carry it: too many to look up`, span);
    }
    return { kind: 'lookup', expr: field('metricId'), entries, ...(type === 'json' ? { json: true } : {}) };
  }

  isValue(expr: Expr): boolean {
    return expr.kind === 'attribute' && this.binding(expr.name).kind === 'value';
  }

  dictionaryOf(expr: Expr): DictionaryAttribute | undefined {
    if (expr.kind !== 'attribute') return undefined;
    const b = this.binding(expr.name);
    return b.kind === 'dictionary' ? { dictionary: b.dictionary, idField: b.idField } : undefined;
  }

  /** A dictionary attribute as its text, looked up in SQL (application and host names: small dictionaries). */
  lookup(resolved: ResolvedRow, span: Span): RowExpr {
    const entries = [...this.ctx.dictionaries.entries(resolved.decode!, this.ctx.accountIds)];
    if (entries.length > MAX_LOOKUP_ENTRIES) {
      throw new NrqlError('NRQL_UNSUPPORTED', `this attribute has more than ${MAX_LOOKUP_ENTRIES} values; FACET CASES … OR cannot list it, FACET by it directly`, span);
    }
    return { kind: 'lookup', expr: resolved.expr, entries };
  }

  /** A condition on a dictionary attribute, as the set of ids whose text passes `test`. */
  dictionaryPredicate(d: DictionaryAttribute, test: (text: string) => boolean): Predicate {
    const ids: number[] = [];
    for (const [id, text] of this.ctx.dictionaries.entries(d.dictionary, this.ctx.accountIds)) if (test(text)) ids.push(id);
    return { kind: 'in', expr: this.dictionaryId(d.idField, d.dictionary), values: ids, negated: false };
  }

  /** Ids compare loosely: `appId = '77'` is `appId = 77`. */
  looseId(left: RowExpr, right: RowExpr): RowExpr {
    if (left.kind === 'field' && left.type === 'number' && right.kind === 'literal' && typeof right.value === 'string' && NUMERIC_TEXT.test(right.value)) {
      return { kind: 'literal', value: Number(right.value) };
    }
    return right;
  }
}

/** Whether a row expression's values are JSON text (attributes read for showing, and OR-chains of them). */
export function jsonText(expr: RowExpr): boolean {
  switch (expr.kind) {
    case 'field': return expr.type === 'json';
    case 'lookup': return expr.json === true;
    case 'cast': return expr.to === 'json';
    case 'coalesce': return expr.items.every(jsonText);
    case 'cases': return expr.cases.every((c) => jsonText(c.then)) && (expr.otherwise === undefined || jsonText(expr.otherwise));
    default: return false;
  }
}

/** A number computed per row, as a use wants it: text compares its decimal text; it is no boolean. */
function asType(number: RowExpr, type: ValueType): RowExpr {
  if (type === 'string') return { kind: 'cast', expr: number, to: 'string' };
  if (type === 'boolean') return { kind: 'literal', value: null };
  return number;
}

/**
 * A literal as a use wants it: text in arithmetic is null unless it reads as a number, a number
 * compared as text is its decimal text, booleans are only booleans or the text true/false.
 */
function literalAs(value: Literal, type: ValueType): Literal | null {
  switch (type) {
    case 'number':
      return typeof value === 'number' ? value : typeof value === 'string' && NUMERIC_TEXT.test(value) ? Number(value) : null;
    case 'string':
      return String(value);
    case 'boolean':
      return typeof value === 'boolean' ? value : typeof value === 'string' && /^(true|false)$/i.test(value) ? value.toLowerCase() === 'true' : null;
    default:
      return value;
  }
}

/** Text that reads as a number: ids compare loosely (`appId = '77'`). */
export const NUMERIC_TEXT = /^-?\d+(\.\d+)?$/;

