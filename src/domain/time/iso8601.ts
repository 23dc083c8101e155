/**
 * Times as REST v2 takes and gives them.
 *
 * Accepted (anything else is refused with `undefined`):
 * - `YYYY-MM-DD`, or that followed by `T` (or a space) and `HH:MM`, `HH:MM:SS` or `HH:MM:SS.f…`
 *   with any number of fraction digits (kept to the millisecond, truncated);
 * - after a time, an optional zone: `Z`, `±HH:MM`, `±HHMM` or `±HH`; no zone means UTC;
 * - a space where the offset's `+` belongs (`…T14:00:00 08:00`): a client that does not escape `+` in
 *   a query string has it decoded to a space, and the docs' own advice (`%2B`) is easy to miss;
 * - lower-case `t` and `z`, which RFC 3339 allows.
 * What real clients send besides, read the same way:
 * - the value in double quotes (AngularJS-era Grafana plugins serialize a date as JSON text);
 * - Ruby's `Time#to_s`: a space before the offset (`2024-03-05 14:00:00 -0800`) or a ` UTC`/` GMT` zone;
 * - surrounding white space;
 * - as a last resort, text not in the ISO shape that JavaScript's `Date.parse` reads **and that names
 *   its zone** (`GMT`, `UTC`, `Z` or a numeric offset), such as `Tue Mar 05 2024 14:00:00 GMT+0000`;
 *   text without a zone would be read in the server's own time zone, so it is refused instead.
 * Ranges are checked: month 1–12, day within its month (leap years by the Gregorian rule), hour
 * 0–23 (`24:00` is refused), minute and second 0–59 (no leap seconds), offset at most 18:00.
 *
 * Output is always UTC with a numeric offset and whole seconds, the form New Relic answers with.
 */

const PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:([Zz])|([-+ ])(\d{2})(?::?(\d{2}))?)?)?$/;

const MAX_OFFSET_MINUTES = 18 * 60;

const NAMED_UTC = / (?:UTC|GMT)$/i;
const SPACED_OFFSET = / ([-+]\d{2}:?\d{2})$/;
const NAMES_ITS_ZONE = /(?:GMT|UTC|Z|[-+]\d{2}:?\d{2})(?:\s*\([^)]*\))?$/i;

export function parseRestTime(text: string): number | undefined {
  const trimmed = text.trim();
  const unquoted = trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
  const strict = parseIso(unquoted) ?? parseIso(unquoted.replace(NAMED_UTC, 'Z').replace(SPACED_OFFSET, '$1'));
  if (strict !== undefined) return strict;
  // ISO-shaped text the strict reading refused (a 30 February, a 24:00) stays refused.
  if (/^\d{4}-/.test(unquoted) || !NAMES_ITS_ZONE.test(unquoted)) return undefined;
  const loose = Date.parse(unquoted);
  return Number.isFinite(loose) ? loose : undefined;
}

function parseIso(text: string): number | undefined {
  const match = PATTERN.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, , sign, offsetH, offsetM] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);
  const millis = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;

  let offsetMinutes = 0;
  if (sign !== undefined) {
    const hours = Number(offsetH);
    const minutes = Number(offsetM ?? 0);
    if (minutes > 59) return undefined;
    offsetMinutes = hours * 60 + minutes;
    if (offsetMinutes > MAX_OFFSET_MINUTES) return undefined;
    if (sign === '-') offsetMinutes = -offsetMinutes;
  }

  // Date.UTC reads years 0–99 as 1900–1999; setUTCFullYear takes the year as written.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.setUTCHours(hour, minute, second, millis) - offsetMinutes * 60_000;
}

/** `2024-03-05T14:07:00+00:00`: UTC, seconds floored. */
export function formatRestTime(ms: number): string {
  const seconds = Math.floor(ms / 1000) * 1000;
  return `${new Date(seconds).toISOString().slice(0, 19)}+00:00`;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}
