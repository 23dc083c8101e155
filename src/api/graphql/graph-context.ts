import { GraphError } from './graph-errors.js';
import { GraphLoaders } from './graph-loaders.js';
import type { GraphServices } from './graph-services.js';

/** Queries one request may run (each alias of `nrql`, `entitySearch`… counts). */
export const MAX_QUERIES_PER_REQUEST = 50;

/** Who is asking: a user API key stands for one user of one account. */
export interface Principal {
  readonly accountId: number;
  /** The key's kind and last four characters (`NRAK-…WXYZ`). */
  readonly keyHint: string;
  /** Timeslice has no user records: a key stands for its user, whose id is the key's. */
  readonly userId: number;
  readonly userName: string;
  /** Epoch ms the key was created, when known. */
  readonly createdAt: number | null;
}

/**
 * One request's context. The account a resolver reads is always named by the operation (an
 * argument or an entity GUID), never taken from the key; `requireAccount` is the one gate.
 */
export class GraphContext {
  readonly loaders: GraphLoaders;
  /** The request's clock reading: every summary and window in one response ends at the same time. */
  readonly nowMs: number;
  private queries = 0;

  constructor(readonly services: GraphServices, readonly principal: Principal, readonly origin: string) {
    this.nowMs = services.clock.now();
    this.loaders = new GraphLoaders(services, this.nowMs);
  }

  /**
   * Counts one query (NRQL, an entity search, a deployment search) against the request's budget.
   * Aliases let one document ask for any number of them, each holding a read connection for up to
   * its timeout; past MAX_QUERIES_PER_REQUEST the rest are refused and the document must be split.
   */
  spendQuery(): void {
    if (++this.queries > MAX_QUERIES_PER_REQUEST) {
      throw GraphError.invalidInput(
        `A request may run at most ${MAX_QUERIES_PER_REQUEST} queries (NRQL, entity searches, deployment searches); this one asks for more: send them in several requests`,
      );
    }
  }

  canRead(accountId: number): boolean {
    return accountId === this.principal.accountId;
  }

  requireAccount(accountId: number): void {
    if (!this.canRead(accountId)) throw GraphError.forbidden(accountId);
  }

  /** Accounts the key may read (NerdGraph's `actor.accounts`). */
  readableAccounts(): number[] {
    return [this.principal.accountId];
  }
}
