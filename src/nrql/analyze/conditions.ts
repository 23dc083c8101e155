import { and, assertNever, field, type Literal, type Predicate, type ValueType } from '../../plan/expressions.js';
import type { Condition, Expr, Span } from '../ast.js';
import { NrqlError } from '../nrql-error.js';
import { invalid, NUMERIC_TEXT, type Bindings } from './bindings.js';

/** WHERE conditions (and `filter()`'s, FACET CASES'): NRQL conditions → plan predicates over the bindings. */
export class Conditions {
  constructor(private readonly b: Bindings) {}

  condition(c: Condition): Predicate {
    switch (c.kind) {
      case 'and': return and(this.condition(c.left), this.condition(c.right));
      case 'or': return { kind: 'or', items: [this.condition(c.left), this.condition(c.right)] };
      case 'not': return { kind: 'not', item: this.condition(c.operand) };
      case 'compare': {
        // Attribute on the left, literal on the right, so `5 < duration` reads as `duration > 5`.
        if (isLiteral(c.left) && !isLiteral(c.right)) return this.condition({ ...c, left: c.right, right: c.left, op: FLIPPED[c.op] });
        const dictionary = this.b.dictionaryOf(c.left);
        if (dictionary && isLiteral(c.right)) {
          const value = literalValue(c.right);
          if (c.op === '=' && value !== null && (dictionary.dictionary === 'metricName' || dictionary.dictionary === 'scopeName')) {
            // The common case (`metricTimesliceName = 'HttpDispatcher'`) without scanning the dictionary.
            const id = this.b.ctx.dictionaries.idOf(dictionary.dictionary, String(value), this.b.ctx.accountIds);
            return { kind: 'in', expr: this.b.dictionaryId(dictionary.idField, dictionary.dictionary), values: id === undefined ? [] : [id], negated: false };
          }
          return this.b.dictionaryPredicate(dictionary, (text) => compareText(text, c.op, value));
        }
        if (dictionary || this.b.dictionaryOf(c.right)) throw invalid('compare this attribute with a literal value', c.span);
        if (this.b.timeslices && this.b.isValue(c.left)) throw invalid('compare a field of the timeslice value, such as newrelic.timeslice.value[\'count\']', c.left.span);
        const value = isLiteral(c.right) ? literalValue(c.right) : undefined;
        let type: ValueType = isLiteral(c.right) ? literalType(c.right) : 'number';
        if (this.b.isNumericId(c.left) && typeof value === 'string' && NUMERIC_TEXT.test(value)) type = 'number';
        const left = this.b.row(c.left, type);
        if (left.decode) throw invalid('compare this attribute with a literal value', c.span);
        if (left.expr.kind === 'eventType' && value !== undefined) {
          // An event type is text: compared with a number it matches nothing, as text it compares as text.
          return { kind: 'compare', op: c.op, left: left.expr, right: { kind: 'literal', value: value === null ? null : String(value) } };
        }
        const right = this.b.row(c.right, type);
        if (right.decode) throw invalid('compare this attribute with a literal value', c.span);
        return { kind: 'compare', op: c.op, left: left.expr, right: this.b.looseId(left.expr, right.expr) };
      }
      case 'in': {
        const values = c.values.map((v) => {
          if (!isLiteral(v)) throw invalid('IN takes a list of literal values', v.span);
          return literalValue(v);
        });
        const dictionary = this.b.dictionaryOf(c.expr);
        if (dictionary) {
          const wanted = values.map(String);
          const p = this.b.dictionaryPredicate(dictionary, (text) => wanted.includes(text));
          return c.negated ? { kind: 'not', item: p } : p;
        }
        // One IN per kind of value, each compared as its kind (a number never equals text here).
        const numericId = this.b.isNumericId(c.expr);
        const byType = new Map<ValueType, Literal[]>();
        for (const v of values) {
          if (v === null) continue;
          const loose = numericId && typeof v === 'string' && NUMERIC_TEXT.test(v) ? Number(v) : v;
          const type: ValueType = typeof loose === 'number' ? 'number' : typeof loose === 'boolean' ? 'boolean' : 'string';
          byType.set(type, [...(byType.get(type) ?? []), loose]);
        }
        const parts: Predicate[] = [...byType].map(([type, list]) => {
          const expr = this.b.row(c.expr, type).expr;
          return { kind: 'in', expr, values: expr.kind === 'eventType' ? list.map(String) : list, negated: false };
        });
        if (parts.length === 0) return c.negated ? { kind: 'true' } : { kind: 'not', item: { kind: 'true' } };
        const positive: Predicate = parts.length === 1 ? parts[0]! : { kind: 'or', items: parts };
        // NOT IN keeps SQL's rule: a row without the attribute is in neither.
        return c.negated ? and({ kind: 'isNull', expr: this.b.row(c.expr, 'any').expr, negated: true }, { kind: 'not', item: positive }) : positive;
      }
      case 'like':
      case 'rlike': {
        // Every pattern is checked by the SQL engine's regex library (RE2) before the query runs.
        if (c.kind === 'rlike' && !this.patterns.has(c.pattern)) this.patterns.set(c.pattern, c.span);
        const dictionary = this.b.dictionaryOf(c.expr);
        if (dictionary) {
          const re = c.kind === 'like' ? likeRegex(c.pattern) : this.regex(c.pattern, c.span);
          const p = this.b.dictionaryPredicate(dictionary, (text) => re.test(text));
          return c.negated ? { kind: 'not', item: p } : p;
        }
        const r = this.b.row(c.expr, 'string');
        return c.kind === 'like'
          ? { kind: 'like', expr: r.expr, pattern: c.pattern, negated: c.negated }
          : { kind: 'regex', expr: r.expr, pattern: c.pattern, negated: c.negated };
      }
      case 'is': {
        if (this.b.timeslices && this.b.isValue(c.expr)) {
          // Every timeslice has a value: IS NOT NULL holds for all of them.
          return c.test === 'null' && c.negated ? { kind: 'true' } : { kind: 'not', item: { kind: 'true' } };
        }
        const dictionary = this.b.dictionaryOf(c.expr);
        if (dictionary && c.test === 'null') {
          // Only scope is ever absent on stored rows: id 0 means "no scope".
          const isNull: Predicate = dictionary.dictionary === 'scopeName'
            ? { kind: 'compare', op: '=', left: field(dictionary.idField), right: { kind: 'literal', value: 0 } }
            : { kind: 'not', item: { kind: 'true' } };
          return c.negated ? { kind: 'not', item: isNull } : isNull;
        }
        if (c.test === 'null') return { kind: 'isNull', expr: this.b.row(c.expr, 'any').expr, negated: c.negated };
        return { kind: 'isBoolean', expr: this.b.row(c.expr, 'boolean').expr, value: c.test === 'true', negated: c.negated };
      }
      default:
        return assertNever(c);
    }
  }

  /**
   * An RLIKE pattern for names matched here rather than in SQL (entity, metric and scope names).
   * RE2's leading `(?i)` becomes JavaScript's `i` flag; other RE2-only forms (`\pL`, `[[:alpha:]]`,
   * `(?P<name>…)`) are refused for these names rather than matched differently.
   */
  private regex(pattern: string, span: Span): RegExp {
    const insensitive = pattern.startsWith('(?i)');
    const body = insensitive ? pattern.slice(4) : pattern;
    try {
      return new RegExp(`^(?:${body})$`, insensitive ? 'iu' : 'u');
    } catch {
      throw new NrqlError('NRQL_UNSUPPORTED', `RLIKE on an application, host, metric or scope name takes the common regular expression forms; this pattern uses one that is not supported there: ${pattern}`, span);
    }
  }

  patternList(): { pattern: string; span: Span }[] {
    return [...this.patterns].map(([pattern, span]) => ({ pattern, span }));
  }

  /** RLIKE patterns of the query, for the engine to check before running it. */
  readonly patterns = new Map<string, Span>();
}

const FLIPPED = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const;

function isLiteral(expr: Expr): expr is Extract<Expr, { kind: 'number' | 'string' | 'boolean' | 'null' }> {
  return expr.kind === 'number' || expr.kind === 'string' || expr.kind === 'boolean' || expr.kind === 'null'
    || (expr.kind === 'negate' && expr.operand.kind === 'number');
}

function literalValue(expr: Expr): Literal | null {
  switch (expr.kind) {
    case 'number': case 'string': case 'boolean': return expr.value;
    case 'negate': return expr.operand.kind === 'number' ? -expr.operand.value : null;
    default: return null;
  }
}

function literalType(expr: Expr): ValueType {
  const v = literalValue(expr);
  return typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : 'string';
}

/** A comparison of dictionary text with a literal: as text, numbers compared as their decimal text. */
function compareText(text: string, op: keyof typeof FLIPPED, value: Literal | null): boolean {
  if (value === null) return false;
  const v = String(value);
  switch (op) {
    case '=': return text === v;
    case '!=': return text !== v;
    case '<': return text < v;
    case '<=': return text <= v;
    case '>': return text > v;
    case '>=': return text >= v;
    default: return assertNever(op);
  }
}

/** NRQL LIKE as a JavaScript regex: case-insensitive, `%` any run of characters, all else literal. */
export function likeRegex(pattern: string): RegExp {
  const body = pattern.split('%').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*');
  return new RegExp(`^${body}$`, 'iu');
}

