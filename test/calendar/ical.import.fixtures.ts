/**
 * iCalendar files as real clients write them (hand-written after their
 * exports): CRLF line ends, folded lines, their own properties.
 */

/** Lines joined with CRLF, as RFC 5545 wants them. */
export const ics = (...lines: string[]): string => `${lines.join('\r\n')}\r\n`;

/** A content line folded every `width` characters (never inside a character), as exporters do at 75 octets. */
export function fold(line: string, width = 60): string[] {
  const characters = [...line];
  const parts: string[] = [];
  for (let at = 0; at < characters.length; at += width) parts.push((at === 0 ? '' : ' ') + characters.slice(at, at + width).join(''));
  return parts;
}

const ROME_VTIMEZONE = [
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Rome',
  'X-LIC-LOCATION:Europe/Rome',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'TZNAME:CEST',
  'DTSTART:19700329T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'TZNAME:CET',
  'DTSTART:19701025T030000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
];

export const GOOGLE_SERIES_UID = '5s3k2j1h0g9f8e7d6c5b4a3210@google.com';
export const GOOGLE_ALL_DAY_UID = '0a1b2c3d4e5f6g7h8i9j0k1l2m@google.com';
export const LONG_TITLE = 'Festa di primavera — città in festa ☀️ con musica, cibo di strada e giochi per tutti i bambini del quartiere';

/** A Google Calendar export: X-WR-TIMEZONE, VTIMEZONE, a weekly series with an EXDATE and a moved occurrence, an all-day event. */
export function googleCalendar(options: { seriesSequence?: number; seriesTitle?: string } = {}): string {
  return ics(
    'BEGIN:VCALENDAR',
    'PRODID:-//Google Inc//Google Calendar 70.9054//EN',
    'VERSION:2.0',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    'X-WR-CALNAME:Palestra',
    'X-WR-TIMEZONE:Europe/Rome',
    ...ROME_VTIMEZONE,
    'BEGIN:VEVENT',
    'DTSTART;TZID=Europe/Rome:20270104T180000',
    'DTEND;TZID=Europe/Rome:20270104T193000',
    'RRULE:FREQ=WEEKLY;WKST=MO;UNTIL=20270201T170000Z;BYDAY=MO',
    'EXDATE;TZID=Europe/Rome:20270118T180000',
    'DTSTAMP:20261120T101010Z',
    'ORGANIZER;CN=Palestra Comunale:mailto:info@palestra.example.org',
    `UID:${GOOGLE_SERIES_UID}`,
    'CREATED:20261101T090000Z',
    ...fold('DESCRIPTION:Bring a mat.\\nBeginners welcome.\\n\\nNo <script>alert(1)</script> here & <b>there</b>'),
    'LAST-MODIFIED:20261101T090000Z',
    'LOCATION:Palestra Comunale\\, Via Roma 1\\, Firenze',
    `SEQUENCE:${options.seriesSequence ?? 0}`,
    'STATUS:CONFIRMED',
    `SUMMARY:${options.seriesTitle ?? 'Yoga'}`,
    'TRANSP:OPAQUE',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'DTSTART;TZID=Europe/Rome:20270111T190000',
    'DTEND;TZID=Europe/Rome:20270111T203000',
    'DTSTAMP:20261120T101010Z',
    `UID:${GOOGLE_SERIES_UID}`,
    'RECURRENCE-ID;TZID=Europe/Rome:20270111T180000',
    'CREATED:20261101T090000Z',
    'LAST-MODIFIED:20261102T090000Z',
    'LOCATION:Palestra Comunale\\, Via Roma 1\\, Firenze',
    'SEQUENCE:1',
    'STATUS:CONFIRMED',
    'SUMMARY:Yoga (an hour later)',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'DTSTART;VALUE=DATE:20270321',
    'DTEND;VALUE=DATE:20270323',
    'DTSTAMP:20261120T101010Z',
    `UID:${GOOGLE_ALL_DAY_UID}`,
    ...fold(`SUMMARY:${LONG_TITLE}`, 40),
    'CATEGORIES:Festa,Famiglie',
    'SEQUENCE:0',
    'END:VEVENT',
    'END:VCALENDAR',
  );
}

export const OUTLOOK_UID = '040000008200E00074C5B7101A82E00800000000D0A1B2C3D4E5F601000000000000000010000000ABCDEF0123456789';

/** An Outlook (Exchange) export: a Windows TZID with its VTIMEZONE, an organizer, a cancelled meeting. */
export function outlookCalendar(): string {
  return ics(
    'BEGIN:VCALENDAR',
    'METHOD:PUBLISH',
    'PRODID:Microsoft Exchange Server 2010',
    'VERSION:2.0',
    'X-WR-CALNAME:Calendar',
    'BEGIN:VTIMEZONE',
    'TZID:W. Europe Standard Time',
    'BEGIN:STANDARD',
    'DTSTART:16010101T030000',
    'TZOFFSETFROM:+0200',
    'TZOFFSETTO:+0100',
    'RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10',
    'END:STANDARD',
    'BEGIN:DAYLIGHT',
    'DTSTART:16010101T020000',
    'TZOFFSETFROM:+0100',
    'TZOFFSETTO:+0200',
    'RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3',
    'END:DAYLIGHT',
    'END:VTIMEZONE',
    'BEGIN:VEVENT',
    'ORGANIZER;CN=Anna Rossi:mailto:anna.rossi@example.org',
    'DESCRIPTION;LANGUAGE=en-US:Quarterly review of the programme.\\n',
    ...fold(`UID:${OUTLOOK_UID}`, 74),
    'SUMMARY;LANGUAGE=en-US:Quarterly review',
    'DTSTART;TZID=W. Europe Standard Time:20270615T140000',
    'DTEND;TZID=W. Europe Standard Time:20270615T153000',
    'CLASS:PUBLIC',
    'PRIORITY:5',
    'DTSTAMP:20261120T101010Z',
    'TRANSP:OPAQUE',
    'STATUS:CONFIRMED',
    'SEQUENCE:0',
    'LOCATION;LANGUAGE=en-US:Sala Riunioni',
    'X-MICROSOFT-CDO-APPT-SEQUENCE:0',
    'X-MICROSOFT-CDO-BUSYSTATUS:BUSY',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'ORGANIZER;CN=Anna Rossi:mailto:anna.rossi@example.org',
    'UID:040000008200E00074C5B7101A82E0080000000099999999',
    'SUMMARY;LANGUAGE=en-US:Cancelled: Budget',
    'DTSTART;TZID=W. Europe Standard Time:20270105T090000',
    'DTEND;TZID=W. Europe Standard Time:20270105T100000',
    'DTSTAMP:20261120T101010Z',
    'STATUS:CANCELLED',
    'SEQUENCE:2',
    'END:VEVENT',
    'END:VCALENDAR',
  );
}

export const APPLE_UID = '8D3F0E4A-1B2C-4D5E-9F00-1234567890AB';

/** An Apple Calendar export: LOCATION on two lines, GEO, URL, CATEGORIES, its structured location. */
export function appleCalendar(): string {
  return ics(
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Apple Inc.//macOS 14.0//EN',
    'CALSCALE:GREGORIAN',
    'BEGIN:VTIMEZONE',
    'TZID:America/New_York',
    'BEGIN:DAYLIGHT',
    'TZOFFSETFROM:-0500',
    'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
    'DTSTART:20070311T020000',
    'TZNAME:EDT',
    'TZOFFSETTO:-0400',
    'END:DAYLIGHT',
    'BEGIN:STANDARD',
    'TZOFFSETFROM:-0400',
    'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
    'DTSTART:20071104T020000',
    'TZNAME:EST',
    'TZOFFSETTO:-0500',
    'END:STANDARD',
    'END:VTIMEZONE',
    'BEGIN:VEVENT',
    'CREATED:20261110T150000Z',
    `UID:${APPLE_UID}`,
    'DTEND;TZID=America/New_York:20270320T120000',
    'TRANSP:OPAQUE',
    'X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC',
    'SUMMARY:Brunch',
    'LAST-MODIFIED:20261110T150000Z',
    'DTSTAMP:20261110T150000Z',
    'DTSTART;TZID=America/New_York:20270320T103000',
    'SEQUENCE:0',
    'LOCATION:Café Lalo\\n201 W 83rd St\\, New York\\, NY 10024',
    ...fold(
      'X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-ADDRESS="201 W 83rd St\\, New York\\, NY 10024";X-APPLE-RADIUS=70;X-TITLE="Café Lalo":geo:40.786,-73.977',
      70,
    ),
    'GEO:40.786;-73.977',
    'URL;VALUE=URI:https://example.com/brunch',
    'CATEGORIES:Food,Friends',
    'END:VEVENT',
    'END:VCALENDAR',
  );
}

/** A calendar of `count` one-hour events on consecutive days, from 2027-01-01, each with its UID. */
export function manyEvents(count: number, extra: (index: number) => string[] = () => []): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Almanac tests//EN'];
  for (let index = 0; index < count; index += 1) {
    const day = new Date(Date.UTC(2027, 0, 1 + index)).toISOString().slice(0, 10).replace(/-/g, '');
    lines.push('BEGIN:VEVENT', `UID:many-${index}@tests.example`, `DTSTART:${day}T090000Z`, `DTEND:${day}T100000Z`);
    lines.push(`SUMMARY:Event ${index}`, ...extra(index), 'END:VEVENT');
  }
  lines.push('END:VCALENDAR');
  return ics(...lines);
}
