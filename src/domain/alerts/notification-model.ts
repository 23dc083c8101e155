import type { NotificationTrigger } from './notification-triggers.js';

/** NerdGraph's notification destination (aiNotifications): only WEBHOOK is delivered; other types are stored. */
export interface Destination {
  readonly id: string;
  readonly accountId: number;
  readonly name: string;
  readonly type: string;
  readonly active: boolean;
  readonly properties: ReadonlyArray<{ readonly key: string; readonly value: string; readonly label?: string | null }>;
  /** Credentials are write-only: kept here, never rendered back but for the user name and token prefix. */
  readonly auth:
    | { readonly type: 'BASIC'; readonly user: string; readonly password: string }
    | { readonly type: 'TOKEN'; readonly prefix: string | null; readonly token: string }
    | { readonly type: 'CUSTOM_HEADERS'; readonly headers: ReadonlyArray<{ readonly key: string; readonly value: string }> }
    | null;
  readonly secureUrl: { readonly prefix: string; readonly secureSuffix: string } | null;
  readonly status: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly lastSent: number | null;
}

/** A message template bound to a destination (NerdGraph's channel). */
export interface Channel {
  readonly id: string;
  readonly accountId: number;
  readonly name: string;
  readonly type: string;
  readonly product: string;
  readonly destinationId: string;
  readonly properties: ReadonlyArray<{ readonly key: string; readonly value: string; readonly label?: string | null }>;
  readonly active: boolean;
  readonly status: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface WorkflowPredicate {
  readonly attribute: string;
  readonly operator: string;
  readonly values: readonly string[];
}

export interface Workflow {
  readonly id: string;
  readonly accountId: number;
  readonly name: string;
  readonly workflowEnabled: boolean;
  readonly destinationsEnabled: boolean;
  readonly enrichmentsEnabled: boolean;
  readonly mutingRulesHandling: string;
  readonly issuesFilter: { readonly id: string; readonly name: string; readonly type: string; readonly predicates: readonly WorkflowPredicate[] };
  readonly destinationConfigurations: ReadonlyArray<{ readonly channelId: string; readonly notificationTriggers: readonly NotificationTrigger[]; readonly updateOriginalMessage: boolean }>;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly lastRun: number | null;
  /** NRQL enrichments, kept and shown (not run); absent in workflows saved before they were kept. */
  readonly enrichments?: readonly WorkflowEnrichment[];
}

export interface WorkflowEnrichment {
  readonly id: string;
  readonly name: string;
  readonly queries: readonly string[];
  readonly createdAt: number;
  readonly updatedAt: number;
}
