import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Span } from '../ast.js';
import { NrqlError } from '../nrql-error.js';
import { readDateTimeText, readTimeOfDay } from './date-time-text.js';

const SPAN: Span = { start: 6, end: 30 };

/** The parts as plain data: the zone by its offset in minutes at 2023-12-18T00:00Z. */
function parts(text: string) {
  const read = readDateTimeText(text, SPAN);
  return { date: read.date, time: read.time, offset: read.zone?.offset(Date.parse('2023-12-18T00:00:00Z')) };
}

function badTime(message: string) {
  return (e: unknown) => {
    assert.ok(e instanceof NrqlError, String(e));
    assert.equal(e.code, 'NRQL_BAD_TIME');
    assert.equal(e.message, message);
    assert.deepEqual(e.span, SPAN);
    return true;
  };
}

const SHAPE = "write it as 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM[:SS[.mmm]]' or 'HH:MM[:SS]', optionally with a zone such as 'Z', '-05:00', 'CST' or '[America/Chicago]' and AM/PM";

test('date, time and zone parts', () => {
  assert.deepEqual(parts('2023-12-18'), { date: { year: 2023, month: 12, day: 18 }, time: undefined, offset: undefined });
  assert.deepEqual(parts('2023-12-18T06:07:08.9-0600'), {
    date: { year: 2023, month: 12, day: 18 },
    time: { hour: 6, minute: 7, second: 8, millisecond: 900 },
    offset: -360,
  });
  assert.deepEqual(parts('  9:05 pm '), { date: undefined, time: { hour: 21, minute: 5, second: 0, millisecond: 0 }, offset: undefined });
  assert.deepEqual(parts('20231218T0607'), { date: { year: 2023, month: 12, day: 18 }, time: { hour: 6, minute: 7, second: 0, millisecond: 0 }, offset: undefined });
  assert.deepEqual(parts('2023-12-18t06:07:08.123456789z').time, { hour: 6, minute: 7, second: 8, millisecond: 123 }, 'fraction truncated');
  assert.deepEqual(parts('2024-02-29').date, { year: 2024, month: 2, day: 29 });
});

test('AM and PM: 12 AM is midnight, 12 PM noon; the zone may come before or after', () => {
  assert.equal(parts('12:00 AM').time?.hour, 0);
  assert.equal(parts('12:30 PM').time?.hour, 12);
  assert.equal(parts('01:00 AM').time?.hour, 1);
  assert.equal(parts('11:59 PM').time?.hour, 23);
  assert.deepEqual(parts('2023-12-18 07:23-0600 AM'), parts('2023-12-18 07:23 AM -0600'));
});

test('zones: Z, offsets with and without a colon, bare or bracketed names, abbreviations, touching or after a space', () => {
  assert.equal(parts('10:00Z').offset, 0);
  assert.equal(parts('10:00 Z').offset, 0);
  assert.equal(parts('10:00+05:30').offset, 330);
  assert.equal(parts('10:00 +0530').offset, 330);
  assert.equal(parts('10:00-03').offset, -180);
  assert.equal(parts('10:00 [America/Chicago]').offset, -360);
  assert.equal(parts('10:00[Asia/Kolkata]').offset, 330);
  assert.equal(parts('10:00 Europe/Paris').offset, 60);
  assert.equal(parts('10:00 [Etc/GMT-6]').offset, 360);
  assert.equal(parts('10:00 [UTC]').offset, 0);
  assert.equal(parts('2023-12-18 EDT').offset, -240);
  assert.equal(parts('2023-12-18 gmt').offset, 0);
  assert.equal(parts('2023-12-18-06:00').offset, -360);
});

test('refused: texts of the wrong shape', () => {
  for (const text of ['', 'yesterday', '2023-12-18 10', '2023-12-18 10:5', '2023-12-18T', '10', '2023/12/18', '2023-12-18 10:00 AM PM', 'AM', '2023-12-18 AM', '17028992967890', '10:00:00.1234567890']) {
    assert.throws(() => readDateTimeText(text, SPAN), badTime(`Cannot read '${text}' as a date and time: ${SHAPE}`), text);
  }
});

test('refused: fields out of range, named in the message', () => {
  assert.throws(() => readDateTimeText('2023-13-01', SPAN), badTime("'2023-13-01' is not a valid date and time: month 13 is out of range (1–12)"));
  assert.throws(() => readDateTimeText('2023-00-01', SPAN), badTime("'2023-00-01' is not a valid date and time: month 0 is out of range (1–12)"));
  assert.throws(() => readDateTimeText('2023-04-31', SPAN), badTime("'2023-04-31' is not a valid date and time: day 31 is out of range (1–30)"));
  assert.throws(() => readDateTimeText('1900-02-29', SPAN), badTime("'1900-02-29' is not a valid date and time: day 29 is out of range (1–28)"));
  assert.throws(() => readDateTimeText('2023-12-00', SPAN), badTime("'2023-12-00' is not a valid date and time: day 0 is out of range (1–31)"));
  assert.throws(() => readDateTimeText('24:00', SPAN), badTime("'24:00' is not a valid date and time: hour 24 is out of range (0–23)"));
  assert.throws(() => readDateTimeText('13:00 PM', SPAN), badTime("'13:00 PM' is not a valid date and time: hour 13 is out of range with PM (1–12)"));
  assert.throws(() => readDateTimeText('00:30 AM', SPAN), badTime("'00:30 AM' is not a valid date and time: hour 0 is out of range with AM (1–12)"));
  assert.throws(() => readDateTimeText('10:60', SPAN), badTime("'10:60' is not a valid date and time: minute 60 is out of range (0–59)"));
  assert.throws(() => readDateTimeText('10:59:60', SPAN), badTime("'10:59:60' is not a valid date and time: second 60 is out of range (0–59)"));
});

test('refused: unknown zones, two zones, offsets beyond 18 hours', () => {
  assert.throws(() => readDateTimeText('10:00 Mars/Base', SPAN), badTime("Unknown time zone 'Mars/Base' in '10:00 Mars/Base'"));
  assert.throws(() => readDateTimeText('10:00 IST', SPAN), badTime("Unknown time zone 'IST' in '10:00 IST'"));
  assert.throws(() => readDateTimeText('10:00+19:00', SPAN), badTime("Unknown time zone '+19:00' in '10:00+19:00'"));
  assert.throws(() => readDateTimeText('10:00+05:60', SPAN), badTime("Unknown time zone '+05:60' in '10:00+05:60'"));
  assert.throws(() => readDateTimeText('10:00Z CST', SPAN), badTime("'10:00Z CST' names more than one time zone"));
});

test('AT times: HH:MM or HH:MM:SS only', () => {
  assert.deepEqual(readTimeOfDay('01:23:45', SPAN), { hour: 1, minute: 23, second: 45, millisecond: 0 });
  assert.deepEqual(readTimeOfDay('7:05', SPAN), { hour: 7, minute: 5, second: 0, millisecond: 0 });
  for (const text of ['01:23:45.678', '01:23 CST', '1 PM', '2023-12-18 01:00', '']) {
    assert.throws(
      () => readTimeOfDay(text, SPAN),
      badTime(`Cannot read '${text}' as a time of day: AT takes 'HH:MM' or 'HH:MM:SS', without milliseconds or a zone`),
      text,
    );
  }
  assert.throws(() => readTimeOfDay('23:60', SPAN), badTime("'23:60' is not a valid time of day: minute 60 is out of range (0–59)"));
});
