/**
 * The URI templates REST v2 puts beside its objects (`"links": {…}`), under New Relic's names. New
 * Relic's own values do not lead anywhere on Timeslice: `/v2/application/{application_id}/hosts?ids=…`
 * (singular, no format suffix, `ids` for `filter[ids]`), `…/hosts/{instance_id}` for an instance's
 * host, and `/v2/servers/…` for the legacy servers Timeslice does not have. Each template here is an
 * endpoint this API serves, filled from the ids the object's own `links` carry, so a client that
 * follows one gets the object (test/rest/link-templates.int.test.ts follows every one). The server
 * templates are left out: no object has a server id to fill them with (`links.servers` is `[]`).
 */

const application = '/v2/applications/{application_id}.json';
const hosts = '/v2/applications/{application_id}/hosts.json?filter[ids]={host_ids}';
const host = '/v2/applications/{application_id}/hosts/{host_id}.json';
const instances = '/v2/applications/{application_id}/instances.json?filter[ids]={instance_ids}';
const instance = '/v2/applications/{application_id}/instances/{instance_id}.json';

export const APPLICATION_LINKS = {
  'application.application_hosts': hosts,
  'application.application_host': host,
  'application.application_instances': instances,
  'application.application_instance': instance,
} as const;

export const HOST_LINKS = {
  'application_host.application': application,
  'application_host.application_instances': instances,
  'application_host.application_instance': instance,
} as const;

export const INSTANCE_LINKS = {
  'application_instance.application': application,
  'application_instance.application_host': host,
} as const;

export const DEPLOYMENT_LINKS = { 'deployment.agent': application } as const;

export const KEY_TRANSACTION_LINKS = { 'key_transaction.application': application } as const;
