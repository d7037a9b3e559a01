import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { makeOrganizer, makeVenue, ORGANIZERS, VENUES } from '../calendar/venues-organizers.factories.ts';
import { Browser } from './admin.helper.ts';

describe('the editor’s venues and organizers', () => {
  let server: TestServer;
  let contributor: Credentials;
  let admin: Credentials;

  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
    contributor = await server.createUser('contributor', 'places-contributor');
  });
  after(() => server.close());

  const namesOf = (html: string) => [...html.matchAll(/<th scope="row"><a href="[^"]*">([^<]*)<\/a>/g)].map((match) => match[1]);

  it('adds a venue through the API’s rules, and lists, searches and pages them', async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn('admin', 'admin-password-1');
    const form = await browser.get('/admin/venues/new');
    assert.equal(form.status, 200, form.text);
    assert.match(form.text, /<label for="field-venue">Name/);
    assert.match(form.text, /<input type="checkbox" id="field-show_map" name="show_map" value="1" checked>/);
    const added = await browser.post('/admin/venues/new', {
      csrf,
      venue: 'Teatro Olimpico',
      address: 'Piazza Matteotti 11',
      city: 'Vicenza',
      stateprovince: 'VI',
      zip: '36100',
      country: 'Italy',
      phone: '+39 0444 964380',
      website: 'https://www.teatrolimpicovicenza.it',
      description: 'Palladio’s last work.',
    });
    assert.equal(added.status, 303, added.text);
    assert.equal(added.headers.get('location'), '/admin/venues/?saved=1');
    const api = await server.request(`${VENUES}?search=Olimpico`, { auth: admin });
    const [venue] = api.body.venues;
    assert.equal(venue.venue, 'Teatro Olimpico');
    assert.equal(venue.city, 'Vicenza');
    assert.equal(venue.zip, '36100');
    assert.equal(venue.show_map, false, 'an unticked box is a no');

    for (let n = 0; n < 20; n += 1) await makeVenue(server, admin, { venue: `Hall ${String(n).padStart(2, '0')}` });
    const list = await browser.get('/admin/venues/?saved=1');
    assert.match(list.text, /role="status">Saved\./);
    assert.match(list.text, /21 found/);
    assert.equal(namesOf(list.text).length, 20);
    assert.match(list.text, /rel="next"/);
    const second = await browser.get('/admin/venues/?page=2');
    assert.equal(namesOf(second.text).length, 1);
    assert.deepEqual(namesOf((await browser.get('/admin/venues/?search=Olimpico')).text), ['Teatro Olimpico']);
  });

  it('re-renders a refused form with every typed value and the message beside its field, and changes nothing', async () => {
    const browser = new Browser(server.url);
    const csrf = await browser.logIn('admin', 'admin-password-1');
    const before = (await server.request(VENUES, { auth: admin })).headers.get('x-wp-total');
    const refused = await browser.post('/admin/venues/new', { csrf, venue: '', city: 'Padova', website: 'not a url' });
    assert.equal(refused.status, 400);
    assert.match(refused.text, /<input type="text" id="field-city" name="city" value="Padova">/);
    assert.match(refused.text, /id="field-venue" name="venue" value="" aria-describedby="field-venue-error" aria-invalid="true" required>/);
    assert.match(refused.text, /<span class="error" id="field-venue-error">This is required\.|This value is not valid\./);
    const website = await browser.post('/admin/venues/new', { csrf, venue: 'Caffè Pedrocchi', website: 'ftp://x' });
    assert.equal(website.status, 400);
    assert.match(website.text, /id="field-website-error"/);
    assert.match(website.text, /value="Caffè Pedrocchi"/);
    assert.equal((await server.request(VENUES, { auth: admin })).headers.get('x-wp-total'), before, 'nothing was added');
    const stale = await browser.post('/admin/venues/new', { csrf: 'wrong', venue: 'Sneaky' });
    assert.equal(stale.status, 403);
    assert.equal((await server.request(VENUES, { auth: admin })).headers.get('x-wp-total'), before);
  });

  it('edits an organizer, trashes it, then deletes it for good', async () => {
    const organizer = await makeOrganizer(server, admin, { organizer: 'Pro Loco', email: 'info@proloco.example' });
    const browser = new Browser(server.url);
    const csrf = await browser.logIn('admin', 'admin-password-1');
    const form = await browser.get(`/admin/organizers/${organizer.id}/edit?lang=it`);
    assert.match(form.text, /<label for="field-organizer">Nome/);
    assert.match(form.text, /value="info@proloco.example"/);
    const bad = await browser.post(`/admin/organizers/${organizer.id}/edit`, { csrf, organizer: 'Pro Loco Vicenza', email: 'nope' });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /value="Pro Loco Vicenza"/);
    assert.match(bad.text, /Questo valore non è valido/);
    assert.equal((await server.request(`${ORGANIZERS}/${organizer.id}`, { auth: admin })).body.organizer, 'Pro Loco');
    const saved = await browser.post(`/admin/organizers/${organizer.id}/edit`, { csrf, organizer: 'Pro Loco Vicenza', email: '' });
    assert.equal(saved.headers.get('location'), `/admin/organizers/${organizer.id}/edit?saved=1`);
    const read = (await server.request(`${ORGANIZERS}/${organizer.id}`, { auth: admin })).body;
    assert.equal(read.organizer, 'Pro Loco Vicenza');
    assert.equal(read.email, undefined);
    assert.equal((await browser.post(`/admin/organizers/${organizer.id}/delete`, { csrf })).status, 303);
    const trash = await browser.get('/admin/organizers/?status=trash');
    assert.deepEqual(
      [...trash.text.matchAll(/<th scope="row">([^<]*)<\/th>/g)].map((match) => match[1]),
      ['Pro Loco Vicenza'],
    );
    assert.match(
      trash.text,
      new RegExp(`action="/admin/organizers/${organizer.id}/delete"><input[^>]*><button[^>]*>Elimina definitivamente`),
    );
    assert.equal((await browser.post(`/admin/organizers/${organizer.id}/delete`, { csrf })).status, 303);
    assert.equal((await server.request(`${ORGANIZERS}/${organizer.id}`, { auth: admin })).status, 400, 'gone for good');
  });

  it('lets a contributor add a venue for review but not edit or trash another’s', async () => {
    const theirs = await makeVenue(server, admin, { venue: 'Basilica Palladiana' });
    const browser = new Browser(server.url);
    const csrf = await browser.logIn(contributor.username, contributor.password);
    const added = await browser.post('/admin/venues/new', { csrf, venue: 'Contributor corner' });
    assert.equal(added.status, 303, added.text);
    const mine = (await server.request(`${VENUES}?search=Contributor`, { auth: admin })).body.venues[0];
    assert.equal(mine.status, 'draft', 'as the API files a contributor’s venue');
    const edit = await browser.post(`/admin/venues/${theirs.id}/edit`, { csrf, venue: 'Renamed' });
    assert.equal(edit.status, 403);
    assert.equal((await browser.post(`/admin/venues/${theirs.id}/delete`, { csrf })).status, 403);
    assert.equal((await server.request(`${VENUES}/${theirs.id}`, { auth: admin })).body.venue, 'Basilica Palladiana');
    const list = (await browser.get('/admin/venues/')).text;
    assert.ok(namesOf(list).includes('Contributor corner'), 'their own venue links to its form');
    assert.ok(!namesOf(list).includes('Basilica Palladiana'), 'another’s is no link to a form they may not save');
    assert.match(list, /<th scope="row">Basilica Palladiana<\/th>/);
    const menu = await browser.get('/admin/');
    assert.match(menu.text, /href="\/admin\/venues\/"/);
    assert.doesNotMatch(menu.text, /href="\/admin\/settings"/, 'the menu offers only what the role may use');
  });
});
