import type { Clock } from '../clock.js';
import type { Application } from './catalog.js';
import type { Database } from './duckdb/database.js';
import { timestampValue } from './duckdb/duckdb-values.js';
import { EntityIds } from './entity-ids.js';
import { Mutex } from './mutex.js';
import { runOnOwnConnection } from './duckdb/own-connection.js';
import { entityName, entityNameRule } from '../domain/entity-name.js';

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

/** What NerdGraph's `keyTransactionUpdate` may change. */
export interface KeyTransactionChanges {
  readonly name?: string;
  readonly apdexT?: number;
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

  private constructor(private readonly db: Database, private readonly clock: Clock, private readonly ids: EntityIds) {}

  static async load(db: Database, clock: Clock): Promise<KeyTransactions> {
    const store = new KeyTransactions(db, clock, await EntityIds.load(db, 'key_transactions'));
    for (const r of await db.all<{
      id: number; account_id: number; app_id: number; name: string; metric_name: string; apdex_t: number; browser_apdex_t: number; created_ms: bigint;
    }>('SELECT id, account_id, app_id, name, metric_name, apdex_t, browser_apdex_t, epoch_ms(created_at) AS created_ms FROM key_transactions')) {
      store.byId.set(r.id, {
        id: r.id, accountId: r.account_id, appId: r.app_id, name: r.name, metricName: r.metric_name,
        apdexT: r.apdex_t, browserApdexT: r.browser_apdex_t, createdAt: Number(r.created_ms),
      });
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
    const name = checkedName(input.name);
    if (!TRANSACTION_METRIC.test(input.metricName)) {
      throw new RangeError(`'${input.metricName}' is not a transaction metric: expected WebTransaction/… or OtherTransaction/…`);
    }
    const apdexT = input.apdexT ?? input.application.apdexT;
    const browserApdexT = input.browserApdexT ?? input.application.endUserApdexT;
    checkApdex({ apdexT, browserApdexT });
    const app = input.application;
    return this.mutex.run(async () => {
      this.checkNameFree(app.accountId, name);
      for (const kt of this.byId.values()) {
        if (kt.accountId === app.accountId && kt.appId === app.id && kt.metricName === input.metricName) {
          throw new RangeError(`${input.metricName} of application ${app.id} already is key transaction ${kt.id}`);
        }
      }
      const kt: KeyTransaction = {
        id: this.ids.next(), accountId: app.accountId, appId: app.id, name, metricName: input.metricName,
        apdexT, browserApdexT, createdAt: this.clock.now(),
      };
      await this.ids.insert(kt.id, 'INSERT INTO key_transactions VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
        kt.id, kt.accountId, kt.appId, kt.name, kt.metricName, kt.apdexT, kt.browserApdexT, timestampValue(kt.createdAt),
      ]);
      this.byId.set(kt.id, kt);
      return kt;
    });
  }

  /**
   * Renames a key transaction or changes its Apdex Ts, written through; its agents get a new
   * Apdex T when they next connect. Refused (RangeError) as `create` refuses the same values;
   * undefined when there is no such key transaction.
   */
  async update(id: number, changes: KeyTransactionChanges): Promise<KeyTransaction | undefined> {
    const name = changes.name === undefined ? undefined : checkedName(changes.name);
    checkApdex(changes);
    return this.mutex.run(async () => {
      const kt = this.byId.get(id);
      if (!kt) return undefined;
      if (name !== undefined && name !== kt.name) this.checkNameFree(kt.accountId, name);
      const updated: KeyTransaction = {
        ...kt, name: name ?? kt.name, apdexT: changes.apdexT ?? kt.apdexT, browserApdexT: changes.browserApdexT ?? kt.browserApdexT,
      };
      await runOnOwnConnection(this.db, 'UPDATE key_transactions SET name = $1, apdex_t = $2, browser_apdex_t = $3 WHERE id = $4', [
        updated.name, updated.apdexT, updated.browserApdexT, id,
      ]);
      this.byId.set(id, updated);
      return updated;
    });
  }

  /** Stops watching a transaction on its own (its metrics stay); whether there was such a key transaction. Its id is never handed out again. */
  async delete(id: number): Promise<boolean> {
    return this.mutex.run(async () => {
      if (!this.byId.has(id)) return false;
      await runOnOwnConnection(this.db, 'DELETE FROM key_transactions WHERE id = $1', [id]);
      this.byId.delete(id);
      return true;
    });
  }

  /** The catalog deleted the application and its key transactions' rows with it: they go from memory too. */
  forgetApplication(appId: number): void {
    for (const [id, kt] of this.byId) if (kt.appId === appId) this.byId.delete(id);
  }

  private checkNameFree(accountId: number, name: string): void {
    for (const kt of this.byId.values()) {
      if (kt.accountId === accountId && kt.name === name) throw new RangeError(`a key transaction named '${name}' already exists`);
    }
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

function checkedName(input: string): string {
  const name = entityName(input);
  if (name === undefined) throw new RangeError(entityNameRule('a key transaction'));
  return name;
}

function checkApdex(values: { readonly apdexT?: number; readonly browserApdexT?: number }): void {
  for (const [field, value] of [['apdexT', values.apdexT], ['browserApdexT', values.browserApdexT]] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) throw new RangeError(`${field} must be a positive number of seconds`);
  }
}
