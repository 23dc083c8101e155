import type { ChangeTrackingRecords, Deployment } from './deployments.js';

/**
 * What of deployments is not an event: REST v2's deployment ids (one sequence, never reused) and
 * which deployments REST deleted. Where a shared catalog keeps it, every node hands out distinct
 * ids and hides the same deployments, whichever engine holds the events.
 */
export interface DeploymentState {
  nextDeploymentId(): Promise<number>;
  deletedDeploymentIds(accountId: number, appId: number): Promise<number[]>;
  isDeleted(accountId: number, id: number): Promise<boolean>;
  recordDeleted(accountId: number, appId: number, id: number, at: number): Promise<void>;
}

/**
 * Change tracking with its events in the data engine (`events`, whose own deletion records stay
 * empty) and ids and deletions in `state`.
 */
export function withDeploymentState(events: ChangeTrackingRecords, state: DeploymentState): ChangeTrackingRecords {
  return {
    append: (accountId, appId, timestamp, eventType, attributes) => events.append(accountId, appId, timestamp, eventType, attributes),
    nextDeploymentId: () => state.nextDeploymentId(),
    async find(accountId: number, appId: number, id: number): Promise<Deployment | undefined> {
      const found = await events.find(accountId, appId, id);
      return found && !(await state.isDeleted(accountId, id)) ? found : undefined;
    },
    deletedDeploymentIds: (accountId, appId) => state.deletedDeploymentIds(accountId, appId),
    recordDeleted: (accountId, appId, id, at) => state.recordDeleted(accountId, appId, id, at),
  };
}
