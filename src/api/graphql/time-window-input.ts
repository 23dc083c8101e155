import { isStorableTime, LAST_TIME_MS } from '../../domain/time/time-range.js';
import { GraphError } from './graph-errors.js';

/**
 * A `[startTime, endTime)` window a client gave (`TimeWindowInput` and its kin), checked once for
 * every field that takes one: both ends epoch milliseconds from 1970 to the end of year 9999, the
 * start before the end. `argument` names it in the error (`timeWindow`, `filter.timeWindow`).
 */
export function checkedWindow(start: number, end: number, argument: string): { readonly start: number; readonly end: number } {
  for (const [name, ms] of [['startTime', start], ['endTime', end]] as const) {
    if (!isStorableTime(ms)) throw GraphError.invalidInput(`${argument}.${name} must be epoch milliseconds from 0 to ${LAST_TIME_MS} (the end of year 9999)`);
  }
  if (!(start < end)) throw GraphError.invalidInput(`${argument}.startTime must be before ${argument}.endTime`);
  return { start, end };
}
