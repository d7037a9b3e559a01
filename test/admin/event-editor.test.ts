import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { makeEvent } from '../calendar/events.factories.ts';
import { picture } from '../calendar/media.factories.ts';
import { makeVenue } from '../calendar/venues-organizers.factories.ts';
import { Browser } from './admin.helper.ts';

const EVENTS = '/calendar/events/v1/events';

describe('the event editor', () => {
  let server: TestServer;
  let admin: Credentials;
  let author: Credentials;
  let contributor: Credentials;
  let editor: Browser;
  let venue: { id: number };

  /** A signed-in browser of `user`, with the form token of a page it opened. */
  const signedIn = async (user: Credentials) => {
    const browser = new Browser(server.url);
    await browser.logIn(user.username, user.password);
    return browser;
  };
  const formOf = async (browser: Browser, path: string) => {
    const page = await browser.get(path);
    assert.equal(page.status, 200, page.text);
    return { csrf: Browser.csrfOf(page.text), version: /name="version" value="(\d+)"/.exec(page.text)?.[1] ?? '', html: page.text };
  };
  const fields = {
    title: 'Jazz night',
    description: '<p>Bring friends.</p>',
    start: '2031-05-01T20:00',
    end: '2031-05-01T23:00',
    timezone: 'Europe/Rome',
    repeats: 'none',
    status: 'publish',
  };
  const countEvents = async () =>
    Number((await server.request(`${EVENTS}?status=any&start_date=1900-01-01&per_page=1`, { auth: admin })).headers.get('x-wp-total'));

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
    author = await server.createUser('author', 'form-author');
    contributor = await server.createUser('contributor', 'form-contributor');
    venue = await makeVenue(server, admin, { venue: 'Teatro Verdi' });
    editor = await signedIn(admin);
  });
  after(() => server.close());

  it('creates an event through the API’s service: a new venue, organizers, tags and an Italian translation', async () => {
    const { csrf } = await formOf(editor, '/admin/events/new');
    const saved = await editor.post('/admin/events/new', {
      ...fields,
      csrf,
      venue: 'Circolo Arci',
      venue_city: 'Bologna',
      organizers: 'Jazz Club',
      tags: 'jazz, live',
      cost: '10',
      featured: '1',
      title_it: 'Serata jazz',
      description_it: '<p>Porta gli amici.</p>',
    });
    assert.equal(saved.status, 303, saved.text);
    const id = Number(/\/admin\/events\/(\d+)\/edit\?saved=1$/.exec(saved.headers.get('location') ?? '')?.[1]);
    const event = (await server.request(`${EVENTS}/${id}`)).body;
    assert.equal(event.title, 'Jazz night');
    assert.equal(event.start_date, '2031-05-01 20:00:00');
    assert.equal(event.timezone, 'Europe/Rome');
    assert.equal(event.status, 'publish');
    assert.equal(event.featured, true);
    assert.equal(event.venue.venue, 'Circolo Arci');
    assert.equal(event.venue.city, 'Bologna');
    assert.deepEqual(
      event.organizer.map((organizer: { organizer: string }) => organizer.organizer),
      ['Jazz Club'],
    );
    assert.deepEqual(event.tags.map((tag: { name: string }) => tag.name).sort(), ['jazz', 'live']);
    const italian = (await server.request(`${EVENTS}/${id}?translation_language=it`)).body;
    assert.equal(italian.title, 'Serata jazz');
    // The form shows what was saved, in each language as typed.
    const form = await formOf(editor, `/admin/events/${id}/edit?saved=1`);
    assert.match(form.html, /value="Serata jazz"/);
    assert.match(form.html, /value="2031-05-01T20:00"/);
    assert.match(form.html, /role="status">Saved\./);
    // The cost as typed, without the currency symbol the pages add.
    assert.match(form.html, /id="cost" name="cost" type="text" value="10"/);
  });

  it('schedules a published event whose publication date is in the future', async () => {
    const { csrf } = await formOf(editor, '/admin/events/new');
    const saved = await editor.post('/admin/events/new', { ...fields, csrf, title: 'Announced later', date: '2030-01-01T09:00' });
    assert.equal(saved.status, 303, saved.text);
    const id = Number(/events\/(\d+)\/edit/.exec(saved.headers.get('location') ?? '')?.[1]);
    assert.equal((await server.request(`${EVENTS}/${id}`, { auth: admin })).body.status, 'future');
    const form = await formOf(editor, `/admin/events/${id}/edit`);
    assert.match(form.html, /id="date" name="date" type="datetime-local" value="2030-01-01T09:00"/);
  });

  it('uploads a featured image in the same form, through the media library', async () => {
    const before = await countEvents();
    const { csrf } = await formOf(editor, '/admin/events/new');
    const send = (form: Record<string, string>, file: Blob, filename: string) => {
      const body = new FormData();
      for (const [name, value] of Object.entries(form)) body.append(name, value);
      body.append('image_file', file, filename);
      const cookie = [...editor.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
      return fetch(`${server.url}/admin/events/new`, { method: 'POST', body, headers: { cookie }, redirect: 'manual' });
    };
    const notAnImage = await send({ ...fields, csrf, title: 'Poster night' }, new Blob(['hello']), 'poster.png');
    assert.equal(notAnImage.status, 422);
    const html = await notAnImage.text();
    assert.match(html, /id="error-image_file"/);
    assert.match(html, /value="Poster night"/);
    assert.equal((await send({ ...fields, csrf: 'wrong' }, new Blob(['x']), 'x.png')).status, 403);
    assert.equal(await countEvents(), before);
    const png = await picture(40, 30, 'png');
    const saved = await send({ ...fields, csrf, title: 'Poster night' }, new Blob([new Uint8Array(png)]), 'poster.png');
    assert.equal(saved.status, 303, await saved.text());
    const id = Number(/events\/(\d+)\/edit/.exec(saved.headers.get('location') ?? '')?.[1]);
    const event = (await server.request(`${EVENTS}/${id}`)).body;
    assert.equal(event.image.width, 40);
  });

  it('refuses a POST without the form token, and sends the signed-out to the login form', async () => {
    const before = await countEvents();
    const refused = await editor.post('/admin/events/new', { ...fields, csrf: 'wrong' });
    assert.equal(refused.status, 403);
    const anonymous = new Browser(server.url);
    const sent = await anonymous.get('/admin/events/new');
    assert.equal(sent.status, 303);
    assert.match(sent.headers.get('location') ?? '', /\/admin\/login\?next=/);
    assert.equal((await anonymous.post('/admin/events/new', { ...fields, csrf: 'x' })).status, 403);
    assert.equal(await countEvents(), before);
  });

  it('shows bad input again with every typed value kept, the message next to its field, and saves nothing', async () => {
    const before = await countEvents();
    const { csrf } = await formOf(editor, '/admin/events/new');
    const cases: [Record<string, string>, string][] = [
      [{ start: '', title: 'Kept title' }, 'start'],
      [{ start: '2031-13-45T25:00', title: 'Kept title' }, 'start'],
      [{ start: '2031-05-02T20:00', end: '2031-05-01T20:00', title: 'Kept title' }, 'end'],
      [{ repeats: 'custom', rrule: 'FREQ=SOMETIMES', title: 'Kept title' }, 'repeats'],
      [{ venue: '999999', title: 'Kept title' }, 'venue'],
      [{ title: '' }, 'title'],
      [{ repeats: 'weekly', ends: 'count', count: 'many', title: 'Kept title' }, 'count'],
    ];
    for (const [changes, field] of cases) {
      const answer = await editor.post('/admin/events/new', { ...fields, csrf, cost: '12 €', ...changes });
      assert.equal(answer.status, 422, `${field}: ${answer.text.slice(0, 200)}`);
      assert.match(answer.text, new RegExp(`id="error-${field}"`), field);
      assert.match(answer.text, new RegExp(`<a href="#${field}">`), field);
      assert.match(answer.text, /value="12 €"/);
      if (changes.title !== '') assert.match(answer.text, /value="Kept title"/);
      assert.match(answer.text, new RegExp(`aria-describedby="error-${field}`), field);
    }
    // In Italian (remembered by that browser only).
    const italian = await signedIn(admin);
    const italianForm = await formOf(italian, '/admin/events/new?lang=it');
    const empty = await italian.post('/admin/events/new', { ...fields, csrf: italianForm.csrf, title: '' });
    assert.match(empty.text, /<p class="error" id="error-title">Questo campo è obbligatorio\.<\/p>/);
    assert.equal(await countEvents(), before);
  });

  it('gives a contributor "Submit for review": the event waits for an editor, who publishes it', async () => {
    const browser = await signedIn(contributor);
    const { csrf, html } = await formOf(browser, '/admin/events/new');
    assert.match(html, /Submit for review/);
    assert.doesNotMatch(html, /value="publish"/);
    // Sent anyway, "publish" is the API's: a review request.
    const saved = await browser.post('/admin/events/new', { ...fields, csrf, title: 'Community picnic', status: 'publish' });
    assert.equal(saved.status, 303, saved.text);
    const id = Number(/events\/(\d+)\/edit/.exec(saved.headers.get('location') ?? '')?.[1]);
    assert.equal((await server.request(`${EVENTS}/${id}`, { auth: admin })).body.status, 'pending');
    const form = await formOf(editor, `/admin/events/${id}/edit`);
    const published = await editor.post(`/admin/events/${id}/edit`, {
      ...fields,
      csrf: form.csrf,
      version: form.version,
      title: 'Community picnic',
    });
    assert.equal(published.status, 303, published.text);
    assert.equal((await server.request(`${EVENTS}/${id}`)).body.status, 'publish');
  });

  it('previews a draft’s public page for those who may edit it, and for no one else', async () => {
    const draft = await makeEvent(server, admin, { title: 'Secret gala', status: 'draft' });
    const preview = await editor.get(`/admin/events/${draft.id}/preview`);
    assert.equal(preview.status, 200, preview.text.slice(0, 300));
    assert.match(preview.text, /<h1[^>]*>Secret gala<\/h1>/);
    assert.match(preview.headers.get('cache-control') ?? '', /no-store/);
    assert.match(preview.text, /name="robots" content="noindex/);
    assert.equal((await (await signedIn(author)).get(`/admin/events/${draft.id}/preview`)).status, 403);
    assert.equal((await new Browser(server.url).get(`/admin/events/${draft.id}/preview`)).status, 303);
  });

  it('lets an author edit only their own events', async () => {
    const others = await makeEvent(server, admin, { title: 'Admin event', status: 'publish' });
    const browser = await signedIn(author);
    assert.equal((await browser.get(`/admin/events/${others.id}/edit`)).status, 403);
    const { csrf } = await formOf(browser, '/admin/events/new');
    const refused = await browser.post(`/admin/events/${others.id}/edit`, { ...fields, csrf, title: 'Taken over' });
    assert.equal(refused.status, 403);
    assert.equal((await server.request(`${EVENTS}/${others.id}`)).body.title, 'Admin event');
    const own = await browser.post('/admin/events/new', { ...fields, csrf, title: 'Author gig', venue: String(venue.id) });
    assert.equal(own.status, 303, own.text);
    const id = Number(/events\/(\d+)\/edit/.exec(own.headers.get('location') ?? '')?.[1]);
    const event = (await server.request(`${EVENTS}/${id}`)).body;
    assert.equal(event.status, 'publish');
    assert.equal(event.venue.id, venue.id);
  });

  it('refuses to save over a newer version, keeping the text and naming what changed', async () => {
    const event = await makeEvent(server, admin, {
      title: 'Choir rehearsal',
      status: 'publish',
      ...{ start_date: '2031-06-01 18:00', end_date: '2031-06-01 19:00' },
    });
    const second = await signedIn(admin);
    const mine = await formOf(editor, `/admin/events/${event.id}/edit`);
    const theirs = await formOf(second, `/admin/events/${event.id}/edit`);
    const first = await editor.post(`/admin/events/${event.id}/edit`, {
      ...fields,
      csrf: mine.csrf,
      version: mine.version,
      title: 'Choir rehearsal (moved)',
    });
    assert.equal(first.status, 303, first.text);
    const refused = await second.post(`/admin/events/${event.id}/edit`, {
      ...fields,
      csrf: theirs.csrf,
      version: theirs.version,
      title: 'Choir rehearsal, bring scores',
    });
    assert.equal(refused.status, 409, refused.text.slice(0, 300));
    assert.match(refused.text, /Someone else saved this event/);
    assert.match(refused.text, /value="Choir rehearsal, bring scores"/);
    assert.match(refused.text, /Fields that now differ from yours: Title/);
    assert.match(refused.text, /Reload the saved version/);
    assert.equal((await server.request(`${EVENTS}/${event.id}`)).body.title, 'Choir rehearsal (moved)');
  });

  it('previews the next dates of the Repeats builder without saving anything', async () => {
    const before = await countEvents();
    const { csrf } = await formOf(editor, '/admin/events/new');
    const repeats = { repeats: 'monthly', monthly: 'weekday', ends: 'count', count: '3', exceptions: '2031-06-10' };
    const preview = await editor.post('/admin/events/new', { ...fields, ...repeats, csrf, start: '2031-05-13T20:00', preview: '1' });
    assert.equal(preview.status, 200, preview.text.slice(0, 300));
    // The second Tuesday of each month, less the exception, as typed values stay.
    const dates = [...preview.text.matchAll(/<time datetime="[^"]*">([^<]*)<\/time>/g)].map((match) => match[1]);
    assert.deepEqual(dates, ['2031-05-13 20:00', '2031-07-08 20:00']);
    assert.match(preview.text, /value="2031-06-10"/);
    const bad = await editor.post('/admin/events/new', { ...fields, csrf, repeats: 'custom', rrule: 'FREQ=WEEKLY;COUNT=0', preview: '1' });
    assert.match(bad.text, /<div id="preview-dates" role="status">\s*<p class="error">/);
    assert.equal(await countEvents(), before);
  });

  it('builds a weekly series with an exception, and edits "this and following" from an occurrence', async () => {
    const { csrf } = await formOf(editor, '/admin/events/new');
    const saved = await editor.post('/admin/events/new', {
      ...fields,
      csrf,
      title: 'Yoga',
      start: '2031-09-01T18:00',
      end: '2031-09-01T19:00',
      repeats: 'weekly',
      byday: 'MO',
      ends: 'count',
      count: '6',
      exceptions: '2031-09-15',
    });
    assert.equal(saved.status, 303, saved.text);
    const id = Number(/events\/(\d+)\/edit/.exec(saved.headers.get('location') ?? '')?.[1]);
    const series = (await server.request(`${EVENTS}/${id}`)).body;
    assert.deepEqual(series.recurrence, ['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=6', 'EXDATE;VALUE=DATE:20310915']);
    const list = await server.request(`${EVENTS}?start_date=2031-09-01&end_date=2031-10-31&search=Yoga`);
    const starts = list.body.events.map((event: { start_date: string }) => event.start_date.slice(0, 10));
    assert.deepEqual(starts, ['2031-09-01', '2031-09-08', '2031-09-22', '2031-09-29', '2031-10-06']);
    const third = list.body.events[2];
    const form = await formOf(editor, `/admin/events/${third.id}/edit`);
    assert.match(form.html, /This and following/);
    const following = await editor.post(`/admin/events/${third.id}/edit`, {
      ...fields,
      csrf: form.csrf,
      version: form.version,
      scope: 'following',
      title: 'Yoga (new room)',
      start: '2031-09-22T18:00',
      end: '2031-09-22T19:00',
      repeats: 'custom',
      rrule: series.recurrence.join('\n'),
    });
    assert.equal(following.status, 303, following.text.slice(0, 500));
    const after = await server.request(`${EVENTS}?start_date=2031-09-01&end_date=2031-10-31&search=Yoga`);
    assert.deepEqual(
      after.body.events.map((event: { title: string }) => event.title),
      ['Yoga', 'Yoga', 'Yoga (new room)', 'Yoga (new room)', 'Yoga (new room)'],
    );
  });
});
