import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/platform/errors.ts';
import { invalidParam } from '../../src/calendar/common/wire.ts';
import { refusalErrors } from '../../src/calendar/admin/admin.editor.form.ts';
import { fieldErrorsOf } from '../../src/calendar/admin/admin.forms.ts';
import { ADMIN_DICTIONARIES } from '../../src/calendar/admin/admin.i18n.ts';
import { REFUSALS_IT } from '../../src/calendar/admin/admin.refusals.i18n.ts';
import type { AdminPage } from '../../src/calendar/admin/admin.views.ts';
import { CreateEventBodySchema } from '../../src/calendar/events/events.schemas.ts';
import { CreateOrganizerBodySchema } from '../../src/calendar/organizers/organizers.schemas.ts';
import { createBodySchema } from '../../src/calendar/terms/terms.schemas.ts';
import { CATEGORIES } from '../../src/calendar/terms/terms.taxonomy.ts';
import { CreateVenueBodySchema } from '../../src/calendar/venues/venues.schemas.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { makeVenue } from '../calendar/venues-organizers.factories.ts';
import { Browser } from './admin.helper.ts';

const CATEGORIES_API = '/calendar/events/v1/categories';

/** The text of an element of a page, its entities read back. */
function textOf(html: string, id: string): string | undefined {
  const found = new RegExp(`id="${id}">([^<]*)<`).exec(html)?.[1];
  return found
    ?.replaceAll('&#39;', "'")
    .replaceAll('&apos;', "'")
    .replaceAll('&quot;', '"')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

describe('what the API refuses, said in the editor’s language', () => {
  let server: TestServer;
  let italian: Browser;
  let english: Browser;
  let csrf: string;
  let englishCsrf: string;

  before(async () => {
    server = await startTestServer();
    italian = new Browser(server.url);
    csrf = await italian.logIn('admin', 'admin-password-1');
    await italian.get('/admin/?lang=it');
    english = new Browser(server.url);
    englishCsrf = await english.logIn('admin', 'admin-password-1');
  });
  after(() => server.close());

  const event = {
    title: 'Concerto',
    start: '2031-05-01T20:00',
    end: '2031-05-01T23:00',
    timezone: 'Europe/Rome',
    repeats: 'none',
    status: 'draft',
  };

  it('shows the event form’s refusals in Italian, never the API’s English', async () => {
    const cases: [Record<string, string>, string, string, string | undefined][] = [
      [{ start: '2031-05-02T20:00' }, 'end', 'rest_invalid_param:end_date', 'The end date must not be before the start date.'],
      [{ repeats: 'custom', rrule: 'FREQ=SOMETIMES' }, 'repeats', 'rest_invalid_param:recurrence', undefined],
      [{ website: 'ftp://example.org' }, 'website', 'rest_invalid_param:website', 'Invalid URL.'],
      [{ timezone: 'Mars/Olympus_Mons' }, 'timezone', 'rest_invalid_param:timezone', 'Unknown time zone.'],
      [{ image: '999999' }, 'image', 'rest_invalid_param:image', 'The image does not exist.'],
      [{ venue: '999999' }, 'venue', 'rest_invalid_param:venue', undefined],
    ];
    const form = await italian.get('/admin/events/new');
    const token = Browser.csrfOf(form.text);
    for (const [changes, field, key, english] of cases) {
      const answer = await italian.post('/admin/events/new', { ...event, csrf: token, ...changes });
      assert.equal(answer.status, 422, `${field}: ${answer.text.slice(0, 300)}`);
      assert.equal(textOf(answer.text, `error-${field}`), REFUSALS_IT[key], field);
      if (english !== undefined) assert.doesNotMatch(answer.text, new RegExp(english), field);
    }
    // The English page says what the API says.
    const englishForm = await english.get('/admin/events/new');
    const answer = await english.post('/admin/events/new', { ...event, csrf: Browser.csrfOf(englishForm.text), start: '2031-05-02T20:00' });
    assert.equal(textOf(answer.text, 'error-end'), 'The end date must not be before the start date.');
  });

  it('shows the venue and organizer forms’ refusals in Italian', async () => {
    const venue = await italian.post('/admin/venues/new', { csrf, venue: 'Caffè Pedrocchi', website: 'ftp://x' });
    assert.equal(venue.status, 400);
    assert.equal(textOf(venue.text, 'field-website-error'), REFUSALS_IT['rest_invalid_param:website']);
    const organizer = await italian.post('/admin/organizers/new', { csrf, organizer: 'Pro Loco', email: 'nope' });
    assert.equal(organizer.status, 400);
    assert.equal(textOf(organizer.text, 'field-email-error'), REFUSALS_IT['rest_invalid_param:email']);
    const existing = await makeVenue(server, await server.admin(), { venue: 'Teatro Olimpico' });
    const edit = await italian.post(`/admin/venues/${existing.id}/edit`, {
      csrf,
      venue: 'Teatro Olimpico',
      website: 'javascript:alert(1)',
    });
    assert.equal(textOf(edit.text, 'field-website-error'), REFUSALS_IT['rest_invalid_param:website']);
    // In English, the API's own reason where it gives one, the form's words where it does not.
    const email = await english.post('/admin/organizers/new', { csrf: englishCsrf, organizer: 'Pro Loco', email: 'nope' });
    assert.equal(textOf(email.text, 'field-email-error'), ADMIN_DICTIONARIES.en.form.invalid);
  });

  it('shows the category form’s refusals in Italian: a name too long, a taken slug or name, a parent under itself', async () => {
    const music = await italian.post('/admin/categories/new', { csrf, name: 'Musica', slug: 'musica' });
    assert.equal(music.status, 303, music.text);
    const id = (await server.request(`${CATEGORIES_API}?hide_empty=false&search=Musica`)).body.categories[0].id as number;
    const long = await italian.post('/admin/categories/new', { csrf, name: 'T'.repeat(201) });
    assert.equal(long.status, 400);
    assert.equal(textOf(long.text, 'field-name-error'), REFUSALS_IT['rest_invalid_param:name']);
    const slug = await italian.post('/admin/categories/new', { csrf, name: 'Danza', slug: 'musica' });
    assert.equal(textOf(slug.text, 'field-slug-error'), REFUSALS_IT.duplicate_term_slug);
    const name = await italian.post('/admin/categories/new', { csrf, name: 'musica' });
    assert.equal(textOf(name.text, 'field-name-error'), REFUSALS_IT.term_exists);
    const itself = await italian.post(`/admin/categories/${id}/edit`, { csrf, name: 'Musica', slug: 'musica', parent: String(id) });
    assert.equal(itself.status, 400);
    assert.equal(textOf(itself.text, 'field-parent-error'), REFUSALS_IT['rest_invalid_param:parent']);
    assert.doesNotMatch(itself.text, /A category cannot be its own parent/);
    assert.equal((await server.request(`${CATEGORIES_API}/${id}`)).body.parent, 0, 'nothing changed');
  });
});

describe('the Italian words of refusals', () => {
  const page = { language: 'it', t: ADMIN_DICTIONARIES.it } as AdminPage;
  const ENGLISH = 'An English reason the API gives.';

  it('say every listed refusal in Italian on the event form and on every other form, not the API’s English', () => {
    for (const [key, words] of Object.entries(REFUSALS_IT)) {
      const [code, param] = key.split(':') as [string, string | undefined];
      const refusal = param === undefined ? new AppError(400, code, ENGLISH) : invalidParam(param, ENGLISH);
      const field = param ?? '';
      const onEventForm = [...(refusalErrors(refusal, 'it')?.values() ?? [])];
      assert.deepEqual(onEventForm, [words], `${key} on the event form`);
      if (param !== undefined) assert.deepEqual(fieldErrorsOf(refusal, page), { [field]: words }, `${key} on a form`);
      assert.notEqual(words, ENGLISH);
    }
  });

  it('cover every parameter the event, venue, organizer and category forms send', () => {
    // What no form of the editor sends: dates in UTC, a map link, listing flags, the language of a write, coordinates.
    const notSent = new Set(['date_utc', 'show_map_link', 'hide_from_listings', 'sticky', 'translation_language', 'province', 'state']);
    const schemas = [CreateEventBodySchema, CreateVenueBodySchema, CreateOrganizerBodySchema, createBodySchema(CATEGORIES)];
    for (const schema of schemas) {
      for (const param of Object.keys(schema.properties)) {
        if (notSent.has(param) || param.startsWith('geo_')) continue;
        assert.ok(REFUSALS_IT[`rest_invalid_param:${param}`] !== undefined, `an Italian text for ${param}`);
      }
    }
  });
});
