import type { AlertEngine } from '../domain/alerts/alert-engine.js';
import type { IssuePriority } from '../domain/alerts/alert-model.js';
import { DEFAULT_ISSUE_TTL_MS, type IssueSettings } from '../domain/alerts/issue-tracker.js';
import type { AlertRecords } from '../store/alert-records.js';

/** Grace periods a priority may have, seconds (New Relic does not publish its bound). */
export const MAX_GRACE_PERIOD_SECONDS = 3_600;
/** Issue TTL bounds, seconds: New Relic's 1 to 30 days. */
export const MIN_ISSUE_TTL_SECONDS = 86_400;
export const MAX_ISSUE_TTL_SECONDS = 30 * 86_400;

const DEFAULT_SETTINGS: IssueSettings = { gracePeriodMs: { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0 }, issueTtlMs: DEFAULT_ISSUE_TTL_MS };

/** A refusal in the `error` string of NerdGraph's AiIssuesConfigurationOverrideResponse. */
export class IssueSettingsError extends Error {}

/**
 * aiIssuesUpdateGracePeriod / aiIssuesUpdateIssueTtl: an account's issue settings, kept by the store
 * and handed to the engine. Changes take turns with evaluation cycles (`serial`).
 */
export class IssueSettingsService {
  private readonly byAccount = new Map<number, IssueSettings>();

  constructor(
    private readonly records: AlertRecords,
    /** The engine in force: the service's may be replaced by a reload of the whole state. */
    private readonly engine: () => AlertEngine,
    private readonly serial: <T>(work: () => Promise<T>) => Promise<T>,
  ) {}

  /** Reads the settings from the store (again, after another node changed them), replacing those held. */
  async load(): Promise<void> {
    const all = (await this.records.loadIssueSettings?.()) ?? [];
    this.byAccount.clear();
    for (const { accountId, settings } of all) {
      this.byAccount.set(accountId, settings);
      this.engine().setIssueSettings(accountId, settings);
    }
  }

  get(accountId: number): IssueSettings {
    return this.byAccount.get(accountId) ?? DEFAULT_SETTINGS;
  }

  updateGracePeriod(accountId: number, seconds: Readonly<Record<IssuePriority, number>>): Promise<IssueSettings> {
    for (const [priority, value] of Object.entries(seconds)) {
      if (!Number.isInteger(value) || value < 0 || value > MAX_GRACE_PERIOD_SECONDS) {
        return Promise.reject(new IssueSettingsError(`gracePeriod.${priority.toLowerCase()} must be a whole number of seconds from 0 to ${MAX_GRACE_PERIOD_SECONDS}, but was ${value}`));
      }
    }
    const gracePeriodMs = { CRITICAL: seconds.CRITICAL * 1000, HIGH: seconds.HIGH * 1000, MEDIUM: seconds.MEDIUM * 1000, LOW: seconds.LOW * 1000 };
    return this.change(accountId, (s) => ({ ...s, gracePeriodMs }));
  }

  updateIssueTtl(accountId: number, seconds: number): Promise<IssueSettings> {
    if (!Number.isInteger(seconds) || seconds < MIN_ISSUE_TTL_SECONDS || seconds > MAX_ISSUE_TTL_SECONDS) {
      return Promise.reject(new IssueSettingsError(`issueTtl must be a whole number of seconds from ${MIN_ISSUE_TTL_SECONDS} (1 day) to ${MAX_ISSUE_TTL_SECONDS} (30 days), but was ${seconds}`));
    }
    return this.change(accountId, (s) => ({ ...s, issueTtlMs: seconds * 1000 }));
  }

  private change(accountId: number, apply: (current: IssueSettings) => IssueSettings): Promise<IssueSettings> {
    return this.serial(async () => {
      if (!this.records.saveIssueSettings) throw new IssueSettingsError('This store keeps no issue settings');
      const next = apply(this.get(accountId));
      await this.records.saveIssueSettings(accountId, next);
      this.byAccount.set(accountId, next);
      this.engine().setIssueSettings(accountId, next);
      return next;
    });
  }
}
