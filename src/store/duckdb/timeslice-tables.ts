/**
 * The tables timeslices live in: ingest appends to `timeslices` in arrival order; the compactor
 * moves older hours into `timeslices_compacted` and whole days into `timeslices_daily`.
 */
export const COMPACTED_TIMESLICES = 'timeslices_compacted';
export const DAILY_TIMESLICES = 'timeslices_daily';
/** Every table holding timeslices: each row is in exactly one. Readers union them. */
export const TIMESLICE_TABLES = ['timeslices', COMPACTED_TIMESLICES, DAILY_TIMESLICES] as const;
/** Hourly rollups of the three (`timeslice-upkeep.ts`): a summary of the others, not a fourth place for a row. */
export const HOURLY_TIMESLICES = 'timeslices_hourly';
