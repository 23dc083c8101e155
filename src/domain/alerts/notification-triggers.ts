import type { IssueEvent } from './alert-model.js';

/** A workflow destination's `notificationTriggers` values (NerdGraph's AiWorkflowsNotificationTrigger). */
export type NotificationTrigger = 'ACTIVATED' | 'ACKNOWLEDGED' | 'INVESTIGATING' | 'PRIORITY_CHANGED' | 'CLOSED' | 'OTHER_UPDATES';

/** Triggers of a destination configuration that names none (a choice; reference §3.2). */
export const DEFAULT_NOTIFICATION_TRIGGERS: readonly NotificationTrigger[] = ['ACTIVATED', 'ACKNOWLEDGED', 'PRIORITY_CHANGED', 'CLOSED', 'OTHER_UPDATES'];

/**
 * Which notification trigger an issue event answers to (reference §5.1 step 4), or null when it is
 * never sent: events of an issue that has not activated yet (state CREATED) notify nobody.
 */
export function notificationTriggerOf(event: IssueEvent): NotificationTrigger | null {
  if (event.state === 'CREATED' || event.neverActivated) return null;
  if (event.state === 'CLOSED') return 'CLOSED';
  switch (event.trigger) {
    case 'STATE_CHANGE':
      return 'ACTIVATED';
    case 'PRIORITY_CHANGED':
      return 'PRIORITY_CHANGED';
    case 'USER_ACTION':
      return event.action === 'ACK' ? 'ACKNOWLEDGED' : event.action === 'MARK_AS_INVESTIGATING' ? 'INVESTIGATING' : 'OTHER_UPDATES';
    case 'INCIDENT_ADDED':
    case 'INCIDENT_CLOSED':
      return 'OTHER_UPDATES';
    default:
      return null;
  }
}
