import type { Clock } from '../clock.js';
import type { Application } from './catalog.js';
import type { Database } from './database.js';
import { timestampValue } from './duckdb-values.js';
import { Mutex } from './mutex.js';
import { runOnOwnConnection } from './own-connection.js';

/** A transaction of an application watched on its own, with its own Apdex T. */
export interface KeyTransaction {
  readonly id: number;
  readonly accountId: number;
  readonly appId: number;
  readonly name: string;
  /** The transaction's metric, e.g. `WebTransaction/Expressjs/GET//users` (NerdGraph's `metricName`). */
  readonly metricName: string;
  /** Seconds. */
  readonly apdexT: number;
  /** Seconds; browser (end user) Apdex T. */
  readonly browserApdexT: number;
  /** Epoch ms. */
  readonly createdAt: number;
}

export interface NewKeyTransaction {
  readonly application: Application;
  readonly name: string;
  readonly metricName: string;
  /** The application's Apdex T when not given. */
  readonly apdexT?: number;
  /** The application's end-user Apdex T when not given. */
  readonly browserApdexT?: number;
}

/** Agents name transactions `WebTransaction/…` (web) or `OtherTransaction/…` (background). */
const TRANSACTION_METRIC = /^(WebTransaction|OtherTransaction)\/\S/;

/**
 * Key transactions, in memory and written through to DuckDB (`key_transactions`). REST v2 reads
 * them; NerdGraph's `keyTransactionCreate` and tests create them.
 */
export class KeyTransactions {
  private readonly mutex = new Mutex();
  private readonly byId = new Map<number, KeyTransaction>();
  private highestId = 0;

  private constructor(private readonly db: Database, private readonly clock: Clock) {}

  static async load(db: Database, clock: Clock): Promise<KeyTransactions> {
    const store = new KeyTransactions(db, clock);
    for (const r of await db.all<{
      id: number; account_id: number; app_id: number; name: string; metric_name: string; apdex_t: number; browser_apdex_t: number; created_ms: bigint;
    }>('SELECT id, account_id, app_id, name, metric_name, apdex_t, browser_apdex_t, epoch_ms(created_at) AS created_ms FROM key_transactions')) {
      store.byId.set(r.id, {
        id: r.id, accountId: r.account_id, appId: r.app_id, name: r.name, metricName: r.metric_name,
        apdexT: r.apdex_t, browserApdexT: r.browser_apdex_t, createdAt: Number(r.created_ms),
      });
      store.highestId = Math.max(store.highestId, r.id);
    }
    return store;
  }

  /**
   * Makes `metricName` of the application a key transaction. Refused (RangeError, with a message
   * for the caller) when the name is empty or over 255 characters or already names a key
   * transaction of the account, when the metric is not a transaction's, when the transaction
   * already is a key transaction, or when an Apdex T is not a positive number of seconds.
   */
  async create(input: NewKeyTransaction): Promise<KeyTransaction> {
    const name = input.name.trim();
    if (name === '' || name.length > 255) throw new RangeError('a key transaction name is 1 to 255 characters');
    if (!TRANSACTION_METRIC.test(input.metricName)) {
      throw new RangeError(`'${input.metricName}' is not a transaction metric: expected WebTransaction/… or OtherTransaction/…`);
    }
    const apdexT = input.apdexT ?? input.application.apdexT;
    const browserApdexT = input.browserApdexT ?? input.application.endUserApdexT;
    for (const [field, value] of [['apdexT', apdexT], ['browserApdexT', browserApdexT]] as const) {
      if (!(Number.isFinite(value) && value > 0)) throw new RangeError(`${field} must be a positive number of seconds`);
    }
    const app = input.application;
    return this.mutex.run(async () => {
      for (const kt of this.byId.values()) {
        if (kt.accountId !== app.accountId) continue;
        if (kt.name === name) throw new RangeError(`a key transaction named '${name}' already exists`);
        if (kt.appId === app.id && kt.metricName === input.metricName) {
          throw new RangeError(`${input.metricName} of application ${app.id} already is key transaction ${kt.id}`);
        }
      }
      const kt: KeyTransaction = {
        id: this.highestId + 1, accountId: app.accountId, appId: app.id, name, metricName: input.metricName,
        apdexT, browserApdexT, createdAt: this.clock.now(),
      };
      await runOnOwnConnection(this.db, 'INSERT INTO key_transactions VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
        kt.id, kt.accountId, kt.appId, kt.name, kt.metricName, kt.apdexT, kt.browserApdexT, timestampValue(kt.createdAt),
      ]);
      this.highestId = kt.id;
      this.byId.set(kt.id, kt);
      return kt;
    });
  }

  get(id: number): KeyTransaction | undefined {
    return this.byId.get(id);
  }

  list(accountId: number): KeyTransaction[] {
    return [...this.byId.values()].filter((kt) => kt.accountId === accountId);
  }

  /** An application's key transactions (their agents get each one's Apdex T at connect). */
  forApplication(appId: number): KeyTransaction[] {
    return [...this.byId.values()].filter((kt) => kt.appId === appId);
  }
}
