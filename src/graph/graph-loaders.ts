import DataLoader from 'dataloader';
import { applicationSummaries, isReporting, type ApplicationSummary } from '../api/rest/application-summary.js';
import { mobileSummaries } from '../api/rest/mobile-data.js';
import type { BrowserApplication } from '../store/browser-applications.js';
import type { Application } from '../store/catalog.js';
import type { MobileApplication } from '../store/mobile-applications.js';
import type { GraphServices } from './graph-context.js';

interface Owned { readonly id: number; readonly accountId: number }

/**
 * A loader that batches the records one response asks about, per account, into one call of
 * `load`: a page of 200 search results costs one summary query per kind, not 200.
 */
function perAccount<R extends Owned, V>(load: (accountId: number, records: readonly R[]) => Promise<ReadonlyMap<number, V>>): DataLoader<R, V | null, string> {
  return new DataLoader<R, V | null, string>(
    async (records) => {
      const byAccount = new Map<number, R[]>();
      for (const r of records) {
        const list = byAccount.get(r.accountId);
        if (list) list.push(r);
        else byAccount.set(r.accountId, [r]);
      }
      const answers = new Map<number, ReadonlyMap<number, V>>();
      await Promise.all([...byAccount].map(async ([accountId, list]) => answers.set(accountId, await load(accountId, list))));
      return records.map((r) => answers.get(r.accountId)?.get(r.id) ?? null);
    },
    { cacheKeyFn: (r) => `${r.accountId}:${r.id}` },
  );
}

/** Per-request loaders over the stores; each request gets its own, so nothing is cached across requests. */
export class GraphLoaders {
  readonly apmSummary: DataLoader<Application, ApplicationSummary | null, string>;
  readonly mobileLastEvent: DataLoader<MobileApplication, number | null, string>;
  readonly mobileSummary: DataLoader<MobileApplication, Record<string, unknown> | null, string>;
  readonly browserLastEvent: DataLoader<BrowserApplication, number | null, string>;
  readonly browserSummary: DataLoader<BrowserApplication, Record<string, unknown> | null, string>;

  constructor(private readonly services: GraphServices, private readonly nowMs: number) {
    this.apmSummary = perAccount((accountId, apps) => applicationSummaries(services, accountId, apps.filter((a) => this.apmReporting(a)), nowMs));
    const mobile = perAccount((accountId, apps: readonly MobileApplication[]) => mobileSummaries(services.executor, accountId, apps, nowMs));
    this.mobileLastEvent = new DataLoader(async (apps) => Promise.all(apps.map(async (a) => (await mobile.load(a))?.lastEventMs ?? null)), { cacheKeyFn: (r) => `${r.accountId}:${r.id}` });
    this.mobileSummary = new DataLoader(async (apps) => Promise.all(apps.map(async (a) => {
      const s = await mobile.load(a);
      return s ? { appLaunchCount: s.launchCount, crashCount: s.crashCount, crashRate: s.crashRate, usersAffectedCount: null } : null;
    })), { cacheKeyFn: (r) => `${r.accountId}:${r.id}` });
    this.browserLastEvent = perAccount(async () => new Map<number, number>());
    this.browserSummary = perAccount(async () => new Map<number, Record<string, unknown>>());
  }

  /** An APM application reports while metric data arrived in the last 10 minutes (REST v2's rule). */
  apmReporting(app: Pick<Application, 'id'>): boolean {
    return isReporting(this.services.metrics.lastReportedAt({ appId: app.id }), this.nowMs);
  }

  isRecent(lastMs: number | null): boolean {
    return lastMs !== null && isReporting(lastMs, this.nowMs);
  }

  lastReportedAt(app: Pick<Application, 'id'>): number | undefined {
    return this.services.metrics.lastReportedAt({ appId: app.id });
  }

  /** NerdGraph's `ApmApplicationSummaryData`: REST's summary in the graph's units. */
  async apmSummaryData(app: Application): Promise<Record<string, unknown> | null> {
    const s = await this.apmSummary.load(app);
    if (!s) return null;
    const live = <T extends { id: number }>(items: readonly T[], key: 'hostId' | 'instanceId') =>
      items.filter((i) => isReporting(this.services.metrics.lastReportedAt({ appId: app.id, [key]: i.id }), this.nowMs)).length;
    return {
      apdexScore: s.apdexScore,
      errorRate: s.errorRate / 100,
      responseTimeAverage: s.responseTime / 1000,
      throughput: s.throughput,
      hostCount: live(this.services.catalog.hostsOf(app.id), 'hostId'),
      instanceCount: live(this.services.catalog.instancesOf(app.id), 'instanceId'),
    };
  }
}
