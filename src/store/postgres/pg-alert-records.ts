import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { AlertPolicy, Incident, Issue, NrqlCondition } from '../../domain/alerts/alert-model.js';
import type { ConditionEvaluatorState } from '../../domain/alerts/condition-evaluator.js';
import type { IssueSettings } from '../../domain/alerts/issue-tracker.js';
import type { MutingRule } from '../../domain/alerts/muting-rules.js';
import type { Channel, Destination, Workflow } from '../../domain/alerts/notification-model.js';
import type { LegacyChannel } from '../../domain/alerts/legacy-channel.js';
import type {
  AlertRecords, AlertSnapshot, AlertStateChange, Numbered, NotificationConfig, OutboxEntry, RestIdKind, RestIncidentQuery, RestIssueQuery, StoredCondition,
  StoredPolicy,
} from '../alert-records.js';
import { notifyChange, type PgChangeFeed } from './pg-change-feed.js';
import type { PostgresDatabase } from './pg-database.js';

const TOPIC = 'alerts';

const NOTIFICATION_TABLES = { destination: 'alert_destinations', channel: 'alert_channels', workflow: 'alert_workflows' } as const;

/**
 * Alert state in PostgreSQL, shared by every node: the same rows as the DuckDB store's, each
 * write one transaction. The outbox's idempotency key is its primary key, so a notification
 * decided twice (two nodes across a lease takeover) is one row.
 */
export class PgAlertRecords implements AlertRecords {
  private readonly listeners: (() => Promise<void>)[] = [];
  /** Names this node in its notifications: its own changes are in its memory already. */
  private readonly origin = randomUUID();

  /** `feed`: where configuration changes are heard from other nodes (each change is notified). */
  constructor(private readonly db: PostgresDatabase, feed?: PgChangeFeed) {
    feed?.on(TOPIC, async (origin) => {
      if (origin === this.origin) return;
      await Promise.all(this.listeners.map((listener) => listener()));
    });
  }

  watch(changed: () => Promise<void>): void {
    this.listeners.push(changed);
  }

  /** A configuration write, in one transaction with its notification. */
  private configure(work: (c: pg.PoolClient) => Promise<unknown>): Promise<void> {
    return this.db.transaction(async (c) => {
      await work(c);
      await notifyChange(c, TOPIC, this.origin);
    });
  }

  private async all<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.db.pool.query<T>(sql, params)).rows;
  }

  async load(): Promise<AlertSnapshot> {
    const policies = await this.all<{ body: string; created_at: number; updated_at: number }>('SELECT body, created_at, updated_at FROM alert_policies ORDER BY id');
    const conditions = await this.all<{ body: string; created_at: number; updated_at: number }>('SELECT body, created_at, updated_at FROM alert_conditions ORDER BY id');
    const states = await this.all<{ condition_id: number; state: string }>('SELECT condition_id, state FROM alert_evaluator_states');
    const openIssues = (await this.all<{ body: string }>("SELECT body FROM alert_issues WHERE state <> 'CLOSED' ORDER BY id")).map((r) => JSON.parse(r.body) as Issue);
    const incidents = (
      await this.all<{ body: string }>(
        `SELECT body FROM alert_incidents WHERE closed_at IS NULL
           OR issue_id IN (SELECT id FROM alert_issues WHERE state <> 'CLOSED') ORDER BY id`,
      )
    ).map((r) => JSON.parse(r.body) as Incident);
    return {
      policies: policies.map((r) => ({ policy: JSON.parse(r.body) as AlertPolicy, createdAt: r.created_at, updatedAt: r.updated_at })),
      conditions: conditions.map((r) => ({ condition: JSON.parse(r.body) as NrqlCondition, createdAt: r.created_at, updatedAt: r.updated_at })),
      evaluatorStates: new Map(states.map((r) => [String(r.condition_id), JSON.parse(r.state) as ConditionEvaluatorState])),
      incidents,
      openIssues,
    };
  }

  async loadMutingRules(): Promise<MutingRule[]> {
    return (await this.all<{ body: string }>('SELECT body FROM alert_muting_rules ORDER BY id')).map((r) => JSON.parse(r.body) as MutingRule);
  }

  async nextMutingRuleId(): Promise<number> {
    return (await this.all<{ id: number }>("SELECT nextval('alert_muting_rule_ids') AS id"))[0]!.id;
  }

  async saveMutingRule(rule: MutingRule): Promise<void> {
    await this.configure((c) => c.query(
      'INSERT INTO alert_muting_rules VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET account_id = $2, body = $3',
      [Number(rule.id), rule.accountId, JSON.stringify(rule)],
    ));
  }

  async deleteMutingRule(accountId: number, id: string): Promise<void> {
    await this.configure((c) => c.query('DELETE FROM alert_muting_rules WHERE account_id = $1 AND id = $2', [accountId, Number(id)]));
  }

  async loadIssueSettings(): Promise<Array<{ accountId: number; settings: IssueSettings }>> {
    const rows = await this.all<{ account_id: number; body: string }>('SELECT account_id, body FROM alert_issue_settings ORDER BY account_id');
    return rows.map((r) => ({ accountId: r.account_id, settings: JSON.parse(r.body) as IssueSettings }));
  }

  async saveIssueSettings(accountId: number, settings: IssueSettings): Promise<void> {
    await this.configure((c) => c.query(
      'INSERT INTO alert_issue_settings VALUES ($1, $2) ON CONFLICT (account_id) DO UPDATE SET body = $2', [accountId, JSON.stringify(settings)],
    ));
  }

  async nextId(kind: 'policy' | 'condition' | 'legacyChannel'): Promise<number> {
    const sequence = kind === 'policy' ? 'alert_policy_ids' : kind === 'condition' ? 'alert_condition_ids' : 'alert_legacy_channel_ids';
    const rows = await this.all<{ id: number }>(`SELECT nextval('${sequence}') AS id`);
    return rows[0]!.id;
  }

  async savePolicy(stored: StoredPolicy): Promise<void> {
    const p = stored.policy;
    await this.configure((c) => c.query(
      `INSERT INTO alert_policies VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET account_id = $2, body = $3, created_at = $4, updated_at = $5`,
      [Number(p.id), p.accountId, JSON.stringify(p), stored.createdAt, stored.updatedAt],
    ));
  }

  async deletePolicy(accountId: number, policyId: string): Promise<void> {
    await this.configure(async (c) => {
      const id = Number(policyId);
      await c.query('DELETE FROM alert_evaluator_states WHERE condition_id IN (SELECT id FROM alert_conditions WHERE account_id = $1 AND policy_id = $2)', [accountId, id]);
      await c.query('DELETE FROM alert_conditions WHERE account_id = $1 AND policy_id = $2', [accountId, id]);
      await c.query('DELETE FROM alert_policies WHERE account_id = $1 AND id = $2', [accountId, id]);
    });
  }

  async saveCondition(stored: StoredCondition): Promise<void> {
    const k = stored.condition;
    await this.configure((c) => c.query(
      `INSERT INTO alert_conditions VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO UPDATE SET account_id = $2, policy_id = $3, body = $4, created_at = $5, updated_at = $6`,
      [Number(k.id), k.accountId, Number(k.policyId), JSON.stringify(k), stored.createdAt, stored.updatedAt],
    ));
  }

  async deleteCondition(accountId: number, conditionId: string): Promise<void> {
    await this.configure(async (c) => {
      await c.query('DELETE FROM alert_evaluator_states WHERE condition_id = $1', [Number(conditionId)]);
      await c.query('DELETE FROM alert_conditions WHERE account_id = $1 AND id = $2', [accountId, Number(conditionId)]);
    });
  }

  async commit(change: AlertStateChange): Promise<void> {
    const outbox = change.outbox ?? [];
    if (change.evaluatorStates.size === 0 && change.incidents.length === 0 && change.issues.length === 0 && outbox.length === 0) return;
    // One statement per table: the rows travel as arrays (unnest), so a cycle that opens thousands of
    // incidents is a handful of round trips, not thousands.
    await this.db.transaction(async (c) => {
      if (change.evaluatorStates.size > 0) {
        const ids = [...change.evaluatorStates.keys()].map(Number);
        const states = [...change.evaluatorStates.values()].map((s) => JSON.stringify(s));
        await c.query(
          `INSERT INTO alert_evaluator_states SELECT * FROM unnest($1::int[], $2::text[])
           ON CONFLICT (condition_id) DO UPDATE SET state = EXCLUDED.state`,
          [ids, states],
        );
      }
      if (change.incidents.length > 0) {
        const i = change.incidents;
        await c.query(
          `INSERT INTO alert_incidents SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::text[], $5::bigint[], $6::bigint[], $7::text[])
           ON CONFLICT (id) DO UPDATE SET account_id = EXCLUDED.account_id, condition_id = EXCLUDED.condition_id, issue_id = EXCLUDED.issue_id,
             opened_at = EXCLUDED.opened_at, closed_at = EXCLUDED.closed_at, body = EXCLUDED.body`,
          [
            i.map((x) => x.id), i.map((x) => x.accountId), i.map((x) => Number(x.conditionId)), i.map((x) => x.issueId),
            i.map((x) => x.detectedAt), i.map((x) => x.closeDetectedAt), i.map((x) => JSON.stringify(x)),
          ],
        );
      }
      if (change.issues.length > 0) {
        const s = change.issues;
        await c.query(
          `INSERT INTO alert_issues SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::bigint[], $5::bigint[], $6::text[])
           ON CONFLICT (id) DO UPDATE SET account_id = EXCLUDED.account_id, state = EXCLUDED.state, created_at = EXCLUDED.created_at,
             closed_at = EXCLUDED.closed_at, body = EXCLUDED.body`,
          [s.map((x) => x.id), s.map((x) => x.accountId), s.map((x) => x.state), s.map((x) => x.createdAt), s.map((x) => x.closedAt), s.map((x) => JSON.stringify(x))],
        );
      }
      await numberNew(c, 'incident', change.incidents.map((i) => i.id));
      await numberNew(c, 'issue', change.issues.map((i) => i.id));
      for (const entry of outbox) {
        await c.query(
          `INSERT INTO alert_notifications (key, account_id, issue_id, channel_id, body, status, attempts, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, 'PENDING', 0, $6, $6) ON CONFLICT (key) DO NOTHING`,
          [entry.key, entry.accountId, entry.issueId, entry.channelId, JSON.stringify(entry), entry.createdAt],
        );
      }
    });
  }

  async issues(accountId: number, from: number, to: number): Promise<Issue[]> {
    const rows = await this.all<{ body: string }>(
      'SELECT body FROM alert_issues WHERE account_id = $1 AND created_at <= $3 AND (closed_at IS NULL OR closed_at >= $2) ORDER BY created_at DESC, id',
      [accountId, from, to],
    );
    return rows.map((r) => JSON.parse(r.body) as Issue);
  }

  async incidents(accountId: number, from: number, to: number): Promise<Incident[]> {
    const rows = await this.all<{ body: string }>(
      'SELECT body FROM alert_incidents WHERE account_id = $1 AND opened_at <= $3 AND (closed_at IS NULL OR closed_at >= $2) ORDER BY opened_at DESC, id',
      [accountId, from, to],
    );
    return rows.map((r) => JSON.parse(r.body) as Incident);
  }

  async loadNotificationConfig(): Promise<NotificationConfig> {
    const read = async <T>(table: string) => (await this.all<{ body: string }>(`SELECT body FROM ${table} ORDER BY seq`)).map((r) => JSON.parse(r.body) as T);
    return {
      destinations: await read<Destination>(NOTIFICATION_TABLES.destination),
      channels: await read<Channel>(NOTIFICATION_TABLES.channel),
      workflows: await read<Workflow>(NOTIFICATION_TABLES.workflow),
    };
  }

  async saveNotificationObject(kind: 'destination' | 'channel' | 'workflow', object: Destination | Channel | Workflow): Promise<void> {
    // An update moves the object to the end of the order, as the DuckDB store's delete-and-insert does.
    const table = NOTIFICATION_TABLES[kind];
    await this.configure(async (c) => {
      await c.query(`DELETE FROM ${table} WHERE id = $1`, [object.id]);
      await c.query(`INSERT INTO ${table} (id, account_id, body) VALUES ($1, $2, $3)`, [object.id, object.accountId, JSON.stringify(object)]);
    });
  }

  async deleteNotificationObject(kind: 'destination' | 'channel' | 'workflow', accountId: number, id: string): Promise<void> {
    await this.configure((c) => c.query(`DELETE FROM ${NOTIFICATION_TABLES[kind]} WHERE account_id = $1 AND id = $2`, [accountId, id]));
  }

  async pendingNotifications(): Promise<OutboxEntry[]> {
    const rows = await this.all<{ body: string }>("SELECT body FROM alert_notifications WHERE status = 'PENDING' ORDER BY created_at, seq");
    return rows.map((r) => JSON.parse(r.body) as OutboxEntry);
  }

  async markNotification(key: string, status: 'SENT' | 'FAILED', attempts: number, at: number): Promise<void> {
    await this.db.pool.query('UPDATE alert_notifications SET status = $2, attempts = $3, updated_at = $4 WHERE key = $1', [key, status, attempts, at]);
  }

  async notificationLog(accountId: number): Promise<Array<OutboxEntry & { status: string; attempts: number }>> {
    const rows = await this.all<{ body: string; status: string; attempts: number }>(
      'SELECT body, status, attempts FROM alert_notifications WHERE account_id = $1 ORDER BY created_at, seq',
      [accountId],
    );
    return rows.map((r) => ({ ...(JSON.parse(r.body) as OutboxEntry), status: r.status, attempts: r.attempts }));
  }

  async restNumbers(kind: RestIdKind, ids: readonly string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const known = await this.readNumbers(kind, ids);
    if (ids.every((id) => known.has(id))) return known;
    await this.db.transaction((c) => numberNew(c, kind, ids));
    return this.readNumbers(kind, ids);
  }

  async restIdOf(kind: RestIdKind, accountId: number, number: number): Promise<string | undefined> {
    const table = kind === 'incident' ? 'alert_incidents' : 'alert_issues';
    const rows = await this.all<{ id: string }>(
      `SELECT r.id FROM alert_rest_ids r JOIN ${table} t ON t.id = r.id WHERE r.kind = $1 AND r.number = $2 AND t.account_id = $3`,
      [kind, number, accountId],
    );
    return rows[0]?.id;
  }

  async restIssues(accountId: number, query: RestIssueQuery): Promise<Array<Numbered<Issue>>> {
    const params: unknown[] = [accountId, query.limit, query.offset];
    let where = 'i.account_id = $1';
    if (query.onlyOpen) where += " AND i.state <> 'CLOSED'";
    if (query.ids !== undefined) {
      if (query.ids.length === 0) return [];
      params.push([...query.ids]);
      where += ` AND i.id = ANY($${params.length}::text[])`;
    }
    const order = query.byLatest === true
      ? "greatest(i.created_at, coalesce(i.closed_at, 0), coalesce((i.body::json->>'acknowledgedAt')::bigint, 0))"
      : 'i.created_at';
    const rows = await this.all<{ body: string; number: number }>(
      `SELECT i.body, r.number FROM alert_issues i JOIN alert_rest_ids r ON r.kind = 'issue' AND r.id = i.id
        WHERE ${where} ORDER BY ${order} DESC, r.number DESC LIMIT $2 OFFSET $3`,
      params,
    );
    return rows.map((r) => ({ number: r.number, value: JSON.parse(r.body) as Issue }));
  }

  async restIncidents(accountId: number, query: RestIncidentQuery): Promise<Array<Numbered<Incident>>> {
    const params: unknown[] = [accountId, query.limit, query.offset];
    const opened = "(i.body::json->>'openedAt')::bigint";
    let where = 'i.account_id = $1';
    if (query.onlyOpen) where += ' AND i.closed_at IS NULL';
    if (query.openedFrom !== undefined) {
      params.push(query.openedFrom);
      where += ` AND ${opened} >= $${params.length}`;
    }
    if (query.openedTo !== undefined) {
      params.push(query.openedTo);
      where += ` AND ${opened} <= $${params.length}`;
    }
    if (query.ids !== undefined) {
      if (query.ids.length === 0) return [];
      params.push([...query.ids]);
      where += ` AND i.id = ANY($${params.length}::text[])`;
    }
    const order = query.byLatest === true ? `greatest(${opened}, coalesce((i.body::json->>'closedAt')::bigint, 0))` : opened;
    const rows = await this.all<{ body: string; number: number }>(
      `SELECT i.body, r.number FROM alert_incidents i JOIN alert_rest_ids r ON r.kind = 'incident' AND r.id = i.id
        WHERE ${where} ORDER BY ${order} DESC, r.number DESC LIMIT $2 OFFSET $3`,
      params,
    );
    return rows.map((r) => ({ number: r.number, value: JSON.parse(r.body) as Incident }));
  }

  async legacyChannels(): Promise<LegacyChannel[]> {
    return (await this.all<{ body: string }>('SELECT body FROM alert_legacy_channels ORDER BY id')).map((r) => JSON.parse(r.body) as LegacyChannel);
  }

  async saveLegacyChannel(channel: LegacyChannel): Promise<void> {
    await this.configure((c) => c.query(
      'INSERT INTO alert_legacy_channels VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET account_id = $2, body = $3',
      [channel.id, channel.accountId, JSON.stringify(channel)],
    ));
  }

  async deleteLegacyChannel(accountId: number, id: number): Promise<void> {
    await this.configure((c) => c.query('DELETE FROM alert_legacy_channels WHERE account_id = $1 AND id = $2', [accountId, id]));
  }

  private async readNumbers(kind: RestIdKind, ids: readonly string[]): Promise<Map<string, number>> {
    const rows = await this.all<{ id: string; number: number }>('SELECT id, number FROM alert_rest_ids WHERE kind = $1 AND id = ANY($2::text[])', [kind, [...ids]]);
    return new Map(rows.map((r) => [r.id, r.number]));
  }
}

const NUMBER_SEQUENCE: Readonly<Record<RestIdKind, string>> = { incident: 'alert_incident_numbers', issue: 'alert_issue_numbers' };

/**
 * Numbers the ids of `kind` that have none yet, in the order given, inside the caller's transaction.
 * Two nodes numbering the same id at once: the second insert finds the first's and adds nothing.
 */
async function numberNew(c: pg.ClientBase, kind: RestIdKind, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const known = new Set((await c.query<{ id: string }>('SELECT id FROM alert_rest_ids WHERE kind = $1 AND id = ANY($2::text[])', [kind, [...ids]])).rows.map((r) => r.id));
  const fresh = [...new Set(ids)].filter((id) => !known.has(id));
  if (fresh.length === 0) return;
  await c.query(
    `INSERT INTO alert_rest_ids (kind, id, number)
     SELECT $1, f.id, nextval('${NUMBER_SEQUENCE[kind]}') FROM (SELECT u.id FROM unnest($2::text[]) WITH ORDINALITY AS u(id, n) ORDER BY u.n) AS f
     ON CONFLICT (kind, id) DO NOTHING`,
    [kind, fresh],
  );
}
