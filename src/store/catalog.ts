import type { AccountsAndKeys } from './catalog/accounts.js';
import type { AgentRuns } from './catalog/agent-runs.js';
import type { ApplicationCatalog } from './catalog/applications.js';

export * from './catalog/accounts.js';
export * from './catalog/applications.js';
export * from './catalog/agent-runs.js';

/**
 * Accounts and keys, applications with their hosts and instances, and agent runs: what every
 * surface reads to authenticate and to name what it shows. Small, so implementations hold it in
 * memory for the hot path (ingest resolves license keys and run ids without a query).
 */
export interface Catalog extends AccountsAndKeys, ApplicationCatalog, AgentRuns {}
