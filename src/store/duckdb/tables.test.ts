import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { APPEND_TABLES, TRANSACTION_EVENTS } from '../append-tables.js';
import { duckdbSchema, readColumns } from './sources.js';
import { schemaMismatches, type ActualColumns } from '../tables.js';

/** The schema as described: what a correct migration leaves. */
function described(table: string): ActualColumns {
  // The rollups: the timeslice columns, then the kept points (migration 8).
  if (table === 'timeslices_hourly') return [...described('timeslices'), { name: 'exclusive_per_call', type: 'DOUBLE' }, { name: 'exclusive_per_call_points', type: 'DOUBLE' }];
  const t = APPEND_TABLES.find((d) => d.name === table) ?? APPEND_TABLES.find((d) => d.name === 'timeslices')!;
  return t.columns.map((c) => ({ name: c.name, type: c.type }));
}

describe('one description per table', () => {
  it('derives the read mapping from the same descriptions as the writer', () => {
    const [branch] = duckdbSchema.source({ kind: 'events', eventTypes: ['Transaction'] }).branches;
    assert.equal(branch!.table, TRANSACTION_EVENTS.name);
    assert.deepEqual(branch!.typed.error, { column: 'error', kind: 'boolean' });
    assert.deepEqual(branch!.typed['@appId'], { column: 'app_id', kind: 'integer' });
    assert.equal(branch!.typed.httpStatusCode, undefined, 'a column no query reads is not mapped');
    assert.deepEqual(branch!.attributeMaps, ['intrinsics', 'agent_attributes', 'user_attributes']);
    const custom = duckdbSchema.source({ kind: 'events', eventTypes: ['Purchase'] }).branches[0]!;
    assert.deepEqual(custom.typeColumn, { column: 'event_type', value: 'Purchase' });
    assert.equal(custom.typed.eventType, undefined);
  });

  it('lists every column reads use, the compacted timeslice tables included', () => {
    const read = readColumns().map((r) => `${r.table}.${r.column} ${r.type}`);
    for (const expected of ['timeslices_daily.sum_of_squares DOUBLE', 'timeslices_hourly.exclusive_per_call_points DOUBLE', 'timeslices_compacted.ts TIMESTAMP', 'transaction_events.error BOOLEAN', 'custom_events.event_type VARCHAR', 'log_events.span_id VARCHAR']) {
      assert.ok(read.includes(expected), expected);
    }
  });

  it('finds no mismatch in the described schema, and names each one in a changed schema', () => {
    assert.deepEqual(schemaMismatches(described, APPEND_TABLES, readColumns()), []);
    const changed = (table: string): ActualColumns => {
      if (table === 'timeslices_daily') return described(table).filter((c) => c.name !== 'min');
      if (table === 'span_events') return described(table).map((c) => (c.name === 'duration' ? { name: c.name, type: 'VARCHAR' } : c));
      return described(table);
    };
    assert.deepEqual(schemaMismatches(changed, APPEND_TABLES, readColumns()), [
      'table span_events has columns [account_id INTEGER, app_id INTEGER, host_id INTEGER, instance_id INTEGER, timestamp TIMESTAMP, name VARCHAR, category VARCHAR, duration VARCHAR, trace_id VARCHAR, guid VARCHAR, parent_id VARCHAR, transaction_id VARCHAR, intrinsics VARCHAR, user_attributes VARCHAR, agent_attributes VARCHAR], the writer expects [account_id INTEGER, app_id INTEGER, host_id INTEGER, instance_id INTEGER, timestamp TIMESTAMP, name VARCHAR, category VARCHAR, duration DOUBLE, trace_id VARCHAR, guid VARCHAR, parent_id VARCHAR, transaction_id VARCHAR, intrinsics VARCHAR, user_attributes VARCHAR, agent_attributes VARCHAR]',
      'queries read timeslices_daily.min, which the schema does not have',
      'queries read span_events.duration as DOUBLE, the schema has VARCHAR',
    ]);
  });
});
