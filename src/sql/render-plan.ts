import type { AggregatePlan, RankExpr, RowsPlan, TopGroups } from '../plan/aggregate-plan.js';
import { assertNever, type Predicate, type RowExpr, type ValueType } from '../plan/expressions.js';
import type { Dialect, RenderedSql, SqlParam } from './dialect.js';
import type { PhysicalSchema, PhysicalSource, SourceBranch } from './physical-schema.js';

/** Result columns of a rendered aggregate plan, in order. */
export const GROUP_COLUMN = (i: number) => `g${i}`;
export const BUCKET_COLUMN = 'bucket';
export const AGGREGATE_COLUMN = (i: number) => `a${i}`;
/** Result columns of a rendered rows plan: time first, then the wanted columns or the row's parts. */
export const ROW_TIME_COLUMN = '__time';
export const ROW_TYPE_COLUMN = '__type';
export const ROW_TYPED_COLUMN = '__typed';
export const ROW_MAP_COLUMN = (i: number) => `__map${i}`;
export const ROW_VALUE_COLUMN = (i: number) => `c${i}`;

type Bind = (value: SqlParam) => string;

/** How row expressions reach their data in one SQL scope. */
interface Scope {
  readonly dialect: Dialect;
  readonly bind: Bind;
  field(name: string, type: ValueType): string;
  eventType(): string;
  readonly timeSql: string;
}

/**
 * Renders the SQL part of an aggregate plan: filter, group, primitive aggregates. Outputs are
 * not SQL: they are evaluated over the aggregates by the shape stage. Every value is a
 * parameter; identifiers come from the source mapping and are quoted by the dialect.
 */
export function renderAggregatePlan(plan: AggregatePlan, dialect: Dialect, schema: PhysicalSchema): RenderedSql {
  const { params, bind } = binder(dialect);
  const q = (name: string) => dialect.quoteIdentifier(name);
  const leaves = [
    ...plan.groupBy,
    ...plan.aggregates.flatMap((call) => [...(call.arg ? [call.arg] : []), ...(call.where ? predicateExprs(call.where) : [])]),
  ];
  const { from, scope } = renderFrom(plan, schema.source(plan.source), leaves, dialect, bind);

  const select: string[] = [];
  const groupKeys: string[] = [];
  plan.groupBy.forEach((expr, i) => {
    select.push(`${renderRow(expr, scope)} AS ${q(GROUP_COLUMN(i))}`);
    groupKeys.push(q(GROUP_COLUMN(i)));
  });
  if (plan.buckets) {
    const bucket = dialect.bucketIndex(scope.timeSql, bind(plan.buckets.beginMs), bind(plan.buckets.widthMs));
    select.push(`${bucket} AS ${q(BUCKET_COLUMN)}`);
    groupKeys.push(q(BUCKET_COLUMN));
  }
  plan.aggregates.forEach((call, i) => {
    const arg = call.arg ? renderRow(call.arg, scope) : undefined;
    const where = call.where ? renderPredicate(call.where, scope) : undefined;
    const fractionsSql = call.fractions ? bind({ doubles: call.fractions }) : undefined;
    const fractions = call.fractions ? { fractionsSql: fractionsSql!, fractions: call.fractions } : {};
    select.push(`${dialect.aggregate(call.fn, arg, where, { timeSql: scope.timeSql, ...fractions })} AS ${q(AGGREGATE_COLUMN(i))}`);
  });

  const lines = [`SELECT ${select.join(', ')}`, from()];
  if (groupKeys.length > 0) {
    lines.push(`GROUP BY ${groupKeys.join(', ')}`);
    if (!plan.top) lines.push(`ORDER BY ${groupKeys.join(', ')}`);
  }
  if (plan.top && plan.groupBy.length > 0) return { sql: topGroups(lines.join('\n'), plan, plan.top, dialect, bind), params };
  return { sql: lines.join('\n'), params };
}

/** The grouped rows of `inner` that rank within `top.limit` (see `TopGroups`), in the same columns. */
function topGroups(inner: string, plan: AggregatePlan, top: TopGroups, dialect: Dialect, bind: Bind): string {
  const q = (name: string) => dialect.quoteIdentifier(name);
  const columns = [...plan.groupBy.map((_, i) => q(GROUP_COLUMN(i))), ...(plan.buckets ? [q(BUCKET_COLUMN)] : []), ...plan.aggregates.map((_, i) => q(AGGREGATE_COLUMN(i)))];
  const rank = (e: RankExpr): string => {
    switch (e.kind) {
      case 'aggregate': return q(AGGREGATE_COLUMN(e.index));
      case 'item': return `${q(AGGREGATE_COLUMN(e.index))}[${e.item + 1}]`;
      case 'zeroIfNull': return `coalesce(${rank(e.arg)}, 0)`;
      default: return assertNever(e);
    }
  };
  const unlisted = [
    ...plan.groupBy.map((_, i) => `${q(GROUP_COLUMN(i))} IS NULL`),
    ...(top.presence !== undefined ? [`coalesce(${q(AGGREGATE_COLUMN(top.presence))}, 0) <= 0`] : []),
  ].join(' OR ');
  const place = q('__place');
  return [
    `SELECT ${columns.join(', ')} FROM (`,
    `SELECT *, rank() OVER (ORDER BY CASE WHEN ${unlisted} THEN 1 ELSE 0 END, ${rank(top.by)} DESC NULLS LAST) AS ${place} FROM (`,
    inner,
    `) AS ${q('grouped')}) AS ${q('ranked')}`,
    `WHERE ${place} <= ${bind(top.limit)}`,
  ].join('\n');
}

/**
 * Renders a rows plan: the newest rows first unless ordered otherwise. Columns: the row's time,
 * then with `all` its event type, typed columns as a JSON object and its attribute maps (the
 * executor merges them into one attribute object per row), then the wanted `columns`.
 */
export function renderRowsPlan(plan: RowsPlan, dialect: Dialect, schema: PhysicalSchema): RenderedSql {
  const { params, bind } = binder(dialect);
  const q = (name: string) => dialect.quoteIdentifier(name);
  const source = schema.source(plan.source);
  const orderLeaves = plan.orderBy.map((o) => o.expr);
  let select: string[];
  let from: string;
  let scope: Scope;
  if (plan.all) {
    const mapCount = rowMapCount(plan, schema);
    const parts = (branch: SourceBranch, s: Scope) => [
      `${dialect.epochMs(q(branch.timeColumn))} AS ${q(ROW_TIME_COLUMN)}`,
      `${bind(branch.eventType)} AS ${q(ROW_TYPE_COLUMN)}`,
      `${dialect.jsonObject(Object.entries(branch.typed).map(([name, column]) => [bind(name), q(column.column)] as const))} AS ${q(ROW_TYPED_COLUMN)}`,
      ...Array.from({ length: mapCount }, (_, i) => `${branch.attributeMaps[i] ? q(branch.attributeMaps[i]!) : 'NULL'} AS ${q(ROW_MAP_COLUMN(i))}`),
      ...plan.columns.map((e, i) => `${renderRow(e, s)} AS ${q(ROW_VALUE_COLUMN(i))}`),
      ...orderLeaves.map((e, i) => `${renderRow(e, s)} AS ${q(`o${i}`)}`),
    ];
    const branches = source.branches.map((branch) => {
      const s = branchScope(branch, dialect, bind);
      return `SELECT ${parts(branch, s).join(', ')} FROM ${q(branch.table)} WHERE ${branchConditions(plan, branch, s).join(' AND ')}`;
    });
    from = `FROM (${branches.join(' UNION ALL ')}) AS ${q('source')}`;
    select = [
      q(ROW_TIME_COLUMN), q(ROW_TYPE_COLUMN), q(ROW_TYPED_COLUMN), ...Array.from({ length: mapCount }, (_, i) => q(ROW_MAP_COLUMN(i))),
      ...plan.columns.map((_e, i) => q(ROW_VALUE_COLUMN(i))),
    ];
    scope = projectedScope(dialect, bind, [], () => '');
  } else {
    const rendered = renderFrom(plan, source, [...plan.columns, ...orderLeaves], dialect, bind);
    scope = rendered.scope;
    const s = scope;
    select = [`${dialect.epochMs(s.timeSql)} AS ${q(ROW_TIME_COLUMN)}`, ...plan.columns.map((e, i) => `${renderRow(e, s)} AS ${q(ROW_VALUE_COLUMN(i))}`)];
    from = rendered.from();
  }
  // With `all`, each branch computed the order expressions as o0, o1….
  const orderSql = (o: RowsPlan['orderBy'][number], i: number) => (plan.all ? q(`o${i}`) : renderRow(o.expr, scope));
  const order = plan.orderBy.length > 0
    ? plan.orderBy.map((o, i) => `${orderSql(o, i)} ${o.descending ? 'DESC' : 'ASC'} NULLS LAST`)
    : [`${plan.all ? q(ROW_TIME_COLUMN) : scope.timeSql} DESC`];
  return {
    sql: [`SELECT ${select.join(', ')}`, from, `ORDER BY ${order.join(', ')}`, `LIMIT ${bind(plan.limit)} OFFSET ${bind(plan.offset)}`].join('\n'),
    params,
  };
}

/** How many attribute-map columns a rows plan with `all` returns (the most any of its branches has). */
export function rowMapCount(plan: RowsPlan, schema: PhysicalSchema): number {
  return Math.max(0, ...schema.source(plan.source).branches.map((b) => b.attributeMaps.length));
}

function binder(dialect: Dialect): { params: SqlParam[]; bind: Bind } {
  const params: SqlParam[] = [];
  return {
    params,
    bind: (value) => {
      params.push(value);
      return dialect.placeholder(params.length, value);
    },
  };
}

interface Filtered {
  readonly accountId: number | readonly number[];
  readonly window: { readonly beginMs: number; readonly endMs: number };
  readonly where: Predicate;
}

function branchConditions(plan: Filtered, branch: SourceBranch, scope: Scope): string[] {
  const { dialect, bind } = scope;
  const q = (name: string) => dialect.quoteIdentifier(name);
  const time = q(branch.timeColumn);
  const accounts = typeof plan.accountId === 'number' ? [plan.accountId] : plan.accountId;
  const conditions = [
    accounts.length === 1 ? `${q(branch.accountColumn)} = ${bind(accounts[0]!)}` : `${q(branch.accountColumn)} IN (${accounts.map((a) => bind(a)).join(', ')})`,
    `${time} >= ${bind({ timestampMs: plan.window.beginMs })}`,
    `${time} < ${bind({ timestampMs: plan.window.endMs })}`,
  ];
  if (branch.timeRange) {
    const { beginMs, endMs, inside } = branch.timeRange;
    conditions.push(inside
      ? `${time} >= ${bind({ timestampMs: beginMs })} AND ${time} < ${bind({ timestampMs: endMs })}`
      : `(${time} < ${bind({ timestampMs: beginMs })} OR ${time} >= ${bind({ timestampMs: endMs })})`);
  }
  if (branch.typeColumn) conditions.push(`${q(branch.typeColumn.column)} = ${bind(branch.typeColumn.value)}`);
  if (plan.where.kind !== 'true') conditions.push(renderPredicate(plan.where, scope));
  return conditions;
}

/**
 * The FROM clause, and how expressions over it are written. Uniform branches (the timeslice
 * tables) are unioned as whole rows, each filtered inside the union so each prunes by its own
 * zone maps; the numbered placeholders serve every branch. Branches with different mappings
 * (several event types) each project the fields the query uses under common names. `from()`
 * is called after the SELECT list is rendered, so parameters are numbered in reading order.
 */
function renderFrom(plan: Filtered, source: PhysicalSource, leaves: readonly RowExpr[], dialect: Dialect, bind: Bind): { from: () => string; scope: Scope } {
  const q = (name: string) => dialect.quoteIdentifier(name);
  if (source.uniform) {
    const branch = source.branches[0]!;
    const scope = branchScope(branch, dialect, bind);
    const from = () => {
      if (source.branches.length === 1) return `FROM ${q(branch.table)}\nWHERE ${branchConditions(plan, branch, scope).join(' AND ')}`;
      // Branches without a time range of their own share one condition (and its placeholders).
      let shared: string | undefined;
      const where = (b: SourceBranch) => (b.timeRange
        ? `WHERE ${branchConditions(plan, b, scope).join(' AND ')}`
        : (shared ??= `WHERE ${branchConditions(plan, b, scope).join(' AND ')}`));
      return `FROM (${source.branches.map((b) => `SELECT * FROM ${q(b.table)} ${where(b)}`).join(' UNION ALL ')}) AS ${q('source')}`;
    };
    return { from, scope };
  }
  const used = distinctLeaves(leaves);
  const branches = source.branches.map((branch) => {
    const s = branchScope(branch, dialect, bind);
    const columns = used.map((leaf, i) => `${renderRow(leaf, s)} AS ${q(`f${i}`)}`);
    columns.push(`${q(branch.timeColumn)} AS ${q('__t')}`);
    return `SELECT ${columns.join(', ')} FROM ${q(branch.table)} WHERE ${branchConditions(plan, branch, s).join(' AND ')}`;
  });
  const index = new Map(used.map((leaf, i) => [JSON.stringify(leaf), i]));
  const scope = projectedScope(dialect, bind, used, (leaf) => q(`f${index.get(JSON.stringify(leaf))!}`));
  const from = `FROM (${branches.join(' UNION ALL ')}) AS ${q('source')}`;
  return { from: () => from, scope };
}

function branchScope(branch: SourceBranch, dialect: Dialect, bind: Bind): Scope {
  const q = (name: string) => dialect.quoteIdentifier(name);
  const scope: Scope = {
    dialect,
    bind,
    timeSql: q(branch.timeColumn),
    eventType: () => bind(branch.eventType),
    field(name, type) {
      if (name === 'timestamp') return dialect.convert(dialect.epochMs(q(branch.timeColumn)), 'integer', type);
      const typed = branch.typed[name];
      if (typed) return dialect.convert(q(typed.column), typed.kind, type);
      const computed = branch.computed?.[name];
      if (computed) return renderRow(computed, scope);
      if (branch.attributeMaps.length === 0) return 'NULL';
      return dialect.jsonAttribute(branch.attributeMaps.map(q), bind(dialect.jsonPath(name)), type);
    },
  };
  return scope;
}

/** A scope whose fields are columns a subquery projected: `leafSql` names the column of each leaf. */
function projectedScope(dialect: Dialect, bind: Bind, leaves: readonly RowExpr[], leafSql: (leaf: RowExpr, i: number) => string): Scope {
  const byKey = new Map(leaves.map((leaf, i) => [JSON.stringify(leaf), leafSql(leaf, i)]));
  const lookup = (leaf: RowExpr) => {
    const sql = byKey.get(JSON.stringify(leaf));
    if (sql === undefined) throw new Error(`expression not projected: ${JSON.stringify(leaf)}`);
    return sql;
  };
  return {
    dialect,
    bind,
    timeSql: dialect.quoteIdentifier('__t'),
    eventType: () => lookup({ kind: 'eventType' }),
    field: (name, type) => lookup({ kind: 'field', name, type }),
  };
}

/** Field and eventType() leaves of expressions, each once (as `{kind:'field', name, type}` with the type made explicit). */
function distinctLeaves(exprs: readonly RowExpr[]): RowExpr[] {
  const out = new Map<string, RowExpr>();
  const visit = (e: RowExpr): void => {
    switch (e.kind) {
      case 'field': {
        const leaf: RowExpr = { kind: 'field', name: e.name, type: e.type ?? 'number' };
        out.set(JSON.stringify(leaf), leaf);
        return;
      }
      case 'eventType':
        out.set(JSON.stringify(e), e);
        return;
      case 'literal':
        return;
      case 'arith':
        visit(e.left);
        visit(e.right);
        return;
      case 'coalesce':
        e.items.forEach(visit);
        return;
      case 'lookup':
      case 'cast':
        visit(e.expr);
        return;
      case 'cases':
        for (const c of e.cases) {
          predicateExprs(c.when).forEach(visit);
          visit(c.then);
        }
        if (e.otherwise) visit(e.otherwise);
        return;
      default:
        assertNever(e);
    }
  };
  exprs.forEach(visit);
  return [...out.values()];
}

/** The row expressions a predicate reads. */
function predicateExprs(p: Predicate): RowExpr[] {
  switch (p.kind) {
    case 'true': return [];
    case 'compare': return [p.left, p.right];
    case 'in': case 'isNull': case 'isBoolean': case 'like': case 'regex': return [p.expr];
    case 'tupleIn': return [...p.exprs];
    case 'and': case 'or': return p.items.flatMap(predicateExprs);
    case 'not': return predicateExprs(p.item);
    default: return assertNever(p);
  }
}

function renderRow(expr: RowExpr, scope: Scope): string {
  switch (expr.kind) {
    case 'field':
      return scope.field(expr.name, expr.type ?? 'number');
    case 'literal':
      return expr.value === null ? 'NULL' : scope.bind(expr.value);
    case 'arith': {
      const left = renderRow(expr.left, scope);
      const right = renderRow(expr.right, scope);
      // NRQL arithmetic is floating point: whole-number columns (epoch ms, ids) must not overflow.
      return expr.op === '/' ? scope.dialect.divide(left, right) : `(${scope.dialect.asDouble(left)} ${expr.op} ${right})`;
    }
    case 'eventType':
      return scope.eventType();
    case 'coalesce':
      return `COALESCE(${expr.items.map((e) => renderRow(e, scope)).join(', ')})`;
    case 'cast':
      return scope.dialect.castText(renderRow(expr.expr, scope), expr.to);
    case 'lookup': {
      if (expr.entries.length === 0) return scope.dialect.nullOf('string');
      const key = renderRow(expr.expr, scope);
      return scope.dialect.caseOf(key, expr.entries.map(([id, text]) => [scope.bind(id), scope.bind(text)] as const));
    }
    case 'cases': {
      const whens = expr.cases.map((c) => `WHEN ${renderPredicate(c.when, scope)} THEN ${renderRow(c.then, scope)}`);
      return `CASE ${whens.join(' ')}${expr.otherwise ? ` ELSE ${renderRow(expr.otherwise, scope)}` : ''} END`;
    }
    default:
      return assertNever(expr);
  }
}

function renderPredicate(p: Predicate, scope: Scope): string {
  const { dialect, bind } = scope;
  switch (p.kind) {
    case 'true':
      return dialect.booleanLiteral(true);
    case 'compare':
      return `${renderRow(p.left, scope)} ${p.op === '!=' ? '<>' : p.op} ${renderRow(p.right, scope)}`;
    case 'in': {
      // No values: false (true when negated) — but null where the expression is null, as IN would be.
      if (p.values.length === 0) return `CASE WHEN ${renderRow(p.expr, scope)} IS NULL THEN NULL ELSE ${dialect.booleanLiteral(p.negated)} END`;
      // Values bound before the expression: the parameters' order the pinned SQL has.
      const values = p.values.map((v) => bind(v));
      return dialect.inList(renderRow(p.expr, scope), values, p.negated);
    }
    case 'isNull':
      return `${renderRow(p.expr, scope)} IS ${p.negated ? 'NOT ' : ''}NULL`;
    case 'isBoolean':
      return dialect.isBoolean(renderRow(p.expr, scope), p.value, p.negated);
    case 'like': {
      const match = dialect.like(renderRow(p.expr, scope), bind(dialect.escapeLike(p.pattern)));
      return p.negated ? `NOT ${match}` : match;
    }
    case 'regex': {
      const match = dialect.regexFullMatch(renderRow(p.expr, scope), bind(p.pattern));
      return p.negated ? `NOT ${match}` : match;
    }
    case 'tupleIn':
      if (p.tuples.length === 0) return dialect.booleanLiteral(false);
      return dialect.tupleIn(p.exprs.map((e) => renderRow(e, scope)), p.tuples.map((t) => t.map((v) => bind(v))));
    case 'and':
    case 'or':
      return `(${p.items.map((item) => renderPredicate(item, scope)).join(p.kind === 'and' ? ' AND ' : ' OR ')})`;
    case 'not':
      return `NOT (${renderPredicate(p.item, scope)})`;
    default:
      return assertNever(p);
  }
}
