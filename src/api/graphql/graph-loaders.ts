import DataLoader from 'dataloader';
import { applicationParts, isReporting } from '../../applications/application-summary.js';
import type { BrowserApplication } from '../../store/browser-applications.js';
import type { Application } from '../../store/catalog.js';
import type { MobileApplication } from '../../store/mobile-applications.js';
import type { GraphServices } from './graph-services.js';
import { apmSummaries, type ApmApplicationSummaryData } from '../../applications/summaries/apm-summary.js';
import {
  apmBrowserSummaries,
  browserSummaries,
  BROWSER_EVENT_TYPES,
  type ApmBrowserApplicationSummaryData,
  type BrowserApplicationSummaryData,
} from '../../applications/summaries/browser-summary.js';
import { lastEventTimes } from '../../applications/summaries/event-summaries.js';
import { mobileAppSummaries, MOBILE_REPORTING_EVENT_TYPES, type MobileAppSummaryData } from '../../applications/summaries/mobile-summary.js';
import { runningAgentVersions, type ApmApplicationRunningAgentVersions } from '../../applications/summaries/running-agent-versions.js';

interface Owned { readonly id: number; readonly accountId: number }
type Loader<R, V> = DataLoader<R, V | null, string>;

/**
 * A loader that batches the records one response asks about, per account, into one call of
 * `load`: a page of 200 search results costs one summary query per kind, not 200.
 */
function perAccount<R extends Owned, V>(load: (accountId: number, records: readonly R[]) => Promise<ReadonlyMap<number, V>>): Loader<R, V> {
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

/** Last event times of named applications, re-keyed by id. */
async function lastEvents(services: GraphServices, accountId: number, eventTypes: readonly string[], apps: readonly { id: number; name: string }[], nowMs: number) {
  const byName = await lastEventTimes(services.executor, accountId, eventTypes, apps.map((a) => a.name), nowMs);
  return new Map(apps.flatMap((a) => (byName.has(a.name) ? [[a.id, byName.get(a.name)!] as const] : [])));
}

/**
 * Per-request loaders over the stores; each request gets its own, so nothing is cached across
 * requests and every number in one response is read at the same `nowMs`.
 */
export class GraphLoaders {
  readonly apmSummary: Loader<Application, ApmApplicationSummaryData>;
  /** Keyed by the APM application: the summary of its browser side. */
  readonly apmBrowserSummary: Loader<Application, ApmBrowserApplicationSummaryData>;
  readonly mobileLastEvent: Loader<MobileApplication, number>;
  readonly mobileSummary: Loader<MobileApplication, MobileAppSummaryData>;
  readonly browserLastEvent: Loader<BrowserApplication, number>;
  readonly browserSummary: Loader<BrowserApplication, BrowserApplicationSummaryData>;
  /** `SHOW EVENT TYPES` answers by account and query text: every entity of a search page may ask its account's. */
  private readonly eventTypeAnswers = new Map<string, Promise<string[]>>();

  constructor(private readonly services: GraphServices, private readonly nowMs: number) {
    this.apmSummary = perAccount((accountId, apps) => apmSummaries(services, accountId, apps, nowMs));
    this.apmBrowserSummary = perAccount((accountId, apps) => {
      const ids = new Set(apps.map((a) => a.id));
      const sides = services.entities.browserApplications.list(accountId).filter((b) => b.apmApplicationId !== null && ids.has(b.apmApplicationId));
      return apmBrowserSummaries(services.executor, accountId, sides, nowMs);
    });
    this.mobileLastEvent = perAccount((accountId, apps) => lastEvents(services, accountId, MOBILE_REPORTING_EVENT_TYPES, apps, nowMs));
    this.mobileSummary = perAccount((accountId, apps) => mobileAppSummaries(services.executor, accountId, apps, nowMs));
    this.browserLastEvent = perAccount((accountId, apps) => lastEvents(services, accountId, BROWSER_EVENT_TYPES, apps, nowMs));
    this.browserSummary = perAccount((accountId, apps) => browserSummaries(services.executor, accountId, apps, nowMs));
  }

  /** The event types a `SHOW EVENT TYPES` query finds on one account, run once per response however many fields ask. */
  eventTypes(accountId: number, showEventTypes: string): Promise<string[]> {
    const key = `${accountId} ${showEventTypes}`;
    let types = this.eventTypeAnswers.get(key);
    if (!types) {
      types = this.services.nrql.run(showEventTypes, { accountIds: [accountId] }).then((answer) => answer.results.map((row) => String(row.eventType)));
      this.eventTypeAnswers.set(key, types);
    }
    return types;
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

  /** The agent versions of the application's live instances (all of them when none is live). */
  runningAgentVersions(app: Application): ApmApplicationRunningAgentVersions | null {
    const parts = applicationParts(this.services, app.id, this.nowMs);
    const instances = parts.liveInstances.length > 0 ? parts.liveInstances : parts.instances;
    return runningAgentVersions(instances.map((i) => i.agentVersion));
  }
}
