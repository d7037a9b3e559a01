import Type, { type Static, type TObject } from 'typebox';
import { ModifiedQueryProperties } from '../posts/posts.modified.ts';
import { POST_STATUSES } from '../posts/posts.access.ts';
import { LanguageQuerySchema } from '../common/schemas.ts';
import { archiveEnvelopeSchema } from '../common/pagination.ts';
import { ListSchema, MAX_ID, NO_NUL_PATTERN, SearchSchema, StringOrListSchema, TextSchema, WpBooleanSchema } from '../common/wire.ts';
import { CreateOrganizerBodySchema, OrganizerSchema } from '../organizers/organizers.schemas.ts';
import { EmbeddedTermSchema } from '../terms/terms.schemas.ts';
import { CreateVenueBodySchema, VenueSchema } from '../venues/venues.schemas.ts';
import { ImageObjectSchema } from '../common/images.ts';
import { MAX_LINE_LENGTH, MAX_LINES } from '../recurrence/recurrence.grammar.ts';

/** Largest `per_page`; larger values are capped, as the reference does. */
export const MAX_PER_PAGE = 50;
export const DEFAULT_PER_PAGE = 10;
/** Default `geoloc_radius`, in kilometres. */
export const DEFAULT_GEOLOC_RADIUS_KM = 50;

const DateArg = (description: string) =>
  Type.String({
    minLength: 1,
    description: `${description}. Formats: YYYY-MM-DD[ HH:MM[:SS]], ISO 8601, a UNIX timestamp, or relative (now, today, tomorrow 9am, +5 weeks, next wednesday 4pm)`,
  });

export const ListEventsQuerySchema = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1, description: 'The archive page to return' })),
  per_page: Type.Optional(
    Type.Integer({
      minimum: 1,
      default: DEFAULT_PER_PAGE,
      description: `The number of events to return on each page (at most ${MAX_PER_PAGE}; larger values are capped)`,
    }),
  ),
  start_date: Type.Optional(DateArg('Events that start on or after this date (default: events still running today)')),
  end_date: Type.Optional(DateArg('Events that end on or before this date (default: starting within 24 months)')),
  search: Type.Optional(SearchSchema('Words that must all appear in the title, excerpt or description')),
  categories: Type.Optional(ListSchema('Event categories by id, slug or name (CSV or array; OR-ed, children included)')),
  tags: Type.Optional(ListSchema('Event tags by id, slug or name (CSV or array; OR-ed)')),
  venue: Type.Optional(ListSchema('Venue ids (CSV or array; OR-ed)')),
  organizer: Type.Optional(ListSchema('Organizer ids (CSV or array; OR-ed)')),
  featured: Type.Optional(WpBooleanSchema('true: only featured events; false: only events not featured')),
  status: Type.Optional(ListSchema('Post statuses (CSV or array); any for every status the caller may read')),
  geoloc: Type.Optional(WpBooleanSchema('true: only events whose venue has coordinates; false: only events without')),
  geoloc_lat: Type.Optional(
    Type.Number({ minimum: -90, maximum: 90, format: 'double', description: 'Latitude of the centre (with geoloc_lng)' }),
  ),
  geoloc_lng: Type.Optional(
    Type.Number({ minimum: -180, maximum: 180, format: 'double', description: 'Longitude of the centre (with geoloc_lat)' }),
  ),
  geoloc_radius: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: 20_100,
      description: `Radius around the centre in kilometres (default ${DEFAULT_GEOLOC_RADIUS_KM})`,
    }),
  ),
  post_parent: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'Only events whose parent is this event' })),
  include: Type.Optional(ListSchema('Only these event ids (CSV or array); date filters are ignored')),
  starts_before: Type.Optional(DateArg('Events that start before this date')),
  starts_after: Type.Optional(DateArg('Events that start after this date')),
  ends_before: Type.Optional(DateArg('Events that end before this date')),
  ends_after: Type.Optional(DateArg('Events that end after this date')),
  strict_dates: Type.Optional(WpBooleanSchema('true: compare date filters to the second instead of whole days (default false)')),
  ticketed: Type.Optional(WpBooleanSchema('Ticketed events (Event Tickets is not installed: only false is accepted)')),
  password: Type.Optional(Type.String({ description: 'Unlocks password-protected events' })),
  context: Type.Optional(
    Type.Enum(['view', 'embed', 'edit'], { type: 'string', description: 'edit: events the caller may edit are not stripped' }),
  ),
  ...ModifiedQueryProperties,
  ...LanguageQuerySchema.properties,
});
export type ListEventsQuery = Static<typeof ListEventsQuerySchema>;

export const EventIdParamsSchema = Type.Object({ id: Type.Integer({ minimum: 0, description: 'The event id' }) });
export const EventSlugParamsSchema = Type.Object({ slug: Type.String({ minLength: 1, description: 'The event slug' }) });

export const ReadEventQuerySchema = Type.Object({
  password: Type.Optional(Type.String({ minLength: 1, description: 'The event password, for a password-protected event' })),
  context: Type.Optional(
    Type.Enum(['view', 'embed', 'edit'], { type: 'string', description: 'edit: who may edit the event needs no password' }),
  ),
  ...LanguageQuerySchema.properties,
});
export type ReadEventQuery = Static<typeof ReadEventQuerySchema>;

/** The occurrences of a series (Google Calendar's `instances`): every one unless a window is given. */
export const InstancesQuerySchema = Type.Object({
  page: ListEventsQuerySchema.properties.page,
  per_page: ListEventsQuerySchema.properties.per_page,
  start_date: Type.Optional(DateArg('Occurrences that start on or after this date (default: from the first)')),
  end_date: Type.Optional(DateArg('Occurrences that end on or before this date (default: up to the last stored)')),
  status: ListEventsQuerySchema.properties.status,
  password: ReadEventQuerySchema.properties.password,
  ...LanguageQuerySchema.properties,
});
export type InstancesQuery = Static<typeof InstancesQuerySchema>;

export const DeleteEventQuerySchema = Type.Object({
  force: Type.Optional(WpBooleanSchema('true: delete permanently instead of trashing (editors and above)')),
  password: Type.Optional(Type.String({ description: 'Accepted and ignored' })),
  ...LanguageQuerySchema.properties,
});
export type DeleteEventQuery = Static<typeof DeleteEventQuerySchema>;

/**
 * How an event write names a venue or an organizer (the reference's forms with
 * deviations 2, 10 and 13): an id (a number or numeric text; `0`, `""`,
 * `null` or `false` for none), `{"id": n}`, or the fields of a new one as
 * its create route takes them — matched to an existing one or created — or
 * an array of these. Validated and coerced here, like any argument; the
 * events service checks what only storage can tell (does the id exist?).
 */
function LinkSchema(create: TObject, description: string) {
  const id = Type.Union([Type.Integer(), Type.String({ pattern: NO_NUL_PATTERN }), Type.Null(), Type.Boolean()]);
  // The new post's fields come first: ajv coerces them (`"45"` → 45) in the branch that accepts them.
  const entry = Type.Union([create, Type.Object({ id }), id]);
  return Type.Union([entry, Type.Array(entry)], { description });
}

const writeProperties = {
  title: TextSchema('The event title', { minLength: 1 }),
  start_date: DateArg('The event start, in the event time zone'),
  end_date: DateArg('The event end, in the event time zone; not before the start'),
  author: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'The author: an existing user id (editors and above for another user)' }),
  ),
  date: Type.Optional(DateArg('Publication date, in the site time zone')),
  date_utc: Type.Optional(DateArg('Publication date, in UTC')),
  description: Type.Optional(TextSchema('The event description (HTML, sanitized)')),
  slug: Type.Optional(TextSchema('The event slug in the request language; made unique', { minLength: 1 })),
  excerpt: Type.Optional(TextSchema('The event excerpt (HTML, sanitized)')),
  status: Type.Optional(
    Type.Enum([...POST_STATUSES], {
      type: 'string',
      description: 'The event status; contributors get pending instead of publish, future or private',
    }),
  ),
  timezone: Type.Optional(TextSchema('IANA time zone, UTC, or UTC±H[:MM]; empty for the site time zone')),
  all_day: Type.Optional(WpBooleanSchema('Whether the event lasts whole days')),
  image: Type.Optional(TextSchema('A stored image id, or an http(s) image URL (author and above); empty or 0 removes it')),
  cost: Type.Optional(StringOrListSchema(TextSchema('A cost'), 'The cost, or several costs (e.g. 20$ or ["0$","20$"]); empty removes it')),
  website: Type.Optional(TextSchema('The event website: a URL, or empty')),
  show_map: Type.Optional(WpBooleanSchema('Whether to show the venue map')),
  show_map_link: Type.Optional(WpBooleanSchema('Whether to show the venue map link')),
  hide_from_listings: Type.Optional(WpBooleanSchema('Whether to hide the event from every list')),
  sticky: Type.Optional(WpBooleanSchema('Whether the event is sticky')),
  featured: Type.Optional(WpBooleanSchema('Whether the event is featured')),
  categories: Type.Optional(ListSchema('Event categories by id, slug or name; unknown names are created (author and above); empty clears')),
  tags: Type.Optional(ListSchema('Event tags by id, slug or name; unknown names are created (editor and above); empty clears')),
  venue: Type.Optional(
    LinkSchema(CreateVenueBodySchema, 'A venue id, {"id": n}, or a venue object to find or create; 0, "", null or [] unlinks'),
  ),
  organizer: Type.Optional(
    LinkSchema(
      CreateOrganizerBodySchema,
      'Organizer ids (array or CSV), {"id": n} objects or organizer objects to find or create, in order; [] unlinks all',
    ),
  ),
  password: Type.Optional(Type.String({ description: 'Protects the event with a password; empty removes it' })),
  recurrence: Type.Optional(
    Type.Union(
      [
        Type.Array(TextSchema('An RRULE, EXDATE or RDATE line', { maxLength: MAX_LINE_LENGTH }), { maxItems: MAX_LINES }),
        TextSchema('One line (a form field sent once)', { maxLength: MAX_LINE_LENGTH }),
        Type.Null(),
      ],
      {
        description:
          'Makes the event a recurring series: RFC 5545 lines as Google Calendar carries them (RRULE:…, EXDATE…, RDATE…), without DTSTART (the start is the series start); [], "" or null makes it a single event again',
      },
    ),
  ),
  ...LanguageQuerySchema.properties,
};

export const CreateEventBodySchema = Type.Object(writeProperties);
export type CreateEventBody = Static<typeof CreateEventBodySchema>;

export const UpdateEventBodySchema = Type.Object({
  ...writeProperties,
  scope: Type.Optional(
    Type.Enum(['this', 'following'], {
      type: 'string',
      description:
        'Through an occurrence of a series: this (default) changes it alone; following cuts the series there and changes the new series that continues it',
    }),
  ),
  title: Type.Optional(writeProperties.title),
  start_date: Type.Optional(writeProperties.start_date),
  end_date: Type.Optional(writeProperties.end_date),
});
export type UpdateEventBody = Static<typeof UpdateEventBodySchema>;

// ---------------------------------------------------------------------------
// Representation, in the reference's order.

const DateDetailsSchema = Type.Object({
  year: Type.String(),
  month: Type.String(),
  day: Type.String(),
  hour: Type.String(),
  minutes: Type.String(),
  seconds: Type.String(),
});

const NullableBoolean = (description: string) =>
  Type.Unsafe<boolean | null>({ type: ['boolean', 'null'], description: `${description} (null when stripped by a password)` });

export const EventImageSchema = Type.Union([ImageObjectSchema, Type.Literal(false)]);

const CostDetailsSchema = Type.Object({
  currency_symbol: Type.String(),
  currency_code: Type.String(),
  currency_position: Type.String(),
  values: Type.Array(Type.String()),
});

/** The event representation: the venue, organizers and terms embedded in their own resources' shapes. */
export const EventSchema = Type.Object({
  id: Type.Integer(),
  global_id: Type.String(),
  global_id_lineage: Type.Array(Type.String()),
  author: Type.String({ description: 'Author user id, as a string' }),
  status: Type.String(),
  date: Type.String(),
  date_utc: Type.String(),
  modified: Type.String(),
  modified_utc: Type.String(),
  url: Type.String({ description: 'Permalink' }),
  rest_url: Type.String(),
  title: Type.String(),
  description: Type.String({ description: 'Rendered HTML' }),
  excerpt: Type.String({ description: 'Rendered HTML' }),
  slug: Type.String(),
  image: EventImageSchema,
  all_day: NullableBoolean('Whole-day event'),
  start_date: Type.String({ description: 'Local start, YYYY-MM-DD HH:MM:SS' }),
  start_date_details: DateDetailsSchema,
  end_date: Type.String(),
  end_date_details: DateDetailsSchema,
  utc_start_date: Type.String(),
  utc_start_date_details: DateDetailsSchema,
  utc_end_date: Type.String(),
  utc_end_date_details: DateDetailsSchema,
  timezone: Type.String(),
  timezone_abbr: Type.String(),
  cost: Type.String(),
  cost_details: CostDetailsSchema,
  website: Type.String(),
  show_map: NullableBoolean('Show the venue map'),
  show_map_link: NullableBoolean('Show the venue map link'),
  hide_from_listings: NullableBoolean('Hidden from lists'),
  sticky: NullableBoolean('Sticky'),
  featured: NullableBoolean('Featured'),
  categories: Type.Array(EmbeddedTermSchema, { description: 'The event categories' }),
  tags: Type.Array(EmbeddedTermSchema, { description: 'The event tags' }),
  venue: Type.Union([VenueSchema, Type.Array(Type.Unknown(), { maxItems: 0 })], {
    description: 'The venue, or [] when none',
  }),
  organizer: Type.Array(OrganizerSchema, { description: 'Organizers in link order' }),
  custom_fields: Type.Array(Type.Unknown(), { maxItems: 0 }),
  recurrence: Type.Optional(
    Type.Array(Type.String(), { description: "The series' RFC 5545 lines, on a series and on each of its occurrences" }),
  ),
  recurring_event_id: Type.Optional(
    Type.Integer({ description: 'The series this occurrence belongs to (absent on single events and series)' }),
  ),
  original_start_date: Type.Optional(
    Type.String({ description: 'The start the rule gives this occurrence, local (preserved when it is moved)' }),
  ),
  original_start_date_utc: Type.Optional(Type.String({ description: 'The same, in UTC' })),
  json_ld: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'schema.org JSON-LD (single GET only)' })),
});
export type EventResponse = Static<typeof EventSchema>;

export const EventListSchema = archiveEnvelopeSchema('events', EventSchema, 'A page of events');
export type EventList = Static<typeof EventListSchema>;
