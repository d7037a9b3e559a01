import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startSecondServer, startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { EVENTS, makeEvent, utcDay } from './events.factories.ts';

/** The calendar's public pages (issue 25), over HTTP: every view, every permalink, visibility, languages, filters. */

interface Page {
  readonly status: number;
  readonly headers: Headers;
  readonly html: string;
}

const HOSTILE = '<script>alert(1)</script>';

describe('calendar pages', () => {
  let server: TestServer;
  let admin: Credentials;
  const day = utcDay(3);
  const month = day.slice(0, 7);

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  /** A page as a browser asks for it (pages are not in the API's OpenAPI document). */
  const page = async (path: string, init: RequestInit = {}): Promise<Page> => {
    const response = await fetch(path.startsWith('http') ? path : `${server.url}${path}`, { redirect: 'manual', ...init });
    return { status: response.status, headers: response.headers, html: await response.text() };
  };
  const post = (path: string, form: Record<string, string>) =>
    page(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  const pathOf = (url: string) => new URL(url).pathname;
  const at = (hour: string) => `${day} ${hour}`;

  function assertHtmlPage(result: Page, language: string, label: string): void {
    assert.equal(result.status, 200, `${label}: ${result.html.slice(0, 300)}`);
    assert.match(result.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/, label);
    assert.match(result.html, new RegExp(`^<!doctype html>\\s*<html lang="${language}">`), label);
    const csp = result.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/, label);
    assert.match(csp, /style-src 'self'/, label);
    assert.doesNotMatch(csp, /unsafe-inline/, label);
    assert.equal(result.headers.get('content-language'), language, label);
    // What search engines read on a page they may index: a description, and the page in each language at an absolute address.
    const indexed = !result.html.includes('<meta name="robots" content="noindex">');
    if (indexed) assert.match(result.html, /<meta name="description" content="[^"]+">/, label);
    for (const hreflang of indexed ? ['en', 'it', 'x-default'] : []) {
      assert.match(
        result.html,
        new RegExp(`<link rel="alternate" hreflang="${hreflang}" href="${server.url}/[^"]*">`),
        `${label}: ${hreflang}`,
      );
    }
    // No inline script or style: the only script element is JSON-LD data.
    assert.doesNotMatch(result.html.replace(/<script type="application\/ld\+json">[^<]*<\/script>/g, ''), /<script|<style| style=/i, label);
  }

  const jsonLdOf = (html: string): any => {
    const match = /<script type="application\/ld\+json">([^<]*)<\/script>/.exec(html);
    assert.ok(match, 'the page has JSON-LD');
    return JSON.parse(match[1] as string);
  };

  it('answers every view and every permalink the API gives with an HTML page', async () => {
    const parent = await server.request('/calendar/events/v1/categories', { method: 'POST', auth: admin, body: { name: 'Music' } });
    const child = await server.request('/calendar/events/v1/categories', {
      method: 'POST',
      auth: admin,
      body: { name: 'Jazz music', parent: parent.body.id },
    });
    assert.equal(child.status, 201, child.text);
    const event = await makeEvent(server, admin, {
      title: 'Jazz night',
      start_date: at('21:00'),
      end_date: at('23:30'),
      timezone: 'Europe/Rome',
      categories: [child.body.id],
      tags: 'jazz,live',
      venue: { venue: 'Blue Note', address: 'Via Borsieri 37', city: 'Milano', geo_lat: 45.48, geo_lng: 9.19 },
      organizer: [{ organizer: 'Jazz Club', email: 'club@jazz.example' }],
      cost: '10€',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'],
    });
    const permalinks = [event.url, event.venue.url, ...event.organizer.map((o: any) => o.url)];
    for (const term of [parent.body, child.body]) permalinks.push(term.url);
    const tags = await server.request('/calendar/events/v1/tags');
    permalinks.push(...tags.body.tags.map((tag: any) => tag.url));
    const instances = await server.request(`${EVENTS}/${event.id}/instances`);
    assert.equal(instances.body.events.length, 2);
    permalinks.push(...instances.body.events.map((occurrence: any) => occurrence.url));
    assert.ok(permalinks.some((url) => /\/events\/category\/music\/jazz-music\/$/.test(url)));
    assert.ok(permalinks.some((url) => new RegExp(`/event/jazz-night/${day}/$`).test(url)));
    for (const url of permalinks) assertHtmlPage(await page(pathOf(url)), 'en', url);

    const views = ['/events/', `/events/month/${month}/`, `/events/week/${day}/`, '/events/today/', `/events/${day}/`, '/events/list/'];
    for (const path of [...views, '/events/list/?past=1']) assertHtmlPage(await page(path), 'en', path);
    // The event is on its day in the month grid, the week, the day and the list.
    for (const path of [`/events/month/${month}/`, `/events/week/${day}/`, `/events/${day}/`, '/events/list/']) {
      assert.match((await page(path)).html, /Jazz night/, path);
    }
    // Venue, organizer, category and tag pages list their upcoming events, and offer the feed of them.
    const feeds = [
      `venue=${event.venue.id}`,
      `organizer=${event.organizer[0].id}`,
      `categories=${child.body.id}`,
      `categories=${parent.body.id}`,
    ];
    for (const [index, url] of [event.venue.url, event.organizer[0].url, child.body.url, parent.body.url].entries()) {
      const { html } = await page(pathOf(url));
      assert.match(html, /Jazz night/, url);
      assert.ok(html.includes(`/calendar/events/v1/events.ics?${feeds[index]}" type="text/calendar"`), `${url}: ${feeds[index]}`);
    }
    const month_ = await page(`/events/month/${month}/`);
    assert.match(month_.html, /<table class="month">\s*<caption>/);
    assert.equal(month_.html.match(/<th scope="col">/g)?.length, 7);
    // A category is found at its own path only.
    assert.equal((await page('/events/category/jazz-music/')).status, 404);
  });

  it('shows the event page whole: dates in its zone, venue with map, links, add to calendar, canonical URL, Open Graph, JSON-LD', async () => {
    const event = await makeEvent(server, admin, {
      title: 'Open air concert',
      description: 'Bring a <b>blanket</b>.<img src="x" onerror="alert(1)"><a href="javascript:alert(1)">x</a>',
      start_date: at('19:00'),
      end_date: at('22:00'),
      timezone: 'America/New_York',
      venue: { venue: 'The Park', address: '5th Avenue', city: 'New York', geo_lat: 40.78, geo_lng: -73.96 },
      organizer: [{ organizer: 'City Music' }],
      image: 'https://cdn.example/park.jpg',
      cost: '0',
    });
    const result = await page(pathOf(event.url));
    assertHtmlPage(result, 'en', event.url);
    const { html } = result;
    assert.match(html, /<h1>Open air concert<\/h1>/);
    // Times without a leading zero, in the clock of the language ("7:00 PM").
    assert.match(html, /[^0-9]7:00\s?PM – 10:00\s?PM E[DS]T/);
    assert.match(html, /<time datetime="[0-9-]+T19:00:00-0[45]:00">/);
    assert.match(html, /https:\/\/www\.openstreetmap\.org\/\?mlat=40\.78&amp;mlon=-73\.96/);
    assert.match(html, new RegExp(`href="${pathOf(event.venue.url)}"`));
    assert.match(html, new RegExp(`href="${pathOf(event.organizer[0].url)}"`));
    assert.match(html, new RegExp(`/calendar/events/v1/events/${event.id}\\.ics"`));
    assert.match(html, /https:\/\/calendar\.google\.com\/calendar\/render\?action=TEMPLATE&amp;text=Open\+air\+concert/);
    const outlook = new URL(/href="(https:\/\/outlook\.live\.com\/[^"]+)"/.exec(html)![1]!.replaceAll('&amp;', '&'));
    assert.equal(outlook.searchParams.get('subject'), 'Open air concert');
    assert.equal(outlook.searchParams.get('startdt'), `${event.utc_start_date.replace(' ', 'T')}Z`);
    assert.equal(outlook.searchParams.get('allday'), 'false');
    assert.match(outlook.searchParams.get('location') ?? '', /^The Park, 5th Avenue, New York/);
    assert.match(html, /<b>blanket<\/b>/);
    assert.doesNotMatch(html, /onerror|javascript:/);
    assert.match(html, /<img class="event-image" src="https:\/\/cdn\.example\/park\.jpg" alt="">/);
    assert.match(html, new RegExp(`<link rel="canonical" href="${event.url}">`));
    assert.match(html, /<meta property="og:title" content="Open air concert">/);
    assert.match(html, new RegExp(`<meta property="og:url" content="${event.url}">`));
    assert.match(html, /<meta property="og:image" content="https:\/\/cdn\.example\/park\.jpg">/);
    const jsonLd = jsonLdOf(html);
    assert.equal(jsonLd['@type'], 'Event');
    assert.equal(jsonLd.name, 'Open air concert');
    assert.match(jsonLd.startDate, /^\d{4}-\d{2}-\d{2}T19:00:00-0[45]:00$/);
    assert.match(jsonLd.endDate, /T22:00:00-0[45]:00$/);
    assert.equal(jsonLd.location['@type'], 'Place');
    assert.equal(jsonLd.location.name, 'The Park');
    assert.equal(jsonLd.location.address.addressLocality, 'New York');
    assert.equal(jsonLd.url, event.url);
  });

  it('escapes hostile titles, names and terms everywhere, JSON-LD included', async () => {
    const hostile = `&lt;script&gt;alert(1)&lt;/script&gt; "quoted" & more`;
    const event = await makeEvent(server, admin, {
      title: hostile,
      start_date: at('10:00'),
      end_date: at('11:00'),
      venue: { venue: hostile, address: '"><script>alert(2)</script>' },
      organizer: [{ organizer: hostile }],
      categories: ['<script>alert(3)</script>Cat'],
      tags: 'x"><img src=x onerror=alert(4)>',
    });
    for (const path of [
      pathOf(event.url),
      pathOf(event.venue.url),
      pathOf(event.organizer[0].url),
      `/events/month/${month}/`,
      `/events/week/${day}/`,
      `/events/${day}/`,
      '/events/list/',
      `/events/list/?search=${encodeURIComponent(HOSTILE)}`,
    ]) {
      const result = await page(path);
      assertHtmlPage(result, 'en', path);
      assert.ok(!result.html.includes(HOSTILE), path);
      assert.doesNotMatch(result.html, /<img src=x|onerror=|<script>alert/, path);
    }
    const html = (await page(pathOf(event.url))).html;
    assert.match(html, /<h1>&lt;script&gt;alert\(1\)&lt;\/script&gt; &quot;quoted&quot; &amp; more<\/h1>/);
    assert.equal(jsonLdOf(html).name, `<script>alert(1)</script> "quoted" & more`);
    const search = await page(`/events/list/?search=${encodeURIComponent(HOSTILE)}`);
    assert.match(search.html, /value="&lt;script&gt;alert\(1\)&lt;\/script&gt;"/);
  });

  it('shows no draft, pending or private event, and hides what a protected one protects until its password is given', async () => {
    for (const status of ['draft', 'pending', 'private']) {
      const event = await makeEvent(server, admin, { title: `Secret ${status}`, status, start_date: at('08:00'), end_date: at('09:00') });
      assert.equal((await page(pathOf(event.url))).status, 404, status);
      assert.equal((await page(pathOf(event.url), { headers: { authorization: admin.bearer } })).status, 404, `${status}, as admin`);
      for (const path of [`/events/${day}/`, '/events/list/']) assert.doesNotMatch((await page(path)).html, new RegExp(`Secret ${status}`));
    }
    const trashed = await makeEvent(server, admin, { title: 'Trashed' });
    await server.request(`${EVENTS}/${trashed.id}`, { method: 'DELETE', auth: admin });
    assert.equal((await page(pathOf(trashed.url))).status, 404);
    assert.equal((await page('/event/no-such-event/')).status, 404);

    const event = await makeEvent(server, admin, {
      title: 'Members evening',
      description: 'The code is 1234.',
      password: 's3cret',
      start_date: at('18:00'),
      end_date: at('20:00'),
      venue: { venue: 'Back room', address: 'Hidden street 1' },
    });
    const locked = await page(pathOf(event.url));
    assertHtmlPage(locked, 'en', 'locked');
    assert.match(locked.html, /<form class="password" method="post" action="\/event\/members-evening\/">/);
    assert.doesNotMatch(locked.html, /1234|Back room|Hidden street|application\/ld\+json/);
    const wrong = await post(pathOf(event.url), { password: 'nope' });
    assert.equal(wrong.status, 403);
    assert.match(wrong.html, /Wrong password/);
    assert.doesNotMatch(wrong.html, /1234/);
    const open = await post(pathOf(event.url), { password: 's3cret' });
    assert.equal(open.status, 200);
    assert.match(open.html, /The code is 1234/);
    assert.match(open.html, /Back room/);
    assert.equal(open.headers.get('cache-control'), 'no-store');
    // Lists show its title and dates only.
    const list = await page(`/events/${day}/`);
    assert.match(list.html, /Members evening/);
    assert.doesNotMatch(list.html, /1234/);
  });

  it('filters views by search, category, tag, venue and organizer through the events list', async () => {
    const a = await makeEvent(server, admin, {
      title: 'Filter alpha',
      start_date: at('12:00'),
      end_date: at('13:00'),
      categories: ['Theatre'],
      tags: 'drama',
      venue: { venue: 'Alpha hall', address: 'A street' },
      organizer: [{ organizer: 'Alpha org' }],
    });
    await makeEvent(server, admin, { title: 'Filter beta', start_date: at('12:00'), end_date: at('13:00') });
    // A form's empty fields are filters not used.
    const both = (await page(`/events/${day}/?search=filter&category=&tag=&venue=&organizer=`)).html;
    assert.match(both, /Filter alpha/);
    assert.match(both, /Filter beta/);
    for (const query of ['search=alpha', 'category=theatre', 'tag=drama', `venue=${a.venue.id}`, `organizer=${a.organizer[0].id}`]) {
      for (const path of [`/events/${day}/`, `/events/week/${day}/`, `/events/month/${month}/`, '/events/list/', '/embed/events/']) {
        const result = await page(`${path}?${query}`);
        assertHtmlPage(result, 'en', `${path}?${query}`);
        assert.match(result.html, /Filter alpha/, `${path}?${query}`);
        assert.doesNotMatch(result.html, /Filter beta/, `${path}?${query}`);
      }
    }
    // The filter form shows what is chosen, and navigation keeps it.
    const filtered = (await page(`/events/${day}/?category=theatre`)).html;
    assert.match(filtered, /<option value="theatre" selected>Theatre<\/option>/);
    assert.match(filtered, /href="\/events\/[0-9-]+\/\?category=theatre" rel="next"/);
  });

  it('offers in its filter form the categories and venues there are now, as soon as they are made', async () => {
    const before = (await page(`/events/month/${month}/`)).html;
    assert.doesNotMatch(before, /Freshly made hall|Freshly made category/);
    await makeEvent(server, admin, {
      title: 'Fresh choices',
      start_date: at('09:00'),
      end_date: at('10:00'),
      categories: ['Freshly made category'],
      venue: { venue: 'Freshly made hall', address: 'F street' },
    });
    const after = (await page(`/events/month/${month}/`)).html;
    assert.match(after, /<option value="freshly-made-category">Freshly made category<\/option>/);
    assert.match(after, /<option value="\d+">Freshly made hall<\/option>/);
  });

  it('shows at most four events in a day of the month, and links to the day for the others', async () => {
    const busy = utcDay(40);
    for (let index = 1; index <= 6; index += 1) {
      await makeEvent(server, admin, { title: `Busy ${index}`, start_date: `${busy} 0${index}:00`, end_date: `${busy} 0${index}:30` });
    }
    const { html } = await page(`/events/month/${busy.slice(0, 7)}/`);
    // The grid, and below it the phone's list of the days with events: the same four, the same link.
    const [grid, agenda] = [/<table class="month">[^]*<\/table>/, /<section class="agenda"[^]*?<\/section>/].map(
      (part) => part.exec(html)![0],
    );
    for (const shown of [grid!, agenda!]) {
      assert.equal(shown.match(/>Busy \d</g)?.length, 4);
      assert.match(shown, new RegExp(`<a class="more" href="/events/${busy}/">\\+2 more</a>`));
    }
    // The grid's day has a dot for each event it shows, hidden from screen readers (the list below names them).
    assert.match(
      grid!,
      new RegExp(
        `href="/events/${busy}/" aria-label="[^"]+">\\d+<span class="dots" aria-hidden="true">(<span class="dot"></span>){4}</span></a>`,
      ),
    );
    assert.match(agenda!, new RegExp(`<h3><a href="/events/${busy}/">[^<]+</a></h3>`));
    assert.equal((await page(`/events/${busy}/`)).html.match(/>Busy \d</g)?.length, 6);
  });

  it('serves other sites a framable list without the site around it, its events opening in the top window', async () => {
    const night = await makeEvent(server, admin, {
      title: 'Embedded night',
      start_date: at('20:00'),
      end_date: at('22:00'),
      tags: 'embedded',
    });
    const embed = await page('/embed/events/?tag=embedded&lang=it');
    assertHtmlPage(embed, 'it', 'embed');
    const list = await page('/events/list/?tag=embedded&lang=it');
    // Any site may frame it, and only it: no X-Frame-Options says otherwise; caches treat it as the list view.
    assert.match(embed.headers.get('content-security-policy') ?? '', /frame-ancestors \*(;|$)/);
    assert.equal(embed.headers.get('x-frame-options'), null);
    assert.match(list.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.equal(list.headers.get('x-frame-options'), 'SAMEORIGIN');
    for (const header of ['cache-control', 'vary', 'content-language'])
      assert.equal(embed.headers.get(header), list.headers.get(header), header);
    assert.ok(embed.headers.get('etag'));
    // The list's events, no header, navigation, form, subscriptions or footer; links leave the frame.
    assert.doesNotMatch(embed.html, /<header|<nav aria-label="Viste|<form|class="subscribe"|<footer/);
    assert.match(embed.html, new RegExp(`<a href="${pathOf(night.url)}\\?lang=it" target="_top">Embedded night</a>`));
    assert.match(embed.html, /<a href="\/events\/list\/\?tag=embedded&amp;lang=it" target="_top">Apri il calendario<\/a>/);
    assert.match(embed.html, /<meta name="robots" content="noindex">/);
    assert.match(embed.html, /<link rel="canonical" href="[^"]+\/events\/list\/">/);
    // Its pages stay in the frame.
    for (let index = 0; index < 10; index += 1) {
      await makeEvent(server, admin, { title: `Embedded ${index}`, start_date: at('08:00'), end_date: at('09:00'), tags: 'embedded' });
    }
    const first = (await page('/embed/events/?tag=embedded')).html;
    assert.match(first, /<a href="\/embed\/events\/\?tag=embedded&amp;page=2" rel="next">/);
    assert.match((await page('/embed/events/?tag=embedded&page=2')).html, /Embedded night/);
    // The month too: the grid, its days and events opening in the top window, its months in the frame.
    for (const path of [`/embed/events/month/${month}/?tag=embedded`, '/embed/events/month/?tag=embedded']) {
      const grid = await page(path);
      assertHtmlPage(grid, 'en', path);
      assert.match(grid.headers.get('content-security-policy') ?? '', /frame-ancestors \*(;|$)/, path);
      assert.doesNotMatch(grid.html, /<header|<form|class="subscribe"|<footer/, path);
      assert.match(grid.html, /<table class="month">/, path);
      assert.match(grid.html, /<a class="daynum" href="\/events\/[0-9-]+\/\?tag=embedded" target="_top"/, path);
      assert.match(grid.html, /rel="next"/, path);
      assert.match(grid.html, /<a href="\/embed\/events\/month\/[0-9-]+\/\?tag=embedded" rel="next">/, path);
    }
    assert.match((await page(`/embed/events/month/${month}/?tag=embedded`)).html, /href="[^"]+" target="_top">Embedded \d</);
    // Its errors are pages that may be framed too; other addresses below it are not pages.
    for (const [path, status] of [
      ['/embed/events/month/2026-13/', 400],
      ['/embed/events/?category=no-such-category', 400],
      ['/embed/events/?page=99', 404],
      ['/embed/other/', 404],
    ] as const) {
      const answer = await page(path);
      assert.equal(answer.status, status, path);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/html/, path);
      assert.match(answer.headers.get('content-security-policy') ?? '', /frame-ancestors \*/, path);
    }
    // A deployment may name the sites that frame it.
    const limited = await startSecondServer(server, { EMBED_ORIGINS: 'https://a.example, https://b.example:8443' });
    try {
      const framed = await fetch(`${limited.url}/embed/events/`);
      assert.equal(framed.status, 200);
      assert.match(
        framed.headers.get('content-security-policy') ?? '',
        /frame-ancestors https:\/\/a\.example https:\/\/b\.example:8443(;|$)/,
      );
    } finally {
      await limited.close();
    }
  });

  it('answers bad dates and filters with a 400 page, unknown paths below the pages with 404, and leaves the API its JSON', async () => {
    for (const path of [
      '/events/month/2026-13/',
      '/events/month/9999-12/',
      '/events/week/9999-12-31/',
      '/events/0999-01-01/',
      '/events/month/banana/',
      '/events/week/2026-02-30/',
      '/events/2026-02-30/',
      '/events/list/?category=no-such-category',
      '/events/list/?tag=no-such-tag',
      '/events/list/?venue=abc',
      '/events/list/?venue=99999',
      '/events/list/?organizer=0',
      '/events/list/?page=0',
      '/events/?lang=xx',
      `/events/?search=${'x'.repeat(201)}`,
    ]) {
      const result = await page(path);
      assert.equal(result.status, 400, `${path}: ${result.html.slice(0, 200)}`);
      assert.match(result.headers.get('content-type') ?? '', /^text\/html/, path);
      assert.match(result.html, /cannot be read/, path);
      assert.match(result.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    }
    assert.equal((await page('/events/list/?page=999')).status, 404);
    for (const path of [
      '/events/nothing-here/',
      '/event/',
      '/venue/a/b/c/',
      '/tag/',
      '/tag/%00/',
      '/event/a%00b/',
      '/organizer/%00/',
      '/events/category/a/%00/',
      `/event/${'a'.repeat(300)}/`,
    ]) {
      const missing = await page(path);
      assert.equal(missing.status, 404, path);
      assert.match(missing.headers.get('content-type') ?? '', /^text\/html/, path);
      assert.match(missing.html, /Page not found/, path);
    }
    const api = await server.request('/calendar/events/v1/no-such-route');
    assert.equal(api.status, 404);
    assert.equal(api.body.code, 'rest_no_route');
    const root = await fetch(`${server.url}/no-such-page/`);
    assert.equal(root.status, 404);
    assert.match(root.headers.get('content-type') ?? '', /^application\/json/);
    // Pages are cached per calendar version and tagged: a reader who has the page gets a 304.
    const first = await page('/events/list/');
    const etag = first.headers.get('etag');
    assert.ok(etag);
    const again = await page('/events/list/', { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.html, '');
    await makeEvent(server, admin, { title: 'Changes the calendar' });
    assert.equal((await page('/events/list/', { headers: { 'if-none-match': etag } })).status, 200);
    const css = await page('/events/assets/calendar.css');
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
  });

  it('tells crawlers to leave the editor, the embeds and the CalDAV collections alone', async () => {
    const robots = await page('/robots.txt');
    assert.equal(robots.status, 200);
    assert.equal(robots.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.deepEqual(robots.html.trim().split('\n'), ['User-agent: *', 'Disallow: /admin/', 'Disallow: /embed/', 'Disallow: /dav/']);
  });

  it('speaks Italian when asked by ?lang=it or Accept-Language, with content in Italian', async () => {
    const event = await makeEvent(server, admin, { title: 'Cooking class', start_date: at('17:00'), end_date: at('19:00') });
    const italian = await server.request(`${EVENTS}/${event.id}?translation_language=it`, {
      method: 'PATCH',
      auth: admin,
      body: { title: 'Corso di cucina', translation_language: 'it' },
    });
    assert.equal(italian.status, 200, italian.text);
    const byQuery = await page(`${pathOf(event.url)}?lang=it`);
    assertHtmlPage(byQuery, 'it', 'lang=it');
    assert.match(byQuery.html, /<h1>Corso di cucina<\/h1>/);
    assert.match(byQuery.html, /Aggiungi al calendario/);
    assert.match(byQuery.html, /"inLanguage":"it"/);
    const byHeader = await page(`/events/${day}/`, { headers: { 'accept-language': 'it-IT,it;q=0.9,en;q=0.5' } });
    assertHtmlPage(byHeader, 'it', 'Accept-Language');
    assert.match(byHeader.html, /Corso di cucina/);
    assert.match(byHeader.html, new RegExp(['domenica', 'lunedì', 'martedì', 'mercoledì', 'giovedì', 'venerdì', 'sabato'].join('|')));
    // fetch accepts gzip: the page comes compressed, which it varies by too.
    assert.equal(byHeader.headers.get('vary'), 'Accept-Language, Accept-Encoding');
    // ?lang wins over the header, and links keep it.
    const english = await page(`/events/${day}/?lang=en`, { headers: { 'accept-language': 'it' } });
    assertHtmlPage(english, 'en', 'lang=en');
    assert.match(english.html, /href="\/events\/list\/\?lang=en"/);
    const italianViews = await page(`/events/month/${month}/?lang=it`);
    assertHtmlPage(italianViews, 'it', 'month, it');
    assert.match(italianViews.html, /href="\/events\/list\/\?lang=it"/);
    assertHtmlPage(await page('/events/', { headers: { 'accept-language': 'de, fr;q=0.5' } }), 'en', 'unsupported languages');
  });
});

describe('calendar pages below a BASE_URL with a path', () => {
  it('serves the pages and their links under that path, as the permalinks say', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const server = await startTestServer({ PORT: String(port), BASE_URL: `http://127.0.0.1:${port}/site` });
    try {
      const event = await makeEvent(server, await server.admin(), { title: 'Under a path' });
      assert.match(event.url, new RegExp(`^http://127\\.0\\.0\\.1:${port}/site/event/under-a-path/$`));
      const response = await fetch(event.url);
      const html = await response.text();
      assert.equal(response.status, 200);
      assert.match(html, /<link rel="stylesheet" href="\/site\/events\/assets\/calendar\.css\?v=/);
      assert.match(html, /href="\/site\/events\/list\/"/);
      assert.equal((await fetch(`${server.url}/events/assets/calendar.css`)).status, 200);
      assert.equal((await fetch(`http://127.0.0.1:${port}/events/`)).status, 404);
      // A browser opening the site's root is sent to the calendar under the same path.
      const root = await fetch(`${server.url}/`, { headers: { accept: 'text/html,*/*;q=0.8' }, redirect: 'manual' });
      assert.equal(root.status, 303);
      assert.equal(root.headers.get('location'), '/site/events/');
    } finally {
      await server.close();
    }
  });
});
