/**
 * Hostile iCalendar files for property-based tests of the import: odd line
 * ends, deep nesting, parameters and list values by the thousand, dates and
 * durations past any calendar, and VTIMEZONEs whose observances recur by
 * random rules — mixed with parts a real file has, so that both the
 * refusals and the paths past them are reached.
 */
import fc from 'fast-check';

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** Mostly `usual`, now and then `wild`: the refusals of wild parts come early, and most files should get past them. */
const mostly = <T>(usual: fc.Arbitrary<T>, wild: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 19, arbitrary: usual }, { weight: 1, arbitrary: wild });

const year = fc.oneof(fc.constantFrom(0, 1, 999, 1000, 1601, 1970, 2027, 9998, 9999), fc.integer({ min: 0, max: 9999 }));

/** DATE-TIME text, UTC or local, sometimes not a real time at all. */
const dateTime = fc
  .tuple(
    year,
    mostly(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 13 })),
    mostly(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 0, max: 32 })),
    mostly(fc.integer({ min: 0, max: 23 }), fc.constant(24)),
    fc.boolean(),
  )
  .map(([y, month, day, hour, utc]) => `${pad(y, 4)}${pad(month, 2)}${pad(day, 2)}T${pad(hour, 2)}0000${utc ? 'Z' : ''}`);

const duration = fc.oneof(
  fc.constantFrom('P999999999W', 'PT99999999999999999999H', `P${'9'.repeat(400)}D`, '-P1W', 'P', 'PT', 'P1Y', 'P1W2D', 'PT1H30M'),
  fc.nat().map((seconds) => `PT${seconds}S`),
);

const list = (values: fc.Arbitrary<number | string>, maxLength = 12) =>
  fc.array(values, { minLength: 1, maxLength }).map((items) => items.join(','));

/** Rule parts with values RFC 5545 allows. */
const rulePart = fc.oneof(
  fc.integer({ min: 1, max: 5 }).map((value) => `INTERVAL=${value}`),
  fc.integer({ min: 1, max: 20 }).map((value) => `COUNT=${value}`),
  dateTime.map((value) => `UNTIL=${value}`),
  list(fc.integer({ min: 1, max: 12 })).map((value) => `BYMONTH=${value}`),
  list(
    fc.integer({ min: -31, max: 31 }).filter((day) => day !== 0),
    31,
  ).map((value) => `BYMONTHDAY=${value}`),
  list(fc.integer({ min: 1, max: 366 })).map((value) => `BYYEARDAY=${value}`),
  list(fc.integer({ min: 1, max: 53 })).map((value) => `BYWEEKNO=${value}`),
  list(fc.integer({ min: -3, max: 3 }).filter((position) => position !== 0)).map((value) => `BYSETPOS=${value}`),
  list(fc.tuple(fc.constantFrom('', '1', '-1', '2'), fc.constantFrom('MO', 'SU')).map(([n, day]) => `${n}${day}`)).map(
    (value) => `BYDAY=${value}`,
  ),
  fc.constant('WKST=SU'),
);

/** Rule parts no zone has, or no rule: sub-daily ones, values out of range, huge intervals and counts, unknown parts. */
const wildRulePart = fc.oneof(
  fc.integer({ min: -5, max: 1_000_000_000 }).map((value) => `INTERVAL=${value}`),
  fc.integer({ min: 0, max: 2_000_000 }).map((value) => `COUNT=${value}`),
  list(fc.integer({ min: 0, max: 23 })).map((value) => `BYHOUR=${value}`),
  list(fc.integer({ min: -2, max: 14 })).map((value) => `BYMONTH=${value}`),
  list(fc.integer({ min: -367, max: 367 })).map((value) => `BYYEARDAY=${value}`),
  fc.constantFrom('WKST=XX', 'X-SPEED=9', 'BYSECOND=1', 'BYDAY=60SU', 'BYDAY=XX', 'BYMONTHDAY=0'),
);

const rrule = fc
  .tuple(
    mostly(
      fc.constantFrom('YEARLY', 'YEARLY', 'YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY'),
      fc.constantFrom('SECONDLY', 'MINUTELY', 'HOURLY', 'FOO'),
    ),
    fc.array(mostly(rulePart, wildRulePart), { maxLength: 4 }),
  )
  .map(([freq, parts]) => `RRULE:FREQ=${freq}${parts.map((part) => `;${part}`).join('')}`);

const offset = mostly(fc.constantFrom('+0100', '-0500', '+0000', '+0200', '+0517', '+01:00', '+053045'), fc.constantFrom('+2400', 'abc'));

const observance = fc
  .record({
    kind: mostly(fc.constantFrom('STANDARD', 'DAYLIGHT'), fc.constant('X-OTHER')),
    start: mostly(fc.oneof(dateTime, fc.constantFrom('16010101T030000', '19700329T020000')), fc.constant(null)),
    from: mostly(offset, fc.constant(null)),
    to: mostly(offset, fc.constant(null)),
    rule: fc.option(fc.oneof(rrule, fc.constantFrom('RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10', 'RRULE:FREQ=HOURLY'))),
    rdates: mostly(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 900, max: 1_200 })),
  })
  .map(({ kind, start, from, to, rule, rdates }) => [
    `BEGIN:${kind}`,
    ...(start === null ? [] : [`DTSTART:${start}`]),
    ...(from === null ? [] : [`TZOFFSETFROM:${from}`]),
    ...(to === null ? [] : [`TZOFFSETTO:${to}`]),
    ...(rule === null ? [] : [rule]),
    ...(rdates === 0
      ? []
      : [`RDATE:${Array.from({ length: rdates }, (_, index) => `${pad(1900 + (index % 200), 4)}0301T020000`).join(',')}`]),
    `END:${kind}`,
  ]);

const ZONES = ['Own A', 'Own B', 'Europe/Rome'];

/** The VTIMEZONE of each of ZONES, now and then left out (the events may name it all the same). */
const vtimezones = fc.tuple(
  ...ZONES.map((tzid) =>
    mostly(
      fc
        .array(observance, { minLength: 1, maxLength: 3 })
        .map((observances) => ['BEGIN:VTIMEZONE', `TZID:${tzid}`, ...observances.flat(), 'END:VTIMEZONE']),
      fc.constant<string[]>([]),
    ),
  ),
);

const event = fc
  .record({
    zone: fc.option(mostly(fc.constantFrom(...ZONES), fc.constant('Mars/Base'))),
    start: fc.oneof(dateTime, fc.constantFrom('20270615T140000', '99991231T230000Z')),
    end: fc.option(
      fc.oneof(
        dateTime.map((value) => `DTEND:${value}`),
        duration.map((value) => `DURATION:${value}`),
      ),
    ),
    rule: fc.option(rrule),
    exdates: fc.option(mostly(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 900, max: 1_100 }))),
  })
  .map(({ zone, start, end, rule, exdates }) => [
    'BEGIN:VEVENT',
    'UID:hostile-#@tests.example',
    `DTSTART${zone === null ? '' : `;TZID=${zone}`}:${start}`,
    ...(end === null ? [] : [end]),
    ...(rule === null ? [] : [rule]),
    ...(exdates === null ? [] : [`EXDATE:${Array.from({ length: exdates }, () => '20270101T100000Z').join(',')}`]),
    'SUMMARY:Hostile',
    'END:VEVENT',
  ]);

/** A content line with `count` parameters. */
const parameters = mostly(fc.integer({ min: 0, max: 20 }), fc.constantFrom(100, 101, 300_000)).map(
  (count) => `X-PARAMS${';X-P=a'.repeat(count)}:value`,
);

/** Components nested `depth` deep inside the calendar. */
const nesting = mostly(
  fc.integer({ min: 0, max: 3 }),
  fc.oneof(fc.integer({ min: 4, max: 8 }), fc.integer({ min: 1_000, max: 5_000 })),
).map((depth) => [
  ...Array.from({ length: depth }, (_, level) => `BEGIN:X-LEVEL-${level}`),
  ...Array.from({ length: depth }, (_, level) => `END:X-LEVEL-${depth - 1 - level}`),
]);

/** A whole file: zones, events, a deep nest and a line of many parameters, its lines ended by CRLF, LF or lone CR. */
export function hostileCalendar(): fc.Arbitrary<string> {
  return fc
    .record({
      ending: fc.constantFrom('\r\n', '\n', '\r'),
      zones: vtimezones,
      events: fc.array(event, { minLength: 1, maxLength: 3 }),
      nest: nesting,
      params: parameters,
    })
    .map(({ ending, zones, events, nest, params }) =>
      [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        ...zones.flat(),
        ...nest,
        params,
        // Each event its own UID, so that none is skipped as an older copy of another.
        ...events.flatMap((lines, index) => lines.map((line) => line.replace('#', String(index)))),
        'END:VCALENDAR',
        '',
      ].join(ending),
    );
}
