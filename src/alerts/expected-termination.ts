import type { AgentRun, Catalog } from '../store/catalog.js';
import type { ExpectedTermination } from '../domain/alerts/condition-evaluator.js';

/**
 * Which entities ended expectedly, for `ignoreOnExpectedTermination`: Timeslice's counterpart of New
 * Relic's `termination: expected` tag is an agent that said `shutdown` (or an application deleted,
 * which shuts its runs). A name — an application's name or id, a host's name — ended expectedly when
 * some run that reported it shut down and no run that still reports it is live. Runs idle for 24 h
 * are forgotten (docs/limits.md), and with them this knowledge. Built once per evaluation cycle.
 */
export function expectedTerminations(catalog: Pick<Catalog, 'application' | 'host'> & { allRuns?(): Iterable<AgentRun> }): ExpectedTermination {
  const ended = new Set<string>();
  const live = new Set<string>();
  for (const run of catalog.allRuns?.() ?? []) {
    for (const target of run.targets) {
      const app = catalog.application(target.appId);
      const host = catalog.host(target.hostId);
      for (const name of [app?.name, String(target.appId), host?.name]) {
        if (name !== undefined) (run.shutdown ? ended : live).add(`${run.accountId}|${name}`);
      }
    }
  }
  return (accountId, name) => ended.has(`${accountId}|${name}`) && !live.has(`${accountId}|${name}`);
}
