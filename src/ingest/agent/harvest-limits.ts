/**
 * How many events an agent may keep per harvest, handed out in the connect reply
 * (`event_harvest_config.harvest_limits`, `span_event_harvest_config.harvest_limit`).
 *
 * Agents send their own limits in the connect (`event_harvest_config.harvest_limits`: the reservoir
 * sizes they are configured with, per minute in New Relic's terms: `transaction_events.max_samples_stored`,
 * `error_collector.max_event_samples_stored`, …). New Relic's collector scales its per-minute figures to
 * the harvest period, so a 5 s harvest keeps 100 / 12 ≈ 8 error events and samples away the rest.
 *
 * - `agent` (the default): each harvest may keep what the agent asks for, unscaled, up to
 *   MAX_HARVEST_LIMIT; a limit the agent does not send is New Relic's per-minute figure, unscaled. A
 *   self-hosted store has no reason to sample away what the agent would send.
 * - `newrelic`: New Relic's per-minute figures scaled to the period (at least 1), as its collector
 *   hands them out.
 */
export type HarvestLimitMode = 'agent' | 'newrelic';
export const HARVEST_LIMIT_MODES: readonly HarvestLimitMode[] = ['agent', 'newrelic'];

/** Per-minute event limits New Relic's collector grants. */
export const NEW_RELIC_LIMITS_PER_MINUTE = {
  analytic_event_data: 10_000,
  custom_event_data: 3_000,
  error_event_data: 100,
  log_event_data: 10_000,
  span_event_data: 2_000,
} as const;

export type HarvestLimitName = keyof typeof NEW_RELIC_LIMITS_PER_MINUTE;
export type HarvestLimits = Readonly<Record<HarvestLimitName, number>>;

/** The most events of one kind a harvest may keep, whatever the agent asks for: a payload stays far below the store's queue (2 M rows). */
export const MAX_HARVEST_LIMIT = 100_000;

/** The limits an agent asks for in its connect facts (`event_harvest_config.harvest_limits`): whole numbers ≥ 0 only. */
export function requestedHarvestLimits(facts: unknown): Partial<Record<HarvestLimitName, number>> {
  const first = Array.isArray(facts) ? facts[0] : facts;
  const config = isObject(first) ? first.event_harvest_config : undefined;
  const limits = isObject(config) ? config.harvest_limits : undefined;
  if (!isObject(limits)) return {};
  const requested: Partial<Record<HarvestLimitName, number>> = {};
  for (const name of Object.keys(NEW_RELIC_LIMITS_PER_MINUTE) as HarvestLimitName[]) {
    const value = limits[name];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) requested[name] = value;
  }
  return requested;
}

/** The limits a connect reply hands out for a harvest every `periodMs`. */
export function grantedHarvestLimits(mode: HarvestLimitMode, periodMs: number, requested: Partial<Record<HarvestLimitName, number>>): HarvestLimits {
  const granted = {} as Record<HarvestLimitName, number>;
  for (const [name, perMinute] of Object.entries(NEW_RELIC_LIMITS_PER_MINUTE) as [HarvestLimitName, number][]) {
    granted[name] = mode === 'newrelic'
      ? Math.max(1, Math.round((perMinute * periodMs) / 60_000))
      : Math.min(requested[name] ?? perMinute, MAX_HARVEST_LIMIT);
  }
  return granted;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
