import type { Account, BootstrapKeys, CreatedKeys, KeyInfo, KeyUser, NewUser, User } from '../catalog/accounts.js';
import type { AgentRun, ConnectFacts, ExpiredEntries } from '../catalog/agent-runs.js';
import type { Application, ApplicationChanges, Host, Instance } from '../catalog/applications.js';
import type { Catalog } from '../catalog.js';
import type { PgAccounts } from './catalog/pg-accounts.js';
import type { PgApplications } from './catalog/pg-applications.js';

/** The catalog in PostgreSQL: accounts and keys, applications with hosts and instances, agent runs. */
export class PgCatalog implements Catalog {
  constructor(readonly accountsPart: PgAccounts, readonly apps: PgApplications) {}

  bootstrap(given?: BootstrapKeys): Promise<CreatedKeys | undefined> { return this.accountsPart.bootstrap(given); }
  createAccount(name: string): Promise<Account> { return this.accountsPart.createAccount(name); }
  account(id: number): Account | undefined { return this.accountsPart.account(id); }
  accounts(): Account[] { return this.accountsPart.accounts(); }
  createUser(user: NewUser): Promise<{ user: User; key: string }> { return this.accountsPart.createUser(user); }
  user(id: number): User | undefined { return this.accountsPart.user(id); }
  users(accountId?: number): User[] { return this.accountsPart.users(accountId); }
  createUserKey(accountId: number, userId?: number): Promise<string> { return this.accountsPart.createUserKey(accountId, userId); }
  createLicenseKey(accountId: number): Promise<string> { return this.accountsPart.createLicenseKey(accountId); }
  revokeKey(key: string): Promise<void> { return this.accountsPart.revokeKey(key); }
  revokeKeyById(id: number): Promise<boolean> { return this.accountsPart.revokeKeyById(id); }
  rotateKey(id: number): Promise<{ key: string; info: KeyInfo } | undefined> { return this.accountsPart.rotateKey(id); }
  keys(accountId?: number): KeyInfo[] { return this.accountsPart.keys(accountId); }
  accountForLicenseKey(key: string): number | undefined { return this.accountsPart.accountForLicenseKey(key); }
  accountForUserKey(key: string): number | undefined { return this.accountsPart.accountForUserKey(key); }
  keyId(key: string): number | undefined { return this.accountsPart.keyId(key); }
  userOfKey(key: string): KeyUser | undefined { return this.accountsPart.userOfKey(key); }

  application(id: number): Application | undefined { return this.apps.application(id); }
  applications(accountId: number): Application[] { return this.apps.applications(accountId); }
  host(id: number): Host | undefined { return this.apps.host(id); }
  hostsOf(appId: number): Host[] { return this.apps.hostsOf(appId); }
  instancesOf(appId: number): Instance[] { return this.apps.instancesOf(appId); }
  updateApplication(id: number, changes: ApplicationChanges): Promise<Application> { return this.apps.updateApplication(id, changes); }
  whileApplicationExists<T>(id: number, work: (app: Application) => Promise<T>): Promise<T> { return this.apps.whileApplicationExists(id, work); }
  deleteApplication(id: number): Promise<void> { return this.apps.deleteApplication(id); }
  run(runId: string): AgentRun | undefined { return this.apps.run(runId); }
  allRuns(): Iterable<AgentRun> { return this.apps.allRuns(); }
  connect(accountId: number, facts: ConnectFacts): Promise<{ run: AgentRun; primary: Application }> { return this.apps.connect(accountId, facts); }
  holdRun(runId: string): () => void { return this.apps.holdRun(runId); }
  shutdownRun(runId: string): Promise<void> { return this.apps.shutdownRun(runId); }
  expireIdle(): Promise<ExpiredEntries> { return this.apps.expireIdle(); }
}
