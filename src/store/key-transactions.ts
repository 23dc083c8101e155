import type { Clock } from '../clock.js';
import type { Application } from './catalog.js';
import { checkedEntityName, EntityCollection, type EntityRows } from './entities/entity-collection.js';

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
 * Key transactions, in memory and written through to the store's rows. REST v2 reads them;
 * NerdGraph's `keyTransactionCreate` and tests create them.
 */
export class KeyTransactions {
  private constructor(private readonly entities: EntityCollection<KeyTransaction>, private readonly clock: Clock) {}

  static async open(rows: EntityRows<KeyTransaction>, clock: Clock): Promise<KeyTransactions> {
    return new KeyTransactions(await EntityCollection.open(rows), clock);
  }

  /**
   * Makes `metricName` of the application a key transaction. Refused (RangeError, with a message
   * for the caller) when the name is empty or over 255 characters or already names a key
   * transaction of the account, when the metric is not a transaction's, when the transaction
   * already is a key transaction, or when an Apdex T is not a positive number of seconds.
   */
  async create(input: NewKeyTransaction): Promise<KeyTransaction> {
    const name = checkedEntityName(input.name, KIND);
    if (!TRANSACTION_METRIC.test(input.metricName)) {
      throw new RangeError(`'${input.metricName}' is not a transaction metric: expected WebTransaction/… or OtherTransaction/…`);
    }
    const apdexT = input.apdexT ?? input.application.apdexT;
    const browserApdexT = input.browserApdexT ?? input.application.endUserApdexT;
    checkApdex({ apdexT, browserApdexT });
    const app = input.application;
    return this.entities.create((id) => {
      this.entities.checkNameFree(app.accountId, name, KIND);
      for (const kt of this.entities.values()) {
        if (kt.accountId === app.accountId && kt.appId === app.id && kt.metricName === input.metricName) {
          throw new RangeError(`${input.metricName} of application ${app.id} already is key transaction ${kt.id}`);
        }
      }
      return { id, accountId: app.accountId, appId: app.id, name, metricName: input.metricName, apdexT, browserApdexT, createdAt: this.clock.now() };
    });
  }

  /**
   * Renames a key transaction or changes its Apdex Ts, written through; its agents get a new
   * Apdex T when they next connect. Refused (RangeError) as `create` refuses the same values;
   * undefined when there is no such key transaction.
   */
  async update(id: number, changes: KeyTransactionChanges): Promise<KeyTransaction | undefined> {
    const name = changes.name === undefined ? undefined : checkedEntityName(changes.name, KIND);
    checkApdex(changes);
    return this.entities.update(id, (kt) => {
      if (name !== undefined && name !== kt.name) this.entities.checkNameFree(kt.accountId, name, KIND);
      return { ...kt, name: name ?? kt.name, apdexT: changes.apdexT ?? kt.apdexT, browserApdexT: changes.browserApdexT ?? kt.browserApdexT };
    });
  }

  /** Stops watching a transaction on its own (its metrics stay); whether there was such a key transaction. Its id is never handed out again. */
  delete(id: number): Promise<boolean> {
    return this.entities.delete(id);
  }

  /** The catalog deleted the application and its key transactions' rows with it: they go from memory too. */
  forgetApplication(appId: number): void {
    this.entities.forget((kt) => kt.appId === appId);
  }

  get(id: number): KeyTransaction | undefined {
    return this.entities.get(id);
  }

  list(accountId: number): KeyTransaction[] {
    return this.entities.list(accountId);
  }

  /** An application's key transactions (their agents get each one's Apdex T at connect). */
  forApplication(appId: number): KeyTransaction[] {
    return this.entities.values().filter((kt) => kt.appId === appId);
  }
}

const KIND = 'key transaction';

function checkApdex(values: { readonly apdexT?: number; readonly browserApdexT?: number }): void {
  for (const [field, value] of [['apdexT', values.apdexT], ['browserApdexT', values.browserApdexT]] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) throw new RangeError(`${field} must be a positive number of seconds`);
  }
}
