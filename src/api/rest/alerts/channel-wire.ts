import { SECRET_CONFIGURATION_KEYS, type LegacyChannel } from '../../../domain/alerts/legacy-channel.js';

/**
 * A REST channel as clients read it (rest-v2.md §12.1): the configuration's values as strings (a
 * webhook's `payload` and `headers` as objects), secrets left out, and the policies it is linked to
 * that still exist.
 */
export function channelObject(channel: LegacyChannel, existingPolicies: ReadonlySet<number>): Record<string, unknown> {
  const configuration: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(channel.configuration)) if (!SECRET_CONFIGURATION_KEYS.includes(key)) configuration[key] = value;
  return {
    id: channel.id,
    name: channel.name,
    type: channel.type,
    configuration,
    links: { policy_ids: channel.policyIds.filter((id) => existingPolicies.has(id)) },
  };
}
