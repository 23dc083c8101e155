import type { Application } from './applications.js';

/** Where one agent run's data goes: its primary application first, then its roll-up applications. */
export interface RunTarget { readonly appId: number; readonly hostId: number; readonly instanceId: number }

export interface AgentRun {
  readonly runId: string;
  readonly accountId: number;
  readonly targets: readonly RunTarget[];
  readonly shutdown: boolean;
}

export interface ConnectFacts {
  readonly appNames: readonly string[];
  readonly language: string | null;
  readonly agentVersion: string | null;
  readonly host: string;
  readonly displayHost: string | null;
  readonly pid: number | null;
  readonly port: number | null;
  readonly userAgent: string | null;
}

/**
 * A run not heard from (no connect, data call or shutdown) for this long is forgotten: its row and
 * its memory go, and a late call with its id gets 409, which makes the agent reconnect, as after a
 * shutdown. Agents harvest every minute, so a live agent is never near it.
 */
export const RUN_IDLE_EXPIRY_MS = 24 * 3_600_000;

/**
 * An instance no run targets any more and that has not connected, called or reported metric data
 * for this long leaves the catalog (REST's instance list, instance metric data): REST v2 keeps
 * minute-resolution data for 8 days, so an instance idle longer has nothing left at that resolution.
 * Its timeslices stay in its application's data; a host whose last instance expires goes with it.
 */
export const INSTANCE_IDLE_EXPIRY_MS = 8 * 24 * 3_600_000;

/** How long runs and instances may stay idle before `expireIdle` removes them. */
export interface IdleExpiry {
  readonly runIdleMs: number;
  readonly instanceIdleMs: number;
}

export const DEFAULT_IDLE_EXPIRY: IdleExpiry = { runIdleMs: RUN_IDLE_EXPIRY_MS, instanceIdleMs: INSTANCE_IDLE_EXPIRY_MS };

/** What `expireIdle` removed. */
export interface ExpiredEntries {
  readonly runs: number;
  readonly instances: number;
  /** Hosts whose last instance expired. */
  readonly hosts: number;
}

/** Agent runs: the run ids agents carry on each data call after connect. */
export interface AgentRuns {
  run(runId: string): AgentRun | undefined;
  /**
   * An agent connected: find or create its applications (by name, per account), host and
   * instance in each, and open a run whose id later data calls must carry.
   */
  connect(accountId: number, facts: ConnectFacts): Promise<{ run: AgentRun; primary: Application }>;
  /**
   * Marks a data call in progress on a run, until the returned function is called: a deletion
   * waits for the calls on the runs it shuts down, so none of their rows lands after it. The
   * call counts as the run (and its instances) being heard from.
   */
  holdRun(runId: string): () => void;
  shutdownRun(runId: string): Promise<void>;
  /** Every run the catalog holds, shut down or live (alerting's expected terminations); optional per engine. */
  allRuns?(): Iterable<AgentRun>;
  /**
   * Removes runs idle for `runIdleMs` and instances idle for `instanceIdleMs` (see
   * `RUN_IDLE_EXPIRY_MS`, `INSTANCE_IDLE_EXPIRY_MS`), and hosts left without an instance, from
   * memory and from the store.
   */
  expireIdle(): Promise<ExpiredEntries>;
}

/**
 * Data calls in progress per agent run, and who waits for them to end (`holdRun`): shutdown and
 * expiry wait for a run's calls instead of cutting one off half stored. Engine-neutral: each
 * catalog keeps one, in memory, for the calls this node serves.
 */
export class RunCalls {
  private readonly calls = new Map<string, { count: number; ended: (() => void)[] }>();

  /** Counts a call on the run; the function returned ends it (once, however often called). `heard` runs at both ends. */
  hold(runId: string, heard: () => void): () => void {
    let held = this.calls.get(runId);
    if (held === undefined) this.calls.set(runId, (held = { count: 0, ended: [] }));
    const calls = held;
    calls.count++;
    heard();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      heard();
      if (--calls.count > 0) return;
      this.calls.delete(runId);
      for (const resolve of calls.ended) resolve();
    };
  }

  /** Whether a call on the run is in progress. */
  busy(runId: string): boolean {
    return this.calls.has(runId);
  }

  /** Resolves once the run has no call in progress. */
  ended(runId: string): Promise<void> {
    const calls = this.calls.get(runId);
    return calls ? new Promise((resolve) => calls.ended.push(resolve)) : Promise.resolve();
  }
}
