import type { ApmAgentSettings } from '../../domain/agent-settings/model.js';
import type { SettingsPatch } from '../../domain/agent-settings/validation.js';
import { entityName, entityNameRule } from '../../domain/entity-name.js';

export interface Application {
  readonly id: number;
  readonly accountId: number;
  /** The display name; REST renames change it. */
  readonly name: string;
  /** The name agents report under and are matched by; fixed at creation, renames leave it. */
  readonly agentName: string;
  readonly language: string | null;
  /** Apdex T in seconds, handed to the application's agents when they connect. */
  readonly apdexT: number;
  /** Browser (end user) Apdex T in seconds. */
  readonly endUserApdexT: number;
  readonly enableRealUserMonitoring: boolean;
  /** Whether its agents take `agentSettings` from the connect reply (`agent_config`) over their own configuration. */
  readonly useServerSideConfig: boolean;
  /** Epoch ms: when the first agent reporting under its name connected. */
  readonly createdAt: number;
  /** What NerdGraph's `apmSettings` shows and `agentApplicationSettingsUpdate` changes. */
  readonly agentSettings: ApmAgentSettings;
}

/** What REST `PUT /v2/applications/{id}` and NerdGraph's `agentApplicationSettingsUpdate` may change. */
export interface ApplicationChanges {
  readonly name?: string;
  readonly apdexT?: number;
  readonly endUserApdexT?: number;
  readonly enableRealUserMonitoring?: boolean;
  readonly useServerSideConfig?: boolean;
  /** Merged into the current settings: what it leaves out keeps its value. */
  readonly agentSettings?: SettingsPatch<ApmAgentSettings>;
}

export class ApplicationNotFoundError extends Error {
  constructor(readonly appId: number) {
    super(`application ${appId} does not exist`);
  }
}

export interface Host { readonly id: number; readonly accountId: number; readonly appId: number; readonly name: string }

export interface Instance {
  readonly id: number;
  readonly accountId: number;
  readonly appId: number;
  readonly hostId: number;
  readonly pid: number | null;
  readonly port: number | null;
  /** The agent's version at its latest connect (NerdGraph's `runningAgentVersions`). */
  readonly agentVersion: string | null;
}

/** New Relic's default server-side Apdex T for APM applications, in seconds. */
export const DEFAULT_APDEX_T = 0.5;
/** New Relic's default Apdex T for browser (end user) monitoring, in seconds. */
export const DEFAULT_END_USER_APDEX_T = 7;

/**
 * The display name `changes` sets (trimmed), after checking every field of it: bad input is a
 * RangeError naming the field. The agent settings are checked once merged (`validateApmAgentSettings`).
 */
export function checkedApplicationChanges(changes: ApplicationChanges): string | undefined {
  const name = changes.name === undefined ? undefined : entityName(changes.name);
  if (changes.name !== undefined && name === undefined) throw new RangeError(entityNameRule('an application'));
  for (const [field, value] of [['apdexT', changes.apdexT], ['endUserApdexT', changes.endUserApdexT]] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) throw new RangeError(`${field} must be a positive number of seconds`);
  }
  if (changes.useServerSideConfig !== undefined && typeof changes.useServerSideConfig !== 'boolean') {
    throw new RangeError('useServerSideConfig must be true or false');
  }
  return name;
}

/** APM applications (made by agents connecting, by name) with their hosts and instances. */
export interface ApplicationCatalog {
  application(id: number): Application | undefined;
  applications(accountId: number): Application[];
  host(id: number): Host | undefined;
  hostsOf(appId: number): Host[];
  /** The application's instances, but those pruned after not reporting for `INSTANCE_IDLE_EXPIRY_MS`. */
  instancesOf(appId: number): Instance[];
  /**
   * Changes an application's display name and settings, written through in one statement. A
   * changed Apdex T, and with server-side configuration the agent settings, are what its agents
   * receive when they next connect. A rename leaves the name agents report under: they keep
   * landing in this application. Bad input is a RangeError naming the field; nothing changes then.
   */
  updateApplication(id: number, changes: ApplicationChanges): Promise<Application>;
  /**
   * Runs `work` for application `id` while it exists and cannot be deleted: creating what belongs
   * to it (a key transaction, its browser side) cannot race its deletion and leave a row behind.
   * `work` must not call back into the catalog's writes. ApplicationNotFoundError when it is gone.
   */
  whileApplicationExists<T>(id: number, work: (app: Application) => Promise<T>): Promise<T>;
  /**
   * Deletes an application with all its data: hosts, instances, metric presence, timeslices,
   * events and traces, in one transaction. Every run targeting it is shut down first, so its
   * agents' next data call is refused (409) and they reconnect, creating a new application;
   * data calls already in progress on those runs finish before the delete. Whether the
   * application may be deleted (it stopped reporting) is the caller's decision.
   */
  deleteApplication(id: number): Promise<void>;
}
