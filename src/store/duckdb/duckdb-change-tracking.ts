import type { DuckDBValue } from '@duckdb/node-api';
import type { BatchWriter } from '../batch-writer.js';
import type { DataEngine } from '../data-engine.js';
import {
  CHANGE_TRACKING_EVENT_TYPE, DEPLOYMENT_CATEGORY, DEPLOYMENT_EVENT_TYPE, type AttributeValue, type ChangeTrackingRecords, type Deployment,
} from '../deployments.js';
import { CUSTOM_EVENTS, Rows } from '../append-tables.js';
import type { Database } from './database.js';
import { timestampValue } from './duckdb-values.js';
import { withOwnConnection } from './own-connection.js';

/**
 * Change tracking events as rows of `custom_events` (written through the batch writer), deployment
 * ids from the `deployment_ids` sequence, REST deletions in `deleted_deployments`.
 */
export class DuckDbChangeTrackingRecords implements ChangeTrackingRecords {
  constructor(
    private readonly db: Database,
    private readonly writer: Pick<BatchWriter, 'write'>,
    /** Where the events are when another engine holds them (ClickHouse); the DuckDB file otherwise. */
    private readonly data?: Pick<DataEngine, 'changeTrackingEvents'>,
  ) {}

  async append(accountId: number, appId: number, timestamp: number, eventType: string, attributes: string): Promise<void> {
    const rows = new Rows(CUSTOM_EVENTS);
    rows.push(accountId, appId, 0, 0, timestamp, eventType, attributes);
    await this.writer.write([rows]);
  }

  async find(accountId: number, appId: number, id: number): Promise<Deployment | undefined> {
    if (this.data) return this.findIn(this.data, accountId, appId, id);
    const rows = await this.db.all<DeploymentRow>(
      `SELECT account_id, app_id, epoch_ms(timestamp) AS ms, attributes FROM custom_events
       WHERE ${DEPLOYMENT_ROWS} AND ${DEPLOYMENT_ID} = $3
         AND NOT EXISTS (SELECT 1 FROM deleted_deployments d WHERE d.account_id = $1 AND d.deployment_id = $3)`,
      [accountId, appId, id],
    );
    return rows.length === 0 ? undefined : deploymentOf(rows[0]!);
  }

  /** The same rules as DEPLOYMENT_ROWS, over the events another engine returns. */
  private async findIn(data: Pick<DataEngine, 'changeTrackingEvents'>, accountId: number, appId: number, id: number): Promise<Deployment | undefined> {
    if ((await this.deletedDeploymentIds(accountId, appId)).includes(id)) return undefined;
    for (const event of await data.changeTrackingEvents(accountId, appId)) {
      let a: Record<string, unknown>;
      try {
        a = JSON.parse(event.attributes) as Record<string, unknown>;
      } catch {
        continue;
      }
      const source = a['service.source'];
      if (a.category !== DEPLOYMENT_CATEGORY || Number(a.deploymentId) !== id || !Number.isSafeInteger(Number(a.deploymentId))) continue;
      if (typeof source !== 'string' || !source.startsWith('timeslice:')) continue;
      return deploymentOf({ account_id: accountId, app_id: appId, ms: BigInt(event.timeMs), attributes: event.attributes });
    }
    return undefined;
  }

  async deletedDeploymentIds(accountId: number, appId: number): Promise<number[]> {
    const rows = await this.db.all<{ id: bigint }>(
      'SELECT deployment_id AS id FROM deleted_deployments WHERE account_id = $1 AND app_id = $2 ORDER BY deployment_id', [accountId, appId],
    );
    return rows.map((r) => Number(r.id));
  }

  async recordDeleted(accountId: number, appId: number, id: number, at: number): Promise<void> {
    await withOwnConnection(this.db, (c) =>
      c.run('INSERT INTO deleted_deployments VALUES ($1, $2, $3, $4)', [accountId, appId, id, timestampValue(at)] as DuckDBValue[]),
    );
  }

  async nextDeploymentId(): Promise<number> {
    const reader = await withOwnConnection(this.db, (c) => c.runAndReadAll("SELECT nextval('deployment_ids') AS id"));
    return Number(reader.getRowObjectsJS()[0]!.id);
  }
}

// TRY_CAST: a row whose deploymentId is not a whole number is no deployment, never a failed query.
const DEPLOYMENT_ID = "TRY_CAST(json_extract(attributes, '$.deploymentId') AS BIGINT)";

/** `$1` account, `$2` application. */
const DEPLOYMENT_ROWS = `account_id = $1 AND app_id = $2 AND event_type IN ('${CHANGE_TRACKING_EVENT_TYPE}', '${DEPLOYMENT_EVENT_TYPE}')
  AND json_extract_string(attributes, '$.category') = '${DEPLOYMENT_CATEGORY}' AND ${DEPLOYMENT_ID} IS NOT NULL
  AND starts_with(json_extract_string(attributes, '$."service.source"'), 'timeslice:')`;

interface DeploymentRow {
  account_id: number;
  app_id: number;
  ms: bigint;
  attributes: string;
}

function deploymentOf(row: DeploymentRow): Deployment {
  const a = JSON.parse(row.attributes) as Record<string, AttributeValue | undefined>;
  const text = (v: AttributeValue | undefined) => (v === undefined ? null : String(v));
  return {
    id: Number(a.deploymentId),
    appId: row.app_id,
    accountId: row.account_id,
    changeTrackingId: String(a.changeTrackingId),
    timestamp: Number(row.ms),
    revision: text(a.version),
    changelog: text(a.changelog),
    description: text(a.description),
    user: text(a.user),
    source: String(a['service.source'] ?? ''),
  };
}

