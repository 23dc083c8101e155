import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { AlertPolicy, Incident, Issue, NrqlCondition } from '../../domain/alerts/alert-model.js';
import type { ConditionEvaluatorState } from '../../domain/alerts/condition-evaluator.js';
import type { Channel, Destination, Workflow } from '../../domain/alerts/notification-model.js';
import type { MutingRule } from '../../domain/alerts/muting-rules.js';
import type { IssueSettings } from '../../domain/alerts/issue-tracker.js';
import type { AlertRecords, AlertSnapshot, AlertStateChange, NotificationConfig, OutboxEntry, StoredCondition, StoredPolicy } from '../alert-records.js';

const NOTIFICATION_TABLES = { destination: 'alert_destinations', channel: 'alert_channels', workflow: 'alert_workflows' } as const;
import type { Database } from './database.js';
import { withOwnConnection } from './own-connection.js';

/** Alerting's tables (migrations 8 and 12). Writes run in one transaction each, on a connection of their own. */
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

  async loadMutingRules(): Promise<MutingRule[]> {
    return (await this.db.all<{ body: string }>('SELECT body FROM alert_muting_rules ORDER BY id')).map((r) => JSON.parse(r.body) as MutingRule);
  }

  async nextMutingRuleId(): Promise<number> {
    const reader = await withOwnConnection(this.db, (c) => c.runAndReadAll("SELECT nextval('alert_muting_rule_ids') AS id"));
    return Number(reader.getRowObjectsJS()[0]!.id);
  }

  saveMutingRule(rule: MutingRule): Promise<void> {
    return this.transaction(async (c) => {
      await c.run('DELETE FROM alert_muting_rules WHERE id = $1', [Number(rule.id)]);
      await c.run('INSERT INTO alert_muting_rules VALUES ($1, $2, $3)', [Number(rule.id), rule.accountId, JSON.stringify(rule)]);
    });
  }

  deleteMutingRule(accountId: number, id: string): Promise<void> {
    return this.transaction(async (c) => {
      await c.run('DELETE FROM alert_muting_rules WHERE account_id = $1 AND id = $2', [accountId, Number(id)]);
    });
  }

  async loadIssueSettings(): Promise<Array<{ accountId: number; settings: IssueSettings }>> {
    const rows = await this.db.all<{ account_id: number; body: string }>('SELECT account_id, body FROM alert_issue_settings ORDER BY account_id');
    return rows.map((r) => ({ accountId: Number(r.account_id), settings: JSON.parse(r.body) as IssueSettings }));
  }

  saveIssueSettings(accountId: number, settings: IssueSettings): Promise<void> {
    return this.transaction(async (c) => {
      await c.run('DELETE FROM alert_issue_settings WHERE account_id = $1', [accountId]);
      await c.run('INSERT INTO alert_issue_settings VALUES ($1, $2)', [accountId, JSON.stringify(settings)]);
    });
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
      const deleteState = await c.prepare('DELETE FROM alert_evaluator_states WHERE condition_id = $1');
      const insertState = await c.prepare('INSERT INTO alert_evaluator_states VALUES ($1, $2)');
      for (const [conditionId, state] of change.evaluatorStates) {
        deleteState.bind([Number(conditionId)]);
        await deleteState.run();
        insertState.bind([Number(conditionId), JSON.stringify(state)]);
        await insertState.run();
      }
      // Prepared once per commit: a cycle that opens thousands of incidents binds, it does not re-plan.
      const deleteIncident = await c.prepare('DELETE FROM alert_incidents WHERE id = $1');
      const insertIncident = await c.prepare('INSERT INTO alert_incidents VALUES ($1, $2, $3, $4, $5, $6, $7)');
      for (const i of change.incidents) {
        deleteIncident.bind([i.id]);
        await deleteIncident.run();
        insertIncident.bind([i.id, i.accountId, Number(i.conditionId), i.issueId, i.detectedAt, i.closeDetectedAt, JSON.stringify(i)] as DuckDBValue[]);
        await insertIncident.run();
      }
      const deleteIssue = await c.prepare('DELETE FROM alert_issues WHERE id = $1');
      const insertIssue = await c.prepare('INSERT INTO alert_issues VALUES ($1, $2, $3, $4, $5, $6)');
      for (const issue of change.issues) {
        deleteIssue.bind([issue.id]);
        await deleteIssue.run();
        insertIssue.bind([issue.id, issue.accountId, issue.state, issue.createdAt, issue.closedAt, JSON.stringify(issue)] as DuckDBValue[]);
        await insertIssue.run();
      }
      for (const entry of outbox) {
        await c.run(
          `INSERT INTO alert_notifications SELECT $1, $2, $3, $4, $5, 'PENDING', 0, $6, $6
           WHERE NOT EXISTS (SELECT 1 FROM alert_notifications WHERE key = $1)`,
          [entry.key, entry.accountId, entry.issueId, entry.channelId, JSON.stringify(entry), entry.createdAt] as DuckDBValue[],
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
