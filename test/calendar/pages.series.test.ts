import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recurrenceInWords } from '../../src/calendar/pages/pages.recurrence.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent, utcDay } from './events.factories.ts';

/** How an event page says that its event repeats: the sentence, the next dates and the series' page. */

// 2027-01-04 is a Monday, 2027-07-09 a Friday.
const MONDAY = { local: '2027-01-04 18:00:00', zone: 'Europe/Rome' };
const FRIDAY = { local: '2027-07-09 10:00:00', zone: 'Europe/Rome' };
const JULY_4 = { local: '2027-07-04 00:00:00', zone: 'America/New_York' };

const WORDS: ReadonlyArray<{ lines: string[]; start?: typeof MONDAY; en: string; it: string }> = [
  // FREQ and INTERVAL, with the start's own day where the rule names none.
  { lines: ['RRULE:FREQ=DAILY'], en: 'Every day', it: 'Ogni giorno' },
  { lines: ['RRULE:FREQ=DAILY;INTERVAL=3'], en: 'Every 3 days', it: 'Ogni 3 giorni' },
  { lines: ['RRULE:FREQ=WEEKLY'], en: 'Every Monday', it: 'Ogni lunedì' },
  { lines: ['RRULE:FREQ=WEEKLY;INTERVAL=2'], start: FRIDAY, en: 'Every 2 weeks on Friday', it: 'Ogni 2 settimane il venerdì' },
  { lines: ['RRULE:FREQ=MONTHLY'], en: 'Every month on the 4th', it: 'Ogni mese il giorno 4' },
  { lines: ['RRULE:FREQ=YEARLY'], start: JULY_4, en: 'Every year on July 4', it: 'Ogni anno il 4 luglio' },
  { lines: ['RRULE:FREQ=YEARLY;INTERVAL=2'], start: JULY_4, en: 'Every 2 years on July 4', it: 'Ogni 2 anni il 4 luglio' },
  // BYDAY, plain and with ordinals (Sunday is feminine in Italian).
  { lines: ['RRULE:FREQ=WEEKLY;BYDAY=MO,WE'], en: 'Every Monday and Wednesday', it: 'Ogni lunedì e mercoledì' },
  {
    lines: ['RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=SA,SU'],
    en: 'Every 2 weeks on Saturday and Sunday',
    it: 'Ogni 2 settimane il sabato e la domenica',
  },
  {
    lines: ['RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR'],
    en: 'Every Monday, Tuesday, Wednesday, Thursday, and Friday',
    it: 'Ogni lunedì, martedì, mercoledì, giovedì e venerdì',
  },
  { lines: ['RRULE:FREQ=MONTHLY;BYDAY=2TU'], en: 'Every month on the second Tuesday', it: 'Ogni mese il secondo martedì' },
  { lines: ['RRULE:FREQ=MONTHLY;BYDAY=-1SU'], en: 'Every month on the last Sunday', it: 'Ogni mese l’ultima domenica' },
  {
    lines: ['RRULE:FREQ=MONTHLY;INTERVAL=2;BYDAY=1MO,-2FR'],
    en: 'Every 2 months on the first Monday and the second to last Friday',
    it: 'Ogni 2 mesi il primo lunedì e il penultimo venerdì',
  },
  // BYMONTHDAY, BYMONTH.
  { lines: ['RRULE:FREQ=MONTHLY;BYMONTHDAY=1,15'], en: 'Every month on the 1st and 15th', it: 'Ogni mese i giorni 1 e 15' },
  { lines: ['RRULE:FREQ=MONTHLY;BYMONTHDAY=-1'], en: 'Every month on the last day', it: 'Ogni mese l’ultimo giorno' },
  {
    lines: ['RRULE:FREQ=MONTHLY;BYMONTHDAY=2,-2'],
    en: 'Every month on the 2nd and the second to last day',
    it: 'Ogni mese il giorno 2 e il penultimo giorno',
  },
  {
    lines: ['RRULE:FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=8,11'],
    en: 'Every year on July 8 and July 11',
    it: 'Ogni anno l’8 luglio e l’11 luglio',
  },
  {
    lines: ['RRULE:FREQ=YEARLY;BYMONTH=3,6'],
    en: 'Every year on the 4th in March and June',
    it: 'Ogni anno il giorno 4 di marzo e giugno',
  },
  {
    lines: ['RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=4TH'],
    en: 'Every year on the fourth Thursday in November',
    it: 'Ogni anno il quarto giovedì di novembre',
  },
  { lines: ['RRULE:FREQ=DAILY;BYMONTH=7,8'], en: 'Every day in July and August', it: 'Ogni giorno di luglio e agosto' },
  { lines: ['RRULE:FREQ=WEEKLY;BYMONTH=12;BYDAY=SA'], en: 'Every Saturday in December', it: 'Ogni sabato di dicembre' },
  // COUNT and UNTIL (UTC: the day of the last occurrence it allows in the series' zone; a wall time; a day).
  { lines: ['RRULE:FREQ=DAILY;COUNT=10'], en: 'Every day, 10 times', it: 'Ogni giorno, 10 volte' },
  { lines: ['RRULE:FREQ=DAILY;COUNT=1'], en: 'Every day, once', it: 'Ogni giorno, una volta' },
  {
    lines: ['RRULE:FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20270331T220000Z'],
    en: 'Every Monday and Wednesday until March 31, 2027',
    it: 'Ogni lunedì e mercoledì fino al 31 marzo 2027',
  },
  // 10:00 UTC is 12:00 in Rome, before the 18:00 start: the 30th is the last day an occurrence may have.
  { lines: ['RRULE:FREQ=DAILY;UNTIL=20270331T100000Z'], en: 'Every day until March 30, 2027', it: 'Ogni giorno fino al 30 marzo 2027' },
  { lines: ['RRULE:FREQ=DAILY;UNTIL=20270308T190000'], en: 'Every day until March 8, 2027', it: 'Ogni giorno fino all’8 marzo 2027' },
  {
    lines: ['RRULE:FREQ=MONTHLY;UNTIL=20271111'],
    en: 'Every month on the 4th until November 11, 2027',
    it: 'Ogni mese il giorno 4 fino all’11 novembre 2027',
  },
  // RDATEs add dates; EXDATEs need no words.
  { lines: ['RRULE:FREQ=DAILY', 'RDATE:20270120T090000Z'], en: 'Every day, and on other dates', it: 'Ogni giorno, e in altre date' },
  { lines: ['RRULE:FREQ=WEEKLY', 'EXDATE:20270111T170000Z'], en: 'Every Monday', it: 'Ogni lunedì' },
];

const SEVERAL = { en: 'Repeats on several dates', it: 'Si ripete in più date' };
const UNPHRASED = [
  'RDATE:20270120T090000Z,20270201T090000Z',
  'RRULE:FREQ=HOURLY;INTERVAL=6',
  'RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1',
  'RRULE:FREQ=YEARLY;BYYEARDAY=100',
  'RRULE:FREQ=YEARLY;BYWEEKNO=20',
  'RRULE:FREQ=DAILY;BYHOUR=9,17',
  'RRULE:FREQ=MONTHLY;BYDAY=MO,-1WE',
  'RRULE:FREQ=MONTHLY;BYDAY=3FR;BYMONTHDAY=13,14,15,16,17,18,19',
  'RRULE:FREQ=MONTHLY;BYDAY=-3FR',
  'RRULE:FREQ=MONTHLY;BYMONTHDAY=-3',
  'RRULE:FREQ=MONTHLY;INTERVAL=2;BYDAY=MO',
  'RRULE:FREQ=YEARLY;BYDAY=20MO',
  'RRULE:FREQ=YEARLY;BYMONTHDAY=15',
  'RRULE:FREQ=DAILY;BYMONTHDAY=1',
];

describe('a series in words', () => {
  it('says FREQ, INTERVAL, BYDAY with ordinals, BYMONTHDAY, BYMONTH, COUNT, UNTIL and RDATE in English and Italian', () => {
    for (const { lines, start = MONDAY, en, it: italian } of WORDS) {
      assert.equal(recurrenceInWords(lines, start, 'en'), en, lines.join(' '));
      assert.equal(recurrenceInWords(lines, start, 'it'), italian, lines.join(' '));
    }
  });

  it('says only that the event repeats when its rule has no words here, or when it is RDATEs alone', () => {
    for (const line of UNPHRASED) {
      for (const language of ['en', 'it'] as const) assert.equal(recurrenceInWords([line], MONDAY, language), SEVERAL[language], line);
    }
  });
});

describe('event pages of a series', () => {
  let server: TestServer;
  let admin: Credentials;
  const first = utcDay(1);
  const weekday = new Intl.DateTimeFormat('en', { weekday: 'long', timeZone: 'UTC' }).format(new Date(`${first}T00:00:00Z`));

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const html = async (path: string) => {
    const response = await fetch(`${server.url}${path}`);
    assert.equal(response.status, 200, path);
    return response.text();
  };
  const pathOf = (url: string) => new URL(url).pathname;
  const nextDates = (page: string) =>
    [...(/<section class="next-dates"[^]*?<\/section>/.exec(page)?.[0] ?? '').matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]);

  it('says how an occurrence repeats, links its next dates and its series, and the series page says the same', async () => {
    const series = await makeEvent(server, admin, {
      title: 'Choir rehearsal',
      start_date: `${first} 18:00`,
      end_date: `${first} 19:30`,
      timezone: 'Europe/Rome',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=8'],
    });
    const instances = await server.request(`${EVENTS}/${series.id}/instances`);
    const urls: string[] = instances.body.events.map((occurrence: any) => occurrence.url);
    assert.equal(urls.length, 8);
    // The third occurrence is removed: it is no longer among the next dates.
    const removed = instances.body.events[2];
    assert.equal((await server.request(`${EVENTS}/${removed.id}`, { method: 'DELETE', auth: admin })).status, 200);
    const shown = urls
      .filter((url) => url !== removed.url)
      .slice(0, 5)
      .map(pathOf);

    const occurrence = await html(pathOf(urls[1] as string));
    assert.match(occurrence, /<dt>Repeats<\/dt>/);
    assert.match(occurrence, new RegExp(`<dd>Every ${weekday}, 8 times<br><a href="${pathOf(series.url)}">See the whole series</a></dd>`));
    assert.match(occurrence, /<h2 id="next-dates-heading">Next dates<\/h2>/);
    assert.deepEqual(nextDates(occurrence), shown);
    assert.match(
      occurrence,
      new RegExp(`<a href="${pathOf(urls[1] as string)}" aria-current="page"><time datetime="${utcDay(8)}T18:00:00\\+0[12]:00">`),
    );

    const seriesPage = await html(pathOf(series.url));
    assert.match(seriesPage, new RegExp(`<dd>Every ${weekday}, 8 times</dd>`));
    assert.doesNotMatch(seriesPage, /See the whole series/);
    assert.deepEqual(nextDates(seriesPage), shown);

    const italian = await html(`${pathOf(urls[1] as string)}?lang=it`);
    const giorno = new Intl.DateTimeFormat('it', { weekday: 'long', timeZone: 'UTC' }).format(new Date(`${first}T00:00:00Z`));
    assert.match(
      italian,
      new RegExp(`<dt>Si ripete</dt>\\s*<dd>Ogni ${giorno}, 8 volte<br><a href="${pathOf(series.url)}\\?lang=it">Vedi tutta la serie</a>`),
    );
    assert.match(italian, /<h2 id="next-dates-heading">Prossime date<\/h2>/);
    assert.deepEqual(
      nextDates(italian),
      shown.map((path) => `${path}?lang=it`),
    );
  });

  it('says the rule of the series on the page of an occurrence that an RDATE adds on another weekday', async () => {
    const series = await makeEvent(server, admin, {
      title: 'Organ recital',
      start_date: `${first} 17:00`,
      end_date: `${first} 18:00`,
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2', `RDATE:${utcDay(3).replace(/-/g, '')}T170000Z`],
    });
    const page = await html(`${pathOf(series.url)}${utcDay(3)}/`);
    assert.match(page, new RegExp(`<dd>Every ${weekday}, 2 times, and on other dates<br>`));
  });

  it('shows none of it for a single event, nor on the password form of a protected series', async () => {
    const single = await makeEvent(server, admin, { title: 'One-off talk', start_date: `${first} 10:00`, end_date: `${first} 11:00` });
    const locked = await makeEvent(server, admin, {
      title: 'Closed rehearsal',
      password: 'choir',
      start_date: `${first} 20:00`,
      end_date: `${first} 21:00`,
      recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
    });
    for (const path of [pathOf(single.url), pathOf(locked.url), `${pathOf(locked.url)}${utcDay(2)}/`]) {
      const page = await html(path);
      assert.doesNotMatch(page, /Repeats|Every day|Next dates|next-dates|See the whole series/, path);
    }
  });
});
