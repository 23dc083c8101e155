import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AggregatePlan } from '../../plan/aggregate-plan.js';
import { renderAggregatePlan } from '../../sql/render-plan.js';
import { duckdbDialect } from './duckdb-dialect.js';
import { duckdbSchema } from './sources.js';

describe('the DuckDB dialect', () => {
  it('renders FILTER, IS TRUE, JSON attributes and the integral bucket index', () => {
    const plan: AggregatePlan = {
      kind: 'aggregate', source: { kind: 'events', eventTypes: ['Purchase'] }, accountId: 1, window: { beginMs: 0, endMs: 120_000 },
      where: { kind: 'isBoolean', expr: { kind: 'field', name: 'paid', type: 'boolean' }, value: true, negated: false },
      groupBy: [], buckets: { beginMs: 0, widthMs: 60_000, count: 2 },
      aggregates: [{ fn: 'countRows', where: { kind: 'like', expr: { kind: 'field', name: 'sku', type: 'string' }, pattern: 'a_%', negated: false } }],
      outputs: [],
    };
    const rendered = renderAggregatePlan(plan, duckdbDialect, duckdbSchema);
    assert.equal(rendered.sql, [
      'SELECT CAST((epoch_ms("timestamp") - $1) // $2 AS INTEGER) AS "bucket", count(*) FILTER (WHERE (json_extract_string("attributes", $3) ILIKE $4 ESCAPE \'\\\')) AS "a0"',
      'FROM "custom_events"',
      'WHERE "account_id" = $5 AND "timestamp" >= $6 AND "timestamp" < $7 AND "event_type" = $8 AND CASE lower(json_extract_string("attributes", $9)) WHEN \'true\' THEN TRUE WHEN \'false\' THEN FALSE END IS TRUE',
      'GROUP BY "bucket"',
      'ORDER BY "bucket"',
    ].join('\n'));
    assert.deepEqual(rendered.params, [0, 60_000, '/sku', 'a\\_%', 1, { timestampMs: 0 }, { timestampMs: 120_000 }, 'Purchase', '/paid']);
  });

  it('quotes identifiers by doubling quotes, and numbers its placeholders', () => {
    assert.equal(duckdbDialect.quoteIdentifier('a"b'), '"a""b"');
    assert.equal(duckdbDialect.placeholder(3, 'x'), '$3');
    assert.equal(duckdbDialect.nullOf('double'), 'CAST(NULL AS DOUBLE)');
  });
});
