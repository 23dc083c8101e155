import { randomBytes } from 'node:crypto';
import { listValue } from '@duckdb/node-api';
import { RunCalls, type AgentRun, type ConnectFacts, type RunTarget } from '../../catalog/agent-runs.js';
import type { CatalogWrites } from './catalog-writes.js';

/**
 * Agent runs (`agent_runs`), in memory for the hot path and written through. Its writes are
 * called with the catalog's lock held.
 */
export class DuckDbAgentRuns {
  private readonly runs = new Map<string, AgentRun>();
  /**
   * Epoch ms each run was last heard from: its connect, a data call, its shutdown. A run loaded
   * at start counts as heard from then: the time of its last call before the restart is not stored.
   */
  private readonly lastHeard = new Map<string, number>();
  /** Data calls in progress per run, and who waits for them to end. */
  private readonly calls = new RunCalls();

  constructor(private readonly w: CatalogWrites) {}

  /** Loads the runs; calls `seen` with each target and the latest time the table records for its run. */
  async load(seen: (target: RunTarget, at: number) => void): Promise<void> {
    const loadedAt = this.w.clock.now();
    for (const r of await this.w.db.all<{ run_id: string; account_id: number; targets: string; shutdown: boolean; last_ms: bigint }>(
      `SELECT run_id, account_id, targets, shutdown_at IS NOT NULL AS shutdown,
         epoch_ms(greatest(connected_at, coalesce(shutdown_at, connected_at))) AS last_ms FROM agent_runs`,
    )) {
      const targets = (JSON.parse(r.targets) as [number, number, number][]).map(([appId, hostId, instanceId]) => ({ appId, hostId, instanceId }));
      this.runs.set(r.run_id, { runId: r.run_id, accountId: r.account_id, targets, shutdown: r.shutdown });
      this.lastHeard.set(r.run_id, loadedAt);
      for (const t of targets) seen(t, Number(r.last_ms));
    }
  }

  get(runId: string): AgentRun | undefined {
    return this.runs.get(runId);
  }

  /** Runs with a target in application `appId`. */
  targeting(appId: number): AgentRun[] {
    return [...this.runs.values()].filter((r) => r.targets.some((t) => t.appId === appId));
  }

  all(): IterableIterator<AgentRun> {
    return this.runs.values();
  }

  async open(accountId: number, primaryAppId: number, targets: readonly RunTarget[], facts: ConnectFacts): Promise<AgentRun> {
    const run: AgentRun = { runId: randomBytes(18).toString('base64url'), accountId, targets, shutdown: false };
    await this.w.exec('INSERT INTO agent_runs VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)', [
      run.runId, accountId, primaryAppId, JSON.stringify(targets.map((t) => [t.appId, t.hostId, t.instanceId])),
      facts.agentVersion, facts.language, facts.userAgent, this.w.now(),
    ]);
    this.runs.set(run.runId, run);
    this.lastHeard.set(run.runId, this.w.clock.now());
    return run;
  }

  /** See `AgentRuns.holdRun`. */
  hold(runId: string): () => void {
    return this.calls.hold(runId, () => this.heard(runId));
  }

  private heard(runId: string): void {
    if (this.runs.has(runId)) this.lastHeard.set(runId, this.w.clock.now());
  }

  callsEnded(runId: string): Promise<void> {
    return this.calls.ended(runId);
  }

  /** Marks runs shut down: in memory first, in the same turn, so data calls on them are refused from here on. */
  async markShutdown(runs: readonly AgentRun[]): Promise<void> {
    const active = runs.filter((r) => !r.shutdown);
    for (const run of active) this.runs.set(run.runId, { ...run, shutdown: true });
    for (const run of active) {
      this.lastHeard.set(run.runId, this.w.clock.now());
      await this.w.exec('UPDATE agent_runs SET shutdown_at = $1 WHERE run_id = $2', [this.w.now(), run.runId]);
    }
  }

  /** Runs last heard from before `before` with no data call in progress. */
  idle(before: number): AgentRun[] {
    return [...this.runs.values()].filter((r) => (this.lastHeard.get(r.runId) ?? -Infinity) < before && !this.calls.busy(r.runId));
  }

  /** Deletes the runs' rows; the caller holds a transaction open and calls `forget` once it commits. */
  async deleteRows(runs: readonly AgentRun[]): Promise<void> {
    if (runs.length === 0) return;
    await this.w.db.catalogConnection.run('DELETE FROM agent_runs WHERE list_contains($1, run_id)', [listValue(runs.map((r) => r.runId))]);
  }

  forget(runs: readonly AgentRun[]): void {
    for (const run of runs) {
      this.runs.delete(run.runId);
      this.lastHeard.delete(run.runId);
    }
  }
}
