/**
 * A metric number as New Relic's REST v2 prints it unless `raw=true`: three significant figures
 * (rest-v2.md §1.8: `99770` calls → `99800` per minute, `0.36412` → `0.364`).
 *
 * `toPrecision` rounds the exact binary value in decimal, half away from zero, and parsing its
 * output gives the double nearest to the short decimal, so JSON prints `0.3`, never
 * `0.30000000000000004`. Counts that are integers are shown unrounded by New Relic: callers
 * pass those through rather than here. Non-finite input is returned as it is (JSON has no
 * spelling for it; the caller decides), and `-0` becomes `0`.
 */
export function threeSignificant(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x === 0 ? 0 : x;
  return Number(x.toPrecision(3));
}

/** Two decimals, as New Relic shows Apdex scores (on the overview and in metric data). */
export function twoDecimals(x: number): number {
  return Math.round(x * 100) / 100;
}
