import { availableParallelism } from 'node:os';
import type { AggregatePlan, RowsPlan } from '../plan/aggregate-plan.js';
import type { AggregateColumns, PlanExecutor, QueryOptions, RowsResult } from '../store/plan-executor.js';

/**
 * How many queries run at once. A query holds a DuckDB read connection and DuckDB's threads
 * for its whole run, and its result is shaped on the event loop: past a few at once, each only
 * waits longer, while ingest commits and every other request wait behind all of them.
 */
export interface AdmissionLimits {
  /** Queries running at once on this node. */
  readonly perNode: number;
  /** Queries running at once for one account (a query over several accounts counts for each). */
  readonly perAccount: number;
  /** The longest a query waits for its turn before it is refused (429). */
  readonly queueMs: number;
  /** Queries waiting on this node; one more is refused at once. */
  readonly queueLength: number;
}

/** Two cores: one query at a time per core would leave none to ingest; one per core less one, at least one. */
export function defaultAdmissionLimits(cores = availableParallelism()): AdmissionLimits {
  const perNode = Math.max(1, cores - 1);
  return { perNode, perAccount: perNode, queueMs: 10_000, queueLength: 200 };
}

/** A query not admitted: too many running and its wait ran out, or the queue is full. Clients retry it. */
export class QueryRefusedError extends Error {
  override readonly name = 'QueryRefusedError';

  constructor(message: string, readonly retryAfterSeconds: number) {
    super(message);
  }
}

interface Waiter {
  readonly accountIds: readonly number[];
  readonly admit: () => void;
}

/**
 * One controller per node for every query surface: the NRQL engine (its route, the graph's `nrql`,
 * `nrdbQuery` and async queries, `timeslice query`) admits each query once for all its
 * statements; REST metric data admits each statement through `admittedExecutor`. A query runs
 * when the node and each of its accounts are under their limits; otherwise it waits in arrival
 * order, and a waiting query whose accounts are full does not hold up another account's.
 */
export class QueryAdmission {
  private runningOnNode = 0;
  private readonly runningPerAccount = new Map<number, number>();
  private readonly waiting: Waiter[] = [];

  constructor(readonly limits: AdmissionLimits) {
    for (const [name, value] of Object.entries(limits)) {
      if (!Number.isSafeInteger(value) || value < (name === 'queueMs' || name === 'queueLength' ? 0 : 1)) {
        throw new RangeError(`admission limit ${name} must be a whole number${name === 'queueMs' || name === 'queueLength' ? '' : ' of at least 1'}, got ${value}`);
      }
    }
  }

  /** Queries running and waiting now (for tests and diagnostics). */
  get state(): { readonly running: number; readonly waiting: number } {
    return { running: this.runningOnNode, waiting: this.waiting.length };
  }

  /**
   * Runs `work` once admitted. `deadline` (a `performance.now()` time, the query's own timeout)
   * shortens the wait when it comes before the queue's.
   */
  async run<T>(accountIds: readonly number[], work: () => Promise<T>, deadline?: number): Promise<T> {
    const accounts = [...new Set(accountIds)];
    // Every waiting query that fits has been admitted already (see give), so one that fits now jumps no queue.
    if (this.fits(accounts)) this.take(accounts);
    else await this.wait(accounts, deadline);
    try {
      return await work();
    } finally {
      this.give(accounts);
    }
  }

  private fits(accounts: readonly number[]): boolean {
    return this.runningOnNode < this.limits.perNode && accounts.every((a) => (this.runningPerAccount.get(a) ?? 0) < this.limits.perAccount);
  }

  private take(accounts: readonly number[]): void {
    this.runningOnNode++;
    for (const a of accounts) this.runningPerAccount.set(a, (this.runningPerAccount.get(a) ?? 0) + 1);
  }

  private give(accounts: readonly number[]): void {
    this.runningOnNode--;
    for (const a of accounts) {
      const left = (this.runningPerAccount.get(a) ?? 1) - 1;
      if (left === 0) this.runningPerAccount.delete(a);
      else this.runningPerAccount.set(a, left);
    }
    // The first waiting query that fits now, in arrival order.
    for (let i = 0; i < this.waiting.length && this.runningOnNode < this.limits.perNode; i++) {
      const w = this.waiting[i]!;
      if (!this.fits(w.accountIds)) continue;
      this.waiting.splice(i, 1);
      i--;
      this.take(w.accountIds);
      w.admit();
    }
  }

  private wait(accounts: readonly number[], deadline: number | undefined): Promise<void> {
    const { perNode, perAccount, queueMs, queueLength } = this.limits;
    const busy = `${perNode} queries run at once on this server and ${perAccount} per account`;
    if (this.waiting.length >= queueLength) {
      return Promise.reject(new QueryRefusedError(`Too many queries: ${busy}, and ${queueLength} are already waiting; retry shortly`, 1));
    }
    const waitMs = Math.max(0, Math.min(queueMs, deadline === undefined ? queueMs : deadline - performance.now()));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(waiter);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        reject(new QueryRefusedError(`Too many queries: ${busy}; this one waited ${formatSeconds(waitMs)} s for its turn and was not run; retry shortly`, Math.max(1, Math.ceil(waitMs / 1000))));
      }, waitMs);
      const waiter: Waiter = { accountIds: accounts, admit: () => { clearTimeout(timer); resolve(); } };
      this.waiting.push(waiter);
    });
  }
}

function formatSeconds(ms: number): string {
  return String(Math.round(ms) / 1000);
}

/** A plan's accounts: one id or a list. */
function accountsOf(plan: AggregatePlan | RowsPlan): readonly number[] {
  return typeof plan.accountId === 'number' ? [plan.accountId] : plan.accountId;
}

/** An executor whose every statement is admitted on its own: for surfaces that run one statement per request (REST metric data). */
export function admittedExecutor(executor: PlanExecutor, admission: QueryAdmission): PlanExecutor {
  return {
    aggregate: (plan: AggregatePlan, options?: QueryOptions): Promise<AggregateColumns> => admission.run(accountsOf(plan), () => executor.aggregate(plan, options), options?.deadline),
    rows: (plan: RowsPlan, options?: QueryOptions): Promise<RowsResult> => admission.run(accountsOf(plan), () => executor.rows(plan, options), options?.deadline),
    regexError: (pattern: string) => executor.regexError(pattern),
  };
}
