/**
 * Names a change tracking event's custom attribute may not take, compared without case: the
 * event's own attributes and the NRQL keywords New Relic's change tracking docs list ("accountId,
 * appID, category, changeTrackingId, customAttributes, description, entity.guid, entity.name,
 * eventType, groupId, timestamp, type, user, and NRQL keywords such as select, from, where…"), so
 * every custom attribute is a plain name in a query and none hides one of the event's own.
 */
const RESERVED: ReadonlySet<string> = new Set([
  'accountid', 'ago', 'and', 'appid', 'appname', 'as', 'auto', 'begin', 'begintime', 'category', 'categorytype', 'changelog',
  'changetrackingid', 'commit', 'compare', 'customattributes', 'customtype', 'day', 'days', 'deeplink', 'deploymentid', 'description',
  'end', 'endtime', 'entity.domain', 'entity.guid', 'entity.name', 'entity.type', 'entityguid', 'entityname', 'eventtype', 'explain',
  'facet', 'fb.input', 'featureflagid', 'from', 'groupid', 'hostname', 'hour', 'hours', 'in', 'is', 'like', 'limit', 'log', 'minute',
  'minutes', 'month', 'months', 'not', 'null', 'offset', 'or', 'plugin.type', 'raw', 'second', 'seconds', 'select', 'service.source',
  'shortdescription', 'since', 'timeseries', 'timestamp', 'type', 'until', 'user', 'version', 'week', 'weeks', 'where', 'with',
]);

/** Whether `name` is reserved for a change tracking event's own attributes or NRQL (case ignored). */
export function isReservedCustomAttribute(name: string): boolean {
  return RESERVED.has(name.toLowerCase());
}
