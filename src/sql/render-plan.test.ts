import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AggregatePlan, RowsPlan } from '../plan/aggregate-plan.js';
import { SqlDialect, type SqlParam } from './dialect.js';
import type { PhysicalSchema } from './physical-schema.js';
import { renderAggregatePlan, renderRowsPlan } from './render-plan.js';

/**
 * A dialect that overrides only what the generic path cannot write, and says it has neither
 * FILTER nor IS TRUE: the generic SQL must then use its other forms. Its placeholders are typed
 * from the value, as ClickHouse's are.
 */
class TypedDialect extends SqlDialect {
  readonly name = 'typed';
  override readonly capabilities = { filterClause: false, booleanTests: false };
  override placeholder(index: number, value: SqlParam): string {
    const type = typeof value === 'number' ? 'Float64' : typeof value === 'object' ? ('timestampMs' in value ? 'DateTime64(3)' : 'Array(Float64)') : typeof value === 'boolean' ? 'Bool' : 'String';
    return `{p${index}:${type}}`;
  }
  override epochMs(timeSql: string): string {
    return `toUnixTimestamp64Milli(${timeSql})`;
  }
  override convert(columnSql: string): string {
    return columnSql;
  }
}

/** One table, `events`: account `acct`, time `at`, typed columns `ok` (boolean) and `v` (double). */
const schema: PhysicalSchema = {
  source: () => ({
    uniform: true,
    branches: [{
      table: 'events', eventType: 'E', accountColumn: 'acct', timeColumn: 'at',
      typed: { ok: { column: 'ok', kind: 'boolean' }, v: { column: 'v', kind: 'double' } }, attributeMaps: [],
    }],
  }),
};

const plan: AggregatePlan = {
  kind: 'aggregate', source: { kind: 'events', eventTypes: ['E'] }, accountId: 7, window: { beginMs: 1000, endMs: 61_000 },
  where: { kind: 'isBoolean', expr: { kind: 'field', name: 'ok', type: 'boolean' }, value: true, negated: false },
  groupBy: [], buckets: { beginMs: 1000, widthMs: 30_000, count: 2 },
  aggregates: [
    { fn: 'countRows', where: { kind: 'compare', op: '>', left: { kind: 'field', name: 'v' }, right: { kind: 'literal', value: 2 } } },
    { fn: 'sum', arg: { kind: 'field', name: 'v' }, where: { kind: 'isBoolean', expr: { kind: 'field', name: 'ok', type: 'boolean' }, value: false, negated: true } },
    { fn: 'countDistinct', arg: { kind: 'field', name: 'v' } },
  ],
  outputs: [],
};

describe('the generic SQL path, through a dialect without FILTER or IS TRUE', () => {
  it('writes CASE inside aggregates, COALESCE for boolean tests and typed placeholders', () => {
    const rendered = renderAggregatePlan(plan, new TypedDialect(), schema);
    assert.equal(rendered.sql, [
      'SELECT CAST(FLOOR((toUnixTimestamp64Milli("at") - {p1:Float64}) / {p2:Float64}) AS INTEGER) AS "bucket", '
        + 'count(CASE WHEN "v" > {p3:Float64} THEN 1 END) AS "a0", '
        + 'sum(CASE WHEN NOT COALESCE("ok" = FALSE, FALSE) THEN "v" END) AS "a1", '
        + 'count(DISTINCT "v") AS "a2"',
      'FROM "events"',
      'WHERE "acct" = {p4:Float64} AND "at" >= {p5:DateTime64(3)} AND "at" < {p6:DateTime64(3)} AND COALESCE("ok" = TRUE, FALSE)',
      'GROUP BY "bucket"',
      'ORDER BY "bucket"',
    ].join('\n'));
    assert.deepEqual(rendered.params, [1000, 30_000, 2, 7, { timestampMs: 1000 }, { timestampMs: 61_000 }]);
  });

  it('writes a typed NULL for a lookup with no entries', () => {
    const rows: RowsPlan = {
      kind: 'rows', source: { kind: 'events', eventTypes: ['E'] }, accountId: 7, window: { beginMs: 0, endMs: 10 }, where: { kind: 'true' },
      columns: [{ kind: 'lookup', expr: { kind: 'field', name: 'v' }, entries: [] }], all: false, orderBy: [], limit: 5, offset: 0,
    };
    const rendered = renderRowsPlan(rows, new TypedDialect(), schema);
    assert.equal(rendered.sql, [
      'SELECT toUnixTimestamp64Milli("at") AS "__time", CAST(NULL AS VARCHAR) AS "c0"',
      'FROM "events"',
      'WHERE "acct" = {p1:Float64} AND "at" >= {p2:DateTime64(3)} AND "at" < {p3:DateTime64(3)}',
      'ORDER BY "at" DESC',
      'LIMIT {p4:Float64} OFFSET {p5:Float64}',
    ].join('\n'));
  });

  it('fails loudly, naming the dialect, on what the generic path cannot write', () => {
    const latest: AggregatePlan = { ...plan, buckets: undefined, where: { kind: 'true' }, aggregates: [{ fn: 'latest', arg: { kind: 'field', name: 'v' } }] };
    assert.throws(() => renderAggregatePlan(latest, new TypedDialect(), schema), { message: 'the typed SQL dialect cannot render the aggregate latest' });
  });
});
