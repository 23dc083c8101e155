/**
 * The six numbers an agent reports per metric per harvest, in the units the agent used
 * (seconds for times). Apdex metrics reuse the slots: count=S, total=T, exclusive=F,
 * min=max=apdex_t, sumOfSquares=0.
 */
export interface Summary {
  readonly count: number;
  readonly total: number;
  readonly exclusive: number;
  readonly min: number;
  readonly max: number;
  readonly sumOfSquares: number;
}

const MINUTE_MS = 60_000;

/**
 * The minute a harvest is filed under: the minute holding the middle of the harvest interval.
 * A normal harvest spans ~60 s, so most of its measurements fall in that minute; a longer one
 * (data the agent kept after a failed send) still lands at its centre.
 */
export function harvestMinute(beginMs: number, endMs: number): number {
  const middle = beginMs + Math.max(0, endMs - beginMs) / 2;
  return Math.floor(middle / MINUTE_MS) * MINUTE_MS;
}
