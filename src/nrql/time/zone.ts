import { FixedOffsetZone, IANAZone, type Zone } from 'luxon';

/**
 * Abbreviations name fixed offsets, not regions: `CST` is UTC−6 in July too, which is what a
 * person writing `'2023-07-01 10:00 CST'` means. Only these are read; the rest of the world's
 * abbreviations are ambiguous (`IST` is India, Ireland or Israel) and must be written as a
 * region or an offset.
 */
const ABBREVIATION_OFFSET_MINUTES: ReadonlyMap<string, number> = new Map([
  ['UTC', 0],
  ['GMT', 0],
  ['Z', 0],
  ['EST', -5 * 60],
  ['EDT', -4 * 60],
  ['CST', -6 * 60],
  ['CDT', -5 * 60],
  ['MST', -7 * 60],
  ['MDT', -6 * 60],
  ['PST', -8 * 60],
  ['PDT', -7 * 60],
]);

const OFFSET = /^([+-])(\d{2})(?::?(\d{2}))?$/;
const MAX_OFFSET_MINUTES = 18 * 60;

/**
 * A zone as NRQL lets one be written, in a date-time text or in `WITH TIMEZONE`: `Z`, an offset
 * `±HH`, `±HHMM` or `±HH:MM` (at most 18:00), an abbreviation above, or an IANA name
 * (`America/New_York`, case-insensitive) bare or in brackets. `undefined` for anything else.
 */
export function readZone(text: string): Zone | undefined {
  const bracketed = /^\[(.*)\]$/.exec(text);
  const name = bracketed ? bracketed[1]! : text;
  const abbreviation = ABBREVIATION_OFFSET_MINUTES.get(name.toUpperCase());
  if (abbreviation !== undefined && !bracketed) return FixedOffsetZone.instance(abbreviation);
  const offset = OFFSET.exec(name);
  if (offset && !bracketed) {
    const minutes = Number(offset[2]) * 60 + Number(offset[3] ?? 0);
    if (Number(offset[3] ?? 0) > 59 || minutes > MAX_OFFSET_MINUTES) return undefined;
    return FixedOffsetZone.instance(offset[1] === '-' ? -minutes : minutes);
  }
  return IANAZone.isValidZone(name) ? IANAZone.create(name) : undefined;
}
