import type { Clock } from '../../clock.js';
import { BrowserApplications } from '../browser-applications.js';
import type { EntityStores } from '../entity-stores.js';
import { KeyTransactions } from '../key-transactions.js';
import { MobileApplications } from '../mobile-applications.js';
import type { Database } from './database.js';
import { BROWSER_APPLICATIONS_TABLE, DuckDbEntityRows, KEY_TRANSACTIONS_TABLE, MOBILE_APPLICATIONS_TABLE } from './entity-tables.js';

/** The entity stores over their DuckDB tables. */
export async function loadDuckDbEntityStores(db: Database, clock: Clock): Promise<EntityStores> {
  return {
    keyTransactions: await KeyTransactions.open(await DuckDbEntityRows.open(db, KEY_TRANSACTIONS_TABLE), clock),
    mobileApplications: await MobileApplications.open(await DuckDbEntityRows.open(db, MOBILE_APPLICATIONS_TABLE), clock),
    browserApplications: await BrowserApplications.open(await DuckDbEntityRows.open(db, BROWSER_APPLICATIONS_TABLE), clock),
  };
}
