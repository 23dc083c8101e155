import { DateTime, type Zone } from 'luxon';
import type { Span } from '../ast.js';
import { quoteNrqlString } from '../literals.js';
import { NRQL_ERROR_CODES, NrqlError } from '../nrql-error.js';
import { readZone } from './zone.js';

export interface CalendarDate {
  readonly year: number;
  /** 1–12. */
  readonly month: number;
  readonly day: number;
}

export interface TimeOfDay {
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly millisecond: number;
}

/** What a quoted date-time text says; what it leaves out (the date, the zone) the caller fills in. */
export interface DateTimeText {
  readonly date?: CalendarDate;
  readonly time?: TimeOfDay;
  readonly zone?: Zone;
}

const DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?|(\d{2})(\d{2}))/;
const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?/;
/** After `T` the colons may be left out; the hour then has two digits. */
const COMPACT_TIME = /^(\d{2})(\d{2})(?:(\d{2})(?:\.(\d{1,9}))?)?/;
const MERIDIEM = /^(AM|PM)$/i;
const AT_TIME = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;

const SHAPE_HINT =
  "write it as 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM[:SS[.mmm]]' or 'HH:MM[:SS]', optionally with a zone such as 'Z', '-05:00', 'CST' or '[America/Chicago]' and AM/PM";

/**
 * Reads the text of a quoted NRQL time point, `[date][T or space][time][zone][ AM|PM]`:
 * - date `YYYY-MM-DD`, `YYYY-MM` (the 1st) or `YYYYMMDD`;
 * - time `H[H]:MM[:SS[.fraction]]`, or after `T` also `HHMM[SS[.fraction]]`; fractions beyond
 *   milliseconds are truncated;
 * - zone and AM/PM in either order, the zone touching the date or time or after a space
 *   (`2023-12-18Z`, `10:00-0500`, `10:00 CST`, `10:00 [America/Chicago]`, `10:00 America/Chicago`).
 * A date or a time is required. Ranges are checked: day within its month, hour 0–23 (1–12 with
 * AM/PM), minute and second 0–59.
 */
export function readDateTimeText(text: string, span?: Span): DateTimeText {
  const shapeError = () => new NrqlError(NRQL_ERROR_CODES.BAD_TIME, `Cannot read ${quoteNrqlString(text)} as a date and time: ${SHAPE_HINT}`, span);
  let rest = text.trim();

  const dateMatch = DATE.exec(rest);
  let timeMatch: RegExpExecArray | null = null;
  if (dateMatch) {
    rest = rest.slice(dateMatch[0].length);
    const separator = /^(?:([Tt])|\s+)(?=\d)/.exec(rest);
    if (separator) {
      const after = rest.slice(separator[0].length);
      timeMatch = TIME.exec(after) ?? (separator[1] ? COMPACT_TIME.exec(after) : null);
      if (!timeMatch) throw shapeError();
      rest = after.slice(timeMatch[0].length);
    } else if (/^[Tt]/.test(rest)) {
      throw shapeError();
    }
  } else {
    timeMatch = TIME.exec(rest);
    if (!timeMatch) throw shapeError();
    rest = rest.slice(timeMatch[0].length);
  }

  let meridiem: 'AM' | 'PM' | undefined;
  let zone: Zone | undefined;
  for (const token of rest.trim() === '' ? [] : rest.trim().split(/\s+/)) {
    if (MERIDIEM.test(token)) {
      if (!timeMatch || meridiem) throw shapeError();
      meridiem = token.toUpperCase() as 'AM' | 'PM';
    } else if (/^[A-Za-z[+-]/.test(token)) {
      if (zone) throw new NrqlError(NRQL_ERROR_CODES.BAD_TIME, `${quoteNrqlString(text)} names more than one time zone`, span);
      zone = readZone(token);
      if (!zone) throw new NrqlError(NRQL_ERROR_CODES.BAD_TIME, `Unknown time zone ${quoteNrqlString(token)} in ${quoteNrqlString(text)}`, span);
    } else {
      throw shapeError();
    }
  }

  const invalid = (what: string) => new NrqlError(NRQL_ERROR_CODES.BAD_TIME, `${quoteNrqlString(text)} is not a valid date and time: ${what}`, span);
  let date: CalendarDate | undefined;
  if (dateMatch) {
    const year = Number(dateMatch[1]);
    const month = Number(dateMatch[2] ?? dateMatch[4]);
    const day = Number(dateMatch[3] ?? dateMatch[5] ?? 1);
    if (month < 1 || month > 12) throw invalid(`month ${month} is out of range (1–12)`);
    const daysInMonth = DateTime.utc(year, month, 1).daysInMonth!;
    if (day < 1 || day > daysInMonth) throw invalid(`day ${day} is out of range (1–${daysInMonth})`);
    date = { year, month, day };
  }
  let time: TimeOfDay | undefined;
  if (timeMatch) {
    let hour = Number(timeMatch[1]);
    if (meridiem) {
      if (hour < 1 || hour > 12) throw invalid(`hour ${hour} is out of range with ${meridiem} (1–12)`);
      hour = (hour % 12) + (meridiem === 'PM' ? 12 : 0);
    }
    const millisecond = Number((timeMatch[4] ?? '').padEnd(3, '0').slice(0, 3));
    time = checkedTime(hour, Number(timeMatch[2]), Number(timeMatch[3] ?? 0), millisecond, invalid);
  }
  return { date, time, zone };
}

/**
 * The time of `<day> AT '…'`: `H[H]:MM` or `H[H]:MM:SS`, no fraction and no zone (the day is
 * taken in the query's zone).
 */
export function readTimeOfDay(text: string, span?: Span): TimeOfDay {
  const match = AT_TIME.exec(text.trim());
  if (!match) {
    throw new NrqlError(NRQL_ERROR_CODES.BAD_TIME, `Cannot read ${quoteNrqlString(text)} as a time of day: AT takes 'HH:MM' or 'HH:MM:SS', without milliseconds or a zone`, span);
  }
  const invalid = (what: string) => new NrqlError(NRQL_ERROR_CODES.BAD_TIME, `${quoteNrqlString(text)} is not a valid time of day: ${what}`, span);
  return checkedTime(Number(match[1]), Number(match[2]), Number(match[3] ?? 0), 0, invalid);
}

function checkedTime(hour: number, minute: number, second: number, millisecond: number, invalid: (what: string) => NrqlError): TimeOfDay {
  if (hour > 23) throw invalid(`hour ${hour} is out of range (0–23)`);
  if (minute > 59) throw invalid(`minute ${minute} is out of range (0–59)`);
  if (second > 59) throw invalid(`second ${second} is out of range (0–59)`);
  return { hour, minute, second, millisecond };
}
