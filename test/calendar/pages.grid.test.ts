import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedDemoEvents } from '../../src/calendar/seed/demo-events.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { EVENTS } from './events.factories.ts';

/**
 * The month, week and day grids over a calendar busier than a page can show (issue 25): every day of the view gets
 * its own first events and its exact count, whatever the days before it hold. The oracle is the anonymous API's list
 * of each day (the same window the grid asks for), so the grid cannot drift from what the API says runs that day.
 */

interface Cell {
  readonly day: string;
  readonly hrefs: string[];
  readonly more: number;
}

/** The cells of a month grid: each day's link, its events' links in order, and its "+N more". */
function monthCells(html: string): Cell[] {
  return html
    .split('<td class="')
    .slice(1)
    .map((cell) => cell.slice(0, cell.indexOf('</td>')))
    .map((cell) => ({
      day: /class="daynum" href="\/events\/(\d{4}-\d{2}-\d{2})\/"/.exec(cell)![1]!,
      hrefs: [...cell.matchAll(/<li class="ev[^"]*"><a href="([^"]+)"/g)].map((match) => match[1]!),
      more: Number(/<a class="more" href="[^"]+">\+(\d+) /.exec(cell)?.[1] ?? 0),
    }));
}

describe('calendar grids of a busy calendar', () => {
  let server: TestServer;
  const month = new Date().toISOString().slice(0, 7);

  before(async () => {
    server = await startTestServer();
    // About 14 events a day over two years: a month's grid (five or six weeks) holds more than 500 of them.
    await seedDemoEvents(server.server.store, { events: 10_000, siteTimezone: 'UTC', seed: 25 });
  });
  after(async () => server.close());

  /** What the anonymous API lists for one day: its first `max` events' paths and how many there are. */
  const apiDay = async (day: string, max: number) => {
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const query = new URLSearchParams({ ends_after: `${day} 00:00:00`, starts_before: `${next} 00:00:00`, strict_dates: 'true' });
    query.set('per_page', String(max));
    const response = await server.request(`${EVENTS}?${query.toString()}`);
    assert.equal(response.status, 200, response.text);
    const total = Number(response.headers.get('x-wp-total'));
    return { total, paths: response.body.events.map((event: { url: string }) => new URL(event.url).pathname) as string[] };
  };

  it('shows on every day of the month its first four events and how many more there are, as the API lists that day', async () => {
    const response = await fetch(`${server.url}/events/month/${month}/`);
    assert.equal(response.status, 200);
    const html = await response.text();
    const cells = monthCells(html);
    assert.ok(cells.length >= 35, `${cells.length} days`);
    let events = 0;
    for (const cell of cells) {
      const api = await apiDay(cell.day, 4);
      assert.deepEqual(cell.hrefs, api.paths, cell.day);
      assert.equal(cell.hrefs.length + cell.more, api.total, cell.day);
      events += api.total;
    }
    // The busy part: the grid holds more than a list read of 500 would have shown, and the last day is as full as the first.
    assert.ok(events > 500, `${events} events in the grid`);
    assert.ok(cells.at(-1)!.hrefs.length === 4 && cells.at(-1)!.more > 0, 'the last day is filled');
    assert.doesNotMatch(html, /more events than/);
  });

  it('shows on each day of a week its first ten events and a link to the day for the others', async () => {
    const week = new Date().toISOString().slice(0, 10);
    const html = await (await fetch(`${server.url}/events/week/${week}/`)).text();
    const days = html.split('<ol class="week">')[1]!.split('<h2>').slice(1);
    assert.equal(days.length, 7);
    for (const part of days) {
      const day = /^<a href="\/events\/(\d{4}-\d{2}-\d{2})\/"/.exec(part)![1]!;
      const hrefs = [...part.matchAll(/class="card-title"><a href="([^"]+)">/g)].map((match) => match[1]!);
      const api = await apiDay(day, 10);
      assert.deepEqual(hrefs, api.paths, day);
      const more = api.total - hrefs.length;
      if (more > 0) assert.match(part, new RegExp(`<a class="more" href="/events/${day}/">\\+${more} more</a>`), day);
      else assert.doesNotMatch(part, /class="more"/, day);
    }
  });

  it('shows on a day page every event of the day, in the API list order', async () => {
    const day = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    const html = await (await fetch(`${server.url}/events/${day}/`)).text();
    const hrefs = [...html.matchAll(/class="card-title"><a href="([^"]+)">/g)].map((match) => match[1]!);
    const api = await apiDay(day, 100);
    assert.ok(api.total > 4 && api.total <= 100, `${api.total} events`);
    assert.deepEqual(hrefs, api.paths);
    assert.doesNotMatch(html, /class="notice"/);
  });
});
