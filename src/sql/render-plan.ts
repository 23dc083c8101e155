import type { AggregatePlan } from '../plan/aggregate-plan.js';
import { assertNever, type Predicate, type RowExpr } from '../plan/expressions.js';
import type { Dialect, RenderedSql, SqlParam } from './dialect.js';
import { physicalSource, type PhysicalSource } from './sources.js';

/** Result columns of a rendered aggregate plan, in order. */
export const GROUP_COLUMN = (i: number) => `g${i}`;
export const BUCKET_COLUMN = 'bucket';
export const AGGREGATE_COLUMN = (i: number) => `a${i}`;

/**
 * Renders the SQL part of an aggregate plan: filter, group, primitive aggregates. Outputs are
 * not SQL: they are evaluated over the aggregates by the shape stage. Every value is a
 * parameter; identifiers come from the source mapping and are quoted by the dialect.
 */
export function renderAggregatePlan(plan: AggregatePlan, dialect: Dialect): RenderedSql {
  const source = physicalSource(plan.source);
  const params: SqlParam[] = [];
  const bind = (value: SqlParam): string => {
    params.push(value);
    return dialect.placeholder(params.length);
  };
  const q = (name: string) => dialect.quoteIdentifier(name);
  const time = q(source.timeColumn);

  const select: string[] = [];
  const groupKeys: string[] = [];
  plan.groupBy.forEach((expr, i) => {
    select.push(`${renderRow(expr, source, dialect, bind)} AS ${q(GROUP_COLUMN(i))}`);
    groupKeys.push(q(GROUP_COLUMN(i)));
  });
  if (plan.buckets) {
    const bucket = dialect.bucketIndex(time, bind(plan.buckets.beginMs), bind(plan.buckets.widthMs));
    select.push(`${bucket} AS ${q(BUCKET_COLUMN)}`);
    groupKeys.push(q(BUCKET_COLUMN));
  }
  plan.aggregates.forEach((call, i) => {
    const arg = call.arg ? renderRow(call.arg, source, dialect, bind) : undefined;
    const where = call.where ? renderPredicate(call.where, source, dialect, bind) : undefined;
    select.push(`${dialect.aggregate(call.fn, arg, where)} AS ${q(AGGREGATE_COLUMN(i))}`);
  });

  const conditions = [
    `${q(source.accountColumn)} = ${bind(plan.accountId)}`,
    `${time} >= ${bind({ timestampMs: plan.window.beginMs })}`,
    `${time} < ${bind({ timestampMs: plan.window.endMs })}`,
  ];
  if (plan.where.kind !== 'true') conditions.push(renderPredicate(plan.where, source, dialect, bind));

  // Several tables: each is filtered inside the union, so each prunes by its own zone maps; the
  // numbered placeholders serve every branch.
  const where = `WHERE ${conditions.join(' AND ')}`;
  const from = source.tables.length === 1
    ? `FROM ${q(source.tables[0]!)}\n${where}`
    : `FROM (${source.tables.map((t) => `SELECT * FROM ${q(t)} ${where}`).join(' UNION ALL ')}) AS ${q('source')}`;
  const lines = [`SELECT ${select.join(', ')}`, from];
  if (groupKeys.length > 0) {
    lines.push(`GROUP BY ${groupKeys.join(', ')}`);
    lines.push(`ORDER BY ${groupKeys.join(', ')}`);
  }
  return { sql: lines.join('\n'), params };
}

type Bind = (value: SqlParam) => string;

function column(name: string, source: PhysicalSource, dialect: Dialect): string {
  const physical = source.columns[name];
  if (physical === undefined) throw new Error(`the ${source.tables.join('+')} source has no field '${name}'`);
  return dialect.quoteIdentifier(physical);
}

function renderRow(expr: RowExpr, source: PhysicalSource, dialect: Dialect, bind: Bind): string {
  switch (expr.kind) {
    case 'field':
      return column(expr.name, source, dialect);
    case 'literal':
      return expr.value === null ? 'NULL' : bind(expr.value);
    case 'arith': {
      const left = renderRow(expr.left, source, dialect, bind);
      const right = renderRow(expr.right, source, dialect, bind);
      return expr.op === '/' ? dialect.divide(left, right) : `(${left} ${expr.op} ${right})`;
    }
    default:
      return assertNever(expr);
  }
}

function renderPredicate(p: Predicate, source: PhysicalSource, dialect: Dialect, bind: Bind): string {
  switch (p.kind) {
    case 'true':
      return 'TRUE';
    case 'compare':
      return `${renderRow(p.left, source, dialect, bind)} ${p.op === '!=' ? '<>' : p.op} ${renderRow(p.right, source, dialect, bind)}`;
    case 'in': {
      if (p.values.length === 0) return p.negated ? 'TRUE' : 'FALSE';
      const list = p.values.map((v) => bind(v)).join(', ');
      return `${renderRow(p.expr, source, dialect, bind)} ${p.negated ? 'NOT IN' : 'IN'} (${list})`;
    }
    case 'isNull':
      return `${renderRow(p.expr, source, dialect, bind)} IS ${p.negated ? 'NOT ' : ''}NULL`;
    case 'and':
    case 'or':
      return `(${p.items.map((item) => renderPredicate(item, source, dialect, bind)).join(p.kind === 'and' ? ' AND ' : ' OR ')})`;
    case 'not':
      return `NOT (${renderPredicate(p.item, source, dialect, bind)})`;
    default:
      return assertNever(p);
  }
}
