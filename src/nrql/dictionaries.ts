import { entityGuid } from '../domain/entity-guid.js';
import type { Catalog } from '../store/catalog.js';
import type { MetricIndex } from '../store/metric-index.js';

/**
 * Attributes the store keeps as integer ids while NRQL shows them as text: application names,
 * host names, entity GUIDs, metric and scope names. A condition on one is turned into a set of
 * ids before SQL (`appName LIKE 'check%'` → `app_id IN (…)`), and grouped or listed ids are turned
 * back into text when results are shaped, so SQL never joins for them.
 */
export type DictionaryName = 'appName' | 'hostName' | 'entityGuid' | 'metricName' | 'scopeName';

export interface NrqlDictionaries {
  /** Every (id, text) entry of a dictionary visible to these accounts. */
  entries(dictionary: DictionaryName, accountIds: readonly number[]): Iterable<readonly [number, string]>;
  /** The text of one id, or null (scope id 0 is "no scope"; an id with no entry shows as null). */
  decode(dictionary: DictionaryName, id: number): string | null;
  /** The id of an exact text, when the lookup is cheaper than scanning `entries`. */
  idOf(dictionary: DictionaryName, text: string, accountIds: readonly number[]): number | undefined;
}

export function storeDictionaries(catalog: Catalog, metrics: MetricIndex): NrqlDictionaries {
  const apps = (accountIds: readonly number[]) => accountIds.flatMap((a) => catalog.applications(a));
  return {
    *entries(dictionary, accountIds) {
      switch (dictionary) {
        case 'appName':
          for (const app of apps(accountIds)) yield [app.id, app.name];
          return;
        case 'entityGuid':
          for (const app of apps(accountIds)) yield [app.id, entityGuid(app.accountId, 'APM', 'APPLICATION', app.id)];
          return;
        case 'hostName':
          for (const app of apps(accountIds)) for (const host of catalog.hostsOf(app.id)) yield [host.id, host.name];
          return;
        case 'metricName':
        case 'scopeName':
          yield* metrics.entries();
          return;
      }
    },
    decode(dictionary, id) {
      switch (dictionary) {
        case 'appName':
          return catalog.application(id)?.name ?? null;
        case 'entityGuid': {
          const app = catalog.application(id);
          return app ? entityGuid(app.accountId, 'APM', 'APPLICATION', app.id) : null;
        }
        case 'hostName':
          return catalog.host(id)?.name ?? null;
        case 'metricName':
        case 'scopeName':
          return id === 0 ? null : (metrics.nameOf(id) ?? null);
      }
    },
    idOf(dictionary, text, accountIds) {
      if (dictionary === 'metricName' || dictionary === 'scopeName') return metrics.metricId(text);
      for (const [id, name] of this.entries(dictionary, accountIds)) if (name === text) return id;
      return undefined;
    },
  };
}
