/**
 * Sizes of property and fuzz tests, scaled by TIMESLICE_FUZZ_SCALE: a positive number, 1 when
 * unset. `npm run test:unit` sets 0.1 for a quick pass over every property; `npm test` runs them
 * at their full sizes. Seeds stay as they are, so a smaller run checks a prefix of the same cases.
 */
export const FUZZ_SCALE = scaleOf(process.env.TIMESLICE_FUZZ_SCALE);

function scaleOf(text: string | undefined): number {
  if (text === undefined || text === '') return 1;
  const scale = Number(text);
  if (!(scale > 0 && Number.isFinite(scale))) throw new Error(`TIMESLICE_FUZZ_SCALE must be a positive number, not ${JSON.stringify(text)}`);
  return scale;
}

/**
 * The fast-check seed of the property tests: FC_SEED when set (to replay a failure); a fixed one
 * when TIMESLICE_FUZZ_SCALE is below 1, so the quick pass checks the same cases on every run and
 * the floors on how many cases reach each outcome cannot fail by chance; otherwise none (a new
 * random seed each run, printed with any failure).
 */
export const FUZZ_SEED: number | undefined = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : FUZZ_SCALE < 1 ? 20_261_126 : undefined;

/** `runs` scaled by TIMESLICE_FUZZ_SCALE, at least 1. */
export function scaledRuns(runs: number): number {
  return Math.max(1, Math.round(runs * FUZZ_SCALE));
}
