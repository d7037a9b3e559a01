import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent, utcDay } from './events.factories.ts';

/** The list view's past events (latest first) over HTTP, through a real server, on every database. */

interface Page {
  readonly status: number;
  readonly html: string;
}

describe('calendar pages: the list of past events', () => {
  let server: TestServer;
  let admin: Credentials;

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const page = async (path: string): Promise<Page> => {
    const response = await fetch(`${server.url}${path}`, { redirect: 'manual' });
    return { status: response.status, html: await response.text() };
  };
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
