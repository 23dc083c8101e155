import { FixedOffsetZone, IANAZone, type Zone } from 'luxon';

/**
 * Abbreviations name fixed offsets, not regions: `CST` is UTC−6 in July too, and `CDT` UTC−5 in
 * January, as the letters say.
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

/**
 * Three-letter ids the platform's zone data (ICU, like java.time's short ids) maps to one region
 * each although people mean others by them (`IST` is India, Ireland or Israel; `BST` reads as
 * Dhaka, not British Summer Time): refused, so the query names a region or an offset instead.
 */
const AMBIGUOUS_SHORT_IDS: ReadonlySet<string> = new Set([
  'ACT', 'AET', 'AGT', 'ART', 'AST', 'BET', 'BST', 'CAT', 'CNT', 'CTT', 'EAT', 'ECT',
  'IET', 'IST', 'JST', 'MIT', 'NET', 'NST', 'PLT', 'PNT', 'PRT', 'SST', 'VST',
]);

const OFFSET = /^([+-])(\d{2})(?::?(\d{2}))?$/;
const MAX_OFFSET_MINUTES = 18 * 60;

/**
 * A zone as NRQL lets one be written, in a date-time text or in `WITH TIMEZONE`: `Z`, an offset
 * `±HH`, `±HHMM` or `±HH:MM` (at most 18:00), an abbreviation above, or an IANA name
 * (`America/New_York`, `Etc/GMT-6`, `UTC`; case-insensitive) bare or in brackets. `undefined`
 * for anything else.
 */
export function readZone(text: string): Zone | undefined {
  const name = /^\[(.*)\]$/.exec(text)?.[1] ?? text;
  const abbreviation = ABBREVIATION_OFFSET_MINUTES.get(name.toUpperCase());
  if (abbreviation !== undefined) return FixedOffsetZone.instance(abbreviation);
  const offset = OFFSET.exec(name);
  if (offset) {
    const minutes = Number(offset[2]) * 60 + Number(offset[3] ?? 0);
    if (Number(offset[3] ?? 0) > 59 || minutes > MAX_OFFSET_MINUTES) return undefined;
    return FixedOffsetZone.instance(offset[1] === '-' ? -minutes : minutes);
  }
  if (AMBIGUOUS_SHORT_IDS.has(name.toUpperCase())) return undefined;
  return IANAZone.isValidZone(name) ? IANAZone.create(name) : undefined;
}
