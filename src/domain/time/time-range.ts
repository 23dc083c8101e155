/**
 * The last millisecond of the year 9999: the end of every time Timeslice stores or reads. Later
 * "timestamps" are garbage, and far enough out they do not fit a TIMESTAMP (DuckDB's, and NRQL's
 * times, end there too).
 */
export const LAST_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Whether `ms` is epoch milliseconds from 1970 to the end of the year 9999 (NaN and infinities are not). */
export function isStorableTime(ms: number): boolean {
  return ms >= 0 && ms <= LAST_TIME_MS;
}
