import type { Clock } from '../clock.js';
import { BrowserApplications } from './browser-applications.js';
import type { Database } from './duckdb/database.js';
import { KeyTransactions } from './key-transactions.js';
import { MobileApplications } from './mobile-applications.js';

/** The entities that are not made by agents connecting: created through the APIs. */
export interface EntityStores {
  readonly keyTransactions: KeyTransactions;
  readonly mobileApplications: MobileApplications;
  readonly browserApplications: BrowserApplications;
}

export async function loadEntityStores(db: Database, clock: Clock): Promise<EntityStores> {
  return {
    keyTransactions: await KeyTransactions.load(db, clock),
    mobileApplications: await MobileApplications.load(db, clock),
    browserApplications: await BrowserApplications.load(db, clock),
  };
}
