/**
 * New Relic's limits on one event (the Event API's "Limits and restricted characters"), the same
 * for events sent to the Event API and change tracking events made through the graph API.
 */

/** Attributes one event may carry. */
export const MAX_ATTRIBUTES = 255;
/** Characters of an attribute name. */
export const MAX_ATTRIBUTE_NAME_LENGTH = 255;
/** Characters of a string attribute value. */
export const MAX_VALUE_LENGTH = 4096;
/** Characters of an `eventType`. */
export const MAX_EVENT_TYPE_LENGTH = 255;
