import {
  PRIORITY_RANK,
  type AlertPolicy,
  type Incident,
  type Issue,
  type IssueEvent,
  type IssuePriority,
  type IssueTrigger,
} from './alert-model.js';

/** Default issue auto-close window (New Relic: 3 days, 1–30 days). */
export const DEFAULT_ISSUE_TTL_MS = 3 * 24 * 60 * 60_000;

/** An account's issue settings (aiIssuesUpdateGracePeriod, aiIssuesUpdateIssueTtl), in milliseconds. */
export interface IssueSettings {
  /** How long a new issue stays CREATED before it activates, by its priority (0: at once). */
  readonly gracePeriodMs: Readonly<Record<IssuePriority, number>>;
  readonly issueTtlMs: number;
}

/** Issues as plain JSON-able data (persisted by the store). */
export interface IssueTrackerState {
  issues: Record<string, Issue>;
  /** Open issue id by rollup key. */
  openByKey: Record<string, string>;
}

export function emptyIssueTrackerState(): IssueTrackerState {
  return { issues: {}, openByKey: {} };
}

/** The rollup key of an incident under its policy's preference (reference §4.9). */
export function issueKey(policy: AlertPolicy, incident: Incident): string {
  switch (policy.incidentPreference) {
    case 'PER_POLICY':
      return JSON.stringify([policy.id]);
    case 'PER_CONDITION':
      return JSON.stringify([policy.id, incident.conditionId]);
    case 'PER_CONDITION_AND_TARGET':
      return JSON.stringify([policy.id, incident.conditionId, incident.signalKey]);
    default: {
      const never: never = policy.incidentPreference;
      throw new Error(`unknown incident preference ${String(never)}`);
    }
  }
}

/**
 * Rolls incidents into issues and runs the issue state machine (reference §4.9–§4.10): CREATED →
 * ACTIVATED (at once, or once the account's grace period for its priority has passed; an issue whose
 * incidents all close first closes without activating and notifies nobody) → CLOSED when its last incident closes, a user resolves it, or
 * its TTL passes. A closed issue never reopens; priority is the highest of its incidents; ack leaves
 * the state alone. Every transition is returned as an IssueEvent for workflows.
 */
export class IssueTracker {
  private readonly settings = new Map<number, IssueSettings>();

  constructor(
    readonly state: IssueTrackerState,
    private readonly newId: () => string,
    private readonly issueTtlMs = DEFAULT_ISSUE_TTL_MS,
  ) {}

  /** An account's grace periods and TTL; accounts without settings activate at once and close after issueTtlMs. */
  setSettings(accountId: number, settings: IssueSettings): void {
    this.settings.set(accountId, settings);
  }

  private graceMs(issue: Issue): number {
    return this.settings.get(issue.accountId)?.gracePeriodMs[issue.priority] ?? 0;
  }

  /** CREATED issues whose grace period (for their priority now) has passed activate. */
  activateDue(now: number): IssueEvent[] {
    const out: IssueEvent[] = [];
    for (const id of Object.values(this.state.openByKey)) {
      const issue = this.state.issues[id]!;
      if (issue.state !== 'CREATED' || now < issue.createdAt + this.graceMs(issue)) continue;
      out.push(eventOf(this.update(id, { state: 'ACTIVATED', activatedAt: now, updatedAt: now, lastTrigger: 'STATE_CHANGE' }), 'STATE_CHANGE'));
    }
    return out;
  }

  /** Joins the open issue of the incident's key or creates one; returns the issue id and its events. */
  incidentOpened(policy: AlertPolicy, incident: Incident, now: number): { issueId: string; events: IssueEvent[] } {
    const key = issueKey(policy, incident);
    const events: IssueEvent[] = [];
    const openId = this.state.openByKey[key];
    const entity = Object.values(incident.facets).join(', ') || incident.conditionName;
    if (openId === undefined) {
      const issue: Issue = {
        id: this.newId(),
        accountId: policy.accountId,
        policyId: policy.id,
        policyName: policy.name,
        key,
        state: 'CREATED',
        priority: incident.priority,
        incidentIds: [incident.id],
        openIncidentIds: [incident.id],
        conditionIds: [incident.conditionId],
        conditionNames: [incident.conditionName],
        titles: [incident.title],
        descriptions: [incident.description ?? incident.title],
        mutedIncidentIds: incident.mutingRuleId ? [incident.id] : [],
        entityNames: [entity],
        createdAt: now,
        activatedAt: null,
        acknowledgedAt: null,
        acknowledgedBy: null,
        closedAt: null,
        closedBy: null,
        updatedAt: now,
        lastTrigger: 'INCIDENT_ADDED',
      };
      this.state.issues[issue.id] = issue;
      this.state.openByKey[key] = issue.id;
      events.push(eventOf(issue, 'INCIDENT_ADDED'));
      if (this.graceMs(issue) === 0) {
        const activated = this.update(issue.id, { state: 'ACTIVATED', activatedAt: now, updatedAt: now, lastTrigger: 'STATE_CHANGE' });
        events.push(eventOf(activated, 'STATE_CHANGE'));
      }
      return { issueId: issue.id, events };
    }
    const issue = this.state.issues[openId]!;
    const raised = PRIORITY_RANK[incident.priority] > PRIORITY_RANK[issue.priority];
    const added = this.update(openId, {
      incidentIds: [...issue.incidentIds, incident.id],
      openIncidentIds: [...issue.openIncidentIds, incident.id],
      conditionIds: union(issue.conditionIds, incident.conditionId),
      conditionNames: union(issue.conditionNames, incident.conditionName),
      titles: [...issue.titles, incident.title],
      descriptions: [...(issue.descriptions ?? issue.titles), incident.description ?? incident.title],
      mutedIncidentIds: [...(issue.mutedIncidentIds ?? []), ...(incident.mutingRuleId ? [incident.id] : [])],
      entityNames: union(issue.entityNames, entity),
      updatedAt: now,
      lastTrigger: 'INCIDENT_ADDED',
    });
    events.push(eventOf(added, 'INCIDENT_ADDED'));
    if (raised) {
      const changed = this.update(openId, { priority: incident.priority, lastTrigger: 'PRIORITY_CHANGED' });
      events.push(eventOf(changed, 'PRIORITY_CHANGED'));
    }
    return { issueId: openId, events };
  }

  /** Removes a closed incident from its issue's open set; the issue closes with its last incident. */
  incidentClosed(incident: Incident, now: number): IssueEvent[] {
    if (incident.issueId === null) return [];
    const issue = this.state.issues[incident.issueId];
    if (issue === undefined || issue.state === 'CLOSED' || !issue.openIncidentIds.includes(incident.id)) return [];
    const openIncidentIds = issue.openIncidentIds.filter((id) => id !== incident.id);
    if (openIncidentIds.length > 0) {
      return [eventOf(this.update(issue.id, { openIncidentIds, updatedAt: now, lastTrigger: 'INCIDENT_CLOSED' }), 'INCIDENT_CLOSED')];
    }
    return [this.closeIssue(issue.id, now, 'INCIDENT_CLOSED', null, { openIncidentIds })];
  }

  acknowledge(issueId: string, user: string, now: number): IssueEvent | null {
    const issue = this.state.issues[issueId];
    if (issue === undefined || issue.state === 'CLOSED') return null;
    const acked = this.update(issueId, { acknowledgedAt: now, acknowledgedBy: user, updatedAt: now, lastTrigger: 'USER_ACTION' });
    return { ...eventOf(acked, 'USER_ACTION'), action: 'ACK' };
  }

  unacknowledge(issueId: string, now: number): IssueEvent | null {
    const issue = this.state.issues[issueId];
    if (issue === undefined || issue.state === 'CLOSED') return null;
    const unacked = this.update(issueId, { acknowledgedAt: null, acknowledgedBy: null, updatedAt: now, lastTrigger: 'USER_ACTION' });
    return { ...eventOf(unacked, 'USER_ACTION'), action: 'UNACK' };
  }

  /** A user marks the issue as being investigated: its state stays; workflows with INVESTIGATING hear of it. */
  markAsInvestigating(issueId: string, now: number): IssueEvent | null {
    const issue = this.state.issues[issueId];
    if (issue === undefined || issue.state === 'CLOSED') return null;
    const marked = this.update(issueId, { updatedAt: now, lastTrigger: 'USER_ACTION' });
    return { ...eventOf(marked, 'USER_ACTION'), action: 'MARK_AS_INVESTIGATING' };
  }

  /** Closes the issue (user resolve or TTL); the caller closes its open incidents. */
  closeIssue(issueId: string, now: number, trigger: IssueTrigger, closedBy: string | null, extra: Partial<Issue> = {}): IssueEvent {
    const issue = this.state.issues[issueId]!;
    if (this.state.openByKey[issue.key] === issueId) delete this.state.openByKey[issue.key];
    const closed = this.update(issueId, { ...extra, state: 'CLOSED', closedAt: now, closedBy, updatedAt: now, lastTrigger: trigger });
    const event = eventOf(closed, trigger);
    return trigger === 'USER_ACTION' ? { ...event, action: 'RESOLVE' } : event;
  }

  /** Issues past their TTL, to be closed with CLOSE_TTL. */
  expired(now: number): string[] {
    return Object.values(this.state.openByKey)
      .map((id) => this.state.issues[id]!)
      .filter((issue) => now >= issue.createdAt + (this.settings.get(issue.accountId)?.issueTtlMs ?? this.issueTtlMs))
      .map((issue) => issue.id);
  }

  private update(issueId: string, patch: Partial<Issue>): Issue {
    const next = { ...this.state.issues[issueId]!, ...patch };
    this.state.issues[issueId] = next;
    return next;
  }
}

function eventOf(issue: Issue, trigger: IssueTrigger): IssueEvent {
  const event = { issueId: issue.id, state: issue.state, trigger, priority: issue.priority, updatedAt: issue.updatedAt };
  return issue.state === 'CLOSED' && issue.activatedAt === null ? { ...event, neverActivated: true } : event;
}

function union<T>(list: readonly T[], item: T): T[] {
  return list.includes(item) ? [...list] : [...list, item];
}

export function maxPriority(priorities: readonly IssuePriority[]): IssuePriority | null {
  let best: IssuePriority | null = null;
  for (const p of priorities) if (best === null || PRIORITY_RANK[p] > PRIORITY_RANK[best]) best = p;
  return best;
}
