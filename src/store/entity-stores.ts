import type { BrowserApplications } from './browser-applications.js';
import type { KeyTransactions } from './key-transactions.js';
import type { MobileApplications } from './mobile-applications.js';

/** The entities that are not made by agents connecting: created through the APIs. */
export interface EntityStores {
  readonly keyTransactions: KeyTransactions;
  readonly mobileApplications: MobileApplications;
  readonly browserApplications: BrowserApplications;
}
