import Type from 'typebox';
import { GlobalIdProperties, JsonLdSchema, PostWriteProperties, representationHead } from '../linked-posts/linked-posts.schemas.ts';
import { WpBooleanSchema } from '../common/wire.ts';

/** A coordinate: a number in range, or `""`/`null` to clear (both coordinates are set or cleared together). */
function coordinate(name: string, limit: number) {
  return Type.Unsafe<number | null>({
    type: ['number', 'null'],
    minimum: -limit,
    maximum: limit,
    description: `${name} in decimal degrees (-${limit} to ${limit}); "" or null removes the coordinates`,
  });
}

function text(description: string) {
  return Type.Optional(Type.String({ description }));
}

const VenueFieldProperties = {
  ...PostWriteProperties,
  show_map: Type.Optional(WpBooleanSchema('Show a map of the venue (default true)')),
  show_map_link: Type.Optional(WpBooleanSchema('Show a link to the map (default true)')),
  address: text('Street address'),
  city: text('City'),
  country: text('Country'),
  province: text('Province'),
  state: text('State'),
  zip: text('Postal code'),
  phone: text('Phone'),
  stateprovince: text('State or province; derived from state/province when empty'),
  website: text('Website: empty or an http(s) URL'),
  geo_lat: Type.Optional(coordinate('Latitude', 90)),
  geo_lng: Type.Optional(coordinate('Longitude', 180)),
};

export const CreateVenueBodySchema = Type.Object({
  venue: Type.String({ minLength: 1, description: 'The venue name' }),
  ...VenueFieldProperties,
});

export const UpdateVenueBodySchema = Type.Object({
  venue: Type.Optional(Type.String({ minLength: 1, description: 'The venue name' })),
  ...VenueFieldProperties,
});

/** The venue representation: falsy fields are absent, as in the reference. */
export const VenueSchema = Type.Object({
  ...representationHead('venue'),
  address: Type.Optional(Type.String()),
  city: Type.Optional(Type.String()),
  country: Type.Optional(Type.String()),
  province: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  zip: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()),
  website: Type.Optional(Type.String()),
  stateprovince: Type.Optional(Type.String()),
  geo_lat: Type.Optional(Type.Number()),
  geo_lng: Type.Optional(Type.Number()),
  json_ld: Type.Optional(JsonLdSchema),
  show_map: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'Always present; null when stripped' })),
  show_map_link: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'Always present; null when stripped' })),
  ...GlobalIdProperties,
});
