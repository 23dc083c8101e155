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

/**
 * Dictionaries whose text may have several ids: the catalog keeps a host per application (two
 * applications on one machine are two host ids with one name), and an application name may recur
 * across accounts. NRQL counts, groups and compares them by their text, so such ids are folded
 * into one before SQL sees them. Metric and scope names have one id each.
 */
export const SHARED_TEXT_DICTIONARIES: ReadonlySet<DictionaryName> = new Set(['appName', 'hostName', 'entityGuid']);

/**
 * The ids that share their text with a smaller id, grouped under that smallest id (which stands for
 * them all): `[[3, [8, 12]]]` when ids 3, 8 and 12 have one name. Empty when every text has one id.
 */
export function sharedTextIds(entries: Iterable<readonly [number, string]>): [number, number[]][] {
  const idsByText = new Map<string, number[]>();
  for (const [id, text] of entries) {
    const ids = idsByText.get(text);
    if (ids) ids.push(id);
    else idsByText.set(text, [id]);
  }
  const shared: [number, number[]][] = [];
  for (const ids of idsByText.values()) {
    if (ids.length < 2) continue;
    const sorted = [...new Set(ids)].sort((a, b) => a - b);
    if (sorted.length > 1) shared.push([sorted[0]!, sorted.slice(1)]);
  }
  return shared.sort((a, b) => a[0] - b[0]);
}

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
