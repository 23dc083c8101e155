import type { Incident } from './alert-model.js';

/**
 * The APM application an incident is about, when there is one: its signal's `appName` FACET value,
 * else an application its condition's WHERE pins (`entityTargets`). REST's violation entity, its
 * events and the legacy webhook's targets all name it the same way.
 */
export function applicationOfIncident<A extends { readonly name: string }>(
  incident: Incident,
  entityTargets: readonly string[] | undefined,
  applicationNamed: (name: string) => A | undefined,
): A | undefined {
  const names = [incident.facets.appName, ...(entityTargets ?? [])].filter((n): n is string => n !== undefined);
  for (const name of names) {
    const app = applicationNamed(name);
    if (app !== undefined) return app;
  }
  return undefined;
}
