import type { PlanSource } from '../../src/plan/aggregate-plan.js';
import { AGENT_EVENT_TYPES } from '../../src/plan/data-model.js';
import type { Database } from '../../src/store/duckdb/database.js';
import { duckdbSchema } from '../../src/store/duckdb/sources.js';
import type { MemoryRow } from '../../src/store/memory/memory-plan-executor.js';
import type { PlainValue } from '../../src/store/plan-executor.js';

/**
 * Every row a DuckDB store holds (timeslices and events), as the reference executor's rows: the
 * same rows the collector and the Event API wrote, so a script's data is loaded once, through
 * the real ingest, and queried on both executors. Read through the store's own read mapping:
 * typed columns by their attribute names, attribute maps merged (the first with a value wins).
 */
export async function memoryRowsOf(db: Database): Promise<MemoryRow[]> {
  const sources: PlanSource[] = [{ kind: 'timeslices' }, ...AGENT_EVENT_TYPES.map((t): PlanSource => ({ kind: 'events', eventTypes: [t] })), { kind: 'allCustomEvents' }];
  const q = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const out: MemoryRow[] = [];
  for (const source of sources) {
    for (const branch of duckdbSchema.source(source).branches) {
      const typed = Object.entries(branch.typed);
      const columns = [
        `${q(branch.accountColumn)} AS acct`, `epoch_ms(${q(branch.timeColumn)}) AS t`,
        ...typed.map(([, c], i) => `${q(c.column)} AS f${i}`), ...branch.attributeMaps.map((m, i) => `${q(m)} AS m${i}`),
      ];
      // Stored order (rowid) stands for arrival order, as the tables keep it.
      const rows = await db.all(`SELECT ${columns.join(', ')} FROM ${q(branch.table)} ORDER BY rowid`);
      for (const r of rows) {
        const values: Record<string, PlainValue> = {};
        typed.forEach(([name], i) => { values[name] = plain(r[`f${i}`]); });
        const attributes: Record<string, unknown> = {};
        for (let m = branch.attributeMaps.length - 1; m >= 0; m--) {
          const map = r[`m${m}`];
          if (typeof map !== 'string') continue;
          for (const [key, value] of Object.entries(JSON.parse(map) as Record<string, unknown>)) if (value !== null) attributes[key] = value;
        }
        let eventType = branch.eventType;
        if (source.kind === 'allCustomEvents') {
          eventType = values.eventType as string;
          delete values.eventType;
        }
        out.push({ accountId: Number(r.acct), eventType, timeMs: Number(r.t), typed: values, attributes });
      }
    }
  }
  return out;
}

function plain(value: unknown): PlainValue {
  if (value === undefined || value === null) return null;
  return typeof value === 'bigint' ? Number(value) : (value as PlainValue);
}
