import { DOUBLE, INTEGER, LIST, VARCHAR, listValue, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import type { AlertPolicy, Incident, Issue, NrqlCondition } from '../../domain/alerts/alert-model.js';
import type { ConditionEvaluatorState } from '../../domain/alerts/condition-evaluator.js';
import type { Channel, Destination, Workflow } from '../../domain/alerts/notification-model.js';
import type { AlertRecords, AlertSnapshot, AlertStateChange, NotificationConfig, OutboxEntry, StoredCondition, StoredPolicy } from '../alert-records.js';

const NOTIFICATION_TABLES = { destination: 'alert_destinations', channel: 'alert_channels', workflow: 'alert_workflows' } as const;
import type { Database } from './database.js';
import { withOwnConnection } from './own-connection.js';

/** Alerting's tables (migration 8). Writes run in one transaction each, on a connection of their own. */
export class DuckDbAlertRecords implements AlertRecords {
  constructor(private readonly db: Database) {}

  async load(): Promise<AlertSnapshot> {
    const policies = await this.db.all<{ body: string; created_at: bigint; updated_at: bigint }>('SELECT body, created_at, updated_at FROM alert_policies ORDER BY id');
    const conditions = await this.db.all<{ body: string; created_at: bigint; updated_at: bigint }>('SELECT body, created_at, updated_at FROM alert_conditions ORDER BY id');
    const states = await this.db.all<{ condition_id: number; state: string }>('SELECT condition_id, state FROM alert_evaluator_states');
    const openIssues = (await this.db.all<{ body: string }>("SELECT body FROM alert_issues WHERE state <> 'CLOSED'")).map((r) => JSON.parse(r.body) as Issue);
    const incidents = (
      await this.db.all<{ body: string }>(
        `SELECT body FROM alert_incidents WHERE closed_at IS NULL
           OR issue_id IN (SELECT id FROM alert_issues WHERE state <> 'CLOSED')`,
      )
    ).map((r) => JSON.parse(r.body) as Incident);
    return {
      policies: policies.map((r) => ({ policy: JSON.parse(r.body) as AlertPolicy, createdAt: Number(r.created_at), updatedAt: Number(r.updated_at) })),
      conditions: conditions.map((r) => ({ condition: JSON.parse(r.body) as NrqlCondition, createdAt: Number(r.created_at), updatedAt: Number(r.updated_at) })),
      evaluatorStates: new Map(states.map((r) => [String(r.condition_id), JSON.parse(r.state) as ConditionEvaluatorState])),
      incidents,
      openIssues,
    };
  }

  async nextId(kind: 'policy' | 'condition'): Promise<number> {
    const sequence = kind === 'policy' ? 'alert_policy_ids' : 'alert_condition_ids';
    const reader = await withOwnConnection(this.db, (c) => c.runAndReadAll(`SELECT nextval('${sequence}') AS id`));
    return Number(reader.getRowObjectsJS()[0]!.id);
  }

  savePolicy(stored: StoredPolicy): Promise<void> {
    const p = stored.policy;
    return this.transaction(async (c) => {
      await c.run('DELETE FROM alert_policies WHERE id = $1', [Number(p.id)]);
      await c.run('INSERT INTO alert_policies VALUES ($1, $2, $3, $4, $5)', [Number(p.id), p.accountId, JSON.stringify(p), stored.createdAt, stored.updatedAt] as DuckDBValue[]);
    });
  }

  deletePolicy(accountId: number, policyId: string): Promise<void> {
    return this.transaction(async (c) => {
      const id = Number(policyId);
      await c.run('DELETE FROM alert_evaluator_states WHERE condition_id IN (SELECT id FROM alert_conditions WHERE account_id = $1 AND policy_id = $2)', [accountId, id]);
      await c.run('DELETE FROM alert_conditions WHERE account_id = $1 AND policy_id = $2', [accountId, id]);
      await c.run('DELETE FROM alert_policies WHERE account_id = $1 AND id = $2', [accountId, id]);
    });
  }

  saveCondition(stored: StoredCondition): Promise<void> {
    const k = stored.condition;
    return this.transaction(async (c) => {
      await c.run('DELETE FROM alert_conditions WHERE id = $1', [Number(k.id)]);
      await c.run('INSERT INTO alert_conditions VALUES ($1, $2, $3, $4, $5, $6)', [
        Number(k.id), k.accountId, Number(k.policyId), JSON.stringify(k), stored.createdAt, stored.updatedAt,
      ] as DuckDBValue[]);
    });
  }

  deleteCondition(accountId: number, conditionId: string): Promise<void> {
    return this.transaction(async (c) => {
      await c.run('DELETE FROM alert_evaluator_states WHERE condition_id = $1', [Number(conditionId)]);
      await c.run('DELETE FROM alert_conditions WHERE account_id = $1 AND id = $2', [accountId, Number(conditionId)]);
    });
  }

  commit(change: AlertStateChange): Promise<void> {
    const outbox = change.outbox ?? [];
    if (change.evaluatorStates.size === 0 && change.incidents.length === 0 && change.issues.length === 0 && outbox.length === 0) return Promise.resolve();
    return this.transaction(async (c) => {
      // A handful of statements per commit whatever its size: the tables have no index, so a
      // statement per row would scan them once per row (a cycle opening 5,000 incidents took 8 s).
      const states = [...change.evaluatorStates];
      await replaceRows(c, 'alert_evaluator_states', 'condition_id', [
        [states.map(([id]) => Number(id)), INTEGER],
        [states.map(([, state]) => JSON.stringify(state)), VARCHAR],
      ]);
      const incidents = latestById(change.incidents);
      await replaceRows(c, 'alert_incidents', 'id', [
        [incidents.map((i) => i.id), VARCHAR],
        [incidents.map((i) => i.accountId), INTEGER],
        [incidents.map((i) => Number(i.conditionId)), INTEGER],
        [incidents.map((i) => i.issueId), VARCHAR],
        [incidents.map((i) => i.detectedAt), EPOCH_MS],
        [incidents.map((i) => i.closeDetectedAt), EPOCH_MS],
        [incidents.map((i) => JSON.stringify(i)), VARCHAR],
      ]);
      const issues = latestById(change.issues);
      await replaceRows(c, 'alert_issues', 'id', [
        [issues.map((i) => i.id), VARCHAR],
        [issues.map((i) => i.accountId), INTEGER],
        [issues.map((i) => i.state), VARCHAR],
        [issues.map((i) => i.createdAt), EPOCH_MS],
        [issues.map((i) => i.closedAt), EPOCH_MS],
        [issues.map((i) => JSON.stringify(i)), VARCHAR],
      ]);
      // A key already in the outbox (or earlier in this change) is not added again.
      const seen = new Set<string>();
      const entries = outbox.filter((e) => !seen.has(e.key) && seen.add(e.key));
      if (entries.length > 0) {
        const lists = listParams([
          [entries.map((e) => e.key), VARCHAR],
          [entries.map((e) => e.accountId), INTEGER],
          [entries.map((e) => e.issueId), VARCHAR],
          [entries.map((e) => e.channelId), VARCHAR],
          [entries.map((e) => JSON.stringify(e)), VARCHAR],
          [entries.map((e) => e.createdAt), EPOCH_MS],
        ]);
        await c.run(
          `INSERT INTO alert_notifications SELECT c0, c1, c2, c3, c4, 'PENDING', 0, c5, c5
             FROM (SELECT unnest($1) AS c0, unnest($2) AS c1, unnest($3) AS c2, unnest($4) AS c3, unnest($5) AS c4, unnest($6) AS c5)
            WHERE c0 NOT IN (SELECT key FROM alert_notifications)`,
          lists.values, lists.types,
        );
      }
    });
  }

  async issues(accountId: number, from: number, to: number): Promise<Issue[]> {
    const rows = await this.db.all<{ body: string }>(
      'SELECT body FROM alert_issues WHERE account_id = $1 AND created_at <= $3 AND (closed_at IS NULL OR closed_at >= $2) ORDER BY created_at DESC, id',
      [accountId, from, to],
    );
    return rows.map((r) => JSON.parse(r.body) as Issue);
  }

  async incidents(accountId: number, from: number, to: number): Promise<Incident[]> {
    const rows = await this.db.all<{ body: string }>(
      'SELECT body FROM alert_incidents WHERE account_id = $1 AND opened_at <= $3 AND (closed_at IS NULL OR closed_at >= $2) ORDER BY opened_at DESC, id',
      [accountId, from, to],
    );
    return rows.map((r) => JSON.parse(r.body) as Incident);
  }

  async loadNotificationConfig(): Promise<NotificationConfig> {
    const read = async <T>(table: string) => (await this.db.all<{ body: string }>(`SELECT body FROM ${table} ORDER BY rowid`)).map((r) => JSON.parse(r.body) as T);
    return {
      destinations: await read<Destination>(NOTIFICATION_TABLES.destination),
      channels: await read<Channel>(NOTIFICATION_TABLES.channel),
      workflows: await read<Workflow>(NOTIFICATION_TABLES.workflow),
    };
  }

  saveNotificationObject(kind: 'destination' | 'channel' | 'workflow', object: Destination | Channel | Workflow): Promise<void> {
    const table = NOTIFICATION_TABLES[kind];
    return this.transaction(async (c) => {
      await c.run(`DELETE FROM ${table} WHERE id = $1`, [object.id]);
      await c.run(`INSERT INTO ${table} VALUES ($1, $2, $3)`, [object.id, object.accountId, JSON.stringify(object)]);
    });
  }

  deleteNotificationObject(kind: 'destination' | 'channel' | 'workflow', accountId: number, id: string): Promise<void> {
    return this.transaction(async (c) => {
      await c.run(`DELETE FROM ${NOTIFICATION_TABLES[kind]} WHERE account_id = $1 AND id = $2`, [accountId, id]);
    });
  }

  async pendingNotifications(): Promise<OutboxEntry[]> {
    const rows = await this.db.all<{ body: string }>("SELECT body FROM alert_notifications WHERE status = 'PENDING' ORDER BY created_at, rowid");
    return rows.map((r) => JSON.parse(r.body) as OutboxEntry);
  }

  markNotification(key: string, status: 'SENT' | 'FAILED', attempts: number, at: number): Promise<void> {
    return this.transaction(async (c) => {
      await c.run('UPDATE alert_notifications SET status = $2, attempts = $3, updated_at = $4 WHERE key = $1', [key, status, attempts, at]);
    });
  }

  async notificationLog(accountId: number): Promise<Array<OutboxEntry & { status: string; attempts: number }>> {
    const rows = await this.db.all<{ body: string; status: string; attempts: number }>(
      'SELECT body, status, attempts FROM alert_notifications WHERE account_id = $1 ORDER BY created_at, rowid',
      [accountId],
    );
    return rows.map((r) => ({ ...(JSON.parse(r.body) as OutboxEntry), status: r.status, attempts: Number(r.attempts) }));
  }

  private transaction(work: (c: DuckDBConnection) => Promise<void>): Promise<void> {
    return withOwnConnection(this.db, async (c) => {
      await c.run('BEGIN TRANSACTION');
      try {
        await work(c);
        await c.run('COMMIT');
      } catch (error) {
        await c.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }
}

/** Epoch ms travel as doubles (exact below 2^53) and are cast by the column on insert, as single rows were. */
const EPOCH_MS = DOUBLE;

type Column = readonly [readonly (string | number | null)[], DuckDBType];

function listParams(columns: readonly Column[]): { values: DuckDBValue[]; types: DuckDBType[] } {
  return { values: columns.map(([cells]) => listValue([...cells])), types: columns.map(([, type]) => LIST(type)) };
}

/** Replaces the rows keyed by the first column's values with the given rows, in two statements. */
async function replaceRows(c: DuckDBConnection, table: string, key: string, columns: readonly Column[]): Promise<void> {
  if (columns[0]![0].length === 0) return;
  const lists = listParams(columns);
  await c.run(`DELETE FROM ${table} WHERE ${key} IN (SELECT unnest($1))`, [lists.values[0]!], [lists.types[0]!]);
  const unnests = columns.map((_, i) => `unnest($${i + 1})`).join(', ');
  await c.run(`INSERT INTO ${table} SELECT ${unnests}`, lists.values, lists.types);
}

/** The last version of each object, in first-seen order (a change may carry one twice). */
function latestById<T extends { readonly id: string }>(items: readonly T[]): T[] {
  const byId = new Map<string, T>();
  for (const item of items) byId.set(item.id, item);
  return [...byId.values()];
}
