import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventsService } from '../../src/calendar/events/events.service.ts';
import { PostPasswords } from '../../src/calendar/posts/posts.passwords.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { contextFor } from './context.helper.ts';
import { EVENTS, makeEvent, utcDay } from './events.factories.ts';
import { weekStart } from '../../src/calendar/pages/pages.dates.ts';

/**
 * The month, week and day views read summaries (events.service.ts listDays), not whole representations: they must show
 * what the API's list shows for the same window, to the same reader, in either language (issue 25).
 */

const SUMMARY_FIELDS = ['id', 'title', 'slug', 'url', 'all_day', 'start_date', 'end_date', 'utc_start_date', 'utc_end_date', 'timezone'];

describe('calendar grids and the events list', () => {
  let server: TestServer;
  let admin: Credentials;
  const month = utcDay(60).slice(0, 7);
  const on = (day: number, time: string) => `${month}-${String(day).padStart(2, '0')} ${time}`;
  const window = { ends_after: `${month}-01 00:00:00`, starts_before: `${month}-28 00:00:00`, strict_dates: true };

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
    await makeEvent(server, admin, {
      title: 'Plain concert',
      start_date: on(10, '21:00'),
      end_date: on(10, '23:00'),
      timezone: 'Europe/Rome',
    });
    await makeEvent(server, admin, { title: 'Three-day fair', start_date: on(11, '09:00'), end_date: on(13, '18:00') });
    await makeEvent(server, admin, {
      title: 'Locked dinner',
      password: 's3cret',
      all_day: true,
      start_date: on(14, '00:00'),
      end_date: on(14, '23:59'),
    });
    const italian = await server.request(`${EVENTS}?translation_language=it`, {
      method: 'POST',
      auth: admin,
      body: { title: 'Solo in italiano', start_date: on(15, '18:00'), end_date: on(15, '19:00') },
    });
    assert.equal(italian.status, 201, italian.text);
    await makeEvent(server, admin, {
      title: 'Weekly class',
      start_date: on(16, '10:00'),
      end_date: on(16, '11:00'),
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'],
    });
    await makeEvent(server, admin, { title: 'Draft idea', status: 'draft', start_date: on(17, '10:00'), end_date: on(17, '11:00') });
  });
  after(async () => server.close());

  it('summarizes exactly the events, titles, links and dates the full list gives, in English and Italian', async () => {
    const db = server.server.store.db;
    const events = new EventsService({ db, config: server.config, passwords: new PostPasswords(db, server.config) });
    const now = new Date();
    for (const language of ['en', 'it'] as const) {
      const caller = contextFor(server, null, { language });
      const full = await events.listEventsWithRows(window, caller, now, 500);
      const days = Array.from({ length: 27 }, (_, index) => `${month}-${String(index + 1).padStart(2, '0')}`);
      const grid = await events.listDays(window, caller, now, days, 500);
      // Each event first shows on its first day of the window, and each day keeps the list's order.
      const lean = [...new Map(grid.shown.flat().map((summary) => [summary.id, summary])).values()];
      assert.deepEqual(
        grid.counts.flatMap((count, index) => (count === 0 ? [] : [`${index + 1}:${count}`])),
        ['10:1', '11:1', '12:1', '13:1', '14:1', '15:1', '16:1', '23:1'],
        language,
      );
      const picked = full.map(({ event }) => Object.fromEntries(SUMMARY_FIELDS.map((field) => [field, (event as any)[field]])));
      assert.deepEqual(lean, picked, language);
      const titles = lean.map((summary) => summary.title);
      assert.deepEqual(
        titles,
        ['Plain concert', 'Three-day fair', 'Locked dinner', 'Solo in italiano', 'Weekly class', 'Weekly class'],
        language,
      );
      // A protected event is listed stripped: its title and dates, not whether it lasts all day.
      assert.equal(lean[2]?.all_day, null);
    }
  });

  it('shows in the month grid every event of the anonymous API list for that window, linked and titled alike', async () => {
    const query = new URLSearchParams({ ...window, strict_dates: 'true', per_page: '50' });
    for (const language of ['en', 'it']) {
      const list = await server.request(`${EVENTS}?${query.toString()}&translation_language=${language}`);
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.events.length, 6);
      const locked = list.body.events.find((event: any) => event.title === 'Locked dinner');
      assert.equal(locked.all_day, null);
      const response = await fetch(`${server.url}/events/month/${month}/?lang=${language}`);
      assert.equal(response.status, 200);
      const html = await response.text();
      for (const event of list.body.events) {
        assert.match(
          html,
          new RegExp(`<a href="${new URL(event.url).pathname}\\?lang=${language}">${event.title}</a>`),
          `${language}: ${event.title}`,
        );
      }
      // As the list: the three-day fair on each of its days, nothing else.
      assert.equal(html.match(/<li class="ev[^"]*"><a href="\/event\//g)?.length, 8, language);
      assert.doesNotMatch(html, /Draft idea/);
      // The stripped event shows its times, as a list card of it does, not the all-day word.
      assert.match(html, /Locked dinner<\/a> <span class="time">\d/);
    }
  });

  const page = async (path: string) => (await fetch(`${server.url}${path}`)).text();
  // The times shown after each link titled `title`; Intl's narrow no-break space before AM/PM read as a space.
  const timesOf = (html: string, title: string, after: string) =>
    [...html.matchAll(new RegExp(`${title}</a>${after}`, 'g'))].map((match) => match[1]!.replace(/\s/g, ' '));
  const inGrid = ' <span class="time">([^<]*)</span>';
  // A card's time, after its date when `withDay` (a list's card), or its whole text when `withDay` is 'all'.
  const inCard = (level: number, withDay: boolean | 'all') =>
    `</h${level}>\\s*<p class="card-when"><time datetime="[^"]+">${withDay === true ? '[^<]*, ' : ''}(${withDay === 'all' ? '[^<]*' : '[^<,]*'})</time>`;

  it('shows a timed event spanning days as starting, all day and ending on its days, times without a leading zero', async () => {
    const expected = {
      en: { days: ['from 9:00 AM', 'All day', 'until 6:00 PM'], span: 'from 9:00 AM until 6:00 PM', plain: '9:00 PM–11:00 PM' },
      it: { days: ['dalle 9:00', 'Tutto il giorno', 'fino alle 18:00'], span: 'dalle 9:00 fino alle 18:00', plain: '21:00–23:00' },
    };
    for (const [language, words] of Object.entries(expected)) {
      const grid = await page(`/events/month/${month}/?lang=${language}`);
      assert.deepEqual(timesOf(grid, 'Three-day fair', inGrid), words.days, `${language}: month`);
      assert.deepEqual(timesOf(grid, 'Plain concert', inGrid), [words.plain], `${language}: month`);
      // The fair's days fall in two weeks when the 11th is a Saturday or a Sunday.
      const weeks = [...new Set([weekStart(`${month}-11`), weekStart(`${month}-13`)])];
      const inWeeks = await Promise.all(weeks.map((week) => page(`/events/week/${week}/?lang=${language}`)));
      assert.deepEqual(
        inWeeks.flatMap((html) => timesOf(html, 'Three-day fair', inCard(3, false))),
        words.days,
        `${language}: week`,
      );
      const days = await Promise.all([11, 12, 13].map((day) => page(`/events/${month}-${day}/?lang=${language}`)));
      assert.deepEqual(
        days.flatMap((html) => timesOf(html, 'Three-day fair', inCard(2, false))),
        words.days,
        `${language}: day`,
      );
      const list = await page(`/events/list/?lang=${language}`);
      assert.deepEqual(timesOf(list, 'Three-day fair', inCard(2, true)), [words.span], `${language}: list`);
    }
    // The event's own page gives both ends with their dates.
    assert.match((await page('/event/three-day-fair/')).replace(/\s/g, ' '), /, 9:00 AM – [^<]*, 6:00 PM UTC</);
  });

  it('places the times of a night across a change of clocks, and of an evening ending at midnight, on their own days', async () => {
    // Europe/Rome moves its clocks from 2:00 to 3:00 on 31 March 2030.
    const zone = { timezone: 'Europe/Rome' };
    await makeEvent(server, admin, { title: 'Spring night', start_date: '2030-03-30 22:00', end_date: '2030-03-31 04:00', ...zone });
    // Within the lists' default reach, so that the list view shows it too.
    await makeEvent(server, admin, { title: 'Evening to midnight', start_date: on(20, '20:00'), end_date: on(21, '00:00'), ...zone });
    const expected = {
      en: { night: ['from 10:00 PM', 'until 4:00 AM'], evening: '8:00 PM–12:00 AM' },
      it: { night: ['dalle 22:00', 'fino alle 4:00'], evening: '20:00–0:00' },
    };
    for (const [language, words] of Object.entries(expected)) {
      const march = await page(`/events/month/2030-03/?lang=${language}`);
      assert.deepEqual(timesOf(march, 'Spring night', inGrid), words.night, `${language}: month`);
      const sunday = await page(`/events/2030-03-31/?lang=${language}`);
      assert.deepEqual(timesOf(sunday, 'Spring night', inCard(2, false)), [words.night[1]], `${language}: day`);
      // An evening that ends at midnight is within its day: on the grid and on a list's card, which names that day only.
      const grid = await page(`/events/month/${month}/?lang=${language}`);
      assert.deepEqual(timesOf(grid, 'Evening to midnight', inGrid), [words.evening], `${language}: month`);
      const [card = ''] = timesOf(await page(`/events/list/?lang=${language}`), 'Evening to midnight', inCard(2, 'all'));
      assert.ok(card.endsWith(`, ${words.evening}`), `${language}: ${card}`);
      assert.ok(!card.includes(' – '), `${language}: ${card}`);
    }
  });

  it('finds a protected event in a grid by its title only, never by the words or terms its password hides', async () => {
    const created = await server.request(EVENTS, {
      method: 'POST',
      auth: admin,
      body: {
        title: 'Guarded soiree',
        description: 'Entry through the zanzibarword door',
        categories: ['Hushcategory'],
        password: 'open-sesame',
        start_date: on(20, '19:00'),
        end_date: on(20, '21:00'),
      },
    });
    assert.equal(created.status, 201, created.text);
    const grid = async (query: string) => {
      const response = await fetch(`${server.url}/events/month/${month}/?${query}`);
      assert.equal(response.status, 200, query);
      return response.text();
    };
    assert.match(await grid('search=soiree'), />Guarded soiree</);
    assert.doesNotMatch(await grid('search=zanzibarword'), /Guarded soiree/);
    assert.doesNotMatch(await grid('category=hushcategory'), /Guarded soiree/);
  });

  /** The links of a page's Subscribe block, in order: webcal, Google Calendar, Outlook, the .ics. */
  const links = async (path: string) => {
    const html = await (await fetch(`${server.url}${path}`)).text();
    const block = /<section class="subscribe"[^]*?<\/section>/.exec(html)?.[0];
    assert.ok(block !== undefined, `${path}: a subscribe block`);
    // Headed by what it offers, never by the page's own heading.
    assert.match(block, /<h2 id="subscribe-heading">(Subscribe|Iscriviti|Add to calendar|Aggiungi al calendario)<\/h2>/, path);
    return [...block.matchAll(/href="([^"]+)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));
  };

  it('offers on every view and archive the feed of what it lists, to subscribe to in an app, Google Calendar or Outlook', async () => {
    const feedOf = (webcal: string) => webcal.replace(/^webcal:/, 'http:');
    const namespace = `${server.url}/calendar/events/v1`;

    const [webcal, google, outlook, ics] = await links(`/events/month/${month}/?search=fair&lang=it`);
    assert.equal(webcal, `${namespace.replace(/^http:/, 'webcal:')}/events.ics?search=fair`);
    assert.equal(ics, feedOf(webcal!));
    assert.equal(new URL(google!).searchParams.get('cid'), webcal);
    assert.equal(new URL(outlook!).searchParams.get('url'), ics);
    assert.equal(new URL(outlook!).searchParams.get('name'), 'Calendario · “fair”');
    // The feed holds what the view lists: the fair, not the concert.
    const feed = await (await fetch(ics!)).text();
    assert.match(feed, /SUMMARY[^:]*:Three-day fair/);
    assert.doesNotMatch(feed, /Plain concert/);

    for (const path of [`/events/week/${month}-11/`, `/events/${month}-11/`, '/events/list/']) {
      assert.equal((await links(path))[3], `${namespace}/events.ics`, path);
    }
    const hall = await makeEvent(server, admin, {
      title: 'Hall night',
      venue: { venue: 'Subscribe Hall' },
      start_date: on(21, '20:00'),
      end_date: on(21, '22:00'),
    });
    const archive = await links(new URL(hall.venue.url).pathname);
    assert.equal(archive[3], `${namespace}/events.ics?venue=${hall.venue.id}`);
    assert.equal(new URL(archive[2]!).searchParams.get('name'), 'Calendar · Subscribe Hall');
    const venueFeed = await (await fetch(archive[3]!)).text();
    assert.match(venueFeed, /SUMMARY[^:]*:Hall night/);
    assert.doesNotMatch(venueFeed, /Three-day fair/);
  });

  it('gives each page kind a Subscribe block for its feed, with the filters but not the dates, named as the feed names itself', async () => {
    const namespace = `${server.url}/calendar/events/v1`;
    const recital = await makeEvent(server, admin, {
      title: 'Organ recital',
      start_date: on(22, '18:00'),
      end_date: on(22, '19:00'),
      categories: ['Organ music'],
      tags: ['Evening'],
      venue: { venue: 'Cathedral' },
      organizer: [{ organizer: 'Chapter & Choir' }],
    });
    const [venue, organizer] = [recital.venue.id, recital.organizer[0].id];
    const summaries = (feed: string) => [...feed.matchAll(/\r\nSUMMARY[^:]*:([^\r]*)/g)].map((match) => match[1]).sort();
    // A feed's block: the webcal address is the feed's with the scheme swapped, Google and Outlook carry it, and Outlook's
    // name is the one the feed gives itself.
    const subscribesTo = async (path: string, query: string, name: string) => {
      const [webcal, google, outlook, ics] = await links(path);
      assert.equal(ics, `${namespace}/events.ics${query}`, path);
      assert.equal(webcal, ics!.replace(/^http:/, 'webcal:'), path);
      const [googleUrl, outlookUrl] = [new URL(google!), new URL(outlook!)];
      assert.equal(`${googleUrl.origin}${googleUrl.pathname}`, 'https://calendar.google.com/calendar/r');
      assert.equal(googleUrl.searchParams.get('cid'), webcal);
      assert.equal(`${outlookUrl.origin}${outlookUrl.pathname}`, 'https://outlook.live.com/calendar/0/addfromweb');
      assert.equal(outlookUrl.searchParams.get('url'), ics);
      assert.equal(outlookUrl.searchParams.get('name'), name, path);
      const feed = await (await fetch(ics!)).text();
      assert.equal(/\r\nX-WR-CALNAME:([^\r]*)/.exec(feed)?.[1], name, path);
      return summaries(feed);
    };
    const filtered = `?categories=organ-music&venue=${venue}`;
    assert.deepEqual(
      await subscribesTo(`/events/month/${month}/?category=organ-music&venue=${venue}`, filtered, 'Calendar · Organ music · Cathedral'),
      ['Organ recital'],
    );
    const listed = await server.request(`${EVENTS}${filtered}`);
    assert.deepEqual(
      listed.body.events.map((event: any) => event.title),
      ['Organ recital'],
      'the feed holds what the list does',
    );
    const evening = `?tags=evening&organizer=${organizer}`;
    await subscribesTo(`/events/week/${month}-22/?tag=evening&organizer=${organizer}`, evening, 'Calendar · Evening · Chapter & Choir');
    await subscribesTo(`/events/${month}-22/?search=organ`, '?search=organ', 'Calendar · “organ”');
    await subscribesTo('/events/list/?category=organ-music&page=1', '?categories=organ-music', 'Calendar · Organ music');
    // Archives: the feed of their own venue, organizer or term.
    const archives: Array<[string, string, string]> = [
      ['/events/category/organ-music/', `?categories=${recital.categories[0].id}`, 'Organ music'],
      ['/tag/evening/', `?tags=${recital.tags[0].id}`, 'Evening'],
      [new URL(recital.venue.url).pathname, `?venue=${venue}`, 'Cathedral'],
      [new URL(recital.organizer[0].url).pathname, `?organizer=${organizer}`, 'Chapter & Choir'],
    ];
    for (const [path, query, name] of archives) {
      assert.deepEqual(await subscribesTo(path, query, `Calendar · ${name}`), ['Organ recital'], path);
    }

    // An event: its own .ics, to subscribe to or to download; Google's and Outlook's new-event forms filled in with it.
    const [webcal, google, outlook, ics] = await links(new URL(recital.url).pathname);
    assert.equal(ics, `${namespace}/events/${recital.id}.ics`);
    assert.equal(webcal, ics!.replace(/^http:/, 'webcal:'));
    assert.equal(new URL(google!).searchParams.get('text'), 'Organ recital');
    assert.equal(new URL(outlook!).searchParams.get('subject'), 'Organ recital');
    // An occurrence: the file is that day alone, the subscription its whole series.
    const weekly = await server.request(`${EVENTS}?search=Weekly&${new URLSearchParams({ ...window, strict_dates: 'true' })}`);
    const occurrence = weekly.body.events[0];
    const [seriesWebcal, , , occurrenceIcs] = await links(`${new URL(occurrence.url).pathname}?lang=it`);
    assert.equal(occurrenceIcs, `${namespace}/events/${occurrence.id}.ics`);
    assert.equal(seriesWebcal, `${namespace}/events/${occurrence.recurring_event_id}.ics`.replace(/^http:/, 'webcal:'));
    assert.equal((await fetch(occurrenceIcs!)).status, 200);
    assert.match(await (await fetch(seriesWebcal!.replace(/^webcal:/, 'http:'))).text(), /\r\nRRULE:FREQ=WEEKLY/);
  });
});
