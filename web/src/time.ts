/**
 * The page's time range, kept in the URL (`since=30m` or `from=&to=` in epoch ms), and the window
 * every query sends: absolute and minute-aligned, ending at the start of the current minute (that
 * minute's timeslices arrive with the next harvest), so the NRQL shown re-runs to the same numbers.
 */
export const MINUTE = 60_000;

export const PRESETS: readonly { readonly key: string; readonly label: string; readonly minutes: number }[] = [
  { key: '30m', label: 'Last 30 minutes', minutes: 30 },
  { key: '60m', label: 'Last 60 minutes', minutes: 60 },
  { key: '3h', label: 'Last 3 hours', minutes: 180 },
  { key: '6h', label: 'Last 6 hours', minutes: 360 },
  { key: '12h', label: 'Last 12 hours', minutes: 720 },
  { key: '24h', label: 'Last 24 hours', minutes: 1440 },
  { key: '3d', label: 'Last 3 days', minutes: 4320 },
  { key: '7d', label: 'Last 7 days', minutes: 10080 },
];

export type TimeRange =
  | { readonly kind: 'relative'; readonly key: string; readonly minutes: number }
  | { readonly kind: 'absolute'; readonly from: number; readonly to: number };

export interface Window {
  readonly from: number;
  readonly to: number;
}

const DEFAULT: TimeRange = { kind: 'relative', key: '30m', minutes: 30 };

export function rangeFromSearch(params: URLSearchParams): TimeRange {
  const from = Number(params.get('from'));
  const to = Number(params.get('to'));
  if (params.has('from') && params.has('to') && Number.isSafeInteger(from) && Number.isSafeInteger(to) && to - from >= MINUTE) {
    return { kind: 'absolute', from: floorMinute(from), to: floorMinute(to) };
  }
  const preset = PRESETS.find((p) => p.key === params.get('since'));
  return preset ? { kind: 'relative', key: preset.key, minutes: preset.minutes } : DEFAULT;
}

export function floorMinute(ms: number): number {
  return Math.floor(ms / MINUTE) * MINUTE;
}

export function resolveWindow(range: TimeRange, nowMs: number): Window {
  if (range.kind === 'absolute') return { from: range.from, to: range.to };
  const to = floorMinute(nowMs);
  return { from: to - range.minutes * MINUTE, to };
}

/** TIMESERIES AUTO's table (docs/nrql.md), written out so the text shown says what ran. */
export function bucketFor(window: Window): string {
  const span = window.to - window.from;
  if (span <= 60 * MINUTE) return '1 minute';
  if (span <= 180 * MINUTE) return '5 minutes';
  if (span <= 360 * MINUTE) return '15 minutes';
  if (span <= 1440 * MINUTE) return '30 minutes';
  if (span <= 3 * 1440 * MINUTE) return '1 hour';
  if (span <= 7 * 1440 * MINUTE) return '6 hours';
  return '1 day';
}

export function windowClause(window: Window): string {
  return `SINCE ${window.from} UNTIL ${window.to}`;
}

export function describeRange(range: TimeRange): string {
  if (range.kind === 'relative') return PRESETS.find((p) => p.key === range.key)!.label;
  return `${formatTime(range.from)} – ${formatTime(range.to)}`;
}

/** 24-hour clock, UTC, as the data is stored. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}
