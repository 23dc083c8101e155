import type { TimesliceCoverage } from '../plan/resolution.js';

const MINUTE_MS = 60_000;

/**
 * Retention's two rules, whatever engine applies them.
 *
 * A period's cutoff is the start of the minute `periodMs` before now: rows before it have expired.
 */
export function retentionCutoff(nowMs: number, periodMs: number): number {
  return Math.floor(nowMs / MINUTE_MS) * MINUTE_MS - periodMs;
}

/**
 * What readers may take from rollups now: hours before the rollup watermark are rolled up, and
 * 1-minute timeslices are deleted only before both their cutoff and that watermark (a minute is
 * never deleted before its hour is rolled up), so every minute from `minuteFromMs` on is kept.
 */
export function timesliceCoverage(minuteRetentionMs: number | null, watermarkMs: number | null, nowMs: number): TimesliceCoverage {
  const minuteFromMs = minuteRetentionMs === null || watermarkMs === null ? null : Math.min(retentionCutoff(nowMs, minuteRetentionMs), watermarkMs);
  return { hourlyUntilMs: watermarkMs, minuteFromMs };
}
