import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent, utcDay } from './events.factories.ts';
import { makeOrganizer, makeVenue } from './venues-organizers.factories.ts';

/** The list view's past events (latest first) and the filter form's lists, over HTTP through a real server, on every database. */

interface Page {
  readonly status: number;
  readonly html: string;
}

/** A page as a browser gets it (redirects not followed). */
async function pageOf(server: TestServer, path: string): Promise<Page> {
  const response = await fetch(`${server.url}${path}`, { redirect: 'manual' });
  return { status: response.status, html: await response.text() };
}

describe('calendar pages: the list of past events', () => {
  let server: TestServer;
  let admin: Credentials;

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const page = (path: string) => pageOf(server, path);
  /** The titles of the cards a list page shows, in order. */
  const titles = (html: string) => [...html.matchAll(/>(Past \d+|Soon \d+)</g)].map((match) => match[1]);
  const hrefOf = (html: string, rel: 'next' | 'prev') => {
    const match = new RegExp(`href="([^"]+)" rel="${rel}"`).exec(html);
    return match?.[1]?.replaceAll('&amp;', '&');
  };

  it('lists past events latest first, ten a page, with working page links, and upcoming ones soonest first', async () => {
    // Made out of order, so that neither ids nor publication dates give the order of their days.
    for (const days of [3, 12, 1, 7, 10, 2, 5, 11, 4, 9, 6, 8]) {
      await makeEvent(server, admin, { title: `Past ${days}`, start_date: `${utcDay(-days)} 10:00`, end_date: `${utcDay(-days)} 11:00` });
    }
    for (const days of [2, 1]) {
      await makeEvent(server, admin, { title: `Soon ${days}`, start_date: `${utcDay(days)} 10:00`, end_date: `${utcDay(days)} 11:00` });
    }
    const first = await page('/events/list/?past=1');
    assert.equal(first.status, 200, first.html.slice(0, 300));
    assert.deepEqual(titles(first.html), [
      'Past 1',
      'Past 2',
      'Past 3',
      'Past 4',
      'Past 5',
      'Past 6',
      'Past 7',
      'Past 8',
      'Past 9',
      'Past 10',
    ]);
    assert.match(first.html, /Page 1 of 2/);
    assert.equal(hrefOf(first.html, 'prev'), undefined);
    const next = hrefOf(first.html, 'next');
    assert.equal(next, '/events/list/?past=1&page=2');
    const second = await page(next);
    assert.equal(second.status, 200);
    assert.deepEqual(titles(second.html), ['Past 11', 'Past 12']);
    assert.equal(hrefOf(second.html, 'next'), undefined);
    assert.equal(hrefOf(second.html, 'prev'), '/events/list/?past=1');
    assert.equal((await page('/events/list/?past=1&page=3')).status, 404);

    const upcoming = await page('/events/list/');
    assert.deepEqual(titles(upcoming.html), ['Soon 1', 'Soon 2']);
    // The API's own list keeps its one order (by start, ascending): the pages' order is no argument of it.
    const api = await server.request(`${EVENTS}?ends_before=${utcDay(0)}%2000:00:00&strict_dates=1&per_page=3`);
    assert.equal(api.status, 200, api.text);
    assert.deepEqual(
      api.body.events.map((event: any) => event.title),
      ['Past 12', 'Past 11', 'Past 10'],
    );
  });

  it('keeps the order with a filter and a search, and within a day, latest start first', async () => {
    const day = utcDay(-20);
    for (const hour of ['09', '15', '12']) {
      await makeEvent(server, admin, {
        title: `Filtered past ${hour}`,
        start_date: `${day} ${hour}:00`,
        end_date: `${day} ${hour}:30`,
        tags: 'pastfilter',
      });
    }
    const { status, html } = await page('/events/list/?past=1&tag=pastfilter&search=filtered');
    assert.equal(status, 200, html.slice(0, 300));
    assert.deepEqual(
      [...html.matchAll(/>(Filtered past \d+)</g)].map((match) => match[1]),
      ['Filtered past 15', 'Filtered past 12', 'Filtered past 09'],
    );
  });

  it('answers bad list arguments with a 400 page, never a 500', async () => {
    for (const path of [
      '/events/list/?past=2',
      '/events/list/?past=yes',
      '/events/list/?past=1&page=0',
      '/events/list/?past=1&page=-1',
      '/events/list/?past=1&page=abc',
      '/events/list/?past=1&page=10001',
      '/events/list/?past=1&venue=0',
      '/events/list/?past=1&organizer=abc',
      '/events/list/?past=1&category=%00',
    ]) {
      const result = await page(path);
      assert.equal(result.status, 400, `${path}: ${result.html.slice(0, 200)}`);
      assert.match(result.html, /cannot be read/, path);
    }
    assert.equal((await page('/events/list/?past=1&page=9999')).status, 404);
    // Arguments the pages do not take are ignored, as the API ignores them: the order is no argument.
    assert.equal((await page('/events/list/?past=1&order=asc&orderby=id')).status, 200);
  });

  it('walks back in time from the bound, whatever the local times of an event that ends across a change of clocks', async () => {
    // 2030-11-03 01:30 EDT to 01:10 EST in New York: 40 minutes, its local end before its local start.
    const event = await makeEvent(server, admin, {
      title: 'Across the fall-back',
      timezone: 'America/New_York',
      start_date: '2030-11-03T01:30:00-04:00',
      end_date: '2030-11-03T01:10:00-05:00',
    });
    assert.equal(event.start_date, '2030-11-03 01:30:00');
    assert.equal(event.end_date, '2030-11-03 01:10:00');
    const found = await server.request(`${EVENTS}?ends_before=2030-11-03%2001:20:00&strict_dates=1&starts_after=2030-11-01`);
    assert.equal(found.status, 200, found.text);
    assert.ok(
      found.body.events.some((listed: any) => listed.id === event.id),
      'an event ending before the bound is listed, though it starts after it',
    );
  });
});

describe('calendar pages: the lists of the filter form', () => {
  let server: TestServer;
  let admin: Credentials;

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const page = (path: string) => pageOf(server, path);
  /** The options of one select of the filter form: [value, label, selected]. */
  const optionsOf = (html: string, name: string) => {
    const select = new RegExp(`<select id="filter-${name}" name="${name}">([\\s\\S]*?)</select>`).exec(html)?.[1] ?? '';
    return [...select.matchAll(/<option value="([^"]*)"( selected)?>([^<]*)<\/option>/g)]
      .filter((match) => match[1] !== '')
      .map((match) => ({ value: match[1] as string, label: match[3] as string, selected: match[2] !== undefined }));
  };
  const pad = (index: number) => String(index).padStart(2, '0');

  it('offers at most 50 of each, by name, and always the one chosen in the address, selected', async () => {
    const day = utcDay(5);
    // 51 venues and organizers: the list offers the latest 50, so the first made is beyond it.
    const venues = [];
    const organizers = [];
    for (let index = 0; index <= 50; index += 1) {
      venues.push(await makeVenue(server, admin, { venue: `Cap venue ${pad(50 - index)}` }));
      organizers.push(await makeOrganizer(server, admin, { organizer: `Cap organizer ${pad(50 - index)}` }));
    }
    // 50 categories and tags that two events use, one that a third uses: the list offers the 50 most used (not the first 50 by name).
    const common = Array.from({ length: 50 }, (_, index) => `common ${pad(index)}`);
    for (const hour of ['10', '11']) {
      await makeEvent(server, admin, {
        title: `Common ${hour}`,
        start_date: `${day} ${hour}:00`,
        end_date: `${day} ${hour}:30`,
        categories: common.map((name) => `${name} category`),
        tags: common.map((name) => `${name} tag`).join(','),
      });
    }
    const [oldestVenue, oldestOrganizer] = [venues[0], organizers[0]];
    await makeEvent(server, admin, {
      title: 'Rare one',
      start_date: `${day} 12:00`,
      end_date: `${day} 12:30`,
      categories: ['Aardvark category'],
      tags: 'aardvark tag',
      venue: oldestVenue.id,
      organizer: [oldestOrganizer.id],
    });

    const plain = (await page('/events/list/')).html;
    for (const name of ['category', 'tag', 'venue', 'organizer']) {
      const options = optionsOf(plain, name);
      assert.equal(options.length, 50, name);
      assert.ok(!options.some((option) => option.selected), name);
      const labels = options.map((option) => option.label);
      assert.deepEqual(labels, [...labels].sort(new Intl.Collator('en').compare), `${name}: by name`);
    }
    // The form does not offer them (the list's cards show the events' venues).
    const form = plain.slice(plain.indexOf('<form class="filters"'), plain.indexOf('</form>'));
    assert.doesNotMatch(form, /Aardvark category<|aardvark tag<|Cap venue 50<|Cap organizer 50</);

    for (const [name, value, label] of [
      ['category', 'aardvark-category', 'Aardvark category'],
      ['tag', 'aardvark-tag', 'aardvark tag'],
      ['venue', String(oldestVenue.id), 'Cap venue 50'],
      ['organizer', String(oldestOrganizer.id), 'Cap organizer 50'],
    ] as const) {
      for (const path of [`/events/list/?${name}=${value}`, `/events/month/${day.slice(0, 7)}/?${name}=${value}&lang=it`]) {
        const result = await page(path);
        assert.equal(result.status, 200, `${path}: ${result.html.slice(0, 300)}`);
        const options = optionsOf(result.html, name);
        assert.equal(options.length, 51, path);
        assert.deepEqual(
          options.filter((option) => option.selected),
          [{ value, label, selected: true }],
          path,
        );
        assert.match(result.html, /Rare one/, path);
        assert.doesNotMatch(result.html, /Common 1[01]/, path);
      }
    }
    // One among the 50 is selected where it is, and adds nothing.
    const among = await page(`/events/list/?venue=${venues[50].id}`);
    assert.equal(optionsOf(among.html, 'venue').length, 50);
    assert.deepEqual(
      optionsOf(among.html, 'venue')
        .filter((option) => option.selected)
        .map((option) => option.label),
      ['Cap venue 00'],
    );
  });

  it('answers unknown and hidden choices with a 400 page that names none of them', async () => {
    const draftVenue = await makeVenue(server, admin, { venue: 'Unpublished venue', status: 'draft' });
    const draftOrganizer = await makeOrganizer(server, admin, { organizer: 'Unpublished organizer', status: 'draft' });
    for (const query of [
      `venue=${draftVenue.id}`,
      `organizer=${draftOrganizer.id}`,
      'venue=999999',
      'organizer=999999',
      `venue=${draftOrganizer.id}`,
      'category=no-such-category',
      'tag=no-such-tag',
      'venue=1.5',
      'venue=%00',
      'tag=a,b',
    ]) {
      for (const path of ['/events/list/', '/events/']) {
        const result = await page(`${path}?${query}`);
        assert.equal(result.status, 400, `${path}?${query}: ${result.html.slice(0, 200)}`);
        assert.doesNotMatch(result.html, /Unpublished/, `${path}?${query}`);
      }
    }
  });
});
