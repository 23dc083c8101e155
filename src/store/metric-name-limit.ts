import { CUSTOM_EVENTS, Rows, TIMESLICES } from './append-tables.js';
import { attributeJson } from './attribute-json.js';
import type { MetricWrite } from './metric-index.js';

/**
 * Per target application, the write's unscoped names that are new to it past its limit (in the
 * harvest's order, the first ones fit), and the `NrIntegrationError` rows reporting them.
 * `known(appId)` is the application's unscoped metric ids; `idOf` a name's id when it has one.
 */
export function namesPastLimit(
  write: MetricWrite,
  known: (appId: number) => ReadonlySet<number>,
  idOf: (name: string) => number | undefined,
  max: number,
  now: number,
): { droppedFor: Map<number, Set<string>>; errors: Rows | undefined } {
  const droppedFor = new Map<number, Set<string>>();
  let errors: Rows | undefined;
  for (const appId of new Set(write.targets.map((t) => t.appId))) {
    const ofApp = known(appId);
    let room = max - ofApp.size;
    const past: string[] = [];
    for (const name of write.unscoped) {
      const id = idOf(name);
      if (id !== undefined && ofApp.has(id)) continue;
      if (room > 0) room--;
      else past.push(name);
    }
    if (past.length === 0) continue;
    droppedFor.set(appId, new Set(past));
    errors ??= new Rows(CUSTOM_EVENTS);
    errors.push(write.accountId, appId, 0, 0, now, 'NrIntegrationError', attributeJson({
      newRelicFeature: 'Metrics',
      category: 'RateLimit',
      rateLimitType: 'MetricNamesPerApplication',
      message: `${past.length} metric name(s) dropped because application ${appId} reached its limit of ${max} metric names`,
      appId,
      limitValue: max,
      droppedCount: past.length,
      metricNameSample: past[0]!.slice(0, 255),
    }));
  }
  return { droppedFor, errors };
}

/**
 * The timeslice rows of `rows` less those of an application that use, as metric or scope, a name
 * dropped for it. Names dropped for every application have no id and were never built.
 */
export function withoutDropped(rows: Rows[], droppedFor: ReadonlyMap<number, ReadonlySet<string>>, ids: ReadonlyMap<string, number>): Rows[] {
  const droppedIds = new Map<number, Set<number>>();
  for (const [appId, names] of droppedFor) {
    const set = new Set<number>();
    for (const name of names) {
      const id = ids.get(name);
      if (id !== undefined) set.add(id);
    }
    if (set.size > 0) droppedIds.set(appId, set);
  }
  if (droppedIds.size === 0) return rows;
  const column = (name: string) => TIMESLICES.columns.findIndex((c) => c.name === name);
  const [app, metric, scope] = [column('app_id'), column('metric_id'), column('scope_id')];
  return rows.map((r) => {
    if (r.table !== TIMESLICES) return r;
    const keep: number[] = [];
    for (let i = 0; i < r.length; i++) {
      const set = droppedIds.get(r.columns[app]![i] as number);
      if (!set || (!set.has(r.columns[metric]![i] as number) && !set.has(r.columns[scope]![i] as number))) keep.push(i);
    }
    if (keep.length === r.length) return r;
    return new Rows(r.table, r.columns.map((cells) => keep.map((i) => cells[i]!)));
  });
}
