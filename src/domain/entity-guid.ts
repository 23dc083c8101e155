export type EntityDomain = 'APM' | 'BROWSER' | 'MOBILE' | 'INFRA' | 'SYNTH' | 'EXT';

/** New Relic's entity GUID: base64 (standard alphabet, no padding) of `accountId|DOMAIN|TYPE|domainId`. */
export function entityGuid(accountId: number, domain: EntityDomain, type: string, domainId: number | string): string {
  return Buffer.from(`${accountId}|${domain}|${type}|${domainId}`, 'utf8').toString('base64').replace(/=+$/, '');
}

export function parseEntityGuid(guid: string): { accountId: number; domain: string; type: string; domainId: string } | undefined {
  const parts = Buffer.from(guid, 'base64').toString('utf8').split('|');
  if (parts.length !== 4) return undefined;
  const [account, domain, type, domainId] = parts as [string, string, string, string];
  if (!/^\d+$/.test(account)) return undefined;
  return { accountId: Number(account), domain, type, domainId };
}
