import { DOUBLE, INTEGER, LIST, VARCHAR, listValue, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import type { AlertPolicy, Incident, Issue, NrqlCondition } from '../../domain/alerts/alert-model.js';
import type { ConditionEvaluatorState } from '../../domain/alerts/condition-evaluator.js';
import type { Channel, Destination, Workflow } from '../../domain/alerts/notification-model.js';
import type { MutingRule } from '../../domain/alerts/muting-rules.js';
import type { IssueSettings } from '../../domain/alerts/issue-tracker.js';
import type { LegacyChannel } from '../../domain/alerts/legacy-channel.js';
import type {
  AlertRecords, AlertSnapshot, AlertStateChange, Numbered, NotificationConfig, OutboxEntry, RestIdKind, RestIncidentQuery, RestIssueQuery, StoredCondition, StoredPolicy,
} from '../alert-records.js';

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

  async nextId(kind: 'policy' | 'condition' | 'legacyChannel'): Promise<number> {
    const sequence = kind === 'policy' ? 'alert_policy_ids' : kind === 'condition' ? 'alert_condition_ids' : 'alert_legacy_channel_ids';
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
      await numberNew(c, 'incident', change.incidents.map((i) => i.id));
      await numberNew(c, 'issue', change.issues.map((i) => i.id));
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

  async restNumbers(kind: RestIdKind, ids: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (ids.length === 0) return out;
    const known = await this.readNumbers(kind, ids);
    if (ids.some((id) => !known.has(id))) {
      await this.transaction((c) => numberNew(c, kind, ids));
      return this.readNumbers(kind, ids);
    }
    return known;
  }

  async restIdOf(kind: RestIdKind, accountId: number, number: number): Promise<string | undefined> {
    const table = kind === 'incident' ? 'alert_incidents' : 'alert_issues';
    const rows = await this.db.all<{ id: string }>(
      `SELECT r.id FROM alert_rest_ids r JOIN ${table} t ON t.id = r.id WHERE r.kind = $1 AND r.number = $2 AND t.account_id = $3`,
      [kind, number, accountId],
    );
    return rows[0]?.id;
  }

  async restIssues(accountId: number, query: RestIssueQuery): Promise<Array<Numbered<Issue>>> {
    const params: DuckDBValue[] = [accountId, query.limit, query.offset];
    let where = 'i.account_id = $1';
    if (query.onlyOpen) where += " AND i.state <> 'CLOSED'";
    if (query.ids !== undefined) {
      if (query.ids.length === 0) return [];
      params.push(listValue([...query.ids]));
      where += ` AND list_contains($${params.length}, i.id)`;
    }
    const order = query.byLatest === true
      ? "greatest(i.created_at, coalesce(i.closed_at, 0), coalesce(CAST(json_extract_string(i.body, '$.acknowledgedAt') AS BIGINT), 0))"
      : 'i.created_at';
    const rows = await this.db.all<{ body: string; number: bigint }>(
      `SELECT i.body, r.number FROM alert_issues i JOIN alert_rest_ids r ON r.kind = 'issue' AND r.id = i.id
        WHERE ${where} ORDER BY ${order} DESC, r.number DESC LIMIT $2 OFFSET $3`,
      params,
    );
    return rows.map((r) => ({ number: Number(r.number), value: JSON.parse(r.body) as Issue }));
  }

  async restIncidents(accountId: number, query: RestIncidentQuery): Promise<Array<Numbered<Incident>>> {
    const params: DuckDBValue[] = [accountId, query.limit, query.offset];
    const opened = "CAST(json_extract_string(i.body, '$.openedAt') AS BIGINT)";
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
      params.push(listValue([...query.ids]));
      where += ` AND list_contains($${params.length}, i.id)`;
    }
    const order = query.byLatest === true ? `greatest(${opened}, coalesce(CAST(json_extract_string(i.body, '$.closedAt') AS BIGINT), 0))` : opened;
    const rows = await this.db.all<{ body: string; number: bigint }>(
      `SELECT i.body, r.number FROM alert_incidents i JOIN alert_rest_ids r ON r.kind = 'incident' AND r.id = i.id
        WHERE ${where} ORDER BY ${order} DESC, r.number DESC LIMIT $2 OFFSET $3`,
      params,
    );
    return rows.map((r) => ({ number: Number(r.number), value: JSON.parse(r.body) as Incident }));
  }

  async legacyChannels(): Promise<LegacyChannel[]> {
    const rows = await this.db.all<{ body: string }>('SELECT body FROM alert_legacy_channels ORDER BY id');
    return rows.map((r) => JSON.parse(r.body) as LegacyChannel);
  }

  saveLegacyChannel(channel: LegacyChannel): Promise<void> {
    return this.transaction(async (c) => {
      await c.run('DELETE FROM alert_legacy_channels WHERE id = $1', [channel.id]);
      await c.run('INSERT INTO alert_legacy_channels VALUES ($1, $2, $3)', [channel.id, channel.accountId, JSON.stringify(channel)]);
    });
  }

  deleteLegacyChannel(accountId: number, id: number): Promise<void> {
    return this.transaction(async (c) => {
      await c.run('DELETE FROM alert_legacy_channels WHERE account_id = $1 AND id = $2', [accountId, id]);
    });
  }

  private async readNumbers(kind: RestIdKind, ids: readonly string[]): Promise<Map<string, number>> {
    const rows = await this.db.all<{ id: string; number: bigint }>(
      'SELECT id, number FROM alert_rest_ids WHERE kind = $1 AND list_contains($2, id)',
      [kind, listValue([...ids])],
    );
    return new Map(rows.map((r) => [r.id, Number(r.number)]));
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

const NUMBER_SEQUENCE: Readonly<Record<RestIdKind, string>> = { incident: 'alert_incident_numbers', issue: 'alert_issue_numbers' };

/** Numbers the ids of `kind` that have none yet, in the order given (inside the caller's transaction). */
async function numberNew(c: DuckDBConnection, kind: RestIdKind, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const reader = await c.runAndReadAll('SELECT id FROM alert_rest_ids WHERE kind = $1 AND list_contains($2, id)', [kind, listValue([...ids])]);
  const known = new Set(reader.getRowObjectsJS().map((r) => String(r.id)));
  const fresh = [...new Set(ids)].filter((id) => !known.has(id));
  if (fresh.length === 0) return;
  // Three statements whatever the count (a cycle may open thousands): the numbers, in order, then one
  // insert zipping them with the ids, so the n-th id given gets the n-th number.
  const drawn = await c.runAndReadAll(`SELECT nextval('${NUMBER_SEQUENCE[kind]}') AS n FROM range($1) ORDER BY n`, [fresh.length]);
  const numbers = drawn.getRowObjectsJS().map((r) => Number(r.n));
  await c.run('INSERT INTO alert_rest_ids SELECT $1, unnest($2), unnest($3)', [kind, listValue(fresh), listValue(numbers)]);
}
