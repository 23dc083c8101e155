/**
 * Work over large results in slices, letting the event loop run between them: a query's result
 * of 200 k groups is seconds of JavaScript, and in one piece it would hold every ingest
 * acknowledgement and REST read behind it (bench/starvation.ts).
 */

/** Rows handled between two turns of the event loop: a few milliseconds of work each. */
export const ROWS_PER_SLICE = 4096;

/** Lets timers, I/O and other requests run before the caller continues. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** `values.map(fn)`, yielding to the event loop every `ROWS_PER_SLICE` values when there are more than that. */
export async function mapInSlices<T, U>(values: readonly T[], fn: (value: T) => U): Promise<U[]> {
  if (values.length <= ROWS_PER_SLICE) return values.map(fn);
  const out = new Array<U>(values.length);
  for (let i = 0; i < values.length; i++) {
    if (i > 0 && i % ROWS_PER_SLICE === 0) await yieldToEventLoop();
    out[i] = fn(values[i]!);
  }
  return out;
}
