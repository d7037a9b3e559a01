/**
 * The import's reading of a file, without a server: the file's own time zones.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCalendar } from '../../src/calendar/ical/ical.import.parse.ts';
import { FileZones, ianaZoneMatching, instantInVtimezone } from '../../src/calendar/ical/ical.import.zones.ts';
import { ics, outlookCalendar } from './ical.import.fixtures.ts';

describe('time zones defined in a file', () => {
  const outlook = () => {
    const calendar = parseCalendar(outlookCalendar());
    return new FileZones(calendar.zones).get('W. Europe Standard Time')!;
  };
  const utc = (stamp: string) => Date.parse(`${stamp}Z`);
  const hours = (ms: number) => ms / 3_600_000;

  it('gives Outlook’s zone from 1601 its offsets in any year, changes included', () => {
    const zone = outlook();
    assert.equal(hours(zone.offsetAt(utc('2027-03-28T00:59:59'))), 1);
    assert.equal(hours(zone.offsetAt(utc('2027-03-28T01:00:00'))), 2);
    assert.equal(hours(zone.offsetAt(utc('2027-10-31T00:59:59'))), 2);
    assert.equal(hours(zone.offsetAt(utc('2027-10-31T01:00:00'))), 1);
    // The last Sunday of March 9000 is the 30th.
    assert.equal(hours(zone.offsetAt(utc('9000-03-30T00:59:59'))), 1);
    assert.equal(hours(zone.offsetAt(utc('9000-03-30T01:00:00'))), 2);
    assert.equal(ianaZoneMatching('W. Europe Standard Time', zone, 2027), 'Europe/Berlin');
  });

  it('reads wall times as the calendar does: one in the spring gap moves forward, an ambiguous one is the earlier', () => {
    const zone = outlook();
    assert.equal(new Date(instantInVtimezone('20270328T023000', zone)).toISOString(), '2027-03-28T01:30:00.000Z');
    assert.equal(new Date(instantInVtimezone('20271031T023000', zone)).toISOString(), '2027-10-31T00:30:00.000Z');
    assert.equal(new Date(instantInVtimezone('20270615T140000', zone)).toISOString(), '2027-06-15T12:00:00.000Z');
  });

  it('reads RDATE onsets, UNTIL and COUNT as RFC 5545 says, before the first onset the offset it changes from', () => {
    const file = ics(
      'BEGIN:VCALENDAR',
      'BEGIN:VTIMEZONE',
      'TZID:Old Rules',
      'BEGIN:DAYLIGHT',
      'DTSTART:19800406T020000',
      'TZOFFSETFROM:-0500',
      'TZOFFSETTO:-0400',
      'RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU;UNTIL=19820404T070000Z',
      'RDATE:19900401T020000,19910407T020000',
      'END:DAYLIGHT',
      'BEGIN:STANDARD',
      'DTSTART:19801026T020000',
      'TZOFFSETFROM:-0400',
      'TZOFFSETTO:-0500',
      'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU;COUNT=12',
      'END:STANDARD',
      'END:VTIMEZONE',
      'END:VCALENDAR',
    );
    const zone = new FileZones(parseCalendar(file).zones).get('Old Rules')!;
    const summer = (year: number) => hours(zone.offsetAt(utc(`${year}-07-01T12:00:00`)));
    assert.equal(hours(zone.offsetAt(utc('1970-07-01T12:00:00'))), -5);
    assert.deepEqual([1980, 1981, 1982, 1983, 1990, 1991, 1992].map(summer), [-4, -4, -4, -5, -4, -4, -5]);
    // COUNT=12: the last change back is in October 1991; the next April's stays.
    assert.equal(hours(zone.offsetAt(utc('1992-12-01T12:00:00'))), -5);
  });
});
