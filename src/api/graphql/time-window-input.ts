import { GraphError } from './graph-errors.js';

/** The last millisecond of the year 9999: NRQL's (and DuckDB's TIMESTAMP's) times end there. */
export const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * A `[startTime, endTime)` window a client gave (`TimeWindowInput` and its kin), checked once for
 * every field that takes one: both ends epoch milliseconds from 1970 to the end of year 9999, the
 * start before the end. `argument` names it in the error (`timeWindow`, `filter.timeWindow`).
 */
export function checkedWindow(start: number, end: number, argument: string): { readonly start: number; readonly end: number } {
  for (const [name, ms] of [['startTime', start], ['endTime', end]] as const) {
    if (!(ms >= 0 && ms <= LAST_MS)) throw GraphError.invalidInput(`${argument}.${name} must be epoch milliseconds from 0 to ${LAST_MS} (the end of year 9999)`);
  }
  if (!(start < end)) throw GraphError.invalidInput(`${argument}.startTime must be before ${argument}.endTime`);
  return { start, end };
}
