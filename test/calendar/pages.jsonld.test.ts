/**
 * The JSON-LD of event pages against schema.org's Event shape as search
 * engines read it (Google's Event structured data): the types, their
 * properties and value kinds, the enumerations as schema.org URLs, dates
 * with offsets. Nothing unknown is allowed, so a new property is a
 * decision. The API's own `json_ld` keeps the reference's quirks
 * for its clients; the page says the same facts properly.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { makeEvent, utcDay } from './events.factories.ts';

const text = { type: 'string', minLength: 1 };
const url = { type: 'string', pattern: '^https?://[^\\s]+$' };
const instant = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}([+-]\\d{2}:\\d{2}|Z)$' };
const schemaOrg = (...names: string[]) => ({ enum: names.map((name) => `https://schema.org/${name}`) });

const PostalAddress = {
  type: 'object',
  required: ['@type'],
  properties: {
    '@type': { const: 'PostalAddress' },
    streetAddress: text,
    addressLocality: text,
    addressRegion: text,
    postalCode: text,
    addressCountry: text,
  },
  additionalProperties: false,
};
const Place = {
  type: 'object',
  required: ['@type', 'name', 'address'],
  properties: {
    '@type': { const: 'Place' },
    name: text,
    description: text,
    url,
    address: PostalAddress,
    geo: {
      type: 'object',
      required: ['@type', 'latitude', 'longitude'],
      properties: {
        '@type': { const: 'GeoCoordinates' },
        latitude: { type: 'number', minimum: -90, maximum: 90 },
        longitude: { type: 'number', minimum: -180, maximum: 180 },
      },
      additionalProperties: false,
    },
    telephone: text,
    sameAs: url,
  },
  additionalProperties: false,
};
const Agent = {
  type: 'object',
  required: ['@type', 'name'],
  properties: {
    '@type': { enum: ['Person', 'Organization'] },
    name: text,
    description: text,
    url,
    telephone: text,
    email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' },
    sameAs: url,
  },
  additionalProperties: false,
};
const Offer = {
  type: 'object',
  required: ['@type', 'price', 'priceCurrency', 'availability'],
  properties: {
    '@type': { const: 'Offer' },
    price: { type: 'string', pattern: '^\\d+(\\.\\d+)?$' },
    priceCurrency: { type: 'string', pattern: '^[A-Z]{3}$' },
    availability: schemaOrg('InStock', 'SoldOut', 'PreOrder', 'OnlineOnly', 'LimitedAvailability'),
    validFrom: instant,
    url,
    category: text,
  },
  additionalProperties: false,
};
const Event = {
  type: 'object',
  required: ['@context', '@type', 'name', 'startDate', 'location'],
  properties: {
    '@context': { const: 'https://schema.org' },
    '@type': { const: 'Event' },
    inLanguage: { type: 'string', pattern: '^[a-z]{2}(-[A-Z]{2})?$' },
    name: text,
    description: text,
    image: url,
    url,
    eventAttendanceMode: schemaOrg('OfflineEventAttendanceMode', 'OnlineEventAttendanceMode', 'MixedEventAttendanceMode'),
    eventStatus: schemaOrg('EventScheduled', 'EventCancelled', 'EventPostponed', 'EventRescheduled', 'EventMovedOnline'),
    startDate: instant,
    endDate: instant,
    location: Place,
    organizer: Agent,
    performer: Agent,
    offers: Offer,
  },
  additionalProperties: false,
};

describe('event pages: JSON-LD as search engines validate it', () => {
  let server: TestServer;
  let admin: Credentials;
  const validate = new Ajv({ allErrors: true, strict: true }).compile(Event);
  before(async () => {
    server = await startTestServer();
    admin = await server.admin();
  });
  after(async () => server.close());

  const jsonLdOf = async (eventUrl: string, language = ''): Promise<any> => {
    const html = await (await fetch(`${server.url}${new URL(eventUrl).pathname}${language}`)).text();
    const match = /<script type="application\/ld\+json">([^<]*)<\/script>/.exec(html);
    assert.ok(match, 'the page has JSON-LD');
    return JSON.parse(match[1] as string);
  };
  const check = (ld: unknown, label: string) =>
    assert.ok(validate(ld), `${label}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(ld)}`);

  it('gives a complete event the Event shape, with offers, organizer and place', async () => {
    const day = utcDay(10);
    const event = await makeEvent(server, admin, {
      title: 'Harbour jazz & "blues"',
      description: 'An evening <b>by the sea</b>.',
      start_date: `${day} 20:30:00`,
      end_date: `${day} 23:00:00`,
      timezone: 'Europe/Rome',
      venue: {
        venue: 'Molo 5',
        address: 'Via del Porto 5',
        city: 'Genova',
        zip: '16126',
        country: 'Italy',
        phone: '+39 010 555',
        website: 'https://molo5.example',
        geo_lat: 44.41,
        geo_lng: 8.93,
      },
      organizer: [{ organizer: 'Jazz Club', email: 'info@jazz.example', website: 'https://jazz.example', phone: '+39 010 556' }],
      image: 'https://cdn.example/jazz.jpg',
      cost: '€15',
    });
    const ld = await jsonLdOf(event.url);
    check(ld, 'complete');
    assert.equal(ld.name, 'Harbour jazz & "blues"');
    assert.match(ld.startDate, /T20:30:00\+0[12]:00$/);
    assert.deepEqual(ld.offers.price, '15');
    assert.equal(ld.offers.priceCurrency, 'EUR');
    assert.equal(ld.location.geo.latitude, 44.41);
    assert.equal(ld.organizer.name, 'Jazz Club');
    check(await jsonLdOf(event.url, '?lang=it'), 'in Italian');
    // The API keeps the reference's own JSON-LD, quirks included.
    const api = (await server.request(`/calendar/events/v1/events/${event.id}`)).body.json_ld;
    assert.equal(api.performer, 'Organization');
    assert.equal(api.offers.availability, 'inStock');
    assert.equal(api.offers.priceCurrency, 'USD');
  });

  it('gives a bare event (no venue, organizer, cost or image) a shape search engines accept, or says what it lacks', async () => {
    const day = utcDay(11);
    const event = await makeEvent(server, admin, { title: 'Plain', start_date: `${day} 10:00:00`, end_date: `${day} 11:00:00` });
    const ld = await jsonLdOf(event.url);
    // Google's rich results need a location: without a venue there is none to give (docs/calendar-pages.md).
    assert.equal(ld.location, undefined);
    check({ ...ld, location: { '@type': 'Place', name: 'x', address: { '@type': 'PostalAddress' } } }, 'bare, but for the place');
  });
});
