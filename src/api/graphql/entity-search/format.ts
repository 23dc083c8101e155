import type { FieldRef, SearchCondition, Value } from './ast.js';
import { isPlainTagKey } from './lexer.js';

/**
 * The canonical text of a condition: keywords upper case, fields in their canonical spelling,
 * single spaces, and only the parentheses the tree needs (AND binds tighter than OR, both are
 * left-associative). `parseEntitySearch` reads it back as the same tree.
 */
export function formatEntitySearch(condition: SearchCondition): string {
  switch (condition.kind) {
    case 'compare':
      return `${formatField(condition.field)} ${condition.op} ${formatValue(condition.value)}`;
    case 'in':
      return `${formatField(condition.field)} ${condition.negated ? 'NOT IN' : 'IN'} (${condition.values.map(formatValue).join(', ')})`;
    case 'like':
      return `${formatField(condition.field)} ${condition.negated ? 'NOT LIKE' : 'LIKE'} ${quoteString(condition.pattern)}`;
    case 'isNull':
      return `${formatField(condition.field)} IS ${condition.negated ? 'NOT NULL' : 'NULL'}`;
    case 'and':
      return `${operand(condition.left, condition.left.kind === 'or')} AND ${operand(condition.right, condition.right.kind === 'and' || condition.right.kind === 'or')}`;
    case 'or':
      return `${formatEntitySearch(condition.left)} OR ${operand(condition.right, condition.right.kind === 'or')}`;
    default: {
      const never: never = condition;
      return never;
    }
  }
}

export function formatField(field: FieldRef): string {
  return field.kind === 'field' ? field.name : formatTagField(field.key);
}

/** `tags.key`, or `` tags.`my key` `` when the key is not a plain dotted name (a backtick doubled). */
export function formatTagField(key: string): string {
  return isPlainTagKey(key) ? `tags.${key}` : `tags.\`${key.replaceAll('`', '``')}\``;
}

/** `'…'` with backslashes and quotes escaped by a backslash. */
export function quoteString(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

function formatValue(value: Value): string {
  switch (value.kind) {
    case 'string':
      return quoteString(value.value);
    // String(-0) is '0'; keep the sign so the text reads back as the same value.
    case 'number':
      return Object.is(value.value, -0) ? '-0' : String(value.value);
    case 'boolean':
      return String(value.value);
    default: {
      const never: never = value;
      return never;
    }
  }
}

function operand(condition: SearchCondition, parenthesize: boolean): string {
  const text = formatEntitySearch(condition);
  return parenthesize ? `(${text})` : text;
}
