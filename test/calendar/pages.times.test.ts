import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dayPart, timeOnDay } from '../../src/calendar/pages/pages.present.ts';
import { DICTIONARIES } from '../../src/calendar/pages/pages.i18n.ts';
import { formatDay, formatTime, monthWeeks, weekStart } from '../../src/calendar/pages/pages.dates.ts';

// Intl separates AM/PM with a narrow no-break space: compared as a space.
const shown = (...args: Parameters<typeof timeOnDay>) => timeOnDay(...args).replace(/\s/g, ' ');
const event = (start: string, end: string, allDay = false) => ({ start_date: start, end_date: end, all_day: allDay });

describe("a card's time on a day", () => {
  const en = DICTIONARIES.en;
  const it_ = DICTIONARIES.it;

  it('is start–end within a day, in the language’s clock, without a leading zero', () => {
    const morning = event('2027-05-03 09:05:00', '2027-05-03 10:30:00');
    assert.equal(shown(morning, '2027-05-03', 'en', en), '9:05 AM–10:30 AM');
    assert.equal(shown(morning, '2027-05-03', 'it', it_), '9:05–10:30');
    assert.equal(shown(morning, undefined, 'it', it_), '9:05–10:30');
    assert.equal(dayPart(morning, '2027-05-03'), 'whole');
  });

  it('starts, fills and ends the days of a timed event spanning them; a list shows the span', () => {
    const festival = event('2027-05-03 19:00:00', '2027-05-06 21:00:00');
    const days = ['2027-05-03', '2027-05-04', '2027-05-05', '2027-05-06'];
    assert.deepEqual(
      days.map((day) => shown(festival, day, 'en', en)),
      ['from 7:00 PM', 'All day', 'All day', 'until 9:00 PM'],
    );
    assert.deepEqual(
      days.map((day) => shown(festival, day, 'it', it_)),
      ['dalle 19:00', 'Tutto il giorno', 'Tutto il giorno', 'fino alle 21:00'],
    );
    assert.equal(shown(festival, undefined, 'en', en), 'from 7:00 PM until 9:00 PM');
    assert.deepEqual(
      [...days.map((day) => dayPart(festival, day)), dayPart(festival, undefined)],
      ['first', 'between', 'between', 'last', 'span'],
    );
  });

  it('reads wall times: a night across a change of clocks starts and ends at the times it was given', () => {
    // Europe/Rome moves from 02:00 to 03:00 on 28 March 2027; the stamps are the event's own wall times.
    const night = event('2027-03-27 22:00:00', '2027-03-28 04:00:00');
    assert.equal(shown(night, '2027-03-27', 'it', it_), 'dalle 22:00');
    assert.equal(shown(night, '2027-03-28', 'it', it_), 'fino alle 4:00');
  });

  it('reads an end at midnight as the end of the day before, as the grids place the event', () => {
    const evening = event('2027-05-03 20:00:00', '2027-05-04 00:00:00');
    assert.equal(dayPart(evening, '2027-05-03'), 'whole');
    assert.equal(shown(evening, '2027-05-03', 'en', en), '8:00 PM–12:00 AM');
    assert.equal(shown(evening, undefined, 'it', it_), '20:00–0:00');
    const twoNights = event('2027-05-03 20:00:00', '2027-05-05 00:00:00');
    assert.deepEqual(
      ['2027-05-03', '2027-05-04'].map((day) => shown(twoNights, day, 'it', it_)),
      ['dalle 20:00', 'fino alle 0:00'],
    );
  });

  it('is the whole-day word for an all-day event, on any of its days and in a list', () => {
    const fair = event('2027-05-03 00:00:00', '2027-05-05 23:59:59', true);
    for (const day of ['2027-05-03', '2027-05-04', '2027-05-05', undefined]) {
      assert.equal(shown(fair, day, 'en', en), 'All day');
      assert.equal(shown(fair, day, 'it', it_), 'Tutto il giorno');
    }
  });
});

describe("the site's date and time formats and first day of the week", () => {
  it('writes dates and times in WordPress’s letters, names in the page’s language', () => {
    const day = '2027-04-03';
    assert.equal(formatDay(day, 'en', 'F j, Y'), 'April 3, 2027');
    assert.equal(formatDay(day, 'it', 'l j F Y'), 'sabato 3 aprile 2027');
    assert.equal(formatDay(day, 'en', 'D, M jS'), 'Sat, Apr 3rd');
    assert.equal(formatDay(day, 'en', 'd/m/y'), '03/04/27');
    assert.equal(formatDay(day, 'en', 'n.j.Y'), '4.3.2027');
    // A backslash writes the next letter as it is.
    assert.equal(formatDay(day, 'en', '\\d\\a\\y j'), 'day 3');
    assert.deepEqual(
      ['2027-04-11', '2027-04-12', '2027-04-13', '2027-04-21', '2027-04-22', '2027-04-23'].map((each) => formatDay(each, 'en', 'jS')),
      ['11th', '12th', '13th', '21st', '22nd', '23rd'],
    );
    assert.equal(formatDay(day, 'it', 'jS F'), '3 aprile');
    const evening = '2027-04-03 18:05:00';
    assert.deepEqual(
      ['g:i a', 'h:i A', 'G:i', 'H:i', 'H:i:s'].map((format) => formatTime(evening, 'en', format)),
      ['6:05 pm', '06:05 PM', '18:05', '18:05', '18:05:00'],
    );
    assert.deepEqual(
      ['g:i a', 'G:i', 'H:i'].map((format) => formatTime('2027-04-03 00:30:00', 'it', format)),
      ['12:30 am', '0:30', '00:30'],
    );
    // Empty: the language's own.
    assert.equal(formatDay(day, 'en', ''), 'Saturday, April 3, 2027');
    assert.equal(formatTime(evening, 'it', ''), '18:05');
  });

  it('starts weeks and month grids on the chosen day', () => {
    // 3 April 2027 is a Saturday.
    assert.equal(weekStart('2027-04-03'), '2027-03-29');
    assert.equal(weekStart('2027-04-03', 0), '2027-03-28');
    assert.equal(weekStart('2027-04-03', 6), '2027-04-03');
    assert.equal(weekStart('2027-04-04', 0), '2027-04-04');
    for (const firstDay of [0, 1, 2, 3, 4, 5, 6]) {
      const weeks = monthWeeks('2027-04', firstDay);
      assert.ok(
        weeks.every((week) => week.length === 7 && new Date(`${week[0]}T00:00:00Z`).getUTCDay() === firstDay),
        String(firstDay),
      );
      assert.ok(weeks[0]![0]! <= '2027-04-01' && weeks.at(-1)![6]! >= '2027-04-30', String(firstDay));
      assert.ok(weeks[0]![6]! >= '2027-04-01' && weeks.at(-1)![0]! <= '2027-04-30', String(firstDay));
    }
  });
});
