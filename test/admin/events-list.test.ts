import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { makeEvent } from '../calendar/events.factories.ts';
import { makeVenue } from '../calendar/venues-organizers.factories.ts';
import { Browser } from './admin.helper.ts';

describe('the editor’s events list', () => {
  let server: TestServer;
  let author: Credentials;
  let contributor: Credentials;
  let venue: { id: number };
  let concert: { id: number };
  let draft: { id: number };

  before(async () => {
    server = await startTestServer();
    const admin = await server.admin();
    author = await server.createUser('author', 'list-author');
    contributor = await server.createUser('contributor', 'list-contributor');
    venue = await makeVenue(server, admin, { venue: 'Teatro Verdi' });
    concert = await makeEvent(server, admin, {
      title: 'Published concert',
      status: 'publish',
      venue: venue.id,
      start_date: '2031-03-01 20:00:00',
      end_date: '2031-03-01 22:00:00',
      timezone: 'Europe/Rome',
    });
    draft = await makeEvent(server, author, {
      title: 'Author draft',
      status: 'draft',
      start_date: '2031-02-01 10:00',
      end_date: '2031-02-01 11:00',
    });
    await makeEvent(server, contributor, {
      title: 'Contributor weekly',
      status: 'draft',
      start_date: '2031-01-06 09:00',
      end_date: '2031-01-06 10:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
    });
  });
  after(() => server.close());

  const titlesOf = (html: string) => [...html.matchAll(/<th scope="row"><a href="[^"]*">([^<]*)<\/a>/g)].map((match) => match[1]);

  it('lists every event an editor may see, drafts included, by start date, with its row details', async () => {
    const browser = new Browser(server.url);
    const admin = await server.admin();
    await browser.logIn(admin.username, 'admin-password-1');
    const list = await browser.get('/admin/events/');
    assert.equal(list.status, 200, list.text);
    // A series is listed by its occurrences, as the API lists it, each marked as repeating.
    const weekly = ['Contributor weekly', 'Contributor weekly', 'Contributor weekly'];
    assert.deepEqual(titlesOf(list.text), [...weekly, 'Author draft', 'Published concert']);
    assert.match(list.text, /2031-03-01 20:00 – 2031-03-01 22:00 CET/);
    assert.match(list.text, /<td data-label="Venue">Teatro Verdi<\/td>/);
    assert.match(list.text, /<td data-label="Author">list-author<\/td>/);
    assert.match(list.text, /<td data-label="Status">Draft<\/td>/);
    const latestFirst = await browser.get('/admin/events/?order=desc');
    assert.deepEqual(titlesOf(latestFirst.text), ['Published concert', 'Author draft', ...weekly]);
  });

  it('filters by status, venue, date range and words; empty fields mean no filter', async () => {
    const browser = new Browser(server.url);
    await browser.logIn('admin', 'admin-password-1');
    const get = async (query: string) => titlesOf((await browser.get(`/admin/events/?${query}`)).text);
    assert.deepEqual(await get('status=draft&category=&venue=&search=&from=2031-01-10&to=2031-02-10'), [
      'Contributor weekly',
      'Contributor weekly',
      'Author draft',
    ]);
    assert.deepEqual(await get(`venue=${venue.id}`), ['Published concert']);
    assert.deepEqual(await get('from=2031-02-01&to=2031-02-28'), ['Author draft']);
    assert.deepEqual(await get('search=concert'), ['Published concert']);
    const bad = await browser.get('/admin/events/?status=nonsense&from=tomorrow');
    assert.equal(bad.status, 400);
    assert.match(bad.text, /<code>status<\/code>/);
  });

  it('shows a contributor only what the API shows them', async () => {
    const browser = new Browser(server.url);
    await browser.logIn(contributor.username, contributor.password);
    const list = await browser.get('/admin/events/');
    assert.equal(list.status, 200);
    assert.deepEqual(titlesOf(list.text), ['Contributor weekly', 'Contributor weekly', 'Contributor weekly', 'Published concert']);
    assert.match(list.text, /<td data-label="Repeats">Yes<\/td>/, 'the series repeats');
  });

  it('offers Edit and a box to tick only on the rows the user may change, by each role', async () => {
    const rowOf = (html: string, title: string) => {
      const rows = [...html.matchAll(/<tr>\s*<td>(.*?)<\/td>\s*<th scope="row">(.*?)<\/th>/gs)];
      const row = rows.find((match) => match[2]!.includes(`${title}<`));
      assert.ok(row !== undefined, `${title} is listed`);
      return {
        ticks: row[1]!.includes('type="checkbox"'),
        edit: /\/admin\/events\/\d+\/edit/.test(row[2]!),
        link: row[2]!.includes('<a href'),
      };
    };
    const as = async (credentials: Credentials) => {
      const browser = new Browser(server.url);
      await browser.logIn(credentials.username, credentials.password);
      return browser;
    };
    const editor = await as(await server.createUser('editor', 'list-editor'));
    const everything = (await editor.get('/admin/events/')).text;
    for (const title of ['Published concert', 'Author draft', 'Contributor weekly'])
      assert.deepEqual(rowOf(everything, title), { ticks: true, edit: true, link: true }, `an editor changes ${title}`);

    const byAuthor = await as(author);
    const authorList = (await byAuthor.get('/admin/events/')).text;
    assert.deepEqual(rowOf(authorList, 'Author draft'), { ticks: true, edit: true, link: true });
    assert.deepEqual(rowOf(authorList, 'Published concert'), { ticks: false, edit: false, link: true }, 'its public page only');
    assert.equal((await byAuthor.get(`/admin/events/${concert.id}/edit`)).status, 403, 'the link it is not offered would be refused');

    const byContributor = await as(contributor);
    const contributorList = (await byContributor.get('/admin/events/')).text;
    assert.deepEqual(rowOf(contributorList, 'Contributor weekly'), { ticks: true, edit: true, link: true });
    assert.deepEqual(rowOf(contributorList, 'Published concert'), { ticks: false, edit: false, link: true });

    // Published by an editor, the author's own event is theirs to edit; a contributor's, once published, no longer is.
    const published = await makeEvent(server, await server.admin(), {
      title: 'Contributor published',
      status: 'publish',
      author: contributor.id,
      start_date: '2031-06-01 10:00',
      end_date: '2031-06-01 11:00',
    });
    assert.deepEqual(rowOf((await byContributor.get('/admin/events/')).text, 'Contributor published'), {
      ticks: false,
      edit: false,
      link: true,
    });
    assert.equal((await byContributor.get(`/admin/events/${published.id}/edit`)).status, 403);
    await server.request(`/calendar/events/v1/events/${published.id}?force=true`, { method: 'DELETE', auth: await server.admin() });
  });

  it('speaks Italian once chosen, and remembers it', async () => {
    const browser = new Browser(server.url);
    await browser.logIn(author.username, author.password);
    const italian = await browser.get('/admin/events/?lang=it');
    assert.match(italian.text, /<html lang="it">/);
    assert.match(italian.text, /<label for="from">Dal<\/label>/);
    const later = await browser.get('/admin/');
    assert.match(later.text, /<h1>Bacheca<\/h1>/);
  });

  it('publishes or trashes the selected events as the API lets the user, with the form token only', async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn(author.username, author.password);
    const ids = [String(draft.id), String(concert.id)];
    const statusOf = async (id: number) =>
      (await server.request(`/calendar/events/v1/events/${id}`, { auth: await server.admin() })).body.status;
    const refused = await fetch(`${server.url}/admin/events/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `almanac_session=${browser.cookies.get('almanac_session')}` },
      body: `action=publish&ids=${draft.id}`,
      redirect: 'manual',
    });
    assert.equal(refused.status, 403);
    assert.equal(await statusOf(draft.id), 'draft', 'nothing changed without the token');

    const form = new URLSearchParams({ csrf, action: 'publish' });
    for (const id of ids) form.append('ids', id);
    const answer = await fetch(`${server.url}/admin/events/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `almanac_session=${browser.cookies.get('almanac_session')}` },
      body: form.toString(),
      redirect: 'manual',
    });
    assert.equal(answer.status, 303);
    assert.equal(answer.headers.get('location'), '/admin/events/?done=1&failed=1', "an author may publish their own event, not another's");
    assert.equal(await statusOf(draft.id), 'publish');
    const notice = await browser.get('/admin/events/?done=1&failed=1');
    assert.match(notice.text, /1 changed; 1 left as they were/);

    const editor = new Browser(server.url);
    const editorCsrf = await editor.logIn('admin', 'admin-password-1');
    const trashed = await editor.post('/admin/events/bulk', { csrf: editorCsrf, action: 'trash', ids: String(draft.id) });
    assert.equal(trashed.headers.get('location'), '/admin/events/?done=1&failed=0');
    const trash = await editor.get('/admin/events/?status=trash');
    assert.deepEqual(titlesOf(trash.text), ['Author draft']);
    const bad = await editor.post('/admin/events/bulk', { csrf: editorCsrf, action: 'explode', ids: String(draft.id) });
    assert.equal(bad.status, 400);
  });

  it('filters by author for those who see everyone’s events, and restores from the trash as the API lets the user', async () => {
    const editor = new Browser(server.url);
    const csrf = await editor.logIn('admin', 'admin-password-1');
    const mine = await editor.get(`/admin/events/?author=${contributor.id}`);
    assert.equal(mine.status, 200, mine.text);
    assert.deepEqual(titlesOf(mine.text), ['Contributor weekly', 'Contributor weekly', 'Contributor weekly']);
    assert.equal((await editor.get('/admin/events/?author=0')).status, 400);
    const own = new Browser(server.url);
    await own.logIn(contributor.username, contributor.password);
    assert.doesNotMatch((await own.get('/admin/events/')).text, /<select id="author"/, 'a contributor is offered no list of users');

    const held = await makeEvent(server, await server.admin(), {
      title: 'Held over',
      status: 'publish',
      start_date: '2031-05-01 10:00',
      end_date: '2031-05-01 11:00',
    });
    await editor.post('/admin/events/bulk', { csrf, action: 'trash', ids: String(held.id) });
    const trash = await editor.get('/admin/events/?status=trash');
    assert.match(trash.text, /<option value="restore">Restore from the trash<\/option>/);
    const contributorCsrf = Browser.csrfOf((await own.get('/admin/events/')).text);
    const refused = await own.post('/admin/events/bulk', { csrf: contributorCsrf, action: 'restore', ids: String(held.id) });
    assert.equal(refused.headers.get('location'), '/admin/events/?done=0&failed=1', "a contributor may not restore another's event");
    const restored = await editor.post('/admin/events/bulk', { csrf, action: 'restore', ids: String(held.id) });
    assert.equal(restored.headers.get('location'), '/admin/events/?done=1&failed=0');
    const status = (await server.request(`/calendar/events/v1/events/${held.id}`, { auth: await server.admin() })).body.status;
    assert.equal(status, 'draft', 'a restored event comes back as a draft');
  });
});
