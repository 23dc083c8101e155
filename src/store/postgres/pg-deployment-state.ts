import type { DeploymentState } from '../deployment-state.js';
import type { PostgresDatabase } from './pg-database.js';

/** Deployment ids and REST's deletions in the shared catalog: the same on every node, read when asked (never cached). */
export class PgDeploymentState implements DeploymentState {
  constructor(private readonly db: PostgresDatabase) {}

  async nextDeploymentId(): Promise<number> {
    return (await this.db.pool.query<{ id: number }>("SELECT nextval('deployment_ids') AS id")).rows[0]!.id;
  }

  async deletedDeploymentIds(accountId: number, appId: number): Promise<number[]> {
    const { rows } = await this.db.pool.query<{ id: number }>(
      'SELECT deployment_id AS id FROM deleted_deployments WHERE account_id = $1 AND app_id = $2 ORDER BY deployment_id', [accountId, appId],
    );
    return rows.map((r) => r.id);
  }

  async isDeleted(accountId: number, id: number): Promise<boolean> {
    return (await this.db.pool.query('SELECT 1 FROM deleted_deployments WHERE account_id = $1 AND deployment_id = $2', [accountId, id])).rowCount !== 0;
  }

  async recordDeleted(accountId: number, appId: number, id: number, at: number): Promise<void> {
    await this.db.pool.query('INSERT INTO deleted_deployments VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [accountId, appId, id, at]);
  }
}
