/** Time is injected, never read from globals, so that tests can pin it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export function fixedClock(ms: number): Clock & { set(ms: number): void } {
  let current = ms;
  return { now: () => current, set: (next) => { current = next; } };
}
