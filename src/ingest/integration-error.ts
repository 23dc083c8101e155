import { CUSTOM_EVENTS, Rows } from '../store/append-tables.js';
import { attributeJson } from '../store/attribute-json.js';

/** The event type New Relic reports data it dropped under; only the service writes it. */
export const INTEGRATION_ERROR_EVENT_TYPE = 'NrIntegrationError';

/** Where and when an `NrIntegrationError` is filed: the account, and the application (0 for none). */
export interface IntegrationErrorPlace {
  readonly accountId: number;
  readonly appId: number;
  readonly hostId: number;
  readonly instanceId: number;
  readonly at: number;
}

/** One `NrIntegrationError` event as a `custom_events` row, to commit with the data it reports on. */
export function pushIntegrationError(rows: Rows, place: IntegrationErrorPlace, attributes: Readonly<Record<string, unknown>>): void {
  if (rows.table !== CUSTOM_EVENTS) throw new Error(`NrIntegrationError rows go to custom_events, not ${rows.table.name}`);
  rows.push(place.accountId, place.appId, place.hostId, place.instanceId, place.at, INTEGRATION_ERROR_EVENT_TYPE, attributeJson(attributes));
}
